import { type Kernel, paramsStruct } from '../../runtime/kernel.js';
import { subgroupEnables } from '../../wgsl/prelude.js';
import { SUBGROUP_BUILTINS, SUBGROUP_ID, subgroupId } from '../../wgsl/subgroup/id.js';
import { ANY_PASS, keyFunctions, type LsdPass, rawType } from '../../wgsl/thread/radix-key.js';
import { unroll } from '../../wgsl/thread/unroll.js';
import { type TypeInfo } from '../../wgsl/types.js';
import { type BindingKind } from '../../wgsl/views.js';
import { sharedRunFlags } from '../../wgsl/workgroup/discontinuity.js';
import { histogramAdd, histogramClear, histogramFlush, type SharedHistogram } from '../../wgsl/workgroup/histogram.js';
import { digitsPerInvocation } from '../../wgsl/workgroup/radix-rank.js';
import { splitByBit } from '../../wgsl/workgroup/radix-split.js';
import { blockedTileLoadViaShared } from '../../wgsl/workgroup/tile.js';
import { keyAccess, type RadixSplit, splitKey, splitLoads, splitSlots, valueAccess } from './access.js';
import { type RadixSortConfig } from './config.js';

/**
 * Uniform block of both kernels: `shift` is the first bit of this pass, `pass_bits` its width
 * (0: a stable copy), `flip` all ones for a descending sort (else 0). Direction is a uniform,
 * not a constant, so both directions share one pipeline. The upsweep counts runs of
 * `tiles_per_group` tiles, `num_groups` of them (the split rank's scatter: one tile each), and
 * (with `totals`) adds the pass's digit totals at word `totals_base` of the counts. The count
 * scan's rows start at word `rows_base`; with tile counts, so do the block totals.
 */
export const RADIX_SORT_PARAMS = ['count', 'num_tiles', 'shift', 'pass_bits', 'flip', 'tiles_per_group', 'num_groups', 'totals_base', 'rows_base'] as const;

export interface RadixSortKernelOptions {
  readonly key: TypeInfo;
  /** 0: keys only. */
  readonly valueBytes: 0 | 4 | 8;
  readonly config: RadixSortConfig;
  /** Keys (values) bound as two ranges, split at these element indices: arrays past one storage binding. */
  readonly split?: RadixSplit;
  /** The pass the kernels are for; default any pass. */
  readonly pass?: LsdPass;
}

/** Pipeline key part of a pass ('' for ANY_PASS). */
export const lsdPassKey = (p: LsdPass): string =>
  (p.rawIn && p.rawOut ? '' : `:e${Number(p.rawIn)}${Number(p.rawOut)}`) + (p.word === undefined ? '' : `:w${p.word}`)
  + (p.descending === undefined ? '' : p.descending ? ':d' : ':a');

/** The kernels' pass for digit bits [shift, shift + bits) of pass `index` of `count`. */
export function lsdPass(t: TypeInfo, index: number, count: number, shift: number, bits: number, descending: boolean): LsdPass {
  const word = t.bytes !== 8 ? undefined : shift + bits <= 32 ? 0 : shift >= 32 ? 1 : undefined;
  return { rawIn: index === 0, rawOut: index === count - 1, ...(word === undefined ? {} : { word }), descending };
}

function header(o: RadixSortKernelOptions): string {
  const c = o.config;
  return `${subgroupEnables(c.workgroupScan === 'subgroup')}${paramsStruct(RADIX_SORT_PARAMS)}
@group(0) @binding(0) var<uniform> P: Params;
const WG = ${c.workgroupSize}u;
const IPT = ${c.itemsPerThread}u;
const TILE = ${c.workgroupSize * c.itemsPerThread}u;
const RADIX = ${1 << c.radixBits}u;`;
}

const keyOf = (o: RadixSortKernelOptions, pass: LsdPass): string =>
  [o.key.name, o.valueBytes, o.config.workgroupSize, o.config.itemsPerThread, o.config.radixBits, o.config.workgroupScan].join(':') + splitKey(o.split) + lsdPassKey(pass);

/**
 * Upsweep: workgroup `group` counts the digits of its run of tiles (tiles_per_group from
 * group * tiles_per_group) and writes count d to `counts[d * num_groups + group]` (digit-major),
 * so that an exclusive scan of `counts` gives each (digit, group) its first output position.
 * `totals`: it also adds its counts to the pass's digit totals (`counts[totals_base + d]`,
 * in COUNT_TOTAL_COPIES copies, cleared before the sort), from which `radixCountScanKernel` takes each digit's start.
 * `tileCounts`: counts per tile instead, tile-major (`counts[tile * RADIX + d]`), also summed
 * per block of TILE_BLOCK tiles (digit-major at `rows_base`) for the count scan, and by
 * `radixTileScanKernel` into each tile's positions.
 */
