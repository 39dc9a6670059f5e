import { type DeviceContext } from '../../runtime/context.js';
import { isSoftwareAdapter } from '../../runtime/target.js';

/**
 * Launch config of the batch copy. Every range's whole destination words are cut into units of
 * `lanes * wordsPerLane` words; a group of `lanes` invocations copies a contiguous run of units
 * (the ranges' unit counts scanned, so one search finds a group's first range), which spreads a
 * large range over many groups and gives a small one a single group (rocPRIM's size classes,
 * load-balanced by the scan instead of sorted into queues).
 */
export interface BatchCopyConfig {
  readonly workgroupSize: number;
  /** Invocations that copy one unit together, strided (coalesced) over its words: 4..32. */
  readonly lanes: number;
  /** Words each lane copies per unit: a unit is lanes x wordsPerLane words. */
  readonly wordsPerLane: number;
  /** Workgroups of the copy pass (a persistent grid: WebGPU cannot query the number of cores). */
  readonly workgroups: number;
}

export const batchCopySpace = {
  workgroupSize: [64, 128, 256, 512],
  lanes: [4, 8, 16, 32],
  wordsPerLane: [1, 2, 4, 8],
  workgroups: [64, 256, 512, 1024, 2048, 4096],
} as const;

export function batchCopyProblem(ctx: DeviceContext, c: BatchCopyConfig): string | undefined {
  if (!Number.isInteger(c.workgroupSize) || c.workgroupSize < 32 || c.workgroupSize % 32 !== 0) return `workgroupSize ${c.workgroupSize} is not a multiple of 32 (>= 32)`;
  if (c.workgroupSize > ctx.limits.maxComputeInvocationsPerWorkgroup || c.workgroupSize > ctx.limits.maxComputeWorkgroupSizeX) {
    return `workgroupSize ${c.workgroupSize} exceeds this device's maxComputeInvocationsPerWorkgroup ${ctx.limits.maxComputeInvocationsPerWorkgroup}`;
  }
  if (![4, 8, 16, 32].includes(c.lanes)) return `lanes ${c.lanes} is not 4, 8, 16 or 32`;
  if (![1, 2, 4, 8].includes(c.wordsPerLane)) return `wordsPerLane ${c.wordsPerLane} is not 1, 2, 4 or 8`;
  if (!Number.isInteger(c.workgroups) || c.workgroups < 1 || c.workgroups > ctx.limits.maxComputeWorkgroupsPerDimension) {
    return `workgroups ${c.workgroups} is not in [1, ${ctx.limits.maxComputeWorkgroupsPerDimension}]`;
  }
  return undefined;
}

/** 256 invocations in groups of 32 (a warp per unit of 128 words); a grid that fills a large GPU, a small one on a CPU. */
export function batchCopyHeuristic(ctx: DeviceContext): BatchCopyConfig {
  return { workgroupSize: 256, lanes: 32, wordsPerLane: 4, workgroups: isSoftwareAdapter(ctx.target) ? 64 : 2048 };
}
