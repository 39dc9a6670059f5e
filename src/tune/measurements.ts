// Reads Google Benchmark JSON (as `wgprim bench` and `wgprim tune` write it) into measurements
// keyed the way tuned tables are: target, table algorithm, type class, config, and the point
// (size and any other name field) it was measured at. Browser-safe: callers pass parsed JSON.
import { WgprimError } from '../runtime/errors.js';
import { type TargetMatch } from '../config/types.js';
import { configKey, normId, TABLE_SPECS, type TunedAlgorithm, typeClassKey, validateTunedEntry } from '../tables.js';
import { parseName, type NameFields } from '../bench/gbench.js';
import { benchmarkSpec, configFromName } from '../bench/run.js';
import { TUNING_STAGES } from '../algorithms.js';
import { type ElementType, ELEMENT_TYPES, type TypeClass, typeInfo } from '../wgsl/types.js';

/** How a benchmark `algo` (rocPRIM: `algo[_subalgo]`) maps to a table and its type classes. */
export interface BenchAlgorithmSpec {
  /** The tuned table it fills. Several benchmark algorithms may share one table. */
  readonly table: TunedAlgorithm;
  /** Name field of the main type: its class is (is float, byte size). */
  readonly typeField: string;
  /**
   * Name field of a second type (a sort's values), classed by size only, `empty` for keys-only:
   * the measurement's `typeClass.valueBytes` (0 for `empty`), so keys-only and pairs runs are
   * separate groups and give separate rows.
   */
  readonly valueTypeField?: string;
  /**
   * The class of the rows a measurement of this main type makes, where not the type's own
   * (`BenchmarkSpec.typeClass`: histograms, by sample size and channels).
   */
  readonly typeClass?: (type: ElementType) => TypeClass;
  /**
   * rocPRIM's block-sort bias for stages that feed a merge: score = items/s * (bs*ipt)^(1/4),
   * which prefers larger sorted tiles (`TuningSpec.tileBias`).
   */
  readonly tileBias: boolean;
}

/**
 * Benchmark algorithms create-optimization knows: each tuning stage's, as its benchmarks name
 * it (`algo`). Inclusive and exclusive scan are one benchmark algorithm (`scan`, with the name
 * field `exclusive`), so both feed the one `scan` table: their runs are points of the same group,
 * like sizes. Tables keyed by value class (the sorts) take their second type from `value_type`:
 * keys-only (`empty`) and pairs are separate groups, and rows carry typeClass.valueBytes.
 */
export const BENCH_ALGORITHMS: Readonly<Record<string, BenchAlgorithmSpec>> = Object.fromEntries(TUNING_STAGES.flatMap((stage) =>
  // Every benchmark a stage times feeds its table (adjacent difference: left and right; search: search and find_end).
  stage.benchmarks.map((name) => {
    const bench = benchmarkSpec(name);
    const fields = bench.nameFields('u32');
    const spec: BenchAlgorithmSpec = {
      table: stage.table.name as TunedAlgorithm,
      typeField: 'key_type' in fields ? 'key_type' : 'value_type',
      ...(stage.table.valueClasses ? { valueTypeField: 'value_type' } : {}),
      ...(bench.typeClass ? { typeClass: bench.typeClass } : {}),
      tileBias: stage.tileBias === true,
    };
    return [String(fields.algo), spec] as const;
  })).reverse());

/** Benchmark algorithms of the campaign that pick no config: the threshold stages' (read by threshold-read.ts). */
export const NO_TABLE_ALGORITHMS: readonly string[] = TUNING_STAGES.flatMap((s) => (s.threshold ? [s.threshold.stage] : []));

/** A parsed Google Benchmark file: only `context` and `benchmarks` are read. */
export interface GBenchLike {
  readonly context?: Readonly<Record<string, unknown>>;
  readonly benchmarks?: readonly unknown[];
}

export interface BenchInput {
  /** The parsed file. */
  readonly data: unknown;
  /** Where it came from (a file name), for messages and the generated module's header. */
  readonly label: string;
}

