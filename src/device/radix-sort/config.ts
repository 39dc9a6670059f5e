import { type DeviceContext } from '../../runtime/context.js';
import { LOOKBACK_PAYLOAD_BITS } from '../../wgsl/device/lookback.js';
import { type TypeInfo } from '../../wgsl/types.js';
import { radixRankSpareWord, radixRankWorkgroupBytes } from '../../wgsl/workgroup/radix-rank.js';
import { subgroupProblem, workgroupMemoryProblem } from '../common.js';
import { onesweepRank } from './onesweep-kernel.js';
import { hasForwardProgress, isSoftwareAdapter } from '../../runtime/target.js';

/**
 * Launch config of the LSD radix sort (rocPRIM's `radix_sort_onesweep`). Each digit pass ranks
 * a tile of workgroupSize * itemsPerThread keys in workgroup memory and writes it out digit by
 * digit; where each tile's digits go comes from a single pass with decoupled look-back
 * (onesweep, after one histogram pass over all digit places), or from an upsweep of per-tile
 * counts and a scan of them (reduce-then-scan: no forward progress needed, correct on every GPU).
 */
export interface RadixSortConfig {
  /** Invocations per workgroup of the sort (and upsweep) kernels. */
  readonly workgroupSize: number;
  /** Keys per invocation per tile. A tile holds workgroupSize * itemsPerThread keys. */
  readonly itemsPerThread: number;
  /** Bits sorted per pass, 4..8: 2^radixBits digit counters per tile. */
  readonly radixBits: number;
  /**
   * How a tile is ranked: `match` (subgroup ballots find equal digits, one atomic per digit
   * group; needs subgroups) or `split` (one stable split per bit, through workgroup scans).
   */
  readonly rank: 'match' | 'split';
  /** The workgroup scan of the split rank: subgroup scans, or workgroup memory only. */
  readonly workgroupScan: 'subgroup' | 'shared';
  /** `decoupled`: onesweep (needs forward progress and the match rank); `reduce-then-scan`: portable. */
  readonly lookback: 'decoupled' | 'reduce-then-scan';
  /** Onesweep's histogram pass: invocations per workgroup and keys per invocation per tile. */
  readonly histogramWorkgroupSize: number;
  readonly histogramItemsPerThread: number;
  /**
   * With lookback `reduce-then-scan`: counts up to this take decoupled look-back instead (onesweep,
   * same tile; needs the match rank and forward progress). Onesweep launches fewer kernels and
   * reads the keys once less per pass, which wins below a device-specific size; 0: never. A
   * threshold, set by the plan's `radix_sort_threshold` stage; tables written before it existed
   * read as 0.
   */
  readonly decoupledMaxCount: number;
  /**
   * `specialized`: kernels by a pass's place: the first pass transforms the keys it loads into
   * ordered bits and the last transforms what it stores back, the passes between move ordered
   * bits untouched; 8-byte keys also by the word that holds the digit. Fewer instructions a key
   * (the sort kernel is bound by them), at up to four pipelines per key type instead of one. `shared`: one kernel for every pass, for CPU adapters, where compiling
   * costs more than it saves. Tables written before it existed read as `specialized`.
   */
  readonly passKernels: 'specialized' | 'shared';
}

/** The tuning space and the edges tests walk. */
export const radixSortSpace = {
  // 320 and 384: tiles between 256's and 512's within the same workgroup memory (8-byte keys
  // can gain from them).
  workgroupSize: [64, 128, 256, 320, 384, 512, 1024],
  // 22 and 11: the heuristic's 32-bit and 64-bit key tiles (RADIX_SORT_KEY_WORDS_PER_INVOCATION);
  // 23 and 11: the largest within 24 KiB at 256 invocations (RADIX_SORT_BYTES_PER_INVOCATION);
  // 9 and 7 the same for 8-byte keys at 320 and 384.
  itemsPerThread: [4, 6, 7, 8, 9, 10, 11, 12, 13, 14, 16, 18, 21, 22, 23, 24, 32],
  radixBits: [4, 5, 6, 7, 8],
  rank: ['match', 'split'],
  workgroupScan: ['subgroup', 'shared'],
  lookback: ['decoupled', 'reduce-then-scan'],
  histogramWorkgroupSize: [128, 256, 512, 1024],
  histogramItemsPerThread: [4, 8, 16, 32],
  // A threshold, not a launch parameter: sweeps time every config on its own lookback (0), the
  // threshold stage measures where onesweep stops beating it.
  decoupledMaxCount: [0],
} as const;

/**
 * passKernels' values. Not in the tuning space: what it trades is compile time, which the
 * benchmarks do not time; sweeps take the heuristic's (specialized on GPUs).
 */
