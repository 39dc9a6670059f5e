// The device merge of two sorted inputs: keys, or keys and values; stable (ties take a first).
import { roundUp } from '../../runtime/dispatch.js';
import { fail } from '../../runtime/errors.js';
import { type ElementType } from '../../wgsl/types.js';
import { type SelectedConfig } from '../../config/types.js';
import { arrayOfType, type PrimTypedArray, typeOfArray } from '../typed-arrays.js';
import { type AlgorithmEnv, type ArrayEnv, type BenchmarkSpec, defineAlgorithm, type ValueBytes } from '../spec.js';
import { compareArrays } from '../reference.js';
import { gatherMerged, mergeOrder } from '../merge-sort/reference.js';
import { prepareMergeSort } from '../merge-sort/merge-sort.js';
import { mergeSortBlockMergeTable, mergeSortBlockSortTable } from '../merge-sort/table.js';
import { type MergeConfig } from './config.js';
import { type MergeArgs, type MergePairsArgs, prepareMerge } from './merge.js';
import { mergeTable } from './table.js';

export interface ArrayMergeOptions {
  /** WGSL over `a` and `b`: a strictly before b (the order both inputs are sorted by). */
  readonly less?: string;
  /** Needed only for f16 (Uint16Array). */
  readonly type?: ElementType;
  readonly config?: Partial<MergeConfig>;
}

/** Values a pair merge moves: any 4- or 8-byte typed array. */
export type MergeValueArray = Uint32Array | Int32Array | Float32Array | BigUint64Array | BigInt64Array | Float64Array;

function mergeCalls(env: AlgorithmEnv) {
  return {
    /** Records a stable merge of two sorted inputs into `output` (countA + countB keys; ties take a first). */
    merge: async (encoder: GPUCommandEncoder, args: MergeArgs): Promise<void> => (await prepareMerge(env.context, env.rows(mergeTable), args, false))(encoder),
    /** Records the merge of two sorted key arrays with their values (ties take a first). */
    mergePairs: async (encoder: GPUCommandEncoder, args: MergePairsArgs): Promise<void> => (await prepareMerge(env.context, env.rows(mergeTable), args, true))(encoder),
    /** The merge config a call would use for these keys and values (0: keys only), and where it came from. */
    selectedMergeConfig(type: ElementType, valueBytes: ValueBytes = 0, override?: Partial<MergeConfig>): SelectedConfig<MergeConfig> {
      return env.select(mergeTable, type, valueBytes, override);
    },
  };
}

function valuesOf(name: string, keys: PrimTypedArray, values: MergeValueArray): 4 | 8 {
  const vb = values?.BYTES_PER_ELEMENT;
  if (!ArrayBuffer.isView(values) || (vb !== 4 && vb !== 8)) fail('invalid-argument', `${name} values must be a typed array of 4- or 8-byte elements`);
  if (values.length !== keys.length) fail('invalid-argument', `${name}: ${keys.length} keys but ${values.length} values`);
  return vb;
}

function mergeArrays(env: ArrayEnv) {
  const prepare = (a: PrimTypedArray, b: PrimTypedArray, options: ArrayMergeOptions, valueBytes: ValueBytes): ElementType => {
    env.context.assertAlive();
    if (!options || typeof options !== 'object') fail('invalid-argument', 'merge options must be an object');
    const type = typeOfArray(a, options.type);
    if (typeOfArray(b, options.type) !== type) fail('unsupported-type', `merge: a holds ${type} but b does not`);
    if (options.config !== undefined) env.select(mergeTable, type, valueBytes, options.config);
    return type;
  };
  return {
    /** The stable merge of two sorted typed arrays of one type: a new typed array. */
    async merge<A extends PrimTypedArray>(a: A, b: A, options: ArrayMergeOptions = {}): Promise<A> {
      const type = prepare(a, b, options, 0);
      const buffers = [env.upload(a), env.upload(b), env.buffer(a.byteLength + b.byteLength)];
      try {
        const [out] = await env.runAll([[buffers[2]!, a.byteLength + b.byteLength]], async (enc) =>
          (await prepareMerge(env.context, env.rows(mergeTable), { a: buffers[0]!, b: buffers[1]!, output: buffers[2]!, countA: a.length, countB: b.length, type, less: options.less, config: options.config }, false))(enc));
        return arrayOfType(type, out!, a.length + b.length) as A;
      } finally {
        for (const x of buffers) x.destroy();
      }
    },
    /** The merge of two sorted key arrays and their values: `{ keys, values }`. */
    async mergePairs<A extends PrimTypedArray, V extends MergeValueArray>(aKeys: A, aValues: V, bKeys: A, bValues: V, options: ArrayMergeOptions = {}): Promise<{ keys: A; values: V }> {
      const valueBytes = valuesOf('mergePairs', aKeys, aValues);
      if (valuesOf('mergePairs', bKeys, bValues) !== valueBytes || aValues.constructor !== bValues.constructor) fail('invalid-argument', 'mergePairs: aValues and bValues must be typed arrays of one type');
      const type = prepare(aKeys, bKeys, options, valueBytes);
      const n = aKeys.length + bKeys.length;
      const bufs = [env.upload(aKeys), env.upload(bKeys), env.upload(aValues), env.upload(bValues), env.buffer(aKeys.byteLength + bKeys.byteLength), env.buffer(n * valueBytes)];
      try {
        const [k, v] = await env.runAll([[bufs[4]!, aKeys.byteLength + bKeys.byteLength], [bufs[5]!, n * valueBytes]], async (enc) =>
          (await prepareMerge(env.context, env.rows(mergeTable), {
            a: bufs[0]!, b: bufs[1]!, aValues: bufs[2]!, bValues: bufs[3]!, output: bufs[4]!, valuesOut: bufs[5]!, valueBytes,
            countA: aKeys.length, countB: bKeys.length, type, less: options.less, config: options.config,
          }, true))(enc));
        const Ctor = aValues.constructor as new (b: ArrayBuffer, o: number, n: number) => V;
        return { keys: arrayOfType(type, k!, n) as A, values: new Ctor(v!, 0, n) };
      } finally {
        for (const x of bufs) x.destroy();
      }
    },
  };
}

