// `wgprim report`'s model: Google Benchmark JSON files read into per-target groups of
// variants (algorithm and type), each scored as the page states. Browser-safe.
import { parseName, rawEntryName, type NameFields } from '../bench/gbench.js';
import { type TargetMatch } from '../config/types.js';
import { TUNING_STAGES } from '../algorithms.js';

// ---------------------------------------------------------------------------------------------
// Inputs and options

/** One benchmark file, already parsed (`JSON.parse`); `file` names it on the page. */
export interface ReportInput {
  readonly file?: string;
  readonly data: unknown;
}

/** A flattened `cfg`: nested objects become dotted keys (`sort.bs`). */
export type FlatConfig = Readonly<Record<string, string | number>>;

/**
 * Marks a config as the default for some groups: the one the library selects without tuning
 * (or with the tables it has now; `source` says which, e.g. `heuristic`, `tuned:device`).
 * A group matches when its name's `algo` equals `algo`, its type label equals `type` (when
 * given) and its target matches `target` (every field given must be equal). `cfg` holds the
 * name-grammar fields (`bs`, `ipt`, `lookback`, ...); every field given must be equal.
 */
export interface ReportDefault {
  readonly target?: TargetMatch;
  readonly algo: string;
  readonly type?: string;
  readonly cfg: FlatConfig;
  readonly source?: string;
}

export interface ReportOptions {
  readonly defaults?: readonly ReportDefault[];
  readonly title?: string;
  /** When the page was generated (default: now). */
  readonly generated?: Date;
  /** Rows of the top-configs table (default 10; the default config is added when below). */
  readonly top?: number;
}

// ---------------------------------------------------------------------------------------------
// The model the page is drawn from (exported for tests and other tools)

export interface ReportTarget {
  readonly vendor: string;
  readonly architecture: string;
  readonly device: string;
  readonly description: string;
}

export interface ReportFile {
  readonly file: string;
  readonly date: string;
  readonly version: string;
  readonly timing: string;
  readonly host: string;
  readonly subgroups: string;
}

export interface Measurement {
  readonly size: number;
  readonly itemsPerSecond: number;
  readonly cv: number;
  /** Entries merged into this one (repetitions, or the same run in several files): the median is kept. */
  readonly count: number;
}

export interface Variant {
  readonly name: string;
  readonly cfg: FlatConfig;
  readonly points: ReadonlyMap<number, Measurement>;
  /** Geometric mean of items/s over the sizes this variant has. */
  readonly score: number;
  /** Measured at every size of its group. */
  readonly complete: boolean;
  readonly maxCv: number;
  /** Set when this variant is the default config (its source, or `default`). */
  readonly defaultSource?: string;
}

export interface ReportError {
  readonly name: string;
  readonly group?: string;
  readonly cfg?: FlatConfig;
  readonly size?: number;
  readonly message: string;
  readonly file: string;
}

export interface ReportGroup {
  readonly id: string;
  readonly algo: string;
  /** `scan (inclusive)`, `reduce`, ... */
  readonly label: string;
  /** `u32`, or `key u32, value empty` for several type fields. */
  readonly type: string;
  /** Sizes measured, ascending. */
  readonly sizes: readonly number[];
  /** Ranked best first: complete variants by score, then incomplete ones by score. */
  readonly variants: readonly Variant[];
  readonly best: Variant;
  readonly defaultVariant?: Variant;
  /** A default was given for this group but no measured variant has its config. */
  readonly defaultMissing?: FlatConfig;
  readonly bsKey?: string;
  readonly iptKey?: string;
  readonly cfgKeys: readonly string[];
  readonly errors: readonly ReportError[];
}

export interface TargetReport {
  readonly id: string;
  readonly target: ReportTarget;
  readonly files: readonly ReportFile[];
  readonly groups: readonly ReportGroup[];
  readonly errors: readonly ReportError[];
  /** Entries left out: aggregates, unparseable names, no items/s. */
  readonly skipped: readonly string[];
}

// ---------------------------------------------------------------------------------------------
// Reading

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string => (v === undefined || v === null ? '' : String(v));

function flatten(fields: NameFields, prefix = ''): Record<string, string | number> {
  const out: Record<string, string | number> = {};
  for (const [k, v] of Object.entries(fields)) {
    if (typeof v === 'object') Object.assign(out, flatten(v, `${prefix}${k}.`));
    else out[`${prefix}${k}`] = v;
  }
  return out;
}

function groupLabel(algo: string, extra: [string, string | number][]): string {
  const parts = extra.map(([k, v]) => {
    if (k === 'exclusive' && (v === 'true' || v === 'false')) return v === 'true' ? 'exclusive' : 'inclusive';
    if (v === 'true') return k;
    if (v === 'false') return `no ${k}`;
    return `${k} ${v}`;
  });
  return parts.length ? `${algo} (${parts.join(', ')})` : algo;
}

