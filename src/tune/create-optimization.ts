// create-optimization: benchmark runs in, tuned tables out (rocPRIM's create_optimization.py).
// Pure functions plus a render step; browser-safe (the CLI reads and writes the files).
//
// The rule, stated once:
// - A group is (target, table, type class). The target is the adapter in the file's context
//   (vendor, architecture, device); the table is the benchmark algorithm's (inclusive and
//   exclusive scan both feed `scan`); the type class is (is float, byte size) of the main type,
//   and for the radix sort tables the value class too (name field `value_type`: `empty` gives
//   `valueBytes: 0`, `u32` gives 4, ...): keys-only and pairs runs are separate groups and rows.
// - A point of a group is one input size together with the name's other fields (for scan:
//   `exclusive`). Runs of one config at one point (several files) are combined: geometric mean
//   of items/s, largest cv.
// - A config is eligible only if it was measured at every point its group measured (so a config
//   that failed, or was skipped, at one size cannot win on the others).
// - Score = geometric mean over the points of items/s (times (bs*ipt)^(1/4) for algorithms that
//   feed a merge: rocPRIM's block-sort bias). No size dominates; inclusive and exclusive scan
//   weigh the same. The best score wins; ties go to the lower cv, then to the config's key.
// - Evidence: itemsPerSecond = the winner's geometric mean of items/s; cv = the largest over its
//   points (not the mean: the acceptance rule of apply-config-improvements needs a bound);
//   size = the sizes; date and version from the files' context.
// - Vendor level: where one vendor has two or more measured targets for a (table, type class),
//   a vendor row is added: the config eligible on every one of them with the best geometric mean
//   of their scores (evidence: geometric means over the devices, largest cv).
// - Thresholds: measured thresholds set the rows' threshold fields (apply-thresholds.ts).
// - Merge (`existing`: the tables already in the output folder, the CLI's default): a row of
//   a (target, type class) the new data does not produce is kept; one it produces is replaced by
//   the fresh row, except radixSortBlockSort's maxCount. That is a threshold, not a launch
//   parameter, and a block-sort sweep run without the radix_sort_threshold stage writes the
//   sweep's default (2^17) with no threshold behind it. So the fresh row's kernels are written
//   with the maxCount whose threshold evidence ranks higher (threshold.ts `withThreshold`, the
//   rule apply-config-improvements uses, the existing row as the old and the fresh one as the
//   new and kernel row): measured (radix_sort_threshold) > set by hand > none; a tie with a
//   threshold on both sides, or with none on either, is the fresh row's. A kept existing
//   maxCount brings its note's maxCount part along, and where the existing row's kernels differ
//   from the fresh row's the note says so ("the old table's row": the folder's) and a warning
//   asks for radix_sort_threshold again. radixSort's decoupledMaxCount is merged by the same rule.
//   A fresh row that only the threshold stage produced (no sweep of its table in the data: its
//   figures are the ladder's) over an existing row with the same kernels keeps the existing row,
//   with the threshold the rule picks.
import { type TargetMatch, type TunedEntry, type TuningEvidence } from '../config/types.js';
import {
  configKey, rowKey, TUNED_ALGORITHMS, type TunedAlgorithm, type TunedTables,
} from '../tables.js';
import { type TypeClass } from '../wgsl/types.js';
import {
  type BenchInput, configLabel, formatSize, geomean, groupBy, type Measurement, type PointValue, pointsOf, readMeasurements, tileFactor, typeClassLabel,
} from './measurements.js';
import { type ConfigObject } from '../device/spec.js';
import { tableTwin } from './registry.js';
import { isThresholdTable } from './threshold.js';
import { launchConfigKey, withThreshold } from './threshold-merge.js';
import { readThresholds, type ThresholdResult } from './threshold-read.js';
import { THRESHOLD_MIN_IMPROVEMENT_PERCENT } from './threshold-rule.js';

import { type OutputFile, renderTable, type TableForm } from './render-tables.js';
import { applyLookbackThresholds, applyThresholds, round, sizeEvidence } from './apply-thresholds.js';

export {
  GENERATED_HEADER, formatGroups, renderTable, renderTableJson, renderTableModule, summarizeGroups, GROUP_HEADER, tableOutputName, type OutputFile, type RenderOptions, type TableForm,
} from './render-tables.js';

