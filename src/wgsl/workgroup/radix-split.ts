import { unroll } from '../thread/unroll.js';
import { sharedInclusiveSum } from './shared-scan.js';

/**
 * One stable split of the tile by bit `s` of the ordered keys (zeros first), for the body of a
 * loop over bits: counts this invocation's zeros, scans them across the workgroup in rank order
 * (in workgroup memory; subgroup scans and the subgroups' totals; or the caller's WGSL, which
 * sets `total_zeros` and `var z`, the zeros before this invocation's), scatters ks (vs) through
 * s_keys (s_vals) and reloads this invocation's keys. `r` names the invocation's place in rank
 * order (it holds keys r * IPT .. r * IPT + IPT - 1). Needs s, ks (vs), s_keys (s_vals), bit_at,
 * WG, IPT; shared: s_scan (WG words); subgroup: s_scan (a word a subgroup), sgid, sg_lane, sg_size.
 */
export function splitByBit(itemsPerThread: number, pairs: boolean, scan: 'shared' | 'subgroup' | { readonly wgsl: string }, r = 'r'): string {
  const v = (s: string): string => (pairs ? s : '');
  return `    var zeros = 0u;
${unroll(itemsPerThread, 'j', '    zeros += 1u - bit_at(ks[j], s);')}
${typeof scan === 'object' ? `${scan.wgsl}
` : scan === 'subgroup' ? `    // Exclusive scan of the zero counts in rank order: within the subgroup, then across the
    // subgroups' totals (any subgroup size; r orders invocations subgroup by subgroup).
    let ex = subgroupExclusiveAdd(zeros);
    if (sg_lane == sg_size - 1u) { s_scan[sgid] = ex + zeros; }
    workgroupBarrier();
    var z = ex;
    var total_zeros = 0u;
    for (var g = 0u; g < WG / sg_size; g++) {
      let x = s_scan[g];
      if (g < sgid) { z += x; }
      total_zeros += x;
    }
` : `    // Inclusive scan of the zero counts across the workgroup.
    s_scan[${r}] = zeros;
    workgroupBarrier();
${sharedInclusiveSum('s_scan', r, 'WG', '    ')}
    let total_zeros = s_scan[WG - 1u];
    var z = s_scan[${r}] - zeros;
`}    // Every invocation has read the tile into registers (before the barriers above).
${unroll(itemsPerThread, 'j', `      let i = ${r} * IPT + j;
      var pos = total_zeros + i - z;
      if (bit_at(ks[j], s) == 0u) { pos = z; z += 1u; }
      s_keys[pos] = ks[j];
      ${v('s_vals[pos] = vs[j];')}`)}
    workgroupBarrier();
${unroll(itemsPerThread, 'j', `    ks[j] = s_keys[${r} * IPT + j];
    ${v(`vs[j] = s_vals[${r} * IPT + j];`)}`)}`;
}
