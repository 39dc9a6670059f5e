// The merge tile kernel and its partition kernel: the merge passes of both sorts (pairs of
// sorted runs in one buffer) and the device merge (two sorted inputs), with the radix sort's
// bit order or a comparison.
import { type Kernel, LINEAR_WORKGROUP_ID, paramsStruct } from '../../runtime/kernel.js';
import { rawType } from '../../wgsl/thread/radix-key.js';
import { type TypeInfo } from '../../wgsl/types.js';
import { type BindingKind } from '../../wgsl/views.js';
import { blockedIndex, cooperativeMergePathSearch, mergePathSearch, mergeSharedRunsInPlace } from '../../wgsl/workgroup/merge-path.js';
import { stagedLoads, stagedRegisters, stagedStores } from '../../wgsl/workgroup/tile.js';
import { keyAccess } from '../radix-sort/access.js';
import { orderEnables, orderFunctions, uniformOrderSetup } from './order.js';
import { accessors, halfKey, storeKeyPair, storeTile, tileLanes, valueType } from './tile-io.js';

/**
 * `runs`: the runs [2kL, (2k+1)L) and [(2k+1)L, (2k+2)L) of `count` elements (L = `run`)
 * merged pairwise; `two`: A (`run` elements) and B (`count - run`) in buffers of their own
 * merged into one output (one pair). `mask_lo`/`mask_hi`/`flip`: the bit order's. `tile`:
 * elements of one merge tile; `tiles`: merge tiles in all (`tiles_per_pair` per pair);
 * `groups`: the merge's workgroups (each takes every groups-th tile); `lanes_log2`: invocations
 * a tile of the cooperative partition. One uniform serves a pass's partition and merge.
 */
export const MERGE_PARAMS = ['count', 'run', 'tiles_per_pair', 'mask_lo', 'mask_hi', 'flip', 'tile', 'tiles', 'groups', 'lanes_log2'] as const;

