import { tileTicket } from './tile-counter.js';

/**
 * The early-exit tile loop (CUB's FindIf, rocPRIM's adjacent_find): a persistent workgroup takes
 * tiles *in order* from the tile counter and stops once a match lies before (for `last`: after)
 * its next tile, so the work done grows with the position found, not the input. The best match
 * so far lives in one word of `state`, encoded so that 0 is "none" and `atomicMax` improves it
 * (WGSL's atomics are relaxed; a value that only moves one way needs no more):
 * - `first`: the smallest position p, stored as `~p` (positions stay below 2^32 - 1);
 * - `last`: the largest, stored as `p + 1`; its tiles are taken from the end.
 * `state[ticket]` is the tile counter, `state[best]` the best match; both zero before the launch.
 * A tile's matches meet in a workgroup atomic first, so one global atomic a tile at most.
 */
export type SearchOrder = 'first' | 'last';

/** Workgroup variables of the loop. */
export const EARLY_EXIT_DECLS = `var<workgroup> sh_tile: u32;
var<workgroup> sh_hit: u32;
var<workgroup> sh_best: atomic<u32>;`;

/** The encoded form of match position `p` (WGSL u32 expression). */
export const encodeMatch = (order: SearchOrder, p: string): string => (order === 'first' ? `~(${p})` : `(${p}) + 1u`);

/**
 * Statements opening one turn of the loop (inside `loop { ... }`, `lid` the local index): `tile`
 * (uniform) is the next tile, or the loop breaks when the tiles ran out or a match makes the
 * rest useless. `numTiles` and `tileSize` are WGSL u32 expressions.
 */
export function earlyExitTake(order: SearchOrder, state: string, ticket: string, best: string, numTiles: string, tileSize: string): string {
  const tileOf = order === 'first' ? 't' : `${numTiles} - 1u - t`;
  // A match before this tile (first) or past its end (last) wins over anything the tile holds.
  const beaten = order === 'first' ? `b != 0u && ~b < tile * ${tileSize}` : `b != 0u && b - 1u >= (tile + 1u) * ${tileSize}`;
  return `
    if (lid == 0u) {
      let t = ${tileTicket(state, ticket)};
      var next = 0xffffffffu;
      if (t < ${numTiles}) {
        let tile = ${tileOf};
        let b = atomicLoad(&${state}[${best}]);
        if (!(${beaten})) { next = tile; }
      }
      sh_tile = next;
      atomicStore(&sh_best, 0u);
    }
    let tile = workgroupUniformLoad(&sh_tile);
    if (tile == 0xffffffffu) { break; }`;
}

/** Statement recording a match at position `p` (WGSL u32) in this tile. */
export const earlyExitRecord = (order: SearchOrder, p: string): string => `atomicMax(&sh_best, ${encodeMatch(order, p)});`;

/**
 * Statements closing a turn: the tile's best match goes to `state[best]`, and a tile that had one
 * ends the loop (every later tile lies past it in the search order).
 */
export function earlyExitPublish(state: string, best: string): string {
  return `
    workgroupBarrier();
    if (lid == 0u) {
      let m = atomicLoad(&sh_best);
      if (m != 0u) { atomicMax(&${state}[${best}], m); }
      sh_hit = m;
    }
    if (workgroupUniformLoad(&sh_hit) != 0u) { break; }`;
}

/** WGSL u32 expression: the position an encoded best `e` holds, or `none` when it holds none. */
export function decodeMatch(order: SearchOrder, e: string, none: string): string {
  return `select(${order === 'first' ? `~(${e})` : `(${e}) - 1u`}, ${none}, ${e} == 0u)`;
}
