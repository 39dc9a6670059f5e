import { type Kernel, paramsStruct } from '../../runtime/kernel.js';
import { SUBGROUP_ID, subgroupId, unroll } from '../../wgsl/block.js';
import { digitsPerInvocation } from '../../wgsl/radix-rank.js';
import { type TypeInfo } from '../../wgsl/types.js';
import { type BindingKind } from '../../wgsl/views.js';
import { type RadixSortConfig } from './config.js';
import { splitByBit, splitTileLoad } from './wgsl.js';

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

/** WGSL type holding a key's raw bits: one word, or two (x = low word) for 64-bit keys. */
export const rawType = (t: TypeInfo): string => (t.bytes === 8 ? 'vec2<u32>' : 'u32');

/**
 * What an LSD pass's kernels are compiled for. `rawIn` / `rawOut`: whether the pass loads
 * (stores) the caller's raw key bits: the first pass loads them and the last stores them; the
 * passes between move ordered bits as they are, so only two of a sort's passes pay for the key
 * transform. `word` (8-byte keys): the one word that holds the pass's digit (0 low, 1 high),
 * so the digit takes no test of which word it lies in; absent: any, a digit may straddle them.
 * Both cut per-key instructions, which the sort kernel pays for out of proportion (H200, 2^28:
 * docs/performance.md, seventh session).
 */
export interface LsdPass {
  readonly rawIn: boolean;
  readonly rawOut: boolean;
  readonly word?: 0 | 1;
  /**
   * The direction as a constant (ascending: the first pass's load is the raw key, no transform,
   * for unsigned keys); absent: the uniform's `flip`.
   */
  readonly descending?: boolean;
}
/** A kernel for any pass: raw keys in and out, a digit anywhere. */
export const ANY_PASS: LsdPass = { rawIn: true, rawOut: true };
/** Pipeline key part of a pass ('' for ANY_PASS). */
export const lsdPassKey = (p: LsdPass): string =>
  (p.rawIn && p.rawOut ? '' : `:e${Number(p.rawIn)}${Number(p.rawOut)}`) + (p.word === undefined ? '' : `:w${p.word}`)
  + (p.descending === undefined ? '' : p.descending ? ':d' : ':a');

/** The kernels' pass for digit bits [shift, shift + bits) of pass `index` of `count`. */
export function lsdPass(t: TypeInfo, index: number, count: number, shift: number, bits: number, descending: boolean): LsdPass {
  const word = t.bytes !== 8 ? undefined : shift + bits <= 32 ? 0 : shift >= 32 ? 1 : undefined;
  return { rawIn: index === 0, rawOut: index === count - 1, ...(word === undefined ? {} : { word }), descending };
}

/**
 * `to_ordered(x)` maps a key's raw bits to bits whose unsigned order is the sort order
 * (descending: the complement); `from_ordered` inverts it. `digit(y)` is the pass's digit of
 * ordered bits and `bit_at(y, s)` one bit. Floats: negative keys have every bit flipped,
 * others the sign bit, which gives -NaN < -inf < ... < -0 < +0 < ... < +inf < +NaN.
 */
