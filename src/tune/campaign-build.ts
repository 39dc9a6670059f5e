// The build step of a campaign: compile the variants' pipelines, run each once under error
// scopes, and record what failed; and building ahead, which compiles the next group's pipelines
// while this one is measured (compiling dominates a GPU campaign: the H200 builds about 7
// radix-sort pipelines a second through Dawn). Browser-safe.
import { type WgprimError } from '../runtime/errors.js';
import { tunable } from './registry.js';
import { type Variant, type VariantGroup } from './variants.js';
import { StopCampaign } from './campaign-types.js';
import { type CampaignState, type SmallBuffers, message, pool } from './campaign-state.js';

/** Key of what failed to build: a variant with one of its benchmarks. */
export const buildKey = (v: Variant, benchmark: string): string => `${v.key}|${benchmark}`;

/** Records one call of each of `vs`' benchmarks into throwaway encoders: compiles their pipelines (cached by the device context). */
async function compile(state: CampaignState, g: VariantGroup, vs: readonly Variant[], failed?: Map<string, string>): Promise<void> {
  const alg = tunable(g.algorithm);
  const count = Math.max(...vs.map((v) => alg.fullCoverageCount(v.config)));
  const buffers = state.smallBuffers(g.type, count);
  const at = (v: Variant): SmallBuffers => ({ ...buffers, count: alg.fullCoverageCount(v.config) });
  await pool(vs, state.settings.buildConcurrency, async (v) => {
    for (const b of g.benchmarks) {
      try {
        await alg.record(state.prim, state.device.createCommandEncoder({ label: 'wgprim.tune.compile' }), at(v), g.type, v.config, b);
      } catch (err) {
        failed?.set(buildKey(v, b), message(err));
      }
    }
  });
}

/**
 * Build: compile the variants' pipelines, `buildConcurrency` at a time (recording a call
 * compiles every pipeline it needs), then run one small call of each with error scopes
 * around it (drivers that compile at first use, as lavapipe does, compile here). Returns what
 * failed, with why, per variant and benchmark (`buildKey`): a sort config whose tile fits
 * workgroup memory with keys only fails its pairs benchmark alone, and its keys are measured.
 */
export async function build(state: CampaignState, g: VariantGroup, vs: readonly Variant[]): Promise<Map<string, string>> {
  const failed = new Map<string, string>();
  if (!vs.length) return failed;
  const started = performance.now();
  const alg = tunable(g.algorithm);
  const device = state.device;
  await compile(state, g, vs, failed);
  const buffers = state.smallBuffers(g.type, Math.max(...vs.map((v) => alg.fullCoverageCount(v.config))));
  for (const v of vs) {
    for (const b of g.benchmarks) {
      if (failed.has(buildKey(v, b))) continue;
      state.checkBudget();
      device.pushErrorScope('internal');
      device.pushErrorScope('out-of-memory');
      device.pushErrorScope('validation');
      let thrown: unknown;
      try {
        const enc = device.createCommandEncoder({ label: 'wgprim.tune.build' });
        await alg.record(state.prim, enc, { ...buffers, count: alg.fullCoverageCount(v.config) }, g.type, v.config, b);
        device.queue.submit([enc.finish()]);
        await device.queue.onSubmittedWorkDone();
      } catch (err) {
        thrown = err;
      }
      const scoped = [await device.popErrorScope(), await device.popErrorScope(), await device.popErrorScope()].find((e) => e);
      if (thrown || scoped) failed.set(buildKey(v, b), thrown ? message(thrown) : `WebGPU error: ${message(scoped)}`);
      if ((thrown as WgprimError)?.code === 'device-lost') throw new StopCampaign('device-lost', message(thrown));
    }
    state.progress.build.done++;
    state.built++;
    state.report('build', g);
  }
  state.buildMs += performance.now() - started;
  return failed;
}

/**
 * Starts compiling `vs` (the next group's variants) in the background and returns a promise that
 * settles when done; errors are left to that group's own build, which reports them. The build
 * step then finds the pipelines in the device context's cache.
 */
export function buildAhead(state: CampaignState, g: VariantGroup, vs: readonly Variant[]): Promise<void> {
  const todo = vs.filter((v) => g.sizes.some((size) => g.benchmarks.some((b) => state.needs(tunable(g.algorithm).benchmarkName(b, g.type, v.config), size))));
  if (!todo.length) return Promise.resolve();
  return compile(state, g, todo).catch(() => undefined);
}
