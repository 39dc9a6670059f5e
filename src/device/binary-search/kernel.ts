import { type Kernel, LINEAR_WORKGROUP_ID, paramsStruct } from '../../runtime/kernel.js';
import { INT64_HELPERS, type TypeInfo, typeEnables } from '../../wgsl/types.js';
import { keyFunctions, keyLess, rawType } from '../../wgsl/thread/radix-key.js';
import { rawKeyArrayWgsl } from '../../wgsl/device/raw-keys.js';
import { type BinarySearchConfig } from './config.js';

export type SearchKind = 'lower-bound' | 'upper-bound' | 'binary-search';

/** `steps`: the search's trip count for this haystack; `cached`: how many of them read the cached tree. */
export const SEARCH_PARAMS = ['hay_count', 'needle_count', 'steps', 'cached', 'num_tiles'] as const;

export interface SearchKernelOptions {
  readonly kind: SearchKind;
  readonly type: TypeInfo;
  /** WGSL `bool` expression over `a` and `b` of the key type; absent: the total order of the radix sort. */
  readonly less?: string;
  readonly config: BinarySearchConfig;
}

/** Steps of the branchless search over `n` keys: halvings until one key is left. */
export function searchSteps(n: number): number {
  let steps = 0;
  for (let len = n; len > 1; len -= Math.floor(len / 2)) steps++;
  return steps;
}

/**
 * One needle per (invocation, slot): a branchless lower / upper bound with a trip count fixed by
 * the haystack's size, so that step s of every needle probes one of 2^s positions. The first
 * `cached` steps read those positions (the top of the implicit search tree) from workgroup
 * memory, filled once per workgroup; the rest read the haystack. Each invocation walks
 * `needlesPerThread` needles in lockstep, so their loads are in flight together.
 */
export function searchKernel(o: SearchKernelOptions): Kernel {
  const { type: t, config: c } = o;
  const WG = c.workgroupSize;
  const NPT = c.needlesPerThread;
  const custom = o.less !== undefined;
  const K = rawType(t);
  // The comparison domain: ordered bits under the default order (one unsigned compare), the
  // key's own type under a custom one.
  const C = custom ? t.wgsl : K;
  const keyOf = custom ? 'hay_value(x)' : 'to_ordered(x)';
  const lessFn = custom
    ? `fn less(a: ${C}, b: ${C}) -> bool { return ${o.less}; }`
    : `${keyLess(t)}\nfn less(a: ${C}, b: ${C}) -> bool { return key_less(a, b); }`;
  // Whether the answer lies past `pivot`: lower bound past keys less than the needle, upper
  // bound past keys not greater.
  const goes = o.kind === 'upper-bound' ? '!less(x, pivot)' : 'less(pivot, x)';
  const nodes = 1 << c.cacheLevels;
  const code = `${custom ? typeEnables(t).join('\n') : ''}
${t.is64 ? INT64_HELPERS : ''}
${paramsStruct(SEARCH_PARAMS)}
@group(0) @binding(0) var<uniform> P: Params;
${rawKeyArrayWgsl('hay', t, 'read', 1, custom)}
${rawKeyArrayWgsl('needles', t, 'read', 2, false)}
@group(0) @binding(3) var<storage, read_write> out: array<u32>;
${keyFunctions(t, false, { rawIn: true, rawOut: true, descending: false })}
${lessFn}
fn key_of(x: ${K}) -> ${C} { return ${keyOf}; }
fn hay_key(i: u32) -> ${C} { return key_of(hay_raw(i)); }
fn goes(pivot: ${C}, x: ${C}) -> bool { return ${goes}; }
const WG = ${WG}u;
const NPT = ${NPT}u;
${c.cacheLevels > 0 ? `var<workgroup> tree: array<${C}, ${nodes}>;` : ''}

@compute @workgroup_size(WG)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let tile = ${LINEAR_WORKGROUP_ID};
  if (tile >= P.num_tiles) { return; }
${c.cacheLevels > 0 ? `  // Node i (root 1) at level s = firstLeadingBit(i): the bits below its leading one are the
  // decisions that reach it, which fix the position it probes.
  for (var i = lid + 1u; i < (1u << P.cached); i += WG) {
    let s = firstLeadingBit(i);
    var len = P.hay_count;
    var base = 0u;
    for (var j = 0u; j < s; j++) {
      let half = len >> 1u;
      if (((i >> (s - 1u - j)) & 1u) == 1u) { base += half; }
      len -= half;
    }
    tree[i] = hay_key(base + (len >> 1u));
  }
  workgroupBarrier();` : ''}
  var x: array<${C}, NPT>;
  var base: array<u32, NPT>;
  var node: array<u32, NPT>;
  for (var k = 0u; k < NPT; k++) {
    let e = tile * (WG * NPT) + k * WG + lid;
    x[k] = key_of(needles_raw(min(e, P.needle_count - 1u)));
    base[k] = 0u;
    node[k] = 1u;
  }
  var len = P.hay_count;
${c.cacheLevels > 0 ? `  for (var s = 0u; s < P.cached; s++) {
    let half = len >> 1u;
    for (var k = 0u; k < NPT; k++) {
      let go = goes(tree[node[k]], x[k]);
      node[k] = 2u * node[k] + u32(go);
      base[k] += select(0u, half, go);
    }
    len -= half;
  }` : ''}
  for (var s = ${c.cacheLevels > 0 ? 'P.cached' : '0u'}; s < P.steps; s++) {
    let half = len >> 1u;
    for (var k = 0u; k < NPT; k++) {
      if (goes(hay_key(base[k] + half), x[k])) { base[k] += half; }
    }
    len -= half;
  }
  for (var k = 0u; k < NPT; k++) {
    let e = tile * (WG * NPT) + k * WG + lid;
    if (e >= P.needle_count) { continue; }
    var r = base[k];
    if (P.hay_count > 0u && goes(hay_key(r), x[k])) { r += 1u; }
${o.kind === 'binary-search' ? '    r = u32(r < P.hay_count && !less(x[k], hay_key(min(r, P.hay_count - 1u))));\n' : ''}    out[e] = r;
  }
}
`;
  const key = ['search', o.kind, t.name, WG, NPT, c.cacheLevels, o.less ?? '-'].join(':');
  return { key, label: `wgprim.${o.kind}.${t.name}`, code, bindings: ['uniform', 'read-only-storage', 'read-only-storage', 'storage'], workgroupSize: WG, userCode: custom };
}
