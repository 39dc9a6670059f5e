import { type Kernel, LINEAR_WORKGROUP_ID, paramsStruct } from '../../runtime/kernel.js';
import { subgroupEnables } from '../../wgsl/prelude.js';
import { SUBGROUP_BUILTINS, SUBGROUP_ID } from '../../wgsl/subgroup/id.js';
import { keyFunctions, keyLess, rawType } from '../../wgsl/thread/radix-key.js';
import { unroll } from '../../wgsl/thread/unroll.js';
import { type TypeInfo } from '../../wgsl/types.js';
import { type BindingKind } from '../../wgsl/views.js';
import { stripedFromShared } from '../../wgsl/workgroup/exchange.js';
import { mergePathSearch } from '../../wgsl/workgroup/merge-path.js';
import { radixRankDecls, radixRankKey, rankCounts, rankMatch } from '../../wgsl/workgroup/radix-rank.js';
import { splitByBit } from '../../wgsl/workgroup/radix-split.js';
import { blockedTileLoadViaShared, sharedTileStore, stripedTileLoad, stripedTileStore } from '../../wgsl/workgroup/tile.js';
import { keyAccess } from './access.js';
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

/** Merge pass: runs of `run` keys, merged pairwise; `mask_lo`/`mask_hi` select the ordered bits compared. */
export const MERGE_PARAMS = ['count', 'run', 'tiles_per_pair', 'mask_lo', 'mask_hi', 'flip'] as const;

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

const valueType = (valueBytes: 0 | 4 | 8): string => (valueBytes === 8 ? 'vec2<u32>' : 'u32');

/**
 * `load_key(e)` / `store_key(e, x)` (and `load_val` / `store_val`) with their bindings from
 * binding 1 on: separate input and output buffers, or one read-write buffer (in place).
 */
function accessors(key: TypeInfo, valueBytes: 0 | 4 | 8, keysInPlace: boolean, valuesInPlace: boolean): { code: string; bindings: BindingKind[] } {
  const K = rawType(key);
  const bindings: BindingKind[] = [];
  let code: string;
  if (key.bytes === 2) {
    // 16-bit keys, two to a word: a workgroup writes whole words of its own (tiles and merge
    // tiles start at even positions), each with one plain store (store_key_pair).
    const decl = keysInPlace
      ? '@group(0) @binding(1) var<storage, read_write> keys_io: array<u32>;'
      : '@group(0) @binding(1) var<storage, read> keys_in: array<u32>;\n@group(0) @binding(2) var<storage, read_write> keys_out: array<u32>;';
    const out = keysInPlace ? 'keys_io' : 'keys_out';
    code = `${decl}
fn load_key(e: u32) -> u32 { return (${keysInPlace ? 'keys_io' : 'keys_in'}[e >> 1u] >> ((e & 1u) * 16u)) & 0xffffu; }
// Keys e (even) and e + 1 (when both): without the second (the last of an odd count), the
// word's high half is past the keys and stays as it was.
fn store_key_pair(e: u32, lo: u32, hi: u32, both: bool) {
  if (both) { ${out}[e >> 1u] = lo | (hi << 16u); } else { ${out}[e >> 1u] = (${out}[e >> 1u] & 0xffff0000u) | lo; }
}`;
    bindings.push(...(keysInPlace ? ['storage' as const] : ['read-only-storage' as const, 'storage' as const]));
  } else if (!keysInPlace) {
    code = keyAccess(key, true);
    bindings.push('read-only-storage', 'storage');
  } else {
    code = `@group(0) @binding(1) var<storage, read_write> keys_io: array<${K}>;
fn load_key(e: u32) -> ${K} { return keys_io[e]; }
fn store_key(e: u32, x: ${K}) { keys_io[e] = x; }`;
    bindings.push('storage');
  }
  if (valueBytes !== 0) {
    const V = valueType(valueBytes);
    const b = 1 + bindings.length;
    if (valuesInPlace) {
      code += `
@group(0) @binding(${b}) var<storage, read_write> vals_io: array<${V}>;
fn load_val(e: u32) -> ${V} { return vals_io[e]; }
fn store_val(e: u32, v: ${V}) { vals_io[e] = v; }`;
      bindings.push('storage');
    } else {
      code += `
@group(0) @binding(${b}) var<storage, read> vals_in: array<${V}>;
@group(0) @binding(${b + 1}) var<storage, read_write> vals_out: array<${V}>;
fn load_val(e: u32) -> ${V} { return vals_in[e]; }
fn store_val(e: u32, v: ${V}) { vals_out[e] = v; }`;
      bindings.push('read-only-storage', 'storage');
    }
  }
  return { code, bindings: ['uniform', ...bindings] };
}

