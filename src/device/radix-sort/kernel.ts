import { type Kernel, paramsStruct } from '../../runtime/kernel.js';
import { type TypeInfo } from '../../wgsl/types.js';
import { type BindingKind } from '../../wgsl/views.js';
import { type RadixSortConfig } from './config.js';

/** Uniform block of both kernels: `shift` is the first bit of this pass, `pass_bits` its width (0: a stable copy). */
export const RADIX_SORT_PARAMS = ['count', 'num_tiles', 'shift', 'pass_bits'] as const;

export interface RadixSortKernelOptions {
  readonly key: TypeInfo;
  /** 0: keys only. */
  readonly valueBytes: 0 | 4 | 8;
  readonly descending: boolean;
  readonly config: RadixSortConfig;
}

/** WGSL type holding a key's raw bits: one word, or two (x = low word) for 64-bit keys. */
const rawType = (t: TypeInfo): string => (t.bytes === 8 ? 'vec2<u32>' : 'u32');

/**
 * `to_ordered(x)` maps a key's raw bits to bits whose unsigned order is the sort order
 * (descending: the complement); `from_ordered` inverts it. `digit(y)` is the pass's digit of
 * ordered bits and `bit_at(y, s)` one bit. Floats: negative keys have every bit flipped,
 * others the sign bit, which gives -NaN < -inf < ... < -0 < +0 < ... < +inf < +NaN.
 */
function keyFunctions(t: TypeInfo, descending: boolean): string {
  const K = rawType(t);
  const wide = t.bytes === 8;
  let to: string;
  let from: string;
  switch (t.name) {
    case 'u32': case 'u64': to = 'x'; from = 'y'; break;
    case 'i32': to = 'x ^ 0x80000000u'; from = 'y ^ 0x80000000u'; break;
    case 'i64': to = 'vec2<u32>(x.x, x.y ^ 0x80000000u)'; from = 'vec2<u32>(y.x, y.y ^ 0x80000000u)'; break;
    case 'f32':
      to = 'x ^ select(0x80000000u, 0xffffffffu, (x >> 31u) == 1u)';
      from = 'y ^ select(0xffffffffu, 0x80000000u, (y >> 31u) == 1u)';
      break;
    default: throw new Error(`radix sort kernel: no key transform for ${t.name}`);
  }
  const digit = wide
    ? `fn digit(y: vec2<u32>) -> u32 {
  let mask = (1u << P.pass_bits) - 1u;
  if (P.shift >= 32u) { return (y.y >> (P.shift - 32u)) & mask; }
  var lo = y.x >> P.shift;
  if (P.shift > 0u) { lo |= y.y << (32u - P.shift); }
  return lo & mask;
}
fn bit_at(y: vec2<u32>, s: u32) -> u32 {
  if (s >= 32u) { return (y.y >> (s - 32u)) & 1u; }
  return (y.x >> s) & 1u;
}`
    : `fn digit(y: u32) -> u32 { return (y >> P.shift) & ((1u << P.pass_bits) - 1u); }
fn bit_at(y: u32, s: u32) -> u32 { return (y >> s) & 1u; }`;
  return `fn to_ordered(x: ${K}) -> ${K} { return ${descending ? `~(${to})` : to}; }
fn from_ordered(y0: ${K}) -> ${K} { let y = ${descending ? '~y0' : 'y0'}; return ${from}; }
${digit}
const SENTINEL = ${K}(${wide ? '0xffffffffu, 0xffffffffu' : '0xffffffffu'});`;
}

function header(o: RadixSortKernelOptions): string {
  const c = o.config;
  return `${paramsStruct(RADIX_SORT_PARAMS)}
@group(0) @binding(0) var<uniform> P: Params;
const WG = ${c.workgroupSize}u;
const IPT = ${c.itemsPerThread}u;
const TILE = ${c.workgroupSize * c.itemsPerThread}u;
const RADIX = ${1 << c.radixBits}u;`;
}

const keyOf = (o: RadixSortKernelOptions): string =>
  [o.key.name, o.descending ? 'desc' : 'asc', o.valueBytes, o.config.workgroupSize, o.config.itemsPerThread, o.config.radixBits].join(':');

/**
 * Upsweep: workgroup `tile` counts the digits of its tile's keys and writes count d to
 * `counts[d * num_tiles + tile]` (digit-major), so that an exclusive scan of `counts` gives
 * each (digit, tile) its first output position.
 */
