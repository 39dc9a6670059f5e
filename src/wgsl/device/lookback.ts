import { unroll } from '../thread/unroll.js';
import { fromWords, toWords, type TypeInfo } from '../types.js';

/**
 * Decoupled look-back tile state (Merrill and Garland), one encoding for every user: each
 * 32-bit state word carries a status in its top two bits (0 not yet published, AGGREGATE: the
 * tile's own aggregate, INCLUSIVE: the combination of every element up to and including the
 * tile) and LOOKBACK_PAYLOAD_BITS of payload below it. A reader that sees a non-zero status
 * has a payload from that publication: the word is written with one atomic store.
 */
export const LOOKBACK_PAYLOAD_BITS = 30;
export const LOOKBACK_AGGREGATE = 1 << LOOKBACK_PAYLOAD_BITS;
export const LOOKBACK_INCLUSIVE = 2 ** (LOOKBACK_PAYLOAD_BITS + 1);

/** WGSL constants of the encoding (status bits in place, and the payload mask). */
export const LOOKBACK_CONSTS = `const LB_AGGREGATE = ${LOOKBACK_AGGREGATE}u;
const LB_INCLUSIVE = ${LOOKBACK_INCLUSIVE}u;
const LB_STATUS = ${LOOKBACK_AGGREGATE + LOOKBACK_INCLUSIVE}u;
const LB_PAYLOAD = ${LOOKBACK_AGGREGATE - 1}u;`;

/**
 * Words of look-back state a tile takes: each 32-bit word of a value travels as two 16-bit
 * halves, and a tile's words fill a 128-byte line of their own, so tiles that publish and poll
 * at the same time do not contend for one line (at 8 bytes a tile, 16 neighbours shared each).
 */
export const LOOKBACK_LINE_WORDS = 32;
export const lookbackWordsPerTile = (t: { readonly words: number }): number => Math.max(LOOKBACK_LINE_WORDS, 2 * t.words);

/**
 * What a tile publishes, as raw 32-bit words: an element type, or a composite such as the
 * by-key engine's (head count, value) pair held in a `vecN<u32>`.
 */
export interface TilePayload {
  /** WGSL type of the value. */
  readonly wgsl: string;
  /** 32-bit words of the value (1 to 16). */
  readonly words: number;
  /** WGSL expression of the value's words, indexable by [i]. */
  toWords(v: string): string;
  /** WGSL type the words are read back into (`vec2<u32>`), its length, and the value from it. */
  readonly wordsType: string;
  readonly wordsLength: number;
  fromWords(w: string): string;
}

/** The payload of an element type: its words through a `vec2<u32>`. */
export function elementPayload(t: TypeInfo): TilePayload {
  return { wgsl: t.wgsl, words: t.words, toWords: (v) => toWords(t, v), wordsType: 'vec2<u32>', wordsLength: 2, fromWords: (w) => fromWords(t, w) };
}

/** A payload held in `vecN<u32>` (N = words, 2 to 4), its own words. */
export function vectorPayload(words: 2 | 3 | 4): TilePayload {
  const T = `vec${words}<u32>`;
  return { wgsl: T, words, toWords: (v) => v, wordsType: T, wordsLength: words, fromWords: (w) => w };
}

/** Words of a look-back state buffer: word 0 the tile counter, then each tile's state words (base `1u`). */
export function lookbackStateWords(numTiles: number, t: { readonly words: number }): number {
  return 1 + numTiles * lookbackWordsPerTile(t);
}

/**
 * Names a look-back's WGSL goes by, so that one kernel can hold two (the by-key reductions: a
 * value and a head count). `prefix` starts the state functions' names (`publish`, `peek_state`,
 * `read_state`, `TileState`); `identity`, `op` and `scan` name the value's identity, operator and
 * subgroup inclusive scan (`sg_inclusive`'s signature); `into` the `var` the prefix lands in.
 */
export interface LookbackNames {
  readonly prefix: string;
  readonly identity: string;
  readonly op: string;
  readonly scan: string;
  readonly into: string;
}
export const DEFAULT_LOOKBACK_NAMES: LookbackNames = { prefix: '', identity: 'identity', op: 'op', scan: 'sg_inclusive', into: 'prefix' };

