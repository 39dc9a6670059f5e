// The device merge sort: keys, or keys and values, of every key type; stable; a custom `less`
// or the radix sort's total order. Two tuned stages: the block sort, then the merge passes.
import { fail } from '../../runtime/errors.js';
import { type ElementType } from '../../wgsl/types.js';
import { type SelectedConfig } from '../../config/types.js';
import { arrayOfType, type PrimTypedArray, typeOfArray } from '../typed-arrays.js';
import { type AlgorithmEnv, type ArrayEnv, type BenchmarkSpec, defineAlgorithm, type ValueBytes } from '../spec.js';
import { compareArrays } from '../reference.js';
import { type MergeSortBlockMergeConfig, type MergeSortBlockSortConfig } from './config.js';
import { type MergeSortKeysArgs, type MergeSortPairsArgs, type MergeSortTables, prepareMergeSort } from './merge-sort.js';
import { mergeSortBlockMergeTable, mergeSortBlockSortTable } from './table.js';
import { gather, mergeSortOrder } from './reference.js';
import { radixSortOrder } from '../radix-sort/reference.js';

export interface ArrayMergeSortOptions {
  /** WGSL over `a` and `b`: a strictly before b. Default: ascending, floats in the radix sort's total order. */
  readonly less?: string;
  /** Needed only for f16 keys (a Uint16Array of f16 bits). */
  readonly type?: ElementType;
  /** The merge passes' config. */
  readonly config?: Partial<MergeSortBlockMergeConfig>;
  /** The block sort's config. */
  readonly blockSortConfig?: Partial<MergeSortBlockSortConfig>;
}

/** Values a pair sort moves: any 4- or 8-byte typed array. */
export type MergeSortValueArray = Uint32Array | Int32Array | Float32Array | BigUint64Array | BigInt64Array | Float64Array;

const tablesOf = (env: AlgorithmEnv): MergeSortTables => ({ blockSort: env.rows(mergeSortBlockSortTable), blockMerge: env.rows(mergeSortBlockMergeTable) });

function mergeSortCalls(env: AlgorithmEnv) {
  const record = async (encoder: GPUCommandEncoder, args: MergeSortKeysArgs | MergeSortPairsArgs, pairs: boolean): Promise<void> =>
    (await prepareMergeSort(env.context, tablesOf(env), args, pairs))(encoder);
  return {
    /** Records a stable merge sort of `count` keys: in place unless `keysOut` is given (a scratch buffer of the keys' size is used). */
    mergeSortKeys: (encoder: GPUCommandEncoder, args: MergeSortKeysArgs): Promise<void> => record(encoder, args, false),
    /** Records a stable merge sort of keys with values of 4 or 8 bytes moved alongside. */
    mergeSortPairs: (encoder: GPUCommandEncoder, args: MergeSortPairsArgs): Promise<void> => record(encoder, args, true),
    /** The merge passes' config a call would use for these keys and values (0: keys only). */
    selectedMergeSortConfig(type: ElementType, valueBytes: ValueBytes = 0, override?: Partial<MergeSortBlockMergeConfig>): SelectedConfig<MergeSortBlockMergeConfig> {
      return env.select(mergeSortBlockMergeTable, type, valueBytes, override);
    },
    /** The block sort's config a call would use. */
    selectedMergeSortBlockSortConfig(type: ElementType, valueBytes: ValueBytes = 0, override?: Partial<MergeSortBlockSortConfig>): SelectedConfig<MergeSortBlockSortConfig> {
      return env.select(mergeSortBlockSortTable, type, valueBytes, override);
    },
  };
}

