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
import { WGPRIM_VERSION } from '../bench/gbench.js';
import { NO_TABLE_ALGORITHMS } from './measurements.js';
import { analyzeReport, type ReportError, type ReportGroup, type ReportInput, type ReportOptions, type ReportTarget, type Variant } from './report-data.js';
import { CHART_W, esc, fmtCfg, formatGips, formatSize, heatmap, pct, sizeChart } from './report-charts.js';

export * from './report-data.js';
export { esc, formatGips, formatSize } from './report-charts.js';

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
  } else if (NO_TABLE_ALGORITHMS.includes(group.algo)) {
    summary.push('<b>default</b>: none (a threshold stage times an algorithm\'s paths at a ladder of sizes; its configs are the tuned ones)');
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
