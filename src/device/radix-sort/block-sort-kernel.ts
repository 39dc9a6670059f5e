import { type Kernel, LINEAR_WORKGROUP_ID, paramsStruct } from '../../runtime/kernel.js';
import { subgroupEnables } from '../../wgsl/prelude.js';
import { SUBGROUP_BUILTINS, SUBGROUP_ID } from '../../wgsl/subgroup/id.js';
import { keyFunctions, rawType } from '../../wgsl/thread/radix-key.js';
import { unroll } from '../../wgsl/thread/unroll.js';
import { type TypeInfo } from '../../wgsl/types.js';
import { stripedFromShared } from '../../wgsl/workgroup/exchange.js';
import { radixRankDecls, radixRankKey, rankCounts, rankMatch } from '../../wgsl/workgroup/radix-rank.js';
import { splitByBit } from '../../wgsl/workgroup/radix-split.js';
import { blockedTileLoadViaShared, stripedTileLoad, stripedTileStore } from '../../wgsl/workgroup/tile.js';
import { type MergeTileKernelOptions } from '../merge/kernel.js';
import { accessors, storeKeyWords, storeTile, valueType } from '../merge/tile-io.js';
import { type RadixSortBlockSortConfig } from './block-sort-config.js';

/**
 * The block sort of the radix sort's small-size paths: each workgroup sorts one tile of
 * workgroupSize * itemsPerThread keys (and values) completely, by bits [begin_bit, end_bit),
 * in workgroup memory, and writes the sorted tile back to the same place in the output.
 * `match`: LSD passes of RK_BITS bits through the subgroup match rank (src/wgsl/workgroup/radix-rank.ts):
 * keys stay in registers, subgroup-striped; each pass scatters them to their ranks in workgroup
 * memory and reloads them striped (rank order is striped order, so every pass is stable).
 * `split`: one stable split per bit (as the LSD scatter kernel), workgroup memory only.
 * Keys past `count` are all-ones sentinels in ordered space: they sort last and are not written.
 */
export const BLOCK_SORT_PARAMS = ['count', 'num_tiles', 'begin_bit', 'end_bit', 'flip'] as const;

export interface BlockSortKernelOptions {
  readonly key: TypeInfo;
  readonly valueBytes: 0 | 4 | 8;
  readonly config: RadixSortBlockSortConfig;
  /** One read-write binding for input and output (the tile is read completely before it is written). */
  readonly keysInPlace: boolean;
  readonly valuesInPlace: boolean;
  readonly subgroupMinSize: number;
  readonly subgroupMaxSize: number;
}

