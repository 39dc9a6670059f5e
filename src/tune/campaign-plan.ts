// The campaign's plan before anything is built: per (algorithm, type) group its strategy and
// candidates, and per stage the pipelines to compile, the measurements to make and the time
// they should take. `wgprim tune` prints it up front (and `--dry-run` prints only it), so a
// campaign that would run too long is seen before it starts. Browser-safe.
import { type ElementType, typeInfo } from '../wgsl/types.js';
import { benchmarkSpec } from '../bench/run.js';
import { WgprimError } from '../runtime/errors.js';
import { hasForwardProgress } from '../runtime/target.js';
import { type Prim } from '../prim.js';
import { isThresholdStage, isTuneStage, thresholdSpec, tunable } from './registry.js';
import { type DeviceKind, type ResolvedAlgorithm, type StrategyName, type TuneSettings, deviceKindOf, resolveSettings } from './settings.js';
import { type Shard, type Variant, type VariantGroup, type VariantSet, enumerateVariants, groupInShard, inShard } from './variants.js';
import { planOrder } from './plan.js';
import { exhaustiveCandidates, randomCandidates, strategyFor } from './strategy.js';
import { THRESHOLD_PATHS } from './threshold.js';

/** What one group runs. Local search decides its candidates as it goes: `estimate` is its most. */
export interface GroupPlan {
  readonly g: VariantGroup;
  readonly strategy: StrategyName;
  /** Whether this shard measures the group. */
  readonly mine: boolean;
  /** exhaustive and random: the variants, baselines first (empty for local search). */
  readonly candidates: readonly Variant[];
  /** Variants this shard measures (local search: at most). */
  readonly estimate: number;
}

export function planGroups(set: VariantSet, s: TuneSettings, strategyName: StrategyName | 'auto', shard: Shard | undefined): GroupPlan[] {
  return set.groups.map((g, gi) => {
    const strategy = strategyFor(strategyName, g.variants.length, s.exhaustiveLimit);
    if (strategy === 'local') {
      const mine = groupInShard(gi, shard);
      const estimate = mine ? Math.min(s.localEvaluations, g.variants.length + g.baselines.length) : 0;
      return { g, strategy, mine, candidates: [], estimate };
    }
    const all = strategy === 'random' ? randomCandidates(g, s.seed, s.randomSamples) : exhaustiveCandidates(g);
    const candidates = all.filter((v) => inShard(v, shard));
    return { g, strategy, mine: candidates.length > 0, candidates, estimate: candidates.length };
  });
}

/**
 * Rough rates the time plan counts with. GPU: the H200 through Dawn compiled about 7 radix-sort
 * pipelines a second, the figure the plan takes for every GPU; a measurement costs its calls
 * plus a submit and a read-back per batch. CPU adapters (lavapipe) compile a pipeline in 1-5 s.
 */
export interface PlanRates {
  readonly pipelinesPerSecond: number;
  /** Bytes a call moves per second, each pass counted. */
  readonly bytesPerSecond: number;
  /** Host time per timed batch (submit, wait, timestamp read-back). */
  readonly batchSeconds: number;
  /** Host time per measurement besides its calls (inputs reused, names, bookkeeping). */
  readonly measurementSeconds: number;
}

export const PLAN_RATES: Readonly<Record<DeviceKind, PlanRates>> = {
  gpu: { pipelinesPerSecond: 7, bytesPerSecond: 1.5e12, batchSeconds: 0.002, measurementSeconds: 0.02 },
  cpu: { pipelinesPerSecond: 0.5, bytesPerSecond: 2e9, batchSeconds: 0.004, measurementSeconds: 0.05 },
};

/** One stage of the plan: its groups together. */
export interface StagePlan {
  readonly stage: string;
  readonly groups: number;
  /** Variants built (each compiles its benchmarks' pipelines and runs once). */
  readonly builds: number;
  /** Pipelines those builds compile (variants differing only in launch fields share them). */
  readonly pipelines: number;
  /** Measurements: (variant, benchmark, size); a threshold stage: its most (a path that loses twice in a row stops). */
  readonly measurements: number;
  /** A threshold stage's `measurements` is an upper bound. */
  readonly upTo: boolean;
  readonly buildSeconds: number;
  readonly measureSeconds: number;
}

export interface CampaignPlan {
  readonly kind: DeviceKind;
  readonly rates: PlanRates;
  readonly stages: readonly StagePlan[];
  readonly builds: number;
  readonly pipelines: number;
  readonly measurements: number;
  readonly seconds: number;
}

/** Seconds one measurement of `config` should take at `size`. */
function measurementSeconds(s: TuneSettings, rates: PlanRates, benchmark: string, type: ElementType, size: number, passes: number): number {
  const bytes = benchmarkSpec(benchmark).bytesPerCall(type, size) * passes;
  const calls = s.warmup + s.batches * s.batchSize;
  return rates.measurementSeconds + s.batches * rates.batchSeconds + (calls * bytes) / rates.bytesPerSecond;
}

