import { type DeviceContext } from '../../runtime/context.js';
import { type TypeInfo } from '../../wgsl/types.js';
import { radixRankWorkgroupBytes } from '../../wgsl/workgroup/radix-rank.js';
import { subgroupProblem, workgroupMemoryProblem } from '../common.js';

/**
 * Launch config of the segmented radix sort (rocPRIM's `segmented_radix_sort`). One workgroup
 * per segment: a segment of at most one tile (workgroupSize * itemsPerThread keys) is sorted
 * entirely in workgroup memory (every digit pass over the tile, LSD, then written out once);
 * a longer one takes LSD passes over global memory through a scratch buffer (per pass: count
 * the segment's digits, scan them, then tile by tile rank and scatter at running offsets).
 */
export interface SegmentedRadixSortConfig {
  /** Invocations per workgroup. */
  readonly workgroupSize: number;
  /** Keys per invocation per tile. Segments of up to workgroupSize * itemsPerThread keys never leave workgroup memory. */
  readonly itemsPerThread: number;
  /** Bits per digit pass, 4..8. */
  readonly radixBits: number;
  /**
   * How a tile is ranked: `match` (subgroup ballots, src/wgsl/workgroup/radix-rank.ts; needs subgroups)
   * or `split` (one stable split per key bit through a workgroup-memory scan; runs anywhere).
   */
  readonly rank: 'match' | 'split';
  /**
   * Segments per workgroup, one after another. Above 1, segments of at most the adapter's
   * smallest subgroup size are sorted by one subgroup each (rocPRIM's warp sort; needs the
   * match rank's subgroups), while the workgroup takes the longer ones.
   */
  readonly segmentsPerWorkgroup: number;
  /**
   * Keys a lane holds in those subgroup sorts (1, 2, 4 or 8): with segmentsPerWorkgroup above 1,
   * segments of up to this many times the smallest subgroup size are sorted by one subgroup,
   * each key ranked against every key of its segment; longer ones by the workgroup. 1 where
   * the field is left out; no effect with segmentsPerWorkgroup 1 (no subgroup sorts).
   */
  readonly subgroupKeysPerLane: number;
  /**
   * `by-length`: before the sort, the segments are partitioned by length (rocPRIM's and CUB's
   * grouping; the compaction engine's partition): those longer than the subgroup sorts take go
   * first, one workgroup each, then the tiny ones, segmentsPerWorkgroup a workgroup, so a
   * workgroup never holds a long segment and tiny ones at once; segments of more than 4 tiles
   * are sorted by every workgroup at once (huge.ts). Costs a pass over the offsets, 24 bytes a
   * segment of scratch and 1 KB a tile of the huge segments. `none` (where the field is left
   * out): segment i in workgroup i / segmentsPerWorkgroup. No effect with segmentsPerWorkgroup 1.
   */
  readonly grouping: 'none' | 'by-length';
  /**
   * Grouped only: items per invocation of a second, smaller tile (0: none). Segments longer than
   * the subgroup sorts take and of at most workgroupSize * shortItemsPerThread keys are sorted
   * with it (a tile's sort costs by its size, not the segment's), in the launch that also takes
   * the tiny ones; the longer ones in a launch of their own with the full tile. Below
   * itemsPerThread; 0 where the field is left out.
   */
  readonly shortItemsPerThread: number;
}

/** The tuning space and the edges tests walk. */
export const segmentedRadixSortSpace = {
  workgroupSize: [64, 128, 256, 512, 1024],
  itemsPerThread: [1, 2, 4, 6, 8, 12, 16],
  radixBits: [4, 5, 6, 7, 8],
  rank: ['match', 'split'],
  segmentsPerWorkgroup: [1, 2, 4, 8],
  subgroupKeysPerLane: [1, 2, 4, 8],
  grouping: ['none', 'by-length'],
  shortItemsPerThread: [0, 1, 2],
} as const;

const subgroupSizes = (ctx: DeviceContext) => ({ subgroupMinSize: ctx.target.subgroupMinSize, subgroupMaxSize: ctx.target.subgroupMaxSize });

/** Bytes of workgroup memory the kernel needs. */
export function segmentedRadixSortWorkgroupBytes(ctx: DeviceContext, key: TypeInfo, valueBytes: 0 | 4 | 8, c: SegmentedRadixSortConfig): number {
  const tile = c.workgroupSize * c.itemsPerThread;
  const radix = 1 << c.radixBits;
  // The tile (keys, values), running digit offsets and a digit histogram, a few words.
  const common = tile * (Math.max(key.bytes, 4) + valueBytes) + 2 * radix * 4 + c.workgroupSize * 4 + 32;
  if (c.rank === 'split') return common + 2 * radix * 4;
  return common + radixRankWorkgroupBytes({ ...c, ...subgroupSizes(ctx) });
}

