// The merge tile kernel and its partition kernel: the merge passes of both sorts (pairs of
// sorted runs in one buffer) and the device merge (two sorted inputs), with the radix sort's
// bit order or a comparison.
import { type Kernel, LINEAR_WORKGROUP_ID, paramsStruct } from '../../runtime/kernel.js';
import { rawType } from '../../wgsl/thread/radix-key.js';
import { type TypeInfo } from '../../wgsl/types.js';
import { type BindingKind } from '../../wgsl/views.js';
import { blockedIndex, mergePathSearch, mergeSharedRunsInPlace } from '../../wgsl/workgroup/merge-path.js';
import { stagedTileLoad } from '../../wgsl/workgroup/tile.js';
import { keyAccess } from '../radix-sort/access.js';
import { orderEnables, orderFunctions, uniformOrderSetup } from './order.js';
import { accessors, halfKey, storeKeyPair, storeTile, tileLanes, valueType } from './tile-io.js';

/**
 * `runs`: the runs [2kL, (2k+1)L) and [(2k+1)L, (2k+2)L) of `count` elements (L = `run`)
 * merged pairwise; `two`: A (`run` elements) and B (`count - run`) in buffers of their own
 * merged into one output (one pair). `mask_lo`/`mask_hi`/`flip`: the bit order's. `tile`:
 * elements of one merge tile; `tiles`: merge tiles in all (`tiles_per_pair` per pair). One
 * uniform serves a pass's partition and merge.
 */
export const MERGE_PARAMS = ['count', 'run', 'tiles_per_pair', 'mask_lo', 'mask_hi', 'flip', 'tile', 'tiles'] as const;

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

/** What the partition kernel depends on. */
export type MergePartitionKernelOptions = Pick<MergeTileKernelOptions, 'key' | 'source' | 'order' | 'label' | 'keyPrefix'>;

/**
 * Read-only `load_key(e)` over a merge's keys from binding 1 on: `runs` one buffer; `two` A
 * below P.run and B from there, in buffers of their own.
 */
function keyInputs(key: TypeInfo, source: 'runs' | 'two'): { code: string; bindings: BindingKind[] } {
  const K = rawType(key);
  const half = key.bytes === 2;
  if (source === 'runs') {
    return half
      ? { code: `@group(0) @binding(1) var<storage, read> keys_in: array<u32>;\nfn load_key(e: u32) -> u32 { return ${halfKey('keys_in', 'e')}; }`, bindings: ['read-only-storage'] }
      : { code: keyAccess(key, false), bindings: ['read-only-storage'] };
  }
  const W = half ? 'u32' : K;
  const get = (arr: string, i: string): string => (half ? halfKey(arr, i) : `${arr}[${i}]`);
  return {
    code: `@group(0) @binding(1) var<storage, read> a_keys: array<${W}>;
@group(0) @binding(2) var<storage, read> b_keys: array<${W}>;
fn load_key(e: u32) -> ${K} { if (e < P.run) { return ${get('a_keys', 'e')}; } return ${get('b_keys', 'e - P.run')}; }`,
    bindings: ['read-only-storage', 'read-only-storage'],
  };
}

