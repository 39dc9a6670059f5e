import { laneMask } from '../../wgsl/subgroup/ballot.js';
import { unroll } from '../../wgsl/thread/unroll.js';

/**
 * The compaction engine's striped tile (config `scatter: 'striped'`, subgroup operations only):
 * a subgroup's share of the tile is `itemsPerThread` rows of `sg_size` consecutive elements, one
 * per lane. Each row's flags become one ballot; a lane's rank among the row's selected is the
 * count of lanes below it in the ballot, the row's count is the ballot's. So the subgroup's total
 * needs no subgroup scan, and one store instruction writes a row's selected elements to
 * consecutive places (the direct scatter of quads writes every other word of a span at 50%).
 */
export interface StripedTile {
  readonly T: string;
  readonly itemsPerThread: number;
  /** Counts are pairs (three-way: first, second). */
  readonly pair: boolean;
  /** The flag needs the element before (unique). */
  readonly prev: boolean;
  readonly subgroupMaxSize: number;
}

/** Module-scope helpers: lane masks of the widest subgroup the device has, and the row's counts. */
export function stripedDecls(o: StripedTile): string {
  const mask = laneMask(o.subgroupMaxSize);
  const count = o.pair
    ? `fn row_count(a: ${mask.type}, b: ${mask.type}) -> vec2<u32> { return vec2<u32>(${mask.count('a')}, ${mask.count('b')}); }`
    : `fn row_count(a: ${mask.type}, b: ${mask.type}) -> u32 { return ${mask.count('a')}; }`;
  return `${mask.fns}\n${count}`;
}

/**
 * Statements after `sgid`, `sg_lane` and `tile`: loads the rows (`items[j]`, element
 * `sub_base + j * sg_size + sg_lane`), flags them (`flag_of`, packed two bits an element in
 * `fmask`), ballots them (`bal_a[j]`, and `bal_b[j]` for pairs) and leaves `run`, the
 * subgroup's count(s), in every lane.
 */
export function stripedFlags(o: StripedTile): string {
  const mask = laneMask(o.subgroupMaxSize);
  const I = o.itemsPerThread;
  const words = Math.ceil(I / 16);
  const prev = o.prev ? `
        var prev = x;
        if (e > 0u) { prev = in_at(e - 1u); }` : `
        let prev = x;`;
  return `
    let sub_base = tile * TILE + sgid * sg_size * ${I}u;
    let below = lane_mask_below(sg_lane);
    var items: array<${o.T}, ${I}>;
    var fmask: array<u32, ${words}>;
    var bal_a: array<${mask.type}, ${I}>;${o.pair ? `
    var bal_b: array<${mask.type}, ${I}>;` : ''}
    var run = identity();
${unroll(I, 'j', `      let e = sub_base + j * sg_size + sg_lane;
      var f = identity();
      if (e < P.count) {
        let x = in_at(e);
        items[j] = x;${prev}
        f = flag_of(x, e, prev);
        fmask[j / 16u] |= pack_flag(f) << (2u * (j % 16u));
      }
      ${o.pair
    ? `bal_a[j] = subgroupBallot(f.x != 0u)${mask.part};
      bal_b[j] = subgroupBallot(f.y != 0u)${mask.part};
      run = op(run, row_count(bal_a[j], bal_b[j]));`
    : `bal_a[j] = subgroupBallot(f != 0u)${mask.part};
      run = op(run, row_count(bal_a[j], bal_a[j]));`}`)}`;
}

/**
 * Statements writing the rows out: `store` (the layout's direct store, over `s`, the count(s)
 * of selected before the element in the whole input, `x`, `f` and `e`) for each element, `head`
 * being the count(s) before the subgroup's share.
 */
export function stripedScatter(o: StripedTile, store: string): string {
  const I = o.itemsPerThread;
  const b = o.pair ? '(bal_b[j] & below)' : '(bal_a[j] & below)';
  return `
    var row_head = head;
${unroll(I, 'j', `      let e = sub_base + j * sg_size + sg_lane;
      if (e < P.count) {
        let s = op(row_head, row_count(bal_a[j] & below, ${b}));
        let x = items[j];
        let f = unpack_flag(fmask[j / 16u], j % 16u);
        ${store}
      }
      row_head = op(row_head, row_count(bal_a[j], ${o.pair ? 'bal_b[j]' : 'bal_a[j]'}));`)}`;
}
