/**
 * The early-exit tile loop (CUB's FindIf, rocPRIM's adjacent_find): workgroup w of G takes tiles
 * w, w + G, w + 2G, ... (for `last`: counted from the end) and stops once a match lies before
 * (for `last`: after) its next tile, so the work done grows with the position found, not the
 * input. The best match so far lives in one word of `state`, encoded so that 0 is "none" and
 * `atomicMax` improves it (WGSL's atomics are relaxed; a value that only moves one way needs no
 * more):
 * - `first`: the smallest position p, stored as `~p` (positions stay below 2^32 - 1);
 * - `last`: the largest, stored as `p + 1`.
 * `state[best]` is zero before the launch. A tile's matches meet in a workgroup atomic first, so
 * one global atomic a workgroup at most.
 *
 * Tiles are assigned by stride, not taken from an atomic tile counter: a counter that every
 * workgroup hits every tile held the scan at 75-79% of copy bandwidth on the H200, the stride
 * at 90-101%. The price: a grid larger than the GPU holds at once leaves the tiles of the
 * workgroups that start late to the end (slower early exits, never a wrong answer), so the
 * tuned grids stay within what the GPU holds.
 *
 * The best match so far is fetched when a tile starts, so its round trip overlaps the tile's
 * loads; a tile costs one barrier and one uniform broadcast. The decision to take the next tile
 * uses the best as it was one tile earlier (at most one more tile a workgroup read past a match).
 */
export type SearchOrder = 'first' | 'last';

/** Workgroup variables of the loop. */
export const EARLY_EXIT_DECLS = `var<workgroup> sh_tile: u32;
var<workgroup> sh_best: atomic<u32>;`;

/** The encoded form of match position `p` (WGSL u32 expression). */
export const encodeMatch = (order: SearchOrder, p: string): string => (order === 'first' ? `~(${p})` : `(${p}) + 1u`);

export interface EarlyExitLoop {
  readonly order: SearchOrder;
  /** The `array<atomic<u32>>` holding the best match, and its index (WGSL u32). */
  readonly state: string;
  readonly best: string;
  /** This workgroup's index and the number of workgroups (WGSL u32; a one-dimensional grid). */
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
  const fetch = `ee_best = atomicLoad(&${state}[${o.best}]);`;
  // Invocation 0 alone decides (from the fetched best and the tile's matches, which the barrier
  // before made visible); the uniform load hands the decision to the workgroup.
  const decide = `if (lid == 0u) {
      let m = atomicLoad(&sh_best);
      var next = 0xffffffffu;
      if (m != 0u) {
        atomicMax(&${state}[${o.best}], m);
      } else if (ee_next < ${numTiles}) {
        let t = ${tileOf};
        let b = ee_best;
        if (!(${beaten})) { next = t; }
        ee_next += ${o.workgroups};
      }
      sh_tile = next;
    }`;
  return `
  var ee_next = ${o.workgroup};
  var ee_best = 0u;
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

/** Statement recording a match at position `p` (WGSL u32) in this tile. */
export const earlyExitRecord = (order: SearchOrder, p: string): string => `atomicMax(&sh_best, ${encodeMatch(order, p)});`;

/** WGSL u32 expression: the position an encoded best `e` holds, or `none` when it holds none. */
export function decodeMatch(order: SearchOrder, e: string, none: string): string {
  return `select(${order === 'first' ? `~(${e})` : `(${e}) - 1u`}, ${none}, ${e} == 0u)`;
}
