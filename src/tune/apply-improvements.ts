// apply-config-improvements (rocPRIM's apply_config_improvements.py): accept a newly tuned row
// only where a re-measurement shows it is faster than the row it replaces by more than
// max(P, 1.96 * sqrt(cv_old^2 + cv_new^2) * 100) percent, or where there is no old row.
// Browser-safe: tables and parsed benchmark files in, the improved tables and a report out.
//
// How a row is measured: in the old benchmark files for an old row, in the new files for a new
// row; the runs of the row's own config (names carry the config), at the targets the row
// matches (a vendor row: each measured target of that vendor) and its type class (with a value
// class: runs with those values only; rows pair up old to new by target, type and value class). Scores are
// compared over the (target, point) pairs both sides measured; each side's score is the
// geometric mean of items/s over its points per target, then over the targets; cv is the
// largest. Where the files hold no run of a row's config, its table evidence stands in (marked
// `evidence` in the report).
//
// radixSortBlockSort rows: maxCount is a threshold (the size up to which the block-sort path runs),
// not a launch parameter: configs equal but for it are the same kernels at the same speed. So the
// runs, the `same` test and the speed comparison all use the config without maxCount
// (`launchConfigKey`), and the maxCount written is decided apart: see `withThreshold` (threshold.ts,
// shared with create-optimization's merge into an existing folder). radixSort rows' decoupledMaxCount
// is such a threshold too (sweeps time their configs with it 0), decided the same way.
import { type TargetMatch, type TunedEntry } from '../config/types.js';
import { classifyImprovement } from './acceptance.js';

export { classifyImprovement } from './acceptance.js';
import { matchLevel } from '../config/select.js';
import { rowKey, TUNED_ALGORITHMS, type TunedAlgorithm, type TunedTables } from '../tables.js';
import { type Target } from '../runtime/target.js';
import { type TypeClass } from '../wgsl/types.js';
import { type BenchInput, configLabel, geomean, groupBy, type Measurement, pointsOf, readMeasurements, tileFactor, typeClassLabel } from './measurements.js';
import { renderTable, sortRows, type OutputFile, type TableForm } from './create-optimization.js';
import { isThresholdTable } from './threshold.js';
import { launchConfigKey, type MaxCountEvidence, withThreshold } from './threshold-merge.js';
import { blocksByFirstColumn, clip, configChange } from './text.js';

export type ImprovementStatus =
  /** No old row: the new one is taken. */
  | 'new'
  /** Faster by more than max(P, noise bound): the new row replaces the old. */
  | 'accepted'
  /** Not faster: the old row stays. */
  | 'slower'
  /** Faster, but by P percent or less: the old row stays. */
  | 'marginal'
  /** Faster by more than P, but within the noise bound: the old row stays. */
  | 'noisy'
  /**
   * The same config as the old row (radixSortBlockSort: the same but for maxCount): nothing to
   * decide, the old row stays (its maxCount may still be replaced: see `maxCountFrom`).
   */
  | 'same';

export interface ImprovementDecision {
  readonly algorithm: TunedAlgorithm;
  readonly target: TargetMatch;
  readonly typeClass: TypeClass;
  readonly status: ImprovementStatus;
  readonly oldEntry?: TunedEntry<unknown>;
  readonly newEntry: TunedEntry<unknown>;
  readonly oldItemsPerSecond?: number;
  readonly newItemsPerSecond?: number;
  readonly oldCv?: number;
  readonly newCv?: number;
  /** (new - old) / old * 100 on the scores. */
  readonly changePercent?: number;
  /** max(P, 1.96 * sqrt(cv_old^2 + cv_new^2) * 100). */
  readonly boundPercent?: number;
  /** Where the figures came from: the benchmark files, or (no run of the config) the table's evidence. */
  readonly oldFrom?: 'json' | 'evidence';
  readonly newFrom?: 'json' | 'evidence';
  /**
   * radixSortBlockSort with an old row: the row whose maxCount was written (the kernels are the
   * old row's unless `accepted`), and what that maxCount rests on.
   */
  readonly maxCountFrom?: 'old' | 'new';
  readonly maxCountEvidence?: MaxCountEvidence;
}

export interface ApplyImprovementsInput {
  readonly oldTables: TunedTables;
  readonly newTables: TunedTables;
  /** Benchmark files measured with the old configs. */
  readonly oldJson: readonly BenchInput[];
  /** Benchmark files measured with the new configs (may be the same files: a tuning campaign measures both). */
  readonly newJson: readonly BenchInput[];
  /** P: the least improvement, in percent, worth a change. */
  readonly thresholdPercent: number;
  /** The improved tables' form: `module` (default) for the package's, `json` for a user's folder. */
  readonly form?: TableForm;
}

