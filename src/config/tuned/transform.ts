// Tuned transform configs. Seeded by hand from `wgprim bench` runs (see docs/performance.md);
// the autotuner regenerates this module. Data only.
import { type TunedEntry } from '../types.js';
import { type TransformConfig } from '../../device/transform/config.js';

export const transformTuned: readonly TunedEntry<TransformConfig>[] = [];
