// The algorithms the autotuner knows: for each, its parameter space, how a config is checked
// against the device, which config a call selects today, how one variant is recorded (to compile
// its pipelines) and measured, and how a benchmark name maps back to it. A new algorithm plugs
// in with one `register(...)` call. Browser-safe.
import { type DeviceContext } from '../runtime/context.js';
import { WgprimError } from '../runtime/errors.js';
import { type ElementType, typeInfo, type TypeInfo } from '../wgsl/types.js';
import { type SelectedConfig } from '../config/types.js';
import { type Prim } from '../prim.js';
import { type ScanConfig, scanConfigProblem, scanHeuristic, scanSpace } from '../device/scan/config.js';
import { type ReduceConfig, reduceConfigProblem, reduceHeuristic, reduceSpace } from '../device/reduce/config.js';
import { type TransformConfig, transformConfigProblem, transformHeuristic, transformSpace } from '../device/transform/config.js';
import { type RadixSortConfig, radixSortConfigProblem, radixSortHeuristic, radixSortSpace, radixSortUntimedSpace } from '../device/radix-sort/config.js';
import { radixKeyInfo, radixMaxArrayBytes, type RadixSortKeyType } from '../device/radix-sort/radix-sort.js';
import { type RadixSortBlockSortConfig, radixSortBlockSortHeuristic, radixSortBlockSortProblem, radixSortBlockSortSpace } from '../device/radix-sort/block-sort-config.js';
import { benchmarkRadixSortBlockSort, ONESWEEP_ONLY, radixSortBlockSortName } from '../bench/run.js';
import { benchmarkAlgorithm, benchValues, configFromName, radixSortName, radixValueBytes, reduceName, scanName, transformExpression, transformName, type SingleAlgorithm } from '../bench/run.js';
import { type SegmentedRadixSortConfig, segmentedRadixSortConfigProblem, segmentedRadixSortHeuristic, segmentedRadixSortSpace } from '../device/segmented-radix-sort/config.js';
import { BENCH_SEGMENT_LENGTH, benchSegmentOffsets, segmentedRadixSortName } from '../bench/run.js';
import { type BenchRecord, type NameFields } from '../bench/gbench.js';
import { type RunTimingOptions, runTimingOf } from '../bench/timing.js';
import { groupBy } from './measurements.js';

/** One value of a tuning parameter. */
export type ParamValue = number | string | boolean;
/** A parameter space: each config field and the values it takes, in order (ordered for numbers). */
export type ParamSpace = Readonly<Record<string, readonly ParamValue[]>>;
/** A config as plain data. */
export type ConfigObject = Readonly<Record<string, ParamValue>>;

/** Buffers a recorded call works on; `count` elements of the variant's type. */
export interface RecordBuffers {
  readonly input: GPUBuffer;
  readonly output: GPUBuffer;
  readonly count: number;
}

export interface MeasureOptions extends RunTimingOptions {
  readonly benchmark: string;
  readonly type: ElementType;
  readonly size: number;
  readonly seed: number;
  readonly config: ConfigObject;
}

/** A benchmark entry's name, read back: which algorithm, benchmark, type and config it timed. */
export interface ParsedBenchmark {
  readonly algorithm: string;
  readonly benchmark: string;
  readonly type: string;
  readonly config: ConfigObject;
}

