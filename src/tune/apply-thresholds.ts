// The rows a measured threshold sets (create-optimization): the radix sort's block-sort rows'
// maxCount and its LSD rows' decoupledMaxCount, from the threshold stage's measurements.
//
// Thresholds: where the files hold radix_sort_threshold measurements for a (target, type
//   class), its radixSortBlockSort row's maxCount is the measured threshold (threshold.ts: the
//   largest size where the block-sort path beat onesweep beyond the noise rule; 0 if none); with
//   no block-sort group in the files, the row is the block-sort config the threshold measured.
//   A vendor row takes the smallest threshold of its targets (where all of them measured one).
//   Thresholds carry a value class as the rows do (`value_type` of their entries): keys only
//   (`empty`, the stage's default) sets maxCount of the keys-only rows (`valueBytes: 0`), pairs
//   (`u32`, settings `benchmarks` with `radix_sort_pairs`) of the pairs rows (`valueBytes: 4`).
//   A row of a value class with no threshold keeps its config's maxCount; where a threshold of
//   another value class of its key class was measured, its note says so (`not a threshold`).
//   The stage's second threshold, where it measured one (a reduce-then-scan LSD row on a vendor
//   with forward progress), is decoupledMaxCount of the radixSort row of the same class (the
//   largest size where decoupled look-back beat the row's reduce-then-scan); without a radixSort
//   group in the files, the row is the LSD config the threshold measured.
import { type TunedEntry } from '../config/types.js';
import { configKey, type TunedAlgorithm } from '../tables.js';
import { type TypeClass } from '../wgsl/types.js';
import { type RadixSortBlockSortConfig } from '../device/radix-sort/block-sort-config.js';
import { type RadixSortConfig } from '../device/radix-sort/config.js';
import { configLabel, geomean, typeClassLabel, valueClassLabel } from './measurements.js';
import { type PathFigures } from './threshold-rule.js';
import { lookbackNote, thresholdNote, type ThresholdResult } from './threshold-read.js';
import { launchConfigKey } from './threshold-merge.js';
import { GENERAL_TABLE, SMALL_TABLE } from './threshold.js';
import { type CandidateScore, type GroupResult } from './create-optimization.js';

export const round = (x: number, digits: number): number => Number(x.toPrecision(digits));
export const sizeEvidence = (sizes: readonly number[]): number | readonly number[] => (sizes.length === 1 ? sizes[0]! : [...sizes]);

const sameClass = (a: TypeClass, b: TypeClass): boolean => a.float === b.float && a.bytes === b.bytes && a.valueBytes === b.valueBytes && a.channels === b.channels;

/**
 * The row of a table with no group in the data, made from a threshold's measurements: `config`
 * (the one the threshold measured, with its threshold), its figures at each ladder size (items/s:
 * their geomean; cv: the largest), points named by the stage's `path`.
 */
function thresholdRow(algorithm: TunedAlgorithm, path: string, t: ThresholdResult, config: unknown, figures: readonly (readonly [number, PathFigures])[], note: string): GroupResult {
  const ips = geomean(figures.map(([, f]) => f.itemsPerSecond));
  const cv = Math.max(...figures.map(([, f]) => f.cv));
  const sizes = figures.map(([size]) => size);
  const candidate: CandidateScore = { config, configKey: configKey(algorithm, config), score: ips, itemsPerSecond: ips, cv, points: sizes.length, eligible: true };
  const entry: TunedEntry<unknown> = {
    target: t.target, typeClass: t.typeClass, config,
    evidence: { itemsPerSecond: round(ips, 4), cv: round(cv, 3), size: sizeEvidence(sizes), date: t.date, version: t.version, note },
  };
  return {
    level: 'target', algorithm, target: t.target, targetKey: t.targetKey, typeClass: t.typeClass,
    points: sizes.map((n) => `path=${path}@${n}`), sizes, candidates: [candidate], winner: candidate, entry, fromThreshold: true,
  };
}

/**
 * Sets maxCount of the radixSortBlockSort rows from measured thresholds (see the rule above);
 * a threshold whose (target, type class) has no block-sort row gets one of its own.
 */
