import { type Kernel, LINEAR_WORKGROUP_ID, paramsStruct } from '../../runtime/kernel.js';
import { subgroupEnables } from '../../wgsl/prelude.js';
import { SUBGROUP_BUILTINS, SUBGROUP_ID } from '../../wgsl/subgroup/id.js';
import { keyRangeFunctions, rawType } from '../../wgsl/thread/radix-key.js';
import { type TypeInfo } from '../../wgsl/types.js';
import { type BindingKind } from '../../wgsl/views.js';
import { sharedRunFlags } from '../../wgsl/workgroup/discontinuity.js';
import { stripedFromShared } from '../../wgsl/workgroup/exchange.js';
import { histogramAdd, histogramClear, type SharedHistogram } from '../../wgsl/workgroup/histogram.js';
import { splitByBit } from '../../wgsl/workgroup/radix-split.js';
import { blockedTileLoadViaShared, sharedTileStore, stripedTileLoad, stripedTileStore } from '../../wgsl/workgroup/tile.js';
import { rawKeyAccess, SEGMENT_BOUNDS_FN } from './access.js';
import { rankTileByDigit, tileSortDecls } from './blocks.js';
import { subgroupSorts } from './subgroup-sort.js';
import { type SegmentedRadixSortConfig } from './config.js';

/**
 * Uniform block of the sort kernel. Segment `s` is [begins[s], ends[s + end_shift]) clamped to
 * [0, count) (end_shift 1: the ends are the begins shifted by one, the same buffer bound twice).
 * `passes` digit passes of `radix_bits` cover [begin_bit, end_bit); `tmp_vals` is the first
 * word of the values in the scratch buffer (the keys come first, one word per 16- or 32-bit
 * key, two per 64-bit key, stored as ordered bits).
 */
export const SEGMENTED_SORT_PARAMS = ['count', 'num_segments', 'begin_bit', 'end_bit', 'flip', 'end_shift', 'tmp_vals', 'passes'] as const;
export const SEGMENTED_COPY_PARAMS = ['count'] as const;

export interface SegmentedRadixSortKernelOptions {
  readonly key: TypeInfo;
  readonly valueBytes: 0 | 4 | 8;
  readonly config: SegmentedRadixSortConfig;
  readonly subgroupMinSize: number;
  readonly subgroupMaxSize: number;
  /** The keys are sorted in place: one read-write keys binding, no `keys_in`. */
  readonly keysInPlace?: boolean;
  /** The values are permuted in place: one read-write values binding, no `vals_in`. */
  readonly valuesInPlace?: boolean;
  /**
   * The segments come grouped (config `grouping: 'by-length'`; no `begins` / `ends`): `list`
   * holds clamped [begin, end) bounds, the first `counts[0]` a workgroup each (longer than
   * TINY), then the tiny ones, SPW a workgroup (grouping.ts lays them out).
   */
  readonly grouped?: boolean;
  /** Grouped: segments longer than this are left to the huge segments' passes (huge.ts) when there are digits to sort. */
  readonly hugeLength?: number;
  /** Grouped: whether this launch also takes the tiny segments (default); the longer segments' own launch does not. */
  readonly tinySorts?: boolean;
}

/** Binding kind of each role of the sort kernel (and of the copy kernel, but for `covered`). */
const BINDING_KINDS: Record<string, BindingKind> = {
  params: 'uniform', keys_in: 'read-only-storage', keys_out: 'storage', tmp: 'storage', begins: 'read-only-storage', ends: 'read-only-storage',
  list: 'read-only-storage', counts: 'read-only-storage', covered: 'storage', vals_in: 'read-only-storage', vals_out: 'storage',
};

/** The kernel's bindings in order, from the uniform block: `keys_in` and `vals_in` are absent in place, `covered` when nothing is copied. */
export function segmentedSortBindingRoles(o: { valueBytes: 0 | 4 | 8; keysInPlace?: boolean; valuesInPlace?: boolean; grouped?: boolean }): string[] {
  const pairs = o.valueBytes !== 0;
  const roles = ['params', ...(o.keysInPlace ? [] : ['keys_in']), 'keys_out', 'tmp', ...(o.grouped ? ['list', 'counts'] : ['begins', 'ends'])];
  if (segmentedSortMarks(o)) roles.push('covered');
  if (pairs) roles.push(...(o.valuesInPlace ? [] : ['vals_in']), 'vals_out');
  return roles;
}