/**
 * CUB's merge benchmark: two sorted random halves (n/2 + n/2) into one output. The halves are
 * copied from the runner's random keys and sorted once, by our merge sort, when prepared.
 */
const mergeBenchmark: BenchmarkSpec = {
  name: 'merge',
  table: mergeTable,
  input: 'sort-keys',
  valueBytes: 0,
  needsTypeFeature: false,
  nameFields: (type) => ({ lvl: 'device', algo: 'merge', key_type: type, value_type: 'empty' }),
  bytesPerCall: (type, n) => 2 * n * mergeTable.keyInfo(type).bytes,
  prepare: async (env, c, r) => {
    const t = mergeTable.keyInfo(c.type);
    // 16-bit keys: an even split, so that b starts on a word.
    const countA = t.bytes === 2 ? 2 * Math.floor(c.count / 4) : Math.floor(c.count / 2);
    const countB = c.count - countA;
    const a = r.buffer('merge.a', countA * t.bytes);
    const b = r.buffer('merge.b', countB * t.bytes);
    const device = env.context.device;
    const enc = device.createCommandEncoder();
    if (countA > 0) enc.copyBufferToBuffer(c.input, 0, a, 0, roundUp(countA * t.bytes, 4));
    if (countB > 0) enc.copyBufferToBuffer(c.input, countA * t.bytes, b, 0, roundUp(countB * t.bytes, 4));
    const tables = { blockSort: env.rows(mergeSortBlockSortTable), blockMerge: env.rows(mergeSortBlockMergeTable) };
    for (const [buf, n] of [[a, countA], [b, countB]] as const) (await prepareMergeSort(env.context, tables, { keys: buf, count: n, type: c.type }, false))(enc);
    device.queue.submit([enc.finish()]);
    await device.queue.onSubmittedWorkDone();
    const record = await prepareMerge(env.context, env.rows(mergeTable), { a, b, output: c.output, countA, countB, type: c.type, config: c.config as unknown as MergeConfig }, false);
    return async (encoder) => record(encoder);
  },
};

export const mergeAlgorithm = defineAlgorithm({
  name: 'merge',
  summary: 'stable merge of two sorted inputs (keys or pairs; a custom less or the radix sort\'s total order): merge path, one pass',
  tables: [mergeTable],
  benchmarks: [mergeBenchmark],
  tuning: [{
    stage: 'merge', table: mergeTable, benchmarks: ['merge'], defaultBenchmarks: ['merge'],
    // 512 invocations and 16 items came within 0.95x and 0.91x of the best on the H200.
    defaultSpace: { workgroupSize: [128, 256], itemsPerThread: [8, 10, 12, 15] },
    smallSpace: { workgroupSize: [64, 128], itemsPerThread: [4, 8] },
    smallTypes: ['u32'],
    cost: { pipelines: () => 1, passes: () => 1 },
    fullCoverageCount: (c) => 2 * Number(c.workgroupSize) * Number(c.itemsPerThread) + 1,
  }],
  calls: mergeCalls,
  arrays: mergeArrays,
  demo: (arrays, { u32 }) => {
    // Two sorted halves of the demo's keys.
    const half = u32.length >> 1;
    const a = u32.slice(0, half).sort();
    const b = u32.slice(half).sort();
    return [
      { name: 'merge u32 (sorted halves)', run: () => arrays.merge(a, b), verify: (g: unknown) => compareArrays(g, gatherMerged(a, b, mergeOrder('u32', a, b))) },
    ];
  },
});
