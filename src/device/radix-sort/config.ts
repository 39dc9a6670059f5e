import { type DeviceContext } from '../../runtime/context.js';
import { type TypeInfo } from '../../wgsl/types.js';
import { launchShapeProblem, subgroupProblem, workgroupMemoryProblem } from '../common.js';

/**
 * Launch config of the portable LSD radix sort (reduce-then-scan per digit pass: an upsweep
 * histogram per tile, an exclusive scan of the digit counts, a stable scatter). It needs no
 * forward progress between workgroups, so it is correct on every GPU.
 */
export interface RadixSortConfig {
  /** Invocations per workgroup of the upsweep and the scatter. */
  readonly workgroupSize: number;
  /** Keys per invocation per tile; a multiple of 4. A tile holds workgroupSize * itemsPerThread keys. */
  readonly itemsPerThread: number;
  /** Bits sorted per pass, 4..8: 2^radixBits digit counters per tile. */
  readonly radixBits: number;
  /**
   * The workgroup scan inside the scatter's ranking (one per bit): subgroup scans and one
   * barrier, or a scan through workgroup memory only (2 log2(workgroupSize) barriers).
   */
  readonly workgroupScan: 'subgroup' | 'shared';
}

/** The tuning space and the edges tests walk. */
export const radixSortSpace = {
  workgroupSize: [64, 128, 256, 512, 1024],
  itemsPerThread: [4, 8, 12, 16, 20, 24, 32],
  radixBits: [4, 5, 6, 7, 8],
  workgroupScan: ['subgroup', 'shared'],
} as const;

/** Bytes of workgroup memory the scatter kernel needs (the larger of the two kernels). */
export function radixSortWorkgroupBytes(key: TypeInfo, valueBytes: 0 | 4 | 8, c: RadixSortConfig): number {
  const tile = c.workgroupSize * c.itemsPerThread;
  // Keys and values of the tile, the workgroup's scan array, a start per digit.
  return tile * (Math.max(key.bytes, 4) + valueBytes) + c.workgroupSize * 4 + (1 << c.radixBits) * 4 + 16;
}

export function radixSortConfigProblem(ctx: DeviceContext, key: TypeInfo, valueBytes: 0 | 4 | 8, c: RadixSortConfig): string | undefined {
  const shape = launchShapeProblem(ctx, c);
  if (shape) return shape;
  if (!Number.isInteger(c.radixBits) || c.radixBits < 4 || c.radixBits > 8) return `radixBits ${c.radixBits} is not an integer in [4, 8]`;
  if (c.workgroupScan !== 'subgroup' && c.workgroupScan !== 'shared') return `unknown workgroupScan "${String(c.workgroupScan)}"`;
  if (c.workgroupScan === 'subgroup') {
    const sg = subgroupProblem(ctx, c.workgroupSize);
    if (sg) return sg;
  }
  return workgroupMemoryProblem(ctx, radixSortWorkgroupBytes(key, valueBytes, c));
}

/** 256 invocations, 8-bit digits, subgroup scans where the device has them, the most items per thread (up to 16) whose tile fits workgroup memory. */
export function radixSortHeuristic(ctx: DeviceContext, key: TypeInfo, valueBytes: 0 | 4 | 8): RadixSortConfig {
  const workgroupSize = Math.min(256, ctx.limits.maxComputeInvocationsPerWorkgroup, ctx.limits.maxComputeWorkgroupSizeX);
  const workgroupScan = subgroupProblem(ctx, workgroupSize) === undefined ? 'subgroup' : 'shared';
  for (const itemsPerThread of [16, 12, 8, 4]) {
    const c: RadixSortConfig = { workgroupSize, itemsPerThread, radixBits: 8, workgroupScan };
    if (radixSortConfigProblem(ctx, key, valueBytes, c) === undefined) return c;
  }
  return { workgroupSize: 64, itemsPerThread: 4, radixBits: 8, workgroupScan: 'shared' };
}
