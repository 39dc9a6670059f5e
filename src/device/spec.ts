// What an algorithm is to the rest of wgprim: one spec object per algorithm folder. `Prim`,
// table loading and selection, the benchmark runner, the tuner and the CLI read these specs and
// name no algorithm. Browser-safe: nothing here imports the tuner, Node or Dawn.
import { type DeviceContext } from '../runtime/context.js';
import { type ElementType, type TypeClass, type TypeInfo } from '../wgsl/types.js';
import { type SelectedConfig, type TunedEntry } from '../config/types.js';

/** One value of a config field. */
export type ParamValue = number | string | boolean;
/** Each config field and the values it may take, in order (ordered for numbers). */
export type ParamSpace = Readonly<Record<string, readonly ParamValue[]>>;
/** A config as plain data. */
export type ConfigObject = Readonly<Record<string, ParamValue>>;
/** Bytes of the values a sort moves beside its keys (0: keys only). */
export type ValueBytes = 0 | 4 | 8;

/**
 * One tuned table: a config family, its space, heuristic, validity check and built-in rows.
 * An algorithm may own several (the radix sort: its LSD passes and its small-size path).
 */
export interface ConfigTable<C = unknown, N extends string = string> {
  /** The table's key in `TunedTables` and tuned-table files (`scan`, `radixSort`). */
  readonly name: N;
  /** Base name of the table's JSON file in a user's folder of tables (`<fileName>.json`). */
  readonly fileName: string;
  /**
   * The built-in table's generated module, relative to `src/` without extension, in the
   * algorithm's folder (`device/scan/tuned`): what create-optimization writes for the package.
   */
  readonly tunedModule: string;
  /** Name of the module's export (`scanTuned`). */
  readonly exportName: string;
  /** TypeScript name of the config type and its module relative to `src/` (for generated modules). */
  readonly configType: string;
  readonly configModule: string;
  /** The config's fields and the values the tuner tries, in the order rows are written. */
  readonly space: ParamSpace;
  /** Fields the tuner leaves at the heuristic's value unless a settings file names them. */
  readonly untimedSpace?: ParamSpace;
  /** Fields added after tables were first written, and the value a row without one reads as. */
  readonly defaults?: Readonly<Record<string, number | string>>;
  /** Former tables whose rows this one took over, and what their rows need to be rows here (named in the error a former table's rows get). */
  readonly replaces?: Readonly<Record<string, string>>;
  /** Rows keyed by value class as well as key class (sorts). */
  readonly valueClasses: boolean;
  /**
   * Benchmark-name abbreviations of the fields (rocPRIM's `cfg:{bs:256,...}`); a field listed in
   * `nameOmits` is left out of names while it holds that value.
   */
  readonly nameFields: Readonly<Record<string, string>>;
  readonly nameOmits?: Readonly<Record<string, ParamValue>>;
  /** The built-in tuned rows. */
  readonly builtin: readonly TunedEntry<C>[];
  /** The type info of a call's element (or key) type; throws `unsupported-type` for a type it does not take. */
  keyInfo(type: ElementType): TypeInfo;
  /**
   * The class a call of `type` matches rows on where the caller names none (histograms: one
   * channel); default the type's class, with `valueBytes` for tables with value classes.
   */
  callClass?(type: ElementType, valueBytes: ValueBytes): TypeClass;
  /** Why `config` cannot run here for this type and value size, or undefined. */
  problem(ctx: DeviceContext, key: TypeInfo, valueBytes: ValueBytes, config: C): string | undefined;
  /** The config a call takes where no tuned row matches (with a `fallback`: the tuner's heuristic baseline). */
  heuristic(ctx: DeviceContext, key: TypeInfo, valueBytes: ValueBytes): C;
  /**
   * A table of the same config whose selection (its rows, else its heuristic) a call takes where
   * none of this table's rows match: a table split from another (nthElement from topK) keeps
   * what calls ran before it has rows of its own.
   */
  readonly fallback?: ConfigTable<C>;
}

