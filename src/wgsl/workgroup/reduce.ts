import { type ResolvedOperator } from '../operators.js';
import { subgroupReduceFn } from '../subgroup/reduce.js';
import { type TypeInfo } from '../types.js';

/**
 * Statements reducing each invocation's `acc` across the workgroup into `sh[0]` (commutative
 * operators), with subgroup operations (`sub`: `sg_reduce`, then invocation 0 folds the
 * subgroups' results; needs sgid, sg_lane, sg_size) or a tree in workgroup memory (`sh` of WG
 * values, WG a power of two). Every invocation runs them; a barrier ends them.
 */
export function workgroupReduce(sub: boolean): string {
  return sub
    ? `
  let r = sg_reduce(acc, sg_size);
  if (sg_lane == 0u) { sh[sgid] = r; }
  workgroupBarrier();
  if (lid == 0u) {
    var total = sh[0];
    for (var i = 1u; i < WG / sg_size; i++) { total = op(total, sh[i]); }
    sh[0] = total;
  }
  workgroupBarrier();`
    : `
  sh[lid] = acc;
  workgroupBarrier();
  for (var s = WG / 2u; s > 0u; s >>= 1u) {
    if (lid < s) { sh[lid] = op(sh[lid], sh[lid + s]); }
    workgroupBarrier();
  }`;
}

/** Module-scope part of `workgroupReduce`: its array and, with subgroups, `sg_reduce`. */
export function workgroupReduceDecls(t: TypeInfo, op: ResolvedOperator, sub: boolean): string {
  return `var<workgroup> sh: array<${t.wgsl}, WG>;
${sub ? subgroupReduceFn(t, op) : ''}`;
}
