import { type Kernel, LINEAR_WORKGROUP_ID, paramsStruct } from '../../runtime/kernel.js';
import { indent, unroll } from '../../wgsl/thread/unroll.js';
import { sharedInclusiveSum } from '../../wgsl/workgroup/shared-scan.js';
import { type SearchComparison, searchComparisonWgsl, splitterTreeWgsl } from './kernel.js';

/**
 * Bucketing the needles before a search. Random needles send neighbouring invocations to far
 * apart keys at every step, and the cost of those loads grows with the haystack's footprint even
 * where it fits in L2 (an H100: 2^20 random needles took 0.09 ms in 2^20 keys, 0.2 ms in 2^22,
 * 0.3 in 2^24; the same needles sorted 0.04-0.06). So large calls first count the needles into
 * the 2^levels leaves of a splitter tree (the buckets: a contiguous stretch of the haystack each),
 * then write each needle's index into its bucket's share of a permutation; the search takes the
 * needles in that order, so a workgroup's needles fall in a bucket or two.
 */
export const BUCKET_PARAMS = ['hay_count', 'needle_count', 'num_tiles', 'sub_tiles'] as const;

/**
 * The bucket passes' own launch shape, not the search's: a workgroup takes `subTiles` sub-tiles
 * of 256 x needlesPerThread needles, so that at most about BUCKET_WORKGROUPS workgroups add their
 * counts to the global ones (an atomic a bucket a workgroup). On an H100 (2^20 needles) the
 * passes' time grew with the buckets and with twice the workgroups (8 needles an invocation:
 * 0.034 and 0.053 ms against 0.024 and 0.043); two sub-tiles a workgroup instead of one timed
 * the same. 16 needles an invocation on GPUs; 2 on CPU adapters, which bucket only when a call
 * asks and compile unrolled code slowly.
 */
export const BUCKET_WORKGROUP = 256;
export const BUCKET_WORKGROUPS = 128;
export const bucketNeedlesPerThread = (software: boolean): number => (software ? 2 : 16);

/** Sub-tiles a bucket workgroup takes, and the workgroups, for `needles`. */
export function bucketGrid(needles: number, needlesPerThread: number): { readonly subTiles: number; readonly workgroups: number } {
  const subTile = BUCKET_WORKGROUP * needlesPerThread;
  const subTiles = Math.max(1, Math.ceil(needles / (subTile * BUCKET_WORKGROUPS)));
  return { subTiles, workgroups: Math.ceil(needles / (subTile * subTiles)) };
}

/** Workgroup memory of the scatter pass: the tree, the bins, and a word an invocation to scan them. */
export const bucketWorkgroupBytes = (levels: number, pivotBytes: number): number => (1 << levels) * (pivotBytes + 4) + 4 * BUCKET_WORKGROUP;

export interface BucketKernelOptions extends SearchComparison {
  /** Tree levels (2^levels buckets, at most the haystack's keys), fixed at compile time. */
  readonly levels: number;
  readonly needlesPerThread: number;
  /** `count`: per bucket, its needles (atomic adds into `state[0, 2^levels)`); `scatter`: each needle's index to its bucket's next free place in `perm`. */
  readonly phase: 'count' | 'scatter';
}

/**
 * Both passes walk every needle down the tree (its leaf: the bucket) and count a workgroup's
 * needles per bucket in workgroup memory. The count pass then adds them to the global counts.
 * The scatter pass scans the global counts into bucket starts, claims each bucket's run of places
 * with one atomic add on its cursor (`state[2^levels + b]`), then walks its needles again, each
 * taking the next place of its bucket's run (an atomic add in workgroup memory) for its index.
 * Within a bucket the order is whatever the atomics make it: answers do not depend on it. The
 * search zeroes the state after, for the next call (so no clear before).
 */
