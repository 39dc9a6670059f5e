import { unroll } from './block.js';

/**
 * Stable workgroup radix rank by subgroup match (CUB's BlockRadixRankMatchEarlyCounts, in
 * WGSL). A tile of WG * IPT keys is held "subgroup-striped": subgroup `sgid` holds the
 * contiguous chunk that starts at sgid * sg_size * IPT, its lane l holding item j at
 * chunk + j * sg_size + l (`striped_pos`). Loads in that layout are coalesced, and a rank
 * that visits items j = 0, 1, ... and lanes in order within each j is stable.
 *
 * The rank is spliced into the caller's function as text, not called: per-item arrays stay
 * in registers, and no array of digits or ranks is kept (each is recomputed or used at once),
 * which keeps register use, and so occupancy, where the sort needs it.
 * Two steps, both run by every invocation of the workgroup (they contain barriers):
 * - `rankCounts`: per-subgroup digit counts ("early counts"), then the tile's digit totals
 *   `rk_count[d]` and exclusive starts `rk_start[d]`, and in `rk_hist` each (subgroup, digit)'s
 *   offset within the digit. A onesweep pass publishes `rk_count` before the match.
 * - `rankMatch`: each item's rank: lanes with the same digit find each other with one ballot
 *   per digit bit; the lowest of them claims ranks for all with one atomic add on its
 *   subgroup's counter and hands the base to the others by shuffle; `place` gets the rank.
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
}

/** Bytes of workgroup memory the rank's arrays take. */
export function radixRankWorkgroupBytes(o: RadixRankOptions): number {
  const radix = 1 << o.radixBits;
  const nsg = Math.max(1, o.workgroupSize / o.subgroupMinSize);
  return (nsg * radix + 2 * radix + nsg) * 4;
}

/** Key part for kernels that embed the rank: everything its WGSL depends on. */
export function radixRankKey(o: RadixRankOptions): string {
  return `rank:${o.workgroupSize}:${o.itemsPerThread}:${o.radixBits}:${o.subgroupMinSize}:${Math.ceil(o.subgroupMaxSize / 32)}`;
}

const maskWords = (o: RadixRankOptions): number => Math.ceil(o.subgroupMaxSize / 32);

/** Module-scope part: the rank's workgroup arrays and helper functions. */
export function radixRankDecls(o: RadixRankOptions): string {
  const radix = 1 << o.radixBits;
  const nsg = Math.max(1, o.workgroupSize / o.subgroupMinSize);
  const words = maskWords(o);
  const M = words === 1 ? 'u32' : `vec${words === 2 ? 2 : 4}<u32>`;
  const helpers =
    words === 1
      ? `fn rk_lanes_below(lane: u32) -> u32 { return select((1u << lane) - 1u, 0xffffffffu, lane >= 32u); }`
      : `fn rk_sum(v: ${M}) -> u32 { var s = 0u; for (var w = 0u; w < ${words}u; w++) { s += v[w]; } return s; }
fn rk_lowest(v: ${M}) -> u32 {
  for (var w = 0u; w < ${words}u; w++) { if (v[w] != 0u) { return w * 32u + countTrailingZeros(v[w]); } }
  return 0u;
}
fn rk_lanes_below(lane: u32) -> ${M} {
  var m = ${M}(0u);
  for (var w = 0u; w < ${words}u; w++) {
    let lo = w * 32u;
    if (lane >= lo + 32u) { m[w] = 0xffffffffu; } else if (lane > lo) { m[w] = (1u << (lane - lo)) - 1u; }
  }
  return m;
}`;
  return `const RK_RADIX = ${radix}u;
const RK_BITS = ${o.radixBits}u;
const RK_NSG = ${nsg}u;
const RK_DPT = ${Math.ceil(radix / o.workgroupSize)}u;
// Per (subgroup, digit) counters: early counts, then offsets within the digit, then running ones.
var<workgroup> rk_hist: array<atomic<u32>, ${nsg * radix}>;
var<workgroup> rk_start: array<u32, RK_RADIX>;
var<workgroup> rk_count: array<u32, RK_RADIX>;
var<workgroup> rk_sums: array<u32, RK_NSG>;
${helpers}
fn striped_pos(j: u32, sgid: u32, sg_lane: u32, sg_size: u32) -> u32 {
  return (sgid * ${o.itemsPerThread}u + j) * sg_size + sg_lane;
}`;
}

