// Google Benchmark JSON as rocPRIM's tuning scripts consume it, and rocPRIM's benchmark-name
// grammar. Browser-safe: the caller passes host facts (host name, executable, CPUs).
import { WgprimError } from '../runtime/errors.js';
import { type AdapterInfoLike } from '../runtime/target.js';
import { type TimingMethod, type TimingStats } from './timing.js';
import { type StabilityReport } from './stability.js';

/** Written into every benchmark file; keep in step with package.json. */
export { WGPRIM_VERSION } from '../version.js';
import { WGPRIM_VERSION } from '../version.js';

// ---------------------------------------------------------------------------------------------
// Names: `{lvl:device,algo:scan,exclusive:false,value_type:u32,cfg:{bs:256,ipt:16}}/manual_time`

/** A parsed name: values are strings, or numbers where the raw value was all digits. */
export interface NameFields {
  readonly [key: string]: string | number | NameFields;
}
/** What `formatName` takes: booleans are written as `true`/`false`. */
export interface NameInput {
  readonly [key: string]: string | number | boolean | NameInput;
}

const KEY_RE = /^[A-Za-z0-9_]*$/;
// rocPRIM's value rule: custom_type<...> (commas allowed inside), or no ',', '{' or '}' at all.
const VALUE_RE = /^(custom_type<[^{}]*>|[A-Za-z0-9_:().<>\s]*)$/;

/** The raw (rocPRIM `txt`) form of a name: `{key:value,...}`, nested objects in braces. */
export function formatName(fields: NameInput): string {
  const parts = Object.entries(fields).map(([k, v]) => {
    if (!KEY_RE.test(k)) throw new WgprimError('invalid-argument', `benchmark-name key "${k}" is not [A-Za-z0-9_]*`);
    if (typeof v === 'object') return `${k}:${formatName(v)}`;
    const s = String(v);
    if (!VALUE_RE.test(s) || s === '') throw new WgprimError('invalid-argument', `benchmark-name value "${s}" of "${k}" must be non-empty custom_type<...> or [A-Za-z0-9_:().<>\\s]*`);
    return `${k}:${s}`;
  });
  return `{${parts.join(',')}}`;
}

/**
 * rocPRIM's `format_name` in `json` mode: keys quoted, values quoted unless all digits,
 * nested braces become nested objects. Accepts a full GBench name (`.../manual_time`):
 * like rocPRIM's scripts it takes the greedy `{.*}` match.
 */
export function nameToJson(name: string): string {
  const m = /\{.*\}/.exec(name);
  if (!m) throw new WgprimError('invalid-argument', `"${name}" holds no {...} benchmark name`);
  const src = m[0];
  let i = 0;
  const object = (): string => {
    if (src[i] !== '{') throw bad(`expected "{" at ${i}`);
    i++;
    const pairs: string[] = [];
    while (src[i] !== '}') {
      const start = i;
      while (i < src.length && /[A-Za-z0-9_]/.test(src[i]!)) i++;
      const key = src.slice(start, i);
      if (src[i] !== ':') throw bad(`expected ":" after key "${key}" at ${i}`);
      i++;
      if (src[i] === '{') {
        pairs.push(`${JSON.stringify(key)}:${object()}`);
      } else {
        // A value runs to the next ',' or '}' outside <...> (rocPRIM's custom_type<a,b>).
        const vStart = i;
        let depth = 0;
        while (i < src.length && (depth > 0 || (src[i] !== ',' && src[i] !== '}'))) {
          if (src[i] === '<') depth++;
          else if (src[i] === '>') depth--;
          i++;
        }
        const value = src.slice(vStart, i).trim();
        pairs.push(`${JSON.stringify(key)}:${/^[0-9]+$/.test(value) ? value : JSON.stringify(value)}`);
      }
      if (src[i] === ',') i++;
      else if (src[i] !== '}') throw bad(`expected "," or "}" at ${i}`);
    }
    i++;
    return `{${pairs.join(',')}}`;
  };
  const bad = (what: string): WgprimError => new WgprimError('invalid-argument', `malformed benchmark name "${src}": ${what}`);
  const json = object();
  if (i !== src.length) throw bad(`trailing text at ${i}`);
  return json;
}

/**
 * The full name of a `benchmarks[]` entry: the raw name, the size as GBench writes a named
 * argument, then GBench's `/manual_time`:
 * `{lvl:device,algo:scan,...,cfg:{...}}/size:16777216/manual_time`. A file that holds several
 * sizes so names each run once, and tools that pair runs by name (GBench's compare.py) pair the
 * same size; rocPRIM's scripts read only the `{...}` part, which stays as before.
 */
export function entryName(raw: string, size: number): string {
  return `${raw}/size:${size}/manual_time`;
}

const SIZE_SUFFIX = /\/size:(\d+)$/;

/**
 * The raw `{...}` name of a full one: `{...}/size:N/manual_time` or, as files written before
 * sizes were in names have it, `{...}/manual_time` (both give `{...}`).
 */
export function rawEntryName(full: string): string {
  return full.replace(/\/manual_time$/, '').replace(SIZE_SUFFIX, '');
}

