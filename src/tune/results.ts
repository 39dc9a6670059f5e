// The campaign's Google Benchmark file: measured entries (as `wgprim bench` writes them) and
// error entries (GBench's `error_occurred` / `error_message`, as for a benchmark skipped with
// an error), keyed by (name, size) so that a resumed campaign skips what is done. Browser-safe.
import { WgprimError } from '../runtime/errors.js';
import { type AdapterInfoLike } from '../runtime/target.js';
import { type BenchRecord, type GBenchContext, type GBenchEntry, type GBenchEntryBase, entryName, gbenchEntry, rawEntryName } from '../bench/gbench.js';

/** A benchmark that did not run: GBench's form for a run skipped with an error. */
export interface GBenchErrorEntry extends GBenchEntryBase {
  readonly error_occurred: true;
  readonly error_message: string;
  readonly iterations: 0;
  readonly real_time: 0;
  readonly cpu_time: 0;
}

export type TuneEntry = GBenchEntry | GBenchErrorEntry;

/** Context fields a tuning run adds (strings, as GBench's custom context). */
export interface TuneContext extends GBenchContext {
  readonly tune_strategy: string;
  readonly tune_shard: string;
  readonly tune_algorithms: string;
}

export interface TuneFile {
  readonly context: TuneContext;
  readonly benchmarks: readonly TuneEntry[];
}

export const isErrorEntry = (e: TuneEntry): e is GBenchErrorEntry => (e as GBenchErrorEntry).error_occurred === true;

/** `{...}/size:N/manual_time` (or `{...}/manual_time`, as older files have it) -> `{...}`. */
export const rawName = (name: string): string => rawEntryName(name);
export const entryKey = (name: string, size: number): string => `${rawName(name)}@${size}`;

const isObject = (x: unknown): x is Record<string, unknown> => !!x && typeof x === 'object' && !Array.isArray(x);

/**
 * Everything that makes `data` not a Google Benchmark file as the tuner writes it (empty when
 * it is one): the context's GBench and adapter fields, and in each entry the GBench fields with
 * their types, plus the statistics counters in measured entries and the message in error entries.
 */
export function gbenchProblems(data: unknown): string[] {
  const p: string[] = [];
  if (!isObject(data)) return ['not a JSON object'];
  const ctx = data.context;
  if (!isObject(ctx)) p.push('context is missing');
  else {
    for (const k of ['date', 'host_name', 'executable', 'library_build_type', 'adapter_vendor', 'adapter_architecture', 'adapter_device', 'adapter_description', 'size', 'seed', 'batch_iterations', 'warmup_iterations', 'wgprim_version']) {
      if (typeof ctx[k] !== 'string') p.push(`context.${k} must be a string`);
    }
    for (const k of ['num_cpus', 'mhz_per_cpu']) if (typeof ctx[k] !== 'number') p.push(`context.${k} must be a number`);
    if (typeof ctx.cpu_scaling_enabled !== 'boolean') p.push('context.cpu_scaling_enabled must be a boolean');
    if (!Array.isArray(ctx.caches)) p.push('context.caches must be a list');
    if (!Array.isArray(ctx.load_avg)) p.push('context.load_avg must be a list');
  }
  if (!Array.isArray(data.benchmarks)) {
    p.push('benchmarks must be a list');
    return p;
  }
  data.benchmarks.forEach((e, i) => {
    const at = `benchmarks[${i}]`;
    if (!isObject(e)) {
      p.push(`${at} is not an object`);
      return;
    }
    for (const k of ['name', 'run_name', 'run_type', 'time_unit']) if (typeof e[k] !== 'string') p.push(`${at}.${k} must be a string`);
    for (const k of ['family_index', 'per_family_instance_index', 'repetitions', 'repetition_index', 'threads', 'iterations', 'real_time', 'cpu_time', 'size']) {
      if (typeof e[k] !== 'number' || !Number.isFinite(e[k])) p.push(`${at}.${k} must be a finite number`);
    }
    if (typeof e.name === 'string' && !/^\{.*\}(\/size:\d+)?\/manual_time$/.test(e.name)) p.push(`${at}.name must be {...}/size:N/manual_time`);
    if (e.run_name !== e.name) p.push(`${at}.run_name must equal name`);
    if (e.run_type !== 'iteration') p.push(`${at}.run_type must be "iteration"`);
    if (e.time_unit !== 'ms') p.push(`${at}.time_unit must be "ms"`);
    if (e.error_occurred === true) {
      if (typeof e.error_message !== 'string' || !e.error_message) p.push(`${at}.error_message must be a non-empty string`);
    } else {
      if (e.error_occurred !== undefined) p.push(`${at}.error_occurred must be true or absent`);
      for (const k of ['bytes_per_second', 'items_per_second', 'mean', 'median', 'stddev', 'cv']) {
        if (typeof e[k] !== 'number' || !Number.isFinite(e[k]) || (e[k] as number) < 0) p.push(`${at}.${k} must be a finite number >= 0`);
      }
      if (!((e.iterations as number) >= 1)) p.push(`${at}.iterations must be >= 1`);
      if (!((e.real_time as number) > 0)) p.push(`${at}.real_time must be > 0`);
    }
  });
  return p;
}

