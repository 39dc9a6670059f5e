import { type Kernel, LINEAR_WORKGROUP_ID, paramsStruct } from '../../runtime/kernel.js';
import { countLookback, LOOKBACK_CONSTS } from '../../wgsl/device/lookback.js';
import { tileTicket } from '../../wgsl/device/tile-counter.js';
import { subgroupEnables } from '../../wgsl/prelude.js';
import { SUBGROUP_BUILTINS, subgroupId } from '../../wgsl/subgroup/id.js';
import { ANY_PASS, keyFunctions, type LsdPass, rawType } from '../../wgsl/thread/radix-key.js';
import { unroll } from '../../wgsl/thread/unroll.js';
import { type TypeInfo } from '../../wgsl/types.js';
import { type BindingKind } from '../../wgsl/views.js';
import { planeExchangeFns } from '../../wgsl/workgroup/exchange.js';
import { histogramAdd, histogramClear, histogramFlush, type SharedHistogram } from '../../wgsl/workgroup/histogram.js';
import { digitsPerInvocation, type RadixRankOptions, radixRankDecls, radixRankKey, radixRankSpareWord, rankClear, rankCounts, rankLate, rankMatch } from '../../wgsl/workgroup/radix-rank.js';
import { sharedInclusiveSum } from '../../wgsl/workgroup/shared-scan.js';
import { stripedTileLoad } from '../../wgsl/workgroup/tile.js';
import { keyAccess, type RadixSplit, splitKey, splitLoads, splitSlots, valueAccess } from './access.js';
import { type RadixSortConfig } from './config.js';
import { lsdPassKey } from './kernel.js';

/**
 * Kernels of the match-ranked LSD sort. Per digit pass one `sort` kernel ranks each tile in
 * workgroup memory (subgroup match, src/wgsl/workgroup/radix-rank.ts) and writes it out digit by digit.
 * A tile's first output position per digit comes either
 * - by decoupled look-back (onesweep): tiles are taken in launch order from a ticket; each
 *   publishes its digit counts, then walks back over its predecessors' counts until one has
 *   published an inclusive prefix; the digits' global starts come from one histogram pass
 *   over all digit places before the sorting passes; or
 * - from `offsets`, the exclusive scan (digit-major) of per-group digit counts written by an
 *   upsweep pass (reduce-then-scan: no forward progress needed). Workgroup g sorts the run of
 *   `tiles_per_group` tiles from g * tiles_per_group in order, carrying its digits' positions
 *   from tile to tile, so the counts and their scan are small (at most SORT_GROUPS groups, not
 *   one count per tile and digit), and loading its next tile's keys while it finishes this one;
 *   or (`tileCounts`, where per-tile counts fit) each workgroup sorts one tile from its own
 *   counts' scan.
 */

/**
 * Uniform block of the sort kernel: onesweep: `row` indexes the pass's histogram row and its
 * ticket word, `state_base` this pass's look-back region and `clear_base` the region the next
 * pass will use (NO_REGION: none), which each tile zeroes for its own slots; scanned: each
 * workgroup sorts `tiles_per_group` tiles, and there are `num_groups` groups.
 */
export const ONESWEEP_PARAMS = ['count', 'num_tiles', 'shift', 'pass_bits', 'flip', 'row', 'state_base', 'clear_base', 'tiles_per_group', 'num_groups'] as const;
export const NO_REGION = 0xffffffff;
/** Words at the front of the look-back state: one ticket counter per pass. */
export const ONESWEEP_COUNTER_WORDS = 16;
/**
 * Predecessor words a look-back step loads at once: one costs a memory latency per tile walked
 * over; many load words that are not needed once an inclusive prefix is near.
 */
const LOOKBACK_WINDOW = 4;

export const HISTOGRAM_PARAMS = ['count', 'num_tiles', 'begin_bit', 'end_bit', 'flip', 'first_row'] as const;

export interface OnesweepKernelOptions {
  readonly key: TypeInfo;
  readonly valueBytes: 0 | 4 | 8;
  readonly config: RadixSortConfig;
  readonly offsets: 'lookback' | 'scanned';
  readonly subgroupMinSize: number;
  readonly subgroupMaxSize: number;
  /** Keys (values) bound as two ranges, split at these element indices: arrays past one storage binding. */
  readonly split?: RadixSplit;
  /** The pass the kernel is for; default any pass. */
  readonly pass?: LsdPass;
  /**
   * Scanned: each workgroup sorts one tile, from first positions per tile laid out tile-major
   * (`offsets[tile * RADIX + d]`), with no loop over tiles: a loop costs registers and with them
   * workgroups an SM (enough to drop the workgroups an SM holds at once). Default: runs of tiles
   * (tiles_per_group), from per-group offsets.
   */
  readonly tileCounts?: boolean;
}

