import { type Kernel, paramsStruct } from '../../runtime/kernel.js';
import { type ResolvedOperator } from '../../wgsl/operators.js';
import { prelude } from '../../wgsl/prelude.js';
import { SUBGROUP_BUILTINS } from '../../wgsl/subgroup/id.js';
import { fromWords, type TypeInfo } from '../../wgsl/types.js';
import { type BindingKind, viewBindings, viewWgsl } from '../../wgsl/views.js';
import { workgroupReduce, workgroupReduceDecls } from '../../wgsl/workgroup/reduce.js';
import { subgroupIdsOrSelf } from '../../wgsl/workgroup/scan.js';
import { type ReduceConfig } from '../reduce/config.js';

export const SEGMENTED_REDUCE_PARAMS = ['segments', 'count', 'shift', 'in_tail', 'out_tail', 'has_init', 'init_lo', 'init_hi'] as const;

/**
 * One workgroup a segment (rocPRIM's segmented reduce): its invocations fold the segment's
 * elements `itemsPerThread` at a time with a stride of the workgroup, then reduce across the
 * workgroup (src/wgsl/workgroup/reduce.ts, commutative operators as the device reduce assumes);
 * invocation 0 writes op(initial value, total), the initial value alone (or the identity) for an
 * empty segment.
 * Segment i is [begins[i], ends[i + shift]) clamped to `count` (shift 1: begins has segments + 1).
 */
export function segmentedReduceKernel(t: TypeInfo, op: ResolvedOperator, c: ReduceConfig): Kernel {
  const sub = c.workgroupReduce === 'subgroup';
  const WG = c.workgroupSize;
  const T = t.wgsl;
  const bindings: BindingKind[] = ['uniform', ...viewBindings({ access: 'read' }), 'read-only-storage', 'read-only-storage'];
  const out = t.bytes === 2
    ? viewWgsl({ name: 'out', type: t, access: 'read_write', tailStart: 'P.out_tail' }, 5)
    : `@group(0) @binding(5) var<storage, read_write> out_s: array<${T}>;
fn out_store(e: u32, x: ${T}) { out_s[e] = x; }`;
  bindings.push(...(t.bytes === 2 ? viewBindings({ access: 'read_write' }) : ['storage' as const]));
  const code = `${prelude(t, op, sub)}
${paramsStruct(SEGMENTED_REDUCE_PARAMS)}
@group(0) @binding(0) var<uniform> P: Params;
${viewWgsl({ name: 'in', type: t, access: 'read', tailStart: 'P.in_tail' }, 1)}
@group(0) @binding(3) var<storage, read> begins: array<u32>;
@group(0) @binding(4) var<storage, read> ends: array<u32>;
${out}
const WG = ${WG}u;
const IPT = ${c.itemsPerThread}u;
var<workgroup> sg_counter: atomic<u32>;
${workgroupReduceDecls(t, op, sub)}

@compute @workgroup_size(WG)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>${sub ? `, ${SUBGROUP_BUILTINS}` : ''}) {
  ${subgroupIdsOrSelf(sub)}
  let seg = wid.x + wid.y * nwg.x;
  if (seg >= P.segments) { return; }
  let e = min(ends[seg + P.shift], P.count);
  let b = min(begins[seg], e);
  var acc = identity();
  // IPT loads in flight an invocation, consecutive invocations on consecutive elements.
  for (var base = b; base < e; base += WG * IPT) {
    for (var j = 0u; j < IPT; j++) {
      let i = base + j * WG + lid;
      if (i < e) { acc = op(acc, in_at(i)); }
    }
  }
${workgroupReduce(sub)}
  if (lid == 0u) {
    var r = sh[0];
    if (P.has_init != 0u) { r = op(${fromWords(t, 'vec2<u32>(P.init_lo, P.init_hi)')}, r); }
    out_store(seg, r);
  }
}
`;
  const key = ['segmented-reduce', t.name, op.key, WG, c.itemsPerThread, c.workgroupReduce].join(':');
  return { key, label: `wgprim.segmented_reduce.${t.name}`, code, bindings, workgroupSize: WG, userCode: op.custom };
}
