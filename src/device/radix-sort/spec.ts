// The device-wide radix sort: keys, or keys and values, of every key type; stable; bit ranges.
import { type ElementType } from '../../wgsl/types.js';
import { type SelectedConfig } from '../../config/types.js';
import { type AlgorithmEnv, type BenchmarkSpec, type ConfigObject, defineAlgorithm, type ThresholdSpec, type ValueBytes } from '../spec.js';
import { scanTable } from '../scan/table.js';
import { ONESWEEP_MAX_COUNT, type RadixSortConfig } from './config.js';
import { type RadixSortBlockSortConfig } from './block-sort-config.js';
import { type RadixSortKeyType } from './keys.js';
import { radixMaxArrayBytes, recordRadixSort, type RadixSortKeysArgs, type RadixSortPairsArgs } from './radix-sort.js';
import { radixSortBlockSortTable, radixSortTable } from './table.js';
import { radixSortArrays } from './arrays.js';
import { compareArrays } from '../reference.js';
import { radixSortOrder } from './reference.js';

/** The LSD benchmarks time that path at every size (no block sort below its maxCount). */
export const ONESWEEP_ONLY: Partial<RadixSortBlockSortConfig> = { maxCount: 0 };

/**
 * An LSD variant compiles the histogram and digit-scan kernels and a sort kernel per pass
 * (`specialized` pass kernels; one shared kernel otherwise), and moves the keys once per pass.
 */
const radixCost = {
  pipelines: (c: ConfigObject, keyBytes: number): number => 3 + (c.passKernels === 'shared' ? 1 : Math.ceil((8 * keyBytes) / Number(c.radixBits))),
  passes: (c: ConfigObject, keyBytes: number): number => Math.ceil((8 * keyBytes) / Number(c.radixBits)),
  launchOnly: ['decoupledMaxCount'],
};

/**
 * The decoupled-look-back twin of an LSD config, where the threshold stage measures one: the
 * config is reduce-then-scan with the match rank and the vendor gives forward progress
 * (elsewhere a spinning look-back may never finish).
 */
export function decoupledTwin(c: ConfigObject, forwardProgress: boolean): ConfigObject | undefined {
  if (!forwardProgress || c.lookback === 'decoupled' || c.rank !== 'match') return undefined;
  return { ...c, lookback: 'decoupled', decoupledMaxCount: 0 };
}

/**
 * The radix sort's threshold stage: the block-sort path against the LSD path (maxCount of the
 * block-sort rows), and the LSD config's decoupled twin against it (decoupledMaxCount). The
 * ladder: GPUs 2^10..2^26, every power of two (onesweep against reduce-then-scan crosses near
 * 2^24 on the H200); CPU adapters 2^10..2^16, every other.
 */
const radixThreshold: ThresholdSpec = {
  stage: 'radix_sort_threshold',
  small: { table: radixSortBlockSortTable, stage: 'radix_sort_block_sort', benchmarks: { 0: 'radix_sort_block_sort_keys', 4: 'radix_sort_block_sort_pairs' } },
  general: { table: radixSortTable, stage: 'radix_sort_onesweep', benchmarks: { 0: 'radix_sort_keys', 4: 'radix_sort_pairs' } },
  fields: { radixSortBlockSort: 'maxCount', radixSort: 'decoupledMaxCount' },
  benchmarks: ['radix_sort_keys', 'radix_sort_pairs'],
  defaultBenchmarks: ['radix_sort_keys'],
  valueBytes: (b) => (b === 'radix_sort_pairs' ? 4 : 0),
  sizes: (kind) => (kind === 'cpu' ? [2 ** 10, 2 ** 12, 2 ** 14, 2 ** 16] : Array.from({ length: 17 }, (_, i) => 2 ** (10 + i))),
  twin: decoupledTwin,
  everySize: ONESWEEP_MAX_COUNT,
};

