import { type DeviceContext } from '../../runtime/context.js';
import { type TypeInfo } from '../../wgsl/types.js';
import { launchShapeProblem, workgroupMemoryProblem } from '../common.js';

/** Launch config of lower bound, upper bound and binary search (one kernel, a table each). */
export interface BinarySearchConfig {
  readonly workgroupSize: number;
  /** Needles each invocation searches at once, interleaved so their dependent loads overlap. */
  readonly needlesPerThread: number;
  /**
   * Levels of the splitter tree (the 2^levels - 1 haystack keys at j * n / 2^levels) each
   * workgroup copies into workgroup memory before searching: the first steps of every needle then
   * read no global memory. 0: none. The copy costs a workgroup 2^levels loads, which its
   * workgroupSize * needlesPerThread needles amortise.
   */
  readonly cacheLevels: number;
}

export const binarySearchSpace = {
  workgroupSize: [64, 128, 256, 512, 1024],
  needlesPerThread: [1, 2, 4, 8, 16],
  cacheLevels: [0, 6, 8, 10, 11, 12],
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
 * 256 invocations of 8 needles, each with eight independent loads in flight: 2^20 needles fill a
 * large GPU in one wave. 10 levels cached (1023 splitters, 4 KiB of 32-bit keys): half a load per
 * needle to fill, 10 dependent global reads saved per needle. Fewer levels where workgroup memory
 * is short.
 */
export function binarySearchHeuristic(ctx: DeviceContext, t: TypeInfo): BinarySearchConfig {
  for (const cacheLevels of [10, 8, 6]) {
    const c = { workgroupSize: 256, needlesPerThread: 8, cacheLevels };
    if (!binarySearchConfigProblem(ctx, t, c)) return c;
  }
  return { workgroupSize: 64, needlesPerThread: 4, cacheLevels: 0 };
}
