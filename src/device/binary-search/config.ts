import { type DeviceContext } from '../../runtime/context.js';
import { type TypeInfo } from '../../wgsl/types.js';
import { launchShapeProblem, workgroupMemoryProblem } from '../common.js';

/** Launch config of lower bound, upper bound and binary search (one kernel, a table each). */
export interface BinarySearchConfig {
  readonly workgroupSize: number;
  /** Needles each invocation searches at once, interleaved so their dependent loads overlap. */
  readonly needlesPerThread: number;
  /**
   * Levels of the haystack's implicit search tree (its first 2^levels - 1 pivots) each workgroup
   * copies into workgroup memory before searching: the first steps of every needle then read no
   * global memory. 0: none.
   */
  readonly cacheLevels: number;
}

export const binarySearchSpace = {
  workgroupSize: [64, 128, 256, 512, 1024],
  needlesPerThread: [1, 2, 4, 8],
  cacheLevels: [0, 6, 8, 10, 12],
} as const;

/** Bytes of one cached pivot: its ordered bits (a word, or two for 8-byte keys), or the key itself under a custom order. */
export const pivotBytes = (t: TypeInfo): number => Math.max(4, t.bytes);

export function binarySearchConfigProblem(ctx: DeviceContext, t: TypeInfo, c: BinarySearchConfig): string | undefined {
  const shape = launchShapeProblem(ctx, { workgroupSize: c.workgroupSize, itemsPerThread: 4 });
  if (shape) return shape;
  if (!Number.isInteger(c.needlesPerThread) || c.needlesPerThread < 1 || c.needlesPerThread > 16) return `needlesPerThread ${c.needlesPerThread} is not an integer in [1, 16]`;
  if (!Number.isInteger(c.cacheLevels) || c.cacheLevels < 0 || c.cacheLevels > 14) return `cacheLevels ${c.cacheLevels} is not an integer in [0, 14]`;
  return c.cacheLevels > 0 ? workgroupMemoryProblem(ctx, (1 << c.cacheLevels) * pivotBytes(t)) : undefined;
}

/**
 * 256 invocations of 4 needles: a quarter of the invocations for the same needles, each with four
 * loads in flight. The top 8 levels (255 pivots) cached: every needle reads them, so they cost
 * a workgroup a quarter of a load per needle and save each needle 8 dependent reads.
 */
export function binarySearchHeuristic(ctx: DeviceContext, t: TypeInfo): BinarySearchConfig {
  const base = { workgroupSize: 256, needlesPerThread: 4, cacheLevels: 8 };
  return binarySearchConfigProblem(ctx, t, base) ? { ...base, workgroupSize: 64, cacheLevels: 0 } : base;
}