function radixSortCalls(env: AlgorithmEnv) {
  const record = (encoder: GPUCommandEncoder, args: RadixSortKeysArgs | RadixSortPairsArgs, pairs: boolean): Promise<void> =>
    recordRadixSort(env.context, env.rows(radixSortTable), env.rows(radixSortBlockSortTable), env.rows(scanTable), encoder, args, pairs);
  return {
    /**
     * Records a stable radix sort of `count` keys. Sorted in place unless `keysOut` is given; a
     * scratch buffer of the keys' size is used for the passes in between.
     */
    radixSortKeys(encoder: GPUCommandEncoder, args: RadixSortKeysArgs): Promise<void> {
      return record(encoder, args, false);
    },
    /** Records a stable radix sort of keys with values of 4 or 8 bytes moved alongside. */
    radixSortPairs(encoder: GPUCommandEncoder, args: RadixSortPairsArgs): Promise<void> {
      return record(encoder, args, true);
    },
    /**
     * The radix sort config a call would use for these keys and values (0: keys only), and where
     * it came from. Rows are keyed by the key type's class and the value size they were tuned with.
     */
    selectedRadixSortConfig(type: ElementType, valueBytes: ValueBytes = 0, override?: Partial<RadixSortConfig>): SelectedConfig<RadixSortConfig> {
      return env.select(radixSortTable, type, valueBytes, override);
    },
    /** The config of the small-size path (block sort + merge, counts up to its `maxCount`) a call would use. */
    selectedRadixSortBlockSortConfig(type: ElementType, valueBytes: ValueBytes = 0, override?: Partial<RadixSortBlockSortConfig>): SelectedConfig<RadixSortBlockSortConfig> {
      return env.select(radixSortBlockSortTable, type, valueBytes, override);
    },
  };
}

/** A sort benchmark: keys from `input` to `output` (the input is never written); pairs move u32 indices (an argsort, as CUB's anchor). */
function sortBenchmark(o: { name: string; algo: string; anchor?: string | null; blockSort: boolean; pairs: boolean }): BenchmarkSpec {
  const table = o.blockSort ? radixSortBlockSortTable : radixSortTable;
  return {
    name: o.name,
    ...(o.anchor !== undefined ? { anchor: o.anchor } : {}),
    table,
    input: 'sort-keys',
    valueBytes: o.pairs ? 4 : 0,
    needsTypeFeature: false,
    nameFields: (type) => ({ lvl: 'device', algo: o.algo, key_type: type, value_type: o.pairs ? 'u32' : 'empty' }),
    bytesPerCall: (type, n) => 2 * n * (table.keyInfo(type).bytes + (o.pairs ? 4 : 0)),
    ...(o.blockSort ? {} : { maxArrayBytes: radixMaxArrayBytes }),
    prepare: async (env, c, resources) => {
      const base = { keys: c.input, keysOut: c.output, count: c.count, type: c.type as RadixSortKeyType };
      // The block sort path is taken at every size: its maxCount is raised to the size (names keep the config's own).
      const args: RadixSortKeysArgs = o.blockSort
        ? { ...base, blockSortConfig: { ...(c.config as unknown as RadixSortBlockSortConfig), maxCount: Math.max(Number(c.config.maxCount), c.count) } }
        : { ...base, config: c.config as unknown as RadixSortConfig, blockSortConfig: ONESWEEP_ONLY };
      const calls = radixSortCalls(env);
      if (!o.pairs) return (encoder) => calls.radixSortKeys(encoder, args);
      const { values, valuesOut } = await resources.values(c.count);
      return (encoder) => calls.radixSortPairs(encoder, { ...args, values, valuesOut, valueBytes: 4 });
    },
  };
}