/** One successful benchmark run, keyed for tuned tables. */
export interface Measurement {
  readonly target: TargetMatch;
  /** `vendor/architecture/device` of the adapter that ran it. */
  readonly targetKey: string;
  readonly algorithm: TunedAlgorithm;
  /** The benchmark algorithm (`scan`, `reduce`, ...). */
  readonly benchAlgorithm: string;
  readonly typeClass: TypeClass;
  readonly typeClassKey: string;
  readonly config: unknown;
  readonly configKey: string;
  /** Input size (elements per call). */
  readonly size: number;
  /** The other name fields (e.g. `exclusive=true`), sorted: with the size, a point of the group. */
  readonly variant: string;
  /** `variant@size`: a config must be measured at every point of its group to be eligible. */
  readonly point: string;
  readonly itemsPerSecond: number;
  readonly cv: number;
  /** The config's tile (workgroupSize * itemsPerThread), for the block-sort bias. */
  readonly tile: number;
  /** YYYY-MM-DD from the file's context. */
  readonly date: string;
  readonly version: string;
  readonly source: string;
}

export interface ReadResult {
  readonly measurements: Measurement[];
  readonly warnings: string[];
  /** Entries skipped because they hold an error (`error_occurred`). */
  readonly errors: number;
}

const isObject = (x: unknown): x is Record<string, unknown> => !!x && typeof x === 'object' && !Array.isArray(x);

// rocPRIM's type names (Traits<T>::name()) and ours.
const ROCPRIM_TYPES: Readonly<Record<string, TypeClass>> = {
  int: { float: false, bytes: 4 }, int32_t: { float: false, bytes: 4 }, uint32_t: { float: false, bytes: 4 }, 'unsigned int': { float: false, bytes: 4 },
  short: { float: false, bytes: 2 }, int16_t: { float: false, bytes: 2 }, uint16_t: { float: false, bytes: 2 },
  int8_t: { float: false, bytes: 1 }, uint8_t: { float: false, bytes: 1 }, char: { float: false, bytes: 1 },
  int64_t: { float: false, bytes: 8 }, uint64_t: { float: false, bytes: 8 }, 'long long': { float: false, bytes: 8 },
  float: { float: true, bytes: 4 }, double: { float: true, bytes: 8 }, 'rocprim::half': { float: true, bytes: 2 }, half: { float: true, bytes: 2 },
};

/** A main type's class: (is float, byte size). Undefined for a type we cannot class. */
export function typeClassOfName(name: string): TypeClass | undefined {
  if ((ELEMENT_TYPES as readonly string[]).includes(name)) {
    const t = typeInfo(name);
    return { float: t.isFloat, bytes: t.bytes };
  }
  return ROCPRIM_TYPES[name];
}

/** A second type's class: its byte size, or `empty` for keys-only (rocPRIM's `empty_type`). */
export function valueClassOfName(name: string | undefined): number | 'empty' | undefined {
  if (name === undefined || name === 'empty' || name === 'empty_type') return 'empty';
  return typeClassOfName(name)?.bytes;
}

/** A value class in words: `empty` (keys only), `u32`, `u64` (values are classed by size only). */
export const valueClassLabel = (valueBytes: number): string => (valueBytes === 0 ? 'empty' : `u${valueBytes * 8}`);

/** `int32`, `float64`; with a value class `int32/empty`, `int32/u32`; with channels `int8/4ch`. */
export const typeClassLabel = (c: TypeClass): string =>
  `${c.float ? 'float' : 'int'}${c.bytes * 8}${c.valueBytes !== undefined ? `/${valueClassLabel(c.valueBytes)}` : ''}${c.channels !== undefined ? `/${c.channels}ch` : ''}`;

/** The adapter a file was measured on, from its context (`adapter_*`, as `wgprim bench` writes). */
export function targetOfContext(context: Readonly<Record<string, unknown>>): TargetMatch {
  const vendor = normId(String(context.adapter_vendor ?? ''));
  const architecture = normId(String(context.adapter_architecture ?? ''));
  const device = normId(String(context.adapter_device ?? ''));
  return { vendor, ...(architecture ? { architecture } : {}), ...(device ? { device } : {}) };
}

function contextDate(context: Readonly<Record<string, unknown>>): string {
  const d = String(context.date ?? '');
  return /^\d{4}-\d{2}-\d{2}/.test(d) ? d.slice(0, 10) : d;
}

