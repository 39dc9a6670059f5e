// The measure step of a campaign: every (variant, benchmark, size) a group still lacks, sizes
// outermost (every config of a size runs on the same buffers), with the device settled before
// the first timed run of a size and the first variants measured again at its end. Browser-safe.
import { type GBenchEntry } from '../bench/gbench.js';
import { configText, tunable } from './registry.js';
import { type Variant, type VariantGroup } from './variants.js';
import { type Score } from './strategy.js';
import { variantPoints, variantScore } from './summary.js';
import { entryKey } from './results.js';
import { build, buildKey } from './campaign-build.js';
import { type CampaignState, groupLabel, message, stopIfLost } from './campaign-state.js';

// The first measurements after new buffers or a build step ran slower than the same config
// measured again (lavapipe: up to 3x for the whole measurement; H200: 3.5x at 2^24 after the
// build phase left the GPU idle), and the first are always the baselines: so untimed
// measurements keep the device busy for `settleMs` (default SETTLE_MS) before the first timed
// one, and the first REMEASURED variants of each size are measured again at its end, keeping
// the faster of the two.
export const SETTLE_MS = 500;
const REMEASURED = 2;

/** Untimed runs of `v` until the device has been busy `settleMs`, where (type, size) is new. */
async function settle(state: CampaignState, g: VariantGroup, v: Variant, size: number): Promise<void> {
  const settleMs = state.o.settleMs ?? SETTLE_MS;
  const key = `${g.type}@${size}`;
  if (state.warm === key || settleMs <= 0) return;
  state.warm = key;
  const start = performance.now();
  try {
    do {
      await tunable(g.algorithm).measure(state.prim, { ...state.timing, benchmark: g.benchmarks[0]!, type: g.type, size, config: v.config, batches: 1, coldCache: false });
    } while (performance.now() - start < settleMs);
  } catch {
    // Its own measurement reports the error.
  }
}

/** Points of `v` still to measure. */
export const pendingOf = (state: CampaignState, g: VariantGroup, v: Variant): number => variantPoints(g, v.config).filter((p) => state.needs(p.name, p.size)).length;

/**
 * Builds and measures what `vs` still lacks, then scores them. `afterBuild` runs once the
 * build step is done (the campaign starts building the next group there).
 */
export async function evaluate(state: CampaignState, g: VariantGroup, vs: readonly Variant[], afterBuild?: () => void): Promise<Score[]> {
  const alg = tunable(g.algorithm);
  const { store } = state;
  const todo = vs.filter((v) => pendingOf(state, g, v) > 0);
  state.reused += vs.reduce((n, v) => n + variantPoints(g, v.config).length, 0) - todo.reduce((n, v) => n + pendingOf(state, g, v), 0);
  const failed = await build(state, g, todo);
  afterBuild?.();
  const started = performance.now();
  if (todo.length) state.warm = undefined;
  const done = async (): Promise<void> => {
    state.measured++;
    state.progress.run.done++;
    state.report('run', g);
    await state.updated();
  };
  for (const v of todo) {
    const whys = new Set<string>();
    for (const p of variantPoints(g, v.config)) {
      const why = failed.get(buildKey(v, p.benchmark));
      if (why === undefined) continue;
      whys.add(g.benchmarks.length > 1 ? `${p.benchmark}: ${why}` : why);
      if (!state.needs(p.name, p.size)) continue;
      state.checkLimit();
      store.addError(p.name, p.size, `build failed: ${why}`);
      state.errors++;
      await done();
    }
    for (const why of whys) state.log(`${groupLabel(g)} ${configText(v.config)}: ${why}`);
  }
  const measuredNow = new Set<string>();
  const firstMeasured: Variant[] = [];
  for (const size of g.sizes) {
    for (const v of todo) {
      for (const benchmark of g.benchmarks) {
        if (failed.has(buildKey(v, benchmark))) continue;
        const name = alg.benchmarkName(benchmark, g.type, v.config);
        if (!state.needs(name, size)) continue;
        state.checkBudget();
        state.checkLimit();
        await settle(state, g, v, size);
        measuredNow.add(entryKey(name, size));
        if (firstMeasured.length < REMEASURED && !firstMeasured.includes(v)) firstMeasured.push(v);
        try {
          store.addRecord(await alg.measure(state.prim, { ...state.timing, benchmark, type: g.type, size, config: v.config }));
        } catch (err) {
          stopIfLost(err);
          store.addError(name, size, message(err));
          state.errors++;
          state.log(`${groupLabel(g)} ${configText(v.config)} at ${size}: ${message(err)}`);
        }
        await done();
      }
    }
    // The first variants measured at this size in this run, again (see SETTLE_MS): keep the faster.
    for (const v of firstMeasured.splice(0)) {
      for (const benchmark of g.benchmarks) {
        const name = alg.benchmarkName(benchmark, g.type, v.config);
        if (!measuredNow.has(entryKey(name, size))) continue;
        const first = store.get(name, size);
        if (!first || (first as { error_occurred?: boolean }).error_occurred) continue;
        state.checkBudget();
        try {
          const again = await alg.measure(state.prim, { ...state.timing, benchmark, type: g.type, size, config: v.config });
          // real_time is the mean milliseconds per call, as stats.mean.
          if (again.stats.mean < (first as GBenchEntry).real_time) store.replaceRecord(again);
        } catch {
          // The first measurement stands.
        }
      }
    }
  }
  state.measureMs += performance.now() - started;
  return vs.map((v) => variantScore(g, v, (name, size) => store.get(name, size)));
}
