import { type DeviceContext } from '../../runtime/context.js';
import { launchShapeProblem, workgroupMemoryProblem } from '../common.js';

/** Launch config of the radix select (top-k, nth element, partial sort). */
export interface TopKConfig {
  readonly workgroupSize: number;
  /** Keys per invocation per tile; a multiple of 4. */
  readonly itemsPerThread: number;
  /** Bits of the key each pass histograms (8: 256 bins; 11: 2048, CUB's choice for 4-byte keys). */
  readonly radixBits: number;
  /** Workgroups of the counting passes: each strides over the tiles, flushing its histogram once. */
  readonly gridSize: number;
  /**
   * The second pass keeps the keys still in the running in a buffer of count / this many entries,
   * and later passes read only those; where more are left (keys sharing their high bits), every
   * pass reads the whole input.
   */
  readonly candidateDivisor: number;
}

export const topKSpace = {
  workgroupSize: [128, 256, 512, 1024],
  itemsPerThread: [4, 8, 12, 16],
  radixBits: [8, 11],
  gridSize: [132, 264, 528, 1056, 2112],
  candidateDivisor: [4, 8, 16, 64, 128],
} as const;

/** Workgroup memory of a counting pass: the bins and four counters. */
export const topKWorkgroupBytes = (c: TopKConfig): number => 4 * ((1 << c.radixBits) + 4);

export function topKConfigProblem(ctx: DeviceContext, c: TopKConfig): string | undefined {
  const shape = launchShapeProblem(ctx, c);
  if (shape) return shape;
  if (c.radixBits !== 8 && c.radixBits !== 11) return `radixBits ${c.radixBits} is not 8 or 11`;
  if (!Number.isInteger(c.gridSize) || c.gridSize < 1 || c.gridSize > 65535) return `gridSize ${c.gridSize} is not an integer in [1, 65535]`;
  if (!Number.isInteger(c.candidateDivisor) || c.candidateDivisor < 1) return `candidateDivisor ${c.candidateDivisor} is not a positive integer`;
  // The bin-choosing pass gives each of its 256 invocations 8 bins at most.
  return workgroupMemoryProblem(ctx, topKWorkgroupBytes(c));
}

/** 256 x 16, 11-bit digits (3 passes for 4-byte keys), 1056 workgroups (8 per SM on a 132-SM GPU), candidates up to n/8. */
export function topKHeuristic(ctx: DeviceContext): TopKConfig {
  const c = { workgroupSize: 256, itemsPerThread: 16, radixBits: 11, gridSize: 1056, candidateDivisor: 8 };
  return topKConfigProblem(ctx, c) ? { ...c, radixBits: 8 } : c;
}