/** The size a full name carries (`/size:N`), or undefined (names written before sizes were in them). */
export function sizeOfEntryName(full: string): number | undefined {
  const m = SIZE_SUFFIX.exec(full.replace(/\/manual_time$/, ''));
  return m ? Number(m[1]) : undefined;
}

/** Parses a benchmark name (the `{...}` part of a full one); rocPRIM requires `lvl`, `algo` and `cfg`. */
export function parseName(name: string): NameFields {
  const fields = JSON.parse(nameToJson(name)) as NameFields;
  for (const k of ['lvl', 'algo', 'cfg']) {
    if (!(k in fields)) throw new WgprimError('invalid-argument', `benchmark name "${name}" lacks "${k}"`);
  }
  return fields;
}

// ---------------------------------------------------------------------------------------------
// The JSON file

/** One timed benchmark, as `run.ts` returns it. */
export interface BenchRecord {
  /** Raw name (no size, no `/manual_time`), e.g. `{lvl:device,algo:reduce,key_type:u32,cfg:{...}}`; see `entryName`. */
  readonly name: string;
  /** inclusive_scan, exclusive_scan, reduce or transform (the anchor names). */
  readonly algorithm: string;
  readonly type: string;
  /** Elements per call. */
  readonly size: number;
  /** Bytes one call moves: each input read once, each output written once. */
  readonly bytesPerCall: number;
  /** Milliseconds per call (see `TimingResult.times`). */
  readonly times: readonly number[];
  readonly stats: TimingStats;
  /** Timed calls (batches × batch size). */
  readonly calls: number;
  /** Host milliseconds for the timed part. */
  readonly hostMs: number;
  readonly method: TimingMethod;
  /** Where the config came from (`user`, `tuned:device`, `heuristic`, ...). */
  readonly configSource: string;
  readonly config: unknown;
  /** Warm-up and re-measured batches, and whether the kept ones are stable (absent: not tracked). */
  readonly stability?: StabilityReport;
}

/** Facts about the host that a browser cannot know; the CLI fills them from Node's `os`. */
export interface HostFacts {
  readonly hostName?: string;
  readonly executable?: string;
  readonly numCpus?: number;
  readonly mhzPerCpu?: number;
  readonly loadAvg?: readonly number[];
  /** Dawn flags the device was created with beyond wgprim's own (`WGPRIM_DAWN_FLAGS`). */
  readonly dawnFlags?: readonly string[];
}

export interface RunFacts {
  readonly adapterInfo: AdapterInfoLike;
  /** Elements per call (rocPRIM's context `size`); a list when the file holds several sizes. */
  readonly size: number | readonly number[];
  readonly seed: number | string;
  readonly batchIterations: number;
  readonly warmupIterations: number;
  /** Untimed calls went on until this many ms had passed (0: `warmupIterations` only). */
  readonly warmupMs?: number;
  readonly batches: number;
  readonly timing: TimingMethod;
  /** Each timed region started with the GPU's caches flushed (`--cold`). */
  readonly coldCache?: boolean;
  /** Host ms settling and re-measuring could add per benchmark (`--settle-ms`). */
  readonly settleMs?: number;
  readonly date?: Date;
}

/**
 * The `context` block. GBench's own fields keep their types; the added fields are strings,
 * as GBench's AddCustomContext (and so rocPRIM's `hdp_*` fields) writes them.
 */
export interface GBenchContext {
  readonly date: string;
  readonly host_name: string;
  readonly executable: string;
  readonly num_cpus: number;
  readonly mhz_per_cpu: number;
  readonly cpu_scaling_enabled: boolean;
  readonly caches: readonly unknown[];
  readonly load_avg: readonly number[];
  readonly library_build_type: 'release';
  readonly json_schema_version: 1;
  readonly adapter_vendor: string;
  readonly adapter_architecture: string;
  readonly adapter_device: string;
  readonly adapter_description: string;
  readonly adapter_subgroup_min_size: string;
  readonly adapter_subgroup_max_size: string;
  readonly wgprim_version: string;
  readonly size: string;
  readonly seed: string;
  readonly batch_iterations: string;
  readonly warmup_iterations: string;
  readonly warmup_ms: string;
  readonly trials: string;
  readonly timing: string;
  /** `true` when each timed region started with the caches flushed (`--cold`), else `false`. */
  readonly cold_cache: string;
  /** Host ms settling and re-measuring could add per benchmark (absent where not given). */
  readonly settle_ms?: string;
  /** Dawn flags beyond wgprim's own, space-separated (absent where none were given). */
  readonly dawn_flags?: string;
}

/** Fields every `benchmarks[]` entry has, measured or skipped with an error. */
export interface GBenchEntryBase {
  readonly name: string;
  readonly family_index: number;
  readonly per_family_instance_index: number;
  readonly run_name: string;
  readonly run_type: 'iteration';
  readonly repetitions: number;
  readonly repetition_index: number;
  readonly threads: number;
  readonly time_unit: 'ms';
  /** Elements per call: a numeric user counter, so files holding several sizes stay readable. */
  readonly size: number;
}

