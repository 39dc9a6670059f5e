import { type DeviceContext } from '../../runtime/context.js';
import { isSoftwareAdapter } from '../../runtime/target.js';
import { type TypeInfo } from '../../wgsl/types.js';
import { launchShapeProblem } from '../common.js';

/**
 * Launch config of the early-exit scanner behind the find family (rocPRIM's `{block, ipt}` of
 * adjacent_find, find_first_of and search_n, plus the persistent grid CUB's FindIf has).
 */
export interface FindConfig {
  readonly workgroupSize: number;
  /** Candidate positions per invocation per tile; a multiple of 4 (quads move as 16-byte loads). */
  readonly itemsPerThread: number;
  /**
   * Workgroups launched (at most one per tile): each takes tiles in order from a ticket until
   * the tiles run out or a match lies before its next tile. Changes the launch, not the kernel.
   */
  readonly grid: number;
}

export const findSpace = {
  workgroupSize: [64, 128, 256, 512, 1024],
  itemsPerThread: [4, 8, 16, 32],
  grid: [16, 64, 128, 256, 512, 1024, 2048, 4096],
} as const;

export function findConfigProblem(ctx: DeviceContext, c: FindConfig): string | undefined {
  const shape = launchShapeProblem(ctx, c);
  if (shape) return shape;
  if (!Number.isInteger(c.grid) || c.grid < 1 || c.grid > ctx.limits.maxComputeWorkgroupsPerDimension) {
    return `grid ${String(c.grid)} is not an integer in [1, ${ctx.limits.maxComputeWorkgroupsPerDimension}]`;
  }
  return undefined;
}

/**
 * 256 invocations, 16 items (8 for 8-byte types); 512 workgroups on a GPU, about 4 of 256 per SM
 * of the H200 (132 SMs): some 8 MB of loads in flight, enough for its bandwidth, while every tile
 * in flight when the match is found is read for nothing (a larger grid reads more past an early
 * match); few on a CPU adapter, whose workgroups run a few at a time. Not measured yet: `grid`
 * is tuned with the match at the end and a hundredth in.
 */
export function findHeuristic(ctx: DeviceContext, t: TypeInfo): FindConfig {
  return { workgroupSize: 256, itemsPerThread: t.bytes > 4 ? 8 : 16, grid: isSoftwareAdapter(ctx.target) ? 64 : 512 };
}
