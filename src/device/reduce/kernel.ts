import { type Kernel, paramsStruct } from '../../runtime/kernel.js';
import { type ResolvedOperator } from '../../wgsl/operators.js';
import { prelude, quadTileConstants } from '../../wgsl/prelude.js';
import { SUBGROUP_BUILTINS, SUBGROUP_ID } from '../../wgsl/subgroup/id.js';
import { quadReduce } from '../../wgsl/thread/reduce.js';
import { fromWords, type TypeInfo } from '../../wgsl/types.js';
import { type BindingKind, viewBindings, viewWgsl } from '../../wgsl/views.js';
import { workgroupReduce, workgroupReduceDecls } from '../../wgsl/workgroup/reduce.js';
import { quadTileLoad } from '../../wgsl/workgroup/tile.js';
import { type ReduceConfig } from './config.js';

export const REDUCE_PARAMS = ['count', 'num_tiles', 'num_wg', 'in_tail', 'out_tail', 'fast_end', 'has_init', 'init_lo', 'init_hi'] as const;

/**
 * One reduction pass: workgroup w folds tiles w, w + num_wg, ... (loads striped across the
 * workgroup, 16 bytes at a time) and writes its result to out[w], combined with the initial
 * value when has_init is set. The device reduce runs it twice: inputs to per-workgroup
 * partials, then partials to the single output. Operators must be commutative.
 */
export function reduceKernel(t: TypeInfo, op: ResolvedOperator, c: ReduceConfig): Kernel {
  const T = t.wgsl;
  const sub = c.workgroupReduce === 'subgroup';
  const WG = c.workgroupSize;
  const Q = c.itemsPerThread / 4;
  const bindings: BindingKind[] = ['uniform'];
  const inDecl = viewWgsl({ name: 'in', type: t, access: 'read', tailStart: 'P.in_tail' }, bindings.length);
  bindings.push(...viewBindings({ access: 'read' }));
  const outDecl = viewWgsl({ name: 'out', type: t, access: 'read_write', tailStart: 'P.out_tail' }, bindings.length);
  bindings.push(...viewBindings({ access: 'read_write' }));

  const code = `${prelude(t, op, sub)}
${paramsStruct(REDUCE_PARAMS)}
@group(0) @binding(0) var<uniform> P: Params;
${inDecl}
${outDecl}
${quadTileConstants(WG, c.itemsPerThread)}
${workgroupReduceDecls(t, op, sub)}
var<workgroup> sg_counter: atomic<u32>;
${quadReduce(T)}

@compute @workgroup_size(WG)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>${sub ? `, ${SUBGROUP_BUILTINS}` : ''}) {
  let w = wid.x + wid.y * nwg.x;
  if (w >= P.num_wg) { return; }
  var acc = identity();
  for (var tile = w; tile < P.num_tiles; tile += P.num_wg) {
    let base = tile * (TILE / 4u) + lid;
${quadTileLoad({ view: 'in', T, quads: Q, fast: '(tile + 1u) * TILE <= P.fast_end', quad: 'base + k * WG', unrolled: false })}
    for (var k = 0u; k < Q; k++) { acc = op(acc, quad_reduce(items[k])); }
  }
  ${sub ? SUBGROUP_ID : ''}${workgroupReduce(sub)}
  if (lid == 0u) {
    var total = sh[0];
    if (P.has_init != 0u) { total = op(${fromWords(t, 'vec2<u32>(P.init_lo, P.init_hi)')}, total); }
    out_store(w, total);
  }
}
`;
  const key = ['reduce', t.name, op.key, WG, c.itemsPerThread, c.workgroupReduce].join(':');
  return { key, label: `wgprim.reduce.${t.name}`, code, bindings, workgroupSize: WG, userCode: op.custom };
}
