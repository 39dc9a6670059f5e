// Huge segments (more than HUGE_TILES tiles) sorted by every workgroup at once, where one
// workgroup alone would take them a tile and a digit at a time while the rest of the GPU waits. LSD passes over the tiles of all huge segments together,
// reduce-then-scan (safe without forward progress): per pass each tile counts its digits, a
// workgroup per segment scans its tiles' counts into positions, and each tile ranks its keys
// by the digit and scatters them. The tiles, segments and grids are known only on the GPU (the
// select of huge segments counts them), so every dispatch is indirect.
import { type DeviceContext } from '../../runtime/context.js';
import { ceilDiv } from '../../runtime/dispatch.js';
import { type Kernel, LINEAR_WORKGROUP_ID, paramsStruct } from '../../runtime/kernel.js';
import { subgroupEnables } from '../../wgsl/prelude.js';
import { SUBGROUP_BUILTINS, SUBGROUP_ID } from '../../wgsl/subgroup/id.js';
import { rawType } from '../../wgsl/thread/radix-key.js';
import { unroll } from '../../wgsl/thread/unroll.js';
import { type BindingKind } from '../../wgsl/views.js';
import { histogramAdd, histogramClear, type SharedHistogram } from '../../wgsl/workgroup/histogram.js';
import { radixRankKey } from '../../wgsl/workgroup/radix-rank.js';
import { stripedTileLoad } from '../../wgsl/workgroup/tile.js';
import { rawKeyAccess } from './access.js';
import { rankOptions, rankTileByDigit, type TileSortShape, tileSortDecls, WG_SCAN_FN } from './blocks.js';
import { GRID_FOR_FN } from './grouping.js';

/** Segments longer than this many tiles are huge. */
export const HUGE_TILES = 4;

/**
 * Uniform block of the huge kernels. `shift`/`bits`: this pass's digit; `src`/`dst`: the
 * buffers it reads and writes (0 input, 1 output, 2 scratch); `copy`: the upsweep also copies
 * the keys (and values) it reads into the scratch (in place with an odd pass count); `base_at`:
 * the first word of the segments' digit bases in `hmeta`; `max_dim`: workgroups a dimension.
 */
export const HUGE_PARAMS = ['tmp_vals', 'flip', 'shift', 'bits', 'src', 'dst', 'copy', 'base_at', 'max_dim'] as const;

/**
 * `hmeta` (u32 words): [0] huge segments, [1] their tiles, [2 + s] segment s's first tile (a
 * running count; entry `segments` is the total), from `base_at`: each segment's digit bases
 * (RADIX a segment: where its keys of each digit start). `counts` holds RADIX counts a tile
 * (tile-major), turned by the scan into each (tile, digit)'s place among its segment's keys of that digit.
 */
export interface HugeShape extends TileSortShape {
  readonly keysInPlace: boolean;
  readonly valuesInPlace: boolean;
}

type Stage = 'upsweep' | 'scatter';

const BINDINGS: Record<string, BindingKind> = {
  params: 'uniform', keys_in: 'read-only-storage', keys_out: 'storage', tmp: 'storage', huge: 'read-only-storage', meta: 'storage',
  counts: 'storage', vals_in: 'read-only-storage', vals_out: 'storage',
};

/**
 * Module scope of the kernels over the huge list alone (the scan, the prefix): the params,
 * \`huge\` at binding 1, then \`more\` u32 arrays (read or read-write) from binding 2, WG,
 * \`s_scan\` and \`wg_scan\`.
 */
function hugeListHeader(wg: number, more: readonly (readonly [name: string, writable: boolean])[]): { code: string; bindings: BindingKind[] } {
  const code = `${paramsStruct(HUGE_PARAMS)}
@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read> huge: array<vec2<u32>>;
${more.map(([name, writable], i) => `@group(0) @binding(${i + 2}) var<storage, ${writable ? 'read_write' : 'read'}> ${name}: array<u32>;`).join('\n')}
const WG = ${wg}u;
var<workgroup> s_scan: array<u32, WG>;
${WG_SCAN_FN}`;
  return { code, bindings: ['uniform', 'read-only-storage', ...more.map(([, writable]): BindingKind => (writable ? 'storage' : 'read-only-storage'))] };
}

