import { laneMask, subgroupMatch } from '../subgroup/ballot.js';
import { unroll } from '../thread/unroll.js';
import { stripedPosFn } from './tile.js';

/**
 * Stable workgroup radix rank by subgroup match (CUB's BlockRadixRankMatchEarlyCounts, in
 * WGSL). A tile of WG * IPT keys is held "subgroup-striped": subgroup `sgid` holds the
 * contiguous chunk that starts at sgid * sg_size * IPT, its lane l holding item j at
 * chunk + j * sg_size + l (`striped_pos`). Loads in that layout are coalesced, and a rank
 * that visits items j = 0, 1, ... and lanes in order within each j is stable.
 *
 * The rank is spliced into the caller's function as text, not called: per-item arrays stay
 * in registers, and the rank keeps no array of digits or ranks (each digit is recomputed, each
 * rank handed to `place` at once; the caller decides what it keeps).
 * Two steps, both run by every invocation of the workgroup (they contain barriers):
 * - `rankCounts`: per-subgroup digit counts ("early counts"), then the tile's digit totals
 *   `rk_count[d]` and exclusive starts `rk_start[d]` (or, `compact`, in the registers of the
 *   invocation that counted the digit), and in `rk_hist` each (subgroup, digit)'s
 *   first rank in the tile (the digit's start plus the subgroups' before it). A onesweep pass
 *   publishes `rk_count` before the match.
 * - `rankMatch`: each item's rank: lanes with the same digit find each other with one ballot
 *   per digit bit; the lowest of them claims ranks for all with one atomic add on its
 *   subgroup's counter and hands the base to the others by shuffle; `place` gets the rank.
 * - or `rankLate`: the match first, on cleared counters, then the scan of what it counted, then
 *   each item adds its subgroup's first rank of its digit (no counts before the match).
 *
 * Needs `enable subgroups;`, and in scope: `sgid`, `sg_lane`, `sg_size` (subgroup ids must order
 * subgroups by the chunk they hold: callers take `sgid` from the SUBGROUP_ID ticket and load by
 * it). Digits must be below 2^radixBits.
 */
export interface RadixRankOptions {
  readonly workgroupSize: number;
  readonly itemsPerThread: number;
  /** Widest digit ranked: 2^radixBits counters per subgroup. */
  readonly radixBits: number;
  /** Smallest and largest subgroup sizes the adapter may use (size the counters and ballots). */
  readonly subgroupMinSize: number;
  readonly subgroupMaxSize: number;
  /**
   * Words of `rk_hist` at least: a caller that keeps its ranks in registers reuses the counters'
   * memory as its exchange array (CUB's layout), so the tile is not limited by counters and
   * exchange together. Such a caller may use `rk_hist` (atomicLoad / atomicStore) only after a
   * barrier that follows `rankMatch`, and before the next `rankClear` only as that allows (an
   * invocation's own words need no barrier before it clears them).
   */
  readonly exchangeWords?: number;
  /**
   * Workgroup memory kept to the least, for a caller whose exchange shares `rk_hist`: digit
   * starts stay with the invocation that counts them, in `rk_own_start[k]` for digit
   * r * RK_DPT + k (the caller declares `var rk_own_start: array<u32, RK_DPT>;` in scope of
   * `rankCounts`), not in a workgroup array; and where the exchange leaves room past the
   * counters, the subgroups' totals and a spare word (`radixRankSpareWord`) live there. At 8-bit
   * digits that is a KiB and some words less, which lets the LSD sort's tile grow by two items
   * per invocation within its budget.
   */
  readonly compact?: boolean;
}

/** Subgroups of a workgroup at most (the smallest subgroup size). */
const maxSubgroups = (o: RadixRankOptions): number => Math.max(1, o.workgroupSize / o.subgroupMinSize);
/** Digits each invocation owns in the count scan (RK_DPT): invocation r owns r * RK_DPT ... */
export const digitsPerInvocation = (o: Pick<RadixRankOptions, 'radixBits' | 'workgroupSize'>): number => Math.ceil((1 << o.radixBits) / o.workgroupSize);
/** Words of the per-subgroup counters. */
const counterWords = (o: RadixRankOptions): number => maxSubgroups(o) * (1 << o.radixBits);
/** Words of rk_hist: the counters of every subgroup, or the caller's exchange where larger. */
const histWords = (o: RadixRankOptions): number => Math.max(counterWords(o), o.exchangeWords ?? 0);
/**
 * Compact, with room past the counters: the subgroups' totals at rk_hist[counterWords ..] and a
 * spare word after them. Nothing clears or counts there; the caller's exchange overwrites them
 * only after the barrier that follows the match, when the totals are no longer read.
 */
const sumsInHist = (o: RadixRankOptions): boolean => o.compact === true && histWords(o) >= counterWords(o) + maxSubgroups(o) + 1;

/**
 * A spare atomic word of `rk_hist` (WGSL), free until the first match of a kernel (for a
 * subgroup ticket taken before it), or undefined where the rank has none: the caller declares
 * its own.
 */