export interface CreateOptimizationOptions {
  /**
   * The tables already in the output folder. A row whose (target, type class) the new data
   * does not produce is kept; one it does produce is replaced (radixSortBlockSort: but for a
   * maxCount with better threshold evidence; see the merge rule above and `mergeRows`).
   */
  readonly existing?: TunedTables;
  /** `module` (default): the package's tables, in their algorithms' folders; `json`: a user's folder. */
  readonly form?: TableForm;
  /** Add vendor-level rows where a vendor has two or more measured targets (default true). */
  readonly vendorLevel?: boolean;
}

/** One config's standing in a group. */
export interface CandidateScore {
  readonly config: unknown;
  readonly configKey: string;
  /** What the pick maximizes: geometric mean of items/s (with the tile bias where it applies). */
  readonly score: number;
  /** Geometric mean of items/s over the points (vendor level: over the devices' figures). */
  readonly itemsPerSecond: number;
  /** Largest cv over the points (and devices). */
  readonly cv: number;
  /** Points it was measured at. */
  readonly points: number;
  readonly eligible: boolean;
}

export interface GroupResult {
  readonly level: 'target' | 'vendor';
  readonly algorithm: TunedAlgorithm;
  readonly target: TargetMatch;
  readonly targetKey: string;
  readonly typeClass: TypeClass;
  /** Points of the group (`variant@size`). */
  readonly points: readonly string[];
  readonly sizes: readonly number[];
  /** Every config seen, best first; ineligible ones last. */
  readonly candidates: readonly CandidateScore[];
  readonly winner?: CandidateScore;
  /** Vendor level: the targets combined. */
  readonly devices?: readonly string[];
  /** The row written, if any. */
  readonly entry?: TunedEntry<unknown>;
  /** radixSortBlockSort: the measured threshold that set the row's maxCount. */
  readonly threshold?: ThresholdResult;
  /** The row is the config a threshold was measured with (no sweep of its table in the data). */
  readonly fromThreshold?: boolean;
  /** Why there is no row. */
  readonly reason?: string;
}

export interface CreateOptimizationResult {
  readonly groups: readonly GroupResult[];
  /** The rows the data produced, by table. */
  readonly fresh: TunedTables;
  /** For every table the data touched: the fresh rows merged into the existing ones. */
  readonly tables: TunedTables;
  /** Existing rows kept per table the data touched. */
  readonly kept: Readonly<Partial<Record<TunedAlgorithm, number>>>;
  /** radixSortBlockSort: fresh rows written with the existing row's maxCount (the merge rule). */
  readonly maxCountKept: number;
  readonly warnings: readonly string[];
  /** Benchmark entries skipped because they hold an error. */
  readonly errors: number;
  /** One file per table the data touched, in `form` (see `tableOutputName`). */
  readonly outputs: readonly OutputFile[];
}


function compareCandidates(a: CandidateScore, b: CandidateScore): number {
  if (a.eligible !== b.eligible) return a.eligible ? -1 : 1;
  return b.score - a.score || a.cv - b.cv || (a.configKey < b.configKey ? -1 : a.configKey > b.configKey ? 1 : 0);
}

/**
 * The LSD rows (radixSort): a reduce-then-scan row runs its own tile with decoupled look-back up
 * to its decoupledMaxCount, which the threshold stage sets to where that wins. So at each point a
 * reduce-then-scan config counts as the faster of itself and its decoupled twin (same tile, where
 * measured: only vendors with forward progress sweep decoupled configs). Scored as swept, a
 * decoupled tile that wins at small sizes beat the reduce-then-scan tile that, with its
 * threshold, is faster at every size (H200, u32 keys, 2^24 and 2^28: docs/performance.md,
 * eighth session).
 */
function withDecoupledTwin(algorithm: TunedAlgorithm, config: unknown, own: Map<string, PointValue>, byConfig: ReadonlyMap<string, Map<string, PointValue>>): Map<string, PointValue> {
  const variant = tableTwin(algorithm, config as ConfigObject);
  const twin = variant && byConfig.get(configKey(algorithm, variant));
  if (!twin) return own;
  return new Map([...own].map(([p, v]) => {
    const d = twin.get(p);
    return [p, d && d.itemsPerSecond > v.itemsPerSecond ? d : v];
  }));
}

