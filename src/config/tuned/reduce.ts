// Tuned reduce configs. Seeded by hand from `wgprim bench` runs (see docs/performance.md);
// the autotuner regenerates this module. Data only.
import { type TunedEntry } from '../types.js';
import { type ReduceConfig } from '../../device/reduce/config.js';

export const reduceTuned: readonly TunedEntry<ReduceConfig>[] = [];