function contextSize(context: Readonly<Record<string, unknown>>): number | undefined {
  const s = String(context.size ?? '');
  return /^\d+$/.test(s) ? Number(s) : undefined;
}

/**
 * Reads benchmark files into measurements. Skipped, with a warning each: files without
 * an adapter vendor, entries with an error (counted), aggregates (`run_type: aggregate`:
 * their iterations are read instead), names that do not parse, unknown algorithms or types,
 * configs that are not valid rows of the table.
 */
export function readMeasurements(inputs: readonly BenchInput[]): ReadResult {
  const measurements: Measurement[] = [];
  const warnings: string[] = [];
  let errors = 0;
  for (const { data, label } of inputs) {
    if (!isObject(data) || !isObject(data.context) || !Array.isArray(data.benchmarks)) {
      throw new WgprimError('invalid-argument', `${label}: not Google Benchmark JSON (needs "context" and "benchmarks")`);
    }
    const context = data.context;
    const target = targetOfContext(context);
    if (!target.vendor) {
      warnings.push(`${label}: context has no adapter_vendor, so its rows could never be selected: skipped`);
      continue;
    }
    const tKey = `${target.vendor}/${target.architecture ?? ''}/${target.device ?? ''}`;
    const date = contextDate(context);
    const version = String(context.wgprim_version ?? '') || 'unknown';
    const unknownAlgos = new Set<string>();
    data.benchmarks.forEach((b, i) => {
      const where = `${label} benchmarks[${i}]`;
      if (!isObject(b)) {
        warnings.push(`${where}: not an object: skipped`);
        return;
      }
      if (b.error_occurred === true || typeof b.error_message === 'string') {
        errors++;
        return;
      }
      if (b.run_type === 'aggregate') return;
      let fields: NameFields;
      try {
        fields = parseName(String(b.name ?? ''));
      } catch (err) {
        warnings.push(`${where}: ${(err as Error).message}: skipped`);
        return;
      }
      const benchAlgorithm = String(fields.algo) + (fields.subalgo !== undefined ? `_${String(fields.subalgo)}` : '');
      // Threshold measurements (src/tune/threshold.ts) feed no table's groups: readThresholds reads them.
      if (NO_TABLE_ALGORITHMS.includes(benchAlgorithm)) return;
      const spec = BENCH_ALGORITHMS[benchAlgorithm];
      if (!spec) {
        unknownAlgos.add(benchAlgorithm);
        return;
      }
      const typeName = String(fields[spec.typeField] ?? '');
      const keyClass = typeClassOfName(typeName);
      if (!keyClass) {
        warnings.push(`${where}: unknown ${spec.typeField} "${typeName}": skipped`);
        return;
      }
      let typeClass: TypeClass = keyClass;
      if (spec.typeClass) {
        if (!(ELEMENT_TYPES as readonly string[]).includes(typeName)) {
          warnings.push(`${where}: ${spec.typeField} "${typeName}" is not a type wgprim benchmarks: skipped`);
          return;
        }
        typeClass = spec.typeClass(typeName as ElementType);
      }
      if (spec.valueTypeField) {
        const valueName = fields[spec.valueTypeField];
        const value = valueClassOfName(valueName === undefined ? undefined : String(valueName));
        if (value === undefined) {
          warnings.push(`${where}: unknown ${spec.valueTypeField} "${String(valueName)}": skipped`);
          return;
        }
        typeClass = { ...keyClass, valueBytes: value === 'empty' ? 0 : value };
      }
      if (typeof fields.cfg !== 'object') {
        warnings.push(`${where}: cfg is "${String(fields.cfg)}", not a config: skipped`);
        return;
      }
      let config: unknown;
      try {
        config = configFromName(fields.algo as string, fields.cfg);
        validateTunedEntry(spec.table, { target: {}, typeClass, config, evidence: { itemsPerSecond: 0, cv: 0, size: 0, date: '', version: '' } }, 'from a benchmark name');
      } catch (err) {
        warnings.push(`${where}: ${(err as Error).message}: skipped`);
        return;
      }
      const ips = Number(b.items_per_second);
      if (!(ips > 0) || !Number.isFinite(ips)) {
        warnings.push(`${where}: items_per_second is ${String(b.items_per_second)}: skipped`);
        return;
      }
      const size = typeof b.size === 'number' ? b.size : contextSize(context);
      if (size === undefined) {
        warnings.push(`${where}: no size (neither the entry's "size" counter nor a single context size): skipped`);
        return;
      }
      let cv = Number(b.cv);
      if (!Number.isFinite(cv)) {
        const mean = Number(b.mean);
        const stddev = Number(b.stddev);
        cv = mean > 0 && Number.isFinite(stddev) ? stddev / mean : 0;
      }
      const skip = new Set(['lvl', 'algo', 'subalgo', 'cfg', spec.typeField]);
      const variant = Object.keys(fields).filter((k) => !skip.has(k)).sort().map((k) => `${k}=${String(fields[k])}`).join(',');
      const c = config as { workgroupSize?: number; itemsPerThread?: number };
      const tc = typeClassKey(typeClass);
      measurements.push({
        target, targetKey: tKey, algorithm: spec.table, benchAlgorithm, typeClass, typeClassKey: tc,
        config, configKey: configKey(spec.table, config), size, variant, point: `${variant}@${size}`,
        itemsPerSecond: ips, cv, tile: (c.workgroupSize ?? 1) * (c.itemsPerThread ?? 1), date, version, source: label,
      });
    });
    for (const a of unknownAlgos) warnings.push(`${label}: no tuned table for benchmark algorithm "${a}" (known: ${Object.keys(BENCH_ALGORITHMS).join(', ')}): skipped`);
  }
  return { measurements, warnings, errors };
}