export function radixBlockSortKernel(o: BlockSortKernelOptions): Kernel {
  const c = o.config;
  const K = rawType(o.key);
  const V = valueType(o.valueBytes);
  const pairs = o.valueBytes !== 0;
  const match = c.rank === 'match';
  const IPT = c.itemsPerThread;
  const v = (s: string): string => (pairs ? s : '');
  const tileLoad = { items: IPT, K, V, key: (e: string) => `to_ordered(load_key(${e}))`, value: pairs ? (e: string) => `load_val(${e})` : undefined };
  const io = accessors(o.key, o.valueBytes, o.keysInPlace, o.valuesInPlace);
  const inPlace = o.keysInPlace || (pairs && o.valuesInPlace);
  const half = o.key.bytes === 2;
  const rank = { workgroupSize: c.workgroupSize, itemsPerThread: IPT, radixBits: c.radixBits, subgroupMinSize: o.subgroupMinSize, subgroupMaxSize: o.subgroupMaxSize };
  // In place, every read of the tile must be done before any write (the passes' barriers order
  // them; this one also covers a sort by no bits, a plain copy).
  const beforeStores = inPlace ? 'storageBarrier();' : '';
  const body = match
    ? `  ${SUBGROUP_ID}
  let tile = ${LINEAR_WORKGROUP_ID};
  if (tile >= P.num_tiles) { return; }
  let base = tile * TILE;
  let valid = min(TILE, P.count - base);
${stripedTileLoad(tileLoad)}
  for (var shift = P.begin_bit; shift < P.end_bit; shift += RK_BITS) {
    let bits = min(RK_BITS, P.end_bit - shift);
    ${rankCounts(rank, (j) => `digit_at(ks[${j}], shift, bits)`)}
    ${rankMatch(rank, (j) => `digit_at(ks[${j}], shift, bits)`, (j, r) => `s_keys[${r}] = ks[${j}];${pairs ? ` s_vals[${r}] = vs[${j}];` : ''}`)}
    workgroupBarrier();
${stripedFromShared(IPT, pairs)}
  }
${half ? `  // The sorted tile back into workgroup memory, written out a word at a time.
  workgroupBarrier();
${unroll(IPT, 'j', `  s_keys[striped_pos(j, sgid, sg_lane, sg_size)] = ks[j];`)}
  workgroupBarrier();
  ${beforeStores}
${storeKeyWords('valid', 'base', 'WG', { key: (x) => `from_ordered(${x})` })}
${pairs ? stripedTileStore(IPT, 'valid', (p) => `store_val(base + ${p}, vs[j]);`) : ''}` : `  ${beforeStores}
${stripedTileStore(IPT, 'valid', (p) => `store_key(base + ${p}, from_ordered(ks[j]));
    ${v(`store_val(base + ${p}, vs[j]);`)}`)}`}`
    : `  let tile = ${LINEAR_WORKGROUP_ID};
  if (tile >= P.num_tiles) { return; }
  let base = tile * TILE;
  let valid = min(TILE, P.count - base);
  // r = lid holds the tile's keys r * IPT .. r * IPT + IPT - 1 (consecutive: rank order).
  let r = lid;
${blockedTileLoadViaShared({ ...tileLoad, rank: 'r' })}
  for (var s = P.begin_bit; s < P.end_bit; s++) {
${splitByBit(IPT, pairs, 'shared')}
  }
  // s_keys holds the sorted tile (or the loaded one: no bits to sort by); written out coalesced.
  ${beforeStores}
${storeTile(o, 'valid', 'base', 'WG', 'IPT', { key: (x) => `from_ordered(${x})` })}`;
  const code = `${subgroupEnables(match)}${paramsStruct(BLOCK_SORT_PARAMS)}
@group(0) @binding(0) var<uniform> P: Params;
${io.code}
${keyFunctions(o.key, false)}
var<private> flip: u32;
const WG = ${c.workgroupSize}u;
const IPT = ${IPT}u;
const TILE = ${c.workgroupSize * IPT}u;
${match ? radixRankDecls(rank) : 'var<workgroup> s_scan: array<u32, WG>;'}
var<workgroup> s_keys: array<${K}, TILE>;
${v(`var<workgroup> s_vals: array<${V}, TILE>;`)}
${match ? 'var<workgroup> sg_counter: atomic<u32>;' : ''}

@compute @workgroup_size(WG)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>${match ? `, ${SUBGROUP_BUILTINS}` : ''}) {
  flip = P.flip;
${body}
}
`;
  const variant = `${o.keysInPlace ? 'k' : ''}${o.valuesInPlace ? 'v' : ''}`;
  const shape = match ? radixRankKey(rank) : `split:${c.workgroupSize}:${IPT}`;
  return {
    key: ['radix-block-sort', o.key.name, o.valueBytes, variant, shape].join(':'),
    label: `wgprim.radixSort.blockSort.${o.key.name}`,
    code,
    bindings: io.bindings,
    workgroupSize: c.workgroupSize,
  };
}

/**
 * One merge pass: the sorted runs [2kL, (2k+1)L) and [(2k+1)L, (2k+2)L) become one sorted run
 * (stable), by the merge kernels the merge sort and the merge share (src/device/merge/kernel.ts).
 * Keys compare by their ordered bits (`to_ordered`, which the descending flip complements)
 * under the mask of bits [beginBit, endBit).
 */
export function radixMergeOptions(o: { key: TypeInfo; valueBytes: 0 | 4 | 8; config: RadixSortBlockSortConfig }): MergeTileKernelOptions {
  return {
    key: o.key, valueBytes: o.valueBytes, workgroupSize: o.config.mergeWorkgroupSize, itemsPerThread: o.config.mergeItemsPerThread,
    source: 'runs', order: 'bits', label: 'wgprim.radixSort.merge', keyPrefix: 'radix-merge',
  };
}
