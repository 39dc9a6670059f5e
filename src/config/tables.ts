// Tuned tables as data: which algorithms have one, the JSON form of a table (the "sidecar" that
// `wgprim create-optimization` writes next to each generated module), and validation of tables
// a user loads at run time. Browser-safe.
import { WgprimError } from '../runtime/errors.js';
import { type TunedEntry } from './types.js';
import { type ScanConfig, scanSpace } from '../device/scan/config.js';
import { type ReduceConfig, reduceSpace } from '../device/reduce/config.js';
import { type TransformConfig, transformSpace } from '../device/transform/config.js';
import { type RadixSortConfig, radixSortSpace, radixSortUntimedSpace } from '../device/radix-sort/config.js';
import { type SegmentedRadixSortConfig, segmentedRadixSortSpace } from '../device/segmented-radix-sort/config.js';
import { type RadixSortBlockSortConfig, radixSortBlockSortSpace } from '../device/radix-sort/block-sort-config.js';

/** Tuned tables by algorithm: the built-in ones, or a user's, loaded at run time. */
export interface TunedTables {
  readonly scan?: readonly TunedEntry<ScanConfig>[];
  readonly reduce?: readonly TunedEntry<ReduceConfig>[];
  readonly transform?: readonly TunedEntry<TransformConfig>[];
  /** Keyed by the key type's class and the value class (`typeClass.valueBytes`: 0 keys only; absent: any values). */
  readonly radixSort?: readonly TunedEntry<RadixSortConfig>[];
  /** Keyed by the key type's class and the value class, like radixSort. */
  readonly segmentedRadixSort?: readonly TunedEntry<SegmentedRadixSortConfig>[];
  /** The radix sort's small-size path (block sort + merge, and its `maxCount` threshold); keyed like `radixSort`. */
  readonly radixSortBlockSort?: readonly TunedEntry<RadixSortBlockSortConfig>[];
}

/** Algorithms that have a tuned table (one generated module each: `config/tuned/<fileName>.ts`). */
export const TUNED_ALGORITHMS = ['scan', 'reduce', 'transform', 'radixSort', 'radixSortBlockSort', 'segmentedRadixSort'] as const;
export type TunedAlgorithm = (typeof TUNED_ALGORITHMS)[number];

export interface TableSpec {
  readonly algorithm: TunedAlgorithm;
  /** Name of the table's export in its module, e.g. `scanTuned`. */
  readonly exportName: string;
  /** The generated module's and sidecar's base name: `config/tuned/<fileName>.ts` and `.json`. */
  readonly fileName: string;
  /** TypeScript name of the config type, e.g. `ScanConfig`. */
  readonly configType: string;
  /** Module of the config type, relative to the package's `src/` (or `dist/`). */
  readonly configModule: string;
  /**
   * The config's fields, in the order they are written: numbers are non-negative integers,
   * strings one of the listed values. Taken from the algorithm's tuning space.
   */
  readonly fields: Readonly<Record<string, readonly (number | string)[]>>;
  /** Fields added after tables were first written, and the value a row without one reads as. */
  readonly defaults?: Readonly<Record<string, number | string>>;
}

export const TABLE_SPECS: Readonly<Record<TunedAlgorithm, TableSpec>> = {
  scan: { algorithm: 'scan', exportName: 'scanTuned', fileName: 'scan', configType: 'ScanConfig', configModule: 'device/scan/config.js', fields: scanSpace },
  reduce: { algorithm: 'reduce', exportName: 'reduceTuned', fileName: 'reduce', configType: 'ReduceConfig', configModule: 'device/reduce/config.js', fields: reduceSpace },
  transform: { algorithm: 'transform', exportName: 'transformTuned', fileName: 'transform', configType: 'TransformConfig', configModule: 'device/transform/config.js', fields: transformSpace },
  radixSort: { algorithm: 'radixSort', exportName: 'radixSortTuned', fileName: 'radix-sort', configType: 'RadixSortConfig', configModule: 'device/radix-sort/config.js', fields: { ...radixSortSpace, ...radixSortUntimedSpace }, defaults: { decoupledMaxCount: 0, passKernels: 'specialized' } },
  segmentedRadixSort: { algorithm: 'segmentedRadixSort', exportName: 'segmentedRadixSortTuned', fileName: 'segmented-radix-sort', configType: 'SegmentedRadixSortConfig', configModule: 'device/segmented-radix-sort/config.js', fields: segmentedRadixSortSpace },
  radixSortBlockSort: {
    algorithm: 'radixSortBlockSort', exportName: 'radixSortBlockSortTuned', fileName: 'radix-sort-block-sort', configType: 'RadixSortBlockSortConfig',
    configModule: 'device/radix-sort/block-sort-config.js', fields: radixSortBlockSortSpace,
  },
};