export function radixUpsweepKernel(o: RadixSortKernelOptions & { totals?: boolean; tileCounts?: boolean }): Kernel {
  // It only loads keys: one pipeline whatever the pass stores.
  const pass: LsdPass = { ...(o.pass ?? ANY_PASS), rawOut: true };
  const bindings: BindingKind[] = ['uniform', 'read-only-storage', 'storage'];
  const hi = splitSlots(bindings, o.split, false, false);
  if (o.tileCounts && !o.totals) throw new Error('radix upsweep: tile counts need totals');
  const hist: SharedHistogram = { array: 'hist', bins: 'RADIX', index: 'lid', stride: 'WG' };
  const loadDigits = (e0: string, end: string): string => `    var ds: array<u32, IPT>;
${splitLoads(o.key, hi.keys, `${e0} - lid + TILE`, (load) => unroll(o.config.itemsPerThread, 'j', `    { let e = ${e0} + j * WG; ds[j] = RADIX; if (e < ${end}) { ds[j] = digit(to_ordered(${load}(e))); } }`))}
${unroll(o.config.itemsPerThread, 'j', `    if (ds[j] < RADIX) { ${histogramAdd(hist, 'ds[j]')} }`)}`;
  const dpi = digitsPerInvocation(o.config);
  // Tile counts: group g counts tiles_per_group tiles (UPSWEEP_TILES, within one block) one at a
  // time, each tile's counts tile-major (one coalesced row a tile), and adds their sums to its
  // block's totals (digit-major rows of TILE_BLOCK-tile blocks at rows_base) and the digit
  // totals: a group of several tiles adds fewer atomics.
  const body = o.tileCounts
    ? `  var sums: array<u32, ${dpi}>;
  let first_tile = group * P.tiles_per_group;
  let end_tile = min(first_tile + P.tiles_per_group, P.num_tiles);
  for (var tile = first_tile; tile < end_tile; tile++) {
    let e0 = tile * TILE + lid;
    let end = min(tile * TILE + TILE, P.count);
${loadDigits('e0', 'end')}
    workgroupBarrier();
${unroll(dpi, 'm', `    { let d = lid + m * WG; if (d < RADIX) {
      let n = atomicLoad(&hist[d]);
      atomicStore(&hist[d], 0u);
      atomicStore(&counts[tile * RADIX + d], n);
      sums[m] += n;
    } }`)}
    workgroupBarrier();
  }
  let block = first_tile / ${TILE_BLOCK}u;
  let blocks = (P.num_tiles + ${TILE_BLOCK - 1}u) / ${TILE_BLOCK}u;
${unroll(dpi, 'm', `  { let d = lid + m * WG; let n = sums[m]; if (d < RADIX && n != 0u) {
    atomicAdd(&counts[P.rows_base + d * blocks + block], n);
    atomicAdd(&counts[P.totals_base + (group % ${COUNT_TOTAL_COPIES}u) * RADIX + d], n);
  } }`)}`
    : `  let begin = group * P.tiles_per_group * TILE;
  let end = begin + min(P.tiles_per_group * TILE, P.count - begin);
  for (var e0 = begin + lid; e0 < end; e0 += TILE) {
    // A tile's loads first, all in flight together, then its counter atomics.
${loadDigits('e0', 'end')}
  }
  workgroupBarrier();
${histogramFlush(hist, (d, n) => (o.totals
    ? `atomicStore(&counts[${d} * P.num_groups + group], ${n});
    if (${n} != 0u) { atomicAdd(&counts[P.totals_base + (group % ${COUNT_TOTAL_COPIES}u) * RADIX + ${d}], ${n}); }`
    : `counts[${d} * P.num_groups + group] = ${n};`))}`;
  const code = `${header(o)}
${keyAccess(o.key, false, hi.keys)}
@group(0) @binding(2) var<storage, read_write> counts: array<${o.totals ? 'atomic<u32>' : 'u32'}>;
${keyFunctions(o.key, true, pass)}
var<workgroup> hist: array<atomic<u32>, RADIX>;

@compute @workgroup_size(WG)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let group = wid.x + wid.y * nwg.x;
  if (group >= P.num_groups) { return; }
  ${histogramClear(hist)}
  workgroupBarrier();
${body}
}
`;
  return { key: `radix-upsweep:${o.totals ? 'totals:' : ''}${o.tileCounts ? 'tiles:' : ''}${keyOf(o, pass)}`, label: `wgprim.radixSort.upsweep.${o.key.name}`, code, bindings, workgroupSize: o.config.workgroupSize };
}

