// WGSL shared by the segmented sort's kernels: the workgroup-wide sum scan, the stable rank of
// a tile by one digit (the match rank), and the module-scope declarations around them.
import { keyFunctions, rawType } from '../../wgsl/thread/radix-key.js';
import { type TypeInfo } from '../../wgsl/types.js';
import { radixRankDecls, rankCounts, rankMatch, type RadixRankOptions } from '../../wgsl/workgroup/radix-rank.js';
import { sharedInclusiveSum } from '../../wgsl/workgroup/shared-scan.js';
import { scratchAccess } from './access.js';
import { type SegmentedRadixSortConfig } from './config.js';

/** `wg_scan(lid, x)`: inclusive sum of x across the workgroup (in lid order) and the total. Needs `s_scan`, WG. */
export const WG_SCAN_FN = `fn wg_scan(lid: u32, x: u32) -> vec2<u32> {
  workgroupBarrier();
  s_scan[lid] = x;
  workgroupBarrier();
${sharedInclusiveSum('s_scan', 'lid', 'WG')}
  return vec2<u32>(s_scan[lid], s_scan[WG - 1u]);
}`;

export interface TileSortShape {
  readonly key: TypeInfo;
  readonly valueBytes: 0 | 4 | 8;
  readonly config: SegmentedRadixSortConfig;
  readonly subgroupMinSize: number;
  readonly subgroupMaxSize: number;
}

/** The match rank's options for a config. */
export const rankOptions = (o: TileSortShape): RadixRankOptions => ({
  workgroupSize: o.config.workgroupSize, itemsPerThread: o.config.itemsPerThread, radixBits: o.config.radixBits, subgroupMinSize: o.subgroupMinSize, subgroupMaxSize: o.subgroupMaxSize,
});

/**
 * Module scope every sort kernel shares, after its bindings: the tile's constants, the key
 * functions (direction from `flip`), the scratch access (`vin`: the values' source array), the
 * tile in workgroup memory, `s_scan` and `wg_scan`, and with `match` the rank's arrays.
 */
export function tileSortDecls(o: TileSortShape, vin: string, match: boolean): string {
  const c = o.config;
  const K = rawType(o.key);
  const V = o.valueBytes === 8 ? 'vec2<u32>' : 'u32';
  return `${keyFunctions(o.key, false)}
var<private> flip: u32;
const WG = ${c.workgroupSize}u;
const IPT = ${c.itemsPerThread}u;
const TILE = ${c.workgroupSize * c.itemsPerThread}u;
const RB = ${c.radixBits}u;
const RADIX = ${1 << c.radixBits}u;
const DPT = ${Math.ceil((1 << c.radixBits) / c.workgroupSize)}u;
${scratchAccess(o.key, o.valueBytes, vin)}
${match ? `${radixRankDecls(rankOptions(o))}
var<workgroup> sg_counter: atomic<u32>;` : ''}
var<workgroup> s_keys: array<${K}, TILE>;
${o.valueBytes ? `var<workgroup> s_vals: array<${V}, TILE>;` : ''}
var<workgroup> s_scan: array<u32, WG>;
${WG_SCAN_FN}`;
}

/**
 * The tile in `ks` (`vs`) ranked stably by `digit(j)` (the match rank): it ends sorted by that
 * digit in `s_keys` (`s_vals`), each digit's first place in `rk_start`, its count in `rk_count`.
 */
export function rankTileByDigit(o: TileSortShape, digit: (j: string) => string): string {
  const rk = rankOptions(o);
  return `${rankCounts(rk, digit)}
  ${rankMatch(rk, digit, (j, rank) => `s_keys[${rank}] = ks[${j}];${o.valueBytes ? ` s_vals[${rank}] = vs[${j}];` : ''}`)}
  workgroupBarrier();`;
}