export function keyFunctions(t: TypeInfo, withParams = true, pass: LsdPass = ANY_PASS): string {
  const K = rawType(t);
  const wide = t.bytes === 8;
  let to: string;
  let from: string;
  switch (t.name) {
    case 'u32': case 'u64': to = 'x'; from = 'y'; break;
    case 'i32': to = 'x ^ 0x80000000u'; from = 'y ^ 0x80000000u'; break;
    case 'i64': to = 'vec2<u32>(x.x, x.y ^ 0x80000000u)'; from = 'vec2<u32>(y.x, y.y ^ 0x80000000u)'; break;
    case 'f16':
      // 16-bit keys live in the low half of a u32; the digit never reads the high half.
      to = '(x ^ select(0x8000u, 0xffffu, (x >> 15u) == 1u))';
      from = '(y ^ select(0xffffu, 0x8000u, ((y >> 15u) & 1u) == 1u)) & 0xffffu';
      break;
    case 'f32':
      to = 'x ^ select(0x80000000u, 0xffffffffu, (x >> 31u) == 1u)';
      from = 'y ^ select(0xffffffffu, 0x80000000u, (y >> 31u) == 1u)';
      break;
    default: throw new Error(`radix sort kernel: no key transform for ${t.name}`);
  }
  // digit_at(y, shift, bits): bits [shift, shift + bits) of ordered bits y (bits <= 8).
  const digit = wide
    ? `fn digit_at(y: vec2<u32>, shift: u32, bits: u32) -> u32 {
  let mask = (1u << bits) - 1u;
  if (shift >= 32u) { return (y.y >> (shift - 32u)) & mask; }
  var lo = y.x >> shift;
  if (shift > 0u) { lo |= y.y << (32u - shift); }
  return lo & mask;
}
fn bit_at(y: vec2<u32>, s: u32) -> u32 {
  if (s >= 32u) { return (y.y >> (s - 32u)) & 1u; }
  return (y.x >> s) & 1u;
}`
    : `fn digit_at(y: u32, shift: u32, bits: u32) -> u32 { return (y >> shift) & ((1u << bits) - 1u); }
fn bit_at(y: u32, s: u32) -> u32 { return (y >> s) & 1u; }`;
  const flip = pass.descending !== undefined ? (pass.descending ? '0xffffffffu' : '0u') : withParams ? 'P.flip' : 'flip';
  // Between passes the keys stay ordered: only the first pass transforms what it loads and
  // only the last what it stores (16-bit keys: the stored half alone).
  const toBody = pass.rawIn ? `(${to}) ^ ${K}(${flip})` : 'x';
  const fromBody = pass.rawOut ? `let y = y0 ^ ${K}(${flip}); return ${from};` : `return y0${t.bytes === 2 ? ' & 0xffffu' : ''};`;
  return `fn to_ordered(x: ${K}) -> ${K} { return ${toBody}; }
fn from_ordered(y0: ${K}) -> ${K} { ${fromBody} }
${digit}
${withParams ? `fn digit(y: ${K}) -> u32 { return ${pass.word === undefined ? 'digit_at(y, P.shift, P.pass_bits)' : `(y.${pass.word === 0 ? 'x >> P.shift' : 'y >> (P.shift - 32u)'}) & ((1u << P.pass_bits) - 1u)`}; }` : ''}
const SENTINEL = ${K}(${wide ? '0xffffffffu, 0xffffffffu' : '0xffffffffu'});`;
}

/**
 * `load_key(e)` from `keys_in` and (scatter) `store_key(e, x)` to `keys_out` (split: also
 * `load_key_lo(e)`, for indices known to lie before the split; not for 16-bit keys). 16-bit keys are
 * packed two to a word, whose halves may be written by different workgroups: the host clears
 * the destination's whole words (`f16ClearBytes`) before the pass and a store sets its half with
 * one atomicOr. The last key of an odd count shares its word with no other key: that word is
 * not cleared (its high half, past the keys, is the caller's) and its one writer replaces the
 * low half. Needs `P.count`.
 */