/** Copies of the digit totals the upsweep adds to (workgroup g to copy g % this): fewer adds queue on one word. */
export const COUNT_TOTAL_COPIES = 8;
const COUNT_SCAN_WG = 256;
const COUNT_SCAN_ITEMS = 16;
/** The most groups a row of counts may have for `radixCountScanKernel`: one load per invocation and item. */
export const COUNT_SCAN_MAX_GROUPS = COUNT_SCAN_WG * COUNT_SCAN_ITEMS;

/**
 * The counts' exclusive scan where the upsweep added the digit totals: workgroup d scans row d
 * (num_groups <= COUNT_SCAN_MAX_GROUPS counts) in place, from the digit's start (the totals of
 * the digits below it). One kernel that waits on no other workgroup, in place of a device-wide
 * scan's three.
 */
export function radixCountScanKernel(radixBits: number): Kernel {
  const code = `${subgroupEnables(true)}${paramsStruct(RADIX_SORT_PARAMS)}
@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read_write> counts: array<u32>;
const WG = ${COUNT_SCAN_WG}u;
const ITEMS = ${COUNT_SCAN_ITEMS}u;
const RADIX = ${1 << radixBits}u;
const COPIES = ${COUNT_TOTAL_COPIES}u;
// Per subgroup: its share of the digit's start [0, nsg), and its counts' sum [nsg, 2 * nsg).
var<workgroup> sums: array<u32, WG>;
var<workgroup> sg_counter: atomic<u32>;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, ${SUBGROUP_BUILTINS}) {
${subgroupId()}
  let nsg = WG / sg_size;
  let i = sgid * sg_size + sg_lane;
  let d = wid.x;
  let row = P.rows_base + d * P.num_groups;
  // Invocation i takes ITEMS consecutive counts (loaded first, so the loads overlap the
  // digit's start), and their sums are scanned across the workgroup in subgroup order.
  var xs: array<u32, ITEMS>;
  var sum = 0u;
${unroll(COUNT_SCAN_ITEMS, 'j', '  { let g = i * ITEMS + j; xs[j] = 0u; if (g < P.num_groups) { xs[j] = counts[row + g]; } sum += xs[j]; }')}
  var below = 0u;
  for (var k = i; k < d; k += WG) {
    for (var c = 0u; c < COPIES; c++) { below += counts[P.totals_base + c * RADIX + k]; }
  }
  below = subgroupAdd(below);
  let ex = subgroupExclusiveAdd(sum);
  if (sg_lane == 0u) { sums[sgid] = below; }
  if (sg_lane == sg_size - 1u) { sums[nsg + sgid] = ex + sum; }
  workgroupBarrier();
  var run = ex;
  for (var g = 0u; g < nsg; g++) {
    run += sums[g];
    if (g < sgid) { run += sums[nsg + g]; }
  }
${unroll(COUNT_SCAN_ITEMS, 'j', '  { let g = i * ITEMS + j; if (g < P.num_groups) { counts[row + g] = run; } run += xs[j]; }')}
}
`;
  return { key: `radix-count-scan:${radixBits}`, label: 'wgprim.radixSort.countScan', code, bindings: ['uniform', 'storage'], workgroupSize: COUNT_SCAN_WG };
}

/** Tiles of a block whose counts `radixTileScanKernel` scans in one workgroup (a count of each in a register). */
export const TILE_BLOCK = 32;
/**
 * Tiles an upsweep group counts with tile counts (divides TILE_BLOCK: a group's tiles lie in one
 * block): fewer adds to the block and digit totals; more tiles a group leave too few groups.
 */
export const UPSWEEP_TILES = 4;

/**
 * Tile counts (tile-major, `counts[tile * RADIX + d]`) turned into each (tile, digit)'s first
 * output position, in place: workgroup b takes block b's TILE_BLOCK tiles; invocation d loads
 * digit d's counts of them at once (coalesced across digits) and runs them up from the block's
 * start, the scanned block totals at `rows_base` (digit-major rows of num_groups blocks).
 */