/** Two sorted inputs (`keyInputs`' two) and one output. */
function twoInputs(key: TypeInfo, valueBytes: 0 | 4 | 8): { code: string; bindings: BindingKind[] } {
  const K = rawType(key);
  const half = key.bytes === 2;
  const keys = keyInputs(key, 'two');
  let code = `${keys.code}
@group(0) @binding(3) var<storage, read_write> keys_out: array<${half ? 'u32' : K}>;
${half ? storeKeyPair('keys_out') : `fn store_key(e: u32, x: ${K}) { keys_out[e] = x; }`}`;
  const bindings: BindingKind[] = ['uniform', ...keys.bindings, 'storage'];
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

/** WGSL: merge tile `g`'s pair of runs, A = [a0, a1) and B = [a1, a1 + bn), and its first diagonal d0 (unclamped). */
function tilePair(source: 'runs' | 'two'): string {
  return `  let pair = g / P.tiles_per_pair;
  let a0 = pair * 2u * P.run;
  let a1 = min(a0 + P.run, P.count);
  let an = a1 - a0;
  let bn = ${source === 'two' ? 'P.count' : 'min(a1 + P.run, P.count)'} - a1;
  let d0 = (g % P.tiles_per_pair) * P.tile;`;
}

/** Invocations per workgroup of the partition kernel (one per merge tile). */
export const PARTITION_WORKGROUP = 128;

/**
 * The partition pass before each merge: one invocation per merge tile binary-searches the
 * tile's first diagonal on the merge path of its pair in global memory and writes how many of
 * A's elements precede it to `part` (tiles u32). All tiles search at once, so the log2(run)
 * dependent loads of each overlap, where a merge tile that searched its own bounds would wait
 * for them with its whole workgroup (CUB's and rocPRIM's partition kernels).
 */
export function mergePartitionKernel(o: MergePartitionKernelOptions): Kernel {
  const keys = keyInputs(o.key, o.source);
  const less = o.order === 'bits' ? undefined : o.order.less;
  const slot = 1 + keys.bindings.length;
  const code = `${orderEnables(o.key, less)}${paramsStruct(MERGE_PARAMS)}
@group(0) @binding(0) var<uniform> P: Params;
${keys.code}
@group(0) @binding(${slot}) var<storage, read_write> part: array<u32>;
${orderFunctions(o.key, less, o.order === 'bits')}

@compute @workgroup_size(${PARTITION_WORKGROUP})
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
${o.order === 'bits' ? uniformOrderSetup(o.key) : ''}
  let g = (${LINEAR_WORKGROUP_ID}) * ${PARTITION_WORKGROUP}u + lid;
  if (g >= P.tiles) { return; }
${tilePair(o.source)}
  let d = min(d0, an + bn);
${mergePathSearch('d', 'an', 'bn', (i, j) => `merge_less(order_in(load_key(a1 + ${j})), order_in(load_key(a0 + ${i})))`)}
  part[g] = lo;
}
`;
  return {
    key: [o.keyPrefix, 'partition', o.source, o.key.name, less === undefined ? 'bits' : `less:${less}`].join(':'),
    label: `${o.label}.partition.${o.key.name}`,
    code,
    bindings: ['uniform', ...keys.bindings, 'storage'],
    workgroupSize: PARTITION_WORKGROUP,
    ...(less !== undefined ? { userCode: true } : {}),
  };
}

/**
 * One output tile of MWG * MIPT elements of one pair of runs per workgroup: the tile's start
 * and end on the merge path from the partition pass (`mergePartitionKernel`), its slices of
 * both runs loaded coalesced into workgroup memory (in the order's form, `order_in`), each
 * invocation's share merged there (`mergeSharedRuns`), and the tile written out coalesced.
 * Stable: on equal keys A's first. Workgroup positions go through `blockedIndex`.
 */
export function mergeTileKernel(o: MergeTileKernelOptions): Kernel {
  const K = rawType(o.key);
  const V = valueType(o.valueBytes);
  const pairs = o.valueBytes !== 0;
  const MIPT = o.itemsPerThread;
  const v = (s: string): string => (pairs ? s : '');
  const io = o.source === 'two' ? twoInputs(o.key, o.valueBytes) : accessors(o.key, o.valueBytes, false, false);
  const less = o.order === 'bits' ? undefined : o.order.less;
  const at = blockedIndex(MIPT, o.workgroupSize * MIPT);
  // Where tile position i comes from: A's slice, then B's.
  const source = (i: string): string => `select(a1 + j0 + (${i} - na), a0 + i0 + ${i}, ${i} < na)`;
  const code = `${orderEnables(o.key, less)}${paramsStruct(MERGE_PARAMS)}
@group(0) @binding(0) var<uniform> P: Params;
${io.code}
@group(0) @binding(${io.bindings.length}) var<storage, read> part: array<u32>;
${orderFunctions(o.key, less, o.order === 'bits')}
const MWG = ${o.workgroupSize}u;
const MIPT = ${MIPT}u;
const MTILE = ${o.workgroupSize * MIPT}u;
var<workgroup> s_keys: array<${K}, MTILE>;
${v(`var<workgroup> s_vals: array<${V}, MTILE>;`)}

@compute @workgroup_size(MWG)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
${o.order === 'bits' ? uniformOrderSetup(o.key) : ''}
  let g = ${LINEAR_WORKGROUP_ID};
${tilePair(o.source)}
  if (d0 >= an + bn) { return; }
  let d1 = min(d0 + MTILE, an + bn);
  // The tile's bounds: A's elements before d0, and before d1 (the next tile's, or at the
  // pair's end all of A).
  let i0 = part[g];
  var i1 = an;
  if (d1 < an + bn) { i1 = part[g + 1u]; }
  let na = i1 - i0;
  let j0 = d0 - i0;
  let total = d1 - d0;
  let nb = total - na;
  // The tile's slices: A's at [0, na), B's at [na, total).
${stagedTileLoad('total', 'MWG', MIPT, tileLanes(K, o.valueBytes, source, at))}
  workgroupBarrier();
  let dd = min(lid * MIPT, total);
  let n = min(MIPT, total - dd);
${mergeSharedRunsInPlace({ keys: 's_keys', vals: pairs ? 's_vals' : undefined, aBase: '0u', bBase: 'na', na: 'na', nb: 'nb', diag: 'dd', size: 'MTILE', items: MIPT, K, V, less: (x, y) => `merge_less(${x}, ${y})`, at }, 'dd', 'n')}
${storeTile(o, 'total', 'a0 + d0', 'MWG', 'MIPT', { key: (x) => `order_out(${x})`, at })}
}
`;
  return {
    key: [o.keyPrefix, o.source, o.key.name, o.valueBytes, o.workgroupSize, MIPT, less === undefined ? 'bits' : `less:${less}`].join(':'),
    label: `${o.label}.${o.key.name}`,
    code,
    bindings: [...io.bindings, 'read-only-storage'],
    workgroupSize: o.workgroupSize,
    ...(less !== undefined ? { userCode: true } : {}),
  };
}