/** Why this config cannot run here for these keys and values, or undefined. */
export function segmentedRadixSortConfigProblem(ctx: DeviceContext, key: TypeInfo, valueBytes: 0 | 4 | 8, c: SegmentedRadixSortConfig): string | undefined {
  if (c.rank !== 'match' && c.rank !== 'split') return `unknown rank "${String(c.rank)}"`;
  const wg = c.workgroupSize;
  if (!Number.isInteger(wg) || wg < 32 || wg % 32 !== 0) return `workgroupSize ${wg} is not a multiple of 32 (>= 32)`;
  if (wg > ctx.limits.maxComputeInvocationsPerWorkgroup || wg > ctx.limits.maxComputeWorkgroupSizeX) {
    return `workgroupSize ${wg} exceeds this device's maxComputeInvocationsPerWorkgroup ${ctx.limits.maxComputeInvocationsPerWorkgroup}`;
  }
  if (!Number.isInteger(c.itemsPerThread) || c.itemsPerThread < 1 || c.itemsPerThread > 32) return `itemsPerThread ${c.itemsPerThread} is not an integer in [1, 32]`;
  if (!Number.isInteger(c.radixBits) || c.radixBits < 4 || c.radixBits > 8) return `radixBits ${c.radixBits} is not an integer in [4, 8]`;
  const spw = c.segmentsPerWorkgroup;
  if (!Number.isInteger(spw) || spw < 1 || spw > 64) return `segmentsPerWorkgroup ${spw} is not an integer in [1, 64]`;
  if (spw > 1 && c.rank !== 'match') return 'segmentsPerWorkgroup above 1 (subgroup sorts of tiny segments) needs rank "match"';
  const kpl = c.subgroupKeysPerLane;
  if (![1, 2, 4, 8].includes(kpl)) return `subgroupKeysPerLane ${String(kpl)} is not 1, 2, 4 or 8`;
  if (c.grouping !== 'none' && c.grouping !== 'by-length') return `unknown grouping "${String(c.grouping)}"`;
  const sipt = c.shortItemsPerThread;
  if (!Number.isInteger(sipt) || sipt < 0 || (sipt > 0 && sipt >= c.itemsPerThread)) return `shortItemsPerThread ${String(sipt)} is not 0 or an integer below itemsPerThread ${c.itemsPerThread}`;
  if (c.rank === 'match') {
    const sg = subgroupProblem(ctx, wg);
    if (sg) return `the match rank: ${sg}`;
  }
  return workgroupMemoryProblem(ctx, segmentedRadixSortWorkgroupBytes(ctx, key, valueBytes, c));
}

/**
 * The match rank where the device has subgroups, else the split rank; 256 invocations and 4
 * keys each (a 1024-key tile: CUB's and rocPRIM's common segment sizes sort in one workgroup
 * without leaving workgroup memory), 8-bit digits; smaller shapes where those do not fit. With
 * the match rank 8 segments a workgroup, 2 keys a lane in the subgroup sorts, grouped by
 * length. On an H100 (2026-12-07, u32, power-law segments of mean 23 keys) that sorted in 37.9
 * ms at 2^28 and 2.53 at 2^24, against 69.1 and 4.35 with one key a lane ungrouped; 4 keys a
 * lane 40.4 and 2.69, 8 keys 59.3 and 3.89. Grouping costs 1024-key segments 5% at 2^28 (9.94
 * against 9.47 ms) and 17% at 2^24 (0.747 against 0.638), its extra passes; it keeps a huge
 * segment from being sorted by one workgroup.
 */
export function segmentedRadixSortHeuristic(ctx: DeviceContext, key: TypeInfo, valueBytes: 0 | 4 | 8): SegmentedRadixSortConfig {
  const largest = Math.min(256, ctx.limits.maxComputeInvocationsPerWorkgroup, ctx.limits.maxComputeWorkgroupSizeX);
  const ranks = subgroupProblem(ctx, largest) === undefined ? (['match', 'split'] as const) : (['split'] as const);
  for (const rank of ranks) {
    for (const workgroupSize of [largest, 128, 64, 32]) {
      for (const itemsPerThread of [4, 2, 1]) {
        const match = rank === 'match';
        const c: SegmentedRadixSortConfig = {
          workgroupSize, itemsPerThread, radixBits: 8, rank, segmentsPerWorkgroup: match ? 8 : 1, subgroupKeysPerLane: match ? 2 : 1, grouping: match ? 'by-length' : 'none', shortItemsPerThread: 0,
        };
        if (segmentedRadixSortConfigProblem(ctx, key, valueBytes, c) === undefined) return c;
      }
    }
  }
  return { workgroupSize: 32, itemsPerThread: 1, radixBits: 4, rank: 'split', segmentsPerWorkgroup: 1, subgroupKeysPerLane: 1, grouping: 'none', shortItemsPerThread: 0 };
}