export const radixSortAlgorithm = defineAlgorithm({
  name: 'radix-sort',
  summary: 'stable LSD radix sort of keys or pairs: block sort + merge for small counts, onesweep or reduce-then-scan passes above',
  tables: [radixSortTable, radixSortBlockSortTable],
  benchmarks: [
    sortBenchmark({ name: 'radix_sort_keys', algo: 'radix_sort_onesweep', blockSort: false, pairs: false }),
    sortBenchmark({ name: 'radix_sort_pairs', algo: 'radix_sort_onesweep', blockSort: false, pairs: true }),
    sortBenchmark({ name: 'radix_sort_block_sort_keys', algo: 'radix_sort_block_sort', anchor: null, blockSort: true, pairs: false }),
    sortBenchmark({ name: 'radix_sort_block_sort_pairs', algo: 'radix_sort_block_sort', anchor: null, blockSort: true, pairs: true }),
  ],
  tuning: [
    {
      stage: 'radix_sort_onesweep', table: radixSortTable, benchmarks: ['radix_sort_keys', 'radix_sort_pairs'], defaultBenchmarks: ['radix_sort_keys'],
      // Tiles around the heuristic's (the largest within 24 KiB at 256 invocations) and those
      // tuned before (256 x 23 for 4-byte keys, 320 x 9 and 256 x 11 for 8-byte keys); 512
      // invocations, 7 and 16 items came within 0.60x-0.73x of the best on the H200. The rank,
      // scans, look-back and histogram shape stay the heuristic's.
      defaultSpace: { workgroupSize: [256, 320], itemsPerThread: [9, 11, 22, 23] },
      cost: radixCost,
      // A reduce-then-scan row runs its tile with decoupled look-back up to its decoupledMaxCount.
      twin: (c: ConfigObject) => decoupledTwin(c, true),
      threshold: radixThreshold,
      // Radix sort compiles slowly on lavapipe: 4 variants of one type, at small sizes.
      smallSpace: { workgroupSize: [128, 256], itemsPerThread: [8, 16], radixBits: [8], rank: ['match'], workgroupScan: ['subgroup'], lookback: ['decoupled'], histogramWorkgroupSize: [256], histogramItemsPerThread: [16] },
      // decoupledMaxCount is the threshold stage's: configs are timed on their own lookback at every size.
      fixed: { decoupledMaxCount: 0 },
      smallSizes: [2 ** 14, 2 ** 16],
      smallTypes: ['u32'],
      fullCoverageCount: (c) => 2 * Number(c.workgroupSize) * Number(c.itemsPerThread) + 1,
    },
    {
      stage: 'radix_sort_block_sort', table: radixSortBlockSortTable, benchmarks: ['radix_sort_block_sort_keys', 'radix_sort_block_sort_pairs'], defaultBenchmarks: ['radix_sort_block_sort_keys'],
      optIn: true,
      tileBias: true,
      defaultSpace: { workgroupSize: [256, 512], itemsPerThread: [8, 16], mergeItemsPerThread: [8, 16] },
      // The block sort kernel, the merge path's partition and merge kernels; one read and write per merge pass (about 4 below maxCount).
      cost: { pipelines: () => 3, passes: () => 4, launchOnly: ['maxCount'] },
      smallSpace: { workgroupSize: [128, 256], itemsPerThread: [4, 8], radixBits: [4], rank: ['match'], mergeWorkgroupSize: [128], mergeItemsPerThread: [4, 8], maxCount: [radixSortBlockSortTable.space.maxCount![0]!] },
      smallSizes: [2 ** 12, 2 ** 14],
      smallTypes: ['u32'],
      // Past one tile: the block sort and the merge kernels both run.
      fullCoverageCount: (c) => 2 * Number(c.workgroupSize) * Number(c.itemsPerThread) + 1,
    },
  ],
  calls: radixSortCalls,
  arrays: radixSortArrays,
  demo: (arrays, { count, u32, f32 }) => {
    const sorted = <A extends Uint32Array | Float32Array>(keys: A, descending: boolean): A => {
      const order = radixSortOrder(keys instanceof Float32Array ? 'f32' : 'u32', keys, descending, 0, 32);
      return keys.map((_, i) => keys[order[i]!]!) as A;
    };
    const index = Uint32Array.from({ length: count }, (_, i) => i);
    return [
      { name: 'radix_sort_keys u32', run: () => arrays.radixSortKeys(u32), verify: (g: unknown) => compareArrays(g, sorted(u32, false)) },
      { name: 'radix_sort_keys f32 descending', run: () => arrays.radixSortKeys(f32, { descending: true }), verify: (g: unknown) => compareArrays(g, sorted(f32, true)) },
      {
        // Stable: equal keys (the top 16 bits repeat often) keep their index order.
        name: 'radix_sort_pairs u32 (argsort, 16 bits)',
        run: async () => (await arrays.radixSortPairs(u32, index, { beginBit: 16, endBit: 32 })).values,
        verify: (g: unknown) => compareArrays(g, radixSortOrder('u32', u32, false, 16, 32)),
      },
    ];
  },
});