/**
 * The sort kernel's rank. Ranks are kept in registers, so the rank's counters and the tile's
 * exchange share one workgroup array (CUB's layout): keys, then values (pairs) move through it,
 * a plane of words each for the wider of the two. Compact (digit starts in registers: the
 * invocation that counts a digit also places it; the workgroup's tickets in its memory where it
 * has room): every word kept out of the 24 KiB budget is tile, and a larger tile is faster.
 * `radixSortWorkgroupBytes` (config.ts) sizes the kernel from it.
 */
export function onesweepRank(o: Pick<OnesweepKernelOptions, 'key' | 'valueBytes' | 'config' | 'subgroupMinSize' | 'subgroupMaxSize'>): RadixRankOptions {
  const c = o.config;
  const words = Math.max(rawType(o.key) === 'u32' ? 1 : 2, o.valueBytes / 4);
  return {
    workgroupSize: c.workgroupSize, itemsPerThread: c.itemsPerThread, radixBits: c.radixBits, subgroupMinSize: o.subgroupMinSize, subgroupMaxSize: o.subgroupMaxSize,
    exchangeWords: c.workgroupSize * c.itemsPerThread * words, compact: true,
  };
}

export function onesweepSortKernel(o: OnesweepKernelOptions): Kernel {
  const c = o.config;
  const K = rawType(o.key);
  const V = o.valueBytes === 8 ? 'vec2<u32>' : 'u32';
  const pairs = o.valueBytes !== 0;
  const lookback = o.offsets === 'lookback';
  const IPT = c.itemsPerThread;
  const v = (s: string): string => (pairs ? s : '');
  const bindings: BindingKind[] = ['uniform', 'read-only-storage', 'storage', 'read-only-storage'];
  if (lookback) bindings.push('storage');
  const valSlot = bindings.length;
  if (pairs) bindings.push('read-only-storage', 'storage');
  const hi = splitSlots(bindings, o.split, true, pairs);
  const vals = valueAccess(V, valSlot, hi.values);
  // The digits an invocation owns in the rank's count scan (RK_DPT) are the ones it places.
  const dpt = digitsPerInvocation(c);
  // After the match, rk_count[d] becomes digit d's output position less its start in the tile
  // (the write-out's base): nothing needs the count after this, and the next tile's count scan
  // writes it afresh.
  const offsetsBlock = lookback
    ? `${unroll(dpt, 'm', `{ let d = r * RK_DPT + m;
  if (d < RK_RADIX) {
    var n = rk_count[d];
    if (d == sentinel_digit) { n -= TILE - valid; }
    // Walk back over the predecessors' words for digit d to the nearest inclusive prefix.
    ${countLookback(LOOKBACK_WINDOW, (q) => `state[P.state_base + (${q}) * RK_RADIX + d]`)}
    if (tile > 0u) { atomicStore(&state[P.state_base + tile * RK_RADIX + d], LB_INCLUSIVE | (prefix + n)); }
    rk_count[d] = digit_base[m] + prefix - rk_own_start[m];
  } }`)}`
    // The group's next tile starts where this one ends (only the last tile of all has sentinels).
    : unroll(dpt, 'm', `  { let d = r * RK_DPT + m; if (d < RK_RADIX) { let n = rk_count[d]; rk_count[d] = digit_base[m] - rk_own_start[m]; digit_base[m] += n; } }`);
  const rank = onesweepRank(o);
  const spare = radixRankSpareWord(rank);
  const sgCounter = spare ?? 'sg_counter';
  // Keys past one binding: a tile wholly before the split loads from the first binding alone.
  // A full tile (all but the last) loads and writes its keys and values without a bounds test
  // per key: the tests cost measurably.
  const byTile = (full: string, partial: string): string => `  if (valid == TILE) {
${full}
  } else {
${partial}
  }`;
  const tileLoad = (declare: boolean): string => `${declare ? `  var ks: array<${K}, IPT>;\n` : ''}${splitLoads(o.key, hi.keys, 'base + TILE', (load) => byTile(
    unroll(IPT, 'j', `    ks[j] = to_ordered(${load}(base + striped_pos(j, sgid, sg_lane, sg_size)));`),
    stripedTileLoad({ items: IPT, K, V, key: (e) => `to_ordered(${load}(${e}))`, declare: false }),
  ))}`;
  // Pairs: the tile's values are loaded after the rank and the keys' scatter, so they take no
  // registers while the match runs, and exchanged after the keys' write-out (loading them
  // after it is slower: their latency is no longer hidden). Gathering values in the write-out
  // from global memory by source position is slower still.
  const loadValues = `  var vs: array<${V}, IPT>;
${vals.loads('base + TILE', (load) => byTile(
    unroll(IPT, 'j', `    vs[j] = ${load('base + striped_pos(j, sgid, sg_lane, sg_size)')};`),
    unroll(IPT, 'j', `    { let p = striped_pos(j, sgid, sg_lane, sg_size); if (p < valid) { vs[j] = ${load('base + p')}; } }`),
  ))}`;
  // Pairs: each value goes where its key went. 8-byte keys (whose registers are the scarcer):
  // the write-out keeps its keys' digits four to a word and the values' destinations come again
  // from rk_count (which the exchange leaves alone), in place of IPT destinations held across
  // two barriers (4-byte keys, whose registers are not the scarcer, are faster with the latter).
  // What the keys' write-out declares (`decl`) and keeps a key (`keep`, with its digit d and
  // destination dst in scope), and how the values' write-out gets destination `dst` back.
  const valueDsts = !pairs
    ? { decl: '', keep: '', dst: '' }
    : c.radixBits <= 8 && o.key.bytes === 8
      ? { decl: `var digs: array<u32, ${Math.ceil(IPT / 4)}>;`, keep: ' digs[k / 4u] |= d << ((k % 4u) * 8u);', dst: 'let dst = rk_count[(digs[k / 4u] >> ((k % 4u) * 8u)) & 0xffu] + i;' }
      : { decl: 'var dsts: array<u32, IPT>;', keep: ' dsts[k] = dst;', dst: 'let dst = dsts[k];' };
  const valuesExchange = `  workgroupBarrier();
${byTile(
    unroll(IPT, 'j', '    x_store_value(rks[j], vs[j]);'),
    unroll(IPT, 'j', `    { let p = striped_pos(j, sgid, sg_lane, sg_size); if (p < valid) { x_store_value(rks[j], vs[j]); } }`),
  )}
  workgroupBarrier();
${byTile(
    unroll(IPT, 'k', `    { let i = k * WG + lid; ${valueDsts.dst} ${vals.store('dst', 'x_load_value(i)')}; }`),
    unroll(IPT, 'k', `    { let i = k * WG + lid; if (i < valid) { ${valueDsts.dst} ${vals.store('dst', 'x_load_value(i)')}; } }`),
  )}`;
  const writeKey = `let y = x_load_key(i); let d = digit(y); let dst = rk_count[d] + i; store_key(dst, from_ordered(y));${valueDsts.keep}`;
  // Scanned: a group's tiles come one after another, so the next tile's keys are loaded right
  // after this tile's keys are in workgroup memory (their registers are free again) and their
  // latency hides behind the barrier and the write-out.
  const single = !lookback && o.tileCounts === true;
  // A tile a workgroup from scanned counts publishes nothing before the match, so the rank
  // counts late (a load a key in place of the early counts' atomic add a key). Onesweep
  // publishes its counts before the match; the loop over a group's tiles keeps the early counts.
  const late = single;
  const prefetch = !lookback && !single;
  const nextKeys = `  if (tile + 1u < end_tile) {
    let base = (tile + 1u) * TILE;
    let valid = min(TILE, P.count - base);
${tileLoad(false)}
  }`;
  // A group's next tile clears the counters in the memory its previous tile's write-out read,
  // with no barrier between: invocation lid clears words lid + q * WG and read exchange words
  // k * WG + lid (a plane is WG * IPT words), so it only overwrites what it read itself.
  const tileBody = `${rankClear(rank, 'lid')}
  let base = tile * TILE;
  let valid = min(TILE, P.count - base);
  // Keys past the end are all-ones sentinels: the largest digit, last in the tile, never written.
${prefetch ? '' : tileLoad(true)}
  var rk_own_start: array<u32, RK_DPT>;
${late ? `  var rks: array<u32, IPT>;
  ${rankLate(rank, (j) => `digit(ks[${j}])`)}` : `  ${rankCounts(rank, (j) => `digit(ks[${j}])`, true)}`}
  let sentinel_digit = digit(SENTINEL);
  ${lookback
    ? `// Publish this tile's counts before ranking, so successors' look-backs find them early.
  for (var d = r; d < RK_RADIX; d += WG) {
    var n = rk_count[d];
    if (d == sentinel_digit) { n -= TILE - valid; }
    atomicStore(&state[P.state_base + tile * RK_RADIX + d], select(LB_AGGREGATE, LB_INCLUSIVE, tile == 0u) | n);
    if (P.clear_base != ${NO_REGION}u) { atomicStore(&state[P.clear_base + tile * RK_RADIX + d], 0u); }
  }`
    : ''}
${late ? '' : `  var rks: array<u32, IPT>;
  ${rankMatch(rank, (j) => `digit(ks[${j}])`, (j, at) => `rks[${j}] = ${at};`)}`}
  // Every subgroup's counters are final: their memory takes the keys.
  workgroupBarrier();
${unroll(IPT, 'j', '  x_store_key(rks[j], ks[j]);')}
${pairs ? loadValues : ''}
${prefetch ? nextKeys : ''}
  // After the match: walking back before it (so the inclusive prefix is out sooner) is slower,
  // with any window.
  ${offsetsBlock}
  workgroupBarrier();
  ${valueDsts.decl}
${byTile(
    unroll(IPT, 'k', `    { let i = k * WG + lid; ${writeKey} }`),
    unroll(IPT, 'k', `    { let i = k * WG + lid; if (i < valid) { ${writeKey} } }`),
  )}
${pairs ? valuesExchange : ''}`;
  // The exchange: one word per element, a second plane of TILE words for 8-byte keys or values.
  const code = `${subgroupEnables(true)}${paramsStruct(ONESWEEP_PARAMS)}
@group(0) @binding(0) var<uniform> P: Params;
${keyAccess(o.key, true, hi.keys)}
// Onesweep: the digits' global exclusive starts, one row of RADIX per pass. Scanned: the
// per-(digit, group) first positions.
@group(0) @binding(3) var<storage, read> offsets: array<u32>;
${lookback ? '@group(0) @binding(4) var<storage, read_write> state: array<atomic<u32>>;' : ''}
${v(vals.code)}
${keyFunctions(o.key, true, o.pass ?? ANY_PASS)}
const WG = ${c.workgroupSize}u;
const IPT = ${IPT}u;
const TILE = ${c.workgroupSize * IPT}u;
${LOOKBACK_CONSTS}
${radixRankDecls(rank)}
${planeExchangeFns('key', K)}
${pairs ? planeExchangeFns('value', V) : ''}
${spare ? '' : 'var<workgroup> sg_counter: atomic<u32>;'}

@compute @workgroup_size(WG)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        ${SUBGROUP_BUILTINS}) {
  // Nothing here reads workgroup memory it has not written (the subgroup ticket is reset
  // explicitly), so the kernel does not depend on zero-initialized workgroup memory. The tile
  // (group) number passes through rk_count[0], which the rank writes only after later barriers.
  if (lid == 0u) {
    atomicStore(&${sgCounter}, 0u);
    // Tiles in launch order (onesweep): every tile a look-back waits on has started.
    rk_count[0] = ${lookback ? tileTicket('state', 'P.row') : LINEAR_WORKGROUP_ID};
  }
${lookback
    ? `  let tile = workgroupUniformLoad(&rk_count[0]);
  if (tile >= P.num_tiles) { return; }`
    : `  let group = workgroupUniformLoad(&rk_count[0]);
  if (group >= P.num_groups) { return; }
  let first_tile = group * P.tiles_per_group;
  let end_tile = min(first_tile + P.tiles_per_group, P.num_tiles);`}
  ${subgroupId(sgCounter)}
  let r = sgid * sg_size + sg_lane;
  // Where this tile's (group's) digits start (onesweep: the digits' global starts; scanned: the
  // group's offsets), loaded now so the loads' latency hides behind the rank.
  var digit_base: array<u32, RK_DPT>;
${unroll(dpt, 'm', `  { let d = r * RK_DPT + m;
    if (d < RK_RADIX) { digit_base[m] = offsets[${lookback ? 'P.row * RK_RADIX + d' : single ? 'group * RK_RADIX + d' : 'd * P.num_groups + group'}]; } }`)}
${lookback || single ? `${single ? '  let tile = first_tile;\n' : ''}${tileBody}` : `${prefetch ? `  var ks: array<${K}, IPT>;
  {
    let base = first_tile * TILE;
    let valid = min(TILE, P.count - base);
${tileLoad(false)}
  }` : ''}
  for (var tile = first_tile; tile < end_tile; tile++) {
${tileBody}
  }`}
}
`;
  const key = ['radix-onesweep', o.offsets, o.key.name, o.valueBytes, radixRankKey(rank)].join(':') + (single ? ':tiles' : '') + splitKey(o.split) + lsdPassKey(o.pass ?? ANY_PASS);
  return { key, label: `wgprim.radixSort.${lookback ? 'onesweep' : 'sort'}.${o.key.name}`, code, bindings, workgroupSize: c.workgroupSize };
}

