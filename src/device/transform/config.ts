import { type DeviceContext } from '../../runtime/context.js';
import { launchShapeProblem } from '../common.js';

/** Launch config of the element-wise transform. */
export interface TransformConfig {
  readonly workgroupSize: number;
  /** Elements per invocation; a multiple of 4 (quads move as 16-byte accesses). */
  readonly itemsPerThread: number;
}

export const transformSpace = {
  workgroupSize: [64, 128, 256, 512, 1024],
  itemsPerThread: [4, 8, 16, 32],
} as const;

export function transformConfigProblem(ctx: DeviceContext, c: TransformConfig): string | undefined {
  return launchShapeProblem(ctx, c);
}

export function transformHeuristic(): TransformConfig {
  return { workgroupSize: 256, itemsPerThread: 8 };
}