/**
 * The plan of a campaign: per stage, builds, pipelines, measurements and their time at `rates`.
 * `pending` (default: all) counts what a resumed file does not hold yet; the untimed runs that
 * settle the device before each (group, size) are counted at `settleMs`.
 */
export function campaignPlan(
  plans: readonly GroupPlan[], thresholds: readonly ResolvedAlgorithm[], s: TuneSettings, kind: DeviceKind,
  options: { readonly forwardProgress: boolean; readonly settleMs: number; readonly rates?: PlanRates; readonly pending?: (g: VariantGroup, v: Variant) => number },
): CampaignPlan {
  const rates = options.rates ?? PLAN_RATES[kind];
  const stages = new Map<string, { groups: number; builds: number; pipelines: number; measurements: number; upTo: boolean; measureSeconds: number }>();
  const stageOf = (name: string): NonNullable<ReturnType<typeof stages.get>> => {
    let st = stages.get(name);
    if (!st) stages.set(name, (st = { groups: 0, builds: 0, pipelines: 0, measurements: 0, upTo: false, measureSeconds: 0 }));
    return st;
  };
  for (const p of plans.filter((x) => x.mine)) {
    const { g } = p;
    const alg = tunable(g.algorithm);
    const st = stageOf(g.algorithm);
    st.groups++;
    const keyBytes = typeInfo(g.type).bytes;
    // Local search: its most evaluations, priced as the heuristic's config (it starts there).
    const variants = p.strategy === 'local' ? Array.from({ length: p.estimate }, () => g.baselines[0]!) : p.candidates;
    const todo = options.pending ? variants.filter((v) => options.pending!(g, v) > 0) : variants;
    st.builds += todo.length;
    const kernels = new Set<string>();
    for (const [i, v] of todo.entries()) {
      const kernel = { ...v.config };
      for (const f of alg.cost.launchOnly ?? []) delete kernel[f];
      const key = p.strategy === 'local' ? String(i) : JSON.stringify(kernel);
      if (kernels.has(key)) continue;
      kernels.add(key);
      st.pipelines += (alg.cost.sameKernels ? 1 : g.benchmarks.length) * alg.cost.pipelines(v.config, keyBytes);
    }
    for (const v of todo) {
      const n = options.pending ? options.pending(g, v) : g.sizes.length * g.benchmarks.length;
      st.measurements += n;
      const passes = alg.cost.passes(v.config, keyBytes);
      const each = g.sizes.reduce((t, size) => t + g.benchmarks.reduce((u, b) => u + measurementSeconds(s, rates, b, g.type, size, passes), 0), 0) / (g.sizes.length * g.benchmarks.length);
      st.measureSeconds += n * each;
    }
    if (todo.length) st.measureSeconds += (g.sizes.length * options.settleMs) / 1000;
  }
  for (const r of thresholds) {
    if (!isThresholdStage(r.name)) continue;
    const st = stageOf(r.name);
    // The decoupled path runs only on vendors with forward progress.
    const paths = options.forwardProgress ? THRESHOLD_PATHS.length : THRESHOLD_PATHS.length - 1;
    const spec = thresholdSpec(r.name);
    const general = tunable(spec.general.stage);
    for (const type of r.types) {
      // The general path's config as its own stage starts from it (priced as 1 pass without it).
      const config = plans.find((p) => p.g.algorithm === spec.general.stage && p.g.type === type)?.g.baselines[0]?.config;
      const keyBytes = typeInfo(type).bytes;
      for (const b of r.benchmarks) {
        st.groups++;
        st.upTo = true;
        // The general config's twin is the one new kernel set (the other paths were built by their stages).
        if (options.forwardProgress && config && spec.twin(config, true)) st.pipelines += general.cost.pipelines(config, keyBytes);
        const passes = config ? general.cost.passes(config, keyBytes) : 1;
        for (const size of r.sizesFor(type)) {
          st.measurements += paths;
          // Each new point is measured twice (the faster stands), after settling.
          st.measureSeconds += 2 * paths * measurementSeconds(s, rates, b, type, size, passes) + options.settleMs / 1000;
        }
      }
    }
  }
  const out: StagePlan[] = [...stages].map(([stage, st]) => ({ stage, ...st, buildSeconds: st.pipelines / rates.pipelinesPerSecond }));
  const sum = (f: (x: StagePlan) => number): number => out.reduce((t, x) => t + f(x), 0);
  return {
    kind, rates, stages: out, builds: sum((x) => x.builds), pipelines: sum((x) => x.pipelines), measurements: sum((x) => x.measurements),
    seconds: sum((x) => x.buildSeconds + x.measureSeconds),
  };
}