export function keyAccess(t: TypeInfo, withStore: boolean, split?: SplitAt): string {
  const K = rawType(t);
  // Split: elements (16-bit keys: words) from `at` on are in the second bindings, keys_in_hi
  // (and keys_out_hi) at split.slot (and split.slot + 1).
  const at = split ? (t.bytes === 2 ? split.at / 2 : split.at) : 0;
  const pick = (arr: string, i: string, body: (ref: string) => string): string => (split
    ? `if (${i} < KEY_SPLIT) { ${body(`${arr}[${i}]`)} } else { ${body(`${arr}_hi[${i} - KEY_SPLIT]`)} }`
    : body(`${arr}[${i}]`));
  const hiDecls = split
    ? `const KEY_SPLIT = ${at}u;
@group(0) @binding(${split.slot}) var<storage, read> keys_in_hi: array<${t.bytes === 2 ? 'u32' : K}>;
${withStore ? `@group(0) @binding(${split.slot + 1}) var<storage, read_write> keys_out_hi: array<${t.bytes === 2 ? 'atomic<u32>' : K}>;` : ''}
`
    : '';
  if (t.bytes === 2) {
    const load = split
      ? `fn load_key(e: u32) -> u32 { let w = e >> 1u; var x: u32; ${pick('keys_in', 'w', (r) => `x = ${r};`)} return (x >> ((e & 1u) * 16u)) & 0xffffu; }`
      : 'fn load_key(e: u32) -> u32 { return (keys_in[e >> 1u] >> ((e & 1u) * 16u)) & 0xffffu; }';
    const or = split ? pick('keys_out', 'w', (r) => `atomicOr(&${r}, x << ((e & 1u) * 16u));`) : 'atomicOr(&keys_out[e >> 1u], x << ((e & 1u) * 16u));';
    const tail = split
      ? pick('keys_out', 'w', (r) => `atomicStore(&${r}, (atomicLoad(&${r}) & 0xffff0000u) | x);`)
      : 'atomicStore(&keys_out[e >> 1u], (atomicLoad(&keys_out[e >> 1u]) & 0xffff0000u) | x);';
    return `${hiDecls}@group(0) @binding(1) var<storage, read> keys_in: array<u32>;
${load}
${withStore ? `@group(0) @binding(2) var<storage, read_write> keys_out: array<atomic<u32>>;
fn store_key(e: u32, x: u32) {${split ? '\n  let w = e >> 1u;' : ''}
  if ((e | 1u) < P.count) {
    ${or}
  } else {
    ${tail}
  }
}` : ''}`;
  }
  return `${hiDecls}@group(0) @binding(1) var<storage, read> keys_in: array<${K}>;
${split ? `fn load_key(e: u32) -> ${K} { ${pick('keys_in', 'e', (r) => `return ${r};`)} }
fn load_key_lo(e: u32) -> ${K} { return keys_in[e]; }` : `fn load_key(e: u32) -> ${K} { return keys_in[e]; }`}
${withStore ? `@group(0) @binding(2) var<storage, read_write> keys_out: array<${K}>;
${split ? `fn store_key(e: u32, x: ${K}) { ${pick('keys_out', 'e', (r) => `${r} = x;`)} }` : `fn store_key(e: u32, x: ${K}) { keys_out[e] = x; }`}` : ''}`;
}

/**
 * An array bound as two ranges: elements [0, at) in the usual binding and [at, ...) in a
 * second one, declared at binding `slot` (a read-write array's second one at slot + 1).
 */
export interface SplitAt {
  readonly at: number;
  readonly slot: number;
}

/** Where the keys' and values' arrays continue in second bindings (element indices); absent: one binding each. */
export interface RadixSplit {
  readonly keys?: number;
  readonly values?: number;
}

/** Pipeline key suffix of a split variant ('' for the common case). */
export const splitKey = (split: RadixSplit | undefined): string =>
  (split?.keys !== undefined ? `:sk${split.keys}` : '') + (split?.values !== undefined ? `:sv${split.values}` : '');

/**
 * A run of loads through `load(fn)` (fn: the load function's name). Keys past one binding: a
 * run whose indices all lie before the split (`end`, an upper bound, at most KEY_SPLIT) loads
 * from the first binding alone (`load_key_lo`: one uniform branch, not one per key; H200, the
 * u64 sort with a forced split: 19.8 against 29.8 ms with a branch per key, 18.0 unsplit).
 */
export function splitLoads(t: TypeInfo, split: SplitAt | undefined, end: string, load: (fn: string) => string): string {
  if (split === undefined || t.bytes === 2) return load('load_key');
  return splitRun('KEY_SPLIT', end, load('load_key_lo'), load('load_key'));
}

/** `lo` where a run that ends before `end` (an upper bound) lies wholly before the split `at`, else `full`. */
export function splitRun(at: string, end: string, lo: string, full: string): string {
  return `    if (${end} <= ${at}) {
${lo}
    } else {
${full}
    }`;
}

/**
 * Values: `vals_in` at binding `inSlot`, `vals_out` at inSlot + 1, and the WGSL expressions that
 * load element e and store x at e. Split: vals_in_hi / vals_out_hi at split.slot, + 1, chosen by
 * index; `loads` wraps a run of loads ending before `end` so that a run wholly before the split
 * loads from the first binding alone (as `splitLoads` for keys; for values it measured within
 * noise: H200, 2^28 u32 keys with 8-byte values, 22.3 against 22.5 ms).
 */