export interface ApplyImprovementsResult {
  readonly decisions: readonly ImprovementDecision[];
  /** Old rows without a new row, kept as they are. */
  readonly keptOldOnly: number;
  /** The improved tables: every table in the old or the new folder. */
  readonly tables: TunedTables;
  /** One file per improved table, in `form`. */
  readonly outputs: readonly OutputFile[];
  readonly warnings: readonly string[];
}

const asTarget = (m: Measurement): Target => ({
  vendor: m.target.vendor ?? '', architecture: m.target.architecture ?? '', device: m.target.device ?? '',
  description: '', subgroupMinSize: 0, subgroupMaxSize: 0,
});

/**
 * A row's runs: target key → point → value (its own config, type class, and targets it matches).
 * radixSortBlockSort: runs of its kernels whatever maxCount their names carry (the block-sort
 * stage names its runs with the sweep's maxCount, a row carries the threshold).
 */
function runsOf(ms: readonly Measurement[], algorithm: TunedAlgorithm, e: TunedEntry<unknown>): Map<string, Map<string, { itemsPerSecond: number; cv: number; factor: number }>> {
  const key = launchConfigKey(algorithm, e.config);
  const mine = ms.filter((m) => m.algorithm === algorithm && launchConfigKey(algorithm, m.config) === key &&
    m.typeClass.float === e.typeClass.float && m.typeClass.bytes === e.typeClass.bytes &&
    (e.typeClass.valueBytes === undefined || m.typeClass.valueBytes === e.typeClass.valueBytes) &&
    (e.typeClass.channels === undefined || m.typeClass.channels === e.typeClass.channels) && matchLevel(e.target, asTarget(m)) > 0);
  const out = new Map<string, Map<string, { itemsPerSecond: number; cv: number; factor: number }>>();
  for (const [t, list] of groupBy(mine, (m) => m.targetKey)) {
    const factor = tileFactor(list[0]!.benchAlgorithm, list[0]!.tile);
    out.set(t, new Map([...pointsOf(list)].map(([p, v]) => [p, { ...v, factor }])));
  }
  return out;
}

/** Score over the given (target, point) pairs: geomean over points per target, then over targets. */
function scoreRuns(runs: Map<string, Map<string, { itemsPerSecond: number; cv: number; factor: number }>>, keep: (t: string, p: string) => boolean): { score: number; cv: number } | undefined {
  const perTarget: number[] = [];
  let cv = 0;
  for (const [t, pts] of runs) {
    const values = [...pts].filter(([p]) => keep(t, p)).map(([, v]) => v);
    if (!values.length) continue;
    perTarget.push(geomean(values.map((v) => v.itemsPerSecond * v.factor)));
    cv = Math.max(cv, ...values.map((v) => v.cv));
  }
  return perTarget.length ? { score: geomean(perTarget), cv } : undefined;
}

export function applyConfigImprovements(input: ApplyImprovementsInput): ApplyImprovementsResult {
  const P = input.thresholdPercent;
  const oldRead = readMeasurements(input.oldJson);
  const newRead = input.newJson === input.oldJson ? oldRead : readMeasurements(input.newJson);
  const warnings = [...oldRead.warnings, ...(newRead === oldRead ? [] : newRead.warnings)];
  const decisions: ImprovementDecision[] = [];
  const tables: Record<string, TunedEntry<unknown>[]> = {};
  const outputs: OutputFile[] = [];
  let keptOldOnly = 0;
  const rowsOf = (t: TunedTables, a: TunedAlgorithm): readonly TunedEntry<unknown>[] | undefined => (t as Record<string, readonly TunedEntry<unknown>[] | undefined>)[a];

  for (const a of TUNED_ALGORITHMS) {
    const oldRows = rowsOf(input.oldTables, a);
    const newRows = rowsOf(input.newTables, a);
    if (!oldRows && !newRows) continue;
    const result = new Map<string, TunedEntry<unknown>>();
    for (const e of oldRows ?? []) result.set(rowKey(e), e);
    const newKeys = new Set((newRows ?? []).map(rowKey));
    keptOldOnly += (oldRows ?? []).filter((e) => !newKeys.has(rowKey(e))).length;
    for (const n of newRows ?? []) {
      const key = rowKey(n);
      const o = result.get(key);
      const base = { algorithm: a, target: n.target, typeClass: n.typeClass, newEntry: n };
      if (!o) {
        const ns = scoreRuns(runsOf(newRead.measurements, a, n), () => true);
        decisions.push({ ...base, status: 'new', ...(ns ? { newItemsPerSecond: ns.score, newCv: ns.cv, newFrom: 'json' as const } : {}) });
        result.set(key, n);
        continue;
      }
      const threshold = (kernel: TunedEntry<unknown>): { maxCountFrom?: 'old' | 'new'; maxCountEvidence?: MaxCountEvidence } => {
        if (!isThresholdTable(a)) {
          result.set(key, kernel);
          return {};
        }
        const t = withThreshold(o, n, kernel, warnings, a);
        result.set(key, t.entry);
        return { maxCountFrom: t.from, maxCountEvidence: t.evidence };
      };
      if (launchConfigKey(a, o.config) === launchConfigKey(a, n.config)) {
        decisions.push({ ...base, oldEntry: o, status: 'same', ...threshold(o) });
        continue;
      }
      const oldRuns = runsOf(oldRead.measurements, a, o);
      const newRuns = runsOf(newRead.measurements, a, n);
      const common = (t: string, p: string): boolean => !!oldRuns.get(t)?.has(p) && !!newRuns.get(t)?.has(p);
      const anyCommon = [...oldRuns].some(([t, pts]) => [...pts.keys()].some((p) => common(t, p)));
      const keep = anyCommon ? common : (): boolean => true;
      if (!anyCommon && oldRuns.size && newRuns.size) {
        warnings.push(`${a} ${rowKey(n)}: old and new runs share no (target, size) point: each side scored over its own`);
      }
      const fromJson = (runs: typeof oldRuns) => scoreRuns(runs, keep);
      const os = fromJson(oldRuns) ?? { score: o.evidence.score ?? o.evidence.itemsPerSecond, cv: o.evidence.cv };
      const ns = fromJson(newRuns) ?? { score: n.evidence.score ?? n.evidence.itemsPerSecond, cv: n.evidence.cv };
      const oldFrom = oldRuns.size ? 'json' as const : 'evidence' as const;
      const newFrom = newRuns.size ? 'json' as const : 'evidence' as const;
      const c = classifyImprovement(os.score, ns.score, os.cv, ns.cv, P);
      decisions.push({
        ...base, oldEntry: o, status: c.status, oldItemsPerSecond: os.score, newItemsPerSecond: ns.score,
        oldCv: os.cv, newCv: ns.cv, changePercent: c.changePercent, boundPercent: c.boundPercent, oldFrom, newFrom,
        ...threshold(c.status === 'accepted' ? n : o),
      });
    }
    const rows = sortRows([...result.values()]);
    tables[a] = rows;
    outputs.push(renderTable(a, rows, input.form ?? 'module'));
  }
  return { decisions, keptOldOnly, tables: tables as TunedTables, outputs, warnings };
}