export function radixTileScanKernel(radixBits: number): Kernel {
  const code = `${paramsStruct(RADIX_SORT_PARAMS)}
@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read_write> counts: array<u32>;
const WG = 256u;
const RADIX = ${1 << radixBits}u;

@compute @workgroup_size(WG)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>) {
  let b = wid.x;
  let t0 = b * ${TILE_BLOCK}u;
  for (var d = lid; d < RADIX; d += WG) {
    var xs: array<u32, ${TILE_BLOCK}>;
${unroll(TILE_BLOCK, 'k', '    { let t = t0 + k; xs[k] = 0u; if (t < P.num_tiles) { xs[k] = counts[t * RADIX + d]; } }')}
    var run = counts[P.rows_base + d * P.num_groups + b];
${unroll(TILE_BLOCK, 'k', '    { let t = t0 + k; if (t < P.num_tiles) { counts[t * RADIX + d] = run; } run += xs[k]; }')}
  }
}
`;
  return { key: `radix-tile-scan:${radixBits}`, label: 'wgprim.radixSort.tileScan', code, bindings: ['uniform', 'storage'], workgroupSize: 256 };
}

/**
 * Scatter: workgroup `tile` loads its keys (and values), sorts them stably by the pass's digit
 * in workgroup memory with one split per bit (a workgroup scan of each invocation's zero
 * count; invocations hold consecutive keys in a rank order that covers the workgroup
 * subgroup by subgroup, so ranks depend on no subgroup size), then writes
 * the key at sorted position i with digit d to `offsets[d * num_tiles + tile] + i - start[d]`.
 * Keys past the end become all-ones sentinels: they sort last in the tile and are not written.
 */
export function radixScatterKernel(o: RadixSortKernelOptions): Kernel {
  const K = rawType(o.key);
  const pass = o.pass ?? ANY_PASS;
  const V = o.valueBytes === 8 ? 'vec2<u32>' : 'u32';
  const pairs = o.valueBytes !== 0;
  const sub = o.config.workgroupScan === 'subgroup';
  const bindings: BindingKind[] = ['uniform', 'read-only-storage', 'storage', 'read-only-storage'];
  if (pairs) bindings.push('read-only-storage', 'storage');
  const hi = splitSlots(bindings, o.split, true, pairs);
  const vals = valueAccess(V, 4, hi.values);
  const v = (s: string): string => (pairs ? s : '');
  const code = `${header(o)}
${keyAccess(o.key, true, hi.keys)}
@group(0) @binding(3) var<storage, read> offsets: array<u32>;
${v(vals.code)}
${keyFunctions(o.key, true, pass)}
var<workgroup> s_keys: array<${K}, TILE>;
${v(`var<workgroup> s_vals: array<${V}, TILE>;`)}
var<workgroup> s_scan: array<u32, WG>;
var<workgroup> s_start: array<u32, RADIX>;
${sub ? 'var<workgroup> sg_counter: atomic<u32>;' : ''}

@compute @workgroup_size(WG)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>${sub ? `, ${SUBGROUP_BUILTINS}` : ''}) {
  let tile = wid.x + wid.y * nwg.x;
  if (tile >= P.num_tiles) { return; }
  // r: this invocation's place in rank order; it holds the tile's keys r * IPT .. r * IPT + IPT - 1.
  ${sub ? `${SUBGROUP_ID}
  let r = sgid * sg_size + sg_lane;` : 'let r = lid;'}
  let base = tile * TILE;
  let valid = min(TILE, P.count - base);
${blockedTileLoadViaShared({ items: o.config.itemsPerThread, K, V, key: (e) => `to_ordered(load_key(${e}))`, value: pairs ? vals.load : undefined, rank: 'r' })}
  for (var b = 0u; b < P.pass_bits; b++) {
    let s = P.shift + b;
${splitByBit(o.config.itemsPerThread, pairs, sub ? 'subgroup' : 'shared')}
    // The next split writes s_keys only after the barriers of its scan: these reads are done by then.
  }
  // The tile is now stably sorted by digit: find where each digit starts.
${sharedRunFlags('heads', (i) => `digit(s_keys[${i}])`, 'valid', (i) => `s_start[d] = ${i};`)}
  workgroupBarrier();
  for (var k = 0u; k < IPT; k++) {
    let i = k * WG + lid;
    if (i < valid) {
      let key = s_keys[i];
      let d = digit(key);
      let dst = offsets[d * P.num_tiles + tile] + i - s_start[d];
      store_key(dst, from_ordered(key));
      ${v(`${vals.store('dst', 's_vals[i]')};`)}
    }
  }
}
`;
  return { key: `radix-scatter:${keyOf(o, pass)}`, label: `wgprim.radixSort.scatter.${o.key.name}`, code, bindings, workgroupSize: o.config.workgroupSize };
}
