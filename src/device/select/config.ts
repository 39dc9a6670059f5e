import { type DeviceContext } from '../../runtime/context.js';
import { hasForwardProgress } from '../../runtime/target.js';
import { type TypeInfo } from '../../wgsl/types.js';
import { singlePassScanProblem, subgroupProblem } from '../common.js';

/** Launch config of the compaction engine (select, the partitions, unique): the scan's vocabulary. */
export interface SelectConfig {
  readonly workgroupSize: number;
  /** Elements per invocation per tile; a multiple of 4. */
  readonly itemsPerThread: number;
  /**
   * How a tile learns the counts before it: `decoupled` look-back in one pass (needs forward
   * progress between workgroups), or `reduce-then-scan` in three, correct on any GPU.
   */
  readonly lookback: 'decoupled' | 'reduce-then-scan';
  /** Workgroup-level scan of the counts: with subgroup operations, or through workgroup memory only. */
  readonly workgroupScan: 'subgroup' | 'shared';
  /**
   * How elements reach their outputs: `direct`, each invocation writes its own to their places;
   * `staged`, through the tile's runs in workgroup memory, copied out by consecutive invocations
   * (CUB's two-phase scatter: coalesced writes, for a barrier and the staging's memory), in each
   * tile that writes more elements than it has invocations (a sparser one writes directly);
   * `striped`, each subgroup reads rows of consecutive elements (one a lane) and ranks a row's
   * selected by ballot, so a row's are written to consecutive places (subgroup operations only:
   * `workgroupScan: 'subgroup'`); `rounds`, each subgroup stages one round of its share (a quad a
   * lane) at a time in workgroup memory and copies its runs out with consecutive lanes: the
   * coalesced writes of `staged` for 4 elements of workgroup memory an invocation instead of
   * `itemsPerThread` (subgroup operations only).
   */
  readonly scatter: 'direct' | 'staged' | 'striped' | 'rounds';
}

export const selectSpace = {
  workgroupSize: [64, 128, 256, 384, 512, 1024],
  itemsPerThread: [4, 8, 12, 16, 20, 24, 32],
  lookback: ['decoupled', 'reduce-then-scan'],
  workgroupScan: ['subgroup', 'shared'],
  scatter: ['direct', 'staged', 'striped', 'rounds'],
} as const;

/**
 * `counts`: the count's type (a u32, or a pair for the three-way partition); `stagedBytes`: what
 * the scatter stages in workgroup memory per element (the element, and its index where values
 * go along).
 */
export function selectConfigProblem(ctx: DeviceContext, counts: TypeInfo, stagedBytes: number, c: SelectConfig): string | undefined {
  if (!(selectSpace.scatter as readonly string[]).includes(c.scatter)) return `unknown scatter "${String(c.scatter)}"`;
  if (c.scatter === 'striped' && c.workgroupScan !== 'subgroup') return "scatter 'striped' ranks by subgroup ballot: it needs workgroupScan 'subgroup'";
  if (c.scatter === 'rounds' && c.workgroupScan !== 'subgroup') return "scatter 'rounds' stages a subgroup's rounds: it needs workgroupScan 'subgroup'";
  const staging = c.scatter === 'staged' ? c.itemsPerThread : c.scatter === 'rounds' ? 4 : 0;
  return singlePassScanProblem(ctx, c, counts.bytes, 12 + c.workgroupSize * staging * stagedBytes);
}

/**
 * 256 invocations; with subgroup operations the round-staged scatter (on an H100 it matched or
 * beat direct stores in every sub-algorithm, 1.0x for unique to 1.7x for partition at 2^28 u32) and
 * 16 items (8 for 8-byte elements), else each invocation writes its own elements and 16 items
 * (8 where the element and its staged index pass 4 bytes).
 */
export function selectHeuristic(ctx: DeviceContext, counts: TypeInfo, elementBytes: number, stagedBytes: number): SelectConfig {
  const subgroups = subgroupProblem(ctx, 256) === undefined;
  const base = {
    workgroupSize: 256,
    scatter: subgroups ? 'rounds' as const : 'direct' as const,
    lookback: hasForwardProgress(ctx.target) ? 'decoupled' as const : 'reduce-then-scan' as const,
    workgroupScan: subgroups ? 'subgroup' as const : 'shared' as const,
  };
  const fits = [(subgroups ? elementBytes : stagedBytes) > 4 ? 8 : 16, 4].find((itemsPerThread) => !selectConfigProblem(ctx, counts, stagedBytes, { ...base, itemsPerThread }));
  return { ...base, itemsPerThread: fits ?? 4 };
}
