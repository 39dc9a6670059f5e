// The merge tile kernel: the merge passes of both sorts (pairs of sorted runs in one buffer)
// and the device merge (two sorted inputs), with the radix sort's bit order or a comparison.
import { type Kernel, LINEAR_WORKGROUP_ID, paramsStruct } from '../../runtime/kernel.js';
import { rawType } from '../../wgsl/thread/radix-key.js';
import { unroll } from '../../wgsl/thread/unroll.js';
import { type TypeInfo } from '../../wgsl/types.js';
import { type BindingKind } from '../../wgsl/views.js';
import { mergePathSearch, mergeSharedRuns } from '../../wgsl/workgroup/merge-path.js';
import { orderEnables, orderFunctions, uniformOrderSetup } from './order.js';
import { accessors, storeTile, valueType } from './tile-io.js';

/**
 * `runs`: the runs [2kL, (2k+1)L) and [(2k+1)L, (2k+2)L) of `count` elements (L = `run`)
 * merged pairwise; `two`: A (`run` elements) and B (`count - run`) in buffers of their own
 * merged into one output (one pair). `mask_lo`/`mask_hi`/`flip`: the bit order's.
 */
export const MERGE_PARAMS = ['count', 'run', 'tiles_per_pair', 'mask_lo', 'mask_hi', 'flip'] as const;

export interface MergeTileKernelOptions {
  readonly key: TypeInfo;
  readonly valueBytes: 0 | 4 | 8;
  readonly workgroupSize: number;
  readonly itemsPerThread: number;
  readonly source: 'runs' | 'two';
  /**
   * A caller's WGSL `less` over a and b; `bits`: the radix sort's order under the uniform's
   * mask and flip (the merge sort's default order is it, with every bit and no flip).
   */
  readonly order: { readonly less: string } | 'bits';
  /** Label and cache-key prefix of the calling family (`wgprim.radixSort.merge`). */
  readonly label: string;
  readonly keyPrefix: string;
}

/** Two sorted inputs: `load_key(e)` reads A below P.run and B from there; one output. */
function twoInputs(key: TypeInfo, valueBytes: 0 | 4 | 8): { code: string; bindings: BindingKind[] } {
  const K = rawType(key);
  const half = key.bytes === 2;
  const W = half ? 'u32' : K;
  const get = (arr: string, i: string): string => (half ? `(${arr}[(${i}) >> 1u] >> (((${i}) & 1u) * 16u)) & 0xffffu` : `${arr}[${i}]`);
  let code = `@group(0) @binding(1) var<storage, read> a_keys: array<${W}>;
@group(0) @binding(2) var<storage, read> b_keys: array<${W}>;
@group(0) @binding(3) var<storage, read_write> keys_out: array<${W}>;
fn load_key(e: u32) -> ${K} { if (e < P.run) { return ${get('a_keys', 'e')}; } return ${get('b_keys', 'e - P.run')}; }
${half
    ? `fn store_key_pair(e: u32, lo: u32, hi: u32, both: bool) {
  if (both) { keys_out[e >> 1u] = lo | (hi << 16u); } else { keys_out[e >> 1u] = (keys_out[e >> 1u] & 0xffff0000u) | lo; }
}`
    : `fn store_key(e: u32, x: ${K}) { keys_out[e] = x; }`}`;
  const bindings: BindingKind[] = ['uniform', 'read-only-storage', 'read-only-storage', 'storage'];
  if (valueBytes !== 0) {
    const V = valueType(valueBytes);
    code += `
@group(0) @binding(4) var<storage, read> a_vals: array<${V}>;
@group(0) @binding(5) var<storage, read> b_vals: array<${V}>;
@group(0) @binding(6) var<storage, read_write> vals_out: array<${V}>;
fn load_val(e: u32) -> ${V} { if (e < P.run) { return a_vals[e]; } return b_vals[e - P.run]; }
fn store_val(e: u32, v: ${V}) { vals_out[e] = v; }`;
    bindings.push('read-only-storage', 'read-only-storage', 'storage');
  }
  return { code, bindings };
}

/**
 * One output tile of MWG * MIPT elements of one pair of runs per workgroup: the tile's start
 * and end on the merge path by binary search in global memory (the partition step, fused),
 * its slices of both runs loaded into workgroup memory, each invocation's share merged there
 * (`mergeSharedRuns`), and the tile written out coalesced. Stable: on equal keys A's first.
 */
export function mergeTileKernel(o: MergeTileKernelOptions): Kernel {
  const K = rawType(o.key);
  const V = valueType(o.valueBytes);
  const pairs = o.valueBytes !== 0;
  const MIPT = o.itemsPerThread;
  const v = (s: string): string => (pairs ? s : '');
  const io = o.source === 'two' ? twoInputs(o.key, o.valueBytes) : accessors(o.key, o.valueBytes, false, false);
  const less = o.order === 'bits' ? undefined : o.order.less;
  const code = `${orderEnables(o.key, less)}${paramsStruct(MERGE_PARAMS)}
@group(0) @binding(0) var<uniform> P: Params;
${io.code}
${orderFunctions(o.key, less, o.order === 'bits')}
const MWG = ${o.workgroupSize}u;
const MIPT = ${MIPT}u;
const MTILE = ${o.workgroupSize * MIPT}u;
var<workgroup> s_keys: array<${K}, MTILE>;
${v(`var<workgroup> s_vals: array<${V}, MTILE>;`)}
var<workgroup> s_bounds: array<u32, 2>;

// Elements of run A among the first d of the merged order (A = [a0, a0 + an), B = [b0, b0 + bn)).
fn merge_path(a0: u32, an: u32, b0: u32, bn: u32, d: u32) -> u32 {
${mergePathSearch('d', 'an', 'bn', (i, j) => `merge_less(load_key(b0 + ${j}), load_key(a0 + ${i}))`)}
  return lo;
}

@compute @workgroup_size(MWG)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
${o.order === 'bits' ? uniformOrderSetup(o.key) : ''}
  let g = ${LINEAR_WORKGROUP_ID};
  let pair = g / P.tiles_per_pair;
  let a0 = pair * 2u * P.run;
  if (a0 >= P.count) { return; }
  let a1 = min(a0 + P.run, P.count);
  let b1 = ${o.source === 'two' ? 'P.count' : 'min(a1 + P.run, P.count)'};
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
  let n = min(MIPT, total - dd);
${mergeSharedRuns({ keys: 's_keys', vals: pairs ? 's_vals' : undefined, aBase: '0u', bBase: 'na', na: 'na', nb: 'nb', diag: 'dd', n: 'n', items: MIPT, K, V, less: (x, y) => `merge_less(${x}, ${y})` })}
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
    key: [o.keyPrefix, o.source, o.key.name, o.valueBytes, o.workgroupSize, MIPT, less === undefined ? 'bits' : `less:${less}`].join(':'),
    label: `${o.label}.${o.key.name}`,
    code,
    bindings: io.bindings,
    workgroupSize: o.workgroupSize,
    ...(less !== undefined ? { userCode: true } : {}),
  };
}