function scoreTargetGroup(ms: readonly Measurement[]): { points: string[]; sizes: number[]; candidates: CandidateScore[] } {
  const points = [...new Set(ms.map((m) => m.point))].sort();
  const sizes = [...new Set(ms.map((m) => m.size))].sort((a, b) => a - b);
  const candidates: CandidateScore[] = [];
  const byKey = groupBy(ms, (m) => m.configKey);
  const byConfig = new Map([...byKey].map(([key, list]) => [key, pointsOf(list)]));
  for (const [key, list] of byKey) {
    const pts = withDecoupledTwin(list[0]!.algorithm, list[0]!.config, byConfig.get(key)!, byConfig);
    const eligible = points.every((p) => pts.has(p));
    const values = [...pts.values()];
    const factor = tileFactor(list[0]!.benchAlgorithm, list[0]!.tile);
    const ips = geomean(values.map((v) => v.itemsPerSecond));
    candidates.push({
      config: list[0]!.config, configKey: key, score: ips * factor, itemsPerSecond: ips,
      cv: Math.max(...values.map((v) => v.cv)), points: pts.size, eligible,
    });
  }
  candidates.sort(compareCandidates);
  return { points, sizes, candidates };
}

/** `exclusive=false|true` style summary of a group's variants, for the note. */
function variantSummary(points: readonly string[]): string {
  const fields = new Map<string, Set<string>>();
  for (const p of points) {
    const variant = p.slice(0, p.lastIndexOf('@'));
    if (!variant) continue;
    for (const kv of variant.split(',')) {
      const [k, v] = kv.split('=') as [string, string];
      if (!fields.has(k)) fields.set(k, new Set());
      fields.get(k)!.add(v);
    }
  }
  return [...fields].map(([k, vs]) => ` x ${k}=${[...vs].sort().join('|')}`).join('');
}

const latest = (dates: readonly string[]): string => [...dates].sort().at(-1) ?? '';
const versions = (vs: readonly string[]): string => [...new Set(vs)].sort().join(',');

function runnerUpNote(algorithm: TunedAlgorithm, candidates: readonly CandidateScore[]): string {
  const eligible = candidates.filter((c) => c.eligible);
  const second = eligible[1];
  const head = `${eligible.length}/${candidates.length} configs eligible`;
  return second ? `${head}; runner-up ${configLabel(algorithm, second.config)} at ${(second.score / eligible[0]!.score).toFixed(3)}x` : head;
}

function evidenceOf(winner: CandidateScore, sizes: readonly number[], dates: readonly string[], vs: readonly string[], note: string, devices?: readonly string[]): TuningEvidence {
  return {
    itemsPerSecond: round(winner.itemsPerSecond, 4),
    cv: round(winner.cv, 3),
    size: sizeEvidence(sizes),
    date: latest(dates),
    version: versions(vs),
    note,
    ...(winner.score !== winner.itemsPerSecond ? { score: round(winner.score, 4) } : {}),
    ...(devices ? { devices: [...devices] } : {}),
  };
}

/** Sorts rows: by vendor, vendor rows first, then architecture, device, integer before float, size, value size, channels (none first). */
export function sortRows<C>(rows: readonly TunedEntry<C>[]): TunedEntry<C>[] {
  const level = (t: TargetMatch): number => (t.device ? 2 : t.architecture ? 1 : 0);
  const key = (e: TunedEntry<C>): (string | number)[] => [
    (e.target.vendor ?? '').toLowerCase(), level(e.target), (e.target.architecture ?? '').toLowerCase(),
    (e.target.device ?? '').toLowerCase(), e.typeClass.float ? 1 : 0, e.typeClass.bytes, e.typeClass.valueBytes ?? -1, e.typeClass.channels ?? -1,
  ];
  return [...rows].sort((a, b) => {
    const ka = key(a);
    const kb = key(b);
    for (let i = 0; i < ka.length; i++) if (ka[i] !== kb[i]) return ka[i]! < kb[i]! ? -1 : 1;
    return 0;
  });
}

/**
 * Existing rows, with those the fresh rows replace (same target and type class) dropped, plus the
 * fresh rows; sorted. `algorithm` radixSortBlockSort: a fresh row that replaces an existing one
 * takes the existing row's maxCount where its threshold evidence ranks higher (the merge rule
 * above, `withThreshold`; its warnings go to `warnings`). `kept`: existing rows kept whole;
 * `maxCountKept`: fresh rows written with the existing row's maxCount.
 */