export function applyThresholds(groups: readonly GroupResult[], thresholds: readonly ThresholdResult[], warnings: string[]): GroupResult[] {
  const out = [...groups];
  for (const t of thresholds) {
    const i = out.findIndex((g) => g.level === 'target' && g.algorithm === SMALL_TABLE && g.targetKey === t.targetKey && sameClass(g.typeClass, t.typeClass));
    const g = i >= 0 ? out[i] : undefined;
    if (g?.entry) {
      const mismatch = launchConfigKey(SMALL_TABLE, g.entry.config) !== launchConfigKey(SMALL_TABLE, t.blockSortConfig);
      if (mismatch) {
        warnings.push(`${SMALL_TABLE} ${t.targetKey} ${typeClassLabel(t.typeClass)}: the threshold was measured with ${configLabel(SMALL_TABLE, t.blockSortConfig)}, not with the row's ${configLabel(SMALL_TABLE, g.entry.config)}: install the row and run radix_sort_threshold again`);
      }
      const note = `${g.entry.evidence.note ? `${g.entry.evidence.note}; ` : ''}${thresholdNote(t)}${mismatch ? ` (measured with ${configLabel(SMALL_TABLE, t.blockSortConfig)}, not this config)` : ''}`;
      out[i] = { ...g, threshold: t, entry: { ...g.entry, config: { ...(g.entry.config as object), maxCount: t.maxCount }, evidence: { ...g.entry.evidence, note } } };
      continue;
    }
    // No block-sort group: the row is the config the threshold measured; its figures are the block-sort path's over the ladder.
    const row = { ...thresholdRow(SMALL_TABLE, 'block_sort', t, { ...t.blockSortConfig, maxCount: t.maxCount }, t.points.map((p) => [p.size, p.blockSort]),
      `the block-sort config the threshold was measured with (items/s: its geomean over the ladder); ${thresholdNote(t)}`), threshold: t };
    if (i >= 0) out[i] = row;
    else out.push(row);
  }
  // Block-sort rows of a value class no threshold was measured for (a vendor row: on some of its
  // targets), where one of another value class of the same key class was (e.g. pairs rows of a
  // keys-only threshold stage): a threshold does not carry over between value classes (values
  // change both paths' speed), so the row keeps its config's maxCount; the note says so.
  for (let i = 0; i < out.length; i++) {
    const g = out[i]!;
    if (g.algorithm !== SMALL_TABLE || !g.entry || g.threshold) continue;
    const targets = g.level === 'vendor' ? g.devices ?? [] : [g.targetKey];
    if (g.level === 'vendor' && targets.every((d) => thresholds.some((t) => t.targetKey === d && sameClass(t.typeClass, g.typeClass)))) continue;
    const others = thresholds.filter((t) => targets.includes(t.targetKey) && t.typeClass.float === g.typeClass.float && t.typeClass.bytes === g.typeClass.bytes && !sameClass(t.typeClass, g.typeClass));
    if (!others.length) continue;
    const maxCount = (g.entry.config as RadixSortBlockSortConfig).maxCount;
    const measured = [...new Set(others.map((t) => t.typeClass.valueBytes ?? 0))].sort();
    const what = measured.length === 1 && measured[0] === 0 ? 'keys only' : `value classes ${measured.map(valueClassLabel).join(', ')} only`;
    const hint = g.typeClass.valueBytes === 4 ? '; add radix_sort_pairs to its benchmarks' : g.typeClass.valueBytes === 0 ? '; add radix_sort_keys to its benchmarks' : '';
    const note = `${g.entry.evidence.note ? `${g.entry.evidence.note}; ` : ''}maxCount ${maxCount}: the measured config's, not a threshold (radix_sort_threshold measured ${what} here: its rows are valueBytes ${measured.join(', ')}${hint})`;
    out[i] = { ...g, entry: { ...g.entry, evidence: { ...g.entry.evidence, note } } };
  }
  // Vendor rows: the smallest threshold of their targets, where every target measured one.
  for (let i = 0; i < out.length; i++) {
    const g = out[i]!;
    if (g.level !== 'vendor' || g.algorithm !== SMALL_TABLE || !g.entry || !g.devices) continue;
    const ts = g.devices.map((d) => thresholds.find((t) => t.targetKey === d && sameClass(t.typeClass, g.typeClass)));
    if (ts.some((t) => !t)) continue;
    const maxCount = Math.min(...ts.map((t) => t!.maxCount));
    const note = `${g.entry.evidence.note ? `${g.entry.evidence.note}; ` : ''}maxCount ${maxCount}: the smallest measured threshold of its targets (${ts.map((t) => `${t!.targetKey} ${t!.maxCount}`).join(', ')})`;
    out[i] = { ...g, entry: { ...g.entry, config: { ...(g.entry.config as object), maxCount }, evidence: { ...g.entry.evidence, note } } };
  }
  return out;
}

