import { type Kernel, paramsStruct } from '../../runtime/kernel.js';
import { FLOAT_LIMIT_BITS, type ResolvedOperator } from '../../wgsl/operators.js';
import { type TypeInfo, typeInfo } from '../../wgsl/types.js';
import { typesHeader } from '../../wgsl/prelude.js';
import { workgroupScanFn } from '../../wgsl/workgroup/scan.js';
import { MARK_BEGIN, MARK_GAP, PAIR_OPERATOR, pairFns, pairWords } from './kernel.js';

const PARTIALS_WG = 256;

/**
 * Reduce-then-scan's middle pass for the by-key engine: one workgroup turns the tiles' pairs in
 * `partials` into their exclusive segmented scan, in place, a workgroup-sized chunk at a time
 * with a running carry (the scan's `carry` pass, over pairs).
 */
export function pairPartialsKernel(v: TypeInfo, op: ResolvedOperator, gaps: boolean): Kernel {
  const P = `vec${pairWords(v)}<u32>`;
  const code = `${typesHeader([v])}
${v.isFloat ? FLOAT_LIMIT_BITS : ''}
${pairFns(v, op, gaps)}
${paramsStruct(['count'])}
@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read_write> partials: array<${P}>;
${workgroupScanFn({ type: { ...typeInfo('u64'), wgsl: P }, op: PAIR_OPERATOR, method: 'shared', workgroupSize: PARTIALS_WG, subgroupMinSize: 1 })}

@compute @workgroup_size(WG)
fn main(@builtin(local_invocation_index) lid: u32) {
  var carry = identity();
  for (var b = 0u; b < P.count; b += WG) {
    let i = b + lid;
    var x = identity();
    if (i < P.count) { x = partials[i]; }
    let s = wg_scan(x, lid);
    if (i < P.count) { partials[i] = op(carry, s.exclusive); }
    carry = op(carry, s.aggregate);
  }
}
`;
  const key = ['bykey-partials', v.name, op.key, gaps ? 'gaps' : ''].join(':');
  return { key, label: `wgprim.bykey.partials.${v.name}`, code, bindings: ['uniform', 'storage'], workgroupSize: PARTIALS_WG, userCode: op.custom };
}

export const MARKS_WG = 256;

/**
 * Offsets to marks, one invocation a segment: its first element gets MARK_BEGIN, the element
 * after its end MARK_GAP (an element outside every segment starts a gap, unless a segment begins
 * there). Offsets past `count` are clamped; an empty segment marks nothing. Segment i ends at
 * `ends[i]`, or without end offsets at `begins[i + 1]` (`P.shift` 1).
 */
export function marksKernel(): Kernel {
  const code = `${paramsStruct(['segments', 'count', 'shift'])}
@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read> begins: array<u32>;
@group(0) @binding(2) var<storage, read> ends: array<u32>;
@group(0) @binding(3) var<storage, read_write> marks: array<atomic<u32>>;

@compute @workgroup_size(${MARKS_WG})
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = gid.x + gid.y * nwg.x * ${MARKS_WG}u;
  if (i >= P.segments) { return; }
  let e = min(ends[i + P.shift], P.count);
  let b = min(begins[i], e);
  if (b < e) {
    atomicOr(&marks[b], ${MARK_BEGIN}u);
    if (e < P.count) { atomicOr(&marks[e], ${MARK_GAP}u); }
  }
}
`;
  return { key: 'bykey-marks', label: 'wgprim.bykey.marks', code, bindings: ['uniform', 'read-only-storage', 'read-only-storage', 'storage'], workgroupSize: MARKS_WG };
}

export const TILE_FIRST_WG = 256;

/**
 * For non-decreasing begin offsets (segments + 1 entries): invocation t <= num_tiles writes the
 * first begin index at or past tile t's first element (lower bound, by binary search), so tile t's
 * begins are entries [out[t], out[t + 1]); then out[num_tiles + 1] and out[num_tiles + 2], the
 * covered range [min(begins[0], count), min(begins[segments], count)). A pass of num_tiles + 3
 * invocations in place of a flag per element.
 */
export function tileFirstKernel(tile: number): Kernel {
  const code = `${paramsStruct(['segments', 'count', 'num_tiles'])}
@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read> begins: array<u32>;
@group(0) @binding(2) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(${TILE_FIRST_WG})
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let t = gid.x + gid.y * nwg.x * ${TILE_FIRST_WG}u;
  if (t > P.num_tiles + 2u) { return; }
  if (t > P.num_tiles) {
    out[t] = min(begins[select(P.segments, 0u, t == P.num_tiles + 1u)], P.count);
    return;
  }
  let x = select(t * ${tile}u, P.count, t == P.num_tiles);
  var lo = 0u;
  var hi = P.segments + 1u;
  while (lo < hi) {
    let mid = lo + (hi - lo) / 2u;
    if (begins[mid] < x) { lo = mid + 1u; } else { hi = mid; }
  }
  out[t] = lo;
}
`;
  return { key: `bykey-tile-first:${tile}`, label: 'wgprim.bykey.tile_first', code, bindings: ['uniform', 'read-only-storage', 'storage'], workgroupSize: TILE_FIRST_WG };
}