export const RADIX_SORT_PASS_KERNELS = ['specialized', 'shared'] as const;
/** Config fields outside the tuning space, with their values (tables accept them; a settings space may name them). */
export const radixSortUntimedSpace = { passKernels: RADIX_SORT_PASS_KERNELS } as const;

/**
 * The heuristic's decoupledMaxCount where the vendor gives forward progress: onesweep below it
 * (its single pass wins where launches and the upsweep's extra read weigh most), reduce-then-scan
 * above (where the look-back's waits cost more than the read it saves).
 */
export const RADIX_SORT_DECOUPLED_DEFAULT_MAX_COUNT = 2 ** 24;

/** Most keys a onesweep pass can count: look-back words keep counts in 30 bits. */
export const ONESWEEP_MAX_COUNT = 2 ** LOOKBACK_PAYLOAD_BITS - 1;

/** Bytes of workgroup memory the sort kernel needs (the largest of the pass's kernels). */
export function radixSortWorkgroupBytes(ctx: DeviceContext, key: TypeInfo, valueBytes: 0 | 4 | 8, c: RadixSortConfig): number {
  const tile = c.workgroupSize * c.itemsPerThread;
  const radix = 1 << c.radixBits;
  const tileBytes = tile * (Math.max(key.bytes, 4) + valueBytes);
  if (c.rank === 'split') {
    // The tile, the workgroup's scan array, a start per digit.
    return tileBytes + c.workgroupSize * 4 + radix * 4 + 16;
  }
  // The match rank's sort kernel: its rank's arrays (exchange included), and the subgroup
  // ticket where the rank has no spare word for it.
  const rank = onesweepRank({ key, valueBytes, config: c, subgroupMinSize: ctx.target.subgroupMinSize, subgroupMaxSize: ctx.target.subgroupMaxSize });
  return radixRankWorkgroupBytes(rank) + (radixRankSpareWord(rank) ? 0 : 4);
}

function shapeProblem(ctx: DeviceContext, what: string, workgroupSize: number, itemsPerThread: number, multipleOf4: boolean): string | undefined {
  if (!Number.isInteger(workgroupSize) || workgroupSize < 32 || workgroupSize % 32 !== 0) return `${what}workgroupSize ${workgroupSize} is not a multiple of 32 (>= 32)`;
  if (workgroupSize > ctx.limits.maxComputeInvocationsPerWorkgroup || workgroupSize > ctx.limits.maxComputeWorkgroupSizeX) {
    return `${what}workgroupSize ${workgroupSize} exceeds this device's maxComputeInvocationsPerWorkgroup ${ctx.limits.maxComputeInvocationsPerWorkgroup}`;
  }
  if (multipleOf4 ? !Number.isInteger(itemsPerThread) || itemsPerThread < 4 || itemsPerThread > 64 || itemsPerThread % 4 !== 0 : !Number.isInteger(itemsPerThread) || itemsPerThread < 1 || itemsPerThread > 64) {
    return `${what}itemsPerThread ${itemsPerThread} is not ${multipleOf4 ? 'a multiple of 4 in [4, 64] (split rank)' : 'an integer in [1, 64]'}`;
  }
  return undefined;
}

export function radixSortConfigProblem(ctx: DeviceContext, key: TypeInfo, valueBytes: 0 | 4 | 8, c: RadixSortConfig): string | undefined {
  if (c.rank !== 'match' && c.rank !== 'split') return `unknown rank "${String(c.rank)}"`;
  if (c.workgroupScan !== 'subgroup' && c.workgroupScan !== 'shared') return `unknown workgroupScan "${String(c.workgroupScan)}"`;
  if (c.lookback !== 'decoupled' && c.lookback !== 'reduce-then-scan') return `unknown lookback "${String(c.lookback)}"`;
  const shape = shapeProblem(ctx, '', c.workgroupSize, c.itemsPerThread, c.rank === 'split');
  if (shape) return shape;
  if (!Number.isInteger(c.radixBits) || c.radixBits < 4 || c.radixBits > 8) return `radixBits ${c.radixBits} is not an integer in [4, 8]`;
  if (c.rank === 'match' || c.workgroupScan === 'subgroup') {
    const sg = subgroupProblem(ctx, c.workgroupSize);
    if (sg) return `${c.rank === 'match' ? 'the match rank' : 'the subgroup scan'}: ${sg}`;
  }
  if (c.passKernels !== 'specialized' && c.passKernels !== 'shared') return `unknown passKernels "${String(c.passKernels)}" (specialized or shared)`;
  if (!Number.isSafeInteger(c.decoupledMaxCount) || c.decoupledMaxCount < 0) return `decoupledMaxCount ${String(c.decoupledMaxCount)} is not a non-negative integer`;
  if (c.lookback === 'decoupled' || c.decoupledMaxCount > 0) {
    if (c.rank !== 'match') return `${c.lookback === 'decoupled' ? 'lookback "decoupled"' : `decoupledMaxCount ${c.decoupledMaxCount}`} (onesweep) needs rank "match"`;
    const hist = shapeProblem(ctx, 'histogram ', c.histogramWorkgroupSize, c.histogramItemsPerThread, false);
    if (hist) return hist;
    const histBytes = Math.ceil((key.bytes * 8) / c.radixBits) * (1 << c.radixBits) * 4;
    const h = workgroupMemoryProblem(ctx, histBytes);
    if (h) return `the histogram ${h}`;
  }
  return workgroupMemoryProblem(ctx, radixSortWorkgroupBytes(ctx, key, valueBytes, c));
}