export interface TunableAlgorithm {
  /** Registry key and the plan stage's id; also the tuned table's name unless `table` says otherwise. */
  readonly name: string;
  /** The tuned table its rows go to (`TUNED_ALGORITHMS`), where it is not `name`. */
  readonly table?: string;
  /** The benchmarks one variant can be timed with (scan: inclusive and exclusive). */
  readonly benchmarks: readonly string[];
  /** The ones timed unless the settings say otherwise. */
  readonly defaultBenchmarks: readonly string[];
  /** The full space (the algorithm's `*Space`). */
  readonly space: ParamSpace;
  /** A small space for CPU adapters (lavapipe, SwiftShader): a few minutes for the whole campaign. */
  readonly smallSpace: ParamSpace;
  /**
   * Fields a space that leaves them out sets to these values, not to the heuristic's: thresholds
   * another stage measures (radix_sort_onesweep's decoupledMaxCount: configs are timed on their
   * own lookback at every size).
   */
  readonly fixed?: Readonly<Record<string, ParamValue>>;
  /**
   * Config fields a settings space may name that the default spaces leave out (each keeps the
   * heuristic's value): what they trade is not what a benchmark times (radix_sort_onesweep's
   * passKernels: compile time against run time).
   */
  readonly untimed?: ParamSpace;
  /** The most bytes of one array its calls take (default maxStorageBufferBindingSize: one binding). */
  readonly maxArrayBytes?: (limits: GPUSupportedLimits) => number;
  /** Sizes for CPU adapters where the common ones (2^16, 2^20) would take too long. */
  readonly smallSizes?: readonly number[];
  /** Types for CPU adapters where the representative types would take too long. */
  readonly smallTypes?: readonly ElementType[];
  /** Why this config cannot run on this device for this type (in every one of `benchmarks`, where given), or undefined. */
  problem(ctx: DeviceContext, type: ElementType, config: ConfigObject, benchmarks?: readonly string[]): string | undefined;
  /**
   * The algorithm's heuristic default here (no tuned tables), for calls like `benchmarks` (where
   * given): the radix sorts take the value class of their benchmarks (see `radixValueClass`).
   */
  heuristic(ctx: DeviceContext, type: ElementType, benchmarks?: readonly string[]): ConfigObject;
  /**
   * What a call like `benchmarks` (where given) selects today (tuned tables, then the heuristic):
   * for the radix sorts, the row of their benchmarks' value class (see `radixValueClass`).
   */
  selected(prim: Prim, type: ElementType, benchmarks?: readonly string[]): SelectedConfig<ConfigObject>;
  /** Records one call of `benchmark` into `encoder` (compiles its pipelines; nothing runs until submitted). */
  record(prim: Prim, encoder: GPUCommandEncoder, buffers: RecordBuffers, type: ElementType, config: ConfigObject, benchmark: string): Promise<void>;
  /** Elements a call must cover so that every pass (and so every pipeline) of `config` is used. */
  fullCoverageCount(config: ConfigObject): number;
  /** Times one benchmark of one config at one size. */
  measure(prim: Prim, options: MeasureOptions): Promise<BenchRecord>;
  /** The benchmark name (without `/manual_time`) that `measure` gives the record. */
  benchmarkName(benchmark: string, type: ElementType, config: ConfigObject): string;
  /**
   * Sorts: the value class one benchmark times (bytes of values; 0 keys only), the
   * `typeClass.valueBytes` of the table rows its measurements make. Where given, a group's
   * baselines and its summary are per value class (see `valueClassesOf`).
   */
  valueClass?(benchmark: string): number;
  /** Reads a parsed benchmark name of this algorithm back, or undefined if it is not one. */
  parseName(fields: NameFields): ParsedBenchmark | undefined;
}

const registry = new Map<string, TunableAlgorithm>();

/** Adds (or replaces) a tunable algorithm. */
export function registerTunable(a: TunableAlgorithm): void {
  registry.set(a.name, a);
}

export function tunableAlgorithms(): TunableAlgorithm[] {
  return [...registry.values()];
}

export function tunable(name: string): TunableAlgorithm {
  const a = registry.get(name);
  if (!a) throw new WgprimError('invalid-argument', `no tunable algorithm "${name}" (known: ${[...registry.keys()].join(', ')})`);
  return a;
}

export function isTunable(name: string): boolean {
  return registry.has(name);
}

/**
 * The plan's `threshold` stages that `wgprim tune` runs (src/tune/threshold.ts): no config
 * space; each times two paths of one algorithm at a ladder of sizes (its settings' `sizes`).
 */
export const THRESHOLD_STAGES: readonly string[] = ['radix_sort_threshold'];

export function isThresholdStage(name: string): boolean {
  return THRESHOLD_STAGES.includes(name);
}

/** A stage `wgprim tune` can run: a tunable algorithm or a threshold stage. */
export function isTuneStage(name: string): boolean {
  return isTunable(name) || isThresholdStage(name);
}

/** Canonical text of a config: keys sorted, so equal configs give equal keys. */
export function configText(config: ConfigObject): string {
  return JSON.stringify(Object.fromEntries(Object.keys(config).sort().map((k) => [k, config[k]])));
}