export function radixUpsweepKernel(o: RadixSortKernelOptions): Kernel {
  const K = rawType(o.key);
  const bindings: BindingKind[] = ['uniform', 'read-only-storage', 'storage'];
  const code = `${header(o)}
@group(0) @binding(1) var<storage, read> keys_in: array<${K}>;
@group(0) @binding(2) var<storage, read_write> counts: array<u32>;
${keyFunctions(o.key, o.descending)}
var<workgroup> hist: array<atomic<u32>, RADIX>;

@compute @workgroup_size(WG)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let tile = wid.x + wid.y * nwg.x;
  if (tile >= P.num_tiles) { return; }
  for (var d = lid; d < RADIX; d += WG) { atomicStore(&hist[d], 0u); }
  workgroupBarrier();
  let base = tile * TILE;
  for (var k = 0u; k < IPT; k++) {
    let e = base + k * WG + lid;
    if (e < P.count) { atomicAdd(&hist[digit(to_ordered(keys_in[e]))], 1u); }
  }
  workgroupBarrier();
  for (var d = lid; d < RADIX; d += WG) { counts[d * P.num_tiles + tile] = atomicLoad(&hist[d]); }
}
`;
  return { key: `radix-upsweep:${keyOf(o)}`, label: `wgprim.radixSort.upsweep.${o.key.name}`, code, bindings, workgroupSize: o.config.workgroupSize };
}

/**
 * Scatter: workgroup `tile` loads its keys (and values), sorts them stably by the pass's digit
 * in workgroup memory with one split per bit (a workgroup scan of each invocation's zero
 * count; invocations hold consecutive keys, so ranks depend on no subgroup size), then writes
 * the key at sorted position i with digit d to `offsets[d * num_tiles + tile] + i - start[d]`.
 * Keys past the end become all-ones sentinels: they sort last in the tile and are not written.
 */
export function radixScatterKernel(o: RadixSortKernelOptions): Kernel {
  const K = rawType(o.key);
  const V = o.valueBytes === 8 ? 'vec2<u32>' : 'u32';
  const pairs = o.valueBytes !== 0;
  const bindings: BindingKind[] = ['uniform', 'read-only-storage', 'storage', 'read-only-storage'];
  if (pairs) bindings.push('read-only-storage', 'storage');
  const v = (s: string): string => (pairs ? s : '');
  const code = `${header(o)}
@group(0) @binding(1) var<storage, read> keys_in: array<${K}>;
@group(0) @binding(2) var<storage, read_write> keys_out: array<${K}>;
@group(0) @binding(3) var<storage, read> offsets: array<u32>;
${v(`@group(0) @binding(4) var<storage, read> vals_in: array<${V}>;
@group(0) @binding(5) var<storage, read_write> vals_out: array<${V}>;`)}
${keyFunctions(o.key, o.descending)}
var<workgroup> s_keys: array<${K}, TILE>;
${v(`var<workgroup> s_vals: array<${V}, TILE>;`)}
var<workgroup> s_scan: array<u32, WG>;
var<workgroup> s_start: array<u32, RADIX>;

@compute @workgroup_size(WG)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let tile = wid.x + wid.y * nwg.x;
  if (tile >= P.num_tiles) { return; }
  let base = tile * TILE;
  let valid = min(TILE, P.count - base);
  for (var k = 0u; k < IPT; k++) {
    let i = k * WG + lid;
    if (i < valid) {
      s_keys[i] = to_ordered(keys_in[base + i]);
      ${v('s_vals[i] = vals_in[base + i];')}
    } else {
      s_keys[i] = SENTINEL;
    }
  }
  workgroupBarrier();
  var ks: array<${K}, IPT>;
  ${v(`var vs: array<${V}, IPT>;`)}
  for (var j = 0u; j < IPT; j++) {
    ks[j] = s_keys[lid * IPT + j];
    ${v('vs[j] = s_vals[lid * IPT + j];')}
  }
  for (var b = 0u; b < P.pass_bits; b++) {
    let s = P.shift + b;
    var zeros = 0u;
    for (var j = 0u; j < IPT; j++) { zeros += 1u - bit_at(ks[j], s); }
    // Inclusive scan of the zero counts across the workgroup.
    s_scan[lid] = zeros;
    workgroupBarrier();
    for (var d = 1u; d < WG; d <<= 1u) {
      var y = 0u;
      if (lid >= d) { y = s_scan[lid - d]; }
      workgroupBarrier();
      if (lid >= d) { s_scan[lid] += y; }
      workgroupBarrier();
    }
    let total_zeros = s_scan[WG - 1u];
    var z = s_scan[lid] - zeros;
    // Every invocation has read the tile into registers (before the barriers above).
    for (var j = 0u; j < IPT; j++) {
      let i = lid * IPT + j;
      var pos = total_zeros + i - z;
      if (bit_at(ks[j], s) == 0u) { pos = z; z += 1u; }
      s_keys[pos] = ks[j];
      ${v('s_vals[pos] = vs[j];')}
    }
    workgroupBarrier();
    for (var j = 0u; j < IPT; j++) {
      ks[j] = s_keys[lid * IPT + j];
      ${v('vs[j] = s_vals[lid * IPT + j];')}
    }
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
      keys_out[dst] = from_ordered(key);
      ${v('vals_out[dst] = s_vals[i];')}
    }
  }
}
`;
  return { key: `radix-scatter:${keyOf(o)}`, label: `wgprim.radixSort.scatter.${o.key.name}`, code, bindings, workgroupSize: o.config.workgroupSize };
}
