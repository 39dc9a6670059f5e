// The top-k benchmarks (rocPRIM's `topk_air`): the k largest of `count` random sort keys, k of 100
// and 4096 (issue 24's targets); a tuning stage over both. CUB has no anchor of it here: the
// target is a fifth of our own radix sort's time on the same keys (`radix_sort_keys`).
// nth element (rocPRIM's `nth_element`): the median of the same keys, its own stage and table.
import { typeInfo } from '../../wgsl/types.js';
import { rawKeyBytes } from '../../wgsl/device/raw-keys.js';
import { type BenchmarkSpec, type TuningSpec } from '../spec.js';
import { type TopKConfig } from './config.js';
import { recordTopK, selectTables } from './top-k.js';
import { recordNthElement } from './arrange.js';
import { nthElementTable, topKTable } from './table.js';

const KS = [100, 4096] as const;

export const topKBenchmarks: readonly BenchmarkSpec[] = KS.map((k) => ({
  name: `top_k_${k}`,
  anchor: null,
  table: topKTable,
  input: 'sort-keys',
  valueBytes: 0,
  needsTypeFeature: false,
  nameFields: (type) => ({ lvl: 'device', algo: `top_k_${k}`, key_type: type }),
  bytesPerCall: (type, n) => n * typeInfo(type).bytes + Math.min(k, n) * (typeInfo(type).bytes + 4),
  prepare: async (env, c, r) => {
    const kk = Math.min(k, c.count);
    const indicesOut = r.buffer('top-k-indices', 4 * kk);
    const args = { input: c.input, count: c.count, k: kk, type: c.type, valuesOut: c.output, indicesOut, config: c.config as unknown as TopKConfig };
    return (encoder) => recordTopK(env.context, selectTables(env), encoder, args);
  },
}));

/** nth = count / 2, in place: each call rearranges a fresh copy of the input (the runner's input must stay random). */
export const nthElementBenchmark: BenchmarkSpec = {
  name: 'nth_element',
  anchor: null,
  table: nthElementTable,
  input: 'sort-keys',
  valueBytes: 0,
  needsTypeFeature: false,
  nameFields: (type) => ({ lvl: 'device', algo: 'nth_element', key_type: type }),
  // The copy reads and writes the keys, the select reads them, the nth + 1 smallest are written back.
  bytesPerCall: (type, n) => (3 * n + (n >> 1) + 1) * typeInfo(type).bytes,
  prepare: async (env, c, r) => {
    const bytes = rawKeyBytes(typeInfo(c.type), c.count);
    const keys = r.buffer('nth-element-keys', bytes);
    const args = { keys, count: c.count, nth: c.count >> 1, type: c.type, config: c.config as unknown as TopKConfig };
    return (encoder) => {
      encoder.copyBufferToBuffer(c.input, 0, keys, 0, bytes);
      return recordNthElement(env.context, selectTables(env), encoder, args);
    };
  },
};

/** top-k's spaces, which nth element's stage shares (one select). */
const TOP_K_STAGE = {
  // 16 items, 8-bit digits and the 2112 grid came within 0.75x, 0.88x and 0.86x of the best on the H200.
  defaultSpace: { workgroupSize: [256, 512], itemsPerThread: [8], radixBits: [11], gridSize: [528, 1056] },
  smallSpace: { workgroupSize: [128, 256], itemsPerThread: [8, 16], gridSize: [8, 32] },
  // Every pipeline runs at any size; a grid's worth of tiles exercises its stride.
  fullCoverageCount: (c) => Number(c.workgroupSize) * Number(c.itemsPerThread) + 1,
} satisfies Partial<TuningSpec>;

export const topKTuning: readonly TuningSpec[] = [{
  stage: 'top_k', table: topKTable, benchmarks: topKBenchmarks.map((b) => b.name), defaultBenchmarks: topKBenchmarks.map((b) => b.name),
  ...TOP_K_STAGE,
  // Passes: 32-bit keys read the input about twice (the first two passes), the candidates after.
  cost: { pipelines: () => 3, passes: () => 2, launchOnly: ['gridSize', 'candidateDivisor'] },
}, {
  stage: 'nth_element', table: nthElementTable, benchmarks: [nthElementBenchmark.name], defaultBenchmarks: [nthElementBenchmark.name],
  ...TOP_K_STAGE,
  // Passes: besides what bytesPerCall counts, the radix sort of the nth + 1 smallest keys with their indices.
  cost: { pipelines: () => 3, passes: () => 4, launchOnly: ['gridSize', 'candidateDivisor'] },
}];