/** Binding roles of the upsweep and the scatter, in order. */
export function hugeTileRoles(o: HugeShape): string[] {
  const roles = ['params', ...(o.keysInPlace ? [] : ['keys_in']), 'keys_out', 'tmp', 'huge', 'meta', 'counts'];
  if (o.valueBytes) roles.push(...(o.valuesInPlace ? [] : ['vals_in']), 'vals_out');
  return roles;
}

const shapeKey = (o: HugeShape): string =>
  [o.key.name, o.valueBytes, o.config.workgroupSize, o.config.itemsPerThread, o.config.radixBits, radixRankKey(rankOptions(o)), o.keysInPlace ? 'ki' : 'ko', o.valuesInPlace ? 'vi' : 'vo'].join(':');

/**
 * The upsweep (each tile's digit counts; with `copy` its keys and values into the scratch) or
 * the scatter (the tile ranked by the digit, each key written at its segment's digit base plus
 * its tile's place plus its rank within the digit). Workgroup w takes tile w of all huge
 * segments; it finds its segment by binary search over the segments' first tiles.
 */
export function hugeTileKernel(o: HugeShape, stage: Stage): Kernel {
  const roles = hugeTileRoles(o);
  const at = (r: string): number => roles.indexOf(r);
  const pairs = o.valueBytes !== 0;
  const V = o.valueBytes === 8 ? 'vec2<u32>' : 'u32';
  const VIN = o.valuesInPlace ? 'vals_out' : 'vals_in';
  const v = (s: string): string => (pairs ? s : '');
  const scatter = stage === 'scatter';
  const hist: SharedHistogram = { array: 's_hist', bins: 'RADIX', index: 'lid', stride: 'WG' };
  const body = scatter
    ? `  var ks: array<${rawType(o.key)}, IPT>;
  ${v(`var vs: array<${V}, IPT>;`)}
${stripedTileLoad({ items: o.config.itemsPerThread, K: rawType(o.key), V, key: (e) => `load_key(P.src, ${e})`, value: pairs ? (e) => `load_val(P.src, ${e})` : undefined, declare: false, base: 't0' })}
  ${rankTileByDigit(o, (j) => `digit_at(ks[${j}], P.shift, P.bits)`)}
  for (var k = 0u; k < IPT; k++) {
    let i = k * WG + lid;
    if (i < valid) {
      let y = s_keys[i];
      let d = digit_at(y, P.shift, P.bits);
      let to = hmeta[P.base_at + at.x * RADIX + d] + counts[tile * RADIX + d] + i - rk_start[d];
      store_key(P.dst, to, y);
      ${v('store_val(P.dst, to, s_vals[i]);')}
    }
  }`
    : `  ${histogramClear(hist)}
  workgroupBarrier();
  for (var i = lid; i < valid; i += WG) {
    let y = load_key(P.src, t0 + i);
    if (P.copy != 0u) {
      store_tmp(t0 + i, y);
      ${v('store_tmp_val(t0 + i, load_val(P.src, t0 + i));')}
    }
    ${histogramAdd(hist, 'digit_at(y, P.shift, P.bits)')}
  }
  workgroupBarrier();
  for (var d = lid; d < RADIX; d += WG) { counts[tile * RADIX + d] = atomicLoad(&s_hist[d]); }`;
  const code = `${subgroupEnables(scatter)}${paramsStruct(HUGE_PARAMS)}
@group(0) @binding(0) var<uniform> P: Params;
${rawKeyAccess(o.key, 1, o.keysInPlace)}
@group(0) @binding(${at('tmp')}) var<storage, read_write> tmp: array<u32>;
@group(0) @binding(${at('huge')}) var<storage, read> huge: array<vec2<u32>>;
@group(0) @binding(${at('meta')}) var<storage, read_write> hmeta: array<u32>;
@group(0) @binding(${at('counts')}) var<storage, read_write> counts: array<u32>;
${v(`${o.valuesInPlace ? '' : `@group(0) @binding(${at('vals_in')}) var<storage, read> vals_in: array<${V}>;`}
@group(0) @binding(${at('vals_out')}) var<storage, read_write> vals_out: array<${V}>;`)}
${tileSortDecls(o, VIN, scatter)}
${scatter ? '' : 'var<workgroup> s_hist: array<atomic<u32>, RADIX>;'}
var<workgroup> s_at: vec4<u32>;

// Tile \`tile\` of the huge segments: (segment, its begin, its end, the tile's index in it), or
// x = 0xffffffff past the last tile.
fn locate(tile: u32) -> vec4<u32> {
  if (tile >= hmeta[1]) { return vec4<u32>(0xffffffffu, 0u, 0u, 0u); }
  var lo = 0u;
  var hi = hmeta[0];
  while (hi - lo > 1u) {
    let mid = (lo + hi) / 2u;
    if (hmeta[2u + mid] <= tile) { lo = mid; } else { hi = mid; }
  }
  let r = huge[lo];
  return vec4<u32>(lo, r.x, r.y, tile - hmeta[2u + lo]);
}

@compute @workgroup_size(WG)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>${scatter ? `,
        ${SUBGROUP_BUILTINS}` : ''}) {
  flip = P.flip;
  let tile = ${LINEAR_WORKGROUP_ID};
  if (lid == 0u) { s_at = locate(tile); }
  let at = workgroupUniformLoad(&s_at);
  if (at.x == 0xffffffffu) { return; }
  ${scatter ? SUBGROUP_ID : ''}
  let t0 = at.y + at.w * TILE;
  let valid = min(TILE, at.z - t0);
${body}
}
`;
  return { key: `segmented-radix-sort.huge-${stage}:${shapeKey(o)}`, label: `wgprim.segmentedRadixSort.huge.${stage}.${o.key.name}`, code, bindings: roles.map((r) => BINDINGS[r]!), workgroupSize: o.config.workgroupSize };
}