export function isTunedAlgorithm(a: string): a is TunedAlgorithm {
  return (TUNED_ALGORITHMS as readonly string[]).includes(a);
}

// ---------------------------------------------------------------------------------------------
// The JSON form of one table: `<algorithm>.json` next to the generated `<algorithm>.ts`.

export const TUNED_TABLE_FORMAT = 'wgprim-tuned-table';
export const TUNED_TABLE_FORMAT_VERSION = 1;

export interface TunedTableFile {
  readonly format: typeof TUNED_TABLE_FORMAT;
  readonly formatVersion: number;
  readonly algorithm: TunedAlgorithm;
  /** What wrote it, e.g. `wgprim create-optimization 0.1.0`. */
  readonly generator?: string;
  readonly entries: readonly TunedEntry<unknown>[];
}

export function isTunedTableFile(x: unknown): x is { format: string } {
  return !!x && typeof x === 'object' && !Array.isArray(x) && (x as { format?: unknown }).format === TUNED_TABLE_FORMAT;
}

export function tableFile(algorithm: TunedAlgorithm, entries: readonly TunedEntry<unknown>[], generator?: string): TunedTableFile {
  return { format: TUNED_TABLE_FORMAT, formatVersion: TUNED_TABLE_FORMAT_VERSION, algorithm, ...(generator ? { generator } : {}), entries };
}

// ---------------------------------------------------------------------------------------------
// Keys

/** Lower-case, trimmed: how `targetFromAdapterInfo` normalizes adapter fields. */
export const normId = (s: string | undefined): string => (s ?? '').trim().toLowerCase();

/** `vendor/architecture/device`, blank fields empty: one key per target match. */
export function targetKey(t: TunedEntry<unknown>['target']): string {
  return `${normId(t.vendor)}/${normId(t.architecture)}/${normId(t.device)}`;
}
/** `int4`, `float8`; with a value class `int4/v0` (keys only), `int4/v4`: a row without one is its own key. */
export function typeClassKey(c: TunedEntry<unknown>['typeClass']): string {
  return `${c.float ? 'float' : 'int'}${c.bytes}${c.valueBytes !== undefined ? `/v${c.valueBytes}` : ''}`;
}
/** One row per (target, type class, value class where given) in a table. */
export function rowKey(e: TunedEntry<unknown>): string {
  return `${targetKey(e.target)}|${typeClassKey(e.typeClass)}`;
}
/** A config's fields in the table's order (then any others, sorted), as JSON: equal configs give equal keys. */
export function configKey(algorithm: TunedAlgorithm, config: unknown): string {
  const c = config as Record<string, unknown>;
  const order = [...Object.keys(TABLE_SPECS[algorithm].fields), ...Object.keys(c).filter((k) => !(k in TABLE_SPECS[algorithm].fields)).sort()];
  return JSON.stringify(order.filter((k) => k in c).map((k) => [k, c[k]]));
}

// ---------------------------------------------------------------------------------------------
// Validation

const bad = (where: string, what: string): WgprimError => new WgprimError('invalid-argument', `tuned table ${where}: ${what}`);
const isObject = (x: unknown): x is Record<string, unknown> => !!x && typeof x === 'object' && !Array.isArray(x);
const show = (x: unknown): string => (typeof x === 'string' ? JSON.stringify(x) : x === undefined ? 'nothing' : JSON.stringify(x) ?? String(x));

/**
 * Checks one row; throws `invalid-argument` naming the row and field. Returns the row itself, or
 * where it lacks fields added since (`TableSpec.defaults`), a copy with their defaults.
 */
