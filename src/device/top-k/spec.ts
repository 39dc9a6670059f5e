// The radix select (AIR top-k, §7 of the designs): top-k, and nth element and partial sort on it
// (a table of their own, nthElement, falling back to topK's selection).
import { fail } from '../../runtime/errors.js';
import { type ElementType, typeInfo } from '../../wgsl/types.js';
import { arrayOfType, type PrimTypedArray, typeOfArray } from '../typed-arrays.js';
import { type AlgorithmEnv, type ArrayEnv, defineAlgorithm } from '../spec.js';
import { orderedKeys } from '../binary-search/reference.js';
import { type TopKConfig } from './config.js';
import { recordTopK, selectTables, type TopKArgs } from './top-k.js';
import { nthElementTable, topKTable } from './table.js';
import { nthElementBenchmark, topKBenchmarks, topKTuning } from './bench.js';
import { nthElementProblem, partialSortProblem, topKReference } from './reference.js';
import { type NthElementArgs, type PartialSortArgs, recordNthElement, recordPartialSort } from './arrange.js';

export interface ArrayPartialOptions {
  /** WGSL `less` over `a` and `b` (see `NthElementArgs.less`): the keys are then fully sorted by the merge sort. */
  readonly less?: string;
  /** Needed only for f16 (Uint16Array). */
  readonly type?: ElementType;
  readonly config?: Partial<TopKConfig>;
}

export interface ArrayTopKOptions {
  /** The k largest (default) or the k smallest. */
  readonly largest?: boolean;
  /** Needed only for f16 (Uint16Array). */
  readonly type?: ElementType;
  readonly config?: Partial<TopKConfig>;
}

function topKCalls(env: AlgorithmEnv) {
  return {
    /** Records top-k: the k largest (or smallest) keys, ordered, into `valuesOut` and their u32 indices into `indicesOut`. */
    topK: (encoder: GPUCommandEncoder, args: TopKArgs): Promise<void> => recordTopK(env.context, selectTables(env), encoder, args),
    /** Records nth element, in place: position `nth` gets the key a full sort puts there, nothing before it greater, nothing after it less. */
    nthElement: (encoder: GPUCommandEncoder, args: NthElementArgs): Promise<void> => recordNthElement(env.context, selectTables(env), encoder, args),
    /** Records partial sort, in place: the first `middle` positions get the smallest `middle` keys in order. */
    partialSort: (encoder: GPUCommandEncoder, args: PartialSortArgs): Promise<void> => recordPartialSort(env.context, selectTables(env), encoder, args),
  };
}

async function arrayTopK<A extends PrimTypedArray>(env: ArrayEnv, data: A, k: number, options: ArrayTopKOptions = {}): Promise<{ values: A; indices: Uint32Array }> {
  if (!options || typeof options !== 'object') fail('invalid-argument', 'topK options must be an object');
  const type = typeOfArray(data, options.type);
  const t = typeInfo(type);
  env.context.assertAlive();
  if (typeof k !== 'number' || !Number.isInteger(k) || k < 0 || k > data.length) fail('invalid-argument', `topK: k must be an integer in [0, ${data.length}], got ${String(k)}`);
  if (options.config !== undefined) env.select(topKTable, type, 0, options.config);
  const bytes = Math.ceil((k * t.bytes) / 4) * 4;
  const buffers = [env.upload(data), env.buffer(bytes), env.buffer(4 * k)];
  const [input, valuesOut, indicesOut] = buffers as [GPUBuffer, GPUBuffer, GPUBuffer];
  try {
    const args = { input, count: data.length, k, type, largest: options.largest, valuesOut, indicesOut, config: options.config };
    const [v, i] = await env.runAll([[valuesOut, bytes], [indicesOut, 4 * k]], (enc) => recordTopK(env.context, selectTables(env), enc, args));
    return { values: arrayOfType(type, v!, k) as A, indices: new Uint32Array(i!, 0, k) };
  } finally {
    for (const b of buffers) b.destroy();
  }
}

