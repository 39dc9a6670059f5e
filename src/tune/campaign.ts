// `wgprim tune` as a library function: settings -> variants -> plan -> build -> run, with a
// search strategy per (algorithm, type), sharding, resume from an earlier file, a time budget,
// building ahead, and a summary of the best config found against the configs used today.
// Browser-safe: the caller reads and writes files (`onUpdate` hands over the whole file after
// every measurement).
import { hasForwardProgress, isSoftwareAdapter } from '../runtime/target.js';
import { type Prim } from '../prim.js';
import { deviceKindOf } from './settings.js';
import { localSearch } from './strategy.js';
import { readThresholds } from './threshold-read.js';
import { THRESHOLD_PATHS, thresholdValueBytes } from './threshold.js';
import { checkSameAdapter, checkSameCacheState, existingEntries } from './results.js';
import { type CampaignOptions, type CampaignResult, StopCampaign } from './campaign-types.js';
import { campaignPlan, prepareCampaign } from './campaign-plan.js';
import { CampaignState, groupLabel } from './campaign-state.js';
import { buildAhead } from './campaign-build.js';
import { evaluate, pendingOf, SETTLE_MS } from './campaign-measure.js';
import { runThreshold } from './campaign-threshold.js';
import { summarize } from './summary.js';

export * from './campaign-types.js';
export { summarize, summaryTypeLabel, variantScore } from './summary.js';

export async function runCampaign(prim: Prim, o: CampaignOptions): Promise<CampaignResult> {
  const s = o.settings;
  const strategyName = o.strategy ?? s.strategy;
  // Threshold stages run after every group (the plan puts them after the stages they read).
  const { algorithms, set, plans, thresholdStages } = prepareCampaign(prim, s, o);
  const label = o.existingLabel ?? 'the existing benchmark file';
  if (o.existing !== undefined) {
    checkSameAdapter(o.existing, o.adapterInfo, label);
    checkSameCacheState(o.existing, s.coldCache === true, label);
  }
  const state = new CampaignState(prim, o, algorithms, strategyName, o.existing !== undefined ? existingEntries(o.existing, label) : []);
  const started = state.now();
  const { progress } = state;

  // What each group runs, the plan, and the progress totals (the plan's counts).
  const plan = campaignPlan(plans, thresholdStages, s, deviceKindOf(prim.target), {
    forwardProgress: hasForwardProgress(prim.target), settleMs: o.settleMs ?? SETTLE_MS, pending: (g, v) => pendingOf(state, g, v),
  });
  progress.build.total = plan.builds;
  progress.run.total = plan.measurements;
  const paths = hasForwardProgress(prim.target) ? THRESHOLD_PATHS.length : THRESHOLD_PATHS.length - 1;
  o.onStart?.({
    variants: set,
    groups: [
      ...plans.filter((p) => p.mine).map((p) => ({ label: groupLabel(p.g), strategy: p.strategy, variants: p.estimate, baselines: p.g.baselines.length })),
      ...thresholdStages.flatMap((r) => r.types.flatMap((type) => r.benchmarks.map((b) => ({ label: groupLabel({ algorithm: r.name, type: thresholdValueBytes(b) ? `${type} pairs` : type }), strategy: 'exhaustive' as const, variants: paths, baselines: 0 })))),
    ],
    pending: plan.measurements,
    existing: state.store.entries.length,
    plan,
  });

  // Building ahead overlaps compiling with measuring; on CPU adapters both take the same cores.
  const ahead = o.buildAhead ?? (!isSoftwareAdapter(prim.target) && !o.forceWallClock && prim.device.features.has('timestamp-query'));
  const mine = plans.filter((p) => p.mine);
  let next: Promise<void> = Promise.resolve();
  let localUnspent = 0;
  let stopped: CampaignResult['stopped'];
  try {
    for (const [i, { g, strategy, candidates, estimate }] of mine.entries()) {
      const groupStart = state.now();
      try {
        await next;
        next = Promise.resolve();
        const following = mine[i + 1];
        // Local search picks as it goes: ahead of it, only its baselines (where it starts) are known.
        const startNext = ahead && following ? (): void => {
          next = buildAhead(state, following.g, following.strategy === 'local' ? following.g.baselines : following.candidates);
        } : undefined;
        if (strategy === 'local') {
          // The rest of the budget, shared by the groups still to search.
          const left = mine.length - i;
          const groupDeadline = state.deadline === Infinity ? Infinity : state.now() + (state.deadline - state.now()) / left;
          const before = state.measured;
          let first = true;
          const r = await localSearch(g, (vs) => evaluate(state, g, vs, first ? ((first = false), startNext) : undefined), { seed: s.seed, maxEvaluations: s.localEvaluations, shouldStop: () => state.now() > groupDeadline });
          localUnspent += Math.max(0, estimate * g.sizes.length * g.benchmarks.length - (state.measured - before));
          state.log(`${groupLabel(g)}: local search measured ${r.evaluated.length} of ${g.variants.length} variants (${r.moves} moves, ${r.restarts} restarts)`);
        } else {
          await evaluate(state, g, candidates, startNext);
        }
      } finally {
        o.onGroupDone?.({ stage: g.algorithm, group: groupLabel(g), ms: state.now() - groupStart });
      }
    }
    await next;
    for (const r of thresholdStages) {
      for (const type of r.types) {
        for (const b of r.benchmarks) {
          const groupStart = state.now();
          try {
            await runThreshold(state, r.name, type, b, r.sizesFor(type));
          } finally {
            o.onGroupDone?.({ stage: r.name, group: `${r.name} ${type} ${b}`, ms: state.now() - groupStart });
          }
        }
      }
    }
  } catch (err) {
    if (!(err instanceof StopCampaign)) throw err;
    stopped = { reason: err.reason, message: err.message };
    state.log(err.message);
  } finally {
    await next;
    state.destroy();
  }
  const summary = summarize(mine.map((p) => ({ group: p.g, strategy: p.strategy })), state.store.entries);
  const final = state.file();
  const thresholds = readThresholds([{ data: final, label: 'this campaign' }]).results;
  return {
    file: final, variants: set, summary, thresholds, measured: state.measured, errors: state.errors, reused: state.reused,
    skipped: state.skipped + localUnspent, built: state.built, buildMs: state.buildMs, measureMs: state.measureMs, stopped, elapsedMs: state.now() - started,
  };
}
