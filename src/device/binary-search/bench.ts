// The search benchmarks, named as rocPRIM's (`lower_bound`, `upper_bound`, `binary_search`):
// 2^20 random needles (fewer below 2^20 keys) into `count` sorted random keys, as CUB's anchor
// (thrust::lower_bound of 2^20 random u32 queries); a tuning stage per table.
import { typeInfo } from '../../wgsl/types.js';
import { type AlgorithmEnv, type BenchCall, type BenchmarkSpec, type BenchResources, type TuningSpec } from '../spec.js';
import { radixSortBlockSortTable, radixSortTable } from '../radix-sort/table.js';
import { scanTable } from '../scan/table.js';
import { recordRadixSort } from '../radix-sort/radix-sort.js';
import { rawKeyBytes } from '../../wgsl/device/raw-keys.js';
import { type BinarySearchConfig } from './config.js';
import { type SearchKind } from './kernel.js';
import { prepareSearch, SEARCH_CALLS } from './search.js';

/** Needles a benchmark call searches (CUB's anchor: q2^20). */
export const BENCH_NEEDLES = 2 ** 20;
const needlesFor = (count: number): number => Math.min(count, BENCH_NEEDLES);

const BENCHES: readonly { readonly name: string; readonly kind: SearchKind; readonly anchor?: null }[] = [
  { name: 'lower_bound', kind: 'lower-bound' },
  { name: 'upper_bound', kind: 'upper-bound', anchor: null },
  { name: 'binary_search', kind: 'binary-search', anchor: null },
];

/**
 * The haystack: the input's random keys sorted (by the radix sort, once per prepared call) into a
 * buffer of their own; the needles: the first 2^20 unsorted keys, so about as many fall between
 * any two keys, as random queries do.
 */
async function benchHaystack(env: AlgorithmEnv, c: BenchCall, r: BenchResources): Promise<GPUBuffer> {
  const hay = r.buffer('haystack', rawKeyBytes(typeInfo(c.type), c.count));
  const encoder = r.device.createCommandEncoder();
  await recordRadixSort(env.context, env.rows(radixSortTable), env.rows(radixSortBlockSortTable), env.rows(scanTable), encoder, { keys: c.input, keysOut: hay, count: c.count, type: c.type }, false);
  r.device.queue.submit([encoder.finish()]);
  await r.device.queue.onSubmittedWorkDone();
  return hay;
}

export const searchBenchmarks: readonly BenchmarkSpec[] = BENCHES.map((b) => ({
  name: b.name,
  anchor: b.anchor,
  table: SEARCH_CALLS[b.kind].table,
  input: 'sort-keys',
  valueBytes: 0,
  needsTypeFeature: false,
  nameFields: (type) => ({ lvl: 'device', algo: b.name, key_type: type }),
  // As CUB's anchor counts: the needles read and the indices written (the haystack's reads are mostly cache hits).
  bytesPerCall: (type, n) => needlesFor(n) * (typeInfo(type).bytes + 4),
  prepare: async (env, c, r) => {
    const haystack = await benchHaystack(env, c, r);
    const q = needlesFor(c.count);
    const record = await prepareSearch(env.context, env.rows(SEARCH_CALLS[b.kind].table), b.kind, {
      // The answers are u32s: the runner's output holds `count` keys, too few for 16-bit keys below 2^20.
      haystack, haystackCount: c.count, needles: c.input, needlesCount: q, output: r.buffer('search-output', 4 * q), type: c.type, config: c.config as unknown as BinarySearchConfig,
    });
    return async (encoder) => record(encoder);
  },
}));

export const searchTuning: readonly TuningSpec[] = BENCHES.map((b) => ({
  stage: b.name, table: SEARCH_CALLS[b.kind].table, benchmarks: [b.name], defaultBenchmarks: [b.name],
  // The H200's nine rows took 256 or 512 invocations and 1 or 8 needles, each runner-up within
  // 2.4% (128 x 1 among them); since the bucketed search, 8 or 10 cached levels (11 within
  // 0.96x): the rest is left to the full space.
  defaultSpace: { workgroupSize: [256, 512], needlesPerThread: [1, 4, 8], cacheLevels: [8, 10] },
  smallSpace: { workgroupSize: [64, 256], needlesPerThread: [1, 8], cacheLevels: [0, 10] },
  cost: { pipelines: () => 1, passes: () => 1 },
  fullCoverageCount: (c) => Number(c.workgroupSize) * Number(c.needlesPerThread) + 1,
}));
