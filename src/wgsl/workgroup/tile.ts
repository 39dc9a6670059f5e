import { unroll } from '../thread/unroll.js';

/**
 * Moving a tile between global memory and an invocation's registers or workgroup memory, in the
 * arrangements the kernels use, each with the guard for a partial last tile:
 * - vectorized: an invocation's items are quads of 4 consecutive elements, moved as 16-byte
 *   accesses through a view (src/wgsl/views.ts) on full tiles and element by element (guarded)
 *   on the last;
 * - striped: item j of invocation (sgid, sg_lane) is element `striped_pos(j, sgid, sg_lane,
 *   sg_size)` of the tile (subgroup-striped: coalesced, and a rank that visits j then lanes in
 *   order is stable);
 * - direct through workgroup memory: coalesced loads into a workgroup array, then each
 *   invocation takes IPT consecutive elements (blocked, the order a per-bit split ranks in).
 */

/** `striped_pos(j, sgid, sg_lane, sg_size)`: the tile position of item j of a lane, subgroup-striped. */
export function stripedPosFn(itemsPerThread: number): string {
  return `fn striped_pos(j: u32, sgid: u32, sg_lane: u32, sg_size: u32) -> u32 {
  return (sgid * ${itemsPerThread}u + j) * sg_size + sg_lane;
}`;
}

export interface QuadTileLoad {
  /** View name: `<view>_quad(q)` and `<view>_at(e)`. */
  readonly view: string;
  readonly T: string;
  /** Quads an invocation holds. */
  readonly quads: number;
  /** WGSL bool: the whole tile lies before the view's vector end. */
  readonly fast: string;
  /** WGSL expression of item quad k's index (uses `k`). */
  readonly quad: string;
  /** Unroll the fast path's loads (the scan keeps them in flight; the reduce's loop suffices). */
  readonly unrolled: boolean;
  /** Element count (WGSL); items past it get `pad`. */
  readonly count?: string;
  readonly pad?: string;
}

/** Declares `items` (array of quads) and loads this invocation's quads (vectorized). */
export function quadTileLoad(o: QuadTileLoad): string {
  const count = o.count ?? 'P.count';
  const fast = o.unrolled
    ? unroll(o.quads, 'k', `      items[k] = ${o.view}_quad(${o.quad});`)
    : `      for (var k = 0u; k < ${o.quads}u; k++) { items[k] = ${o.view}_quad(${o.quad}); }`;
  return `    var items: array<array<${o.T}, 4>, ${o.quads}>;
    if (${o.fast}) {
${fast}
    } else {
      for (var k = 0u; k < ${o.quads}u; k++) {
        let q = ${o.quad};
        for (var j = 0u; j < 4u; j++) {
          let e = q * 4u + j;
          if (e < ${count}) { items[k][j] = ${o.view}_at(e); } else { items[k][j] = ${o.pad ?? 'identity()'}; }
        }
      }
    }`;
}

/**
 * Stores quad `o` (array of 4) at quad index `q` through view `view`: one 16-byte store when `fast`,
 * else guarded elements, those in [from, count).
 */
export function quadStore(view: string, q: string, o: string, fast: string, count = 'P.count', from?: string): string {
  return `      if (${fast}) {
        ${view}_store_quad(${q}, ${o});
      } else {
        for (var j = 0u; j < 4u; j++) {
          let e = ${q} * 4u + j;
          if (${from ? `e >= ${from} && ` : ''}e < ${count}) { ${view}_store(e, ${o}[j]); }
        }
      }`;
}

export interface TileLoad {
  readonly items: number;
  /** WGSL element and value types of the registers `ks` / `vs`. */
  readonly K: string;
  readonly V: string;
  /** WGSL expression of element e's key as held (e.g. `to_ordered(load_key(e))`). */
  readonly key: (e: string) => string;
  /** Value of element e; absent: keys only. */
  readonly value?: (e: string) => string;
  /** Declare `ks` (`vs`), or load into the caller's. */
  readonly declare?: boolean;
  /** First element of the tile and how many are valid (WGSL). */
  readonly base?: string;
  readonly valid?: string;
  /** Invalid keys' fill (their values are not loaded). */
  readonly fill?: string;
}