/**
 * A workgroup a huge segment: invocation d runs down digit d's counts of the segment's tiles
 * (eight loads in flight), leaving each tile's place among the segment's keys of that digit,
 * then the digit totals are scanned into the segment's digit bases (its begin plus the keys of
 * lower digits).
 */
export function hugeScanKernel(o: TileSortShape): Kernel {
  const c = o.config;
  const U = 8;
  const header = hugeListHeader(c.workgroupSize, [['hmeta', true], ['counts', true]]);
  const code = `${header.code}
const RADIX = ${1 << c.radixBits}u;
const DPT = ${Math.ceil((1 << c.radixBits) / c.workgroupSize)}u;
var<workgroup> s_n: u32;

@compute @workgroup_size(WG)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let s = ${LINEAR_WORKGROUP_ID};
  if (lid == 0u) { s_n = hmeta[0]; }
  if (s >= workgroupUniformLoad(&s_n)) { return; }
  let first = hmeta[2u + s];
  let last = hmeta[3u + s];
  var totals: array<u32, DPT>;
  var owned = 0u;
  for (var k = 0u; k < DPT; k++) {
    let d = lid * DPT + k;
    var run = 0u;
    if (d < RADIX) {
      for (var t = first; t < last; t += ${U}u) {
        var c: array<u32, ${U}>;
${unroll(U, 'u', `        c[u] = 0u;
        if (t + u < last) { c[u] = counts[(t + u) * RADIX + d]; }`)}
${unroll(U, 'u', `        if (t + u < last) { counts[(t + u) * RADIX + d] = run; }
        run += c[u];`)}
      }
    }
    totals[k] = run;
    owned += run;
  }
  var start = huge[s].x + wg_scan(lid, owned).x - owned;
  for (var k = 0u; k < DPT; k++) {
    let d = lid * DPT + k;
    if (d < RADIX) { hmeta[P.base_at + s * RADIX + d] = start; }
    start += totals[k];
  }
}
`;
  return { key: `segmented-radix-sort.huge-scan:${c.workgroupSize}:${c.radixBits}`, label: 'wgprim.segmentedRadixSort.huge.scan', code, bindings: header.bindings, workgroupSize: c.workgroupSize };
}

