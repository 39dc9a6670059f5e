import { type DeviceContext } from '../../runtime/context.js';
import { type TypeInfo } from '../../wgsl/types.js';
import { launchShapeProblem, workgroupMemoryProblem } from '../common.js';

/**
 * Launch config of the adjacent difference (rocPRIM's `adjacent_difference_config`: block size
 * and items per thread; loads and stores are always the vectorized quads of the transform).
 */
export interface AdjacentDifferenceConfig {
  readonly workgroupSize: number;
  /** Elements per invocation per tile; a multiple of 4 (quads move as 16-byte accesses). */
  readonly itemsPerThread: number;
}

export const adjacentDifferenceSpace = {
  workgroupSize: [64, 128, 256, 512, 1024],
  itemsPerThread: [4, 8, 12, 16, 24, 32],
} as const;

/** Workgroup memory a tile uses: one edge element per quad (what a neighbouring quad needs). */
export const edgeBytes = (t: TypeInfo, c: AdjacentDifferenceConfig): number => ((c.workgroupSize * c.itemsPerThread) / 4) * Math.max(t.bytes, 4);

export function adjacentDifferenceProblem(ctx: DeviceContext, t: TypeInfo, c: AdjacentDifferenceConfig): string | undefined {
  return launchShapeProblem(ctx, c) ?? workgroupMemoryProblem(ctx, edgeBytes(t, c));
}

/** The transform's shape: 256 invocations of 8 items (4 quads of 16 bytes for 32-bit types, 8 for 64-bit ones). */
export function adjacentDifferenceHeuristic(ctx: DeviceContext, t: TypeInfo): AdjacentDifferenceConfig {
  const c = { workgroupSize: 256, itemsPerThread: t.bytes === 2 ? 16 : 8 };
  return adjacentDifferenceProblem(ctx, t, c) ? { workgroupSize: 64, itemsPerThread: 4 } : c;
}
