import { type DeviceContext } from '../../runtime/context.js';
import { type TypeInfo } from '../../wgsl/types.js';
import { type MergeConfig, mergeConfigProblem, mergeSpace, tileHeuristic, tileShapeProblem } from '../merge/config.js';

/**
 * The merge sort's first stage (rocPRIM's `merge_sort_block_sort`): a workgroup sorts one tile
 * of workgroupSize * itemsPerThread keys in workgroup memory: each invocation its
 * itemsPerThread keys in registers, then rounds of merge path between runs of the tile.
 */
export type MergeSortBlockSortConfig = MergeConfig;
/**
 * The merge sort's second stage (rocPRIM's `merge_sort_block_merge`): the merge passes over
 * the sorted tiles, a workgroup an output tile of workgroupSize * itemsPerThread elements.
 */
export type MergeSortBlockMergeConfig = MergeConfig;

export const mergeSortBlockSortSpace = {
  workgroupSize: [64, 128, 256, 512, 1024],
  itemsPerThread: [1, 2, 4, 6, 8, 10, 12, 15, 16, 17, 20, 24, 32],
} as const;
export const mergeSortBlockMergeSpace = mergeSpace;

export const mergeSortBlockSortProblem = (ctx: DeviceContext, key: TypeInfo, valueBytes: number, c: MergeSortBlockSortConfig): string | undefined =>
  tileShapeProblem(ctx, key, valueBytes, c, 0);
export const mergeSortBlockMergeProblem = mergeConfigProblem;

/** 256 invocations and up to 16 keys each (rocPRIM: 256 or 512 x 8; CUB 256 x 17): the largest tile that fits. */
export const mergeSortBlockSortHeuristic = (ctx: DeviceContext, key: TypeInfo, valueBytes: number): MergeSortBlockSortConfig =>
  tileHeuristic(ctx, key, valueBytes, [16, 12, 8, 4, 2, 1], 0);
/**
 * 256 invocations and up to 11 items each that fit: the H200's tuned keys row (its pairs row, 128
 * x 11, is within 1% of it). Larger tiles there cost more in the merge than they save in the
 * partition pass.
 */
export const mergeSortBlockMergeHeuristic = (ctx: DeviceContext, key: TypeInfo, valueBytes: number): MergeSortBlockMergeConfig =>
  tileHeuristic(ctx, key, valueBytes, [11, 8, 4, 2, 1], 0);