/**
 * One workgroup: the huge segments' first tiles (a running count of their tiles, in chunks a
 * invocation, scanned across the workgroup) into `hmeta`, and the grids of the tile kernels
 * (grid[0..3]) and of the scan (grid[3..6]).
 */
export function hugePrefixKernel(tile: number): Kernel {
  const WG = 256;
  const header = hugeListHeader(WG, [['found', false], ['hmeta', true], ['grid', true]]);
  const code = `${header.code}
const TILE = ${tile}u;
${GRID_FOR_FN}

fn tiles_of(s: u32) -> u32 { let r = huge[s]; return (r.y - r.x + TILE - 1u) / TILE; }

@compute @workgroup_size(WG)
fn main(@builtin(local_invocation_index) lid: u32) {
  let n = found[0];
  let per = (n + WG - 1u) / WG;
  let lo = min(lid * per, n);
  let hi = min(lo + per, n);
  var sum = 0u;
  for (var s = lo; s < hi; s++) { sum += tiles_of(s); }
  let sc = wg_scan(lid, sum);
  var run = sc.x - sum;
  for (var s = lo; s < hi; s++) { hmeta[2u + s] = run; run += tiles_of(s); }
  if (lid == 0u) {
    hmeta[0] = n;
    hmeta[1] = sc.y;
    hmeta[2u + n] = sc.y;
    let tiles = grid_for(sc.y, P.max_dim);
    let segs = grid_for(n, P.max_dim);
    grid[0] = tiles.x; grid[1] = tiles.y; grid[2] = 1u;
    grid[3] = segs.x; grid[4] = segs.y; grid[5] = 1u;
  }
}
`;
  return { key: `segmented-radix-sort.huge-prefix:${tile}`, label: 'wgprim.segmentedRadixSort.huge.prefix', code, bindings: header.bindings, workgroupSize: WG };
}

/** Most huge segments `count` elements can hold, and words of `meta` and of the tile counts for them. */
export function hugeScratchWords(count: number, tile: number, radix: number): { maxHuge: number; metaWords: number; countWords: number; baseAt: number } {
  const maxHuge = Math.floor(count / (HUGE_TILES * tile + 1));
  const baseAt = 3 + maxHuge;
  // Each huge segment adds at most one partial tile to the whole tiles of the keys.
  const maxTiles = ceilDiv(count, tile) + maxHuge;
  return { maxHuge, baseAt, metaWords: baseAt + maxHuge * radix, countWords: Math.max(1, maxTiles * radix) };
}

export interface HugeSortArgs {
  readonly shape: HugeShape;
  readonly count: number;
  readonly beginBit: number;
  readonly endBit: number;
  readonly passes: number;
  readonly descending: boolean;
  readonly tmpVals: number;
  /** The scratch's layout for this count and tile (hugeScratchWords). */
  readonly words: ReturnType<typeof hugeScratchWords>;
}

export interface HugeSortBuffers {
  /** The huge segments' bounds and their number (one u32), from the grouping's select. */
  readonly huge: GPUBufferBinding;
  readonly found: GPUBufferBinding;
  /** Bindings by role: keys_in, keys_out, tmp, vals_in, vals_out (as the sort has them). */
  readonly io: Readonly<Record<string, GPUBufferBinding | undefined>>;
}

