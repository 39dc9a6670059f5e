// The segmented radix sort: each segment of keys (or pairs) sorted on its own (CUB's DeviceSegmentedRadixSort).
import { fail } from '../../runtime/errors.js';
import { type ElementType } from '../../wgsl/types.js';
import { type SelectedConfig } from '../../config/types.js';
import { arrayOfType, type PrimTypedArray, typeOfArray } from '../typed-arrays.js';
import { type AlgorithmEnv, type ArrayEnv, type BenchmarkSpec, type BenchResources, defineAlgorithm, type ValueBytes } from '../spec.js';
import { radixBitRange, radixKeyInfo, type RadixSortKeyType } from '../radix-sort/keys.js';
import { pairValueBytes, type RadixSortValueArray } from '../radix-sort/arrays.js';
import { type SegmentedRadixSortConfig } from './config.js';
import { recordSegmentedRadixSort, type SegmentedRadixSortKeysArgs, type SegmentedRadixSortPairsArgs, type SegmentedRadixSortTables } from './segmented-radix-sort.js';
import { partitionPredicateTable, selectPredicateTable } from '../select/table.js';
import { scanTable } from '../scan/table.js';
import { segmentedRadixSortTable } from './table.js';
import { compareArrays } from '../reference.js';

/** Options of the array-level `segmentedRadixSortKeys` / `segmentedRadixSortPairs`. */
export interface ArraySegmentedRadixSortOptions {
  /** Ends of the segments (as many as the offsets); omitted: segment i is [offsets[i], offsets[i + 1]). */
  readonly endOffsets?: Uint32Array;
  /** Needed only for f16 keys (a Uint16Array of f16 bits). */
  readonly type?: 'f16';
  readonly descending?: boolean;
  /** Integer keys only: sort by bits [beginBit, endBit). */
  readonly beginBit?: number;
  readonly endBit?: number;
  readonly config?: Partial<SegmentedRadixSortConfig>;
}

/** The rows the sort consults: its own, and the partition's (and its scan's) that groups segments by length. */
function sortTables(env: Pick<AlgorithmEnv, 'rows'>): SegmentedRadixSortTables {
  const scanRows = env.rows(scanTable);
  return { rows: env.rows(segmentedRadixSortTable), partition: { rows: env.rows(partitionPredicateTable), scanRows }, select: { rows: env.rows(selectPredicateTable), scanRows } };
}

/** Fixed segment length of the benchmark (CUB's anchor: `seg1024`). */
export const BENCH_SEGMENT_LENGTH = 1024;

/**
 * Begin offsets (segments + 1) of segments whose lengths follow a power law, as CUB's
 * `segpow1.5_min8` anchor draws them: Pareto with minimum 8 and alpha 1.5 (many short segments,
 * a few long ones), each capped at 2^20, the last cut at `count`. Seeded.
 */
export function powerLawOffsets(count: number, seed = 20261207): Uint32Array<ArrayBuffer> {
  let x = seed >>> 0;
  // (0, 1]: a draw of 0 would make an infinite length.
  const uniform = (): number => { x = (Math.imul(x, 1664525) + 1013904223) >>> 0; return (x + 1) / 2 ** 32; };
  const out = [0];
  while (out[out.length - 1]! < count) {
    const length = Math.min(2 ** 20, Math.floor(8 / Math.pow(uniform(), 1 / 1.5)));
    out.push(Math.min(count, out[out.length - 1]! + length));
  }
  return Uint32Array.from(out);
}

/** A benchmark sorting keys from `input` to `output` in the segments `layout` makes (begin offsets, ends omitted). */
function sortBenchmark(name: string, segmentFields: Readonly<Record<string, string | number>>,
  layout: (count: number, r: BenchResources) => Promise<{ beginOffsets: GPUBuffer; segments: number }>): BenchmarkSpec {
  return {
    name,
    table: segmentedRadixSortTable,
    input: 'sort-keys',
    valueBytes: 0,
    needsTypeFeature: false,
    nameFields: (type) => ({ lvl: 'device', algo: name, key_type: type, value_type: 'empty', ...segmentFields }),
    bytesPerCall: (type, n) => 2 * n * segmentedRadixSortTable.keyInfo(type).bytes,
    prepare: async (env, c, r) => {
      const { beginOffsets, segments } = await layout(c.count, r);
      const args = { keys: c.input, keysOut: c.output, count: c.count, segments, beginOffsets, type: c.type as RadixSortKeyType, config: c.config as unknown as SegmentedRadixSortConfig };
      return (encoder) => recordSegmentedRadixSort(env.context, sortTables(env), encoder, args, false);
    },
  };
}

