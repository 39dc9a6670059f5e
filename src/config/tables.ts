// Tuned tables as data, for any table: the JSON form of a table (what `wgprim create-optimization`
// writes for a user's folder), keys of rows and configs, and validation of tables a user loads at
// run time. The tables themselves are the algorithms' (src/tables.ts binds these to them). Browser-safe.
import { WgprimError } from '../runtime/errors.js';
import { type TunedEntry } from './types.js';

/** What validation and keys need to know of a tuned table (the algorithms' `ConfigTable`s, with `fields`). */
export interface TableSpec {
  /** The table's name (`scan`, `radixSort`). */
  readonly algorithm: string;
  /** TypeScript name of the config type, e.g. `ScanConfig`. */
  readonly configType: string;
  /**
   * The config's fields, in the order they are written: numbers are non-negative integers,
   * strings one of the listed values. Taken from the algorithm's tuning space.
   */
  readonly fields: Readonly<Record<string, readonly (number | string | boolean)[]>>;
  /** Fields added after tables were first written, and the value a row without one reads as. */
  readonly defaults?: Readonly<Record<string, number | string>>;
  /** Former tables whose rows this one took over, and what their rows need to be rows here. */
  readonly replaces?: Readonly<Record<string, string>>;
}

// ---------------------------------------------------------------------------------------------
// The JSON form of one table: `<algorithm>.json` next to the generated `<algorithm>.ts`.

export const TUNED_TABLE_FORMAT = 'wgprim-tuned-table';
export const TUNED_TABLE_FORMAT_VERSION = 1;

export interface TunedTableFile {
  readonly format: typeof TUNED_TABLE_FORMAT;
  readonly formatVersion: number;
  readonly algorithm: string;
  /** What wrote it, e.g. `wgprim create-optimization 0.1.0`. */
  readonly generator?: string;
  readonly entries: readonly TunedEntry<unknown>[];
}

export function isTunedTableFile(x: unknown): x is { format: string } {
  return !!x && typeof x === 'object' && !Array.isArray(x) && (x as { format?: unknown }).format === TUNED_TABLE_FORMAT;
}