/** The adapter fields of a context, for checking that a resumed file comes from this device. */
export function adapterOfContext(ctx: Readonly<Record<string, unknown>>): string {
  return ['adapter_vendor', 'adapter_architecture', 'adapter_device', 'adapter_description'].map((k) => String(ctx[k] ?? '')).join(' / ');
}
export function adapterText(info: AdapterInfoLike): string {
  return [info.vendor, info.architecture, info.device, info.description].map((s) => s ?? '').join(' / ');
}

/**
 * The entries of one campaign file. Existing entries (a resumed file) keep their place; new
 * ones are appended, each distinct name its own family (as `gbenchFile` numbers them).
 */
export class ResultStore {
  private readonly list: TuneEntry[] = [];
  private readonly byKey = new Map<string, TuneEntry>();
  private readonly families = new Map<string, { index: number; instances: number }>();

  constructor(existing: readonly TuneEntry[] = []) {
    for (const e of existing) this.push(e);
  }

  private push(e: TuneEntry): void {
    const key = entryKey(e.name, e.size);
    const old = this.byKey.get(key);
    if (old) {
      // A retried error replaced by a result (or a newer error): keep one entry per key.
      this.list[this.list.indexOf(old)] = e;
    } else {
      this.list.push(e);
    }
    this.byKey.set(key, e);
    if (old) return;
    const f = this.families.get(rawName(e.name));
    if (!f) this.families.set(rawName(e.name), { index: this.families.size, instances: 1 });
    else f.instances++;
  }

  private family(name: string): { index: number; instance: number } {
    const f = this.families.get(rawName(name));
    return f ? { index: f.index, instance: f.instances } : { index: this.families.size, instance: 0 };
  }

  get(name: string, size: number): TuneEntry | undefined {
    return this.byKey.get(entryKey(name, size));
  }

  addRecord(r: BenchRecord): GBenchEntry {
    const f = this.family(r.name);
    const e = gbenchEntry(r, f.index, f.instance);
    this.push(e);
    return e;
  }

  /** Puts `r` in place of the entry of its (name, size), keeping that entry's family numbering. */
  replaceRecord(r: BenchRecord): GBenchEntry {
    const old = this.get(r.name, r.size);
    if (!old) return this.addRecord(r);
    const e = gbenchEntry(r, old.family_index, old.per_family_instance_index);
    this.push(e);
    return e;
  }

  addError(name: string, size: number, message: string): GBenchErrorEntry {
    const f = this.family(name);
    const full = entryName(rawName(name), size);
    const e: GBenchErrorEntry = {
      name: full, family_index: f.index, per_family_instance_index: f.instance, run_name: full, run_type: 'iteration',
      repetitions: 1, repetition_index: 0, threads: 1, error_occurred: true, error_message: message || 'unknown error',
      iterations: 0, real_time: 0, cpu_time: 0, time_unit: 'ms', size,
    };
    this.push(e);
    return e;
  }

  get entries(): readonly TuneEntry[] {
    return this.list;
  }
  get sizes(): number[] {
    return [...new Set(this.list.map((e) => e.size))].sort((a, b) => a - b);
  }
}

/** The entries of a parsed file to resume from; throws if it is not a benchmark file. */
export function existingEntries(data: unknown, label: string): TuneEntry[] {
  if (!isObject(data) || !Array.isArray(data.benchmarks)) {
    throw new WgprimError('invalid-argument', `${label} is not a Google Benchmark file (no "benchmarks" list): move it away or pass another --benchmark_out`);
  }
  return (data.benchmarks as unknown[]).filter((e): e is TuneEntry => isObject(e) && typeof e.name === 'string' && typeof e.size === 'number');
}

/** Throws a typed error if `data` (a parsed benchmark file) was measured on another adapter. */
export function checkSameAdapter(data: unknown, info: AdapterInfoLike, label: string): void {
  const ctx = isObject(data) && isObject(data.context) ? data.context : undefined;
  if (!ctx) return;
  const was = adapterOfContext(ctx);
  const now = adapterText(info);
  if (was !== now) {
    throw new WgprimError('invalid-argument', `${label} was measured on another adapter (${was}; this one is ${now}): resume it there, or pass another --benchmark_out`);
  }
}

/**
 * Throws a typed error if `data` (a parsed benchmark file) was measured with the other cache
 * state (`cold_cache` in its context; files without it were measured warm): cold and warm
 * figures must not be mixed in one campaign.
 */
export function checkSameCacheState(data: unknown, coldCache: boolean, label: string): void {
  const ctx = isObject(data) && isObject(data.context) ? data.context : undefined;
  if (!ctx) return;
  const wasCold = String(ctx.cold_cache ?? 'false') === 'true';
  if (wasCold !== coldCache) {
    throw new WgprimError('invalid-argument', `${label} was measured with a ${wasCold ? 'cold' : 'warm'} cache and this campaign runs ${coldCache ? 'cold (--cold)' : 'warm'}: resume it ${wasCold ? 'with' : 'without'} --cold, or pass another --benchmark_out`);
  }
}
