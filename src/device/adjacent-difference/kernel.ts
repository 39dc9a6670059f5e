// The adjacent difference's kernels: the main one (the transform's vectorized quads, plus each
// quad's edge element through workgroup memory for its neighbour) and, in place, the pre-pass
// that saves every tile's neighbour across its edge before any tile overwrites it.
import { type Kernel, LINEAR_WORKGROUP_ID, paramsStruct } from '../../runtime/kernel.js';
import { quadTileConstants } from '../../wgsl/prelude.js';
import { INT64_HELPERS, type TypeInfo, typeEnables } from '../../wgsl/types.js';
import { type BindingKind, viewBindings, viewWgsl } from '../../wgsl/views.js';
import { quadStore, quadTileLoad } from '../../wgsl/workgroup/tile.js';
import { unroll } from '../../wgsl/thread/unroll.js';
import { type AdjacentDifferenceConfig } from './config.js';

export const ADJACENT_DIFFERENCE_PARAMS = ['count', 'num_tiles', 'a_tail', 'out_tail', 'fast_end'] as const;
/** Invocations of the boundary pre-pass's workgroups (one per tile). */
export const BOUNDARY_WG = 64;

/** 64-bit subtraction with borrow (the default op of u64 / i64: two's complement wraps alike). */
const WIDE_SUB = `fn wide_sub(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
  return vec2<u32>(a.x - b.x, a.y - b.y - select(0u, 1u, a.x < b.x));
}`;

/** The default `op`: `a - b` (integers wrap). */
export function defaultDifference(t: TypeInfo): string {
  return t.is64 ? 'wide_sub(a, b)' : 'a - b';
}

export interface AdjacentDifferenceKernelOptions {
  readonly type: TypeInfo;
  /** WGSL expression over `a` (the element) and `b` (its neighbour). */
  readonly op: string;
  readonly right: boolean;
  /** In place: the data is the `out` view, and the neighbours across tile edges come from the pre-pass. */
  readonly inPlace: boolean;
  readonly config: AdjacentDifferenceConfig;
}

function header(t: TypeInfo): string {
  return `${typeEnables(t).join('\n')}
${t.is64 ? `${INT64_HELPERS}\n${WIDE_SUB}` : ''}
${paramsStruct(ADJACENT_DIFFERENCE_PARAMS)}
@group(0) @binding(0) var<uniform> P: Params;`;
}

/**
 * out[i] = op(in[i], in[i-1]) (left; out[0] = in[0]) or op(in[i], in[i+1]) (right; the last
 * kept). Quads are striped over the tile (quad k*WG + lid), so a quad's neighbours are in the
 * neighbouring invocations: each stores its quads' edge element in workgroup memory, and the
 * one element across the tile's edge is read from the input (out of place) or from the
 * pre-pass's `edges` (in place, where the neighbouring tile may already have overwritten it).
 * All of a tile's loads come before the barrier and all its stores after it.
 */