export function bucketKernel(o: BucketKernelOptions): Kernel {
  const WG = BUCKET_WORKGROUP;
  const NPT = o.needlesPerThread;
  const B = 1 << o.levels;
  // Bins an invocation owns: consecutive ones (the scan's runs); 1 where there are fewer bins than invocations.
  const PER = Math.max(1, B / WG);
  const scatter = o.phase === 'scatter';
  const { C, code: order } = searchComparisonWgsl(o, 1, 2);
  const tree = splitterTreeWgsl(C, o.levels, 'LEVELS');
  const each = (body: string): string => indent(unroll(NPT, 'k', body), '  ');
  const bins = (body: string): string => indent(unroll(PER, 'j', `  let b = lid * PER + j;\n  if (b < BUCKETS) {\n  ${body}\n  }`), '  ');
  // Every sub-tile of the workgroup's needles, with bucket[k] of needle e(k).
  const subTiles = (body: string): string => `  for (var r = 0u; r < P.sub_tiles; r++) {
    let first = (tile * P.sub_tiles + r) * (WG * NPT) + lid;
    let bucket = buckets_of(first);
${indent(each(`  let e = first + k * WG;
  if (e < P.needle_count) { ${body} }`), '  ')}
  }`;
  const code = `${paramsStruct(BUCKET_PARAMS)}
@group(0) @binding(0) var<uniform> P: Params;
${order}
@group(0) @binding(3) var<storage, read_write> state: array<atomic<u32>>;
${scatter ? '@group(0) @binding(4) var<storage, read_write> perm: array<u32>;' : ''}
const WG = ${WG}u;
const NPT = ${NPT}u;
const LEVELS = ${o.levels}u;
const BUCKETS = ${B}u;
const PER = ${PER}u;
${tree.decls}
// Per bucket: this workgroup's needles; in the scatter's second walk, the next place of its run.
var<workgroup> bins: array<atomic<u32>, BUCKETS>;
${scatter ? 'var<workgroup> sums: array<u32, WG>;' : ''}

// The buckets of needles first, first + WG, ... (NPT of them, walked down the tree in lockstep).
fn buckets_of(first: u32) -> array<u32, NPT> {
  var x: array<${C}, NPT>;
  var node: array<u32, NPT>;
${each(`  x[k] = key_of(needles_raw(min(first + k * WG, P.needle_count - 1u)));
  node[k] = 1u;`)}
  for (var s = 0u; s < LEVELS; s++) {
${indent(each(tree.step('x[k]', 'node[k]')), '  ')}
  }
${each('  node[k] -= BUCKETS;')}
  return node;
}

@compute @workgroup_size(WG)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let tile = ${LINEAR_WORKGROUP_ID};
  if (tile >= P.num_tiles) { return; }
${bins('atomicStore(&bins[b], 0u);')}
${indent(tree.build, '  ')}
${subTiles('atomicAdd(&bins[bucket[k]], 1u);')}
${scatter ? `  // Bucket starts: each invocation sums its run of buckets, the runs are scanned, then spread back.
  var counts: array<u32, PER>;
  var total = 0u;
${bins('counts[j] = atomicLoad(&state[b]);\n  total += counts[j];')}
  sums[lid] = total;
  workgroupBarrier();
${sharedInclusiveSum('sums', 'lid', 'WG')}
  var at = sums[lid] - total;
  // This workgroup's run of each bucket: the bucket's start plus what earlier claims took.
${bins('let n = atomicLoad(&bins[b]);\n  atomicStore(&bins[b], at + select(0u, atomicAdd(&state[BUCKETS + b], n), n > 0u));\n  at += counts[j];')}
  workgroupBarrier();
${subTiles('perm[atomicAdd(&bins[bucket[k]], 1u)] = e;')}`
    : `  workgroupBarrier();
${bins('let n = atomicLoad(&bins[b]);\n  if (n > 0u) { atomicAdd(&state[b], n); }')}`}
}
`;
  const key = ['search-buckets', o.phase, o.kind, o.type.name, o.levels, NPT, o.less ?? '-'].join(':');
  return {
    key, label: `wgprim.search-buckets.${o.phase}.${o.type.name}`, code,
    bindings: ['uniform', 'read-only-storage', 'read-only-storage', 'storage', ...(scatter ? ['storage' as const] : [])],
    workgroupSize: WG, userCode: o.less !== undefined,
  };
}