/** Reads a benchmark entry's parsed name with whichever registered algorithm owns it. */
export function parseBenchmarkName(fields: NameFields): ParsedBenchmark | undefined {
  for (const a of registry.values()) {
    const p = a.parseName(fields);
    if (p) return p;
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// scan, reduce, transform: measured through src/bench/run.ts, so names and numbers are the same
// as `wgprim bench` writes.

async function measureWithBench(prim: Prim, o: MeasureOptions): Promise<BenchRecord> {
  const records = await benchmarkAlgorithm(prim, { ...runTimingOf(o), algorithm: o.benchmark as SingleAlgorithm, type: o.type, size: o.size, seed: o.seed, config: o.config as never });
  if (records.length !== 1) throw new WgprimError('invalid-argument', `benchmark "${o.benchmark}" gave ${records.length} records, expected 1`);
  return records[0]!;
}

const asSelected = <C>(s: SelectedConfig<C>): SelectedConfig<ConfigObject> => s as unknown as SelectedConfig<ConfigObject>;

/**
 * The value class (bytes of values; 0 keys only) whose selection and heuristic a radix sort
 * group of `benchmarks` takes as its default: 4 (the u32 values of `pairs`) where every one of
 * them is the pairs benchmark, else 0 (keys only; also with no benchmarks given). A group that
 * measures keys and pairs takes the keys selection as its first baseline; the campaign measures
 * the pairs selection (and heuristic) too, as baselines of their own (variants.ts asks `selected`
 * and `heuristic` for each value class alone: `valueClassesOf`), so both of today's configs are
 * always measured, and the summary reports a row per value class against that class's default.
 */
export function radixValueClass(benchmarks: readonly string[] | undefined, pairs: string): 0 | 4 {
  return benchmarks !== undefined && benchmarks.length > 0 && benchmarks.every((b) => b === pairs) ? 4 : 0;
}
/** The benchmarks of one value class of a group, keys only first. */
export interface BenchmarkValueClass {
  readonly valueBytes: number;
  readonly benchmarks: readonly string[];
}

/**
 * A group's benchmarks split by value class (`TunableAlgorithm.valueClass`), smallest first;
 * undefined for an algorithm without value classes (scan, reduce, transform). The tables keep a
 * row per value class, so a radix sort group timing keys and pairs is compared per class.
 */
export function valueClassesOf(algorithm: string, benchmarks: readonly string[]): BenchmarkValueClass[] | undefined {
  const of = tunable(algorithm).valueClass;
  if (!of) return undefined;
  return [...groupBy(benchmarks, (b) => String(of(b)))].map(([v, bs]) => ({ valueBytes: Number(v), benchmarks: bs })).sort((a, b) => a.valueBytes - b.valueBytes);
}

const str = (x: NameFields[string] | undefined): string => (typeof x === 'object' ? '' : String(x ?? ''));

registerTunable({
  name: 'scan',
  benchmarks: ['inclusive_scan', 'exclusive_scan'],
  defaultBenchmarks: ['inclusive_scan'],
  space: scanSpace,
  smallSpace: { workgroupSize: [128, 256], itemsPerThread: [8, 16], lookback: ['decoupled'], workgroupScan: ['subgroup'] },
  problem: (ctx, type, c) => scanConfigProblem(ctx, typeInfo(type), c as unknown as ScanConfig),
  heuristic: (ctx, type) => scanHeuristic(ctx, typeInfo(type)) as unknown as ConfigObject,
  selected: (prim, type) => asSelected(prim.selectedConfig('scan', type)),
  record: (prim, enc, b, type, c, benchmark) => {
    const args = { input: b.input, output: b.output, count: b.count, type, config: c as unknown as ScanConfig };
    return benchmark === 'exclusive_scan' ? prim.exclusiveScan(enc, args) : prim.inclusiveScan(enc, args);
  },
  fullCoverageCount: (c) => 2 * Number(c.workgroupSize) * Number(c.itemsPerThread) + 1,
  measure: measureWithBench,
  benchmarkName: (benchmark, type, c) => scanName(benchmark === 'exclusive_scan', type, c as unknown as ScanConfig),
  parseName: (f) => {
    if (f.lvl !== 'device' || f.algo !== 'scan' || typeof f.cfg !== 'object') return undefined;
    return { algorithm: 'scan', benchmark: str(f.exclusive) === 'true' ? 'exclusive_scan' : 'inclusive_scan', type: str(f.value_type), config: configFromName('scan', f.cfg) as unknown as ConfigObject };
  },
});

registerTunable({
  name: 'reduce',
  benchmarks: ['reduce'],
  defaultBenchmarks: ['reduce'],
  space: reduceSpace,
  // maxWorkgroups is a launch parameter, not part of the kernel: it costs no compile.
  smallSpace: { workgroupSize: [128, 256], itemsPerThread: [8, 16], maxWorkgroups: [256, 2048], workgroupReduce: ['subgroup'] },
  problem: (ctx, type, c) => reduceConfigProblem(ctx, typeInfo(type), c as unknown as ReduceConfig),
  heuristic: (ctx, type) => reduceHeuristic(ctx, typeInfo(type)) as unknown as ConfigObject,
  selected: (prim, type) => asSelected(prim.selectedConfig('reduce', type)),
  record: (prim, enc, b, type, c) => prim.reduce(enc, { input: b.input, output: b.output, count: b.count, type, config: c as unknown as ReduceConfig }),
  fullCoverageCount: (c) => 2 * Number(c.workgroupSize) * Number(c.itemsPerThread) + 1,
  measure: measureWithBench,
  benchmarkName: (_b, type, c) => reduceName(type, c as unknown as ReduceConfig),
  parseName: (f) => {
    if (f.lvl !== 'device' || f.algo !== 'reduce' || typeof f.cfg !== 'object') return undefined;
    return { algorithm: 'reduce', benchmark: 'reduce', type: str(f.key_type), config: configFromName('reduce', f.cfg) as unknown as ConfigObject };
  },
});

registerTunable({
  name: 'transform',
  benchmarks: ['transform'],
  defaultBenchmarks: ['transform'],
  space: transformSpace,
  smallSpace: { workgroupSize: [128, 256], itemsPerThread: [4, 8, 16] },
  problem: (ctx, _type, c) => transformConfigProblem(ctx, c as unknown as TransformConfig),
  heuristic: () => transformHeuristic() as unknown as ConfigObject,
  selected: (prim, type) => asSelected(prim.selectedConfig('transform', type)),
  record: (prim, enc, b, type, c) => prim.transform(enc, { input: b.input, output: b.output, count: b.count, type, expression: transformExpression(type), config: c as unknown as TransformConfig }),
  fullCoverageCount: (c) => Number(c.workgroupSize) * Number(c.itemsPerThread) + 1,
  measure: measureWithBench,
  benchmarkName: (_b, type, c) => transformName(type, c as unknown as TransformConfig),
  parseName: (f) => {
    if (f.lvl !== 'device' || f.algo !== 'transform' || typeof f.cfg !== 'object') return undefined;
    return { algorithm: 'transform', benchmark: 'transform', type: str(f.value_type), config: configFromName('transform', f.cfg) as unknown as ConfigObject };
  },
});

// radix_sort_onesweep: the LSD radix sort (onesweep or reduce-then-scan per digit). Both benchmarks
// feed the one `radixSort` table (keyed by the key type's class and the value class: a row each); keys only are timed unless the
// settings name `radix_sort_pairs` too. The group's default (`selected`) and `heuristic` are
// those of its benchmarks' value class (`radixValueClass`): a pairs-only campaign compares
// against what pairs calls select; keys and pairs together report the keys one and measure both.

/**
 * The hooks the two radix sort tunables share, given their keys and pairs benchmarks: with the
 * pairs benchmark among a group's, a config must fit workgroup memory with its u32 values too;
 * the default and the heuristic follow the benchmarks' value class (`radixValueClass`); names
 * parse back to the benchmark of their value type.
 */
function radixValueHooks<C>(o: {
  readonly algorithm: string;
  readonly keys: string;
  readonly pairs: string;
  readonly problem: (ctx: DeviceContext, key: TypeInfo, valueBytes: 0 | 4, c: C) => string | undefined;
  readonly heuristic: (ctx: DeviceContext, key: TypeInfo, valueBytes: 0 | 4) => C;
  readonly selected: (prim: Prim, type: ElementType, valueBytes: 0 | 4) => SelectedConfig<C>;
}): Pick<TunableAlgorithm, 'problem' | 'heuristic' | 'selected' | 'valueClass' | 'parseName'> {
  return {
    problem: (ctx, type, c, benchmarks) => {
      const pairs = benchmarks?.includes(o.pairs) ?? false;
      const p = o.problem(ctx, radixKeyInfo(type), pairs ? 4 : 0, c as unknown as C);
      return p === undefined || !pairs ? p : `${p} (with the u32 values of ${o.pairs})`;
    },
    heuristic: (ctx, type, benchmarks) => o.heuristic(ctx, radixKeyInfo(type), radixValueClass(benchmarks, o.pairs)) as unknown as ConfigObject,
    selected: (prim, type, benchmarks) => asSelected(o.selected(prim, type, radixValueClass(benchmarks, o.pairs))),
    valueClass: (benchmark) => radixValueClass([benchmark], o.pairs),
    parseName: (f) => {
      if (f.lvl !== 'device' || f.algo !== o.algorithm || typeof f.cfg !== 'object') return undefined;
      const value = str(f.value_type);
      return { algorithm: o.algorithm, benchmark: value === '' || value === 'empty' ? o.keys : o.pairs, type: str(f.key_type), config: configFromName(o.algorithm, f.cfg) as unknown as ConfigObject };
    },
  };
}

registerTunable({
  name: 'radix_sort_onesweep',
  table: 'radixSort',
  benchmarks: ['radix_sort_keys', 'radix_sort_pairs'],
  defaultBenchmarks: ['radix_sort_keys'],
  space: radixSortSpace,
  // Radix sort compiles slowly on lavapipe: 4 variants of one type, at small sizes.
  smallSpace: { workgroupSize: [128, 256], itemsPerThread: [8, 16], radixBits: [8], rank: ['match'], workgroupScan: ['subgroup'], lookback: ['decoupled'], histogramWorkgroupSize: [256], histogramItemsPerThread: [16] },
  fixed: { decoupledMaxCount: 0 },
  untimed: radixSortUntimedSpace,
  // The LSD passes bind a key or value array past one binding as two ranges.
  maxArrayBytes: radixMaxArrayBytes,
  smallSizes: [2 ** 14, 2 ** 16],
  smallTypes: ['u32'],
  ...radixValueHooks<RadixSortConfig>({
    algorithm: 'radix_sort_onesweep', keys: 'radix_sort_keys', pairs: 'radix_sort_pairs',
    problem: radixSortConfigProblem, heuristic: radixSortHeuristic, selected: (prim, type, vb) => prim.selectedRadixSortConfig(type, vb),
  }),
  record: async (prim, enc, b, type, c, benchmark) => {
    const args = { keys: b.input, keysOut: b.output, count: b.count, type: type as RadixSortKeyType, config: c as unknown as RadixSortConfig, blockSortConfig: ONESWEEP_ONLY };
    if (benchmark !== 'radix_sort_pairs') return prim.radixSortKeys(enc, args);
    const { values, valuesOut } = await benchValues(prim.device, b.count);
    return prim.radixSortPairs(enc, { ...args, values, valuesOut, valueBytes: radixValueBytes(benchmark) as 4 });
  },
  fullCoverageCount: (c) => 2 * Number(c.workgroupSize) * Number(c.itemsPerThread) + 1,
  measure: measureWithBench,
  benchmarkName: (benchmark, type, c) => radixSortName(type, benchmark === 'radix_sort_pairs' ? 'u32' : 'empty', c as unknown as RadixSortConfig),
});

// radix_sort_block_sort: the radix sort's small-size path (block sort of each tile, then merge
// passes), its own `radixSortBlockSort` table. Measured on that path at every size (maxCount is
// raised to the size); rows keep the space's maxCount until the plan's radix_sort_threshold
// stage (src/tune/threshold.ts) measures it. Opt-in (not named after its table).

registerTunable({
  name: 'radix_sort_block_sort',
  table: 'radixSortBlockSort',
  benchmarks: ['radix_sort_block_sort_keys', 'radix_sort_block_sort_pairs'],
  defaultBenchmarks: ['radix_sort_block_sort_keys'],
  space: radixSortBlockSortSpace,
  smallSpace: { workgroupSize: [128, 256], itemsPerThread: [4, 8], radixBits: [4], rank: ['match'], mergeWorkgroupSize: [128], mergeItemsPerThread: [4, 8], maxCount: [radixSortBlockSortSpace.maxCount[0]] },
  smallSizes: [2 ** 12, 2 ** 14],
  smallTypes: ['u32'],
  ...radixValueHooks<RadixSortBlockSortConfig>({
    algorithm: 'radix_sort_block_sort', keys: 'radix_sort_block_sort_keys', pairs: 'radix_sort_block_sort_pairs',
    problem: radixSortBlockSortProblem, heuristic: radixSortBlockSortHeuristic, selected: (prim, type, vb) => prim.selectedRadixSortBlockSortConfig(type, vb),
  }),
  record: async (prim, enc, b, type, c, benchmark) => {
    const config = c as unknown as RadixSortBlockSortConfig;
    const blockSortConfig = { ...config, maxCount: Math.max(config.maxCount, b.count) };
    const args = { keys: b.input, keysOut: b.output, count: b.count, type: type as RadixSortKeyType, blockSortConfig };
    if (benchmark !== 'radix_sort_block_sort_pairs') return prim.radixSortKeys(enc, args);
    const { values, valuesOut } = await benchValues(prim.device, b.count);
    return prim.radixSortPairs(enc, { ...args, values, valuesOut, valueBytes: 4 });
  },
  // Past one tile: the block sort and the merge kernels both run.
  fullCoverageCount: (c) => 2 * Number(c.workgroupSize) * Number(c.itemsPerThread) + 1,
  measure: (prim, o) => benchmarkRadixSortBlockSort(prim, {
    ...runTimingOf(o), pairs: o.benchmark === 'radix_sort_block_sort_pairs', type: o.type, size: o.size, seed: o.seed, config: o.config as unknown as RadixSortBlockSortConfig,
  }),
  benchmarkName: (benchmark, type, c) => radixSortBlockSortName(type, benchmark === 'radix_sort_block_sort_pairs' ? 'u32' : 'empty', c as unknown as RadixSortBlockSortConfig),
});

// segmented_radix_sort: one workgroup per segment (in workgroup memory up to a tile, LSD passes
// over global memory past it), its own `segmentedRadixSort` table keyed by the key type's class (and value class).
// Timed on fixed segments of BENCH_SEGMENT_LENGTH keys (CUB's anchor: 1024), keys only.

registerTunable({
  name: 'segmented_radix_sort',
  table: 'segmentedRadixSort',
  benchmarks: ['segmented_radix_sort'],
  defaultBenchmarks: ['segmented_radix_sort'],
  space: segmentedRadixSortSpace,
  smallSpace: { workgroupSize: [128, 256], itemsPerThread: [4], radixBits: [8], rank: ['match'], segmentsPerWorkgroup: [1] },
  smallSizes: [2 ** 14, 2 ** 16],
  smallTypes: ['u32'],
  problem: (ctx, type, c) => segmentedRadixSortConfigProblem(ctx, radixKeyInfo(type), 0, c as unknown as SegmentedRadixSortConfig),
  heuristic: (ctx, type) => segmentedRadixSortHeuristic(ctx, radixKeyInfo(type), 0) as unknown as ConfigObject,
  selected: (prim, type) => asSelected(prim.selectedSegmentedRadixSortConfig(type, 0)),
  record: async (prim, enc, b, type, c) => {
    const beginOffsets = await benchSegmentOffsets(prim.device, b.count, BENCH_SEGMENT_LENGTH);
    return prim.segmentedRadixSortKeys(enc, {
      keys: b.input, keysOut: b.output, count: b.count, segments: Math.ceil(b.count / BENCH_SEGMENT_LENGTH), beginOffsets,
      type: type as RadixSortKeyType, config: c as unknown as SegmentedRadixSortConfig,
    });
  },
  // One kernel (and the copy of uncovered elements) serves every segment length.
  fullCoverageCount: () => BENCH_SEGMENT_LENGTH + 1,
  measure: measureWithBench,
  benchmarkName: (_benchmark, type, c) => segmentedRadixSortName(type, 'empty', BENCH_SEGMENT_LENGTH, c as unknown as SegmentedRadixSortConfig),
  // Keys only: its rows are valueBytes 0.
  valueClass: () => 0,
  parseName: (f) => {
    if (f.lvl !== 'device' || f.algo !== 'segmented_radix_sort' || typeof f.cfg !== 'object') return undefined;
    return { algorithm: 'segmented_radix_sort', benchmark: 'segmented_radix_sort', type: str(f.key_type), config: configFromName('segmented_radix_sort', f.cfg) as unknown as ConfigObject };
  },
});