/** Whether some output is a separate buffer, so elements outside every segment must be copied (and the sort marks what it covers). */
export function segmentedSortMarks(o: { valueBytes: 0 | 4 | 8; keysInPlace?: boolean; valuesInPlace?: boolean }): boolean {
  return !o.keysInPlace || (o.valueBytes !== 0 && !o.valuesInPlace);
}

const optionsKey = (o: SegmentedRadixSortKernelOptions): string =>
  [o.key.name, o.valueBytes, o.config.workgroupSize, o.config.itemsPerThread, o.config.radixBits, o.config.rank, o.config.segmentsPerWorkgroup, o.config.subgroupKeysPerLane, o.subgroupMinSize, o.subgroupMaxSize, o.keysInPlace ? 'ki' : 'ko', o.valuesInPlace ? 'vi' : 'vo', o.grouped ? `g${o.hugeLength ?? ''}${o.tinySorts === false ? 'w' : ''}` : 'u'].join(':');

/**
 * The segmented sort: workgroup `s` sorts segment `s` stably by bits [begin_bit, end_bit) of
 * its keys' ordered bits, and marks the segment's elements in the `covered` bitmap (the copy
 * kernel then moves every element no segment covers).
 * - A segment of at most TILE keys is sorted in workgroup memory: its keys (and values) are
 *   loaded once, ranked digit pass after digit pass (LSD; the match rank or per-bit splits),
 *   and written out once.
 * - A longer segment takes LSD passes over global memory, ping-ponging between the output and
 *   the scratch buffer so the last pass writes the output: per pass the segment's digits are
 *   counted and scanned into running offsets, then tile by tile the keys are ranked in
 *   workgroup memory and each written at its digit's running offset.
 * Segment bounds are read through workgroupUniformLoad, so both branches are workgroup-uniform.
 *
 * In place (keys and/or values; `segmentedSortBindingRoles`): a short segment is read whole
 * into workgroup memory before it is written back, and a tiny one into its subgroup's lanes, so
 * those need nothing more. A long segment's first pass reads the buffer it would scatter into:
 * with an even pass count that pass writes the scratch anyway; with an odd one the segment is
 * first copied into the scratch and the first pass reads it from there.
 */
