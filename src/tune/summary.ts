// A campaign's scores: a variant's for the search strategies, and the summary's rows (per
// group, and for the sorts per value class: the best config against the configs used today).
// Browser-safe.
import { parseName } from '../bench/gbench.js';
import { type ConfigObject, configText, parseBenchmarkName, tunable } from './registry.js';
import { type StrategyName } from './settings.js';
import { type Variant, type VariantGroup } from './variants.js';
import { type Score } from './strategy.js';
import { valueClassLabel } from './measurements.js';
import { type TuneEntry, isErrorEntry } from './results.js';
import { type ConfigScore, type SummaryRow } from './campaign-types.js';

const geomean = (xs: readonly number[]): number => Math.exp(xs.reduce((s, x) => s + Math.log(x), 0) / xs.length);

/**
 * The type column of a summary row: the element type, with the value class for the sorts'
 * rows as `wgprim info` writes it (`u32/empty` keys only, `u32/u32` pairs with u32 values).
 */
export function summaryTypeLabel(r: { readonly type: string; readonly valueBytes?: number }): string {
  return r.valueBytes === undefined ? r.type : `${r.type}/${valueClassLabel(r.valueBytes)}`;
}

/** A (benchmark, size) point of a group, with the name a config's entry there has. */
export interface VariantPoint {
  readonly benchmark: string;
  readonly size: number;
  readonly name: string;
}

/** The points (sizes x benchmarks) of a group, for one of its configs. */
export function variantPoints(g: VariantGroup, config: ConfigObject): VariantPoint[] {
  const alg = tunable(g.algorithm);
  return g.sizes.flatMap((size) => g.benchmarks.map((benchmark) => ({ benchmark, size, name: alg.benchmarkName(benchmark, g.type, config) })));
}

/** The config a row of `config` runs below its threshold field (the stage's `twin`), else undefined. */
function decoupledTwin(algorithm: string, c: ConfigObject): ConfigObject | undefined {
  return tunable(algorithm).twin?.(c);
}

/**
 * A variant's score for the search strategies: the geometric mean of items/s over the group's
 * points (sizes x benchmarks), undefined until every point is measured without error. A
 * reduce-then-scan LSD config counts its decoupled twin at a point where that is measured and
 * faster, as the summary and create-optimization score it (the row runs the twin up to its
 * decoupledMaxCount), so a local search climbs toward the configs the pipeline would write.
 */
export function variantScore(g: VariantGroup, v: Variant, entryOf: (name: string, size: number) => TuneEntry | undefined): Score {
  const twin = decoupledTwin(g.algorithm, v.config);
  const twinPoints = twin && variantPoints(g, twin);
  const xs: number[] = [];
  for (const [i, p] of variantPoints(g, v.config).entries()) {
    const own = entryOf(p.name, p.size);
    if (!own || isErrorEntry(own) || !(own.items_per_second > 0)) return undefined;
    const e = fasterEntry(own, twinPoints && entryOf(twinPoints[i]!.name, p.size))!;
    xs.push((e as Extract<TuneEntry, { items_per_second: number }>).items_per_second);
  }
  return xs.length ? geomean(xs) : undefined;
}

/** `own`, or `twin` where both measured and the twin is faster. */
function fasterEntry(own: TuneEntry | undefined, twin: TuneEntry | undefined): TuneEntry | undefined {
  if (!own || !twin || isErrorEntry(own) || isErrorEntry(twin)) return own;
  return twin.items_per_second > own.items_per_second ? twin : own;
}

/**
 * Per group: every config measured at all of the group's points (benchmarks x sizes), scored
 * by the geometric mean of items/s, so no size dominates; the best against the selected config.
 * A sort group (`valueClasses`) gives a row per value class, as its tables keep a row per class:
 * each scored over its own benchmarks' points, against that class's selection and heuristic
 * (a keys tile that cannot run with values still has a keys score; the pairs row compares
 * against what pairs calls select).
 */
export function summarize(groups: readonly { group: VariantGroup; strategy: StrategyName }[], entries: readonly TuneEntry[]): SummaryRow[] {
  // (algorithm|type) -> config text -> point -> entry
  const byGroup = new Map<string, Map<string, { config: ConfigObject; points: Map<string, TuneEntry> }>>();
  for (const e of entries) {
    let parsed;
    try {
      parsed = parseBenchmarkName(parseName(e.name));
    } catch {
      continue;
    }
    if (!parsed) continue;
    const gk = `${parsed.algorithm}|${parsed.type}`;
    let configs = byGroup.get(gk);
    if (!configs) byGroup.set(gk, (configs = new Map()));
    const ck = configText(parsed.config);
    let c = configs.get(ck);
    if (!c) configs.set(ck, (c = { config: parsed.config, points: new Map() }));
    c.points.set(`${parsed.benchmark}@${e.size}`, e);
  }
  const row = (
    g: VariantGroup, strategy: StrategyName, benchmarks: readonly string[],
    sel: { config: ConfigObject; source?: string } | undefined, heu: { config: ConfigObject } | undefined, valueBytes: number | undefined,
  ): SummaryRow => {
    const points = g.sizes.flatMap((size) => benchmarks.map((b) => `${b}@${size}`));
    const scores = new Map<string, ConfigScore>();
    let failed = 0;
    const configs = byGroup.get(`${g.algorithm}|${g.type}`) ?? new Map<string, { config: ConfigObject; points: Map<string, TuneEntry> }>();
    for (const [ck, c] of configs) {
      // The LSD rows: a reduce-then-scan config counts its decoupled twin where faster, as
      // create-optimization scores it (withDecoupledTwin), so the summary's best is the row written.
      const twinConfig = decoupledTwin(g.algorithm, c.config);
      const twin = twinConfig && configs.get(configText(twinConfig));
      const es = points.map((p) => fasterEntry(c.points.get(p), twin?.points.get(p)));
      // A config none of whose points this class measured is not one of its configs.
      if (es.every((e) => !e)) continue;
      if (es.some((e) => e && isErrorEntry(e))) failed++;
      if (es.some((e) => !e || isErrorEntry(e) || !(e.items_per_second > 0))) continue;
      const ok = es as Extract<TuneEntry, { items_per_second: number }>[];
      scores.set(ck, { config: c.config, score: geomean(ok.map((e) => e.items_per_second)), cv: Math.max(...ok.map((e) => e.cv)) });
    }
    const best = [...scores.values()].sort((a, b) => b.score - a.score)[0];
    const selScore = sel ? scores.get(configText(sel.config)) : undefined;
    const heuScore = heu ? scores.get(configText(heu.config)) : undefined;
    return {
      algorithm: g.algorithm, type: g.type, ...(valueBytes !== undefined ? { valueBytes } : {}), strategy, sizes: g.sizes, benchmarks, measured: scores.size, failed,
      ...(selScore ? { selected: { ...selScore, source: sel?.source ?? 'heuristic' } } : {}),
      ...(heuScore ? { heuristic: heuScore } : {}),
      ...(best ? { best } : {}),
      ...(best && selScore ? { ratio: best.score / selScore.score } : {}),
    };
  };
  return groups.flatMap(({ group: g, strategy }) => {
    if (g.valueClasses?.length) {
      return g.valueClasses.map((c) => row(g, strategy, c.benchmarks, c.selected, { config: c.heuristic }, c.valueBytes));
    }
    const sel = g.baselines.find((b) => b.baseline?.includes('selected'));
    const heu = g.baselines.find((b) => b.baseline?.includes('heuristic'));
    return [row(g, strategy, g.benchmarks, sel, heu, undefined)];
  });
}