/**
 * Workgroup memory per invocation that the sort kernel should stay within (24 KiB at 256
 * invocations): on NVIDIA's H200 the kernel loses a third of its speed or more past it, exactly
 * 24 KiB still on the fast side. The cause is not occupancy by workgroup memory (registers allow
 * 2-3 workgroups an SM), perhaps the driver's shared memory carveout.
 */
export const RADIX_SORT_BYTES_PER_INVOCATION = 96;

/**
 * Words of keys an invocation of the heuristic's sort kernel holds (items per thread times the
 * key's words). Larger tiles win as long as the workgroup memory stays within
 * RADIX_SORT_BYTES_PER_INVOCATION: fewer workgroups an SM (more registers each) cost less than
 * the larger tile saves.
 */
export const RADIX_SORT_KEY_WORDS_PER_INVOCATION = 22;

/**
 * The match rank with reduce-then-scan where the device has subgroups, else the split rank.
 * Not onesweep at large counts, even where the vendor gives forward progress: on the H200 its
 * look-back costs more than the upsweep and count scan it saves for keys; tuning picks it where it
 * wins (pairs).
 * Below RADIX_SORT_DECOUPLED_DEFAULT_MAX_COUNT it is onesweep where the vendor gives forward
 * progress (decoupledMaxCount). 256
 * invocations, 8-bit digits, and the most items per thread whose keys take at most
 * RADIX_SORT_KEY_WORDS_PER_INVOCATION words and whose sort kernel stays within
 * RADIX_SORT_BYTES_PER_INVOCATION (u32 keys: 22; u64: 11); where none does, what fits the device.
 * Kernels by pass, except on CPU adapters (compile time).
 */
export function radixSortHeuristic(ctx: DeviceContext, key: TypeInfo, valueBytes: 0 | 4 | 8): RadixSortConfig {
  const largest = Math.min(256, ctx.limits.maxComputeInvocationsPerWorkgroup, ctx.limits.maxComputeWorkgroupSizeX);
  const subgroups = subgroupProblem(ctx, largest) === undefined;
  const rank = subgroups ? 'match' : 'split';
  const passKernels = isSoftwareAdapter(ctx.target) ? 'shared' : 'specialized';
  const shape = (workgroupSize: number, itemsPerThread: number): RadixSortConfig => ({
    workgroupSize, itemsPerThread, radixBits: 8, rank, workgroupScan: subgroups ? 'subgroup' : 'shared', lookback: 'reduce-then-scan',
    histogramWorkgroupSize: largest, histogramItemsPerThread: 16,
    decoupledMaxCount: subgroups && hasForwardProgress(ctx.target) ? RADIX_SORT_DECOUPLED_DEFAULT_MAX_COUNT : 0,
    passKernels,
  });
  const runs = (c: RadixSortConfig): boolean => radixSortConfigProblem(ctx, key, valueBytes, c) === undefined;
  const keyWords = Math.max(1, key.bytes / 4);
  // Small subgroups need more per-subgroup counters: smaller workgroups keep the tile large.
  const sizes = [largest, 128, 64];
  for (const workgroupSize of sizes) {
    for (let itemsPerThread = Math.floor(RADIX_SORT_KEY_WORDS_PER_INVOCATION / keyWords); itemsPerThread >= 4; itemsPerThread--) {
      const c = shape(workgroupSize, itemsPerThread);
      if (runs(c) && radixSortWorkgroupBytes(ctx, key, valueBytes, c) <= RADIX_SORT_BYTES_PER_INVOCATION * workgroupSize) return c;
    }
  }
  for (const workgroupSize of sizes) {
    for (const itemsPerThread of [13, 12, 16, 8, 4]) {
      const c = shape(workgroupSize, itemsPerThread);
      if (runs(c)) return c;
    }
  }
  return { workgroupSize: 64, itemsPerThread: 4, radixBits: 8, rank: 'split', workgroupScan: 'shared', lookback: 'reduce-then-scan', histogramWorkgroupSize: 64, histogramItemsPerThread: 4, decoupledMaxCount: 0, passKernels };
}