/** What an algorithm's calls get from the `Prim` they are bound to. */
export interface AlgorithmEnv {
  readonly context: DeviceContext;
  /** The rows a call consults for `table`, most preferred first: installed at run time, the user's, built in. */
  rows<C>(table: ConfigTable<C>): readonly (readonly TunedEntry<C>[])[];
  /**
   * The config a call of `table` takes here, with a caller's override merged over it (checked).
   * Rows are matched on `typeClass` where given (histograms: the sample's size and channels),
   * else on the table's `callClass` of the type, else on the type's class (and `valueBytes` for
   * tables with value classes).
   */
  select<C>(table: ConfigTable<C>, type: ElementType, valueBytes?: ValueBytes, override?: Partial<C>, typeClass?: TypeClass): SelectedConfig<C>;
}

/**
 * What a benchmark's input holds: values in [0, 1000] (scan, reduce, transform), sort keys, or
 * runs of equal values of random length 1..7 (unique, as rocPRIM's benchmarks draw them).
 */
export type InputKind = 'values' | 'sort-keys' | 'runs';

/** The buffers and data a benchmark call may ask the runner for (kept between calls by the runner). */
export interface BenchResources {
  readonly device: GPUDevice;
  /** u32 values 0..count-1 and a buffer for their permuted order. */
  values(count: number): Promise<{ values: GPUBuffer; valuesOut: GPUBuffer }>;
  /** Begin offsets of fixed segments of `length` (segments + 1 entries). */
  segmentOffsets(count: number, length: number): Promise<GPUBuffer>;
  /** `count` flags, each 0 or 1 at random (half set): `u32` words, or (`bytes` 1) bytes packed four to a word. */
  flags(count: number, bytes?: 1 | 4): Promise<GPUBuffer>;
  /** A STORAGE buffer of at least `bytes` for `role` (a second output, a count), kept between calls. */
  buffer(role: string, bytes: number): GPUBuffer;
}

/** One call a benchmark times, on buffers the runner made. */
export interface BenchCall {
  readonly input: GPUBuffer;
  readonly output: GPUBuffer;
  readonly count: number;
  readonly type: ElementType;
  readonly config: ConfigObject;
}

/** A benchmark of one algorithm: what `wgprim bench` and the tuner time, and the CUB anchor it compares with. */
export interface BenchmarkSpec {
  /** `wgprim bench --algorithm` name; also the CUB anchor's `algo` where `anchor` is not given. */
  readonly name: string;
  /** The CUB anchor's `algo`, where it differs from `name`; null: CUB has no such benchmark. */
  readonly anchor?: string | null;
  /** The CUB anchor's `type` for a call of `type`, where it names more than the type (`u32/levels_f32`). */
  anchorType?(type: ElementType): string;
  /** The config table it selects from. */
  readonly table: ConfigTable;
  readonly input: InputKind;
  /** The value class it is selected and tuned with (0: none). */
  readonly valueBytes: ValueBytes;
  /**
   * The class its calls of `type` select rows with and its measurements make rows for, where not
   * the type's own (histograms: the samples' size and the pixels' channels).
   */
  typeClass?(type: ElementType): TypeClass;
  /** Name fields besides `cfg` (rocPRIM's grammar: `lvl`, `algo`, `key_type` / `value_type`, ...). */
  nameFields(type: ElementType): Readonly<Record<string, string | number | boolean>>;
  /** Bytes a call moves (each input read once, each output written once, as CUB's anchors count). */
  bytesPerCall(type: ElementType, count: number): number;
  /** The most bytes of one array its calls take (default maxStorageBufferBindingSize). */
  maxArrayBytes?(limits: GPUSupportedLimits): number;
  /** Whether the element type needs its device feature (f16: `shader-f16`); sorts only move bits. */
  readonly needsTypeFeature: boolean;
  /** Left out of `all` (and so of the demo's benchmark): run only where named (a slow call on CPU adapters). */
  readonly optIn?: boolean;
  /** Prepares one call of `config` on the runner's buffers: returns what records it. */
  prepare(env: AlgorithmEnv, call: BenchCall, resources: BenchResources): Promise<(encoder: GPUCommandEncoder) => Promise<void>>;
}

/**
 * What one variant of a tuning stage costs, roughly: the campaign's time plan (`wgprim tune
 * --dry-run`) counts with it. On GPUs compiling dominates a campaign (the H200 builds about 7
 * radix-sort pipelines a second through Dawn), so the plan counts pipelines, not variants.
 */