/** Seconds as the plan prints them: `42 s`, or `1.6 min` from 90 s. */
export const formatSeconds = (x: number): string => (x >= 90 ? `${(x / 60).toFixed(1)} min` : `${x.toFixed(0)} s`);

/** The plan as text: one line per stage and a total, with the rates it assumed. */
export function formatCampaignPlan(plan: CampaignPlan, budgetSeconds?: number): string[] {
  const w = Math.max(5, ...plan.stages.map((s) => s.stage.length));
  const row = (name: string, groups: string, builds: string, pipelines: string, measurements: string, time: string): string =>
    `  ${name.padEnd(w)} ${groups.padStart(6)} ${builds.padStart(7)} ${pipelines.padStart(9)} ${measurements.padStart(12)} ${time.padStart(9)}`;
  const lines = [row('stage', 'groups', 'builds', 'pipelines', 'measurements', 'time')];
  for (const s of plan.stages) {
    lines.push(row(s.stage, String(s.groups), String(s.builds), String(s.pipelines), `${s.upTo ? '<=' : ''}${s.measurements}`, formatSeconds(s.buildSeconds + s.measureSeconds)));
  }
  lines.push(row('total', '', String(plan.builds), String(plan.pipelines), String(plan.measurements), formatSeconds(plan.seconds)));
  const r = plan.rates;
  lines.push(`  time at ${r.pipelinesPerSecond} pipelines/s and ${(r.bytesPerSecond / 1e9).toFixed(0)} GB/s moved per call (${plan.kind} rates; a rough plan: the end of the run prints the rates seen)`);
  if (budgetSeconds !== undefined && plan.seconds > budgetSeconds) {
    lines.push(`  over the budget of ${formatSeconds(budgetSeconds)}: measuring stops there (resume later), or narrow the settings' spaces`);
  }
  return lines;
}

/**
 * Per stage, the plan's time against the wall time its groups took (`took`: milliseconds by
 * stage), in plan order; stages not reached show a dash.
 */
export function formatStageTimes(plan: CampaignPlan, took: ReadonlyMap<string, number>): string[] {
  const w = Math.max(5, ...plan.stages.map((s) => s.stage.length));
  const row = (name: string, planned: string, wall: string): string => `  ${name.padEnd(w)} ${planned.padStart(9)} ${wall.padStart(9)}`;
  const lines = [row('stage', 'planned', 'took')];
  let total = 0;
  for (const s of plan.stages) {
    const ms = took.get(s.stage);
    total += ms ?? 0;
    lines.push(row(s.stage, formatSeconds(s.buildSeconds + s.measureSeconds), ms === undefined ? '-' : formatSeconds(ms / 1e3)));
  }
  lines.push(row('total', formatSeconds(plan.seconds), formatSeconds(total / 1e3)));
  return lines;
}

/** What a campaign runs, before anything is built: its stages in plan order, variants, groups' plans, threshold stages. */
export interface PreparedCampaign {
  readonly algorithms: readonly string[];
  readonly set: VariantSet;
  readonly plans: readonly GroupPlan[];
  /** Threshold stages (run after every group; shard 0 only). */
  readonly thresholdStages: readonly ResolvedAlgorithm[];
}

export function prepareCampaign(prim: Prim, s: TuneSettings, o: { readonly algorithms?: readonly string[]; readonly strategy?: StrategyName | 'auto'; readonly shard?: Shard }): PreparedCampaign {
  const algorithms = planOrder((o.algorithms ?? Object.keys(s.algorithms)).filter((a) => {
    if (!isTuneStage(a)) throw new WgprimError('invalid-argument', `no tunable algorithm "${a}"`);
    return true;
  }));
  const resolved = resolveSettings(s, prim.context, algorithms);
  const set = enumerateVariants(prim, resolved);
  const thresholdStages = resolved.filter((r) => isThresholdStage(r.name) && (!o.shard || o.shard.index === 0));
  return { algorithms, set, plans: planGroups(set, s, o.strategy ?? s.strategy, o.shard), thresholdStages };
}

/** The plan of a fresh campaign on `prim`'s device (or an adapter profile's): `wgprim tune --dry-run`. */
export function planFor(prim: Prim, s: TuneSettings, o: { readonly algorithms?: readonly string[]; readonly strategy?: StrategyName | 'auto'; readonly shard?: Shard; readonly settleMs?: number }): PreparedCampaign & { readonly plan: CampaignPlan } {
  const prepared = prepareCampaign(prim, s, o);
  const plan = campaignPlan(prepared.plans, prepared.thresholdStages, s, deviceKindOf(prim.target), { forwardProgress: hasForwardProgress(prim.target), settleMs: o.settleMs ?? 500 });
  return { ...prepared, plan };
}
