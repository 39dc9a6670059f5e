import { unroll } from '../thread/unroll.js';
import { coalescedPositions } from './tile.js';

/**
 * Discontinuity flags over a tile held blocked (invocation `lid` holds items lid * IPT + j in
 * `items`): a head flag marks an item that differs from the one before it (the first of a run),
 * a tail flag one that differs from the one after it (the last of a run), what unique, run-length
 * encode and the by-key algorithms build on. `differ(a, b)` is WGSL that holds when a and b
 * belong to different runs. Items at or past `valid` get no flag; the tile's first item is a head
 * (and its last valid one a tail) unless `neighbour` (WGSL: the item before the tile for heads,
 * after it for tails) is given. Neighbours cross invocations through the workgroup array
 * `scratch` (WG items). Declares `flags: array<u32, IPT>` (1 or 0). Every invocation runs it.
 */
export interface DiscontinuityOptions {
  readonly kind: 'heads' | 'tails';
  readonly items: number;
  readonly T: string;
  readonly differ: (a: string, b: string) => string;
  readonly valid: string;
  readonly scratch: string;
  readonly neighbour?: string;
  readonly array?: string;
}

export function discontinuityFlags(o: DiscontinuityOptions): string {
  const xs = o.array ?? 'items';
  const heads = o.kind === 'heads';
  const last = o.items - 1;
  // Heads look at the previous invocation's last item, tails at the next one's first.
  const share = heads ? `${xs}[${last}]` : `${xs}[0]`;
  const edgeItem = heads ? `${xs}[0]` : `${xs}[${last}]`;
  const other = heads ? `${o.scratch}[lid - 1u]` : `${o.scratch}[lid + 1u]`;
  const atEdge = heads ? 'lid == 0u' : 'lid == WG - 1u';
  const edge = o.neighbour ?? undefined;
  return `  workgroupBarrier();
  ${o.scratch}[lid] = ${share};
  workgroupBarrier();
  var flags: array<u32, ${o.items}>;
  {
    var nb: ${o.T} = ${edgeItem};
    var edge = false;
    if (${atEdge}) { ${edge ? `nb = ${edge};` : 'edge = true;'} } else { nb = ${other}; }
${unroll(o.items, 'j', heads
    ? `    {
      let p = lid * IPT + j;
      var f = false;
      if (j == 0u) { f = edge || ${o.differ('nb', `${xs}[0]`)}; } else { f = ${o.differ(`${xs}[max(j, 1u) - 1u]`, `${xs}[j]`)}; }
      flags[j] = select(0u, 1u, f && p < ${o.valid});
    }`
    : `    {
      let p = lid * IPT + j;
      var f = p + 1u == ${o.valid}${edge ? ` && ${o.differ(`${xs}[j]`, edge)}` : ''};
      if (p + 1u < ${o.valid}) {
        if (j == IPT - 1u) { f = edge || ${o.differ(`${xs}[j]`, 'nb')}; } else { f = ${o.differ(`${xs}[j]`, `${xs}[min(j + 1u, IPT - 1u)]`)}; }
      }
      flags[j] = select(0u, 1u, f && p < ${o.valid});
    }`)}
  }`;
}

/**
 * The same flags over a tile in workgroup memory (e.g. sorted, where runs of equal keys are the
 * digits' ranges): for each position i < `valid` whose `key(i)` (WGSL) starts a run (heads) or
 * ends one (tails), `then(i)` runs with the key in `let d`. Positions go coalesced, IPT rounds of
 * WG invocations.
 */
export function sharedRunFlags(kind: 'heads' | 'tails', key: (i: string) => string, valid: string, then: (i: string) => string): string {
  const edge = kind === 'heads' ? `i == 0u || ${key('i - 1u')} != d` : `i + 1u == ${valid} || ${key('i + 1u')} != d`;
  return coalescedPositions(valid, 'WG', 'IPT', (i) => `let d = ${key(i)};
      if (${edge}) { ${then(i)} }`);
}
