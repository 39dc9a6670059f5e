// The benchmark table, and the ratio to CUB's anchors on the H200.
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type BenchRecord } from '../bench/gbench.js';
import { BENCHMARKS } from '../algorithms.js';
import { type ElementType } from '../wgsl/types.js';
import { formatCount } from './parse.js';

export interface Anchor {
  readonly algo: string;
  readonly type: string;
  readonly n: number;
  readonly ms: number;
  readonly gitems_per_s: number;
}

/**
 * The CUB figures this package ships for a device (`anchors/cub-<device>.json`, e.g.
 * `cub-nvidia-h200.json`), found beside the installed package (src/cli and dist/cli both sit two
 * levels below its root), not the current directory.
 */
export function packageAnchorsFile(device: string): string {
  return fileURLToPath(new URL(`../../anchors/cub-${device.replace(/[^A-Za-z0-9_.-]/g, '_')}.json`, import.meta.url));
}

/** The anchors file's results, or undefined (quietly) when it is absent or unreadable. */
export function loadAnchors(file: string): Anchor[] | undefined {
  try {
    const data = JSON.parse(fs.readFileSync(file, 'utf8')) as { results?: Anchor[] };
    return Array.isArray(data.results) ? data.results : undefined;
  } catch {
    return undefined;
  }
}

/** The anchors' type of a record: `key:value` for sorts of pairs (our pairs carry u32 values). */
export function anchorType(r: BenchRecord): string {
  // The segmented sort's anchors name the segment length: `u32/seg1024`.
  const own = BENCHMARKS.find((b) => b.name === r.algorithm)?.anchorType;
  if (own) return own(r.type as ElementType);
  const seg = /segment_length:(\d+)/.exec(r.name);
  if ((r.algorithm === 'segmented_radix_sort' || r.algorithm === 'segmented_reduce') && seg) return `${r.type}/seg${seg[1]}`;
  // The segmented reduce's variable segments: `u32/segvar_avg1000`.
  const mean = /segment_mean:(\d+)/.exec(r.name);
  if (r.algorithm === 'segmented_reduce_variable' && mean) return `${r.type}/segvar_avg${mean[1]}`;
  return r.algorithm === 'radix_sort_pairs' ? `${r.type}:u32` : r.type;
}

/** Our items/s over CUB's at the same algorithm (the benchmark's CUB name where it has one), type and size. */
export function anchorRatio(anchors: readonly Anchor[] | undefined, r: BenchRecord): number | undefined {
  const type = anchorType(r);
  const spec = BENCHMARKS.find((b) => b.name === r.algorithm);
  if (spec?.anchor === null) return undefined;
  const algo = spec?.anchor ?? r.algorithm;
  const same = anchors?.filter((x) => x.algo === algo && x.n === r.size) ?? [];
  // CUB's type may name what it ran beside the keys (`u32/flags_u8`, `u32:u32`): one such entry is the match.
  const variants = same.filter((x) => x.type.startsWith(`${type}/`) || x.type.startsWith(`${type}:`));
  const a = same.find((x) => x.type === type) ?? (variants.length === 1 ? variants[0] : undefined);
  if (!a || !(r.stats.median > 0)) return undefined;
  // Same n, so a ratio of times: CUB's items may count something else (lower_bound: its queries).
  if (typeof a.ms === 'number' && a.ms > 0) return a.ms / r.stats.median;
  return r.size / (r.stats.median / 1e3) / (a.gitems_per_s * 1e9);
}

/**
 * Rows use the median per-call time (robust to outliers, and what the CUB anchors report);
 * the GBench file's real_time and items_per_second use the mean, as GBench does. A median
 * marked `*` was not stable (see stability.ts).
 */
export function benchTable(records: readonly BenchRecord[], anchors?: readonly Anchor[]): string {
  const header = ['algorithm', 'type', 'size', 'cfg', 'median ms', 'GB/s', 'Gitems/s', 'cv', 'timing'];
  if (anchors) header.push('vs CUB');
  const rows = records.map((r) => {
    const s = r.stats.median / 1e3;
    const cfg = /cfg:(\{[^}]*\})/.exec(r.name)?.[1] ?? '';
    const row = [
      r.algorithm, r.type, formatCount(r.size), `${cfg}${r.configSource === 'heuristic' ? '' : ` (${r.configSource})`}`,
      `${r.stats.median.toFixed(4)}${r.stability && !r.stability.stable ? '*' : ''}`, (r.bytesPerCall / s / 1e9).toFixed(2), (r.size / s / 1e9).toFixed(3),
      r.stats.cv.toFixed(3), r.method === 'timestamp-query' ? 'gpu' : 'wall',
    ];
    if (anchors) {
      const ratio = anchorRatio(anchors, r);
      row.push(ratio === undefined ? '-' : `${ratio.toFixed(2)}x`);
    }
    return row;
  });
  const table = renderTable(header, rows, new Set([2, 4, 5, 6, 7, 9]));
  return records.some((r) => r.stability && !r.stability.stable) ? `${table}\n* not stable: the timings did not settle or kept slow batches (see the warnings)` : table;
}

export function renderTable(header: readonly string[], rows: readonly (readonly string[])[], rightAligned = new Set<number>()): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    cells.map((c, i) => (rightAligned.has(i) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join('  ').trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}
