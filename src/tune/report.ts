// `wgprim report`: Google Benchmark JSON in, one self-contained HTML page out (inline CSS and
// inline SVG; no scripts, fonts or network). Browser-safe: a pure function of parsed JSON.
//
// Per target (the adapter in each file's `context`), algorithm and type, the page shows:
//  - a heatmap of workgroup size (bs) by items per thread (ipt), each cell the best score over
//    the config's other fields, the value printed, the chosen config and the default marked;
//  - throughput against input size for the chosen config, the default, the best at each size,
//    and every other config faintly;
//  - the top configs with score, items/s per size, cv and ratio to the best;
// and, per target, the entries that failed (`error_occurred`).
//
// Score (the rule the page states): the geometric mean of items/s over the sizes measured, so
// no single size dominates; a config that lacks some of the group's sizes ranks after every
// config that has them all.
import { parseName, rawEntryName, WGPRIM_VERSION, type NameFields } from '../bench/gbench.js';
import { type TargetMatch } from '../config/types.js';

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
        cfg = typeof fields.cfg === 'object' ? flatten(fields.cfg) : { cfg: fields.cfg };
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

// ---------------------------------------------------------------------------------------------
// Formatting

const ESC: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
/** Escapes text for HTML and SVG text and attributes. */
export const esc = (s: unknown): string => String(s).replace(/[&<>"']/g, (c) => ESC[c]!);

/** G items/s with three significant figures. */
export function formatGips(itemsPerSecond: number): string {
  const g = itemsPerSecond / 1e9;
  if (g >= 100) return g.toFixed(0);
  if (g >= 10) return g.toFixed(1);
  if (g >= 1) return g.toFixed(2);
  return g.toPrecision(3);
}

const SUP: Record<string, string> = { 0: '⁰', 1: '¹', 2: '²', 3: '³', 4: '⁴', 5: '⁵', 6: '⁶', 7: '⁷', 8: '⁸', 9: '⁹' };
/** `2²⁴` for powers of two from 2^10, else `1.5M`-style, else the number. */
export function formatSize(n: number): string {
  const l = Math.log2(n);
  if (Number.isInteger(l) && l >= 10) return `2${String(l).replace(/\d/g, (d) => SUP[d]!)}`;
  for (const [unit, div] of [['G', 1e9], ['M', 1e6], ['k', 1e3]] as const) {
    if (n >= div) return `${+(n / div).toPrecision(3)}${unit}`;
  }
  return String(n);
}

const pct = (cv: number): string => `${(cv * 100).toFixed(cv < 0.1 ? 1 : 0)}%`;
const fmtCfg = (cfg: FlatConfig, keys: readonly string[] = Object.keys(cfg)): string =>
  keys.filter((k) => k in cfg).map((k) => `${k} ${cfg[k]}`).join(' · ');
const num = (x: number): string => String(Math.round(x * 100) / 100);

/** Viridis, sampled at 10 stops. */
const VIRIDIS = ['#440154', '#482878', '#3e4989', '#31688e', '#26828e', '#1f9e89', '#35b779', '#6ece58', '#b5de2b', '#fde725'].map((h) => [1, 3, 5].map((i) => parseInt(h.slice(i, i + 2), 16)));

function viridis(t: number): { fill: string; text: string } {
  const x = Math.min(1, Math.max(0, t)) * (VIRIDIS.length - 1);
  const i = Math.min(VIRIDIS.length - 2, Math.floor(x));
  const f = x - i;
  const [r, g, b] = VIRIDIS[i]!.map((c, k) => Math.round(c + (VIRIDIS[i + 1]![k]! - c) * f)) as [number, number, number];
  const lum = (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
  return { fill: `rgb(${r},${g},${b})`, text: lum > 0.45 ? '#111' : '#fff' };
}

/** About `count` round ticks from 0 to at least `max`. */
function niceTicks(max: number, count = 5): number[] {
  if (!(max > 0)) return [0, 1];
  const raw = max / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= raw)!;
  const ticks: number[] = [];
  for (let v = 0; v < max + step * 0.999; v += step) ticks.push(+v.toPrecision(12));
  return ticks;
}

const axisSort = (values: (string | number)[]): (string | number)[] =>
  [...new Set(values)].sort((a, b) => (typeof a === 'number' && typeof b === 'number' ? a - b : String(a).localeCompare(String(b), 'en', { numeric: true })));

/** Short forms of the other cfg fields' values, unique per field. */
function abbreviations(group: ReportGroup, keys: readonly string[]): Map<string, Map<string, string>> {
  const out = new Map<string, Map<string, string>>();
  for (const k of keys) {
    const values = axisSort(group.variants.map((v) => v.cfg[k]!).filter((v) => v !== undefined)).map(String);
    const short = (v: string, n: number): string => {
      if (/^\d+$/.test(v)) return v;
      const parts = v.split(/[_\-\s:]+/).filter(Boolean);
      return parts.length > 1 && n <= 3 ? parts.map((p) => p[0]).join('').slice(0, 4) : v.slice(0, n);
    };
    let m = new Map<string, string>();
    for (let n = 3; n <= 12; n++) {
      m = new Map(values.map((v) => [v, short(v, n)]));
      if (new Set(m.values()).size === values.length) break;
    }
    out.set(k, m);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Heatmap: rows workgroup size, columns items per thread

const CELL_W = 74;
const CELL_H = 42;

function heatmap(group: ReportGroup, index: number): { svg: string; caption: string; width: number } {
  const bsKey = group.bsKey!;
  const iptKey = group.iptKey!;
  const rows = axisSort(group.variants.map((v) => v.cfg[bsKey]!).filter((v) => v !== undefined));
  const cols = axisSort(group.variants.map((v) => v.cfg[iptKey]!).filter((v) => v !== undefined));
  for (const e of group.errors) {
    if (e.cfg?.[bsKey] !== undefined && !rows.includes(e.cfg[bsKey]!)) rows.push(e.cfg[bsKey]!);
    if (e.cfg?.[iptKey] !== undefined && !cols.includes(e.cfg[iptKey]!)) cols.push(e.cfg[iptKey]!);
  }
  const rowsS = axisSort(rows);
  const colsS = axisSort(cols);
  // Other fields that vary: the cell's second line names the best of them.
  const otherKeys = group.cfgKeys.filter((k) => k !== bsKey && k !== iptKey && new Set(group.variants.map((v) => String(v.cfg[k]))).size > 1);
  const abbr = abbreviations(group, otherKeys);

  const cellBest = new Map<string, { v: Variant; count: number }>();
  for (const v of group.variants) { // ranked: the first one seen in a cell is its best
    const key = `${v.cfg[bsKey]}|${v.cfg[iptKey]}`;
    const c = cellBest.get(key);
    if (c) c.count++;
    else cellBest.set(key, { v, count: 1 });
  }
  const complete = [...cellBest.values()].filter((c) => c.v.complete).map((c) => c.v.score);
  const scores = complete.length ? complete : [...cellBest.values()].map((c) => c.v.score);
  const lo = Math.min(...scores);
  const hi = Math.max(...scores);
  const errorCells = new Set(group.errors.map((e) => `${e.cfg?.[bsKey]}|${e.cfg?.[iptKey]}`));

  const left = 104;
  const top = 58;
  const gridW = colsS.length * CELL_W;
  const gridH = rowsS.length * CELL_H;
  // Small grids still leave room for the axis titles and the legend.
  const areaW = Math.max(gridW, 300);
  const areaH = Math.max(gridH, 150);
  const width = left + areaW + 20;
  const height = top + areaH + 96;
  const parts: string[] = [];
  parts.push(`<text class="axis-title" x="${left + Math.max(gridW / 2, 80)}" y="16" text-anchor="middle">items per thread (${esc(iptKey)})</text>`);
  parts.push(`<text class="axis-title" transform="translate(18 ${top + Math.max(gridH / 2, 75)}) rotate(-90)" text-anchor="middle">workgroup size (${esc(bsKey)})</text>`);
  colsS.forEach((c, j) => parts.push(`<text class="tick" x="${left + j * CELL_W + CELL_W / 2}" y="${top - 10}" text-anchor="middle">${esc(c)}</text>`));
  rowsS.forEach((r, i) => parts.push(`<text class="tick" x="${left - 10}" y="${top + i * CELL_H + CELL_H / 2 + 4}" text-anchor="end">${esc(r)}</text>`));

  const defaultCell = group.defaultVariant ? `${group.defaultVariant.cfg[bsKey]}|${group.defaultVariant.cfg[iptKey]}` : undefined;
  const bestCell = `${group.best.cfg[bsKey]}|${group.best.cfg[iptKey]}`;
  rowsS.forEach((r, i) => colsS.forEach((c, j) => {
    const key = `${r}|${c}`;
    const x = left + j * CELL_W;
    const y = top + i * CELL_H;
    const cell = cellBest.get(key);
    const attrs = `class="cell${key === bestCell ? ' winner' : ''}${key === defaultCell ? ' default' : ''}" data-bs="${esc(r)}" data-ipt="${esc(c)}"`;
    if (!cell) {
      const err = errorCells.has(key);
      parts.push(`<g ${attrs} data-state="${err ? 'error' : 'missing'}"><title>${esc(`${bsKey} ${r}, ${iptKey} ${c}: ${err ? 'every variant failed (see errors)' : 'not measured'}`)}</title>` +
        `<rect x="${x + 1}" y="${y + 1}" width="${CELL_W - 2}" height="${CELL_H - 2}" fill="${err ? '#fbe3e3' : '#f1f1f1'}"/>` +
        `<text class="cell-value" x="${x + CELL_W / 2}" y="${y + CELL_H / 2 + 4}" text-anchor="middle" fill="${err ? '#b00020' : '#999'}">${err ? 'error' : '–'}</text></g>`);
      return;
    }
    const v = cell.v;
    const color = viridis(hi > lo ? (v.score - lo) / (hi - lo) : 1);
    const value = formatGips(v.score);
    const second = otherKeys.map((k) => abbr.get(k)!.get(String(v.cfg[k])) ?? String(v.cfg[k])).join('·');
    const tip = `${bsKey} ${r}, ${iptKey} ${c}: ${value} G items/s${v.complete ? '' : ` (${v.points.size} of ${group.sizes.length} sizes)`}` +
      `${otherKeys.length ? `, best with ${fmtCfg(v.cfg, otherKeys)}` : ''}; ${cell.count} variant${cell.count > 1 ? 's' : ''} here` +
      `${key === bestCell ? '; chosen' : ''}${key === defaultCell ? `; default (${group.defaultVariant!.defaultSource}) is ${formatGips(group.defaultVariant!.score)}` : ''}`;
    parts.push(`<g ${attrs} data-value="${esc(value)}"><title>${esc(tip)}</title>` +
      `<rect x="${x + 1}" y="${y + 1}" width="${CELL_W - 2}" height="${CELL_H - 2}" fill="${color.fill}"/>` +
      `<text class="cell-value" x="${x + CELL_W / 2}" y="${y + (second ? 18 : CELL_H / 2 + 5)}" text-anchor="middle" fill="${color.text}">${key === bestCell ? '★ ' : ''}${esc(value)}${v.complete ? '' : '*'}</text>` +
      (second ? `<text class="cell-sub" x="${x + CELL_W / 2}" y="${y + 33}" text-anchor="middle" fill="${color.text}">${esc(second)}</text>` : '') +
      '</g>');
  }));
  // Marks on top of the cells, so neighbours do not cover them.
  const mark = (key: string | undefined, cls: string, inset: number): void => {
    if (!key) return;
    const [r, c] = key.split('|');
    const i = rowsS.findIndex((x) => String(x) === r);
    const j = colsS.findIndex((x) => String(x) === c);
    if (i < 0 || j < 0) return;
    parts.push(`<rect class="${cls}" x="${left + j * CELL_W + inset}" y="${top + i * CELL_H + inset}" width="${CELL_W - 2 * inset}" height="${CELL_H - 2 * inset}" fill="none"/>`);
  };
  mark(defaultCell, 'mark-default', 4);
  mark(bestCell, 'mark-winner', 1.5);

  // Legend: colour scale, then the marks.
  const ly = top + areaH + 26;
  const lw = Math.min(220, Math.max(160, gridW - 130));
  const gid = `grad-${index}`;
  parts.push(`<defs><linearGradient id="${gid}" x1="0" x2="1" y1="0" y2="0">${VIRIDIS.map((_, k) => `<stop offset="${num(k / (VIRIDIS.length - 1))}" stop-color="${viridis(k / (VIRIDIS.length - 1)).fill}"/>`).join('')}</linearGradient></defs>`);
  parts.push(`<rect x="${left}" y="${ly}" width="${lw}" height="12" fill="url(#${gid})"/>`);
  parts.push(`<text class="tick" x="${left}" y="${ly + 28}" text-anchor="start">${esc(formatGips(lo))}</text>`);
  parts.push(`<text class="tick" x="${left + lw}" y="${ly + 28}" text-anchor="end">${esc(formatGips(hi))}</text>`);
  parts.push(`<text class="tick" x="${left + lw / 2}" y="${ly + 28}" text-anchor="middle">G items/s</text>`);
  const mx = left + lw + 24;
  parts.push(`<rect class="mark-winner" x="${mx}" y="${ly - 2}" width="16" height="16" fill="none"/><text class="tick" x="${mx + 22}" y="${ly + 11}">★ chosen</text>`);
  if (group.defaultVariant) parts.push(`<rect class="mark-default" x="${mx}" y="${ly + 22}" width="16" height="16" fill="none"/><text class="tick" x="${mx + 22}" y="${ly + 35}">default</text>`);

  const svg = `<svg class="heatmap" role="img" aria-label="${esc(`heatmap of ${group.label} ${group.type}: ${bsKey} by ${iptKey}`)}" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">${parts.join('')}</svg>`;
  const notes: string[] = ['Each cell: the best score over the configs with that workgroup size and items per thread'];
  if (otherKeys.length) {
    const legend = otherKeys.map((k) => [...abbr.get(k)!].filter(([v, s]) => v !== s).map(([v, s]) => `${esc(s)} = ${esc(v)}`).join(', ')).filter(Boolean).join('; ');
    notes.push(`; its second line names that config's ${otherKeys.map(esc).join(' · ')}${legend ? ` (${legend})` : ''}`);
  }
  notes.push('. * = not measured at every size.');
  return { svg, caption: notes.join(''), width };
}

// ---------------------------------------------------------------------------------------------
// Throughput against input size

const CHART_W = 600;

function sizeChart(group: ReportGroup): string {
  const W = CHART_W;
  const H = 380;
  const m = { l: 70, r: 24, t: 64, b: 58 };
  const pw = W - m.l - m.r;
  const ph = H - m.t - m.b;
  const sizes = group.sizes;
  const lx = sizes.map((s) => Math.log2(s));
  const x0 = Math.min(...lx);
  const x1 = Math.max(...lx);
  const pad = 22; // keeps the end points off the axes
  const X = (s: number): number => (x1 > x0 ? m.l + pad + ((Math.log2(s) - x0) / (x1 - x0)) * (pw - 2 * pad) : m.l + pw / 2);
  const envelope = sizes.map((s) => Math.max(...group.variants.map((v) => v.points.get(s)?.itemsPerSecond ?? 0)));
  const ticks = niceTicks((Math.max(...envelope) / 1e9) * 1.04);
  const yMax = ticks[ticks.length - 1]!;
  const Y = (ips: number): number => m.t + ph - (ips / 1e9 / yMax) * ph;

  const parts: string[] = [];
  for (const t of ticks) {
    parts.push(`<line class="grid" x1="${m.l}" x2="${m.l + pw}" y1="${num(Y(t * 1e9))}" y2="${num(Y(t * 1e9))}"/>`);
    parts.push(`<text class="tick" x="${m.l - 8}" y="${num(Y(t * 1e9) + 4)}" text-anchor="end">${esc(+t.toPrecision(6))}</text>`);
  }
  for (const s of sizes) {
    parts.push(`<line class="grid" x1="${num(X(s))}" x2="${num(X(s))}" y1="${m.t}" y2="${m.t + ph}"/>`);
    parts.push(`<text class="tick" x="${num(X(s))}" y="${m.t + ph + 18}" text-anchor="middle">${esc(formatSize(s))}</text>`);
  }
  parts.push(`<line class="axis" x1="${m.l}" x2="${m.l + pw}" y1="${m.t + ph}" y2="${m.t + ph}"/><line class="axis" x1="${m.l}" x2="${m.l}" y1="${m.t}" y2="${m.t + ph}"/>`);
  parts.push(`<text class="axis-title" x="${m.l + pw / 2}" y="${H - 14}" text-anchor="middle">input size (elements)</text>`);
  parts.push(`<text class="axis-title" transform="translate(18 ${m.t + ph / 2}) rotate(-90)" text-anchor="middle">throughput (G items/s)</text>`);

  const line = (pts: [number, number][], cls: string): string =>
    pts.length > 1 ? `<polyline class="${cls}" fill="none" points="${pts.map(([x, y]) => `${num(x)},${num(y)}`).join(' ')}"/>` : '';
  const seriesPts = (v: Variant): [number, number][] => sizes.filter((s) => v.points.has(s)).map((s) => [X(s), Y(v.points.get(s)!.itemsPerSecond)]);
  const dots = (v: Variant, cls: string, label: string, shape: 'circle' | 'square'): string => sizes.filter((s) => v.points.has(s)).map((s) => {
    const p = v.points.get(s)!;
    const tip = `<title>${esc(`${label}, ${formatSize(s)}: ${formatGips(p.itemsPerSecond)} G items/s, cv ${pct(p.cv)}`)}</title>`;
    const x = X(s);
    const y = Y(p.itemsPerSecond);
    return shape === 'circle'
      ? `<circle class="${cls}" cx="${num(x)}" cy="${num(y)}" r="4.5">${tip}</circle>`
      : `<rect class="${cls}" x="${num(x - 4.5)}" y="${num(y - 4.5)}" width="9" height="9">${tip}</rect>`;
  }).join('');

  const others = group.variants.filter((v) => v !== group.best && v !== group.defaultVariant).slice(0, 60);
  for (const v of others) parts.push(line(seriesPts(v), 's-other'));
  const envDiffers = sizes.some((s, k) => (group.best.points.get(s)?.itemsPerSecond ?? 0) < envelope[k]! * 0.999);
  if (envDiffers) parts.push(line(sizes.map((s, k) => [X(s), Y(envelope[k]!)]), 's-envelope'));
  const def = group.defaultVariant;
  const defIsBest = def === group.best;
  if (def && !defIsBest) {
    parts.push(line(seriesPts(def), 's-default'));
    parts.push(dots(def, 'p-default', 'default', 'square'));
  }
  parts.push(line(seriesPts(group.best), 's-chosen'));
  parts.push(dots(group.best, 'p-chosen', 'chosen', 'circle'));

  // Legend above the plot, in one row.
  const legend: [string, string][] = [['s-chosen', defIsBest ? 'chosen (= default)' : 'chosen']];
  if (def && !defIsBest) legend.push(['s-default', 'default']);
  if (envDiffers) legend.push(['s-envelope', 'best at each size']);
  if (others.length) legend.push(['s-other', 'other configs']);
  let lx0 = m.l;
  for (const [cls, label] of legend) {
    parts.push(`<line class="${cls}" x1="${lx0}" x2="${lx0 + 28}" y1="24" y2="24"/><text class="legend" x="${lx0 + 34}" y="28">${esc(label)}</text>`);
    lx0 += 34 + label.length * 7.2 + 22;
  }
  parts.push(`<text class="note" x="${m.l}" y="48">${esc(`chosen: ${fmtCfg(group.best.cfg)}`)}</text>`);
  return `<svg class="sizechart" role="img" aria-label="${esc(`throughput against input size, ${group.label} ${group.type}`)}" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}">${parts.join('')}</svg>`;
}

// ---------------------------------------------------------------------------------------------
// Tables and page

function topTable(group: ReportGroup, top: number): string {
  const best = group.best;
  const rows = group.variants.slice(0, top);
  const def = group.defaultVariant;
  const defRank = def ? group.variants.indexOf(def) : -1;
  const keys = group.cfgKeys;
  const head = `<tr><th>#</th>${keys.map((k) => `<th>${esc(k)}</th>`).join('')}<th class="n" title="geometric mean of items/s over the sizes">score<br><span class="unit">G items/s</span></th>` +
    `${group.sizes.map((s) => `<th class="n">${esc(formatSize(s))}<br><span class="unit">G items/s</span></th>`).join('')}<th class="n">max cv</th><th class="n">ratio to best</th><th></th></tr>`;
  const row = (v: Variant, rank: number): string => {
    const marks = [v === best ? '<span class="tag tag-chosen">★ chosen</span>' : '', v.defaultSource ? `<span class="tag tag-default">default (${esc(v.defaultSource)})</span>` : ''].join(' ');
    return `<tr class="${v === best ? 'row-chosen' : ''}${v.defaultSource ? ' row-default' : ''}"><td class="n">${rank + 1}</td>` +
      keys.map((k) => `<td>${esc(v.cfg[k] ?? '')}</td>`).join('') +
      `<td class="n"><b>${esc(formatGips(v.score))}</b>${v.complete ? '' : ` <span class="unit">(${v.points.size}/${group.sizes.length} sizes)</span>`}</td>` +
      group.sizes.map((s) => {
        const p = v.points.get(s);
        return `<td class="n">${p ? esc(formatGips(p.itemsPerSecond)) : '–'}</td>`;
      }).join('') +
      `<td class="n${v.maxCv > 0.05 ? ' noisy' : ''}">${esc(pct(v.maxCv))}</td><td class="n">${esc((v.score / best.score).toFixed(3))}</td><td>${marks}</td></tr>`;
  };
  let body = rows.map((v, k) => row(v, k)).join('');
  if (def && defRank >= top) body += `${defRank > top ? `<tr class="gap"><td colspan="${keys.length + group.sizes.length + 5}">…</td></tr>` : ''}${row(def, defRank)}`;
  return `<table class="top"><thead>${head}</thead><tbody>${body}</tbody></table>`;
}

function errorsTable(errors: readonly ReportError[]): string {
  return `<table class="errors"><thead><tr><th>algorithm</th><th>config</th><th class="n">size</th><th>message</th><th>file</th></tr></thead><tbody>` +
    errors.map((e) => `<tr><td class="nw">${esc(e.group ?? e.name)}</td><td>${esc(e.cfg ? fmtCfg(e.cfg) : e.name)}</td><td class="n">${e.size !== undefined ? esc(formatSize(e.size)) : '–'}</td>` +
      `<td class="msg">${esc(e.message)}</td><td class="nw">${esc(e.file)}</td></tr>`).join('') + '</tbody></table>';
}

function groupSection(group: ReportGroup, index: number, top: number): string {
  const best = group.best;
  const def = group.defaultVariant;
  const summary: string[] = [
    `<b>chosen</b>: ${esc(fmtCfg(best.cfg))}, <b>${esc(formatGips(best.score))}</b> G items/s`,
  ];
  if (def) {
    summary.push(def === best
      ? `<b>default</b> (${esc(def.defaultSource)}): the same config`
      : `<b>default</b> (${esc(def.defaultSource)}): ${esc(fmtCfg(def.cfg))}, ${esc(formatGips(def.score))} G items/s; chosen / default = <b>${esc((best.score / def.score).toFixed(3))}×</b>`);
  } else if (group.defaultMissing) {
    summary.push(`<b>default</b>: ${esc(fmtCfg(group.defaultMissing))} was not measured`);
  } else {
    summary.push('<b>default</b>: not known for this target (run <code>wgprim report</code> on the device that measured it, or pass <code>--defaults</code>)');
  }
  const complete = group.variants.filter((v) => v.complete).length;
  const facts = `${group.variants.length} config${group.variants.length === 1 ? '' : 's'} measured (${complete} at every size), ${group.sizes.length} size${group.sizes.length > 1 ? 's' : ''}` +
    `${group.errors.length ? `, <span class="err">${group.errors.length} failed</span>` : ''}`;
  let charts = '';
  if (group.bsKey && group.iptKey) {
    const h = heatmap(group, index);
    charts += `<figure class="chart" style="width:${h.width}px">${h.svg}<figcaption>${h.caption}</figcaption></figure>`;
  }
  charts += `<figure class="chart" style="width:${CHART_W}px">${sizeChart(group)}<figcaption>Throughput of each config against input size (log scale); hover a point for its figures.</figcaption></figure>`;
  return `<section class="group" id="${esc(group.id)}"><h3>${esc(group.label)} <span class="type">${esc(group.type)}</span></h3>` +
    `<p class="summary">${summary.join('<br>')}</p><p class="facts">${facts}</p>` +
    `<div class="charts">${charts}</div>${topTable(group, top)}</section>`;
}

const CSS = `
:root { color-scheme: light; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; color: #1d1d1f; background: #fafafa; }
main { max-width: 1260px; margin: 0 auto; padding: 20px 24px 48px; }
h1 { font-size: 24px; margin: 0 0 4px; }
h2 { font-size: 20px; margin: 36px 0 8px; padding-top: 12px; border-top: 2px solid #ddd; }
h3 { font-size: 17px; margin: 0 0 6px; }
h3 .type { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 15px; background: #eef; padding: 1px 6px; border-radius: 4px; }
.sub, .facts, figcaption, .unit { color: #666; }
.facts { margin: 0 0 10px; font-size: 13px; }
.summary { margin: 0 0 4px; }
code { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 12.5px; background: #f0f0f0; padding: 0 3px; border-radius: 3px; }
nav ul { margin: 6px 0; padding-left: 20px; }
nav a { color: #0b57d0; text-decoration: none; }
dl.adapter { display: grid; grid-template-columns: max-content 1fr; gap: 2px 14px; margin: 8px 0 12px; }
dl.adapter dt { color: #666; }
dl.adapter dd { margin: 0; }
section.group { background: #fff; border: 1px solid #e2e2e2; border-radius: 8px; padding: 16px 18px; margin: 16px 0; }
.charts { display: flex; flex-wrap: wrap; gap: 18px 28px; align-items: flex-start; margin: 8px 0 12px; }
figure.chart { margin: 0; max-width: 100%; }
.nw { white-space: nowrap; }
figure.chart svg { display: block; max-width: 100%; height: auto; }
figcaption { font-size: 12px; margin-top: 2px; }
svg text { font-family: system-ui, -apple-system, "Segoe UI", Roboto, Arial, sans-serif; }
.tick { font-size: 12px; fill: #444; }
.axis-title { font-size: 13px; fill: #222; font-weight: 600; }
.legend { font-size: 12.5px; fill: #222; }
.note { font-size: 12px; fill: #555; }
.cell-value { font-size: 13px; font-weight: 600; font-variant-numeric: tabular-nums; }
.cell-sub { font-size: 10.5px; opacity: .9; }
.mark-winner { stroke: #e4002b; stroke-width: 3; }
.mark-default { stroke: #111; stroke-width: 2; stroke-dasharray: 5 3; }
.grid { stroke: #e6e6e6; stroke-width: 1; }
.axis { stroke: #333; stroke-width: 1; }
.s-chosen { stroke: #1f63b4; stroke-width: 3; fill: none; }
.p-chosen { fill: #1f63b4; stroke: #fff; stroke-width: 1.5; }
.s-default { stroke: #e8710a; stroke-width: 2.5; stroke-dasharray: 7 4; fill: none; }
.p-default { fill: #e8710a; stroke: #fff; stroke-width: 1.5; }
.s-envelope { stroke: #2e9e4f; stroke-width: 2; stroke-dasharray: 2 3; fill: none; }
.s-other { stroke: #c4c4c4; stroke-width: 1; fill: none; }
table { border-collapse: collapse; font-size: 13px; margin: 4px 0; }
th, td { padding: 3px 9px; border-bottom: 1px solid #eee; text-align: left; vertical-align: top; }
th { font-weight: 600; background: #f5f5f7; border-bottom: 1px solid #ddd; }
td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; }
table.top td.n { text-align: right; }
tr.row-chosen td { background: #eef4ff; }
tr.row-default td { background: #fff4e8; }
tr.row-chosen.row-default td { background: #eef4ff; }
tr.gap td { color: #999; text-align: center; }
.tag { font-size: 11.5px; padding: 1px 6px; border-radius: 9px; white-space: nowrap; }
.tag-chosen { background: #1f63b4; color: #fff; }
.tag-default { background: #e8710a; color: #fff; }
.noisy { color: #b00020; }
.err { color: #b00020; }
table.errors td.msg { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 12px; white-space: pre-wrap; max-width: 620px; }
footer { margin-top: 32px; color: #777; font-size: 12px; }
`;

/** The whole page. */
export function renderReport(inputs: readonly ReportInput[], options: ReportOptions = {}): string {
  const targets = analyzeReport(inputs, options);
  const generated = options.generated ?? new Date();
  const top = options.top ?? 10;
  const title = options.title ?? 'wgprim tuning report';
  const files = targets.flatMap((t) => t.files);
  const dates = [...new Set(files.map((f) => f.date).filter(Boolean))].sort();

  const out: string[] = [];
  out.push(`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
    `<title>${esc(title)}</title><style>${CSS}</style></head><body><main>`);
  out.push(`<header><h1>${esc(title)}</h1><p class="sub">generated ${esc(generated.toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC'))} by wgprim ${esc(WGPRIM_VERSION)}` +
    ` from ${files.length} file${files.length === 1 ? '' : 's'}${dates.length ? `, measured ${esc(dates.length > 1 ? `${dates[0]} to ${dates[dates.length - 1]}` : dates[0])}` : ''}.` +
    ` Score of a config: the geometric mean of its items/s over the sizes measured; configs missing a size rank after the others.</p></header>`);

  out.push('<nav><ul>' + targets.map((t) => `<li><a href="#${esc(t.id)}">${esc(targetName(t.target))}</a>: ` +
    t.groups.map((g) => `<a href="#${esc(g.id)}">${esc(`${g.label} ${g.type}`)}</a>`).join(', ') +
    (t.errors.length ? `, <a href="#${esc(t.id)}-errors" class="err">${t.errors.length} error${t.errors.length > 1 ? 's' : ''}</a>` : '') + '</li>').join('') + '</ul></nav>');

  let index = 0;
  for (const t of targets) {
    const versions = [...new Set(t.files.map((f) => f.version).filter(Boolean))];
    const tDates = [...new Set(t.files.map((f) => f.date).filter(Boolean))].sort();
    const row = (k: string, v: string): string => (v ? `<dt>${esc(k)}</dt><dd>${v}</dd>` : '');
    out.push(`<section class="target" id="${esc(t.id)}"><h2>${esc(targetName(t.target))}</h2><dl class="adapter">` +
      row('vendor', esc(t.target.vendor || '(blank)')) + row('architecture', esc(t.target.architecture || '(blank)')) +
      row('device', esc(t.target.device || '(blank)')) + row('description', esc(t.target.description)) +
      row('subgroup size', esc([...new Set(t.files.map((f) => f.subgroups).filter((s) => s && s !== '..'))].join(', '))) +
      row('measured', esc(tDates.join(', '))) + row('wgprim version', esc(versions.join(', '))) +
      row('timing', esc([...new Set(t.files.map((f) => f.timing).filter(Boolean))].join(', '))) +
      row('host', esc([...new Set(t.files.map((f) => f.host).filter(Boolean))].join(', '))) +
      row('files', t.files.map((f) => `<code>${esc(f.file)}</code>`).join(' ')) + '</dl>');
    for (const g of t.groups) out.push(groupSection(g, index++, top));
    if (t.errors.length) out.push(`<h3 id="${esc(t.id)}-errors" class="err">Errors (${t.errors.length})</h3>${errorsTable(t.errors)}`);
    if (t.skipped.length) out.push(`<details><summary>${t.skipped.length} entries left out</summary><ul>${t.skipped.map((s) => `<li><code>${esc(s)}</code></li>`).join('')}</ul></details>`);
    out.push('</section>');
  }
  if (targets.length === 0) out.push('<p>No benchmark files given.</p>');
  out.push(`<footer>wgprim ${esc(WGPRIM_VERSION)} · <code>wgprim report</code> · self-contained: no scripts, fonts or network.</footer></main></body></html>\n`);
  return out.join('\n');
}

function targetName(t: ReportTarget): string {
  return [t.vendor || '?', t.architecture || '-', t.device || '-'].join(' / ');
}
