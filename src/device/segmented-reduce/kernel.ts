import { type Kernel, LINEAR_WORKGROUP_ID, paramsStruct } from '../../runtime/kernel.js';
import { type ResolvedOperator } from '../../wgsl/operators.js';
import { prelude, quadTileConstants } from '../../wgsl/prelude.js';
import { SUBGROUP_BUILTINS } from '../../wgsl/subgroup/id.js';
import { subgroupReduceSharedFn } from '../../wgsl/subgroup/reduce.js';
import { quadReduce } from '../../wgsl/thread/reduce.js';
import { unroll } from '../../wgsl/thread/unroll.js';
import { fromWords, type TypeInfo } from '../../wgsl/types.js';
import { type BindingKind, scatterOutputWgsl, viewBindings, viewWgsl } from '../../wgsl/views.js';
import { workgroupReduce, workgroupReduceDecls } from '../../wgsl/workgroup/reduce.js';
import { subgroupIdsOrSelf } from '../../wgsl/workgroup/scan.js';
import { type ReduceConfig } from '../reduce/config.js';

export const SEGMENTED_REDUCE_PARAMS = ['segments', 'count', 'shift', 'in_tail', 'out_tail', 'has_init', 'init_lo', 'init_hi', 'parts'] as const;

/** The call's initial value, from the uniform's words (WGSL). */
const initialValue = (t: TypeInfo): string => fromWords(t, 'vec2<u32>(P.init_lo, P.init_hi)');

/**
 * Who reduces a segment: a workgroup (rocPRIM's one workgroup a segment, for long segments), a
 * group of GROUP_WIDTH invocations with several segments a workgroup, for short ones (CUB's
 * medium policy: a workgroup's launch is spread over several segments), or several workgroups
 * (`split`: `parts` workgroups a segment, each folding an equal share into a partial, then one
 * invocation a segment folding its partials), for segments too few to fill the GPU.
 */
export type SegmentedReducePath = 'workgroup' | 'group' | 'split';

/** Invocations of a group of the group path (a power of two, at most reduce's smallest workgroup). */
export const GROUP_WIDTH = 32;

/**
 * Segments a workgroup of the group path takes: one a group of GROUP_WIDTH invocations, which
 * reduce through workgroup memory. Not a subgroup a segment: on SwiftShader (subgroups of 4)
 * only the first subgroup's segments came out right, where groups in workgroup memory are right
 * on every adapter tested.
 */
const groupWidth = (c: ReduceConfig): number => Math.min(GROUP_WIDTH, c.workgroupSize);
export const segmentsPerWorkgroup = (c: ReduceConfig): number => c.workgroupSize / groupWidth(c);

/**
 * Statements folding segment [b, e) into `acc`, `width` invocations taking part as `lane`: the
 * unaligned head and the rest past the last whole quad before the input's tail element by element,
 * the quads between as 16-byte loads, Q a lane at a time, all issued before they are combined.
 */
function segmentFold(T: string, Q: number, lane: string, width: string): string {
  return `
    let ab = min(b + ((4u - (b & 3u)) & 3u), e);
    let ae = max(ab, min(e, P.in_tail) & ~3u);
    if (b + ${lane} < ab) { acc = op(acc, in_at(b + ${lane})); }
    for (var q0 = ab / 4u + ${lane}; q0 < ae / 4u; q0 += ${width} * Q) {
      var items: array<array<${T}, 4>, Q>;
${unroll(Q, 'k', `      let q = q0 + k * ${width};
      if (q < ae / 4u) { items[k] = in_quad(q); } else { items[k] = array<${T}, 4>(identity(), identity(), identity(), identity()); }`)}
${unroll(Q, 'k', '      acc = op(acc, quad_reduce(items[k]));')}
    }
    for (var i = ae + ${lane}; i < e; i += ${width}) { acc = op(acc, in_at(i)); }`;
}

/**
 * The segmented reduce. Segment i is [begins[i], ends[i + shift]) clamped to `count` (shift 1:
 * begins has segments + 1 entries). Operators are assumed commutative, as the device reduce
 * assumes. A segment's result is op(initial value, total), an empty segment's the initial value
 * alone (or the identity).
 * - `workgroup`: workgroup `seg` folds its segment with a stride of the workgroup, then reduces
 *   across it (src/wgsl/workgroup/reduce.ts).
 * - `group`: workgroup w takes segments w * SPW .. w * SPW + SPW - 1, each group of invocations
 *   one at a time, reduced across the group in workgroup memory.
 * - `split`: as `workgroup`, over one of a segment's `parts` shares, into partials that
 *   `segmentedReducePartsKernel` folds.
 */
