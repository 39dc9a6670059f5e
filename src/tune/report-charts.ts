// `wgprim report`'s drawings: the heatmap of workgroup size by items per thread and the chart of
// throughput against input size, as inline SVG, with the number formats they share. Browser-safe.
import { type FlatConfig, type ReportGroup, type Variant } from './report-data.js';

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

export const pct = (cv: number): string => `${(cv * 100).toFixed(cv < 0.1 ? 1 : 0)}%`;
export const fmtCfg = (cfg: FlatConfig, keys: readonly string[] = Object.keys(cfg)): string =>
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

export function heatmap(group: ReportGroup, index: number): { svg: string; caption: string; width: number } {
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

export const CHART_W = 600;

export function sizeChart(group: ReportGroup): string {
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