/**
 * 16-bit keys: writes the sorted keys s_keys[0 .. n) (ordered bits when `ordered`) to
 * out_base + i, a word (two keys) per store; out_base is even.
 */
function storeKeyWords(n: string, outBase: string, wg: string, ordered: boolean): string {
  const k = (i: string): string => (ordered ? `from_ordered(s_keys[${i}])` : `s_keys[${i}]`);
  return `  for (var w = lid; 2u * w < ${n}; w += ${wg}) {
    let i = 2u * w;
    store_key_pair(${outBase} + i, ${k('i')}, ${k('i + 1u')}, i + 1u < ${n});
  }`;
}

/**
 * Writes s_keys (and s_vals) [0 .. n) to out_base + i, coalesced: `items` rounds of `wg`
 * invocations (16-bit keys a word at a time). `ordered`: s_keys holds ordered bits.
 */
function storeTile(o: { key: TypeInfo; valueBytes: 0 | 4 | 8 }, n: string, outBase: string, wg: string, items: string, ordered: boolean): string {
  const half = o.key.bytes === 2;
  return `${half ? storeKeyWords(n, outBase, wg, ordered) : ''}
${sharedTileStore(n, wg, items, (i) => `${half ? '' : `store_key(${outBase} + ${i}, ${ordered ? `from_ordered(s_keys[${i}])` : `s_keys[${i}]`});`}
      ${o.valueBytes !== 0 ? `store_val(${outBase} + ${i}, s_vals[${i}]);` : ''}`)}`;
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
${storeKeyWords('valid', 'base', 'WG', true)}
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
${storeTile(o, 'valid', 'base', 'WG', 'IPT', true)}`;
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
 * (stable: on equal keys the first run's element goes first). Each workgroup makes one output
 * tile of MWG * MIPT elements of one pair: its start on the merge path by binary search, its
 * slices of both runs loaded into workgroup memory, then each invocation finds its own start
 * in them and merges MIPT elements sequentially; the tile is written out coalesced.
 * Keys compare by their ordered bits (`to_ordered`, which the descending flip complements)
 * under the mask of bits [beginBit, endBit).
 */
export function radixMergeKernel(o: { key: TypeInfo; valueBytes: 0 | 4 | 8; config: RadixSortBlockSortConfig }): Kernel {
  const c = o.config;
  const K = rawType(o.key);
  const V = valueType(o.valueBytes);
  const pairs = o.valueBytes !== 0;
  const wide = o.key.bytes === 8;
  const MIPT = c.mergeItemsPerThread;
  const v = (s: string): string => (pairs ? s : '');
  const io = accessors(o.key, o.valueBytes, false, false);
  const code = `${paramsStruct(MERGE_PARAMS)}
@group(0) @binding(0) var<uniform> P: Params;
${io.code}
${keyFunctions(o.key, false)}
var<private> flip: u32;
var<private> mask: ${K};
const MWG = ${c.mergeWorkgroupSize}u;
const MIPT = ${MIPT}u;
const MTILE = ${c.mergeWorkgroupSize * MIPT}u;
var<workgroup> s_keys: array<${K}, MTILE>;
${v(`var<workgroup> s_vals: array<${V}, MTILE>;`)}
var<workgroup> s_bounds: array<u32, 2>;

fn mkey(x: ${K}) -> ${K} { return to_ordered(x) & mask; }
${keyLess(o.key)}

// Elements of run A among the first d of the merged order (A = [a0, a0 + an), B = [b0, b0 + bn)).
fn merge_path(a0: u32, an: u32, b0: u32, bn: u32, d: u32) -> u32 {
${mergePathSearch('d', 'an', 'bn', (i, j) => `key_less(mkey(load_key(b0 + ${j})), mkey(load_key(a0 + ${i})))`)}
  return lo;
}

@compute @workgroup_size(MWG)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  flip = P.flip;
  mask = ${wide ? 'vec2<u32>(P.mask_lo, P.mask_hi)' : 'P.mask_lo'};
  let g = ${LINEAR_WORKGROUP_ID};
  let pair = g / P.tiles_per_pair;
  let a0 = pair * 2u * P.run;
  if (a0 >= P.count) { return; }
  let a1 = min(a0 + P.run, P.count);
  let b1 = min(a1 + P.run, P.count);
  let an = a1 - a0;
  let bn = b1 - a1;
  let d0 = (g % P.tiles_per_pair) * MTILE;
  if (d0 >= an + bn) { return; }
  let d1 = min(d0 + MTILE, an + bn);
  if (lid == 0u) { s_bounds[0] = merge_path(a0, an, a1, bn, d0); }
  if (lid == 1u) { s_bounds[1] = merge_path(a0, an, a1, bn, d1); }
  workgroupBarrier();
  let i0 = s_bounds[0];
  let na = s_bounds[1] - i0;
  let j0 = d0 - i0;
  let total = d1 - d0;
  let nb = total - na;
  // The tile's slices: A's at [0, na), B's at [na, total).
  for (var k = 0u; k < MIPT; k++) {
    let i = k * MWG + lid;
    if (i < total) {
      let e = select(a1 + j0 + (i - na), a0 + i0 + i, i < na);
      s_keys[i] = load_key(e);
      ${v('s_vals[i] = load_val(e);')}
    }
  }
  workgroupBarrier();
  let dd = min(lid * MIPT, total);
${mergePathSearch('dd', 'na', 'nb', (i, j) => `key_less(mkey(s_keys[na + ${j}]), mkey(s_keys[${i}]))`)}
  var ia = lo;
  var ib = dd - lo;
  let n = min(MIPT, total - dd);
  var ok: array<${K}, MIPT>;
  ${v(`var ov: array<${V}, MIPT>;`)}
${unroll(MIPT, 'k', `  if (k < n) {
    var take_a = false;
    if (ia < na) {
      take_a = ib >= nb;
      if (!take_a) { take_a = !key_less(mkey(s_keys[na + ib]), mkey(s_keys[ia])); }
    }
    if (take_a) {
      ok[k] = s_keys[ia];
      ${v('ov[k] = s_vals[ia];')}
      ia += 1u;
    } else {
      ok[k] = s_keys[na + ib];
      ${v('ov[k] = s_vals[na + ib];')}
      ib += 1u;
    }
  }`)}
  workgroupBarrier();
${unroll(MIPT, 'k', `  if (k < n) {
    s_keys[dd + k] = ok[k];
    ${v('s_vals[dd + k] = ov[k];')}
  }`)}
  workgroupBarrier();
${storeTile(o, 'total', 'a0 + d0', 'MWG', 'MIPT', false)}
}
`;
  return {
    key: ['radix-merge', o.key.name, o.valueBytes, c.mergeWorkgroupSize, MIPT].join(':'),
    label: `wgprim.radixSort.merge.${o.key.name}`,
    code,
    bindings: io.bindings,
    workgroupSize: c.mergeWorkgroupSize,
  };
}