/**
 * Sets decoupledMaxCount of the radixSort rows from the measured lookback thresholds (the LSD
 * path's own: decoupled look-back against the row's reduce-then-scan, `ThresholdResult.lookback`);
 * a threshold whose (target, type class) has no radixSort row gets one of its own (the config it
 * was measured with). A row that is decoupled already is left alone. Vendor rows: the smallest
 * threshold of their targets, where every target measured one.
 */
export function applyLookbackThresholds(groups: readonly GroupResult[], thresholds: readonly ThresholdResult[], warnings: string[]): GroupResult[] {
  const out = [...groups];
  const a = GENERAL_TABLE;
  const withCount = (entry: TunedEntry<unknown>, n: number, part: string): TunedEntry<unknown> =>
    ({ ...entry, config: { ...(entry.config as object), decoupledMaxCount: n }, evidence: { ...entry.evidence, note: entry.evidence.note ? `${entry.evidence.note}; ${part}` : part } });
  for (const t of thresholds) {
    if (!t.lookback) continue;
    const n = t.lookback.decoupledMaxCount;
    const i = out.findIndex((g) => g.level === 'target' && g.algorithm === a && g.targetKey === t.targetKey && sameClass(g.typeClass, t.typeClass));
    const g = i >= 0 ? out[i] : undefined;
    if (g?.entry) {
      if ((g.entry.config as RadixSortConfig).lookback === 'decoupled') continue;
      const mismatch = launchConfigKey(a, g.entry.config) !== launchConfigKey(a, t.onesweepConfig);
      if (mismatch) {
        warnings.push(`${a} ${t.targetKey} ${typeClassLabel(t.typeClass)}: decoupledMaxCount was measured with ${configLabel(a, t.onesweepConfig)}, not with the row's ${configLabel(a, g.entry.config)}: install the row and run radix_sort_threshold again`);
      }
      out[i] = { ...g, entry: withCount(g.entry, n, `${lookbackNote(t)}${mismatch ? ` (measured with ${configLabel(a, t.onesweepConfig)}, not this config)` : ''}`) };
      continue;
    }
    // No radixSort group: the row is the config the threshold measured; its figures are the LSD path's as it runs at each size.
    const row = thresholdRow(a, 'onesweep', t, { ...t.onesweepConfig, decoupledMaxCount: n }, t.lookback.points.map((p) => [p.size, p.size <= n ? p.decoupled : p.onesweep]),
      `the LSD config the threshold was measured with (items/s: its geomean over the ladder, decoupled up to decoupledMaxCount); ${lookbackNote(t)}`);
    if (i >= 0) out[i] = row;
    else out.push(row);
  }
  for (let i = 0; i < out.length; i++) {
    const g = out[i]!;
    if (g.level !== 'vendor' || g.algorithm !== a || !g.entry || !g.devices || (g.entry.config as RadixSortConfig).lookback === 'decoupled') continue;
    const ts = g.devices.map((d) => thresholds.find((t) => t.lookback && t.targetKey === d && sameClass(t.typeClass, g.typeClass)));
    if (ts.some((t) => !t)) continue;
    const n = Math.min(...ts.map((t) => t!.lookback!.decoupledMaxCount));
    out[i] = { ...g, entry: withCount(g.entry, n, `decoupledMaxCount ${n}: the smallest measured threshold of its targets (${ts.map((t) => `${t!.targetKey} ${t!.lookback!.decoupledMaxCount}`).join(', ')})`) };
  }
  return out;
}