/** Compiles the huge segments' pipelines; the result records their passes. */
export async function prepareHugeSort(ctx: DeviceContext, a: HugeSortArgs): Promise<(encoder: GPUCommandEncoder, b: HugeSortBuffers) => void> {
  const o = a.shape;
  const c = o.config;
  const { metaWords, countWords, baseAt } = a.words;
  const kernels = { prefix: hugePrefixKernel(c.workgroupSize * c.itemsPerThread), upsweep: hugeTileKernel(o, 'upsweep'), scan: hugeScanKernel(o), scatter: hugeTileKernel(o, 'scatter') };
  const [prefix, upsweep, scan, scatter] = await Promise.all([kernels.prefix, kernels.upsweep, kernels.scan, kernels.scatter].map((k) => ctx.pipeline(k)));
  const meta = ctx.scratch('segmentedRadixSort.hugeMeta', metaWords * 4);
  const counts = ctx.scratch('segmentedRadixSort.hugeCounts', countWords * 4);
  const grid = ctx.scratch('segmentedRadixSort.hugeGrid', 24, GPUBufferUsage.INDIRECT);
  const bind = (buffer: GPUBuffer, words: number): GPUBufferBinding => ({ buffer, offset: 0, size: words * 4 });
  const maxDim = ctx.limits.maxComputeWorkgroupsPerDimension;
  const inPlace = o.keysInPlace || (o.valueBytes !== 0 && o.valuesInPlace);
  const roles = hugeTileRoles(o);
  return (encoder, b) => {
    const params = (words: number[]): GPUBufferBinding => ({ buffer: ctx.uniform(new Uint32Array(words)) });
    const shared: Record<string, GPUBufferBinding | undefined> = { ...b.io, huge: b.huge, meta: bind(meta, metaWords), counts: bind(counts, countWords) };
    const tileEntries = (p: GPUBufferBinding): GPUBufferBinding[] => roles.map((r) => (r === 'params' ? p : shared[r]!));
    const first = params([a.tmpVals, 0, 0, 0, 0, 0, 0, baseAt, maxDim]);
    ctx.dispatch(encoder, kernels.prefix.label, prefix!, ctx.bindGroup(prefix!, kernels.prefix.key, [first, b.huge, b.found, bind(meta, metaWords), bind(grid, 6)]), 1);
    // The last pass writes the output; in place with an odd count the first reads a copy in the scratch.
    const copyFirst = inPlace && a.passes % 2 === 1;
    let src = 0;
    for (let q = 0; q < a.passes; q++) {
      const shift = a.beginBit + q * c.radixBits;
      const bits = Math.min(c.radixBits, a.endBit - shift);
      const dst = (a.passes - 1 - q) % 2 === 0 ? 1 : 2;
      const copy = q === 0 && copyFirst;
      const up = params([a.tmpVals, a.descending ? 0xffffffff : 0, shift, bits, src, dst, copy ? 1 : 0, baseAt, maxDim]);
      const readFrom = copy ? 2 : src;
      const down = params([a.tmpVals, a.descending ? 0xffffffff : 0, shift, bits, readFrom, dst, 0, baseAt, maxDim]);
      ctx.dispatchIndirect(encoder, kernels.upsweep.label, upsweep!, ctx.bindGroup(upsweep!, kernels.upsweep.key, tileEntries(up)), grid, 0);
      ctx.dispatchIndirect(encoder, kernels.scan.label, scan!, ctx.bindGroup(scan!, kernels.scan.key, [down, b.huge, shared.meta!, shared.counts!]), grid, 12);
      ctx.dispatchIndirect(encoder, kernels.scatter.label, scatter!, ctx.bindGroup(scatter!, kernels.scatter.key, tileEntries(down)), grid, 0);
      src = dst;
    }
  };
}
