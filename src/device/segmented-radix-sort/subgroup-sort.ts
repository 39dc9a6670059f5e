// The segmented sort's subgroup sorts: segments of at most TINY keys (subgroupKeysPerLane times
// the smallest subgroup size), one subgroup each, ranked by comparison (rocPRIM's warp sort).

export interface SubgroupSortOptions {
  /** WGSL type of a key's ordered bits, and of a value (when `pairs`). */
  readonly K: string;
  readonly V: string;
  readonly pairs: boolean;
  /** Keys a lane holds (1, 2, 4 or 8). */
  readonly keysPerLane: number;
  /** The values' source array (`vals_in`, or `vals_out` in place). */
  readonly valuesIn: string;
  /**
   * WGSL statements that set `b` and `e` (the segment [b, e), clamped) of the workgroup's `g`-th
   * tiny segment, or `continue` / `break` past the workgroup's share.
   */
  readonly bounds: string;
  /** WGSL statements marking [b, e) covered with the subgroup's lanes, or ''. */
  readonly mark: string;
}

/**
 * The subgroups' loop over the workgroup's segments (SPW of them): a segment of at most TINY
 * keys is loaded into the subgroup's lanes (key i in lane i % sg_size, slot i / sg_size), each
 * key ranked against every key of its segment (stable: ties go by position) and stored at its
 * rank. Needs the key functions, `store_out`, `load_in`, and `sgid`, `sg_lane`, `sg_size`.
 */
export function subgroupSorts(o: SubgroupSortOptions): string {
  const { K, V, pairs } = o;
  const KPL = o.keysPerLane;
  const v = (s: string): string => (pairs ? s : '');
  const slots = (f: (s: number) => string): string => Array.from({ length: KPL }, (_, s) => f(s)).join('\n');
  // Whether key o (slot S, lane j) goes before this lane's key of slot D.
  const tieRule = (S: number, D: number): string => {
    if (S < D) return `!key_less(mks[${D}], o)`;
    if (S > D) return `key_less(o, mks[${D}])`;
    return `(key_less(o, mks[${D}]) || (all(o == mks[${D}]) && j < sg_lane))`;
  };
  return `  let nsg_tiny = WG / sg_size;
  for (var g = sgid; g < SPW; g += nsg_tiny) {
    var b: u32;
    var e: u32;
${o.bounds}
    let len = e - b;
    if (len == 0u || len > TINY) { continue; }
${o.mark}
    var ys: array<${K}, KPL>;
    var mks: array<${K}, KPL>;
    var ranks: array<u32, KPL>;
    ${v(`var vals: array<${V}, KPL>;`)}
${slots((s) => `    {
      let i = ${s}u * sg_size + sg_lane;
      ys[${s}] = SENTINEL;
      if (i < len) {
        ys[${s}] = to_ordered(load_in(b + i));
        ${v(`vals[${s}] = ${o.valuesIn}[b + i];`)}
      }
      mks[${s}] = range_bits(ys[${s}]);
      ranks[${s}] = 0u;
    }`)}
    // Key j of slot S (lane j's), broadcast, against every held key of slot D: slots past
    // the segment's end are skipped, so a segment pays for ceil(len / sg_size)^2 slot pairs.
    // Ties go by position: slot S before slot D when S < D, lanes in order within one slot.
${slots((S) => `    if (${S}u * sg_size < len) {
      let n = min(sg_size, len - ${S}u * sg_size);
      for (var j = 0u; j < n; j++) {
        let o = subgroupShuffle(mks[${S}], j);
${Array.from({ length: KPL }, (_, D) => `        if (${D}u * sg_size < len && ${tieRule(S, D)}) { ranks[${D}] += 1u; }`).join('\n')}
      }
    }`)}
${slots((s) => `    if (${s}u * sg_size + sg_lane < len) {
      store_out(b + ranks[${s}], from_ordered(ys[${s}]));
      ${v(`vals_out[b + ranks[${s}]] = vals[${s}];`)}
    }`)}
  }`;
}
