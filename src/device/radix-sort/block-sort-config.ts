import { type DeviceContext } from '../../runtime/context.js';
import { type TypeInfo } from '../../wgsl/types.js';
import { radixRankWorkgroupBytes } from '../../wgsl/workgroup/radix-rank.js';
import { subgroupProblem, workgroupMemoryProblem } from '../common.js';

/**
 * Launch config of the radix sort's small-size paths (rocPRIM's `radix_sort_block_sort` and
 * the merge passes after it). A count of at most one tile (workgroupSize * itemsPerThread) is
 * sorted by one workgroup; a count up to `maxCount` is sorted tile by tile in workgroup memory,
 * then the sorted tiles are merged pairwise (stable merge path) until one run is left; larger
 * counts take the onesweep / LSD path (`RadixSortConfig`).
 */
export interface RadixSortBlockSortConfig {
  /** Invocations per workgroup of the block sort kernel. */
  readonly workgroupSize: number;
  /** Keys per invocation: a tile holds workgroupSize * itemsPerThread keys. */
  readonly itemsPerThread: number;
  /**
   * Bits ranked per in-tile pass of the match rank (4..8: 2^radixBits counters per subgroup).
   * The split rank takes one bit per pass whatever this says.
   */
  readonly radixBits: number;
  /**
   * How a tile is sorted: `match` (repeated LSD passes of the subgroup match rank, needs
   * subgroups) or `split` (one stable split per bit through a workgroup-memory scan: portable).
   */
  readonly rank: 'match' | 'split';
  /** The merge kernel: invocations per workgroup and items each merges (one output tile is their product). */
  readonly mergeWorkgroupSize: number;
  readonly mergeItemsPerThread: number;
  /**
   * The largest count this path sorts; larger counts take onesweep. 0 forces onesweep for
   * every count; a huge value forces block sort + merge for every count.
   */
  readonly maxCount: number;
}

/** The default threshold: to be measured per device (the plan's `radix_sort_threshold` stage). */
export const RADIX_BLOCK_SORT_DEFAULT_MAX_COUNT = 2 ** 17;

/** The tuning space and the edges tests walk. `maxCount` is set by the threshold stage, not by a sweep. */
export const radixSortBlockSortSpace = {
  workgroupSize: [64, 128, 256, 512, 1024],
  itemsPerThread: [1, 2, 4, 6, 8, 10, 12, 16, 20, 24, 32],
  radixBits: [4, 5, 6, 7, 8],
  rank: ['match', 'split'],
  mergeWorkgroupSize: [64, 128, 256, 512, 1024],
  mergeItemsPerThread: [1, 2, 4, 8, 12, 16, 24, 32],
  maxCount: [RADIX_BLOCK_SORT_DEFAULT_MAX_COUNT],
} as const;

const elementBytes = (key: TypeInfo, valueBytes: 0 | 4 | 8): number => Math.max(key.bytes, 4) + valueBytes;

/** Bytes of workgroup memory the block sort kernel needs. */
export function radixBlockSortWorkgroupBytes(ctx: DeviceContext, key: TypeInfo, valueBytes: 0 | 4 | 8, c: RadixSortBlockSortConfig): number {
  const tileBytes = c.workgroupSize * c.itemsPerThread * elementBytes(key, valueBytes);
  if (c.rank === 'split') return tileBytes + c.workgroupSize * 4 + 16;
  const rank = radixRankWorkgroupBytes({ ...c, subgroupMinSize: ctx.target.subgroupMinSize, subgroupMaxSize: ctx.target.subgroupMaxSize });
  return tileBytes + rank + 16;
}

/** Bytes of workgroup memory the merge kernel needs. */
export function radixMergeWorkgroupBytes(key: TypeInfo, valueBytes: 0 | 4 | 8, c: RadixSortBlockSortConfig): number {
  return c.mergeWorkgroupSize * c.mergeItemsPerThread * elementBytes(key, valueBytes) + 16;
}