export function segmentedRadixSortKernel(o: SegmentedRadixSortKernelOptions): Kernel {
  const c = o.config;
  const K = rawType(o.key);
  const wide = o.key.bytes === 8;
  const V = o.valueBytes === 8 ? 'vec2<u32>' : 'u32';
  const pairs = o.valueBytes !== 0;
  const match = c.rank === 'match';
  const IPT = c.itemsPerThread;
  const WG = c.workgroupSize;
  const v = (s: string): string => (pairs ? s : '');
  const keysInPlace = o.keysInPlace === true;
  const valuesInPlace = pairs && o.valuesInPlace === true;
  const inPlace = keysInPlace || valuesInPlace;
  const mark = segmentedSortMarks(o);
  const roles = segmentedSortBindingRoles(o);
  const bindings = roles.map((r) => BINDING_KINDS[r]!);
  const at = (role: string): number => roles.indexOf(role);
  // The values' source: in place, the output binding itself.
  const VIN = valuesInPlace ? 'vals_out' : 'vals_in';
  const hist: SharedHistogram = { array: 's_hist', bins: 'RADIX', index: 'lid', stride: 'WG' };

  // Loading a tile into registers `ks` / `vs` (and for the split rank into s_keys first).
  // `src`: a WGSL expression naming the buffer (0 input, 1 output, 2 scratch); `at`: the tile's first element.
  const tileLoad = { items: IPT, K, V, key: (e: string) => `load_key(src, ${e})`, value: pairs ? (e: string) => `load_val(src, ${e})` : undefined, declare: false, base: 'b + t' };
  // Stable sort of the tile by bits [lo, lo + nbits): match: one rank per digit pass (the tile
  // ends in s_keys, sorted, and back in registers); split: one split per bit (ends in s_keys).
  const wgScan = { wgsl: `    let sc = wg_scan(lid, zeros);
    let total_zeros = sc.y;
    var z = sc.x - zeros;` };
  const splitBits = (lo: string, hi: string): string => `for (var s = ${lo}; s < ${hi}; s++) {
${splitByBit(IPT, pairs, wgScan, 'lid')}
  }`;

  // One tile: loaded (from `src` at b + t), then ranked `inner` times (a short segment: every
  // digit pass; a long one: this pass's digit), each rank spliced once.
  const loadTile = match ? stripedTileLoad(tileLoad) : blockedTileLoadViaShared({ ...tileLoad, rank: 'lid' });
  const rankTile = match
    ? `${rankTileByDigit(o, (j) => `digit_at(ks[${j}], shift, bits)`)}
        if (short_seg) {
${stripedFromShared(IPT, pairs, '          ')}
        }`
    : splitBits('shift', 'shift + bits');
  // A short segment's sorted tile goes out in place (match: from registers, striped).
  const writeShort = match
    ? stripedTileStore(IPT, 'len', (p) => `store_out(b + ${p}, from_ordered(ks[j]));
    ${v(`vals_out[b + ${p}] = vs[j];`)}`)
    : sharedTileStore('len', 'WG', 'IPT', (i) => `store_out(b + ${i}, from_ordered(s_keys[${i}]));
      ${v(`vals_out[b + ${i}] = s_vals[${i}];`)}`);
  // A long segment's tile: each digit's first place in the sorted tile and its count.
  const digitAt = (i: string): string => `digit_at(s_keys[${i}], shift, bits)`;
  const tileDigits = match
    ? ''
    : `for (var d = lid; d < RADIX; d += WG) { t_start[d] = 0u; t_cnt[d] = 0u; }
        workgroupBarrier();
${sharedRunFlags('heads', digitAt, 'valid', (i) => `t_start[d] = ${i};`)}
        workgroupBarrier();
${sharedRunFlags('tails', digitAt, 'valid', (i) => `t_cnt[d] = ${i} + 1u - t_start[d];`)}
        workgroupBarrier();`;
  // Tiny segments (at most TINY keys: KPL times the smallest subgroup size): one subgroup each.
  const spw = match ? c.segmentsPerWorkgroup : 1;
  const KPL = spw > 1 ? c.subgroupKeysPerLane : 1;
  const grouped = o.grouped === true;
  const tinyBounds = grouped
    ? `    // Past the longer segments' workgroups, SPW of the tiny ones a workgroup.
    if (group < wide) { break; }
    let k = wide + (group - wide) * SPW + g;
    if (k >= P.num_segments) { break; }
    let r = list[k];
    b = r.x;
    e = r.y;`
    : `    let seg = group * SPW + g;
    if (seg >= P.num_segments) { break; }
    let r = segment_bounds(seg);
    b = r.x;
    e = r.y;`;
  const tiny = spw > 1 && o.tinySorts !== false
    ? subgroupSorts({ K, V, pairs, keysPerLane: KPL, valuesIn: VIN, bounds: tinyBounds, mark: grouped && mark ? markCovered('b', 'e', 'sg_lane', 'sg_size') : '' })
    : '';
  const tStart = match ? 'rk_start' : 't_start';
  const tCount = match ? 'rk_count' : 't_cnt';

  const code = `${subgroupEnables(match)}${paramsStruct(SEGMENTED_SORT_PARAMS)}
@group(0) @binding(0) var<uniform> P: Params;
${rawKeyAccess(o.key, 1, keysInPlace)}
@group(0) @binding(${at('tmp')}) var<storage, read_write> tmp: array<u32>;
${grouped ? `@group(0) @binding(${at('list')}) var<storage, read> list: array<vec2<u32>>;
@group(0) @binding(${at('counts')}) var<storage, read> counts: array<u32>;` : `@group(0) @binding(${at('begins')}) var<storage, read> begins: array<u32>;
@group(0) @binding(${at('ends')}) var<storage, read> ends: array<u32>;
${SEGMENT_BOUNDS_FN}`}
${mark ? `@group(0) @binding(${at('covered')}) var<storage, read_write> covered: array<atomic<u32>>;` : ''}
${v(`${valuesInPlace ? '' : `@group(0) @binding(${at('vals_in')}) var<storage, read> vals_in: array<${V}>;`}
@group(0) @binding(${at('vals_out')}) var<storage, read_write> vals_out: array<${V}>;`)}
${tileSortDecls(o, VIN, match)}
const SPW = ${spw}u;
const KPL = ${KPL}u;
const TINY = ${o.subgroupMinSize * KPL}u;
${keyRangeFunctions(o.key)}
var<workgroup> s_run: array<u32, RADIX>;
var<workgroup> s_hist: array<atomic<u32>, RADIX>;
var<workgroup> s_bounds: vec2<u32>;
${grouped ? 'var<workgroup> s_wide: u32;' : ''}
${match ? '' : `var<workgroup> t_start: array<u32, RADIX>;
var<workgroup> t_cnt: array<u32, RADIX>;`}

@compute @workgroup_size(WG)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>${match ? `,
        ${SUBGROUP_BUILTINS}` : ''}) {
  flip = P.flip;
  let group = ${LINEAR_WORKGROUP_ID};
${grouped ? `  if (lid == 0u) { s_wide = counts[0]; }
  // The first \`wide\` workgroups take one longer segment each.
  let wide = workgroupUniformLoad(&s_wide);
  let own = select(0u, 1u, group < wide);` : `  if (group * SPW >= P.num_segments) { return; }
  let own = SPW;`}
  ${match ? SUBGROUP_ID : ''}
  // The workgroup's segments one after another (uniform bounds: barriers inside are fine).
  for (var seg_i = 0u; seg_i < own; seg_i++) {
${grouped ? `    if (lid == 0u) { s_bounds = list[group]; }` : `    let seg = group * SPW + seg_i;
    if (seg >= P.num_segments) { break; }
    if (lid == 0u) { s_bounds = segment_bounds(seg); }`}
    let bounds = workgroupUniformLoad(&s_bounds);
    let b = bounds.x;
    let len = bounds.y - b;
    if (len == 0u) { continue; }
${mark ? markCovered('b', 'bounds.y', 'lid', 'WG') : ''}    // Tiny segments are sorted by one subgroup each, after this loop.
    if (SPW > 1u && len <= TINY) { continue; }
${o.hugeLength !== undefined ? `    // Huge ones by every workgroup at once, after this kernel.
    if (len > ${o.hugeLength}u && P.passes > 0u) { continue; }` : ''}
    var ks: array<${K}, IPT>;
    ${v(`var vs: array<${V}, IPT>;`)}
    // A short segment (one tile) stays in workgroup memory for every digit pass; a long one
    // takes one pass over global memory per digit.
    let short_seg = len <= TILE;
    var outer = P.passes;
    var inner = 1u;
    if (short_seg) { outer = 1u; inner = P.passes; }
    if (!short_seg && P.passes == 0u) {
      // An empty bit range: a stable copy (nothing to do for what is in place).
      for (var i = lid; i < len; i += WG) {
        ${keysInPlace ? '' : 'store_out(b + i, load_in(b + i));'}
        ${valuesInPlace ? '' : v('vals_out[b + i] = vals_in[b + i];')}
      }
      continue;
    }
    for (var q = 0u; q < outer; q++) {
      // Long segments: destinations alternate so that the last pass writes the output (1); the
      // first reads the input (0); the scratch (2) holds the passes in between.
      var src = 0u;
      var dst = 1u;
      let pass_shift = P.begin_bit + q * RB;
      let pass_bits = min(RB, P.end_bit - pass_shift);
      if (!short_seg) {
        dst = select(2u, 1u, (P.passes - 1u - q) % 2u == 0u);
        if (q > 0u) { src = select(2u, 1u, (P.passes - q) % 2u == 0u); }
${inPlace ? `        if (q == 0u && P.passes % 2u == 1u) {
          // In place with an odd pass count the first pass would scatter into the buffer it
          // reads: the segment goes to the scratch first, and the first pass reads it there.
          for (var i = lid; i < len; i += WG) {
            store_tmp(b + i, load_key(0u, b + i));
            ${v('store_tmp_val(b + i, load_val(0u, b + i));')}
          }
          storageBarrier();
          src = 2u;
        }
` : ''}        // The segment's digit counts, scanned into each digit's first output position.
        ${histogramClear(hist)}
        workgroupBarrier();
        for (var i = lid; i < len; i += WG) { ${histogramAdd(hist, 'digit_at(load_key(src, b + i), pass_shift, pass_bits)')} }
        workgroupBarrier();
        var owned = 0u;
        for (var k = 0u; k < DPT; k++) {
          let d = lid * DPT + k;
          if (d < RADIX) { owned += atomicLoad(&s_hist[d]); }
        }
        var start = b + wg_scan(lid, owned).x - owned;
        for (var k = 0u; k < DPT; k++) {
          let d = lid * DPT + k;
          if (d < RADIX) { s_run[d] = start; start += atomicLoad(&s_hist[d]); }
        }
        workgroupBarrier();
      }
      for (var t = 0u; t < len; t += TILE) {
        let valid = min(TILE, len - t);
        ${loadTile}
        for (var qi = 0u; qi < inner; qi++) {
          let shift = P.begin_bit + (q + qi) * RB;
          let bits = min(RB, P.end_bit - shift);
          ${rankTile}
        }
        if (short_seg) {
          ${inPlace ? '// In place: every read of the segment is done before the first write.\n          storageBarrier();' : ''}
          ${writeShort}
        } else {
          let shift = pass_shift;
          let bits = pass_bits;
          ${tileDigits}
          for (var k = 0u; k < IPT; k++) {
            let i = k * WG + lid;
            if (i < valid) {
              let y = s_keys[i];
              let d = digit_at(y, shift, bits);
              let at = s_run[d] + i - ${tStart}[d];
              store_key(dst, at, y);
              ${v('store_val(dst, at, s_vals[i]);')}
            }
          }
          workgroupBarrier();
          for (var d = lid; d < RADIX; d += WG) { s_run[d] += ${tCount}[d]; }
          workgroupBarrier();
        }
      }
      // This pass's writes are visible to the workgroup's reads of the next.
      storageBarrier();
    }
  }
${tiny}
}
`;
  return { key: `segmented-radix-sort:${optionsKey(o)}`, label: `wgprim.segmentedRadixSort.${o.key.name}`, code, bindings, workgroupSize: WG };
}