function segmentedCalls(env: AlgorithmEnv) {
  return {
    /**
     * Records a stable radix sort of each segment [begin[i], end[i]) of `keys` into `keysOut`.
     * `endOffsets` omitted: segment i ends where segment i + 1 begins (`beginOffsets` holds
     * segments + 1 entries). Elements no segment covers are copied to `keysOut` unchanged.
     */
    segmentedRadixSortKeys(encoder: GPUCommandEncoder, args: SegmentedRadixSortKeysArgs): Promise<void> {
      return recordSegmentedRadixSort(env.context, sortTables(env), encoder, args, false);
    },
    /** `segmentedRadixSortKeys` with values of 4 or 8 bytes moved alongside (into `valuesOut`). */
    segmentedRadixSortPairs(encoder: GPUCommandEncoder, args: SegmentedRadixSortPairsArgs): Promise<void> {
      return recordSegmentedRadixSort(env.context, sortTables(env), encoder, args, true);
    },
    /** The segmented radix sort config a call would use for these keys and values (0: keys only), and where it came from. */
    selectedSegmentedRadixSortConfig(type: ElementType, valueBytes: ValueBytes = 0, override?: Partial<SegmentedRadixSortConfig>): SelectedConfig<SegmentedRadixSortConfig> {
      return env.select(segmentedRadixSortTable, type, valueBytes, override);
    },
  };
}

function precheck(env: ArrayEnv, keys: PrimTypedArray, offsets: Uint32Array, options: ArraySegmentedRadixSortOptions, valueBytes: ValueBytes): { type: RadixSortKeyType; segments: number; maxSegmentLength: number } {
  env.context.assertAlive();
  if (!options || typeof options !== 'object') fail('invalid-argument', 'segmented radix sort options must be an object');
  if (!(offsets instanceof Uint32Array)) fail('invalid-argument', 'segmented radix sort offsets must be a Uint32Array');
  const ends = options.endOffsets;
  if (ends !== undefined && !(ends instanceof Uint32Array)) fail('invalid-argument', 'segmented radix sort endOffsets must be a Uint32Array');
  if (ends !== undefined && ends.length !== offsets.length) fail('invalid-argument', `segmented radix sort: ${offsets.length} begin offsets but ${ends.length} end offsets`);
  const segments = ends !== undefined ? offsets.length : Math.max(0, offsets.length - 1);
  const type = typeOfArray(keys, options.type);
  radixBitRange(radixKeyInfo(type), options.beginBit, options.endBit);
  if (options.descending !== undefined && typeof options.descending !== 'boolean') fail('invalid-argument', `descending must be a boolean, got ${String(options.descending)}`);
  if (options.config !== undefined) env.select(segmentedRadixSortTable, type, valueBytes, options.config);
  // The longest segment, as the sort clamps it: within a tile, no scratch buffer is needed.
  let maxSegmentLength = 0;
  for (let i = 0; i < segments; i++) {
    const end = Math.min(ends ? ends[i]! : offsets[i + 1]!, keys.length);
    maxSegmentLength = Math.max(maxSegmentLength, end - Math.min(offsets[i]!, end));
  }
  return { type: type as RadixSortKeyType, segments, maxSegmentLength };
}

async function sortArrays<A extends PrimTypedArray, V extends RadixSortValueArray>(env: ArrayEnv, keys: A, values: V | undefined, offsets: Uint32Array, options: ArraySegmentedRadixSortOptions): Promise<{ keys: A; values?: V }> {
  const valueBytes = values === undefined ? 0 : pairValueBytes('segmentedRadixSortPairs', keys, values);
  const { type, segments, maxSegmentLength } = precheck(env, keys, offsets, options, valueBytes);
  const kb = env.upload(keys);
  const ko = env.buffer(keys.byteLength);
  const vb = values ? env.upload(values) : undefined;
  const vo = values ? env.buffer(values.byteLength) : undefined;
  const ob = env.upload(offsets.length ? offsets : new Uint32Array(1));
  const eb = options.endOffsets ? env.upload(options.endOffsets.length ? options.endOffsets : new Uint32Array(1)) : undefined;
  try {
    const args = { keys: kb, keysOut: ko, count: keys.length, segments, beginOffsets: ob, endOffsets: eb, type, descending: options.descending, beginBit: options.beginBit, endBit: options.endBit, config: options.config, maxSegmentLength };
    const outputs: [GPUBuffer, number][] = [[ko, keys.byteLength]];
    if (vo) outputs.push([vo, values!.byteLength]);
    const [k, v] = await env.runAll(outputs, (enc) => recordSegmentedRadixSort(env.context, sortTables(env), enc, vb ? { ...args, values: vb, valuesOut: vo, valueBytes: valueBytes as 4 | 8 } : args, vb !== undefined));
    const out = { keys: arrayOfType(type, k!, keys.length) as A };
    if (!values) return out;
    const Ctor = values.constructor as new (b: ArrayBuffer, o: number, n: number) => V;
    return { ...out, values: new Ctor(v!, 0, values.length) };
  } finally {
    for (const b of [kb, ko, vb, vo, ob, eb]) b?.destroy();
  }
}