export interface MergeTileKernelOptions {
  readonly key: TypeInfo;
  readonly valueBytes: 0 | 4 | 8;
  readonly workgroupSize: number;
  readonly itemsPerThread: number;
  /**
   * A workgroup takes several tiles in turn (`groups` of them, fewer than the tiles), each
   * tile's loads issued while the one before merges; else a workgroup a tile.
   */
  readonly pipelined: boolean;
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

/**
 * What the partition kernel depends on; `cooperative`: each tile searched by 2^P.lanes_log2
 * invocations together, else by one.
 */
export type MergePartitionKernelOptions = Pick<MergeTileKernelOptions, 'key' | 'source' | 'order' | 'label' | 'keyPrefix'> & { readonly cooperative: boolean };

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

/** Invocations per workgroup of the partition kernel. */
export const PARTITION_WORKGROUP = 128;

/**
 * Invocations a tile of the cooperative partition (log2): up to `maxLanes` (a power of two, at
 * most 32), as many as keep the searches within 64k invocations: where tiles are few (2^24 u32 in
 * tiles of 2,816: 6k searches of 23 dependent steps each) a group's (L+1)-ary search takes
 * log_(L+1) steps; where they fill the GPU (2^28: 95k) one a tile, since a shared search only
 * adds loads there.
 */
export function partitionLanesLog2(tiles: number, maxLanes: number): number {
  let k = 0;
  while (2 ** (k + 1) <= maxLanes && tiles * 2 ** (k + 1) <= 65536) k++;
  return k;
}

/**
 * The partition pass before each merge: each merge tile's first diagonal searched on the merge
 * path of its pair in global memory, by one invocation (binary) or (`cooperative`) by a group of
 * 2^P.lanes_log2 (`cooperativeMergePathSearch`), writing how many of A's elements precede it to
 * `part` (tiles u32). All tiles search at once, so the dependent loads of each overlap, where a
 * merge tile that searched its own bounds would wait for them with its whole workgroup (CUB's
 * and rocPRIM's partition kernels).
 */
export function mergePartitionKernel(o: MergePartitionKernelOptions): Kernel {
  const keys = keyInputs(o.key, o.source);
  const less = o.order === 'bits' ? undefined : o.order.less;
  const slot = 1 + keys.bindings.length;
  const bBeforeA = (i: string, j: string): string => `merge_less(order_in(load_key(a1 + ${j})), order_in(load_key(a0 + ${i})))`;
  const search = o.cooperative
    ? `  let lanes = 1u << P.lanes_log2;
  let group = lid >> P.lanes_log2;
  let first = group << P.lanes_log2;
  let tile = (${LINEAR_WORKGROUP_ID}) * (${PARTITION_WORKGROUP}u >> P.lanes_log2) + group;
  // Past the last tile a group searches the last one again (every invocation takes every step).
  let g = min(tile, P.tiles - 1u);
${tilePair(o.source)}
  let d = min(d0, an + bn);
${cooperativeMergePathSearch({ diag: 'd', aCount: 'an', bCount: 'bn', lanes: 'lanes', lane: 'lid - first', first: 'first', scratch: 'probes', bound: 'P.run', bBeforeA })}
  if (tile < P.tiles && lid == first) { part[g] = lo; }`
    : `  let g = (${LINEAR_WORKGROUP_ID}) * ${PARTITION_WORKGROUP}u + lid;
  if (g >= P.tiles) { return; }
${tilePair(o.source)}
  let d = min(d0, an + bn);
${mergePathSearch('d', 'an', 'bn', bBeforeA)}
  part[g] = lo;`;
  const code = `${orderEnables(o.key, less)}${paramsStruct(MERGE_PARAMS)}
@group(0) @binding(0) var<uniform> P: Params;
${keys.code}
@group(0) @binding(${slot}) var<storage, read_write> part: array<u32>;
${orderFunctions(o.key, less, o.order === 'bits')}
${o.cooperative ? `var<workgroup> probes: array<u32, ${PARTITION_WORKGROUP}>;` : ''}

@compute @workgroup_size(${PARTITION_WORKGROUP})
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
${o.order === 'bits' ? uniformOrderSetup(o.key) : ''}
${search}
}
`;
  return {
    key: [o.keyPrefix, o.cooperative ? 'partition-cooperative' : 'partition', o.source, o.key.name, less === undefined ? 'bits' : `less:${less}`].join(':'),
    label: `${o.label}.partition.${o.key.name}`,
    code,
    bindings: ['uniform', ...keys.bindings, 'storage'],
    workgroupSize: PARTITION_WORKGROUP,
    ...(less !== undefined ? { userCode: true } : {}),
  };
}

/**
 * Output tiles of MWG * MIPT elements of one pair of runs: a tile's start and end on the merge
 * path from the partition pass (`mergePartitionKernel`), its slices of both runs loaded
 * coalesced into workgroup memory (in the order's form, `order_in`), each invocation's share
 * merged there (`mergeSharedRuns`), and the tile written out coalesced. A workgroup a tile, or
 * (`pipelined`) a workgroup taking every P.groups-th tile in turn, software-pipelined: the next
 * tile's loads go out into registers before this tile merges, and the bounds of the one after
 * it, so that a workgroup does not wait for a tile's bounds and then its loads with nothing to
 * do (on an H100 at 2^28, a workgroup a tile spent 0.21 of its 0.95 ms on its bounds' load).
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
  // Tile t's position i comes from A's slice, then B's.
  const lanes = tileLanes(K, o.valueBytes, (i) => `select(t.b + (${i} - t.na), t.a + ${i}, ${i} < t.na)`, at);
  // Tile t's loads into the staging registers (an empty tile, the last pair's, reads its first
  // element, and stores nothing).
  const load = (tile: string): string => `  {
    let t = ${tile};
${stagedLoads('max(t.total, 1u)', 'MWG', MIPT, lanes)}
  }`;
  // Tile t's staged elements into workgroup memory.
  const stage = (t: string): string => `${stagedStores(`${t}.total`, 'MWG', MIPT, lanes)}
  workgroupBarrier();`;
  // Tile t, in workgroup memory, merged there and written out.
  const merge = (t: string): string => `  {
    let na = ${t}.na;
    let nb = ${t}.total - na;
    let dd = min(lid * MIPT, ${t}.total);
    let n = min(MIPT, ${t}.total - dd);
${mergeSharedRunsInPlace({ keys: 's_keys', vals: pairs ? 's_vals' : undefined, aBase: '0u', bBase: 'na', na: 'na', nb: 'nb', diag: 'dd', size: 'MTILE', items: MIPT, K, V, less: (x, y) => `merge_less(${x}, ${y})`, at }, 'dd', 'n')}
  }
  {
    let total = ${t}.total;
    let out = ${t}.out;
${storeTile(o, 'total', 'out', 'MWG', 'MIPT', { key: (x) => `order_out(${x})`, at })}
  }`;
  const body = o.pipelined
    ? `  // Past its last tile a workgroup takes its own again (cached) rather than branch.
  var cur = merge_tile(g);
  var next = merge_tile(select(g, g + P.groups, g + P.groups < P.tiles));
${load('cur')}
  loop {
    workgroupBarrier();
    let tile = cur;
${stage('tile')}
    // The next tile's loads go out now and land while this one merges; the bounds of the one
    // after it too.
${load('next')}
    let after = merge_tile(select(g, g + 2u * P.groups, g + 2u * P.groups < P.tiles));
${merge('tile')}
    g += P.groups;
    if (g >= P.tiles) { break; }
    cur = next;
    next = after;
  }`
    : `  let tile = merge_tile(g);
  if (tile.total == 0u) { return; }
${load('tile')}
${stage('tile')}
${merge('tile')}`;
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

/** A merge tile: its first output, where its slices of A and B start, A's count and the tile's. */
struct MergeTile { out: u32, a: u32, b: u32, na: u32, total: u32 }

fn merge_tile(g: u32) -> MergeTile {
${tilePair(o.source)}
  let d = min(d0, an + bn);
  let d1 = min(d0 + MTILE, an + bn);
  // A's elements before d0, and before d1 (the next tile's bound, or at the pair's end all of A).
  let i0 = part[g];
  let i1 = select(an, part[min(g + 1u, P.tiles - 1u)], d1 < an + bn);
  return MergeTile(a0 + d, a0 + i0, a1 + d - i0, i1 - i0, d1 - d);
}

@compute @workgroup_size(MWG)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
${o.order === 'bits' ? uniformOrderSetup(o.key) : ''}
  var g = ${LINEAR_WORKGROUP_ID};
  if (g >= P.tiles) { return; }
${stagedRegisters(MIPT, lanes)}
${body}
}
`;
  return {
    key: [o.keyPrefix, o.source, o.key.name, o.valueBytes, o.workgroupSize, MIPT, o.pipelined ? 'pipelined' : 'tile', less === undefined ? 'bits' : `less:${less}`].join(':'),
    label: `${o.label}.${o.key.name}`,
    code,
    bindings: [...io.bindings, 'read-only-storage'],
    workgroupSize: o.workgroupSize,
    ...(less !== undefined ? { userCode: true } : {}),
  };
}
