// The merge sort's block sort: each workgroup sorts one tile in workgroup memory by a
// comparison (a caller's `less`, or the radix sort's total order).
import { type Kernel, LINEAR_WORKGROUP_ID, paramsStruct } from '../../runtime/kernel.js';
import { rawType } from '../../wgsl/thread/radix-key.js';
import { unroll } from '../../wgsl/thread/unroll.js';
import { type TypeInfo } from '../../wgsl/types.js';
import { blockedIndex, mergeSharedRunsInPlace } from '../../wgsl/workgroup/merge-path.js';
import { stagedTileLoad } from '../../wgsl/workgroup/tile.js';
import { orderEnables, orderFunctions } from '../merge/order.js';
import { accessors, storeTile, tileLanes, valueType } from '../merge/tile-io.js';
import { type MergeSortBlockSortConfig } from './config.js';

export const BLOCK_SORT_PARAMS = ['count', 'num_tiles'] as const;

export interface MergeBlockSortKernelOptions {
  readonly key: TypeInfo;
  readonly valueBytes: 0 | 4 | 8;
  readonly config: MergeSortBlockSortConfig;
  readonly less: string | undefined;
  /** One read-write binding for input and output (the tile is read completely before it is written). */
  readonly keysInPlace: boolean;
  readonly valuesInPlace: boolean;
}

/**
 * A stable odd-even transposition sort of the first `n` of `ks` (`vs`): IPT rounds of
 * compare-exchanges of neighbours, which swap only a pair strictly out of order.
 */
function registerSort(items: number, pairs: boolean): string {
  const steps: string[] = [];
  for (let r = 0; r < items; r++) {
    for (let j = r % 2; j + 1 < items; j += 2) {
      steps.push(`  if (${j + 1}u < n && merge_less(ks[${j + 1}], ks[${j}])) {
    let tk = ks[${j}]; ks[${j}] = ks[${j + 1}]; ks[${j + 1}] = tk;
    ${pairs ? `let tv = vs[${j}]; vs[${j}] = vs[${j + 1}]; vs[${j + 1}] = tv;` : ''}
  }`);
    }
  }
  return steps.join('\n');
}

/**
 * Sorts tile `wid` of WG * IPT elements (fewer in the last tile: `valid`), stably: loaded
 * coalesced into workgroup memory (in the order's form, `order_in`; positions through
 * `blockedIndex`), each invocation sorts its IPT consecutive elements in
 * registers, then rounds of runs of IPT, 2 IPT, ... elements merged pairwise in workgroup
 * memory (`mergeSharedRuns`, each invocation making IPT outputs), then written out coalesced.
 * Nothing past `valid` is compared, so any `less` works without a sentinel key.
 */
export function mergeBlockSortKernel(o: MergeBlockSortKernelOptions): Kernel {
  const c = o.config;
  const K = rawType(o.key);
  const V = valueType(o.valueBytes);
  const pairs = o.valueBytes !== 0;
  const IPT = c.itemsPerThread;
  const v = (s: string): string => (pairs ? s : '');
  const io = accessors(o.key, o.valueBytes, o.keysInPlace, o.valuesInPlace);
  const inPlace = o.keysInPlace || (pairs && o.valuesInPlace);
  const at = blockedIndex(IPT, c.workgroupSize * IPT);
  const code = `${orderEnables(o.key, o.less)}${paramsStruct(BLOCK_SORT_PARAMS)}
@group(0) @binding(0) var<uniform> P: Params;
${io.code}
${orderFunctions(o.key, o.less)}
const WG = ${c.workgroupSize}u;
const IPT = ${IPT}u;
const TILE = ${c.workgroupSize * IPT}u;
var<workgroup> s_keys: array<${K}, TILE>;
${v(`var<workgroup> s_vals: array<${V}, TILE>;`)}

@compute @workgroup_size(WG)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let tile = ${LINEAR_WORKGROUP_ID};
  if (tile >= P.num_tiles) { return; }
  let base = tile * TILE;
  let valid = min(TILE, P.count - base);
${stagedTileLoad('valid', 'WG', IPT, tileLanes(K, o.valueBytes, (i) => `base + ${i}`, at))}
  workgroupBarrier();
  // This invocation's IPT consecutive elements, sorted in registers and put back. All IPT are
  // read (unguarded, so the reads go out together); those past n are never compared or stored.
  let first = lid * IPT;
  let n = select(0u, min(IPT, valid - first), first < valid);
  var ks: array<${K}, IPT>;
  ${v(`var vs: array<${V}, IPT>;`)}
${unroll(IPT, 'j', `  ks[j] = s_keys[${at('first + j')}];
  ${v(`vs[j] = s_vals[${at('first + j')}];`)}`)}
${registerSort(IPT, pairs)}
${unroll(IPT, 'j', `  if (j < n) {
    s_keys[${at('first + j')}] = ks[j];
    ${v(`s_vals[${at('first + j')}] = vs[j];`)}
  }`)}
  workgroupBarrier();
  // Runs of w sorted elements become runs of 2w: the invocation making positions first ..
  // first + IPT - 1 of the pair of runs that starts at p0.
  for (var w = IPT; w < valid; w = w * 2u) {
    let p0 = min((first / (2u * w)) * (2u * w), valid);
    let a1 = min(p0 + w, valid);
    let b1 = min(a1 + w, valid);
    let na = a1 - p0;
    let nb = b1 - a1;
    let diag = min(first - p0, na + nb);
    let m = min(IPT, na + nb - diag);
${mergeSharedRunsInPlace({ keys: 's_keys', vals: pairs ? 's_vals' : undefined, aBase: 'p0', bBase: 'a1', na: 'na', nb: 'nb', diag: 'diag', size: 'TILE', items: IPT, K, V, less: (x, y) => `merge_less(${x}, ${y})`, at }, 'first', 'm')}
  }
  ${inPlace ? '// In place: every read of the tile is done before any write.\n  storageBarrier();' : ''}
${storeTile(o, 'valid', 'base', 'WG', 'IPT', { key: (x) => `order_out(${x})`, at })}
}
`;
  const variant = `${o.keysInPlace ? 'k' : ''}${o.valuesInPlace ? 'v' : ''}`;
  return {
    key: ['merge-block-sort', o.key.name, o.valueBytes, variant, c.workgroupSize, IPT, o.less === undefined ? 'order' : `less:${o.less}`].join(':'),
    label: `wgprim.mergeSort.blockSort.${o.key.name}`,
    code,
    bindings: io.bindings,
    workgroupSize: c.workgroupSize,
    ...(o.less !== undefined ? { userCode: true } : {}),
  };
}