function typeLabel(types: [string, string | number][]): string {
  if (types.length === 0) return '-';
  if (types.length === 1) return String(types[0]![1]);
  return types.map(([k, v]) => `${k.replace(/_type$/, '')} ${v}`).join(', ');
}

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

const slug = (s: string): string => s.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '') || 'x';

function targetMatches(m: TargetMatch | undefined, t: ReportTarget): boolean {
  if (!m) return true;
  const eq = (a: string | undefined, b: string): boolean => a === undefined || a.trim().toLowerCase() === b.trim().toLowerCase();
  return eq(m.vendor, t.vendor) && eq(m.architecture, t.architecture) && eq(m.device, t.device);
}

/**
 * The cfg fields a tuning stage's names leave out while they hold a value (`nameOmits`: a radix
 * sort name without `dec_max` has decoupledMaxCount 0), by abbreviation, for the stage `algo`:
 * a name read back gets them, so configs with and without the field compare and draw alike.
 */
function omittedFields(algo: string): FlatConfig {
  const table = TUNING_STAGES.find((s) => s.stage === algo)?.table;
  if (!table?.nameOmits) return {};
  return Object.fromEntries(Object.entries(table.nameOmits).flatMap(([field, value]) => {
    const abbr = table.nameFields[field];
    return abbr && typeof value !== 'boolean' ? [[abbr, value]] : [];
  }));
}

const cfgMatches = (want: FlatConfig, cfg: FlatConfig): boolean =>
  Object.entries(want).every(([k, v]) => k in cfg && String(cfg[k]) === String(v));

interface RawGroup {
  algo: string;
  label: string;
  type: string;
  variants: Map<string, { name: string; cfg: FlatConfig; points: Map<number, { ips: number[]; cvs: number[] }>; source?: string }>;
  errors: ReportError[];
}