export interface TuningCost {
  /** Pipelines one variant of this key size compiles (every pass of one call). */
  pipelines(config: ConfigObject, keyBytes: number): number;
  /** Times a call reads and writes its data (the benchmark's `bytesPerCall` counts it once). */
  passes(config: ConfigObject, keyBytes: number): number;
  /** Config fields that change a launch, not a kernel: variants differing only there share pipelines. */
  readonly launchOnly?: readonly string[];
  /** The stage's benchmarks differ only in their input, so a variant compiles its pipelines once, not once a benchmark. */
  readonly sameKernels?: boolean;
}

/**
 * One path of a threshold stage: the table its config comes from, the tuning stage that sweeps
 * that table, and per value class (0 keys only, 4 pairs with u32 values) the benchmark that
 * times this path alone at any size.
 */
export interface ThresholdPathSpec {
  readonly table: ConfigTable;
  readonly stage: string;
  readonly benchmarks: Readonly<Record<0 | 4, string>>;
}

/**
 * A threshold stage (rocPRIM sets its radix sort's by hand): where an algorithm's path for small
 * sizes stops beating its general path, timed at a ladder of sizes with both tuned, and written
 * as a size field of the small path's rows; and where the general path's config has a twin that
 * wins at small sizes (the radix sort's decoupled look-back against reduce-then-scan), the size
 * up to which the twin runs, written to the general path's rows.
 */
export interface ThresholdSpec {
  /** The stage's name in the plan and in benchmark names (`radix_sort_threshold`). */
  readonly stage: string;
  readonly small: ThresholdPathSpec;
  readonly general: ThresholdPathSpec;
  /** The threshold field of each path's table (a size, not a launch parameter). */
  readonly fields: Readonly<Record<string, string>>;
  /** Settings `benchmarks` the stage takes (each a value class of its own), and its default. */
  readonly benchmarks: readonly string[];
  readonly defaultBenchmarks: readonly string[];
  /** The value class a settings benchmark times (0 keys only, 4 pairs). */
  valueBytes(benchmark: string): 0 | 4;
  /** The ladder of sizes. */
  sizes(kind: 'cpu' | 'gpu'): number[];
  /** The general config's twin for small sizes, where this device runs one; undefined where there is none. */
  twin(general: ConfigObject, forwardProgress: boolean): ConfigObject | undefined;
  /** The twin's threshold where it won at the top of the ladder: every size the general path takes. */
  readonly everySize: number;
}

/** A tuning stage over one table: its benchmarks, the spaces for GPU and CPU adapters. */
export interface TuningSpec {
  /** The stage's name (rocPRIM's benchmark `algo`: `scan`, `radix_sort_onesweep`). */
  readonly stage: string;
  readonly table: ConfigTable;
  /** Benchmarks one variant can be timed with (names of the algorithm's `benchmarks`). */
  readonly benchmarks: readonly string[];
  /** The ones timed unless the settings say otherwise. */
  readonly defaultBenchmarks: readonly string[];
  /**
   * The ones the default GPU campaign times where not `defaultBenchmarks`: inputs that decide
   * fields a single benchmark would leave untested (the segmented sort's power-law segments),
   * too slow for CPU adapters' campaign.
   */
  readonly gpuBenchmarks?: readonly string[];
  /** Its benchmarks are left out of `wgprim bench`'s default list (they time one path of another's call). */
  readonly optIn?: boolean;
  /**
   * The default campaign's space on GPUs: the tile shapes that matter, a handful per type, as
   * rocPRIM's default campaign tunes a handful of variants per algorithm. Fields it leaves out
   * keep the heuristic's value (method choices such as the look-back, which the heuristic makes
   * per vendor). The table's `space` is the full one (`wgprim tune --space full`).
   */
  readonly defaultSpace: ParamSpace;
  /** A small space for CPU adapters (lavapipe, SwiftShader). */
  readonly smallSpace: ParamSpace;
  /** Fields a space that leaves them out sets to these values, not to the heuristic's. */
  readonly fixed?: Readonly<Record<string, ParamValue>>;
  readonly smallSizes?: readonly number[];
  /**
   * The sizes the default GPU campaign times (default 2^20 and 2^24). Bandwidth-bound stages whose
   * best shape moves with size (the compaction family's scatter: direct writes win at 2^28, not
   * at 2^20) take the sizes their targets are measured at.
   */
  readonly gpuSizes?: readonly number[];
  readonly smallTypes?: readonly ElementType[];
  /** The types the default GPU campaign tunes where not the representative ones (a call with no element type: one). */
  readonly gpuTypes?: readonly ElementType[];
  readonly cost: TuningCost;
  /**
   * Where a row of this stage's table runs a twin of its config below a threshold field (the
   * radix sort's reduce-then-scan rows: decoupled look-back up to decoupledMaxCount): a config
   * is scored at each point as the faster of itself and its twin, as the row would run.
   */
  twin?(config: ConfigObject): ConfigObject | undefined;
  /** Scored with rocPRIM's block-sort bias, items/s * (bs*ipt)^(1/4): its tiles feed merge passes, which prefer larger ones. */
  readonly tileBias?: boolean;
  /** A threshold stage that runs after this one (and the small path's stage), set on the general path's stage. */
  readonly threshold?: ThresholdSpec;
  /** Elements a call must cover so that every pass (and so every pipeline) of `config` is used. */
  fullCoverageCount(config: ConfigObject): number;
}

