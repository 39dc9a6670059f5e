// The tune cache: rows that `prim.tune` found on this device, kept between runs and loaded by
// later `createPrim(device, { tuneCache })` calls. One entry per (adapter identity, wgprim
// version), stored as a JSON string under a key; an entry made on another adapter or by another
// version is never used. Browser-safe: in-memory and `localStorage` caches here, a file cache in
// `wgprim/node`.
import { WgprimError } from './runtime/errors.js';
import { type Target } from './runtime/target.js';
import { WGPRIM_VERSION } from './version.js';
import { normalizeTunedInput, type TunedTables } from './tables.js';

/**
 * Where tuned rows persist: get and set of a JSON string by key. Synchronous, so that
 * `createPrim` (synchronous) can load the rows of its adapter at once. Either method may throw;
 * `createPrim` then ignores the cache (and says why in `prim.tuneCacheState`), and `prim.tune`
 * reports a failed write in its summary.
 */
export interface TuneCache {
  get(key: string): string | undefined | null;
  set(key: string, value: string): void;
  /** Removes an entry (optional). */
  delete?(key: string): void;
}

/** The adapter identity an entry belongs to (the target's fields, as `targetFromAdapterInfo` normalizes them). */
export interface TuneCacheAdapter {
  readonly vendor: string;
  readonly architecture: string;
  readonly device: string;
  readonly description: string;
}

export const TUNE_CACHE_FORMAT = 'wgprim-tune-cache';
export const TUNE_CACHE_FORMAT_VERSION = 1;

/** What one cache entry holds (as JSON). */
export interface TuneCacheEntry {
  readonly format: typeof TUNE_CACHE_FORMAT;
  readonly formatVersion: number;
  readonly key: string;
  /** The wgprim version that tuned: entries of other versions are ignored. */
  readonly wgprimVersion: string;
  readonly adapter: TuneCacheAdapter;
  /** ISO time of the tuning run. */
  readonly date: string;
  /** Every row installed by `prim.tune` on this adapter (possibly none: tuned, nothing beat the defaults). */
  readonly tables: TunedTables;
  /** What was tuned: `algorithm type: decision`, for people reading the cache. */
  readonly tuned?: readonly string[];
}

export const adapterOfTarget = (t: Target | TuneCacheAdapter): TuneCacheAdapter => ({ vendor: t.vendor, architecture: t.architecture, device: t.device, description: t.description });

/** The cache key of an adapter and a wgprim version: `wgprim-tune/<version>/<vendor>/<architecture>/<device>/<description>`. */
export function tuneCacheKey(target: TuneCacheAdapter, version: string = WGPRIM_VERSION): string {
  return ['wgprim-tune', version, target.vendor, target.architecture, target.device, target.description].join('/');
}

const sameAdapter = (a: TuneCacheAdapter, b: TuneCacheAdapter): boolean =>
  a.vendor === b.vendor && a.architecture === b.architecture && a.device === b.device && a.description === b.description;

const isObject = (x: unknown): x is Record<string, unknown> => !!x && typeof x === 'object' && !Array.isArray(x);

export function encodeTuneCacheEntry(target: TuneCacheAdapter, tables: TunedTables, tuned?: readonly string[], date = new Date()): string {
  const entry: TuneCacheEntry = {
    format: TUNE_CACHE_FORMAT, formatVersion: TUNE_CACHE_FORMAT_VERSION, key: tuneCacheKey(target), wgprimVersion: WGPRIM_VERSION,
    adapter: adapterOfTarget(target), date: date.toISOString(), tables, ...(tuned ? { tuned } : {}),
  };
  return JSON.stringify(entry);
}

/** What `createPrim` made of its tune cache: `prim.tuneCacheState`. */
export interface TuneCacheState {
  readonly key: string;
  /** `loaded`: rows installed (maybe none); `missing`: no entry for this adapter and version; `ignored`: an entry was there but not used (`reason`). */
  readonly status: 'loaded' | 'missing' | 'ignored';
  readonly reason?: string;
  /** Rows installed from the cache. */
  readonly rows: number;
  /** The entry's date, when loaded. */
  readonly date?: string;
}

/**
 * Reads this adapter's entry from `cache`: its tables, validated, or why it is not used.
 * Never throws: a cache that fails or holds rubbish is only ignored.
 */
