import { unroll } from '../thread/unroll.js';

/**
 * The elements next to a lane's quads in the layout the single-pass tile kernels load (quad k of
 * lane `sg_lane` is quad `base + k * sg_size + sg_lane` of four consecutive elements, in
 * `items[k]`): the element before quad k's first (`<name>_before[k]`) and after its last
 * (`<name>_after[k]`). They come from the neighbouring lanes by shuffles (one a quad, rotated,
 * so lane 0's comes from the last lane's previous quad), and only the subgroup's very first
 * (last) quad reaches to global memory, through `load(e)` (WGSL of element e): not one reload a
 * quad. Without subgroup operations (`sub` false: sg_size 1, a lane's quads consecutive) the
 * neighbours are the lane's own quads. Elements outside [0, count) are left as `T()`. Every
 * invocation of the subgroup runs it (it shuffles), before any divergence.
 */
export interface QuadNeighbours {
  readonly name: string;
  readonly T: string;
  readonly quads: number;
  readonly items: string;
  readonly sub: boolean;
  readonly load: (e: string) => string;
  readonly count?: string;
  readonly before?: boolean;
  readonly after?: boolean;
}

export function quadNeighbours(o: QuadNeighbours): string {
  const count = o.count ?? 'P.count';
  const rotate = (x: string, lane: string): string => (o.sub ? `subgroupShuffle(${x}, ${lane})` : x);
  const last = o.quads - 1;
  const before = o.before === false ? '' : `
    var ${o.name}_before: array<${o.T}, ${o.quads}>;
    {
      var wrap = ${o.T}();
      let first = base * 4u;
      if (sg_lane == 0u && first > 0u && first <= ${count}) { wrap = ${o.load('first - 1u')}; }
${unroll(o.quads, 'k', `      let rot = ${rotate(`${o.items}[k][3]`, '(sg_lane + sg_size - 1u) % sg_size')};
      ${o.name}_before[k] = select(rot, wrap, sg_lane == 0u);
      wrap = rot;`)}
    }`;
  const after = o.after !== true ? '' : `
    var ${o.name}_after: array<${o.T}, ${o.quads}>;
    {
${unroll(o.quads, 'k', `      let rot = ${rotate(`${o.items}[k][0]`, '(sg_lane + 1u) % sg_size')};
      if (sg_lane + 1u < sg_size) { ${o.name}_after[k] = rot; } else if (k > 0u) { ${o.name}_after[max(k, 1u) - 1u] = rot; }`)}
      let next = ((base + ${last}u * sg_size + sg_lane) + 1u) * 4u;
      if (sg_lane + 1u == sg_size && next < ${count}) { ${o.name}_after[${last}] = ${o.load('next')}; }
    }`;
  return `${before}${after}`;
}
