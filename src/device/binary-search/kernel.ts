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

/** What the search's kernels share: the order, the haystack's keys in it, and which way a probe sends a needle. */
export interface SearchComparison {
  readonly kind: SearchKind;
  readonly type: TypeInfo;
  /** WGSL `bool` expression over `a` and `b` of the key type; absent: the total order of the radix sort. */
  readonly less?: string;
}

/**
 * WGSL of the comparison domain `C` (ordered bits under the default order, one unsigned compare;
 * the key's own type under a custom one), with the haystack bound at `hayBinding` and the needles
 * at `needleBinding`: `less`, `key_of`, `hay_key(i)`, and `goes(pivot, x)`, whether the answer
 * lies past `pivot` (lower bound: past keys less than the needle; upper bound: past keys not greater).
 */
export function searchComparisonWgsl(o: SearchComparison, hayBinding: number, needleBinding: number): { readonly C: string; readonly code: string } {
  const t = o.type;
  const custom = o.less !== undefined;
  const K = rawType(t);
  const C = custom ? t.wgsl : K;
  const lessFn = custom
    ? `fn less(a: ${C}, b: ${C}) -> bool { return ${o.less}; }`
    : `${keyLess(t)}\nfn less(a: ${C}, b: ${C}) -> bool { return key_less(a, b); }`;
  const code = `${custom ? typeEnables(t).join('\n') : ''}
${t.is64 ? INT64_HELPERS : ''}
${rawKeyArrayWgsl('hay', t, 'read', hayBinding, custom)}
${rawKeyArrayWgsl('needles', t, 'read', needleBinding, false)}
${keyFunctions(t, false, { rawIn: true, rawOut: true, descending: false })}
${lessFn}
fn key_of(x: ${K}) -> ${C} { return ${custom ? 'hay_value(x)' : 'to_ordered(x)'}; }
fn hay_key(i: u32) -> ${C} { return key_of(hay_raw(i)); }
fn goes(pivot: ${C}, x: ${C}) -> bool { return ${o.kind === 'upper-bound' ? '!less(x, pivot)' : 'less(pivot, x)'}; }`;
  return { C, code };
}

/**
 * The splitter tree in workgroup memory: the 2^levels - 1 haystack keys at j * n / 2^levels, in
 * breadth-first order (level s reads 2^s neighbouring nodes: few bank conflicts), loaded once per
 * workgroup at positions in closed form. `levels` is a WGSL u32 (at most `capacity`, and
 * 2^levels <= n); a walk of it leaves node 2^levels + c, c the splitters the needle goes past, so
 * the answer lies in [splitter(c) + 1, splitter(c + 1)] (from 0 for c = 0). Needles walk it
 * level by level in lockstep, as they search.
 */
export function splitterTreeWgsl(C: string, capacity: number, levels: string): { readonly decls: string; readonly build: string; readonly step: (x: string, node: string) => string } {
  return {
    decls: `var<workgroup> tree: array<${C}, ${1 << capacity}>;
// Position of splitter j (0 to 2^levels): floor(j * n / 2^levels), without overflowing 32 bits.
fn splitter(j: u32) -> u32 {
  let n = P.hay_count;
  return j * (n >> ${levels}) + ((j * (n & ((1u << ${levels}) - 1u))) >> ${levels});
}`,
    // Node i at level s = firstLeadingBit(i) is splitter (2 (i - 2^s) + 1) 2^(levels - 1 - s).
    build: `for (var i = lid + 1u; i < (1u << ${levels}); i += WG) {
  let s = firstLeadingBit(i);
  tree[i] = hay_key(splitter((2u * (i - (1u << s)) + 1u) << (${levels} - 1u - s)));
}
workgroupBarrier();`,
    // One level down (from node 1, `levels` times).
    step: (x, node) => `${node} = 2u * ${node} + u32(goes(tree[${node}], ${x}));`,
  };
}

/** At most 2^10 buckets (./buckets.ts): 1024 stretches of the haystack, 8-17 KiB of workgroup memory. */
export const MAX_BUCKET_LEVELS = 10;
/** Words of the buckets' state: a count and a cursor a bucket. */
export const BUCKET_STATE_WORDS = 2 << MAX_BUCKET_LEVELS;