/** Loads the tile subgroup-striped into `ks` (`vs`). Needs sgid, sg_lane, sg_size, striped_pos. */
export function stripedTileLoad(o: TileLoad): string {
  const base = o.base ?? 'base';
  const v = (s: string): string => (o.value ? s : '');
  return `${o.declare === false ? '' : `  var ks: array<${o.K}, IPT>;
  ${v(`var vs: array<${o.V}, IPT>;`)}`}
${unroll(o.items, 'j', `  let p = striped_pos(j, sgid, sg_lane, sg_size);
  var y = ${o.fill ?? 'SENTINEL'};
  if (p < ${o.valid ?? 'valid'}) {
    y = ${o.key(`${base} + p`)};
    ${v(`vs[j] = ${o.value?.(`${base} + p`)};`)}
  }
  ks[j] = y;`)}`;
}

/**
 * Loads the tile coalesced into `s_keys` (`s_vals`), the fill past `valid`, then into `ks` (`vs`)
 * invocation `rank`'s consecutive items rank * IPT .. rank * IPT + IPT - 1. Needs lid, WG, IPT.
 */
export function blockedTileLoadViaShared(o: TileLoad & { readonly rank: string }): string {
  const base = o.base ?? 'base';
  const v = (s: string): string => (o.value ? s : '');
  return `  for (var k = 0u; k < IPT; k++) {
    let i = k * WG + lid;
    if (i < ${o.valid ?? 'valid'}) {
      s_keys[i] = ${o.key(`${base} + i`)};
      ${v(`s_vals[i] = ${o.value?.(`${base} + i`)};`)}
    } else {
      s_keys[i] = ${o.fill ?? 'SENTINEL'};
    }
  }
  workgroupBarrier();
${o.declare === false ? '' : `  var ks: array<${o.K}, IPT>;
  ${v(`var vs: array<${o.V}, IPT>;`)}
`}${unroll(o.items, 'j', `  ks[j] = s_keys[${o.rank} * IPT + j];
  ${v(`vs[j] = s_vals[${o.rank} * IPT + j];`)}`)}`;
}

/** Stores the striped registers: `store(j, p)` is WGSL storing item j at tile position p, run for p < valid. */
export function stripedTileStore(items: number, valid: string, store: (p: string) => string): string {
  return unroll(items, 'j', `  let p = striped_pos(j, sgid, sg_lane, sg_size);
  if (p < ${valid}) {
    ${store('p')}
  }`);
}

/** Runs `body(i)` for workgroup-memory tile positions i in [0, n), coalesced: `rounds` rounds of `wg` invocations. */
export function coalescedPositions(n: string, wg: string, rounds: string, body: (i: string) => string): string {
  return `  for (var k = 0u; k < ${rounds}; k++) {
    let i = k * ${wg} + lid;
    if (i < ${n}) {
      ${body('i')}
    }
  }`;
}

/** One array a staged load fills: its element type, the load of position i and the store of x at position i. */
export interface StagedLane {
  readonly type: string;
  readonly load: (i: string) => string;
  readonly store: (i: string, x: string) => string;
}

/**
 * Loads tile positions [0, n) coalesced (`rounds` rounds of `wg` invocations, `rounds` a
 * constant) and stores them, each lane of `lanes` its own array: every round's loads are
 * issued before the first store, so an invocation waits out one memory latency, not one a
 * round (a rolled loop that stores each load before the next load waits out `rounds`).
 * The loads are unguarded: a position past the tile reads its last element (n >= 1) and only
 * the stores are guarded. A load under a guard leaves its register holding either the load or
 * the old value, and where the load branches further (a merge's two inputs) NVIDIA's compiler
 * then waits for each load before the next one is issued: on the H200 a copy through
 * workgroup memory took 1.6x (128 x 8) to 2.5x (512 x 15) as long guarded.
 */
export function stagedTileLoad(n: string, wg: string, rounds: number, lanes: readonly StagedLane[]): string {
  const staged = (l: number): string => `staged_${l}`;
  const each = (body: (l: StagedLane, name: string) => string): string => lanes.map((l, i) => body(l, staged(i))).join('\n      ');
  return `  {
${lanes.map((l, i) => `    var ${staged(i)}: array<${l.type}, ${rounds}>;`).join('\n')}
${unroll(rounds, 'k', `    let i = min(k * ${wg} + lid, ${n} - 1u);
    ${each((l, name) => `${name}[k] = ${l.load('i')};`)}`)}
${unroll(rounds, 'k', `    let i = k * ${wg} + lid;
    if (i < ${n}) {
      ${each((l, name) => `${l.store('i', `${name}[k]`)};`)}
    }`)}
  }`;
}

/** Stores workgroup-memory tile positions [0, n) coalesced; `store(i)` is WGSL storing position i. */
export const sharedTileStore = coalescedPositions;