/**
 * Copies every element the `covered` bitmap does not mark from the input to the output (one
 * invocation per element): keys and values, or only what is not sorted in place (elements
 * outside every segment are then already where they stay).
 */
export function segmentedCopyKernel(o: { key: TypeInfo; valueBytes: 0 | 4 | 8; keysInPlace?: boolean; valuesInPlace?: boolean }): Kernel {
  const V = o.valueBytes === 8 ? 'vec2<u32>' : 'u32';
  const keys = !o.keysInPlace;
  const values = o.valueBytes !== 0 && !o.valuesInPlace;
  const roles = segmentedCopyBindingRoles(o);
  // The copy only reads the bitmap the sort wrote.
  const bindings = roles.map((r): BindingKind => (r === 'covered' ? 'read-only-storage' : BINDING_KINDS[r]!));
  const at = (role: string): number => roles.indexOf(role);
  const code = `${paramsStruct(SEGMENTED_COPY_PARAMS)}
@group(0) @binding(0) var<uniform> P: Params;
${keys ? rawKeyAccess(o.key, at('keys_in'), false) : ''}
@group(0) @binding(${at('covered')}) var<storage, read> covered: array<u32>;
${values ? `@group(0) @binding(${at('vals_in')}) var<storage, read> vals_in: array<${V}>;
@group(0) @binding(${at('vals_out')}) var<storage, read_write> vals_out: array<${V}>;` : ''}

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let e = (${LINEAR_WORKGROUP_ID}) * 256u + lid;
  if (e >= P.count) { return; }
  if (((covered[e >> 5u] >> (e & 31u)) & 1u) == 0u) {
    ${keys ? 'store_out(e, load_in(e));' : ''}
    ${values ? 'vals_out[e] = vals_in[e];' : ''}
  }
}
`;
  return { key: `segmented-radix-copy:${o.key.name}:${o.valueBytes}:${keys ? 'k' : ''}${values ? 'v' : ''}`, label: `wgprim.segmentedRadixSort.copy.${o.key.name}`, code, bindings, workgroupSize: 256 };
}

/** The copy kernel's bindings in order: only the arrays it copies (those not in place). */
export function segmentedCopyBindingRoles(o: { valueBytes: 0 | 4 | 8; keysInPlace?: boolean; valuesInPlace?: boolean }): string[] {
  const roles = ['params'];
  if (!o.keysInPlace) roles.push('keys_in', 'keys_out');
  roles.push('covered');
  if (o.valueBytes !== 0 && !o.valuesInPlace) roles.push('vals_in', 'vals_out');
  return roles;
}

/** WGSL marking elements [b, e) (e > b) covered, word `first` then every `stride`-th (the copy kernel moves the others). */
function markCovered(b: string, e: string, first: string, stride: string): string {
  return `    // Mark the segment's elements covered (the copy kernel moves the others).
    let w0 = ${b} >> 5u;
    let w1 = (${e} - 1u) >> 5u;
    for (var w = w0 + ${first}; w <= w1; w += ${stride}) {
      var m = 0xffffffffu;
      if (w == w0) { m &= 0xffffffffu << (${b} & 31u); }
      if (w == w1) { let hi = ${e} - w1 * 32u; if (hi < 32u) { m &= (1u << hi) - 1u; } }
      atomicOr(&covered[w], m);
    }
`;
}
