import { type Kernel, paramsStruct } from '../../runtime/kernel.js';
import { quadTileConstants, typesHeader } from '../../wgsl/prelude.js';
import { type TypeInfo } from '../../wgsl/types.js';
import { type BindingKind, viewBindings, viewWgsl } from '../../wgsl/views.js';
import { type TransformConfig } from './config.js';

export const TRANSFORM_PARAMS = ['count', 'num_tiles', 'a_tail', 'b_tail', 'out_tail', 'fast_end'] as const;

export interface TransformKernelOptions {
  readonly a: TypeInfo;
  /** Second input's type, for a binary transform. */
  readonly b?: TypeInfo;
  readonly out: TypeInfo;
  /** WGSL expression over `a` (and `b`) giving the output element. */
  readonly expression: string;
  /** Output is the first input's buffer. */
  readonly inPlace: boolean;
  readonly config: TransformConfig;
}

/** out[i] = f(a[i]) or f(a[i], b[i]); each invocation moves its quads as 16-byte accesses. */
export function transformKernel(o: TransformKernelOptions): Kernel {
  const { a, b, out, config: c } = o;
  const WG = c.workgroupSize;
  const Q = c.itemsPerThread / 4;
  const types = [a, ...(b ? [b] : []), out];
  const bindings: BindingKind[] = ['uniform'];
  const decls: string[] = [];
  const view = (name: string, t: TypeInfo, access: 'read' | 'read_write', tail: string): void => {
    decls.push(viewWgsl({ name, type: t, access, tailStart: tail }, bindings.length));
    bindings.push(...viewBindings({ access }));
  };
  if (!o.inPlace) view('a', a, 'read', 'P.a_tail');
  if (b) view('b', b, 'read', 'P.b_tail');
  view('out', out, 'read_write', 'P.out_tail');
  // In place, `a` is read through the output's view. The output type may differ from the
  // input type when both have one size (u32 / i32 / f32): the bits are reinterpreted.
  const A = o.inPlace ? 'out' : 'a';
  const reinterpret = o.inPlace && a.wgsl !== out.wgsl;
  const loadA = reinterpret
    ? `fn load_a_quad(q: u32) -> array<${a.wgsl}, 4> {
  let x = out_quad(q);
  return array<${a.wgsl}, 4>(bitcast<${a.wgsl}>(x[0]), bitcast<${a.wgsl}>(x[1]), bitcast<${a.wgsl}>(x[2]), bitcast<${a.wgsl}>(x[3]));
}
fn load_a(e: u32) -> ${a.wgsl} { return bitcast<${a.wgsl}>(out_at(e)); }`
    : `fn load_a_quad(q: u32) -> array<${a.wgsl}, 4> { return ${A}_quad(q); }
fn load_a(e: u32) -> ${a.wgsl} { return ${A}_at(e); }`;
  const args = b ? `a: ${a.wgsl}, b: ${b.wgsl}` : `a: ${a.wgsl}`;
  const callAt = b ? 'f(load_a(e), b_at(e))' : 'f(load_a(e))';

  const code = `${typesHeader(types)}
${paramsStruct(TRANSFORM_PARAMS)}
@group(0) @binding(0) var<uniform> P: Params;
${decls.join('\n')}
${quadTileConstants(WG, c.itemsPerThread)}
fn f(${args}) -> ${out.wgsl} { return ${o.expression}; }
${loadA}

@compute @workgroup_size(WG)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let tile = wid.x + wid.y * nwg.x;
  if (tile >= P.num_tiles) { return; }
  let base = tile * (TILE / 4u) + lid;
  if ((tile + 1u) * TILE <= P.fast_end) {
    var qa: array<array<${a.wgsl}, 4>, Q>;
${b ? `    var qb: array<array<${b.wgsl}, 4>, Q>;\n` : ''}    for (var k = 0u; k < Q; k++) {
      qa[k] = load_a_quad(base + k * WG);
${b ? '      qb[k] = b_quad(base + k * WG);\n' : ''}    }
    for (var k = 0u; k < Q; k++) {
      var r: array<${out.wgsl}, 4>;
      for (var j = 0u; j < 4u; j++) { r[j] = ${b ? 'f(qa[k][j], qb[k][j])' : 'f(qa[k][j])'}; }
      out_store_quad(base + k * WG, r);
    }
  } else {
    for (var k = 0u; k < Q; k++) {
      for (var j = 0u; j < 4u; j++) {
        let e = (base + k * WG) * 4u + j;
        if (e < P.count) { out_store(e, ${callAt}); }
      }
    }
  }
}
`;
  const key = ['transform', a.name, b?.name ?? '-', out.name, o.inPlace ? 'inplace' : 'copy', WG, c.itemsPerThread, o.expression].join(':');
  return { key, label: `wgprim.transform.${a.name}.${out.name}`, code, bindings, workgroupSize: WG, userCode: true };
}
