// Searching sorted keys: lower bound, upper bound and binary search of many needles at once,
// one kernel (./kernel.ts) with a tuned table per search, as rocPRIM tunes them.
import { fail } from '../../runtime/errors.js';
import { type ElementType, typeInfo } from '../../wgsl/types.js';
import { type PrimTypedArray, typeOfArray } from '../typed-arrays.js';
import { type AlgorithmEnv, type ArrayEnv, defineAlgorithm } from '../spec.js';
import { compareArrays } from '../reference.js';
import { type BinarySearchConfig } from './config.js';
import { type SearchKind } from './kernel.js';
import { type BinarySearchArgs, checkLess, recordSearch, SEARCH_CALLS } from './search.js';
import { SEARCH_TABLES } from './table.js';
import { searchBenchmarks, searchTuning } from './bench.js';
import { orderedKeys, searchReference } from './reference.js';

export interface ArraySearchOptions {
  /** WGSL `bool` expression over `a` and `b`: a comes before b (the haystack is sorted by it). */
  readonly less?: string;
  /** Needed only for f16 (Uint16Array). */
  readonly type?: ElementType;
  readonly config?: Partial<BinarySearchConfig>;
  /** As BinarySearchArgs.bucketNeedles: search the needles in bucket order (default by size, on GPUs). */
  readonly bucketNeedles?: boolean;
}

function searchCalls(env: AlgorithmEnv) {
  const call = (kind: SearchKind) => (encoder: GPUCommandEncoder, args: BinarySearchArgs): Promise<void> =>
    recordSearch(env.context, env.rows(SEARCH_CALLS[kind].table), kind, encoder, args);
  return {
    /** Records, per needle, the first haystack index whose key is not before it (a u32). */
    lowerBound: call('lower-bound'),
    /** Records, per needle, the first haystack index whose key is after it (a u32). */
    upperBound: call('upper-bound'),
    /** Records, per needle, 1 where the haystack holds a key equal to it (neither before nor after), else 0. */
    binarySearch: call('binary-search'),
  };
}

async function arraySearch(env: ArrayEnv, kind: SearchKind, haystack: PrimTypedArray, needles: PrimTypedArray, options: ArraySearchOptions = {}): Promise<Uint32Array> {
  const { name, table } = SEARCH_CALLS[kind];
  if (!options || typeof options !== 'object') fail('invalid-argument', `${name} options must be an object`);
  const type = typeOfArray(haystack, options.type);
  const needleType = typeOfArray(needles, options.type);
  if (needleType !== type) fail('unsupported-type', `${name}: the haystack holds ${type} and the needles ${needleType}`);
  checkLess(name, options.less);
  // The buffer-level call's checks, before anything is uploaded (f16's feature only for a custom less).
  env.context.assertAlive();
  if (options.less !== undefined) env.context.requireTypeFeature(typeInfo(type));
  if (options.config !== undefined) env.select(table, type, 0, options.config);
  const buffers = [env.upload(haystack), env.upload(needles), env.buffer(4 * needles.length)];
  const [hay, nee, out] = buffers as [GPUBuffer, GPUBuffer, GPUBuffer];
  try {
    const args = { haystack: hay, haystackCount: haystack.length, needles: nee, needlesCount: needles.length, output: out, type, less: options.less, config: options.config, bucketNeedles: options.bucketNeedles };
    const [result] = await env.runAll([[out, 4 * needles.length]], (enc) => recordSearch(env.context, env.rows(table), kind, enc, args));
    return new Uint32Array(result!, 0, needles.length);
  } finally {
    for (const b of buffers) b.destroy();
  }
}

export const binarySearchAlgorithm = defineAlgorithm({
  name: 'binary-search',
  summary: 'lower bound, upper bound and binary search of many needles in sorted keys',
  tables: SEARCH_TABLES,
  benchmarks: searchBenchmarks,
  tuning: searchTuning,
  calls: searchCalls,
  arrays: (env: ArrayEnv) => ({
    /** Per needle, the first index of `haystack` (sorted) whose key is not before it: a Uint32Array. */
    lowerBound: (haystack: PrimTypedArray, needles: PrimTypedArray, options?: ArraySearchOptions): Promise<Uint32Array> => arraySearch(env, 'lower-bound', haystack, needles, options),
    /** Per needle, the first index of `haystack` (sorted) whose key is after it: a Uint32Array. */
    upperBound: (haystack: PrimTypedArray, needles: PrimTypedArray, options?: ArraySearchOptions): Promise<Uint32Array> => arraySearch(env, 'upper-bound', haystack, needles, options),
    /** Per needle, 1 where `haystack` (sorted) holds an equal key, else 0: a Uint32Array. */
    binarySearch: (haystack: PrimTypedArray, needles: PrimTypedArray, options?: ArraySearchOptions): Promise<Uint32Array> => arraySearch(env, 'binary-search', haystack, needles, options),
  }),
  demo: (arrays, { u32 }) => {
    // The haystack: the demo's keys sorted; the needles: a slice of them (found) and their neighbours.
    // A haystack of at most 2^24 keys keeps the CPU's sort short at the demo's largest sizes.
    const hay = u32.slice(0, 2 ** 24).sort();
    const needles = Uint32Array.from(u32.subarray(0, Math.min(u32.length, 2 ** 20)), (x, i) => (i & 1 ? x + 1 : x) >>> 0);
    const h = orderedKeys('u32', hay);
    const q = orderedKeys('u32', needles);
    return [
      { name: 'lowerBound u32 (2^20 needles)', run: () => arrays.lowerBound(hay, needles), verify: (g: unknown) => compareArrays(g, searchReference('lower-bound', h, q)) },
      { name: 'upperBound u32', run: () => arrays.upperBound(hay, needles), verify: (g: unknown) => compareArrays(g, searchReference('upper-bound', h, q)) },
      { name: 'binarySearch u32', run: () => arrays.binarySearch(hay, needles), verify: (g: unknown) => compareArrays(g, searchReference('binary-search', h, q)) },
    ];
  },
});