function mergeSortArrays(env: ArrayEnv) {
  const precheck = (keys: PrimTypedArray, options: ArrayMergeSortOptions, valueBytes: ValueBytes): ElementType => {
    env.context.assertAlive();
    if (!options || typeof options !== 'object') fail('invalid-argument', 'merge sort options must be an object');
    const type = typeOfArray(keys, options.type);
    if (options.config !== undefined) env.select(mergeSortBlockMergeTable, type, valueBytes, options.config);
    if (options.blockSortConfig !== undefined) env.select(mergeSortBlockSortTable, type, valueBytes, options.blockSortConfig);
    return type;
  };
  const run = async (keys: PrimTypedArray, values: MergeSortValueArray | undefined, options: ArrayMergeSortOptions): Promise<ArrayBuffer[]> => {
    const valueBytes = values ? values.BYTES_PER_ELEMENT as 4 | 8 : 0;
    const type = precheck(keys, options, valueBytes);
    const kb = env.upload(keys);
    const vb = values ? env.upload(values) : undefined;
    try {
      const outs: [GPUBuffer, number][] = [[kb, keys.byteLength], ...(vb ? [[vb, values!.byteLength] as [GPUBuffer, number]] : [])];
      const base = { keys: kb, count: keys.length, type, less: options.less, config: options.config, blockSortConfig: options.blockSortConfig };
      return await env.runAll(outs, async (enc) => (await prepareMergeSort(env.context, tablesOf(env), vb ? { ...base, values: vb, valueBytes: valueBytes as 4 | 8 } : base, !!vb))(enc));
    } finally {
      kb.destroy();
      vb?.destroy();
    }
  };
  return {
    /** A stably sorted copy of `keys` (any key type; f16 bits in a Uint16Array with `{ type: 'f16' }`). */
    async mergeSortKeys<A extends PrimTypedArray>(keys: A, options: ArrayMergeSortOptions = {}): Promise<A> {
      const [k] = await run(keys, undefined, options);
      return arrayOfType(typeOfArray(keys, options.type), k!, keys.length) as A;
    },
    /** Keys sorted stably as `mergeSortKeys` does, and the values moved with them: `{ keys, values }`. */
    async mergeSortPairs<A extends PrimTypedArray, V extends MergeSortValueArray>(keys: A, values: V, options: ArrayMergeSortOptions = {}): Promise<{ keys: A; values: V }> {
      const vb = values?.BYTES_PER_ELEMENT;
      if (!ArrayBuffer.isView(values) || (vb !== 4 && vb !== 8)) fail('invalid-argument', 'mergeSortPairs values must be a typed array of 4- or 8-byte elements');
      if (values.length !== keys.length) fail('invalid-argument', `mergeSortPairs: ${keys.length} keys but ${values.length} values`);
      const [k, v] = await run(keys, values, options);
      const Ctor = values.constructor as new (b: ArrayBuffer, o: number, n: number) => V;
      return { keys: arrayOfType(typeOfArray(keys, options.type), k!, keys.length) as A, values: new Ctor(v!, 0, values.length) };
    },
  };
}

/**
 * A merge sort benchmark: keys from `input` to `output` (the input is never written); pairs
 * move u32 indices (as CUB's anchor, values = iota). `blockOnly`: the block sort stage alone.
 */
function sortBenchmark(o: { name: string; anchor?: null; pairs: boolean; blockOnly: boolean }): BenchmarkSpec {
  const table = o.blockOnly ? mergeSortBlockSortTable : mergeSortBlockMergeTable;
  return {
    name: o.name,
    ...(o.anchor !== undefined ? { anchor: o.anchor } : {}),
    table,
    input: 'sort-keys',
    valueBytes: o.pairs ? 4 : 0,
    needsTypeFeature: false,
    nameFields: (type) => ({ lvl: 'device', algo: o.blockOnly ? 'merge_sort_block_sort' : 'merge_sort_block_merge', key_type: type, value_type: o.pairs ? 'u32' : 'empty' }),
    bytesPerCall: (type, n) => 2 * n * (table.keyInfo(type).bytes + (o.pairs ? 4 : 0)),
    prepare: async (env, c, resources) => {
      const cfg = c.config as unknown as MergeSortBlockMergeConfig;
      // The block merge is timed on tiles of the installed (tuned) block sort, as rocPRIM tunes it.
      const base = { keys: c.input, keysOut: c.output, count: c.count, type: c.type, ...(o.blockOnly ? { blockSortConfig: cfg } : { config: cfg }) };
      if (!o.pairs) return prepareMergeSort(env.context, tablesOf(env), base, false, o.blockOnly).then((r) => async (enc) => r(enc));
      const { values, valuesOut } = await resources.values(c.count);
      return prepareMergeSort(env.context, tablesOf(env), { ...base, values, valuesOut, valueBytes: 4 }, true, o.blockOnly).then((r) => async (enc) => r(enc));
    },
  };
}

