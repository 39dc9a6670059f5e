import { FLOAT_LIMIT_BITS, type ResolvedOperator } from './operators.js';
import { INT64_HELPERS, type TypeInfo, typeEnables } from './types.js';

/** `enable` lines for kernels that use subgroup operations. */
export function subgroupEnables(useSubgroups: boolean): string {
  // Subgroup ops sit under branches that are uniform per subgroup but not per workgroup
  // (the first subgroup scans the workgroup's totals); WGSL's analysis cannot see that.
  return useSubgroups ? 'enable subgroups;\ndiagnostic(off, subgroup_uniformity);\n' : '';
}

/**
 * The `enable` lines (each once) and 64-bit helpers a module over these element types needs,
 * directives first as WGSL requires.
 */
export function typesHeader(types: readonly TypeInfo[], useSubgroups = false): string {
  return `${[...new Set(types.flatMap(typeEnables))].join('\n')}
${subgroupEnables(useSubgroups)}${types.some((t) => t.is64) ? INT64_HELPERS : ''}`;
}

/**
 * Module header every kernel over element type `t` with operator `op` starts with: the
 * `enable` lines, helpers for emulated 64-bit types, `op(a, b)` and `identity()`.
 */
export function prelude(t: TypeInfo, op: ResolvedOperator | undefined, useSubgroups: boolean): string {
  const lines: string[] = [typesHeader([t], useSubgroups)];
  if (op) {
    if (t.isFloat) lines.push(FLOAT_LIMIT_BITS);
    lines.push(`fn op(a: ${t.wgsl}, b: ${t.wgsl}) -> ${t.wgsl} { ${op.combine} }`);
    lines.push(`fn identity() -> ${t.wgsl} { return ${op.identity}; }`);
  }
  return lines.join('\n');
}

/** Constants of a kernel over quads: WG invocations, Q quads (itemsPerThread / 4) each, TILE elements a workgroup. */
export function quadTileConstants(workgroupSize: number, itemsPerThread: number): string {
  return `const WG = ${workgroupSize}u;
const Q = ${itemsPerThread / 4}u;
const TILE = ${workgroupSize * itemsPerThread}u;`;
}