export function validateTunedEntry<C>(algorithm: TunedAlgorithm, row: unknown, where: string): TunedEntry<C> {
  if (!isObject(row)) throw bad(where, `a row must be an object { target, typeClass, config, evidence }, got ${show(row)}`);
  const known = new Set(['target', 'typeClass', 'config', 'evidence']);
  for (const k of Object.keys(row)) if (!known.has(k)) throw bad(where, `unknown field "${k}" (a row has target, typeClass, config, evidence)`);

  const target = row.target;
  if (!isObject(target)) throw bad(`${where}.target`, `must be an object { vendor?, architecture?, device? }, got ${show(target)}`);
  for (const [k, v] of Object.entries(target)) {
    if (!['vendor', 'architecture', 'device'].includes(k)) throw bad(`${where}.target`, `unknown field "${k}" (use vendor, architecture, device)`);
    if (typeof v !== 'string') throw bad(`${where}.target.${k}`, `must be a string, got ${show(v)}`);
  }

  const tc = row.typeClass;
  if (!isObject(tc)) throw bad(`${where}.typeClass`, `must be an object { float, bytes, valueBytes? }, got ${show(tc)}`);
  for (const k of Object.keys(tc)) if (!['float', 'bytes', 'valueBytes'].includes(k)) throw bad(`${where}.typeClass`, `unknown field "${k}" (use float, bytes, valueBytes)`);
  if (typeof tc.float !== 'boolean') throw bad(`${where}.typeClass.float`, `must be true or false, got ${show(tc.float)}`);
  if (!Number.isInteger(tc.bytes) || (tc.bytes as number) < 1) throw bad(`${where}.typeClass.bytes`, `must be a positive integer, got ${show(tc.bytes)}`);
  if (tc.valueBytes !== undefined && (!Number.isInteger(tc.valueBytes) || (tc.valueBytes as number) < 0)) {
    throw bad(`${where}.typeClass.valueBytes`, `must be 0 (keys only) or a value size in bytes, got ${show(tc.valueBytes)}`);
  }

  const cfg = row.config;
  const fields = TABLE_SPECS[algorithm].fields;
  if (!isObject(cfg)) throw bad(`${where}.config`, `must be a ${TABLE_SPECS[algorithm].configType} object, got ${show(cfg)}`);
  for (const k of Object.keys(cfg)) if (!(k in fields)) throw bad(`${where}.config`, `unknown ${algorithm} config field "${k}" (fields: ${Object.keys(fields).join(', ')})`);
  const defaults = TABLE_SPECS[algorithm].defaults ?? {};
  const missing = Object.keys(defaults).filter((k) => !(k in cfg));
  for (const [k, values] of Object.entries(fields)) {
    if (missing.includes(k)) continue;
    const v = cfg[k];
    if (typeof values[0] === 'number') {
      if (!Number.isInteger(v) || (v as number) < 0) throw bad(`${where}.config.${k}`, `must be a non-negative integer, got ${show(v)}`);
    } else if (!values.includes(v as string)) {
      throw bad(`${where}.config.${k}`, `must be one of ${values.map((x) => `"${x}"`).join(', ')}, got ${show(v)}`);
    }
  }

  const ev = row.evidence;
  if (!isObject(ev)) throw bad(`${where}.evidence`, `must be an object { itemsPerSecond, cv, size, date, version }, got ${show(ev)}`);
  for (const k of ['itemsPerSecond', 'cv']) {
    if (typeof ev[k] !== 'number' || !Number.isFinite(ev[k]) || (ev[k] as number) < 0) throw bad(`${where}.evidence.${k}`, `must be a non-negative number, got ${show(ev[k])}`);
  }
  const size = ev.size;
  const sizeOk = (n: unknown): boolean => Number.isInteger(n) && (n as number) >= 0;
  if (!(sizeOk(size) || (Array.isArray(size) && size.every(sizeOk)))) throw bad(`${where}.evidence.size`, `must be an integer or a list of integers, got ${show(size)}`);
  for (const k of ['date', 'version']) if (typeof ev[k] !== 'string') throw bad(`${where}.evidence.${k}`, `must be a string, got ${show(ev[k])}`);
  if (ev.note !== undefined && typeof ev.note !== 'string') throw bad(`${where}.evidence.note`, `must be a string, got ${show(ev.note)}`);
  if (ev.score !== undefined && (typeof ev.score !== 'number' || !Number.isFinite(ev.score))) throw bad(`${where}.evidence.score`, `must be a number, got ${show(ev.score)}`);
  if (ev.devices !== undefined && !(Array.isArray(ev.devices) && ev.devices.every((d) => typeof d === 'string'))) {
    throw bad(`${where}.evidence.devices`, `must be a list of strings, got ${show(ev.devices)}`);
  }
  if (missing.length) return { ...row, config: { ...cfg, ...Object.fromEntries(missing.map((k) => [k, defaults[k]])) } } as unknown as TunedEntry<C>;
  return row as unknown as TunedEntry<C>;
}

