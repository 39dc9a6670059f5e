import { unroll } from '../../wgsl/block.js';

// WGSL snippets shared by the radix sort kernels (LSD scatter, onesweep, block sort) and the
// segmented radix sort. Each returns text for the body of `main`; the names it relies on are
// listed with it.

/** WGSL expression loading value element `e` (itself a WGSL expression); absent: keys only. */
export type ValueLoad = ((e: string) => string) | undefined;

const indent = (text: string, pad: string): string => text.split('\n').map((l) => pad + l).join('\n');

/**
 * Inclusive scan of `array[0 .. size)` in workgroup memory (Hillis-Steele), invocation `index`
 * owning element `index`; every invocation runs it (its barriers are uniform). `array` holds the
 * inclusive prefix sums afterwards.
 */
export function workgroupInclusiveScan(array: string, index: string, size: string, pad = '  '): string {
  return indent(`for (var d = 1u; d < ${size}; d <<= 1u) {
  var y = 0u;
  if (${index} >= d) { y = ${array}[${index} - d]; }
  workgroupBarrier();
  if (${index} >= d) { ${array}[${index}] += y; }
  workgroupBarrier();
}`, pad);
}

/**
 * Declares `ks` (and `vs`) of IPT items (unless `declare` is false: loads into the caller's) and
 * loads the tile subgroup-striped: item j of this
 * invocation is element `striped_pos(j, sgid, sg_lane, sg_size)` of the tile; keys past `valid`
 * are SENTINEL (their values are not loaded). Needs base, valid, sgid, sg_lane, sg_size,
 * striped_pos, to_ordered, `loadKey` (default load_key), SENTINEL and IPT.
 */
export function stripedTileLoad(itemsPerThread: number, K: string, V: string, loadVal: ValueLoad, declare = true, loadKey = 'load_key'): string {
  const v = (s: string): string => (loadVal ? s : '');
  return `${declare ? `  var ks: array<${K}, IPT>;
  ${v(`var vs: array<${V}, IPT>;`)}` : ''}
${unroll(itemsPerThread, 'j', `  let p = striped_pos(j, sgid, sg_lane, sg_size);
  var y = SENTINEL;
  if (p < valid) {
    y = to_ordered(${loadKey}(base + p));
    ${v(`vs[j] = ${loadVal?.('base + p')};`)}
  }
  ks[j] = y;`)}`;
}

/**
 * The split rank's tile load: the tile coalesced into s_keys (s_vals), SENTINEL past `valid`,
 * then declares `ks` (`vs`) and takes invocation r's consecutive keys r * IPT .. r * IPT + IPT - 1
 * (rank order). Needs base, valid, lid, r, WG, IPT, s_keys (s_vals), to_ordered, load_key, SENTINEL.
 */
export function splitTileLoad(itemsPerThread: number, K: string, V: string, loadVal: ValueLoad): string {
  const v = (s: string): string => (loadVal ? s : '');
  return `  for (var k = 0u; k < IPT; k++) {
    let i = k * WG + lid;
    if (i < valid) {
      s_keys[i] = to_ordered(load_key(base + i));
      ${v(`s_vals[i] = ${loadVal?.('base + i')};`)}
    } else {
      s_keys[i] = SENTINEL;
    }
  }
  workgroupBarrier();
  var ks: array<${K}, IPT>;
  ${v(`var vs: array<${V}, IPT>;`)}
${unroll(itemsPerThread, 'j', `  ks[j] = s_keys[r * IPT + j];
  ${v('vs[j] = s_vals[r * IPT + j];')}`)}`;
}

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
${workgroupInclusiveScan('s_scan', r, 'WG', '    ')}
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