/** Uploads the keys, rearranges them in place on the GPU and returns the result as a new array. */
async function arrayPartial<A extends PrimTypedArray>(env: ArrayEnv, what: 'nthElement' | 'partialSort', data: A, at: number, options: ArrayPartialOptions = {}): Promise<A> {
  if (!options || typeof options !== 'object') fail('invalid-argument', `${what} options must be an object`);
  const type = typeOfArray(data, options.type);
  env.context.assertAlive();
  if (options.config !== undefined) env.select(nthElementTable, type, 0, options.config);
  const keys = env.upload(data);
  try {
    const common = { keys, count: data.length, type, less: options.less, config: options.config };
    const [r] = await env.runAll([[keys, data.byteLength]], (enc) => (what === 'nthElement'
      ? recordNthElement(env.context, selectTables(env), enc, { ...common, nth: at })
      : recordPartialSort(env.context, selectTables(env), enc, { ...common, middle: at })));
    return arrayOfType(type, r!, data.length) as A;
  } finally {
    keys.destroy();
  }
}

export const topKAlgorithm = defineAlgorithm({
  name: 'top-k',
  summary: 'top-k (AIR radix select): the k largest or smallest keys and their indices',
  tables: [topKTable, nthElementTable],
  benchmarks: [...topKBenchmarks, nthElementBenchmark],
  tuning: topKTuning,
  calls: topKCalls,
  arrays: (env: ArrayEnv) => ({
    /** The k largest (or smallest) elements, largest first (smallest first), and their indices: `{ values, indices }`. */
    topK: <A extends PrimTypedArray>(data: A, k: number, options?: ArrayTopKOptions): Promise<{ values: A; indices: Uint32Array }> => arrayTopK(env, data, k, options),
    /** The keys rearranged: position `nth` holds what a full sort puts there, nothing before it greater, nothing after it less. */
    nthElement: <A extends PrimTypedArray>(keys: A, nth: number, options?: ArrayPartialOptions): Promise<A> => arrayPartial(env, 'nthElement', keys, nth, options),
    /** The keys rearranged: the first `middle` hold the smallest `middle` keys in order, the rest the others. */
    partialSort: <A extends PrimTypedArray>(keys: A, middle: number, options?: ArrayPartialOptions): Promise<A> => arrayPartial(env, 'partialSort', keys, middle, options),
  }),
  demo: (arrays, { f32 }) => {
    const want = (k: number): string => topKReference('f32', f32, k).join(',');
    const part = f32.slice(0, 2 ** 22);
    const check = (k: number) => (g: unknown): string | undefined => {
      const r = g as { values: Float32Array; indices: Uint32Array };
      if (orderedKeys('f32', r.values).join(',') !== want(k)) return `top ${k} values differ from the reference`;
      const bad = Array.from(r.indices).findIndex((i, j) => !Object.is(f32[i], r.values[j]));
      return bad >= 0 ? `index ${bad} (${r.indices[bad]}) does not hold value ${r.values[bad]}` : undefined;
    };
    return [
      { name: 'topK f32 (k = 100)', run: () => arrays.topK(f32, 100), verify: check(100) },
      { name: 'topK f32 (k = 4096)', run: () => arrays.topK(f32, Math.min(4096, f32.length)), verify: check(Math.min(4096, f32.length)) },
      // At most 2^22 keys: the references sort the whole array on the CPU.
      { name: 'partialSort f32 (middle = 1000)', run: () => arrays.partialSort(part, Math.min(1000, part.length)), verify: (g: unknown) => partialSortProblem('f32', part, g as Float32Array, Math.min(1000, part.length)) },
      { name: 'nthElement f32 (nth = count / 3)', run: () => arrays.nthElement(part, Math.floor(part.length / 3)), verify: (g: unknown) => nthElementProblem('f32', part, g as Float32Array, Math.floor(part.length / 3)) },
    ];
  },
});