export function segmentedReduceKernel(t: TypeInfo, op: ResolvedOperator, c: ReduceConfig, path: SegmentedReducePath): Kernel {
  // The group path reduces in workgroup memory whatever the config's workgroupReduce.
  const sub = c.workgroupReduce === 'subgroup' && path !== 'group';
  const WG = c.workgroupSize;
  const T = t.wgsl;
  const bindings: BindingKind[] = ['uniform', ...viewBindings({ access: 'read' }), 'read-only-storage', 'read-only-storage'];
  const out = scatterOutputWgsl('out', t, 'P.out_tail', 5, bindings);
  const spw = segmentsPerWorkgroup(c);
  const width = groupWidth(c);
  const finish = (total: string): string => `var r = ${total};
      if (P.has_init != 0u) { r = op(${initialValue(t)}, r); }
      out_store(seg, r);`;
  // Split: workgroup w folds part w % parts of segment w / parts, shares of whole quads, into
  // its partial out[w] (the initial value waits for the partials' fold).
  const range = path === 'workgroup'
    ? `
  let seg = ${LINEAR_WORKGROUP_ID};
  if (seg >= P.segments) { return; }
  let e = min(ends[seg + P.shift], P.count);
  let b = min(begins[seg], e);`
    : `
  let w = ${LINEAR_WORKGROUP_ID};
  if (w >= P.segments * P.parts) { return; }
  let seg = w / P.parts;
  let se = min(ends[seg + P.shift], P.count);
  let sb = min(begins[seg], se);
  let share = ((se - sb + P.parts - 1u) / P.parts + 3u) & ~3u;
  let b = min(sb + (w % P.parts) * share, se);
  let e = min(b + share, se);`;
  const body = path !== 'group'
    ? `
  ${subgroupIdsOrSelf(sub)}${range}
  var acc = identity();
  {${segmentFold(T, c.itemsPerThread / 4, 'lid', 'WG')}
  }
${workgroupReduce(sub)}
  if (lid == 0u) {
    ${path === 'workgroup' ? finish('sh[0]') : 'out_store(w, sh[0]);'}
  }`
    : `
  let sgid = lid / ${width}u; let sg_lane = lid % ${width}u; let sg_size = ${width}u;
  let w = wid.x + wid.y * nwg.x;
  // Loops of the workgroup's uniform bounds: the group reduction runs in uniform control flow.
  for (var r0 = 0u; r0 < SPW; r0 += WG / sg_size) {
    let seg = w * SPW + r0 + sgid;
    let mine = r0 + sgid < SPW && seg < P.segments;
    var e = 0u;
    var b = 0u;
    if (mine) {
      e = min(ends[seg + P.shift], P.count);
      b = min(begins[seg], e);
    }
    var acc = identity();
    {${segmentFold(T, c.itemsPerThread / 4, 'sg_lane', 'sg_size')}
    }
    let total = sgw_reduce(acc, lid);
    if (mine && sg_lane == 0u) {
      ${finish('total')}
    }
  }`;
  const decls = path !== 'group'
    ? `var<workgroup> sg_counter: atomic<u32>;\n${workgroupReduceDecls(t, op, sub)}`
    : subgroupReduceSharedFn(t, width, WG);
  const code = `${prelude(t, op, sub)}
${paramsStruct(SEGMENTED_REDUCE_PARAMS)}
@group(0) @binding(0) var<uniform> P: Params;
${viewWgsl({ name: 'in', type: t, access: 'read', tailStart: 'P.in_tail' }, 1)}
@group(0) @binding(3) var<storage, read> begins: array<u32>;
@group(0) @binding(4) var<storage, read> ends: array<u32>;
${out}
${quadTileConstants(WG, c.itemsPerThread)}
const SPW = ${spw}u;
${decls}
${quadReduce(T)}

@compute @workgroup_size(WG)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>${sub ? `, ${SUBGROUP_BUILTINS}` : ''}) {${body}
}
`;
  const key = ['segmented-reduce', path, t.name, op.key, WG, c.itemsPerThread, sub ? 'subgroup' : 'shared'].join(':');
  return { key, label: `wgprim.segmented_reduce.${path}.${t.name}`, code, bindings, workgroupSize: WG, userCode: op.custom };
}

/** Invocations per workgroup of the partials' fold. */
export const PARTS_WORKGROUP = 64;

/**
 * The split path's second pass: invocation s folds segment s's `parts` partials in order,
 * combines the initial value and writes the result. Its input view is the partials (`count` of
 * them, segments x parts); `shift` is unused.
 */
export function segmentedReducePartsKernel(t: TypeInfo, op: ResolvedOperator): Kernel {
  const bindings: BindingKind[] = ['uniform', ...viewBindings({ access: 'read' })];
  const out = scatterOutputWgsl('out', t, 'P.out_tail', 3, bindings);
  const code = `${prelude(t, op, false)}
${paramsStruct(SEGMENTED_REDUCE_PARAMS)}
@group(0) @binding(0) var<uniform> P: Params;
${viewWgsl({ name: 'in', type: t, access: 'read', tailStart: 'P.in_tail' }, 1)}
${out}

@compute @workgroup_size(${PARTS_WORKGROUP})
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let seg = (${LINEAR_WORKGROUP_ID}) * ${PARTS_WORKGROUP}u + lid;
  if (seg >= P.segments) { return; }
  var r = identity();
  for (var p = 0u; p < P.parts; p++) { r = op(r, in_at(seg * P.parts + p)); }
  if (P.has_init != 0u) { r = op(${initialValue(t)}, r); }
  out_store(seg, r);
}
`;
  return { key: ['segmented-reduce-parts', t.name, op.key].join(':'), label: `wgprim.segmented_reduce.parts.${t.name}`, code, bindings, workgroupSize: PARTS_WORKGROUP, userCode: op.custom };
}
