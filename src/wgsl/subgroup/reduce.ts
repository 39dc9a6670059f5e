import { type ResolvedOperator } from '../operators.js';
import { type TypeInfo } from '../types.js';
import { stagedFn } from './scan.js';

/** `sg_reduce(x, size)`: reduction across a subgroup, every lane gets the result (commutative operators). */
export function subgroupReduceFn(t: TypeInfo, op: ResolvedOperator): string {
  const T = t.wgsl;
  if (op.subgroupReduce) {
    return `fn sg_reduce(x: ${T}, size: u32) -> ${T} { return ${op.subgroupReduce}(x); }`;
  }
  return `fn sg_reduce(x0: ${T}, size: u32) -> ${T} {
  var x = x0;
  for (var m = 1u; m < size; m <<= 1u) { x = op(x, subgroupShuffleXor(x, m)); }
  return x;
}`;
}

/**
 * Without subgroup operations: `sgw_reduce(x, lid)`, the reduction of x over logical subgroups
 * of `width` (a power of two) consecutive invocations, every invocation of one getting it,
 * through the workgroup array `sgw_red` (declared here). Every invocation calls it.
 */
export function subgroupReduceSharedFn(t: TypeInfo, width: number, workgroupSize: number): string {
  const T = t.wgsl;
  return `${stagedFn('sgw_reduce', 'sgw_red', T, workgroupSize)}
  for (var m = 1u; m < ${width}u; m <<= 1u) {
    let y = op(sgw_red[lid], sgw_red[lid ^ m]);
    workgroupBarrier();
    sgw_red[lid] = y;
    workgroupBarrier();
  }
  return sgw_red[lid];
}`;
}