/** Merge passes for `count` keys after tiles of `tile`. */
const mergePasses = (tile: number, count: number): number => Math.max(0, Math.ceil(Math.log2(count / tile)));

export const mergeSortAlgorithm = defineAlgorithm({
  name: 'merge-sort',
  summary: 'stable merge sort of keys or pairs by a custom less (or the radix sort\'s total order): block sort of each tile, then merge-path passes',
  tables: [mergeSortBlockSortTable, mergeSortBlockMergeTable],
  benchmarks: [
    sortBenchmark({ name: 'merge_sort_keys', pairs: false, blockOnly: false }),
    sortBenchmark({ name: 'merge_sort_pairs', pairs: true, blockOnly: false }),
    sortBenchmark({ name: 'merge_sort_block_sort_keys', anchor: null, pairs: false, blockOnly: true }),
    sortBenchmark({ name: 'merge_sort_block_sort_pairs', anchor: null, pairs: true, blockOnly: true }),
  ],
  tuning: [
    {
      stage: 'merge_sort_block_sort', table: mergeSortBlockSortTable, benchmarks: ['merge_sort_block_sort_keys', 'merge_sort_block_sort_pairs'], defaultBenchmarks: ['merge_sort_block_sort_keys'],
      optIn: true,
      // Its tiles feed the merge passes, which prefer larger ones: rocPRIM's block-sort score.
      tileBias: true,
      // 512 invocations came within 0.80x of the best on the H200.
      defaultSpace: { workgroupSize: [128, 256], itemsPerThread: [8, 12, 16] },
      smallSpace: { workgroupSize: [64, 128], itemsPerThread: [4, 8] },
      smallTypes: ['u32'],
      cost: { pipelines: () => 1, passes: () => 1 },
      fullCoverageCount: (c) => 2 * Number(c.workgroupSize) * Number(c.itemsPerThread) + 1,
    },
    {
      stage: 'merge_sort_block_merge', table: mergeSortBlockMergeTable, benchmarks: ['merge_sort_keys', 'merge_sort_pairs'], defaultBenchmarks: ['merge_sort_keys'],
      // 512 invocations, 12 and 16 items came within 0.91x, 0.94x and 0.94x of the best on the H200.
      defaultSpace: { workgroupSize: [128, 256], itemsPerThread: [8, 15] },
      smallSpace: { workgroupSize: [64, 128], itemsPerThread: [4, 8] },
      smallTypes: ['u32'],
      // The block sort and the merge kernel; about log2(n / 4096) passes at the sizes timed (2^20..2^24).
      cost: { pipelines: () => 2, passes: () => 1 + mergePasses(4096, 2 ** 22) },
      // Past two block-sort tiles of the heuristic's largest (256 x 16) a merge pass runs.
      fullCoverageCount: (c) => 2 * 4096 + 2 * Number(c.workgroupSize) * Number(c.itemsPerThread) + 1,
    },
  ],
  calls: mergeSortCalls,
  arrays: mergeSortArrays,
  demo: (arrays, { count, u32, f32 }) => {
    const index = Uint32Array.from({ length: count }, (_, i) => i);
    // Descending by the upper 16 bits only: many ties, so stability shows in the indices.
    return [
      { name: 'merge_sort_keys u32', run: () => arrays.mergeSortKeys(u32), verify: (g: unknown) => compareArrays(g, gather(u32, mergeSortOrder('u32', u32))) },
      { name: 'merge_sort_keys f32 (total order)', run: () => arrays.mergeSortKeys(f32), verify: (g: unknown) => compareArrays(g, gather(f32, mergeSortOrder('f32', f32))) },
      {
        name: 'merge_sort_pairs u32 (argsort, descending by the top 16 bits)',
        run: async () => (await arrays.mergeSortPairs(u32, index, { less: '(a >> 16u) > (b >> 16u)' })).values,
        // That less is the radix sort's stable descending order of bits [16, 32): its LSD reference (a comparison sort of 2^28 indices takes too long).
        verify: (g: unknown) => compareArrays(g, radixSortOrder('u32', u32, true, 16, 32)),
      },
    ];
  },
});