// ---------------------------------------------------------------------------------------------
// Scores

export const geomean = (xs: readonly number[]): number => Math.exp(xs.reduce((s, x) => s + Math.log(x), 0) / xs.length);

/** One config at one point: repeated runs (several files) combined. */
export interface PointValue {
  /** Geometric mean of the runs' items/s. */
  readonly itemsPerSecond: number;
  /** The largest of the runs' cv. */
  readonly cv: number;
}

/** A config's measurements at each point: point → value. */
export function pointsOf(ms: readonly Measurement[]): Map<string, PointValue> {
  const by = new Map<string, Measurement[]>();
  for (const m of ms) {
    const list = by.get(m.point);
    if (list) list.push(m);
    else by.set(m.point, [m]);
  }
  const out = new Map<string, PointValue>();
  for (const [p, list] of by) out.set(p, { itemsPerSecond: geomean(list.map((m) => m.itemsPerSecond)), cv: Math.max(...list.map((m) => m.cv)) });
  return out;
}

/** rocPRIM's block-sort bias factor, (bs*ipt)^(1/4), or 1 where the algorithm does not use it. */
export function tileFactor(algorithm: string, tile: number): number {
  return BENCH_ALGORITHMS[algorithm]?.tileBias ? tile ** 0.25 : 1;
}

/** Groups items by a key, keeping first-seen order. */
export function groupBy<T>(xs: readonly T[], key: (x: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const x of xs) {
    const k = key(x);
    const list = out.get(k);
    if (list) list.push(x);
    else out.set(k, [x]);
  }
  return out;
}

/** `2^k` for powers of two from 1024, else the number. */
export const formatSize = (n: number): string => (n >= 1024 && Number.isInteger(Math.log2(n)) ? `2^${Math.log2(n)}` : String(n));

/** A config in a few characters: `256x16 decoupled subgroup` (a config without items per invocation: `256 32 4`). */
export function configLabel(algorithm: TunedAlgorithm, config: unknown): string {
  const c = config as Record<string, unknown>;
  const keys = Object.keys(TABLE_SPECS[algorithm].fields).filter((k) => k in c);
  const rest = keys.filter((k) => k !== 'workgroupSize' && k !== 'itemsPerThread').map((k) => String(c[k]));
  const shape = 'itemsPerThread' in c ? `${String(c.workgroupSize)}x${String(c.itemsPerThread)}` : String(c.workgroupSize);
  return [shape, ...rest].join(' ');
}

