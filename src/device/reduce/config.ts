import { type DeviceContext } from '../../runtime/context.js';
import { type TypeInfo } from '../../wgsl/types.js';
import { isPowerOfTwo, launchShapeProblem, subgroupProblem, workgroupMemoryProblem } from '../common.js';

/** Launch config of the device-wide reduction. */
export interface ReduceConfig {
  readonly workgroupSize: number;
  /** Elements per invocation per tile; a multiple of 4. */
  readonly itemsPerThread: number;
  /** Most workgroups of the first pass; each loops over tiles (the grid stays resident). */
  readonly maxWorkgroups: number;
  /** Workgroup-level reduction: with subgroup operations, or a tree in workgroup memory. */
  readonly workgroupReduce: 'subgroup' | 'shared';
}

export const reduceSpace = {
  workgroupSize: [64, 128, 256, 512, 1024],
  itemsPerThread: [4, 8, 16, 24, 32],
  maxWorkgroups: [256, 512, 1024, 2048, 4096, 8192],
  workgroupReduce: ['subgroup', 'shared'],
} as const;

export function reduceConfigProblem(ctx: DeviceContext, t: TypeInfo, c: ReduceConfig): string | undefined {
  if (c.workgroupReduce !== 'subgroup' && c.workgroupReduce !== 'shared') return `unknown workgroupReduce "${String(c.workgroupReduce)}"`;
  const shape = launchShapeProblem(ctx, c);
  if (shape) return shape;
  // The workgroup-memory tree halves the workgroup each step.
  if (!isPowerOfTwo(c.workgroupSize)) return `workgroupSize ${c.workgroupSize} is not a power of two (reduce)`;
  if (!Number.isInteger(c.maxWorkgroups) || c.maxWorkgroups < 1 || c.maxWorkgroups > 65535) return `maxWorkgroups ${c.maxWorkgroups} is not in [1, 65535]`;
  if (c.workgroupReduce === 'subgroup') {
    const sg = subgroupProblem(ctx, c.workgroupSize);
    if (sg) return sg;
  }
  return workgroupMemoryProblem(ctx, c.workgroupSize * t.bytes + 8);
}

export function reduceHeuristic(ctx: DeviceContext, t: TypeInfo): ReduceConfig {
  return {
    workgroupSize: 256,
    itemsPerThread: t.bytes >= 8 ? 8 : 16,
    maxWorkgroups: 2048,
    workgroupReduce: subgroupProblem(ctx, 256) === undefined ? 'subgroup' : 'shared',
  };
}