/** The random data `wgprim demo` gives every algorithm's checks. */
export interface DemoData {
  readonly count: number;
  /** Words over the full 32-bit range (sums wrap). */
  readonly u32: Uint32Array;
  /** Values in [0, 1). */
  readonly f32: Float32Array;
}

/** One check of `wgprim demo`: an array-level call on the demo's data and its CPU reference. */
export interface DemoCheck {
  readonly name: string;
  run(): Promise<unknown>;
  /** What is wrong with the result, or undefined when it is right. */
  verify(result: unknown): string | undefined;
}

/** A device algorithm: its tables, its public calls, its benchmarks and tuning stages. */
export interface AlgorithmSpec<Calls extends object = object, Arrays extends object = object, Tables extends readonly ConfigTable<any, string>[] = readonly ConfigTable<any, string>[]> {
  /** The folder's name (`scan`, `radix-sort`). */
  readonly name: string;
  /** One line for `wgprim info` and the docs. */
  readonly summary: string;
  readonly tables: Tables;
  readonly benchmarks: readonly BenchmarkSpec[];
  readonly tuning: readonly TuningSpec[];
  /** The buffer-level calls it adds to `Prim` (recorded into the caller's encoder). */
  calls(env: AlgorithmEnv): Calls;
  /** The array-level calls it adds to `prim.arrays` (upload, run, read back). */
  arrays(env: ArrayEnv): Arrays;
  /** What `wgprim demo` runs of it, checked against its CPU reference. */
  demo(arrays: Arrays, data: DemoData): readonly DemoCheck[];
}

/** What array-level calls get: the buffer-level environment and the upload / read-back helpers. */
export interface ArrayEnv extends AlgorithmEnv {
  readonly device: GPUDevice;
  /** A STORAGE | COPY_SRC | COPY_DST buffer of at least `bytes` (at least 4). */
  buffer(bytes: number): GPUBuffer;
  /** A buffer holding a copy of `data`. */
  upload(data: ArrayBufferView): GPUBuffer;
  /**
   * Records `record` into a fresh encoder, submits it and reads back each output's first bytes.
   * A validation error of the work is a typed error.
   */
  runAll(outputs: readonly (readonly [GPUBuffer, number])[], record: (encoder: GPUCommandEncoder) => Promise<void>): Promise<ArrayBuffer[]>;
}

/** Helper for specs: a typed identity, so a spec's literal types survive. */
export const defineAlgorithm = <Calls extends object, Arrays extends object, const Tables extends readonly ConfigTable<any, string>[]>(spec: AlgorithmSpec<Calls, Arrays, Tables>): AlgorithmSpec<Calls, Arrays, Tables> => spec;
export const defineTable = <C, N extends string>(table: ConfigTable<C, N>): ConfigTable<C, N> => table;
