import { type DeviceContext } from '../../runtime/context.js';
import { byKeyConfigProblem, type ByKeyConfig, byKeyHeuristic, byKeySpace, byKeyStagedBytes } from '../scan-by-key/config.js';

/**
 * Launch config of the by-key reductions (reduce by key, both run-length encodes): the engine's,
 * and how a tile writes its runs.
 */
export interface ByKeyReduceConfig extends ByKeyConfig {
  /**
   * `direct`: each run's key (offset) and aggregate (length) stored by the invocation that
   * finds it; `staged`: CUB's two-phase scatter, a tile's runs gathered in workgroup memory
   * (`byKeyStagedBytes` of it) and copied out in order. On the H200 staged tiles took 2 to 2.5
   * times as long as direct ones of the same shape, so direct is the default.
   */
  readonly scatter: 'direct' | 'staged';
}

export const byKeyReduceSpace = { ...byKeySpace, scatter: ['direct', 'staged'] } as const;

/** What a tile stages per run, in bytes: the head's key (offset) and the tail's aggregate (length). */
export interface RunBytes {
  readonly head: number;
  readonly tail: number;
}

export function byKeyReduceProblem(ctx: DeviceContext, valueBytes: number, c: ByKeyReduceConfig, run: RunBytes): string | undefined {
  if (c.scatter !== 'direct' && c.scatter !== 'staged') return `unknown scatter "${String(c.scatter)}"`;
  return byKeyConfigProblem(ctx, valueBytes, c, c.scatter === 'staged' ? byKeyStagedBytes(c, run.head, run.tail) : 0);
}

export function byKeyReduceHeuristic(ctx: DeviceContext, keyBytes: number, valueBytes: number): ByKeyReduceConfig {
  return { ...byKeyHeuristic(ctx, keyBytes, valueBytes), scatter: 'direct' };
}