export function valueAccess(V: string, inSlot: number, split?: SplitAt): {
  code: string;
  load: (e: string) => string;
  store: (e: string, x: string) => string;
  loads: (end: string, run: (load: (e: string) => string) => string) => string;
} {
  const code = `@group(0) @binding(${inSlot}) var<storage, read> vals_in: array<${V}>;
@group(0) @binding(${inSlot + 1}) var<storage, read_write> vals_out: array<${V}>;`;
  const lo = (e: string): string => `vals_in[${e}]`;
  if (!split) return { code, load: lo, store: (e, x) => `vals_out[${e}] = ${x}`, loads: (_end, run) => run(lo) };
  return {
    code: `${code}
@group(0) @binding(${split.slot}) var<storage, read> vals_in_hi: array<${V}>;
@group(0) @binding(${split.slot + 1}) var<storage, read_write> vals_out_hi: array<${V}>;
const VAL_SPLIT = ${split.at}u;
fn load_val(e: u32) -> ${V} { if (e < VAL_SPLIT) { return vals_in[e]; } return vals_in_hi[e - VAL_SPLIT]; }
fn store_val(e: u32, x: ${V}) { if (e < VAL_SPLIT) { vals_out[e] = x; } else { vals_out_hi[e - VAL_SPLIT] = x; } }`,
    load: (e) => `load_val(${e})`,
    store: (e, x) => `store_val(${e}, ${x})`,
    loads: (end, run) => splitRun('VAL_SPLIT', end, run(lo), run((e) => `load_val(${e})`)),
  };
}

/** The second bindings' slots after `bindings` (appended to it): keys (in, and out with stores), then values (in, out). */
export function splitSlots(bindings: BindingKind[], split: RadixSplit | undefined, withStore: boolean, pairs: boolean): { keys?: SplitAt; values?: SplitAt } {
  const out: { keys?: SplitAt; values?: SplitAt } = {};
  if (split?.keys !== undefined) {
    out.keys = { at: split.keys, slot: bindings.length };
    bindings.push('read-only-storage', ...(withStore ? ['storage' as const] : []));
  }
  if (pairs && split?.values !== undefined) {
    out.values = { at: split.values, slot: bindings.length };
    bindings.push('read-only-storage', 'storage');
  }
  return out;
}

/** Bytes at the front of a 16-bit key destination that the host clears before a scatter pass: its whole words. */
export const f16ClearBytes = (count: number): number => Math.floor(count / 2) * 4;

/** Zeroes the words of its binding (one per invocation; arrayLength gives the count): clears a buffer without COPY_DST. */
export function zeroWordsKernel(): Kernel {
  const code = `@group(0) @binding(0) var<storage, read_write> w: array<u32>;
@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = (wid.x + wid.y * nwg.x) * 256u + lid;
  if (i < arrayLength(&w)) { w[i] = 0u; }
}
`;
  return { key: 'radix-zero-words', label: 'wgprim.radixSort.zeroWords', code, bindings: ['storage'], workgroupSize: 256 };
}