export function adjacentDifferenceKernel(o: AdjacentDifferenceKernelOptions): Kernel {
  const { type: t, config: c, right, inPlace } = o;
  const T = t.wgsl;
  const bindings: BindingKind[] = ['uniform'];
  const decls: string[] = [];
  const view = (name: string, access: 'read' | 'read_write', tail: string): void => {
    decls.push(viewWgsl({ name, type: t, access, tailStart: tail }, bindings.length));
    bindings.push(...viewBindings({ access }));
  };
  if (!inPlace) view('a', 'read', 'P.a_tail');
  view('out', 'read_write', 'P.out_tail');
  if (inPlace) {
    decls.push(`@group(0) @binding(${bindings.length}) var<storage, read> edges: array<${T}>;`);
    bindings.push('read-only-storage');
  }
  const A = inPlace ? 'out' : 'a';
  const Q = c.itemsPerThread / 4;
  // The neighbour across the tile's edge, needed by one invocation's one quad.
  const across = right
    ? `if (lid == WG - 1u && first + TILE < P.count) { across = ${inPlace ? 'edges[tile]' : 'a_at(first + TILE)'}; }`
    : `if (lid == 0u && tile > 0u) { across = ${inPlace ? 'edges[tile]' : 'a_at(first - 1u)'}; }`;
  const combine = right
    ? `    var next = across;
    if (i != QUADS - 1u) { next = edge[i + 1u]; }
    var r = array<${T}, 4>(f(x[0], x[1]), f(x[1], x[2]), f(x[2], x[3]), f(x[3], next));
    // The last element is kept (constant indices keep r and x in registers).
${[0, 1, 2, 3].map((j) => `    if (q * 4u + ${j + 1}u == P.count) { r[${j}] = x[${j}]; }`).join('\n')}`
    : `    var prev = across;
    if (i != 0u) { prev = edge[i - 1u]; }
    var r = array<${T}, 4>(f(x[0], prev), f(x[1], x[0]), f(x[2], x[1]), f(x[3], x[2]));
    // The first element is kept.
    if (q == 0u) { r[0] = x[0]; }`;

  const code = `${header(t)}
${decls.join('\n')}
${quadTileConstants(c.workgroupSize, c.itemsPerThread)}
const QUADS = TILE / 4u;
var<workgroup> edge: array<${T}, QUADS>;
fn f(a: ${T}, b: ${T}) -> ${T} { return ${o.op}; }

@compute @workgroup_size(WG)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let tile = ${LINEAR_WORKGROUP_ID};
  if (tile >= P.num_tiles) { return; }
  let first = tile * TILE;
  let fast = first + TILE <= P.fast_end;
${quadTileLoad({ view: A, T, quads: Q, fast: 'fast', quad: 'tile * QUADS + k * WG + lid', unrolled: true, pad: `${T}()` })}
  var across = ${T}();
  ${across}
${unroll(Q, 'k', `  edge[k * WG + lid] = items[k][${right ? 0 : 3}];`)}
  workgroupBarrier();
${unroll(Q, 'k', `    let i = k * WG + lid;
    let q = tile * QUADS + i;
    let x = items[k];
${combine}
${quadStore('out', 'q', 'r', 'fast')}`)}
}
`;
  const key = ['adjacent-difference', t.name, right ? 'right' : 'left', inPlace ? 'inplace' : 'copy', c.workgroupSize, c.itemsPerThread, o.op].join(':');
  return { key, label: `wgprim.adjacentDifference.${right ? 'right' : 'left'}${inPlace ? '.inplace' : ''}.${t.name}`, code, bindings, workgroupSize: c.workgroupSize, userCode: true };
}

/**
 * In place only: `edges[t]` = the element just before tile t (left) or just after it (right),
 * read before the main pass lets any tile overwrite it (CUB and rocPRIM save them alike).
 */
export function boundaryKernel(t: TypeInfo, right: boolean, tile: number): Kernel {
  const T = t.wgsl;
  const code = `${header(t)}
${viewWgsl({ name: 'a', type: t, access: 'read', tailStart: 'P.a_tail' }, 1)}
@group(0) @binding(3) var<storage, read_write> edges: array<${T}>;
const TILE = ${tile}u;

@compute @workgroup_size(${BOUNDARY_WG})
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let t = (${LINEAR_WORKGROUP_ID}) * ${BOUNDARY_WG}u + lid;
  if (t >= P.num_tiles) { return; }
  ${right
    ? 'if ((t + 1u) * TILE < P.count) { edges[t] = a_at((t + 1u) * TILE); }'
    : 'if (t > 0u) { edges[t] = a_at(t * TILE - 1u); }'}
}
`;
  return {
    key: ['adjacent-difference-boundary', t.name, right ? 'right' : 'left', tile].join(':'), label: `wgprim.adjacentDifference.boundary.${t.name}`, code,
    bindings: ['uniform', 'read-only-storage', 'read-only-storage', 'storage'], workgroupSize: BOUNDARY_WG,
  };
}