export interface SearchKernelOptions extends SearchComparison {
  readonly config: BinarySearchConfig;
  /**
   * Needles in bucket order: position p searches needle perm[p] (binding 4) and answers there;
   * workgroup 0 zeroes the buckets' state (binding 5) for the next call, the bucket passes done.
   */
  readonly gather?: boolean;
}

/**
 * Each invocation searches `needlesPerThread` needles in lockstep (unrolled, so their state
 * stays in registers and their loads are in flight together). First through the splitter tree
 * (`cacheLevels` of it): its leaf leaves a range of at most ceil(n / 2^cached) keys, which a
 * branchless search with a fixed trip count finishes in global memory.
 */
export function searchKernel(o: SearchKernelOptions): Kernel {
  const { type: t, config: c } = o;
  const WG = c.workgroupSize;
  const NPT = c.needlesPerThread;
  const gather = o.gather === true;
  const { C, code: order } = searchComparisonWgsl(o, 1, 2);
  const tree = c.cacheLevels > 0;
  const splitters = splitterTreeWgsl(C, c.cacheLevels, 'P.cached');
  const each = (body: string): string => indent(unroll(NPT, 'k', body), '  ');
  // Where needle k of this invocation comes from and answers to.
  const position = 'min(tile * (WG * NPT) + k * WG + lid, P.needle_count - 1u)';
  const code = `${paramsStruct(SEARCH_PARAMS)}
@group(0) @binding(0) var<uniform> P: Params;
${order}
@group(0) @binding(3) var<storage, read_write> out: array<u32>;
${gather ? `@group(0) @binding(4) var<storage, read> perm: array<u32>;
@group(0) @binding(5) var<storage, read_write> state: array<u32, ${BUCKET_STATE_WORDS}>;` : ''}
const WG = ${WG}u;
const NPT = ${NPT}u;
${tree ? splitters.decls : ''}

@compute @workgroup_size(WG)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let tile = ${LINEAR_WORKGROUP_ID};
  if (tile >= P.num_tiles) { return; }
${gather ? `  if (tile == 0u) {
    for (var i = lid; i < ${BUCKET_STATE_WORDS}u; i += WG) { state[i] = 0u; }
  }` : ''}
${tree ? indent(splitters.build, '  ') : ''}
  var e: array<u32, NPT>;
  var x: array<${C}, NPT>;
  var base: array<u32, NPT>;
  var len: array<u32, NPT>;
${tree ? '  var node: array<u32, NPT>;\n' : ''}${each(`  e[k] = ${gather ? `perm[${position}]` : position};
  x[k] = key_of(needles_raw(e[k]));${tree ? '\n  node[k] = 1u;' : ''}`)}
${tree ? `  for (var s = 0u; s < P.cached; s++) {
${indent(each(splitters.step('x[k]', 'node[k]')), '  ')}
  }
${each(`  let c = node[k] - (1u << P.cached);
  base[k] = select(splitter(c) + 1u, 0u, c == 0u);
  len[k] = splitter(c + 1u) - base[k];`)}` : each('  base[k] = 0u;\n  len[k] = P.hay_count;')}
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
${each(`  if (tile * (WG * NPT) + k * WG + lid < P.needle_count) {
    let r = base[k];
    ${o.kind === 'binary-search' ? 'out[e[k]] = u32(r < P.hay_count && !less(x[k], hay_key(min(r, last))));' : 'out[e[k]] = r;'}
  }`)}
}
`;
  const key = ['search', o.kind, t.name, WG, NPT, c.cacheLevels, gather ? 'gather' : 'direct', o.less ?? '-'].join(':');
  const bindings = ['uniform', 'read-only-storage', 'read-only-storage', 'storage', ...(gather ? ['read-only-storage', 'storage'] as const : [])] as const;
  return { key, label: `wgprim.${o.kind}.${t.name}`, code, bindings: [...bindings], workgroupSize: WG, userCode: o.less !== undefined };
}