export function tableFile(algorithm: string, entries: readonly TunedEntry<unknown>[], generator?: string): TunedTableFile {
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
/** `int4`, `float8`; with a value class `int4/v0` (keys only), `int4/v4`, with channels `int1/c4`: a row without them is its own key. */
export function typeClassKey(c: TunedEntry<unknown>['typeClass']): string {
  return `${c.float ? 'float' : 'int'}${c.bytes}${c.valueBytes !== undefined ? `/v${c.valueBytes}` : ''}${c.channels !== undefined ? `/c${c.channels}` : ''}`;
}
/** One row per (target, type class, value class where given) in a table. */
export function rowKey(e: TunedEntry<unknown>): string {
  return `${targetKey(e.target)}|${typeClassKey(e.typeClass)}`;
}
/** A config's fields in the table's order (then any others, sorted), as JSON: equal configs give equal keys. */
export function configKeyOf(spec: TableSpec, config: unknown): string {
  const c = config as Record<string, unknown>;
  const order = [...Object.keys(spec.fields), ...Object.keys(c).filter((k) => !(k in spec.fields)).sort()];
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
export function validateRow<C>(spec: TableSpec, row: unknown, where: string): TunedEntry<C> {
  const algorithm = spec.algorithm;
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
  if (!isObject(tc)) throw bad(`${where}.typeClass`, `must be an object { float, bytes, valueBytes?, channels? }, got ${show(tc)}`);
  for (const k of Object.keys(tc)) if (!['float', 'bytes', 'valueBytes', 'channels'].includes(k)) throw bad(`${where}.typeClass`, `unknown field "${k}" (use float, bytes, valueBytes, channels)`);
  if (typeof tc.float !== 'boolean') throw bad(`${where}.typeClass.float`, `must be true or false, got ${show(tc.float)}`);
  if (!Number.isInteger(tc.bytes) || (tc.bytes as number) < 1) throw bad(`${where}.typeClass.bytes`, `must be a positive integer, got ${show(tc.bytes)}`);
  if (tc.valueBytes !== undefined && (!Number.isInteger(tc.valueBytes) || (tc.valueBytes as number) < 0)) {
    throw bad(`${where}.typeClass.valueBytes`, `must be 0 (keys only) or a value size in bytes, got ${show(tc.valueBytes)}`);
  }
  if (tc.channels !== undefined && (!Number.isInteger(tc.channels) || (tc.channels as number) < 1)) {
    throw bad(`${where}.typeClass.channels`, `must be a positive integer (channels of a pixel), got ${show(tc.channels)}`);
  }

  const cfg = row.config;
  const fields = spec.fields;
  if (!isObject(cfg)) throw bad(`${where}.config`, `must be a ${spec.configType} object, got ${show(cfg)}`);
  for (const k of Object.keys(cfg)) if (!(k in fields)) throw bad(`${where}.config`, `unknown ${algorithm} config field "${k}" (fields: ${Object.keys(fields).join(', ')})`);
  const defaults = spec.defaults ?? {};
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

function validateRows(spec: TableSpec, rows: unknown, where: string): readonly TunedEntry<unknown>[] {
  if (!Array.isArray(rows)) throw bad(where, `must be a list of rows, got ${show(rows)}`);
  const checked = rows.map((r, i) => validateRow<unknown>(spec, r, `${where}[${i}]`));
  return checked.every((r, i) => r === rows[i]) ? (rows as TunedEntry<unknown>[]) : checked;
}

/**
 * Validates tuned tables given at run time (tables by name, a parsed tuned-table file, or a list
 * of either) against `specs` and returns rows by table name. Rows are kept as given (not
 * copied), except that a row written before a config field existed gets a copy with the
 * field's default; where several inputs have rows for one table, earlier inputs come first
 * (and so win ties in selection).
 */
export function normalizeTables(input: unknown, name: string, specs: readonly TableSpec[]): Record<string, readonly TunedEntry<unknown>[]> {
  if (input === undefined || input === null) return {};
  const byName = new Map(specs.map((t) => [t.algorithm, t] as const));
  const names = specs.map((t) => t.algorithm).join(', ');
  // A former table's name: where its rows went.
  const moved = (where: string, table: unknown): WgprimError | undefined => {
    const heir = specs.find((t) => typeof table === 'string' && t.replaces?.[table] !== undefined);
    return heir && bad(where, `table "${String(table)}" is now part of table "${heir.algorithm}": name its rows there (${heir.replaces![table as string]})`);
  };
  const parts = Array.isArray(input) ? input : [input];
  const out = new Map<string, TunedEntry<unknown>[]>();
  const add = (table: string, rows: readonly TunedEntry<unknown>[]): void => {
    out.set(table, [...(out.get(table) ?? []), ...rows]);
  };
  parts.forEach((part, i) => {
    const where = Array.isArray(input) ? `${name}[${i}]` : name;
    if (!isObject(part)) throw bad(where, `must be tables by name { ${names} } or a "${TUNED_TABLE_FORMAT}" JSON file, got ${show(part)}`);
    if ('format' in part) {
      if (part.format !== TUNED_TABLE_FORMAT) throw bad(`${where}.format`, `must be "${TUNED_TABLE_FORMAT}", got ${show(part.format)}`);
      if (part.formatVersion !== TUNED_TABLE_FORMAT_VERSION) throw bad(`${where}.formatVersion`, `this wgprim reads version ${TUNED_TABLE_FORMAT_VERSION}, got ${show(part.formatVersion)}`);
      const spec = typeof part.algorithm === 'string' ? byName.get(part.algorithm) : undefined;
      if (!spec) throw moved(`${where}.algorithm`, part.algorithm) ?? bad(`${where}.algorithm`, `must be one of ${names}, got ${show(part.algorithm)}`);
      add(spec.algorithm, validateRows(spec, part.entries, `${where}.entries`));
      return;
    }
    for (const [k, rows] of Object.entries(part)) {
      const spec = byName.get(k);
      if (!spec) throw moved(where, k) ?? bad(where, `unknown algorithm "${k}" (tables: ${names})`);
      if (rows === undefined) continue;
      add(k, validateRows(spec, rows, `${where}.${k}`));
    }
  });
  // In the specs' order, whatever order the input named them in.
  return Object.fromEntries(specs.filter((t) => out.has(t.algorithm)).map((t) => [t.algorithm, out.get(t.algorithm)!]));
}
