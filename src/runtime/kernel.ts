import { type BindingKind } from '../wgsl/views.js';

/** A generated compute kernel: WGSL text plus the binding layout the host must match. */
export interface Kernel {
  /** Cache key: everything the WGSL depends on. */
  readonly key: string;
  readonly label: string;
  readonly code: string;
  readonly bindings: readonly BindingKind[];
  readonly workgroupSize: number;
  /** It embeds caller-written WGSL (a custom operator or expression): compile errors are the caller's. */
  readonly userCode?: boolean;
}

/** Uniform parameter block: every field is one u32, in declaration order. */
export function paramsStruct(fields: readonly string[]): string {
  return `struct Params {\n${fields.map((f) => `  ${f}: u32,`).join('\n')}\n}`;
}

/** Linear workgroup id across a 2-D dispatch (see `gridFor`). */
export const LINEAR_WORKGROUP_ID = 'wid.x + wid.y * nwg.x';