/**
 * Body text: zeroes the early counters. A kernel that ranks once per tile runs it before the
 * tile's loads (its stores overlap their latency) and then `rankCounts(..., true)`; every
 * earlier use of the rank's arrays must be behind a barrier. `index` is any 0 .. WG-1 numbering.
 */
export function rankClear(o: RadixRankOptions, index: string): string {
  return `  for (var i = ${index}; i < (${o.workgroupSize}u / sg_size) * RK_RADIX; i += ${o.workgroupSize}u) { atomicStore(&rk_hist[i], 0u); }`;
}

/**
 * Body text: the early counts and digit starts. `digitOf(j)` is item j's digit (a WGSL
 * expression). `cleared`: the caller ran `rankClear` (else the counters are zeroed here, after
 * a barrier that ends any earlier use of the arrays, e.g. a previous pass over the same tile).
 */
export function rankCounts(o: RadixRankOptions, digitOf: (j: string) => string, cleared = false): string {
  const WG = o.workgroupSize;
  return `{
  let nsg = ${WG}u / sg_size;
  let r = sgid * sg_size + sg_lane;
${cleared ? '' : `  workgroupBarrier();
${rankClear(o, 'r')}
`}  workgroupBarrier();
  let own = sgid * RK_RADIX;
${unroll(o.itemsPerThread, 'j', `  atomicAdd(&rk_hist[own + ${digitOf('j')}], 1u);`)}
  workgroupBarrier();
  // Invocation r owns digits r * RK_DPT ..: per digit, the subgroups' counts become
  // exclusive prefixes in subgroup order, and the total is the digit's count in the tile.
  var owned = 0u;
  for (var k = 0u; k < RK_DPT; k++) {
    let d = r * RK_DPT + k;
    if (d < RK_RADIX) {
      var run = 0u;
      for (var g = 0u; g < nsg; g++) {
        let c = atomicLoad(&rk_hist[g * RK_RADIX + d]);
        atomicStore(&rk_hist[g * RK_RADIX + d], run);
        run += c;
      }
      rk_count[d] = run;
      owned += run;
    }
  }
  // Exclusive scan of the owned totals in r order gives each owned digit's start.
  let ex = subgroupExclusiveAdd(owned);
  if (sg_lane == sg_size - 1u) { rk_sums[sgid] = ex + owned; }
  workgroupBarrier();
  var start = ex;
  for (var g = 0u; g < sgid; g++) { start += rk_sums[g]; }
  for (var k = 0u; k < RK_DPT; k++) {
    let d = r * RK_DPT + k;
    if (d < RK_RADIX) {
      rk_start[d] = start;
      start += rk_count[d];
    }
  }
  workgroupBarrier();
}`;
}

/**
 * Body text: ranks item after item; `place(j, rank)` is WGSL that uses item j's rank (a
 * `let` in scope). Digits of narrower passes have zero high bits, so every pass takes
 * RK_BITS ballots (a fixed loop the compiler unrolls).
 */
export function rankMatch(o: RadixRankOptions, digitOf: (j: string) => string, place: (j: string, rank: string) => string): string {
  const words = maskWords(o);
  const part = words === 1 ? '.x' : words === 2 ? '.xy' : '';
  const popcount = (x: string): string => (words === 1 ? `countOneBits(${x})` : `rk_sum(countOneBits(${x}))`);
  const lowest = words === 1 ? 'countTrailingZeros(peers)' : 'rk_lowest(peers)';
  return `{
  let own = sgid * RK_RADIX;
  let below_mask = rk_lanes_below(sg_lane);
  let lanes = subgroupBallot(true)${part};
${unroll(o.itemsPerThread, 'j', `  let d = ${digitOf('j')};
  var peers = lanes;
  for (var b = 0u; b < RK_BITS; b++) {
    let on = ((d >> b) & 1u) == 1u;
    let bal = subgroupBallot(on)${part};
    peers &= select(~bal, bal, on);
  }
  let below = ${popcount('peers & below_mask')};
  var first = 0u;
  if (below == 0u) { first = rk_start[d] + atomicAdd(&rk_hist[own + d], ${popcount('peers')}); }
  let rank = subgroupShuffle(first, ${lowest}) + below;
  ${place('j', 'rank')}`)}
}`;
}