/** Reads the files into per-target groups of variants; does not render. */
export function analyzeReport(inputs: readonly ReportInput[], options: ReportOptions = {}): TargetReport[] {
  const targets = new Map<string, { target: ReportTarget; files: ReportFile[]; groups: Map<string, RawGroup>; errors: ReportError[]; skipped: string[] }>();

  inputs.forEach((input, fileIndex) => {
    const file = input.file ?? `input ${fileIndex + 1}`;
    if (!isObject(input.data) || !Array.isArray(input.data.benchmarks)) {
      throw new Error(`${file}: not a Google Benchmark JSON file (no "benchmarks" array)`);
    }
    const ctx = isObject(input.data.context) ? input.data.context : {};
    const target: ReportTarget = {
      vendor: str(ctx.adapter_vendor), architecture: str(ctx.adapter_architecture),
      device: str(ctx.adapter_device), description: str(ctx.adapter_description),
    };
    const tKey = JSON.stringify([target.vendor, target.architecture, target.device, target.description]);
    let t = targets.get(tKey);
    if (!t) targets.set(tKey, (t = { target, files: [], groups: new Map(), errors: [], skipped: [] }));
    const sgMin = str(ctx.adapter_subgroup_min_size);
    const sgMax = str(ctx.adapter_subgroup_max_size);
    t.files.push({
      file, date: str(ctx.date), version: str(ctx.wgprim_version), timing: str(ctx.timing), host: str(ctx.host_name),
      subgroups: sgMin === sgMax ? sgMin : `${sgMin}..${sgMax}`,
    });
    const ctxSize = /^\d+$/.test(str(ctx.size)) ? Number(ctx.size) : undefined;

    for (const raw of input.data.benchmarks as unknown[]) {
      if (!isObject(raw)) continue;
      const name = str(raw.name ?? raw.run_name);
      if (raw.run_type === 'aggregate') {
        t.skipped.push(`${name} (aggregate)`);
        continue;
      }
      let fields: NameFields | undefined;
      try {
        fields = parseName(name);
      } catch {
        fields = undefined;
      }
      const sizeField = fields && typeof fields.size === 'number' ? fields.size : undefined;
      const size = typeof raw.size === 'number' && raw.size > 0 ? raw.size : sizeField ?? ctxSize;

      let gKey: string | undefined;
      let cfg: FlatConfig | undefined;
      let g: RawGroup | undefined;
      if (fields) {
        const algo = String(fields.algo);
        const rest = Object.entries(fields).filter(([k]) => k !== 'lvl' && k !== 'algo' && k !== 'cfg' && k !== 'size') as [string, string | number][];
        const types = rest.filter(([k]) => /_type$/.test(k));
        const extra = rest.filter(([k]) => !/_type$/.test(k));
        gKey = JSON.stringify([fields.lvl, algo, ...rest]);
        cfg = typeof fields.cfg === 'object' ? { ...omittedFields(algo), ...flatten(fields.cfg) } : { cfg: fields.cfg };
        g = t.groups.get(gKey);
        if (!g) t.groups.set(gKey, (g = { algo, label: groupLabel(algo, extra), type: typeLabel(types), variants: new Map(), errors: [] }));
      }

      if (raw.error_occurred === true) {
        const e: ReportError = { name, group: g ? `${g.label} ${g.type}` : undefined, cfg, size, message: str(raw.error_message) || 'error', file };
        t.errors.push(e);
        g?.errors.push(e);
        continue;
      }
      const ips = Number(raw.items_per_second);
      if (!fields || !g || !cfg) {
        t.skipped.push(`${name} (name not in rocPRIM's grammar)`);
        continue;
      }
      if (!(ips > 0) || size === undefined) {
        t.skipped.push(`${name} (${size === undefined ? 'no size' : 'no items_per_second'})`);
        continue;
      }
      const vKey = JSON.stringify(Object.entries(cfg).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
      let v = g.variants.get(vKey);
      if (!v) g.variants.set(vKey, (v = { name: rawEntryName(name), cfg, points: new Map() }));
      let p = v.points.get(size);
      if (!p) v.points.set(size, (p = { ips: [], cvs: [] }));
      p.ips.push(ips);
      const cv = Number(raw.cv);
      p.cvs.push(Number.isFinite(cv) ? cv : 0);
      const source = str(raw.config_source);
      if (source === 'heuristic' || source.startsWith('tuned')) v.source = source;
    }
  });

  const used = new Set<string>();
  const uniqueId = (base: string): string => {
    let id = base;
    for (let i = 2; used.has(id); i++) id = `${base}-${i}`;
    used.add(id);
    return id;
  };

  return [...targets.values()].map((t) => {
    const tId = uniqueId(`t-${slug([t.target.vendor, t.target.architecture, t.target.device].filter(Boolean).join('-') || 'unknown')}`);
    const groups: ReportGroup[] = [];
    for (const g of t.groups.values()) {
      if (g.variants.size === 0) continue; // only errors: listed with the target's errors
      const sizes = [...new Set([...g.variants.values()].flatMap((v) => [...v.points.keys()]))].sort((a, b) => a - b);
      const def = options.defaults?.find((d) => d.algo === g.algo && (d.type === undefined || d.type === g.type) && targetMatches(d.target, t.target));
      const variants: Variant[] = [...g.variants.values()].map((v) => {
        const points = new Map<number, Measurement>();
        for (const s of [...v.points.keys()].sort((a, b) => a - b)) {
          const p = v.points.get(s)!;
          points.set(s, { size: s, itemsPerSecond: median(p.ips), cv: Math.max(...p.cvs), count: p.ips.length });
        }
        const logs = [...points.values()].map((m) => Math.log(m.itemsPerSecond));
        const isDefault = def && cfgMatches(def.cfg, v.cfg);
        return {
          name: v.name, cfg: v.cfg, points,
          score: Math.exp(logs.reduce((a, b) => a + b, 0) / logs.length),
          complete: sizes.every((s) => points.has(s)),
          maxCv: Math.max(...[...points.values()].map((m) => m.cv)),
          defaultSource: isDefault ? def.source ?? 'default' : v.source,
        };
      });
      variants.sort((a, b) => (a.complete === b.complete ? b.score - a.score : a.complete ? -1 : 1));
      const cfgKeys = [...new Set(variants.flatMap((v) => Object.keys(v.cfg)))];
      const axisKey = (k: string): string | undefined => cfgKeys.find((c) => c === k) ?? cfgKeys.find((c) => c.endsWith(`.${k}`));
      const defaultVariant = variants.find((v) => v.defaultSource !== undefined);
      groups.push({
        id: uniqueId(`${tId}-${slug(`${g.label}-${g.type}`)}`),
        algo: g.algo, label: g.label, type: g.type, sizes, variants, best: variants[0]!,
        defaultVariant,
        defaultMissing: def && !defaultVariant ? def.cfg : undefined,
        bsKey: axisKey('bs'), iptKey: axisKey('ipt'), cfgKeys, errors: g.errors,
      });
    }
    groups.sort((a, b) => a.label.localeCompare(b.label) || a.type.localeCompare(b.type));
    return { id: tId, target: t.target, files: t.files, groups, errors: t.errors, skipped: t.skipped };
  });
}

