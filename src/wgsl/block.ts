import { FLOAT_LIMIT_BITS, type ResolvedOperator } from './operators.js';
import { INT64_HELPERS, type TypeInfo, typeEnables } from './types.js';

/**
 * Module header every kernel over element type `t` with operator `op` starts with: the
 * `enable` lines, helpers for emulated 64-bit types, `op(a, b)` and `identity()`.
 */
export function prelude(t: TypeInfo, op: ResolvedOperator | undefined, useSubgroups: boolean): string {
  const lines: string[] = [...typeEnables(t)];
  if (useSubgroups) {
    // Subgroup ops sit under branches that are uniform per subgroup but not per workgroup
    // (the first subgroup scans the workgroup's totals); WGSL's analysis cannot see that.
    lines.push('enable subgroups;', 'diagnostic(off, subgroup_uniformity);');
  }
  if (t.is64) lines.push(INT64_HELPERS);
  if (op) {
    if (t.isFloat) lines.push(FLOAT_LIMIT_BITS);
    lines.push(`fn op(a: ${t.wgsl}, b: ${t.wgsl}) -> ${t.wgsl} { ${op.combine} }`);
    lines.push(`fn identity() -> ${t.wgsl} { return ${op.identity}; }`);
  }
  return lines.join('\n');
}

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
 * WGSL statements that give each subgroup a dense id `sgid` in [0, workgroup size / subgroup
 * size), without assuming how invocations are packed into subgroups. Needs the workgroup
 * atomic<u32> `counter` (default `sg_counter`), zero at workgroup start.
 */
export const subgroupId = (counter = 'sg_counter'): string => `
  var sg_ticket = 0u;
  if (subgroupElect()) { sg_ticket = atomicAdd(&${counter}, 1u); }
  let sgid = subgroupBroadcastFirst(sg_ticket);`;
export const SUBGROUP_ID = subgroupId();

export function quadReduce(T: string): string {
  return `fn quad_reduce(q: array<${T}, 4>) -> ${T} { return op(op(op(q[0], q[1]), q[2]), q[3]); }`;
}

/**
 * `count` copies of `body`, each in its own block with `name` bound to a constant index.
 * Per-thread arrays indexed this way stay in registers: some compilers leave a loop over
 * them rolled and move the arrays to local memory (seen on the H200 past 5 quads).
 */
export function unroll(count: number, name: string, body: string): string {
  return Array.from({ length: count }, (_, i) => `{ const ${name} = ${i}u;\n${body}\n}`).join('\n');
}