export function readTuneCache(cache: TuneCache, target: TuneCacheAdapter): { state: TuneCacheState; tables?: TunedTables } {
  const key = tuneCacheKey(target);
  const ignored = (reason: string): { state: TuneCacheState } => ({ state: { key, status: 'ignored', reason, rows: 0 } });
  let text: string | undefined | null;
  try {
    text = cache.get(key);
  } catch (err) {
    return ignored(`reading the cache failed: ${(err as Error)?.message ?? String(err)}`);
  }
  if (text === undefined || text === null) return { state: { key, status: 'missing', rows: 0 } };
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    return ignored(`the entry is not JSON: ${(err as Error).message}`);
  }
  if (!isObject(data) || data.format !== TUNE_CACHE_FORMAT) return ignored(`the entry is not a "${TUNE_CACHE_FORMAT}" object`);
  if (data.formatVersion !== TUNE_CACHE_FORMAT_VERSION) return ignored(`entry format version ${JSON.stringify(data.formatVersion)}, this wgprim reads ${TUNE_CACHE_FORMAT_VERSION}`);
  if (data.wgprimVersion !== WGPRIM_VERSION) return ignored(`tuned by wgprim ${JSON.stringify(data.wgprimVersion)}, this is ${WGPRIM_VERSION}`);
  const a = data.adapter;
  if (!isObject(a) || !sameAdapter(a as unknown as TuneCacheAdapter, target)) {
    return ignored(`tuned on another adapter (${isObject(a) ? [a.vendor, a.architecture, a.device, a.description].join('/') : 'unknown'})`);
  }
  let tables: TunedTables;
  try {
    tables = normalizeTunedInput(data.tables, 'tune cache');
  } catch (err) {
    return ignored((err as Error).message);
  }
  const rows = Object.values(tables).reduce((n, t) => n + ((t as unknown[] | undefined)?.length ?? 0), 0);
  return { state: { key, status: 'loaded', rows, date: typeof data.date === 'string' ? data.date : undefined }, tables };
}

// ---------------------------------------------------------------------------------------------
// Implementations

/** A cache in memory (a Map), for tests and for a page that only needs the rows until it closes. */
export function memoryTuneCache(initial?: Iterable<readonly [string, string]>): TuneCache & { readonly entries: Map<string, string> } {
  const entries = new Map<string, string>(initial as Iterable<[string, string]> | undefined);
  return {
    entries,
    get: (key) => entries.get(key),
    set: (key, value) => void entries.set(key, value),
    delete: (key) => void entries.delete(key),
  };
}

/** The Web Storage methods used. */
export interface StorageLike {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

/** `globalThis.localStorage` where there is a usable one (a page), else undefined (Node, a worker, storage disabled). */
export function globalLocalStorage(): StorageLike | undefined {
  try {
    const s = (globalThis as { localStorage?: StorageLike }).localStorage;
    return s && typeof s.getItem === 'function' && typeof s.setItem === 'function' ? s : undefined;
  } catch {
    // Accessing localStorage throws where storage is disabled (opaque origins, some privacy settings).
    return undefined;
  }
}

/**
 * A cache in the browser's `localStorage` (or another Web Storage object). Throws
 * `invalid-argument` where there is none; `defaultTuneCache()` falls back to memory instead.
 */
export function localStorageTuneCache(storage: StorageLike | undefined = globalLocalStorage()): TuneCache {
  if (!storage) throw new WgprimError('invalid-argument', 'no localStorage here (Node, a worker, or storage disabled): use memoryTuneCache(), or fileTuneCache() from wgprim/node');
  return {
    get: (key) => storage.getItem(key),
    set: (key, value) => {
      try {
        storage.setItem(key, value);
      } catch (err) {
        // QuotaExceededError, or storage disabled after the page loaded.
        throw new WgprimError('cache-failed', `localStorage refused the tune cache entry ${key}: ${(err as Error)?.message ?? String(err)}`, { cause: err });
      }
    },
    delete: (key) => storage.removeItem(key),
  };
}

/** `localStorage` where a page has it, else a cache in memory. */
export function defaultTuneCache(): TuneCache {
  const s = globalLocalStorage();
  return s ? localStorageTuneCache(s) : memoryTuneCache();
}