function shapeProblem(ctx: DeviceContext, wgName: string, workgroupSize: number, iptName: string, itemsPerThread: number): string | undefined {
  if (!Number.isInteger(workgroupSize) || workgroupSize < 32 || workgroupSize % 32 !== 0) return `${wgName} ${workgroupSize} is not a multiple of 32 (>= 32)`;
  if (workgroupSize > ctx.limits.maxComputeInvocationsPerWorkgroup || workgroupSize > ctx.limits.maxComputeWorkgroupSizeX) {
    return `${wgName} ${workgroupSize} exceeds this device's maxComputeInvocationsPerWorkgroup ${ctx.limits.maxComputeInvocationsPerWorkgroup}`;
  }
  if (!Number.isInteger(itemsPerThread) || itemsPerThread < 1 || itemsPerThread > 64) return `${iptName} ${itemsPerThread} is not an integer in [1, 64]`;
  return undefined;
}

/** Why this config cannot run here for these keys and values, or undefined. */
export function radixSortBlockSortProblem(ctx: DeviceContext, key: TypeInfo, valueBytes: 0 | 4 | 8, c: RadixSortBlockSortConfig): string | undefined {
  if (!c || typeof c !== 'object') return 'the config must be an object';
  if (c.rank !== 'match' && c.rank !== 'split') return `unknown rank "${String(c.rank)}"`;
  const shape = shapeProblem(ctx, 'workgroupSize', c.workgroupSize, 'itemsPerThread', c.itemsPerThread)
    ?? shapeProblem(ctx, 'mergeWorkgroupSize', c.mergeWorkgroupSize, 'mergeItemsPerThread', c.mergeItemsPerThread);
  if (shape) return shape;
  if (!Number.isInteger(c.radixBits) || c.radixBits < 4 || c.radixBits > 8) return `radixBits ${c.radixBits} is not an integer in [4, 8]`;
  if (!Number.isSafeInteger(c.maxCount) || c.maxCount < 0) return `maxCount ${c.maxCount} is not a non-negative integer`;
  if (c.rank === 'match') {
    const sg = subgroupProblem(ctx, c.workgroupSize);
    if (sg) return `the match rank: ${sg}`;
  }
  const sort = workgroupMemoryProblem(ctx, radixBlockSortWorkgroupBytes(ctx, key, valueBytes, c));
  if (sort) return `the block sort ${sort}`;
  const merge = workgroupMemoryProblem(ctx, radixMergeWorkgroupBytes(key, valueBytes, c));
  if (merge) return `the merge ${merge}`;
  return undefined;
}

/**
 * The match rank where the device has subgroups (else the split rank), 256 invocations (fewer
 * with small subgroups) and the most items per thread (16, 12, 8 or 4) that fit; 4-bit passes;
 * merge tiles of 256 x 8; maxCount RADIX_BLOCK_SORT_DEFAULT_MAX_COUNT (not yet measured).
 */
export function radixSortBlockSortHeuristic(ctx: DeviceContext, key: TypeInfo, valueBytes: 0 | 4 | 8): RadixSortBlockSortConfig {
  const largest = Math.min(256, ctx.limits.maxComputeInvocationsPerWorkgroup, ctx.limits.maxComputeWorkgroupSizeX);
  const rank = subgroupProblem(ctx, largest) === undefined ? 'match' : 'split';
  const fallback: RadixSortBlockSortConfig = { workgroupSize: 64, itemsPerThread: 4, radixBits: 4, rank: 'split', mergeWorkgroupSize: 64, mergeItemsPerThread: 4, maxCount: RADIX_BLOCK_SORT_DEFAULT_MAX_COUNT };
  // The merge tile: the most items per thread (up to 8) that fit workgroup memory.
  const mergeItemsPerThread = [8, 4, 2, 1].find((m) => workgroupMemoryProblem(ctx, radixMergeWorkgroupBytes(key, valueBytes, { ...fallback, mergeWorkgroupSize: largest, mergeItemsPerThread: m })) === undefined) ?? 1;
  const merge = { mergeWorkgroupSize: largest, mergeItemsPerThread, maxCount: RADIX_BLOCK_SORT_DEFAULT_MAX_COUNT };
  for (const workgroupSize of [largest, 128, 64]) {
    for (const itemsPerThread of [16, 12, 8, 4]) {
      const c: RadixSortBlockSortConfig = { workgroupSize, itemsPerThread, radixBits: 4, rank, ...merge };
      if (radixSortBlockSortProblem(ctx, key, valueBytes, c) === undefined) return c;
    }
  }
  return fallback;
}