export function radixRankSpareWord(o: RadixRankOptions): string | undefined {
  return sumsInHist(o) ? `rk_hist[${counterWords(o) + maxSubgroups(o)}]` : undefined;
}

/** Bytes of workgroup memory the rank's arrays take. */
export function radixRankWorkgroupBytes(o: RadixRankOptions): number {
  const radix = 1 << o.radixBits;
  const nsg = maxSubgroups(o);
  return (histWords(o) + (o.compact ? 1 : 2) * radix + (sumsInHist(o) ? 0 : nsg)) * 4;
}

/** Key part for kernels that embed the rank: everything its WGSL depends on. */
export function radixRankKey(o: RadixRankOptions): string {
  return `rank:${o.workgroupSize}:${o.itemsPerThread}:${o.radixBits}:${o.subgroupMinSize}:${o.subgroupMaxSize}:${histWords(o)}${o.compact ? ':c' : ''}`;
}

/** Module-scope part: the rank's workgroup arrays and helper functions. */
export function radixRankDecls(o: RadixRankOptions): string {
  const nsg = maxSubgroups(o);
  const radix = 1 << o.radixBits;
  return `const RK_RADIX = ${radix}u;
const RK_BITS = ${o.radixBits}u;
const RK_NSG = ${nsg}u;
const RK_DPT = ${digitsPerInvocation(o)}u;
// Per (subgroup, digit) counters: early counts, then offsets within the digit, then running ones.
var<workgroup> rk_hist: array<atomic<u32>, ${histWords(o)}>;
${o.compact ? '' : 'var<workgroup> rk_start: array<u32, RK_RADIX>;\n'}var<workgroup> rk_count: array<u32, RK_RADIX>;
${sumsInHist(o)
    ? `fn rk_sums_set(g: u32, x: u32) { atomicStore(&rk_hist[${counterWords(o)}u + g], x); }
fn rk_sums_get(g: u32) -> u32 { return atomicLoad(&rk_hist[${counterWords(o)}u + g]); }`
    : `var<workgroup> rk_sums: array<u32, RK_NSG>;
fn rk_sums_set(g: u32, x: u32) { rk_sums[g] = x; }
fn rk_sums_get(g: u32) -> u32 { return rk_sums[g]; }`}
${laneMask(o.subgroupMaxSize).fns}
${stripedPosFn(o.itemsPerThread)}`;
}

/**
 * The count scan keeps an owner's counts in registers (loads issued together, unrolled) up to
 * this many; more (small subgroups in a large workgroup) take a loop that reads them twice.
 */
const UNROLLED_COUNTS = 16;

/**
 * Body text: zeroes the early counters (every subgroup's, for the smallest subgroup size). A
 * kernel that ranks once per tile runs it before the tile's loads (its stores overlap their
 * latency) and then `rankCounts(..., true)`. Invocation `index` (any 0 .. WG-1 numbering)
 * zeroes words index + q * WG of `rk_hist`: every earlier use of them by other invocations must
 * be behind a barrier.
 */
export function rankClear(o: RadixRankOptions, index: string): string {
  const words = maxSubgroups(o) * (1 << o.radixBits);
  const full = words % o.workgroupSize === 0;
  return unroll(Math.ceil(words / o.workgroupSize), 'q', `  { let i = ${index} + q * ${o.workgroupSize}u;${full ? ' ' : ` if (i < ${words}u) `}{ atomicStore(&rk_hist[i], 0u); } }`);
}

/**
 * Body text: the early counts and digit starts. `digitOf(j)` is item j's digit (a WGSL
 * expression). `cleared`: the caller ran `rankClear` (else the counters are zeroed here, after
 * a barrier that ends any earlier use of the arrays, e.g. a previous pass over the same tile).
 * Invocation r owns digits r * RK_DPT ..: it loads their subgroups' counts at once (their loads
 * in flight together, not a load and store per subgroup in turn), and once the starts
 * are known stores each subgroup's first rank, start included, so the match needs no rk_start.
 * `late` (rankLate, with `cleared`): the counters already hold each subgroup's counts (the match
 * ran on cleared counters), so only the scan is left.
 */
