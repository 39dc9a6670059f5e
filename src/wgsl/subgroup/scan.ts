import { type ResolvedOperator } from '../operators.js';
import { type TypeInfo } from '../types.js';
import { sharedInclusiveScan } from '../workgroup/shared-scan.js';

/**
 * `sg_inclusive(x, lane, size)`: inclusive scan across the lanes of a subgroup, in lane
 * order (so non-commutative operators work). Native where the operator has one, otherwise
 * Kogge-Stone over `subgroupShuffleUp`; no subgroup size is assumed.
 */
export function subgroupInclusiveFn(t: TypeInfo, op: ResolvedOperator): string {
  const T = t.wgsl;
  if (op.subgroupInclusive) {
    return `fn sg_inclusive(x: ${T}, lane: u32, size: u32) -> ${T} { return ${op.subgroupInclusive}(x); }`;
  }
  return `fn sg_inclusive(x0: ${T}, lane: u32, size: u32) -> ${T} {
  var x = x0;
  for (var d = 1u; d < size; d <<= 1u) {
    let y = subgroupShuffleUp(x, d);
    if (lane >= d) { x = op(y, x); }
  }
  return x;
}`;
}

/**
 * Statements declaring `incl` and `ex`, the inclusive and exclusive scans of `x` across the
 * subgroup (lane 0's exclusive is the identity); `SUBGROUP_TOTAL` is then the subgroup's total.
 * Needs `sg_inclusive`, `sg_lane`, `sg_size`.
 */
export function subgroupScanStep(x: string, pad: string): string {
  return `${pad}let incl = sg_inclusive(${x}, sg_lane, sg_size);
${pad}var ex = subgroupShuffleUp(incl, 1u);
${pad}if (sg_lane == 0u) { ex = identity(); }`;
}
export const SUBGROUP_TOTAL = 'subgroupShuffle(incl, sg_size - 1u)';

/**
 * Opening of a function `name(x, lid) -> T` that works on one value per invocation in the
 * workgroup array `array` (declared here): x is stored at lid between barriers (the first ends
 * any earlier use of the array).
 */
export function stagedFn(name: string, array: string, T: string, workgroupSize: number): string {
  return `var<workgroup> ${array}: array<${T}, ${workgroupSize}>;
fn ${name}(x: ${T}, lid: u32) -> ${T} {
  workgroupBarrier();
  ${array}[lid] = x;
  workgroupBarrier();`;
}

/**
 * Without subgroup operations: `sgw_inclusive(x, lid)`, the inclusive scan of x over logical
 * subgroups of `width` consecutive invocations, through the workgroup array `sgw_scratch` (one
 * value per invocation, declared here for a workgroup of `workgroupSize`). Every invocation
 * calls it (it has barriers).
 */
export function subgroupInclusiveSharedFn(t: TypeInfo, width: number, workgroupSize: number): string {
  const T = t.wgsl;
  return `${stagedFn('sgw_inclusive', 'sgw_scratch', T, workgroupSize)}
${sharedInclusiveScan({ array: 'sgw_scratch', index: 'lid', lane: `lid % ${width}u`, size: `${width}u`, zero: 'identity()', combine: (y, x) => `${x} = op(${y}, ${x});` })}
  return sgw_scratch[lid];
}`;
}
