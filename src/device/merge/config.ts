import { type DeviceContext } from '../../runtime/context.js';
import { type TypeInfo } from '../../wgsl/types.js';
import { workgroupMemoryProblem } from '../common.js';

/**
 * Launch config of a merge tile kernel (the device merge, and the merge sort's merge passes):
 * a workgroup makes one output tile of workgroupSize * itemsPerThread elements, each
 * invocation merging itemsPerThread of them from workgroup memory (rocPRIM's `merge_config`
 * and `merge_sort_block_merge_config`'s merge-path block and items).
 */
export interface MergeConfig {
  /** Invocations per workgroup: a multiple of 32. */
  readonly workgroupSize: number;
  /** Elements each invocation merges: 1..32 (not tied to a vector width: CUB's merge takes 15). */
  readonly itemsPerThread: number;
}

export const mergeSpace = {
  workgroupSize: [64, 128, 256, 512, 1024],
  itemsPerThread: [2, 4, 6, 8, 10, 12, 15, 16, 20, 24, 32],
} as const;

/** Bytes one element takes in a tile in workgroup memory: its key word(s) and its value. */
export const tileElementBytes = (key: TypeInfo, valueBytes: number): number => Math.max(key.bytes, 4) + valueBytes;

/** Why a tile shape cannot run here, or undefined; `extraBytes`: workgroup memory beside the tile. */
export function tileShapeProblem(ctx: DeviceContext, key: TypeInfo, valueBytes: number, c: MergeConfig, extraBytes: number): string | undefined {
  if (!c || typeof c !== 'object') return 'the config must be an object';
  if (!Number.isInteger(c.workgroupSize) || c.workgroupSize < 32 || c.workgroupSize % 32 !== 0) return `workgroupSize ${c.workgroupSize} is not a multiple of 32 (>= 32)`;
  if (c.workgroupSize > ctx.limits.maxComputeInvocationsPerWorkgroup || c.workgroupSize > ctx.limits.maxComputeWorkgroupSizeX) {
    return `workgroupSize ${c.workgroupSize} exceeds this device's maxComputeInvocationsPerWorkgroup ${ctx.limits.maxComputeInvocationsPerWorkgroup}`;
  }
  if (!Number.isInteger(c.itemsPerThread) || c.itemsPerThread < 1 || c.itemsPerThread > 32) return `itemsPerThread ${c.itemsPerThread} is not an integer in [1, 32]`;
  return workgroupMemoryProblem(ctx, c.workgroupSize * c.itemsPerThread * tileElementBytes(key, valueBytes) + extraBytes);
}

/** The merge tile kernel's workgroup memory is its tile alone (its bounds come from the partition pass). */
export function mergeConfigProblem(ctx: DeviceContext, key: TypeInfo, valueBytes: number, c: MergeConfig): string | undefined {
  return tileShapeProblem(ctx, key, valueBytes, c, 0);
}

/**
 * `invocations` (256 by default; fewer where the device allows fewer) and the most items of
 * `items` whose tile fits workgroup memory.
 */
export function tileHeuristic(ctx: DeviceContext, key: TypeInfo, valueBytes: number, items: readonly number[], extraBytes: number, invocations = 256): MergeConfig {
  const workgroupSize = Math.min(invocations, ctx.limits.maxComputeInvocationsPerWorkgroup, ctx.limits.maxComputeWorkgroupSizeX);
  for (const wg of [workgroupSize, 128, 64].filter((w) => w <= workgroupSize)) {
    for (const itemsPerThread of items) {
      const c = { workgroupSize: wg, itemsPerThread };
      if (!tileShapeProblem(ctx, key, valueBytes, c, extraBytes)) return c;
    }
  }
  return { workgroupSize: 64, itemsPerThread: 1 };
}

/** The merge: 256 x up to 11 items, the H200's tuned row (CUB's DeviceMerge takes 512 x 15, rocPRIM 256 x 10). */
export const mergeHeuristic = (ctx: DeviceContext, key: TypeInfo, valueBytes: number): MergeConfig =>
  tileHeuristic(ctx, key, valueBytes, [11, 8, 6, 4, 2, 1], 0);
