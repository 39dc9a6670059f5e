import { type DeviceContext } from '../../runtime/context.js';
import { hasForwardProgress } from '../../runtime/target.js';
import { type TypeInfo } from '../../wgsl/types.js';
import { singlePassScanProblem, subgroupProblem } from '../common.js';

/** Launch config of the device-wide scans. */
export interface ScanConfig {
  readonly workgroupSize: number;
  /** Elements per invocation per tile; a multiple of 4. */
  readonly itemsPerThread: number;
  /**
   * How a tile learns its prefix: `decoupled` is the single-pass chained scan with decoupled
   * look-back (needs forward progress between workgroups); `reduce-then-scan` takes three
   * passes and is correct on any GPU.
   */
  readonly lookback: 'decoupled' | 'reduce-then-scan';
  /** Workgroup-level scan: with subgroup operations, or through workgroup memory only. */
  readonly workgroupScan: 'subgroup' | 'shared';
}

/** The tuning space (issue: autotuning) and the edges tests walk. */
export const scanSpace = {
  workgroupSize: [64, 128, 192, 256, 384, 512, 768, 1024],
  itemsPerThread: [4, 8, 12, 16, 20, 24, 32],
  lookback: ['decoupled', 'reduce-then-scan'],
  workgroupScan: ['subgroup', 'shared'],
} as const;

export function scanConfigProblem(ctx: DeviceContext, t: TypeInfo, c: ScanConfig, subgroupMinSize = ctx.target.subgroupMinSize): string | undefined {
  return singlePassScanProblem(ctx, c, t.bytes, 8, subgroupMinSize);
}

export function scanHeuristic(ctx: DeviceContext, t: TypeInfo): ScanConfig {
  const subgroup = subgroupProblem(ctx, 256) === undefined;
  return {
    workgroupSize: 256,
    itemsPerThread: t.bytes >= 8 ? 8 : 16,
    lookback: hasForwardProgress(ctx.target) ? 'decoupled' : 'reduce-then-scan',
    workgroupScan: subgroup ? 'subgroup' : 'shared',
  };
}