/**
 * State of tiles holding values of type `t` (any width) in `state` from word `base`: each
 * 32-bit word of a value travels as two 16-bit halves, each a state word of its own, so a
 * reader can check that every half is from the same publication without fences.
 * `publish(p, status, v)`, `peek_state(p)` (status 0 while unpublished or the halves disagree)
 * and `read_state(p)` (spins until published), with `struct TileState { flag, value }`; named
 * after `names` (a second state in one kernel: its own prefix, and `withConsts` false).
 */
export function tileStateFns(t: TypeInfo | TilePayload, state = 'state', base = '1u', names: LookbackNames = DEFAULT_LOOKBACK_NAMES, withConsts = true): string {
  const pl = 'toWords' in t ? t : elementPayload(t);
  const T = pl.wgsl;
  const parts = 2 * pl.words;
  const n = names.prefix;
  const words = (i: number): string => `${state}[${base} + p * ${lookbackWordsPerTile(pl)}u + ${i}u]`;
  return `${withConsts ? LOOKBACK_CONSTS : ''}
fn ${n}publish(p: u32, f: u32, v: ${T}) {
  let w = ${pl.toWords('v')};
${Array.from({ length: pl.words }, (_, i) => `  atomicStore(&${words(2 * i)}, f | (w[${i}] & 0xffffu));
  atomicStore(&${words(2 * i + 1)}, f | (w[${i}] >> 16u));`).join('\n')}
}
struct ${n}TileState { flag: u32, value: ${T} }
// One look at tile p's state: flag 0 while it is unpublished or its halves disagree.
fn ${n}peek_state(p: u32) -> ${n}TileState {
${Array.from({ length: parts }, (_, i) => `  let s${i} = atomicLoad(&${words(i)});`).join('\n')}
  let f = s0 & LB_STATUS;
  if (f != 0u${Array.from({ length: parts - 1 }, (_, i) => ` && (s${i + 1} & LB_STATUS) == f`).join('')}) {
    let w = ${pl.wordsType}(${Array.from({ length: pl.wordsLength }, (_, i) => (i < pl.words ? `(s${2 * i} & 0xffffu) | (s${2 * i + 1} << 16u)` : '0u')).join(', ')});
    return ${n}TileState(f, ${pl.fromWords('w')});
  }
  return ${n}TileState(0u, ${names.identity}());
}
fn ${n}read_state(p: u32) -> ${n}TileState {
  loop {
    let s = ${n}peek_state(p);
    if (s.flag != 0u) { return s; }
  }
}`;
}

/**
 * Look-back by one invocation (`lid == 0`): publishes the tile's aggregate `agg`, walks back one
 * predecessor at a time (spinning on each) to the nearest inclusive prefix, publishes its own,
 * and leaves the tile's exclusive prefix in the workgroup variable `sh_prefix`, read back as
 * `tile_prefix`. For any operator (combines in tile order). Needs `tileStateFns`.
 */
export const SERIAL_LOOKBACK = `
    if (lid == 0u) {
      var prefix = identity();
      if (tile == 0u) {
        publish(0u, LB_INCLUSIVE, agg);
      } else {
        publish(tile, LB_AGGREGATE, agg);
        var p = tile - 1u;
        loop {
          let s = read_state(p);
          prefix = op(s.value, prefix);
          if (s.flag == LB_INCLUSIVE) { break; }
          p -= 1u;
        }
        publish(tile, LB_INCLUSIVE, op(prefix, agg));
      }
      sh_prefix = prefix;
    }
    workgroupBarrier();
    let tile_prefix = sh_prefix;`;

/**
 * Look-back by a whole subgroup, for its lane 0 publishing `agg`: each lane inspects one
 * predecessor (lane 0 the nearest), so the window is the subgroup size and costs one round trip;
 * stops at the nearest inclusive prefix, which lands in `prefix` (a `var` in scope, the
 * identity before). Needs `tileStateFns`, `sg_inclusive`, `first_lane` (or their `names`).
 * `selfInclusive` (WGSL bool, the same in every lane): the aggregate is its own inclusive prefix,
 * op(anything, agg) == agg (a segmented scan's tile that holds a head, its heads kept as a flag):
 * the tile publishes it as inclusive at once, so its successors need not wait for its look-back.
 */
