import { unroll } from '../../wgsl/thread/unroll.js';
import { type OutputLayout } from './kernel.js';

/**
 * The compaction engine's round-staged scatter (config `scatter: 'rounds'`, subgroup operations
 * only). A subgroup's share of the tile is Q rounds of one quad a lane: round k is 4 * sg_size
 * consecutive elements, whose selected land in consecutive places (and, for the partitions,
 * whose rejected do too). Each round the subgroup stages its elements in a region of its own in
 * workgroup memory (the selected first, in order, then the second and the rejected), and its
 * lanes copy the region out, lane i the i-th element, so a store instruction writes consecutive
 * words. The staging holds one round, 4 elements an invocation, where the tile-wide staging
 * (`staged`) holds the whole tile: on an H100 (Dawn, Vulkan) a 256 x 16 select holding 8, 16
 * or 32 KB of workgroup memory it barely used took 1.1, 1.7 and 3.3 times as long (fewer
 * workgroups resident at once: about 64 KB of workgroup memory a multiprocessor there).
 */
export interface RoundsScatter {
  readonly layout: OutputLayout;
  /** WGSL type of an element (the counts are the layout's: a pair for three-way). */
  readonly T: string;
  /** Values go along (unique by key): the element's index is staged beside it. */
  readonly values: boolean;
}

/** Workgroup memory of the staging: 4 elements (and indices) an invocation. */
export function roundsDecls(o: RoundsScatter, WG: number): string {
  return `var<workgroup> sh_round: array<${o.T}, ${WG * 4}>;${o.values ? `\nvar<workgroup> sh_round_index: array<u32, ${WG * 4}>;` : ''}`;
}

/**
 * Statements after the tile's prefix: `head` (the tile's and the subgroup's prefix), `pre[k]`
 * (the counts before each lane's quad in the subgroup's share), `seg[k]` (before round k;
 * `seg[Q]` the share's total), `masks[k]` and `items[k]`. Every invocation reaches the barriers.
 */
export function roundsScatter(o: RoundsScatter, Q: number): string {
  const pair = o.layout === 'three-way';
  // Where staged position `r` of the round goes: `sel` the round's count(s), `at` the place of
  // its first selected (and first second), `rej` the rejected before the round.
  const copy: Record<OutputLayout, { limit: string; store: (r: string, x: string) => string }> = {
    select: { limit: 'sel', store: (r, x) => `out_store(at + ${r}, ${x});${o.values ? ` vals_out[at + ${r}] = vals[sh_round_index[region + ${r}]];` : ''}` },
    partition: { limit: 'valid', store: (r, x) => `if (${r} < sel) { out_store(at + ${r}, ${x}); } else { out_store(P.count - 1u - (rej + ${r} - sel), ${x}); }` },
    'two-way': { limit: 'valid', store: (r, x) => `if (${r} < sel) { out_store(at + ${r}, ${x}); } else { rejected_store(rej + ${r} - sel, ${x}); }` },
    'three-way': {
      limit: 'valid',
      store: (r, x) => `if (${r} < sel.x) { out_store(at.x + ${r}, ${x}); } else if (${r} < sel.x + sel.y) { second_store(at.y + ${r} - sel.x, ${x}); } else { rejected_store(rej + ${r} - sel.x - sel.y, ${x}); }`,
    },
  };
  // Staging element j of the lane's quad: its rank among the round's (ls: selected before it in the round).
  const stage: Record<OutputLayout, string> = {
    select: `if (f != 0u) { sh_round[region + ls] = x;${o.values ? ' sh_round_index[region + ls] = e;' : ''} }`,
    partition: 'if (f != 0u) { sh_round[region + ls] = x; } else { sh_round[region + sel + le - ls] = x; }',
    'two-way': 'if (f != 0u) { sh_round[region + ls] = x; } else { sh_round[region + sel + le - ls] = x; }',
    'three-way': 'if (f.x != 0u) { sh_round[region + ls.x] = x; } else if (f.y != 0u) { sh_round[region + sel.x + ls.y] = x; } else { sh_round[region + sel.x + sel.y + le - ls.x - ls.y] = x; }',
  };
  const c = copy[o.layout];
  // The rejected before the round: the elements before it less the selected (and second) before it.
  const rej = o.layout === 'select' ? '' : `
      let rej = ${pair ? 'e0 - at.x - at.y' : 'e0 - at'};`;
  return `
    let head = op(tile_prefix, sg_prefix);
    let region = sgid * sg_size * 4u;
${unroll(Q, 'k', `
      // Round k: elements [e0, e0 + 4 * sg_size) of the input, \`valid\` of them before the end.
      let e0 = (base + k * sg_size) * 4u;
      let valid = min(4u * sg_size, P.count - min(e0, P.count));
      let sel = seg[k + 1u] - seg[k];
      let at = op(head, seg[k]);${rej}
      if (k > 0u) { workgroupBarrier(); }
      var ls = pre[k] - seg[k];
${unroll(4, 'j', `        let e = e0 + sg_lane * 4u + j;
        if (e < P.count) {
          let x = items[k][j];
          let f = unpack_flag(masks[k], j);
          let le = sg_lane * 4u + j;
          ${stage[o.layout]}
          ls = op(ls, f);
        }`)}
      workgroupBarrier();
${unroll(4, 'i', `        let r = i * sg_size + sg_lane;
        if (r < ${c.limit}) {
          let x = sh_round[region + r];
          ${c.store('r', 'x')}
        }`)}`)}`;
}
