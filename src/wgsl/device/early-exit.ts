import { tileTicket } from './tile-counter.js';

/**
 * The early-exit tile loop (CUB's FindIf, rocPRIM's adjacent_find): a workgroup takes tiles in
 * the search order and stops once a match lies before (for `last`: after) its next tile, so the
 * work done grows with the position found, not the input. The best match so far lives in one word
 * of `state`, encoded so that 0 is "none" and `atomicMax` improves it (WGSL's atomics are relaxed;
 * a value that only moves one way needs no more):
 * - `first`: the smallest position p, stored as `~p` (positions stay below 2^32 - 1);
 * - `last`: the largest, stored as `p + 1`; tiles are counted from the end.
 * A tile's matches meet in a workgroup atomic first, so one global atomic a workgroup at most.
 *
 * Which tile comes next (`TileAssignment`):
 * - `ticket`: from an atomic counter in `state[ticket]`, so tiles go in order whatever part of
 *   the grid runs at once; fetched when a tile starts, its round trip overlapping the loads (a
 *   workgroup that stops leaves one ticket unused);
 * - `stride`: workgroup w of G takes tiles w, w + G, w + 2G, ...: no counter, which every
 *   workgroup hits every tile (on the H200 the counter held the scan at 75-79% of copy
 *   bandwidth, the stride reaches 89-100%), but a workgroup that starts late (a grid larger than the device runs at
 *   once) leaves its tiles, early ones among them, to the end: slower early exits, never a wrong
 *   answer.
 * The state words are zero before the launch; `earlyExitFinish` leaves them so. The best is
 * fetched when a tile starts too; a tile costs one barrier and one uniform broadcast, and the
 * decision to take the next tile uses the best as it was one tile earlier (at most one more tile
 * a workgroup read past a match).
 */
export type SearchOrder = 'first' | 'last';
export type TileAssignment = 'ticket' | 'stride';

/** Workgroup variables of the loop. */
export const EARLY_EXIT_DECLS = `var<workgroup> sh_tile: u32;
var<workgroup> sh_best: atomic<u32>;`;

/** The encoded form of match position `p` (WGSL u32 expression). */
export const encodeMatch = (order: SearchOrder, p: string): string => (order === 'first' ? `~(${p})` : `(${p}) + 1u`);

export interface EarlyExitLoop {
  readonly order: SearchOrder;
  readonly assignment: TileAssignment;
  /** The `array<atomic<u32>>` holding the best match and the tile counter, and their indices (WGSL u32). */
  readonly state: string;
  readonly best: string;
  readonly ticket: string;
  /** This workgroup's index and the number of workgroups (WGSL u32; a one-dimensional grid; for `stride`). */
  readonly workgroup: string;
  readonly workgroups: string;
  /** WGSL u32 expressions. */
  readonly numTiles: string;
  readonly tileSize: string;
}

/**
 * The loop (inside the entry point, `lid` the local index): `body` (statements) runs once a tile
 * with `tile` (uniform) its index and records its matches with `earlyExitRecord`. The loop ends
 * when the tiles run out, a match makes the rest useless, or the workgroup's tile held a match
 * (every later tile lies past it in the search order); that match is then published.
 */
export function earlyExitLoop(o: EarlyExitLoop, body: string): string {
  const { order, state, numTiles, tileSize } = o;
  const tileOf = order === 'first' ? 'ee_next' : `${numTiles} - 1u - ee_next`;
  // A match before this tile (first) or past its end (last) wins over anything the tile holds.
  const beaten = order === 'first' ? `b != 0u && ~b < t * ${tileSize}` : `b != 0u && b - 1u >= (t + 1u) * ${tileSize}`;
  const ticket = o.assignment === 'ticket';
  const fetch = `${ticket ? `ee_next = ${tileTicket(state, o.ticket)};
      ` : ''}ee_best = atomicLoad(&${state}[${o.best}]);`;
  // Invocation 0 alone decides (from the fetched best and the tile's matches, which the barrier
  // before made visible); the uniform load hands the decision to the workgroup.
  const decide = `if (lid == 0u) {
      let m = atomicLoad(&sh_best);
      var next = 0xffffffffu;
      if (m != 0u) {
        ee_published = atomicMax(&${state}[${o.best}], m);
      } else if (ee_next < ${numTiles}) {
        let t = ${tileOf};
        let b = ee_best;
        if (!(${beaten})) { next = t; }${ticket ? '' : `
        ee_next += ${o.workgroups};`}
      }
      sh_tile = next;
    }`;
  return `
  var ee_next = ${ticket ? '0u' : o.workgroup};
  var ee_best = 0u;
  var ee_published = 0u;
  if (lid == 0u) {
      atomicStore(&sh_best, 0u);
      ${fetch}
  }
  ${decide}
  var tile = workgroupUniformLoad(&sh_tile);
  loop {
    if (tile == 0xffffffffu) { break; }
    if (lid == 0u) {
      ${fetch}
    }
${body}
    workgroupBarrier();
    ${decide}
    tile = workgroupUniformLoad(&sh_tile);
  }`;
}

export interface EarlyExitFinish extends EarlyExitLoop {
  /** The state word that counts workgroups out (WGSL u32 index; zero before the launch). */
  readonly done: string;
  /** WGSL u32 expression that is 0 at run time but not to the compiler (a uniform's word). */
  readonly zero: string;
  /** What the answer is when nothing matched (WGSL u32). */
  readonly none: string;
}

/**
 * Statements after `earlyExitLoop`: each workgroup counts itself out, and the last one out
 * writes the answer (`write`, given the decoded position as a WGSL u32 expression) and zeroes the
 * state words, so the next launch needs no clear and no second dispatch reads the best. The count
 * takes the old value of the workgroup's published match as an operand (times `zero`): so it is
 * issued after that `atomicMax` was performed, and the last one out sees every match (WGSL's
 * atomics are relaxed, and a max whose result is unused may still be in flight).
 */
export function earlyExitFinish(o: EarlyExitFinish, write: (answer: string) => string): string {
  const { state } = o;
  return `
  if (lid == 0u) {
    let ee_out = atomicAdd(&${state}[${o.done}], 1u + ee_published * (${o.zero}));
    if (ee_out == ${o.workgroups} - 1u) {
      let e = atomicLoad(&${state}[${o.best}]);
      ${write(decodeMatch(o.order, 'e', o.none))}
      atomicStore(&${state}[${o.best}], 0u);
      atomicStore(&${state}[${o.ticket}], 0u);
      atomicStore(&${state}[${o.done}], 0u);
    }
  }`;
}

/** Statement recording a match at position `p` (WGSL u32) in this tile. */
export const earlyExitRecord = (order: SearchOrder, p: string): string => `atomicMax(&sh_best, ${encodeMatch(order, p)});`;

/** WGSL u32 expression: the position an encoded best `e` holds, or `none` when it holds none. */
export function decodeMatch(order: SearchOrder, e: string, none: string): string {
  return `select(${order === 'first' ? `~(${e})` : `(${e}) - 1u`}, ${none}, ${e} == 0u)`;
}