export const segmentedRadixSortAlgorithm = defineAlgorithm({
  name: 'segmented-radix-sort',
  summary: 'stable radix sort of each segment: small segments in a subgroup or workgroup, large ones by LSD passes',
  tables: [segmentedRadixSortTable],
  benchmarks: [
    // Fixed segments (the last may be shorter), the ends omitted, as CUB's anchor.
    sortBenchmark('segmented_radix_sort', { segment_length: BENCH_SEGMENT_LENGTH }, async (count, r) =>
      ({ beginOffsets: await r.segmentOffsets(count, BENCH_SEGMENT_LENGTH), segments: Math.ceil(count / BENCH_SEGMENT_LENGTH) })),
    // Power-law segments: against CUB's DeviceSegmentedSort on the same draw. Opt-in: millions
    // of segments take seconds a call on lavapipe at the demo's 2^20.
    {
      ...sortBenchmark('segmented_radix_sort_pow', { segment_lengths: 'pow1.5_min8' }, async (count, r) => {
        const offsets = powerLawOffsets(count);
        const beginOffsets = r.buffer(`segmented-radix-sort.pow-offsets.${count}`, offsets.byteLength);
        r.device.queue.writeBuffer(beginOffsets, 0, offsets);
        return { beginOffsets, segments: offsets.length - 1 };
      }),
      optIn: true,
      anchor: 'segmented_sort_keys',
      anchorType: (type) => `${type}/segpow1.5_min8`,
    },
  ],
  tuning: [{
    // GPUs time power-law segments too: a row chosen on 1024-key segments alone keeps one segment
    // a workgroup, ungrouped, which sorted power-law segments 5-9x slower on an H100. The default
    // space leaves segmentsPerWorkgroup, subgroupKeysPerLane and grouping to the heuristic.
    stage: 'segmented_radix_sort', table: segmentedRadixSortTable, benchmarks: ['segmented_radix_sort', 'segmented_radix_sort_pow'], defaultBenchmarks: ['segmented_radix_sort'],
    gpuBenchmarks: ['segmented_radix_sort', 'segmented_radix_sort_pow'],
    // 4096-key tiles came within 0.12x of the best on the H200 (1024-key segments).
    defaultSpace: { workgroupSize: [128, 256], itemsPerThread: [4, 8], radixBits: [6, 8] },
    smallSpace: { workgroupSize: [128, 256], itemsPerThread: [4], radixBits: [8], rank: ['match'], segmentsPerWorkgroup: [1], subgroupKeysPerLane: [1], grouping: ['none'], shortItemsPerThread: [0] },
    // Segments of one tile sort in workgroup memory (one kernel); longer ones take LSD passes.
    cost: { pipelines: () => 3, passes: () => 1, sameKernels: true },
    smallSizes: [2 ** 14, 2 ** 16],
    smallTypes: ['u32'],
    // One kernel (and the copy of uncovered elements) serves every segment length.
    fullCoverageCount: () => BENCH_SEGMENT_LENGTH + 1,
  }],
  calls: segmentedCalls,
  arrays: (env: ArrayEnv) => ({
    /**
     * A copy of `keys` with each segment sorted stably on its own: segment i is
     * [offsets[i], options.endOffsets[i]), or without endOffsets [offsets[i], offsets[i + 1]).
     * Elements outside every segment keep their place.
     */
    segmentedRadixSortKeys: async <A extends PrimTypedArray>(keys: A, offsets: Uint32Array, options: ArraySegmentedRadixSortOptions = {}): Promise<A> =>
      (await sortArrays(env, keys, undefined, offsets, options)).keys,
    /** Keys sorted as `segmentedRadixSortKeys` does, and the values permuted with them. */
    segmentedRadixSortPairs: async <A extends PrimTypedArray, V extends RadixSortValueArray>(keys: A, values: V, offsets: Uint32Array, options: ArraySegmentedRadixSortOptions = {}): Promise<{ keys: A; values: V }> =>
      (await sortArrays(env, keys, values, offsets, options)) as { keys: A; values: V },
  }),
  demo: (arrays, { count, u32 }) => {
    const length = 1000;
    const offsets = Uint32Array.from({ length: Math.ceil(count / length) + 1 }, (_, i) => Math.min(i * length, count));
    return [{
      name: `segmented_radix_sort u32 (${length}-key segments)`,
      run: () => arrays.segmentedRadixSortKeys(u32, offsets),
      verify: (g: unknown) => {
        const want = u32.slice();
        for (let b = 0; b < count; b += length) want.subarray(b, b + length).sort();
        return compareArrays(g, want);
      },
    }];
  },
});
