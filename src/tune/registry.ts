// The algorithms the autotuner knows: for each tuning stage of the registered algorithms, its
// parameter space, how a config is checked against the device, which config a call selects
// today, how one variant is recorded (to compile its pipelines) and measured, and how a
// benchmark name maps back to it. Browser-safe.
import { type DeviceContext } from '../runtime/context.js';
import { WgprimError } from '../runtime/errors.js';
import { type ElementType } from '../wgsl/types.js';
import { type SelectedConfig } from '../config/types.js';
import { type Prim } from '../prim.js';
import { type BenchmarkSpec, type ConfigObject, type ParamSpace, type ParamValue, type ThresholdSpec, type TuningCost, type TuningSpec, type ValueBytes } from '../device/spec.js';
import { BENCHMARKS, TUNING_STAGES } from '../algorithms.js';
import { benchmarkAlgorithm, benchmarkName, benchmarkSpec, benchResources, BUILD_SCOPE, configFromName } from '../bench/run.js';
import { type BenchRecord, type NameFields } from '../bench/gbench.js';
import { type RunTimingOptions, runTimingOf } from '../bench/timing.js';
import { groupBy } from './measurements.js';

export { type ConfigObject, type ParamSpace, type ParamValue } from '../device/spec.js';

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
  /** The default campaign's space on GPUs (`TuningSpec.defaultSpace`). */
  readonly defaultSpace: ParamSpace;
  /** What one variant costs, for the campaign's time plan. */
  readonly cost: TuningCost;
  /** The config a row of this config runs below its threshold field, where there is one (`TuningSpec.twin`). */
  readonly twin?: (config: ConfigObject) => ConfigObject | undefined;
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
  /** Sizes the default GPU campaign times where not 2^20 and 2^24 (`TuningSpec.gpuSizes`). */
  readonly gpuSizes?: readonly number[];
  /** Benchmarks the default GPU campaign times where not `defaultBenchmarks` (`TuningSpec.gpuBenchmarks`). */
  readonly gpuBenchmarks?: readonly string[];
  /** Types for CPU adapters where the representative types would take too long. */
  readonly smallTypes?: readonly ElementType[];
  /** Types the default GPU campaign tunes where not the representative ones (`TuningSpec.gpuTypes`). */
  readonly gpuTypes?: readonly ElementType[];
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
 * The threshold stages the registered algorithms declare (`TuningSpec.threshold`), which `wgprim
 * tune` runs (threshold.ts): no config space; each times two paths of one algorithm at a ladder
 * of sizes (its settings' `sizes`).
 */
export const THRESHOLD_SPECS: readonly ThresholdSpec[] = TUNING_STAGES.flatMap((s) => (s.threshold ? [s.threshold] : []));
export const THRESHOLD_STAGES: readonly string[] = THRESHOLD_SPECS.map((t) => t.stage);

export function thresholdSpec(name: string): ThresholdSpec {
  const t = THRESHOLD_SPECS.find((x) => x.stage === name);
  if (!t) throw new WgprimError('invalid-argument', `no threshold stage "${name}" (known: ${THRESHOLD_STAGES.join(', ')})`);
  return t;
}

export function isThresholdStage(name: string): boolean {
  return THRESHOLD_STAGES.includes(name);
}

/** A stage `wgprim tune` can run: a tunable algorithm or a threshold stage. */
export function isTuneStage(name: string): boolean {
  return isTunable(name) || isThresholdStage(name);
}

/** The config a row of `table` runs below its threshold field, where its stage has a twin (`TuningSpec.twin`). */
export function tableTwin(table: string, config: ConfigObject): ConfigObject | undefined {
  return tunableAlgorithms().find((a) => (a.table ?? a.name) === table)?.twin?.(config);
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

/**
 * Reads any registered benchmark's name back, tuned or not (segmented reduce and scan run on
 * other stages' tables): `algorithm` is the tuning stage where one times it, else the benchmark.
 */
export function parseAnyBenchmarkName(fields: NameFields): ParsedBenchmark | undefined {
  const tuned = parseBenchmarkName(fields);
  if (tuned || fields.lvl !== 'device' || typeof fields.cfg !== 'object') return tuned;
  const m = benchmarkOfName(fields, BENCHMARKS);
  return m && { algorithm: m.bench.name, benchmark: m.bench.name, type: m.type, config: configFromName(str(fields.algo), fields.cfg) };
}

/** The benchmark among `specs` whose name fields for the name's element type are the name's. */
function benchmarkOfName(f: NameFields, specs: readonly BenchmarkSpec[]): { bench: BenchmarkSpec; type: string } | undefined {
  // The element type is the key type where a name has one (the sorts, reduce), else the value type.
  const type = f.key_type !== undefined ? str(f.key_type) : str(f.value_type);
  // A name without value_type: keys only.
  const read = (k: string): string => (k === 'value_type' && f[k] === undefined ? 'empty' : str(f[k]));
  const bench = specs.find((b) => Object.entries(b.nameFields(type as ElementType)).every(([k, v]) => read(k) === String(v)));
  return bench && { bench, type };
}

// ---------------------------------------------------------------------------------------------
// The registered algorithms' tuning stages, each a tunable algorithm, measured through
// src/bench/run.ts: names and numbers are the same as `wgprim bench` writes.

const asSelected = <C>(s: SelectedConfig<C>): SelectedConfig<ConfigObject> => s as unknown as SelectedConfig<ConfigObject>;
const str = (x: NameFields[string] | undefined): string => (typeof x === 'object' ? '' : String(x ?? ''));

/**
 * The value class (bytes of values; 0 keys only) whose selection and heuristic a group of
 * `benchmarks` takes as its default: that of its benchmarks where they all have the same one,
 * else the smallest (keys only). A group that measures keys and pairs takes the keys selection
 * as its first baseline; the campaign measures the pairs selection (and heuristic) too, as
 * baselines of their own (variants.ts asks `selected` and `heuristic` for each value class
 * alone: `valueClassesOf`), and the summary reports a row per value class.
 */
export function groupValueClass(stage: TuningSpec, benchmarks: readonly string[] | undefined): ValueBytes {
  const classes = [...new Set((benchmarks?.length ? benchmarks : stage.defaultBenchmarks).map((b) => benchmarkSpec(b).valueBytes))];
  return classes.length === 1 ? classes[0]! : (Math.min(...classes) as ValueBytes);
}

/** The benchmarks of one value class of a group, keys only first. */
export interface BenchmarkValueClass {
  readonly valueBytes: number;
  readonly benchmarks: readonly string[];
}

/**
 * A group's benchmarks split by value class (`TunableAlgorithm.valueClass`), smallest first;
 * undefined for an algorithm without value classes (scan, reduce, transform). The tables keep a
 * row per value class, so a sort group timing keys and pairs is compared per class.
 */
export function valueClassesOf(algorithm: string, benchmarks: readonly string[]): BenchmarkValueClass[] | undefined {
  const of = tunable(algorithm).valueClass;
  if (!of) return undefined;
  return [...groupBy(benchmarks, (b) => String(of(b)))].map(([v, bs]) => ({ valueBytes: Number(v), benchmarks: bs })).sort((a, b) => a.valueBytes - b.valueBytes);
}

/** A tunable algorithm made from an algorithm's tuning spec. */
export function tunableOf(stage: TuningSpec): TunableAlgorithm {
  const table = stage.table;
  const valueClasses = table.valueClasses;
  const withValues = (benchmarks: readonly string[] | undefined): readonly BenchmarkSpec[] => (benchmarks ?? []).map(benchmarkSpec).filter((b) => b.valueBytes > 0);
  // Every benchmark's algo name (a stage may time several: adjacent_difference_right, top_k_4096, find_end).
  const algos = new Set(stage.benchmarks.map((b) => String(benchmarkSpec(b).nameFields('u32').algo)));
  return {
    name: stage.stage,
    ...(table.name !== stage.stage ? { table: table.name } : {}),
    benchmarks: stage.benchmarks,
    defaultBenchmarks: stage.defaultBenchmarks,
    space: table.space,
    defaultSpace: stage.defaultSpace,
    smallSpace: stage.smallSpace,
    cost: stage.cost,
    ...(stage.twin ? { twin: stage.twin } : {}),
    ...(stage.fixed ? { fixed: stage.fixed } : {}),
    ...(table.untimedSpace ? { untimed: table.untimedSpace } : {}),
    ...(() => {
      const max = stage.benchmarks.map(benchmarkSpec).find((b) => b.maxArrayBytes)?.maxArrayBytes;
      return max ? { maxArrayBytes: max } : {};
    })(),
    ...(stage.smallSizes ? { smallSizes: stage.smallSizes } : {}),
    ...(stage.gpuSizes ? { gpuSizes: stage.gpuSizes } : {}),
    ...(stage.gpuBenchmarks ? { gpuBenchmarks: stage.gpuBenchmarks } : {}),
    ...(stage.smallTypes ? { smallTypes: stage.smallTypes } : {}),
    ...(stage.gpuTypes ? { gpuTypes: stage.gpuTypes } : {}),
    problem: (ctx, type, c, benchmarks) => {
      // With a benchmark that moves values among a group's, a config must fit with those values too.
      const values = valueClasses ? withValues(benchmarks) : [];
      const vb = values.length ? Math.max(...values.map((b) => b.valueBytes)) as ValueBytes : 0;
      const p = table.problem(ctx, table.keyInfo(type), vb, c as never);
      return p === undefined || !values.length ? p : `${p} (with the ${vb}-byte values of ${values[0]!.name})`;
    },
    heuristic: (ctx, type, benchmarks) => table.heuristic(ctx, table.keyInfo(type), groupValueClass(stage, benchmarks)) as unknown as ConfigObject,
    selected: (prim, type, benchmarks) => {
      // A stage's benchmarks share a class (histograms: its channels); a benchmark that names one selects with it.
      const typeClass = benchmarkSpec((benchmarks?.length ? benchmarks : stage.defaultBenchmarks)[0]!).typeClass?.(type);
      return asSelected(prim.algorithmEnv.select(table, type, groupValueClass(stage, benchmarks), undefined, typeClass));
    },
    record: async (prim, enc, b, type, c, benchmark) => {
      const bench = benchmarkSpec(benchmark);
      const recordCall = await bench.prepare(prim.algorithmEnv, { input: b.input, output: b.output, count: b.count, type, config: c }, benchResources(prim.device, 82589933, BUILD_SCOPE));
      return recordCall(enc);
    },
    fullCoverageCount: stage.fullCoverageCount,
    measure: async (prim, o) => {
      const records = await benchmarkAlgorithm(prim, { ...runTimingOf(o), algorithm: o.benchmark, type: o.type, size: o.size, seed: o.seed, config: o.config });
      if (records.length !== 1) throw new WgprimError('invalid-argument', `benchmark "${o.benchmark}" gave ${records.length} records, expected 1`);
      return records[0]!;
    },
    benchmarkName: (benchmark, type, c) => benchmarkName(benchmark, type, c),
    ...(valueClasses ? { valueClass: (benchmark: string) => benchmarkSpec(benchmark).valueBytes } : {}),
    parseName: (f) => {
      if (f.lvl !== 'device' || !algos.has(str(f.algo)) || typeof f.cfg !== 'object') return undefined;
      const m = benchmarkOfName(f, stage.benchmarks.map(benchmarkSpec));
      return m && { algorithm: stage.stage, benchmark: m.bench.name, type: m.type, config: configFromName(str(f.algo), f.cfg) };
    },
  };
}

for (const stage of TUNING_STAGES) registerTunable(tunableOf(stage));