/**
 * Histogram of every digit place in one read of the keys: row `first_row + q` gets the counts
 * of the digit at bits [begin_bit + q * RADIX_BITS, ...) (narrower at end_bit). Each workgroup
 * walks tiles grid-stride and adds its counts to the rows once.
 */
export function onesweepHistogramKernel(o: { key: TypeInfo; config: RadixSortConfig; split?: RadixSplit }): Kernel {
  const c = o.config;
  const radix = 1 << c.radixBits;
  const maxPasses = Math.ceil((o.key.bytes * 8) / c.radixBits);
  const HWG = c.histogramWorkgroupSize;
  const hist: SharedHistogram = { array: 'h', bins: 'npass * RADIX', index: 'lid', stride: 'HWG' };
  const keySplitAt = o.split?.keys === undefined ? undefined : { at: o.split.keys, slot: 3 };
  const code = `${paramsStruct(HISTOGRAM_PARAMS)}
@group(0) @binding(0) var<uniform> P: Params;
${keyAccess(o.key, false, keySplitAt)}
@group(0) @binding(2) var<storage, read_write> rows: array<atomic<u32>>;
${keyFunctions(o.key, false)}
var<private> flip: u32;
const HWG = ${HWG}u;
const HIPT = ${c.histogramItemsPerThread}u;
const RADIX = ${radix}u;
const BITS = ${c.radixBits}u;
const MAX_PASSES = ${maxPasses}u;
var<workgroup> h: array<atomic<u32>, ${radix * maxPasses}>;

@compute @workgroup_size(HWG)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  flip = P.flip;
  let groups = nwg.x * nwg.y;
  let npass = (P.end_bit - P.begin_bit + BITS - 1u) / BITS;
  ${histogramClear(hist, 'i')}
  workgroupBarrier();
  for (var tile = ${LINEAR_WORKGROUP_ID}; tile < P.num_tiles; tile += groups) {
    let base = tile * HWG * HIPT;
    // All of the tile's loads first, so they are in flight together: unguarded (past the count
    // the last key, not counted below), since a guarded load can make the next wait for it.
    var ys: array<${rawType(o.key)}, HIPT>;
${splitLoads(o.key, keySplitAt, 'base + HWG * HIPT', (load) => unroll(c.histogramItemsPerThread, 'k', `    ys[k] = to_ordered(${load}(min(base + k * HWG + lid, P.count - 1u)));`))}
    // Digit places written out (a uniform guard each), not looped per key: the loop costs far more.
${unroll(c.histogramItemsPerThread, 'k', `    if (base + k * HWG + lid < P.count) {
${unroll(maxPasses, 'q', `      if (q < npass) { let s = P.begin_bit + q * BITS; ${histogramAdd(hist, 'q * RADIX + digit_at(ys[k], s, min(BITS, P.end_bit - s))')} }`)}
    }`)}
  }
  workgroupBarrier();
${histogramFlush(hist, (i, n) => `if (${n} != 0u) { atomicAdd(&rows[P.first_row * RADIX + ${i}], ${n}); }`, 'i')}
}
`;
  const key = ['radix-histogram', o.key.name, c.radixBits, HWG, c.histogramItemsPerThread].join(':') + splitKey({ keys: o.split?.keys });
  const bindings: BindingKind[] = ['uniform', 'read-only-storage', 'storage', ...(o.split?.keys !== undefined ? ['read-only-storage' as const] : [])];
  return { key, label: `wgprim.radixSort.histogram.${o.key.name}`, code, bindings, workgroupSize: HWG };
}

/** Turns each histogram row (one workgroup per row) into exclusive starts, in place. */
export function onesweepRowScanKernel(radixBits: number): Kernel {
  const radix = 1 << radixBits;
  const code = `@group(0) @binding(0) var<storage, read_write> rows: array<u32>;
const RADIX = ${radix}u;
var<workgroup> s: array<u32, RADIX>;

@compute @workgroup_size(RADIX)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>) {
  let i = wid.x * RADIX + lid;
  let x = rows[i];
  s[lid] = x;
  workgroupBarrier();
${sharedInclusiveSum('s', 'lid', 'RADIX')}
  rows[i] = s[lid] - x;
}
`;
  return { key: `radix-row-scan:${radixBits}`, label: 'wgprim.radixSort.rowScan', code, bindings: ['storage'], workgroupSize: radix };
}