export function mergeRows<C>(
  existing: readonly TunedEntry<C>[], fresh: readonly TunedEntry<C>[], algorithm?: TunedAlgorithm, warnings: string[] = [], thresholdOnly: ReadonlySet<string> = new Set(),
): { rows: TunedEntry<C>[]; kept: number; maxCountKept: number } {
  const replaced = new Set(fresh.map(rowKey));
  const keptRows = existing.filter((e) => !replaced.has(rowKey(e)));
  let maxCountKept = 0;
  const written = algorithm === undefined || !isThresholdTable(algorithm) ? fresh : fresh.map((n) => {
    const o = existing.find((e) => rowKey(e) === rowKey(n));
    if (!o) return n;
    // A row the threshold stage alone produced (`thresholdOnly`: no sweep of the table in the
    // data) carries the threshold ladder's figures, not its kernels' tuning evidence: where the
    // existing row has the same kernels, that row stays and only the threshold moves.
    const kernel = thresholdOnly.has(rowKey(n)) && launchConfigKey(algorithm, o.config) === launchConfigKey(algorithm, n.config) ? o : n;
    const t = withThreshold(o as TunedEntry<unknown>, n as TunedEntry<unknown>, kernel as TunedEntry<unknown>, warnings, algorithm);
    if (t.from === 'old') maxCountKept++;
    return t.entry as TunedEntry<C>;
  });
  return { rows: sortRows([...keptRows, ...written]), kept: keptRows.length, maxCountKept };
}

/** Picks the best config per (target, table, type class), and per vendor where it has several targets. */
export function analyze(measurements: readonly Measurement[], vendorLevel = true): GroupResult[] {
  const groups: GroupResult[] = [];
  const byGroup = groupBy(measurements, (m) => `${m.algorithm}|${m.targetKey}|${m.typeClassKey}`);
  const targetGroups: { result: GroupResult; ms: Measurement[] }[] = [];
  for (const ms of byGroup.values()) {
    const first = ms[0]!;
    const { points, sizes, candidates } = scoreTargetGroup(ms);
    const winner = candidates[0]?.eligible ? candidates[0] : undefined;
    const base = { level: 'target' as const, algorithm: first.algorithm, target: first.target, targetKey: first.targetKey, typeClass: first.typeClass, points, sizes, candidates };
    if (!winner) {
      groups.push({ ...base, reason: `no config was measured at all ${points.length} points` });
      continue;
    }
    const note = `geomean of items/s over ${points.length} points (sizes ${sizes.map(formatSize).join(', ')}${variantSummary(points)}); cv: max; ${runnerUpNote(first.algorithm, candidates)}`;
    const winnerMs = ms.filter((m) => m.configKey === winner.configKey);
    const entry: TunedEntry<unknown> = {
      target: first.target, typeClass: first.typeClass, config: winner.config,
      evidence: evidenceOf(winner, sizes, winnerMs.map((m) => m.date), winnerMs.map((m) => m.version), note),
    };
    const result: GroupResult = { ...base, winner, entry };
    groups.push(result);
    targetGroups.push({ result, ms });
  }

  if (vendorLevel) {
    const byVendor = groupBy(targetGroups, (g) => `${g.result.algorithm}|${g.result.target.vendor}|${g.ms[0]!.typeClassKey}`);
    for (const list of byVendor.values()) {
      if (list.length < 2) continue;
      const { algorithm, typeClass } = list[0]!.result;
      const vendor = list[0]!.result.target.vendor!;
      const devices = list.map((g) => g.result.targetKey).sort();
      const perDevice = list.map((g) => new Map(g.result.candidates.filter((c) => c.eligible).map((c) => [c.configKey, c])));
      const allKeys = new Set(list.flatMap((g) => g.result.candidates.map((c) => c.configKey)));
      const candidates: CandidateScore[] = [];
      for (const key of allKeys) {
        const scores = perDevice.map((m) => m.get(key));
        const found = scores.filter((s): s is CandidateScore => s !== undefined);
        const eligible = found.length === list.length;
        candidates.push({
          config: list.flatMap((g) => g.result.candidates).find((c) => c.configKey === key)!.config,
          configKey: key,
          score: found.length ? geomean(found.map((s) => s.score)) : 0,
          itemsPerSecond: found.length ? geomean(found.map((s) => s.itemsPerSecond)) : 0,
          cv: found.length ? Math.max(...found.map((s) => s.cv)) : 0,
          points: found.reduce((n, s) => n + s.points, 0),
          eligible,
        });
      }
      candidates.sort(compareCandidates);
      const sizes = [...new Set(list.flatMap((g) => g.result.sizes))].sort((a, b) => a - b);
      const points = [...new Set(list.flatMap((g) => g.result.points))].sort();
      const target: TargetMatch = { vendor };
      const winner = candidates[0]?.eligible ? candidates[0] : undefined;
      const base = { level: 'vendor' as const, algorithm, target, targetKey: `${vendor}//`, typeClass, points, sizes, candidates, devices };
      if (!winner) {
        groups.push({ ...base, reason: `no config was eligible on all ${list.length} targets` });
        continue;
      }
      const winnerMs = list.flatMap((g) => g.ms.filter((m) => m.configKey === winner.configKey));
      const note = `vendor level: geomean over ${list.length} targets (${devices.join(', ')}) of their scores; cv: max; ${runnerUpNote(algorithm, candidates)}`;
      const entry: TunedEntry<unknown> = {
        target, typeClass, config: winner.config,
        evidence: evidenceOf(winner, sizes, winnerMs.map((m) => m.date), winnerMs.map((m) => m.version), note, devices),
      };
      groups.push({ ...base, winner, entry });
    }
  }
  return groups;
}

