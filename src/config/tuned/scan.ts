// Tuned scan configs. Seeded by hand from H200 sweeps (scripts/device-sweep.mjs, see
// docs/performance.md); the autotuner will regenerate this module. Data only.
// Type classes without a row here use the heuristic.
import { type TunedEntry } from '../types.js';
import { type ScanConfig } from '../../device/scan/config.js';

export const scanTuned: readonly TunedEntry<ScanConfig>[] = [
  {
    target: { vendor: 'nvidia', device: 'nvidia-h200' },
    typeClass: { float: false, bytes: 4 },
    config: { workgroupSize: 256, itemsPerThread: 24, lookback: 'decoupled', workgroupScan: 'subgroup' },
    evidence: {
      itemsPerSecond: 3.61e11, cv: 0.008, size: 268435456, date: '2026-11-29', version: '0.1.0',
      note: 'u32 2^28, same process, buffers reused: inclusive 0.741 ms vs 0.861 ms (256x16), exclusive 0.744 vs 0.790 ms; 512x16 0.823 / 0.750 ms',
    },
  },
  {
    target: { vendor: 'nvidia', device: 'nvidia-h200' },
    typeClass: { float: true, bytes: 4 },
    config: { workgroupSize: 256, itemsPerThread: 24, lookback: 'decoupled', workgroupScan: 'subgroup' },
    evidence: {
      itemsPerSecond: 3.39e11, cv: 0.008, size: 268435456, date: '2026-11-29', version: '0.1.0',
      note: 'f32 inclusive 0.793 ms vs 0.865 ms (256x16), exclusive 0.742 vs 0.791 ms; 256x32 spills (1.69 ms)',
    },
  },
  {
    target: { vendor: 'nvidia', device: 'nvidia-h200' },
    typeClass: { float: false, bytes: 8 },
    config: { workgroupSize: 256, itemsPerThread: 12, lookback: 'decoupled', workgroupScan: 'subgroup' },
    evidence: {
      itemsPerSecond: 1.61e11, cv: 0.005, size: 134217728, date: '2026-11-29', version: '0.1.0',
      note: 'u64 at 2^27: inclusive 0.835 ms vs 0.974 ms (256x8), exclusive 0.867 vs 0.968 ms',
    },
  },
];