function header(o: RadixSortKernelOptions): string {
  const c = o.config;
  return `${c.workgroupScan === 'subgroup' ? 'enable subgroups;\ndiagnostic(off, subgroup_uniformity);\n' : ''}${paramsStruct(RADIX_SORT_PARAMS)}
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
  const loadDigits = (e0: string, end: string): string => `    var ds: array<u32, IPT>;
${splitLoads(o.key, hi.keys, `${e0} - lid + TILE`, (load) => unroll(o.config.itemsPerThread, 'j', `    { let e = ${e0} + j * WG; ds[j] = RADIX; if (e < ${end}) { ds[j] = digit(to_ordered(${load}(e))); } }`))}
${unroll(o.config.itemsPerThread, 'j', `    if (ds[j] < RADIX) { atomicAdd(&hist[ds[j]], 1u); }`)}`;
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
  for (var d = lid; d < RADIX; d += WG) {
    ${o.totals
    ? `let n = atomicLoad(&hist[d]);
    atomicStore(&counts[d * P.num_groups + group], n);
    if (n != 0u) { atomicAdd(&counts[P.totals_base + (group % ${COUNT_TOTAL_COPIES}u) * RADIX + d], n); }`
    : 'counts[d * P.num_groups + group] = atomicLoad(&hist[d]);'}
  }`;
  const code = `${header(o)}
${keyAccess(o.key, false, hi.keys)}
@group(0) @binding(2) var<storage, read_write> counts: array<${o.totals ? 'atomic<u32>' : 'u32'}>;
${keyFunctions(o.key, true, pass)}
var<workgroup> hist: array<atomic<u32>, RADIX>;

@compute @workgroup_size(WG)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let group = wid.x + wid.y * nwg.x;
  if (group >= P.num_groups) { return; }
  for (var d = lid; d < RADIX; d += WG) { atomicStore(&hist[d], 0u); }
  workgroupBarrier();
${body}
}
`;
  return { key: `radix-upsweep:${o.totals ? 'totals:' : ''}${o.tileCounts ? 'tiles:' : ''}${keyOf(o, pass)}`, label: `wgprim.radixSort.upsweep.${o.key.name}`, code, bindings, workgroupSize: o.config.workgroupSize };
}

/**
 * Copies of the digit totals the upsweep adds to (workgroup g to copy g % this): fewer adds
 * queue on one word (H200, 2^28 u32 keys, 4096 groups: one copy made the upsweep 8% slower).
 */
export const COUNT_TOTAL_COPIES = 8;
const COUNT_SCAN_WG = 256;
const COUNT_SCAN_ITEMS = 16;
/** The most groups a row of counts may have for `radixCountScanKernel`: one load per invocation and item. */
export const COUNT_SCAN_MAX_GROUPS = COUNT_SCAN_WG * COUNT_SCAN_ITEMS;

/**
 * The counts' exclusive scan where the upsweep added the digit totals: workgroup d scans row d
 * (num_groups <= COUNT_SCAN_MAX_GROUPS counts) in place, from the digit's start (the totals of
 * the digits below it). One kernel that waits on no other workgroup, in place of a device-wide
 * scan's three (H200, 2^24 u32 keys: the sort 0.724 -> 0.622 ms).
 */
export function radixCountScanKernel(radixBits: number): Kernel {
  const code = `enable subgroups;
diagnostic(off, subgroup_uniformity);
${paramsStruct(RADIX_SORT_PARAMS)}
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
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(subgroup_invocation_id) sg_lane: u32, @builtin(subgroup_size) sg_size: u32) {
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
 * block): fewer adds to the block and digit totals (H200, 2^28 u32 pairs, 256 x 23: 1 / 2 / 4 / 8
 * tiles 8.32 / 8.12 / 8.08 / 8.09 ms; at 2^24 0.690 / 0.679 / 0.670 / 0.700).
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
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>${sub ? ', @builtin(subgroup_invocation_id) sg_lane: u32, @builtin(subgroup_size) sg_size: u32' : ''}) {
  let tile = wid.x + wid.y * nwg.x;
  if (tile >= P.num_tiles) { return; }
  // r: this invocation's place in rank order; it holds the tile's keys r * IPT .. r * IPT + IPT - 1.
  ${sub ? `${SUBGROUP_ID}
  let r = sgid * sg_size + sg_lane;` : 'let r = lid;'}
  let base = tile * TILE;
  let valid = min(TILE, P.count - base);
${splitTileLoad(o.config.itemsPerThread, K, V, pairs ? vals.load : undefined)}
  for (var b = 0u; b < P.pass_bits; b++) {
    let s = P.shift + b;
${splitByBit(o.config.itemsPerThread, pairs, sub ? 'subgroup' : 'shared')}
    // The next split writes s_keys only after the barriers of its scan: these reads are done by then.
  }
  // The tile is now stably sorted by digit: find where each digit starts.
  for (var k = 0u; k < IPT; k++) {
    let i = k * WG + lid;
    if (i < valid) {
      let d = digit(s_keys[i]);
      if (i == 0u || digit(s_keys[i - 1u]) != d) { s_start[d] = i; }
    }
  }
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
