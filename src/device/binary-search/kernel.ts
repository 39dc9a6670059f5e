import { type Kernel, LINEAR_WORKGROUP_ID, paramsStruct } from '../../runtime/kernel.js';
import { INT64_HELPERS, type TypeInfo, typeEnables } from '../../wgsl/types.js';
import { keyFunctions, keyLess, rawType } from '../../wgsl/thread/radix-key.js';
import { rawKeyArrayWgsl } from '../../wgsl/device/raw-keys.js';
import { indent, unroll } from '../../wgsl/thread/unroll.js';
import { type BinarySearchConfig } from './config.js';

export type SearchKind = 'lower-bound' | 'upper-bound' | 'binary-search';

/**
 * `cached`: levels of the splitter tree this haystack uses (2^cached <= hay_count); `steps`: the
 * search's trip count in global memory, over the range the tree leaves (ceil(n / 2^cached) keys).
 */
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

/** Levels of a `cacheLevels` tree a haystack of `n` keys uses: no more splitters than keys. */
export const cachedLevels = (n: number, cacheLevels: number): number => (n < 2 ? 0 : Math.min(cacheLevels, 31 - Math.clz32(n)));

/** The search's trip count in global memory once `cached` levels have narrowed the range. */
export const globalSteps = (n: number, cached: number): number => searchSteps(Math.ceil(n / 2 ** cached));

/**
 * Each invocation searches `needlesPerThread` needles in lockstep (unrolled, so their state
 * stays in registers and their loads are in flight together). First through a splitter tree in
 * workgroup memory: the 2^cached - 1 keys at j * n / 2^cached, in breadth-first order (level s
 * reads 2^s neighbouring nodes: few bank conflicts), loaded once per workgroup at positions in
 * closed form. Its leaf leaves a range of at most ceil(n / 2^cached) keys, which a branchless
 * search with a fixed trip count finishes in global memory.
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
  const tree = c.cacheLevels > 0;
  const each = (body: string): string => indent(unroll(NPT, 'k', body), '  ');
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
${tree ? `var<workgroup> tree: array<${C}, ${1 << c.cacheLevels}>;
// Position of splitter j (0 to 2^cached): floor(j * n / 2^cached), without overflowing 32 bits.
fn splitter(j: u32) -> u32 {
  let n = P.hay_count;
  return j * (n >> P.cached) + ((j * (n & ((1u << P.cached) - 1u))) >> P.cached);
}` : ''}

@compute @workgroup_size(WG)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let tile = ${LINEAR_WORKGROUP_ID};
  if (tile >= P.num_tiles) { return; }
${tree ? `  // Node i at level s = firstLeadingBit(i) is splitter (2 (i - 2^s) + 1) 2^(cached - 1 - s).
  for (var i = lid + 1u; i < (1u << P.cached); i += WG) {
    let s = firstLeadingBit(i);
    tree[i] = hay_key(splitter((2u * (i - (1u << s)) + 1u) << (P.cached - 1u - s)));
  }
  workgroupBarrier();` : ''}
  var x: array<${C}, NPT>;
  var base: array<u32, NPT>;
  var len: array<u32, NPT>;
${tree ? '  var node: array<u32, NPT>;\n' : ''}${each(`  x[k] = key_of(needles_raw(min(tile * (WG * NPT) + k * WG + lid, P.needle_count - 1u)));
${tree ? '  node[k] = 1u;' : '  base[k] = 0u;\n  len[k] = P.hay_count;'}`)}
${tree ? `  for (var s = 0u; s < P.cached; s++) {
${indent(each(`  let go = goes(tree[node[k]], x[k]);
  node[k] = 2u * node[k] + u32(go);`), '  ')}
  }
  // The leaf: c splitters go, so the answer lies in [splitter(c) + 1, splitter(c + 1)] (from 0 for c = 0).
${each(`  let c = node[k] - (1u << P.cached);
  base[k] = select(splitter(c) + 1u, 0u, c == 0u);
  len[k] = splitter(c + 1u) - base[k];`)}` : ''}
  // The answer lies in [base, base + len]; a probe at base + len / 2 halves it. An empty range
  // may start at the haystack's end: its probes are clamped and change nothing.
  let last = max(P.hay_count, 1u) - 1u;
  for (var s = 0u; s < P.steps; s++) {
${indent(each(`  let half = len[k] >> 1u;
  base[k] += select(0u, half, goes(hay_key(min(base[k] + half, last)), x[k]));
  len[k] -= half;`), '  ')}
  }
  if (P.hay_count > 0u) {
${indent(each(`  // len is 0 or 1: one key left to compare.
  base[k] += len[k] & u32(goes(hay_key(min(base[k], last)), x[k]));`), '  ')}
  }
${each(`  let e = tile * (WG * NPT) + k * WG + lid;
  if (e < P.needle_count) {
    let r = base[k];
    ${o.kind === 'binary-search' ? 'out[e] = u32(r < P.hay_count && !less(x[k], hay_key(min(r, last))));' : 'out[e] = r;'}
  }`)}
}
`;
  const key = ['search', o.kind, t.name, WG, NPT, c.cacheLevels, o.less ?? '-'].join(':');
  return { key, label: `wgprim.${o.kind}.${t.name}`, code, bindings: ['uniform', 'read-only-storage', 'read-only-storage', 'storage'], workgroupSize: WG, userCode: custom };
}