export interface GBenchEntry extends GBenchEntryBase {
  readonly iterations: number;
  readonly real_time: number;
  readonly cpu_time: number;
  readonly bytes_per_second: number;
  readonly items_per_second: number;
  readonly mean: number;
  readonly median: number;
  readonly stddev: number;
  readonly cv: number;
  /** Batches run before the kept ones, the GPU not yet settled (see stability.ts). */
  readonly warmup_batches?: number;
  /** Kept batches dropped as slow outliers and measured again. */
  readonly remeasured_batches?: number;
  /** 1 where the kept batches settled and none is a slow outlier, else 0. */
  readonly stable?: 0 | 1;
}

export interface GBenchFile {
  readonly context: GBenchContext;
  readonly benchmarks: readonly GBenchEntry[];
}

/** GBench's date format: local time with a numeric offset, e.g. 2026-11-29T10:00:00+00:00. */
function gbenchDate(d: Date): string {
  const p = (n: number): string => String(Math.abs(n)).padStart(2, '0');
  const off = -d.getTimezoneOffset();
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}` +
    `${off >= 0 ? '+' : '-'}${p(Math.trunc(off / 60))}:${p(off % 60)}`;
}

export function gbenchContext(run: RunFacts, host: HostFacts = {}): GBenchContext {
  const info = run.adapterInfo;
  const nav = (globalThis as { navigator?: { hardwareConcurrency?: number } }).navigator;
  return {
    date: gbenchDate(run.date ?? new Date()),
    host_name: host.hostName ?? '',
    executable: host.executable ?? 'wgprim',
    num_cpus: host.numCpus ?? nav?.hardwareConcurrency ?? 1,
    mhz_per_cpu: host.mhzPerCpu ?? 0,
    cpu_scaling_enabled: false,
    caches: [],
    load_avg: [...(host.loadAvg ?? [])],
    library_build_type: 'release',
    json_schema_version: 1,
    adapter_vendor: info.vendor ?? '',
    adapter_architecture: info.architecture ?? '',
    adapter_device: info.device ?? '',
    adapter_description: info.description ?? '',
    adapter_subgroup_min_size: String(info.subgroupMinSize ?? ''),
    adapter_subgroup_max_size: String(info.subgroupMaxSize ?? ''),
    wgprim_version: WGPRIM_VERSION,
    size: typeof run.size === 'number' ? String(run.size) : run.size.join(','),
    seed: String(run.seed),
    batch_iterations: String(run.batchIterations),
    warmup_iterations: String(run.warmupIterations),
    warmup_ms: String(run.warmupMs ?? 0),
    trials: String(run.batches),
    timing: run.timing,
    cold_cache: String(run.coldCache === true),
    ...(run.settleMs !== undefined ? { settle_ms: String(run.settleMs) } : {}),
    ...(host.dawnFlags && host.dawnFlags.length > 0 ? { dawn_flags: host.dawnFlags.join(' ') } : {}),
  };
}

/**
 * One `benchmarks[]` entry. Each timed call counts as one GBench iteration, so real_time is the
 * mean milliseconds per call and items/bytes per second are size (bytes) over that mean: the
 * same totals GBench derives from rocPRIM's per-batch iterations, just not multiplied by the
 * batch. The median, stddev (n - 1) and cv are user counters, as in rocPRIM's v2025 executor;
 * so are warmup_batches, remeasured_batches and stable (1/0) where the record tracked them.
 */
export function gbenchEntry(record: BenchRecord, familyIndex: number, instanceIndex = 0): GBenchEntry {
  const { mean, median, stddev, cv } = record.stats;
  const seconds = mean / 1e3;
  const full = entryName(record.name, record.size);
  return {
    name: full,
    family_index: familyIndex,
    per_family_instance_index: instanceIndex,
    run_name: full,
    run_type: 'iteration',
    repetitions: 1,
    repetition_index: 0,
    threads: 1,
    iterations: record.calls,
    real_time: mean,
    cpu_time: record.calls > 0 ? record.hostMs / record.calls : 0,
    time_unit: 'ms',
    bytes_per_second: seconds > 0 ? record.bytesPerCall / seconds : 0,
    items_per_second: seconds > 0 ? record.size / seconds : 0,
    mean,
    median,
    stddev,
    cv,
    size: record.size,
    ...(record.stability ? {
      warmup_batches: record.stability.warmupBatches, remeasured_batches: record.stability.remeasuredBatches, stable: record.stability.stable ? 1 as const : 0 as const,
    } : {}),
  };
}

/**
 * The whole file. Each distinct raw name is its own family, as in rocPRIM's generated
 * benchmarks; the same raw name at another size is the next instance of its family.
 */
export function gbenchFile(records: readonly BenchRecord[], run: RunFacts, host?: HostFacts): GBenchFile {
  const families = new Map<string, { index: number; instances: number }>();
  const benchmarks = records.map((r) => {
    let f = families.get(r.name);
    if (!f) families.set(r.name, (f = { index: families.size, instances: 0 }));
    return gbenchEntry(r, f.index, f.instances++);
  });
  return { context: gbenchContext(run, host), benchmarks };
}
