import { type DeviceContext } from '../../runtime/context.js';
import { hasForwardProgress } from '../../runtime/target.js';
import { singlePassScanProblem, subgroupProblem } from '../common.js';

/**
 * Launch config of the by-key engine (scan by key, reduce by key, run-length encode): the scan's
 * vocabulary, so the segmented scans run on scan's tuned rows unchanged.
 */
export interface ByKeyConfig {
  readonly workgroupSize: number;
  /** Elements per invocation per tile; a multiple of 4. */
  readonly itemsPerThread: number;
  /** `decoupled` look-back in one pass (needs forward progress between workgroups), or `reduce-then-scan` (three passes, any GPU). */
  readonly lookback: 'decoupled' | 'reduce-then-scan';
  /** Workgroup-level scan of the pairs: with subgroup operations, or through workgroup memory only. */
  readonly workgroupScan: 'subgroup' | 'shared';
}

export const byKeySpace = {
  workgroupSize: [64, 128, 192, 256, 384, 512, 1024],
  itemsPerThread: [4, 8, 12, 16, 20, 24, 32],
  lookback: ['decoupled', 'reduce-then-scan'],
  workgroupScan: ['subgroup', 'shared'],
} as const;

/** Bytes of the scanned pair: a head count and the value (4 or 8 bytes). */
export const pairBytes = (valueBytes: number): number => (valueBytes > 4 ? 12 : 8);

export function byKeyConfigProblem(ctx: DeviceContext, valueBytes: number, c: ByKeyConfig, stagedBytes = 0): string | undefined {
  return singlePassScanProblem(ctx, c, 16, 12 + stagedBytes);
}

/**
 * Workgroup memory of a reduction's (runs') two-phase scatter: a tile of heads' keys (offsets)
 * and one more than a tile of tails' aggregates (lengths), and the two end marks.
 */
export const byKeyStagedBytes = (c: ByKeyConfig, headBytes: number, tailBytes: number): number =>
  c.workgroupSize * c.itemsPerThread * (headBytes + tailBytes) + tailBytes + 8;

/** 256 invocations; rocPRIM's 16 items scaled down by the key and value's width (scan_by_key_config). */
export function byKeyHeuristic(ctx: DeviceContext, keyBytes: number, valueBytes: number): ByKeyConfig {
  return {
    workgroupSize: 256,
    itemsPerThread: keyBytes + valueBytes > 8 ? 8 : 12,
    lookback: hasForwardProgress(ctx.target) ? 'decoupled' : 'reduce-then-scan',
    workgroupScan: subgroupProblem(ctx, 256) === undefined ? 'subgroup' : 'shared',
  };
}