export function subgroupLookback(selfInclusive?: string, names: LookbackNames = DEFAULT_LOOKBACK_NAMES): string {
  const early = selfInclusive !== undefined;
  const { prefix: n, identity, op, scan, into } = names;
  return `
      if (tile == 0u) {
        if (sg_lane == 0u) { ${n}publish(0u, LB_INCLUSIVE, agg); }
      } else {${early ? `
        let self_inclusive = ${selfInclusive};
        if (sg_lane == 0u) { ${n}publish(tile, select(LB_AGGREGATE, LB_INCLUSIVE, self_inclusive), agg); }` : `
        if (sg_lane == 0u) { ${n}publish(tile, LB_AGGREGATE, agg); }`}
        // Poll only the nearest predecessor until it has published: it is usually the last of
        // the window to do so, and one polling lane keeps the spin's memory traffic low.
        var nearest = ${n}TileState(0u, ${identity}());
        loop {
          if (sg_lane == 0u) { nearest = ${n}peek_state(tile - 1u); }
          if (subgroupBroadcastFirst(nearest.flag) != 0u) { break; }
        }
        // When the nearest predecessor already holds its inclusive prefix, that is the answer.
        let nearest_inclusive = subgroupBroadcastFirst(nearest.flag) == LB_INCLUSIVE;
        if (nearest_inclusive) { ${into} = subgroupBroadcastFirst(nearest.value); }
        var end = tile;
        loop {
          if (nearest_inclusive) { break; }
          let back = sg_lane + 1u;
          let has = back <= end;
          var s = ${n}TileState(LB_INCLUSIVE, ${identity}());
          if (has) { s.flag = 0u; }
          loop {
            if (s.flag == 0u) { s = ${n}peek_state(end - back); }
            if (subgroupAll(s.flag != 0u)) { break; }
          }
          let k = first_lane(subgroupBallot(s.flag == LB_INCLUSIVE));
          var v = s.value;
          if (sg_lane > k) { v = ${identity}(); }
          // Combine in tile order: reverse the lanes, scan, take the last lane.
          let rev = subgroupShuffle(v, sg_size - 1u - sg_lane);
          let window = subgroupShuffle(${scan}(rev, sg_lane, sg_size), sg_size - 1u);
          ${into} = ${op}(window, ${into});
          if (k < sg_size) { break; }
          end -= sg_size;
        }
        if (sg_lane == 0u${early ? ' && !self_inclusive' : ''}) { ${n}publish(tile, LB_INCLUSIVE, ${op}(${into}, agg)); }
      }`;
}
export const SUBGROUP_LOOKBACK = subgroupLookback();

/**
 * Look-back over single-word counts (sums below 2^30, e.g. a radix digit's): `word(q)` is the
 * WGSL reference of tile q's state word. Walks back from tile `tile`, `window` predecessors'
 * words at a time (their loads in flight together, so a walk over many tiles that only published
 * their own counts costs one memory latency per window, not per tile), adding their counts to
 * `prefix` (a `var u32` declared here) until an inclusive one is found; a word not yet written
 * ends the window and the walk polls again from there. The caller publishes.
 */
export function countLookback(window: number, word: (q: string) => string): string {
  return `var prefix = 0u;
    var p = tile;
    loop {
      if (p == 0u) { break; }
      var ws: array<u32, ${window}>;
${unroll(window, 'k', `      ws[k] = LB_INCLUSIVE;
      if (p > k) { ws[k] = atomicLoad(&${word('p - 1u - k')}); }`)}
      var stop = false;
      var found = false;
${unroll(window, 'k', `      if (!stop) {
        let w = ws[k];
        if (w == 0u) { stop = true; } else {
          prefix += w & LB_PAYLOAD;
          p -= 1u;
          if (w >= LB_INCLUSIVE) { stop = true; found = true; }
        }
      }`)}
      if (found) { break; }
    }`;
}