/** The fresh rows by table: a vendor-level row replaces a measured target's row that has the same key. */
export function freshTables(groups: readonly GroupResult[]): TunedTables {
  const out: Partial<Record<TunedAlgorithm, Map<string, TunedEntry<unknown>>>> = {};
  for (const level of ['target', 'vendor'] as const) {
    for (const g of groups) {
      if (g.level !== level || !g.entry) continue;
      (out[g.algorithm] ??= new Map()).set(rowKey(g.entry), g.entry);
    }
  }
  const tables: Record<string, TunedEntry<unknown>[]> = {};
  for (const a of TUNED_ALGORITHMS) if (out[a]) tables[a] = sortRows([...out[a]!.values()]);
  return tables as TunedTables;
}

/** The whole step: read, pick, merge with the existing tables, render. */
export function createOptimization(inputs: readonly BenchInput[], options: CreateOptimizationOptions = {}): CreateOptimizationResult {
  const { measurements, warnings, errors } = readMeasurements(inputs);
  const thresholds = readThresholds(inputs, THRESHOLD_MIN_IMPROVEMENT_PERCENT);
  warnings.push(...thresholds.warnings);
  const groups = applyLookbackThresholds(applyThresholds(analyze(measurements, options.vendorLevel ?? true), thresholds.results, warnings), thresholds.results, warnings);
  for (const g of groups) {
    if (g.reason) warnings.push(`${g.algorithm} ${g.targetKey} ${typeClassLabel(g.typeClass)}: ${g.reason}: no row`);
  }
  const fresh = freshTables(groups);
  const tables: Record<string, readonly TunedEntry<unknown>[]> = {};
  const kept: Partial<Record<TunedAlgorithm, number>> = {};
  let maxCountKept = 0;
  const outputs: OutputFile[] = [];
  const sources = [...new Set(measurements.map((m) => `${m.source} (${m.targetKey}, ${m.date})`))];
  const thresholdSources = thresholds.results.length ? inputs.filter((i) => JSON.stringify((i.data as { benchmarks?: unknown }).benchmarks ?? []).includes('algo:radix_sort_threshold')).map((i) => `${i.label} (radix_sort_threshold)`) : [];
  for (const a of TUNED_ALGORITHMS) {
    const rows = (fresh as Record<string, readonly TunedEntry<unknown>[] | undefined>)[a];
    if (!rows) continue;
    const existing = ((options.existing ?? {}) as Record<string, readonly TunedEntry<unknown>[] | undefined>)[a] ?? [];
    const thresholdOnly = new Set(groups.filter((g) => g.algorithm === a && g.fromThreshold && g.entry).map((g) => rowKey(g.entry!)));
    const merged = mergeRows(existing, rows, a, warnings, thresholdOnly);
    tables[a] = merged.rows;
    kept[a] = merged.kept;
    maxCountKept += merged.maxCountKept;
    const mine = [...sources.filter((s) => measurements.some((m) => m.algorithm === a && s.startsWith(`${m.source} (`))), ...(isThresholdTable(a) ? thresholdSources : [])];
    outputs.push(renderTable(a, merged.rows, options.form ?? 'module', { sources: mine, kept: merged.kept, maxCountKept: merged.maxCountKept }));
  }
  return { groups, fresh, tables: tables as TunedTables, kept, maxCountKept, warnings, errors, outputs };
}

