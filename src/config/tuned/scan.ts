// Tuned scan configs. Seeded by hand from `wgprim bench` runs (see docs/performance.md);
// the autotuner regenerates this module. Data only.
import { type TunedEntry } from '../types.js';
import { type ScanConfig } from '../../device/scan/config.js';

export const scanTuned: readonly TunedEntry<ScanConfig>[] = [];