export const DECISION_HEADER = ['status', 'table', 'target', 'type', 'new config: what differs', 'old G/s', 'new G/s', 'change %', 'bound %'];

/** Rows of the report table (figures marked `*` come from a table's evidence, not from the files). */
export function decisionRows(decisions: readonly ImprovementDecision[]): string[][] {
  const g = (x: number | undefined, from?: string): string => (x === undefined ? '-' : `${(x / 1e9).toFixed(3)}${from === 'evidence' ? '*' : ''}`);
  const pct = (x: number | undefined): string => (x === undefined ? '-' : `${x >= 0 ? '+' : ''}${x.toFixed(2)}`);
  const target = (t: TargetMatch): string => `${t.vendor ?? ''}/${t.architecture ?? ''}/${t.device ?? ''}`;
  return decisions.map((d) => [
    d.status, d.algorithm, clip(target(d.target), 22), typeClassLabel(d.typeClass),
    d.oldEntry ? configChange(d.algorithm, d.newEntry.config, d.oldEntry.config, 22) : clip(configLabel(d.algorithm, d.newEntry.config), 22),
    g(d.oldItemsPerSecond, d.oldFrom), g(d.newItemsPerSecond, d.newFrom), pct(d.changePercent),
    d.boundPercent === undefined ? '-' : d.boundPercent.toFixed(2),
  ]);
}

/** The decisions as text within 100 columns: one block per table (status first; cvs are in the tables' evidence). */
export function formatDecisions(decisions: readonly ImprovementDecision[]): string {
  const rows = decisionRows(decisions).map((r) => [r[1]!, r[0]!, ...r.slice(2)]);
  const header = [DECISION_HEADER[1]!, DECISION_HEADER[0]!, ...DECISION_HEADER.slice(2)];
  return blocksByFirstColumn(header, rows, new Set([5, 6, 7, 8]));
}

/** `accepted 1, new 1, slower 1, marginal 1, noisy 1, same 0; 2 old rows without a new row kept` (and, where any, `; N row(s) with the maxCount of the other table`: radixSortBlockSort rows whose kernels come from one table and maxCount from the other). */
export function decisionSummary(result: Pick<ApplyImprovementsResult, 'decisions' | 'keptOldOnly'>): string {
  const order: ImprovementStatus[] = ['accepted', 'new', 'slower', 'marginal', 'noisy', 'same'];
  const counts = order.map((s) => `${s} ${result.decisions.filter((d) => d.status === s).length}`);
  const crossed = result.decisions.filter((d) => d.maxCountFrom !== undefined && d.maxCountFrom !== (d.status === 'accepted' ? 'new' : 'old')).length;
  return `${counts.join(', ')}; ${result.keptOldOnly} old row(s) without a new row kept${crossed ? `; ${crossed} row(s) with the maxCount of the other table` : ''}`;
}