export function rankCounts(o: RadixRankOptions, digitOf: (j: string) => string, cleared = false, late = false): string {
  const WG = o.workgroupSize;
  const nsg = maxSubgroups(o);
  const dpt = digitsPerInvocation(o);
  // With one subgroup size the subgroup count is nsg; else subgroups past WG / sg_size are skipped.
  const fixed = o.subgroupMinSize === o.subgroupMaxSize;
  const used = (g: string, body: string): string => (fixed ? body : `if (${g} < nsg) { ${body} }`);
  const unrolled = nsg * dpt <= UNROLLED_COUNTS;
  const keepStart = o.compact ? 'rk_own_start[k] = s0;' : 'rk_start[d] = s0;';
  const counts = unrolled
    ? `  var c: array<u32, ${nsg * dpt}>;
${unroll(dpt, 'k', `  { let d = r * RK_DPT + k;
    if (d < RK_RADIX) {
${unroll(nsg, 'g', `      c[k * ${nsg}u + g] = 0u; ${used('g', `c[k * ${nsg}u + g] = atomicLoad(&rk_hist[g * RK_RADIX + d]);`)} owned += c[k * ${nsg}u + g];`)}
    } }`)}`
    : `  for (var k = 0u; k < RK_DPT; k++) {
    let d = r * RK_DPT + k;
    if (d < RK_RADIX) { for (var g = 0u; g < nsg; g++) { owned += atomicLoad(&rk_hist[g * RK_RADIX + d]); } }
  }`;
  const firsts = unrolled
    ? unroll(dpt, 'k', `  { let d = r * RK_DPT + k;
    if (d < RK_RADIX) {
      let s0 = start;
      ${keepStart}
${unroll(nsg, 'g', `      ${used('g', `atomicStore(&rk_hist[g * RK_RADIX + d], start); start += c[k * ${nsg}u + g];`)}`)}
      rk_count[d] = start - s0;
    } }`)
    : `  for (var k = 0u; k < RK_DPT; k++) {
    let d = r * RK_DPT + k;
    if (d < RK_RADIX) {
      let s0 = start;
      ${keepStart}
      for (var g = 0u; g < nsg; g++) {
        let n = atomicLoad(&rk_hist[g * RK_RADIX + d]);
        atomicStore(&rk_hist[g * RK_RADIX + d], start);
        start += n;
      }
      rk_count[d] = start - s0;
    }
  }`;
  // Late: the match already counted each subgroup's digits (rankLate); only the scan is left.
  const early = late ? '' : `  workgroupBarrier();
  let own = sgid * RK_RADIX;
${unroll(o.itemsPerThread, 'j', `  atomicAdd(&rk_hist[own + ${digitOf('j')}], 1u);`)}
`;
  return `{
  let nsg = ${WG}u / sg_size;
  let r = sgid * sg_size + sg_lane;
${cleared ? '' : `  workgroupBarrier();
${rankClear(o, 'r')}
`}${early}  workgroupBarrier();
  // The owned digits' counts; an exclusive scan of their totals in r order gives the starts.
  var owned = 0u;
${counts}
  let ex = subgroupExclusiveAdd(owned);
  if (sg_lane == sg_size - 1u) { rk_sums_set(sgid, ex + owned); }
  workgroupBarrier();
  var start = ex;
${fixed ? unroll(nsg, 'g', '  start += select(0u, rk_sums_get(g), g < sgid);') : '  for (var g = 0u; g < sgid; g++) { start += rk_sums_get(g); }'}
${firsts}
  workgroupBarrier();
}`;
}

/**
 * Body text: ranks item after item; `place(j, rank)` is WGSL that uses item j's rank (a
 * `let` in scope). Digits of narrower passes have zero high bits, so every pass takes
 * RK_BITS ballots, written out (a loop over the bits was slower).
 */
export function rankMatch(o: RadixRankOptions, digitOf: (j: string) => string, place: (j: string, rank: string) => string): string {
  const mask = laneMask(o.subgroupMaxSize);
  return `{
  let own = sgid * RK_RADIX;
  let below_mask = lane_mask_below(sg_lane);
  let lanes = subgroupBallot(true)${mask.part};
${unroll(o.itemsPerThread, 'j', `  let d = ${digitOf('j')};
  var peers = lanes;
${subgroupMatch('d', o.radixBits, mask)}
  let below = ${mask.count('peers & below_mask')};
  var first = 0u;
  if (below == 0u) { first = atomicAdd(&rk_hist[own + d], ${mask.count('peers')}); }
  let rank = subgroupShuffle(first, ${mask.lowest('peers')}) + below;
  ${place('j', 'rank')}`)}
}`;
}

/**
 * Body text: the rank with late counts, for a caller that keeps its ranks in registers (`rks`,
 * an array<u32, IPT> in scope) and ran `rankClear`: the match runs first on the cleared
 * counters, so each item's rank is its place among its subgroup's items of its digit, and the
 * subgroups' counts are what the match left; the scan turns them into first ranks, which each
 * item then adds (one workgroup load a key instead of the early counts' atomic add a key, which
 * lanes of one digit serialize on skewed keys). Publishes nothing before the match: for
 * callers with no look-back. A barrier must follow before `rk_hist` is used for anything else.
 */
export function rankLate(o: RadixRankOptions, digitOf: (j: string) => string): string {
  return `workgroupBarrier();
  ${rankMatch(o, digitOf, (j, at) => `rks[${j}] = ${at};`)}
  ${rankCounts(o, digitOf, true, true)}
${unroll(o.itemsPerThread, 'j', `  rks[j] += atomicLoad(&rk_hist[sgid * RK_RADIX + ${digitOf('j')}]);`)}`;
}