function validateRows(algorithm: TunedAlgorithm, rows: unknown, where: string): readonly TunedEntry<unknown>[] {
  if (!Array.isArray(rows)) throw bad(where, `must be a list of rows, got ${show(rows)}`);
  const checked = rows.map((r, i) => validateTunedEntry<unknown>(algorithm, r, `${where}[${i}]`));
  return checked.every((r, i) => r === rows[i]) ? (rows as TunedEntry<unknown>[]) : checked;
}

/** What `createPrim(device, { tuned })` accepts: tables by algorithm, parsed table JSON files, or a list of either. */
export type TunedInput = TunedTables | TunedTableFile | readonly (TunedTables | TunedTableFile)[];

/**
 * Validates tuned tables given at run time and returns them as one `TunedTables`. Rows are
 * kept as given (not copied), except that a row written before a config field existed gets a
 * copy with the field's default (`TableSpec.defaults`); where several inputs have rows for one algorithm, earlier inputs
 * come first (and so win ties in selection).
 */
export function normalizeTunedInput(input: unknown, name = 'tuned'): TunedTables {
  if (input === undefined || input === null) return {};
  const parts = Array.isArray(input) ? input : [input];
  const out: Record<TunedAlgorithm, TunedEntry<unknown>[] | undefined> = { scan: undefined, reduce: undefined, transform: undefined, radixSort: undefined, radixSortBlockSort: undefined, segmentedRadixSort: undefined };
  const add = (algorithm: TunedAlgorithm, rows: readonly TunedEntry<unknown>[]): void => {
    out[algorithm] = out[algorithm] ? [...out[algorithm]!, ...rows] : (rows as TunedEntry<unknown>[]);
  };
  parts.forEach((part, i) => {
    const where = Array.isArray(input) ? `${name}[${i}]` : name;
    if (!isObject(part)) throw bad(where, `must be tables by algorithm { scan?, reduce?, transform?, radixSort?, radixSortBlockSort? } or a "${TUNED_TABLE_FORMAT}" JSON file, got ${show(part)}`);
    if ('format' in part) {
      if (part.format !== TUNED_TABLE_FORMAT) throw bad(`${where}.format`, `must be "${TUNED_TABLE_FORMAT}", got ${show(part.format)}`);
      if (part.formatVersion !== TUNED_TABLE_FORMAT_VERSION) throw bad(`${where}.formatVersion`, `this wgprim reads version ${TUNED_TABLE_FORMAT_VERSION}, got ${show(part.formatVersion)}`);
      const a = part.algorithm;
      if (typeof a !== 'string' || !isTunedAlgorithm(a)) throw bad(`${where}.algorithm`, `must be one of ${TUNED_ALGORITHMS.join(', ')}, got ${show(a)}`);
      add(a, validateRows(a, part.entries, `${where}.entries`));
      return;
    }
    for (const [k, rows] of Object.entries(part)) {
      if (!isTunedAlgorithm(k)) throw bad(where, `unknown algorithm "${k}" (tables: ${TUNED_ALGORITHMS.join(', ')})`);
      if (rows === undefined) continue;
      add(k, validateRows(k, rows, `${where}.${k}`));
    }
  });
  const result: Record<string, unknown> = {};
  for (const a of TUNED_ALGORITHMS) if (out[a]) result[a] = out[a];
  return result as TunedTables;
}
