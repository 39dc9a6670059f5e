import { type Kernel, paramsStruct } from '../../runtime/kernel.js';
import { EARLY_EXIT_DECLS, earlyExitFinish, earlyExitLoop, earlyExitRecord, type SearchOrder } from '../../wgsl/device/early-exit.js';
import { fromWords, type TypeInfo } from '../../wgsl/types.js';
import { typesHeader } from '../../wgsl/prelude.js';
import { type BindingKind, viewBindings, viewWgsl, wordElements } from '../../wgsl/views.js';
import { type FindConfig } from './config.js';

/**
 * The find family's scanner: candidate position p of a tile matches when
 * - adjacent: `eq(in[p], in[p + 1])`;
 * - first-of: `eq(in[p], targets[k])` for some k (`aux` holds the targets);
 * - search: `eq(in[p + k], pattern[k])` for every k (`aux` holds the pattern; brute force from
 *   each candidate, as rocPRIM's, stopping at the first mismatch);
 * - run: `eq(in[p + k], value)` for k < n, tested only where a run of such elements starts (the
 *   first run of n copies begins at a run's head, so each run is walked once, by its head).
 * Tiles go through the early-exit loop (src/wgsl/device/early-exit.ts). On a tile
 * inside the input's vector part an invocation issues all its 16-byte loads at once (word k at
 * `w0 + k * WG`, coalesced), plus for adjacent one element past each word (in the next
 * invocation's word, so a cache hit); the last tile goes element by element.
 */
export type FindKind = 'adjacent' | 'first-of' | 'search' | 'run';

export const FIND_PARAMS = ['num_cand', 'num_tiles', 'in_tail', 'fast_end', 'aux_count', 'aux_tail', 'value_lo', 'value_hi', 'none', 'zero'] as const;

/** Targets or pattern elements a workgroup keeps in workgroup memory (the rest are read from the buffer). */
export const AUX_CACHED = 256;

/**
 * How findFirstOf tells whether an element is a target:
 * - `compare`: every target read once per invocation per tile and compared with all of the
 *   invocation's elements in registers (one compare-and-or each): the cheapest for a few targets,
 *   and the only way under a custom equality;
 * - `filter`: a bitmap of hashed target keys in workgroup memory first (one workgroup-memory
 *   read an element; a non-target passes with probability targets / FILTER_BITS), and only an
 *   element that passes is compared with the targets;
 * - `filter-sorted`: the same, the passing element binary-searched in the targets, sorted once a
 *   workgroup in workgroup memory (log2(targets) reads instead of one a target).
 */
export type FirstOfLookup = 'compare' | 'filter' | 'filter-sorted';

/**
 * Target counts from which the filter pays: the compares cost one instruction a target an
 * element, the filter about ten (a hash, the bitmap read and its test) and a branch.
 */
export const FILTERED_TARGETS_FROM = 8;
/** Target counts from which a passing element is binary-searched rather than compared. */
export const SORTED_TARGETS_FROM = 33;
/** Bits of the filter: 2 KB of workgroup memory; 16 targets let one non-target in 1,024 through. */
export const FILTER_LOG2 = 14;

/** The lookup findFirstOf takes for `targets` targets (the filter and the sort need the default equality). */
export function firstOfLookup(targets: number, customEquality: boolean): FirstOfLookup {
  if (customEquality || targets < FILTERED_TARGETS_FROM) return 'compare';
  return targets >= SORTED_TARGETS_FROM && targets <= AUX_CACHED ? 'filter-sorted' : 'filter';
}

export interface FindKernelOptions {
  readonly kind: FindKind;
  readonly order: SearchOrder;
  readonly type: TypeInfo;
  /** WGSL expression over `a` and `b` (the element, then the target, pattern element or value). */
  readonly equality: string;
  /** The equality is the caller's: its compile errors are the caller's (`invalid-operator`). */
  readonly custom: boolean;
  /** first-of: how an element is looked up among the targets (`firstOfLookup`); `compare` by default. */
  readonly lookup?: FirstOfLookup;
  readonly config: FindConfig;
}

/** Default equality: bitwise for integers, `==` for floats (-0 equals +0; NaN equals nothing). */
export function defaultFindEquality(t: TypeInfo): string {
  return t.is64 ? 'all(a == b)' : 'a == b';
}

/**
 * `lookup_key(x)`: bits equal exactly where the default equality can hold (floats' -0 as +0; a
 * NaN's bits are a key like any other, its `==` then fails), `key_less`, a total order on them,
 * and `filter_hash`, the key's bit in the filter (Fibonacci hashing: the product's top bits).
 */
function lookupKey(t: TypeInfo): string {
  if (t.is64) {
    return `fn lookup_key(x: vec2<u32>) -> vec2<u32> { return x; }
fn key_less(a: vec2<u32>, b: vec2<u32>) -> bool { return a.y < b.y || (a.y == b.y && a.x < b.x); }
fn key_same(a: vec2<u32>, b: vec2<u32>) -> bool { return all(a == b); }
fn filter_hash(k: vec2<u32>) -> u32 { return ((k.x ^ (k.y * 0x85ebca77u)) * 0x9e3779b1u) >> (32u - FILTER_LOG2); }`;
  }
  const bits = t.name === 'f16' ? 'bitcast<u32>(vec2<f16>(x, 0.0h))' : `bitcast<u32>(x)`;
  const sign = t.name === 'f16' ? '0x8000u' : '0x80000000u';
  const body = t.isFloat ? `let b = ${bits};
  return select(b, 0u, b == ${sign});` : `return ${bits};`;
  return `fn lookup_key(x: ${t.wgsl}) -> u32 {
  ${body}
}
fn key_less(a: u32, b: u32) -> bool { return a < b; }
fn key_same(a: u32, b: u32) -> bool { return a == b; }
fn filter_hash(k: u32) -> u32 { return (k * 0x9e3779b1u) >> (32u - FILTER_LOG2); }`;
}

export function findKernel(o: FindKernelOptions): Kernel {
  const { type: t, config: c, kind, order } = o;
  const T = t.wgsl;
  const WG = c.workgroupSize;
  const E = wordElements(t);
  const V = c.itemsPerThread / E;
  const lookup = kind === 'first-of' ? o.lookup ?? 'compare' : 'compare';
  const sorted = lookup === 'filter-sorted';
  const filtered = lookup !== 'compare';
  const bindings: BindingKind[] = ['uniform'];
  const decls: string[] = [viewWgsl({ name: 'in', type: t, access: 'read', tailStart: 'P.in_tail', words: true }, bindings.length)];
  bindings.push(...viewBindings({ access: 'read' }));
  if (kind === 'first-of' || kind === 'search') {
    decls.push(viewWgsl({ name: 'aux', type: t, access: 'read', tailStart: 'P.aux_tail' }, bindings.length));
    bindings.push(...viewBindings({ access: 'read' }));
  }
  decls.push(`@group(0) @binding(${bindings.length}) var<storage, read_write> state: array<atomic<u32>>;
@group(0) @binding(${bindings.length + 1}) var<storage, read_write> out: array<u32>;`);
  bindings.push('storage', 'storage');

  // Targets and pattern are read by every candidate: the first AUX_CACHED wait in workgroup
  // memory (rocPRIM caches them too), loaded once a workgroup.
  const staged = kind === 'first-of' || kind === 'search';
  const stage = staged ? `var<workgroup> sh_aux: array<${T}, AUX_CACHED>;
fn aux_get(k: u32) -> ${T} {
  if (k < AUX_CACHED) { return sh_aux[k]; }
  return aux_at(k);
}` : '';
  // Sorting: each invocation ranks a few targets against all (ties by index, so the ranks are a
  // permutation), then writes them to their ranks; AUX_CACHED^2 / WG compares, once a workgroup.
  const R = Math.ceil(AUX_CACHED / WG);
  const sortStage = sorted ? `
  var ranked: array<${T}, ${R}>;
  var ranks: array<u32, ${R}>;
  for (var r = 0u; r < ${R}u; r++) {
    let i = r * WG + lid;
    if (i < P.aux_count) {
      let x = sh_aux[i];
      let kx = lookup_key(x);
      var rank = 0u;
      for (var j = 0u; j < P.aux_count; j++) {
        let kj = lookup_key(sh_aux[j]);
        rank += select(0u, 1u, key_less(kj, kx) | ((j < i) & key_same(kj, kx)));
      }
      ranked[r] = x;
      ranks[r] = rank;
    }
  }
  workgroupBarrier();
  for (var r = 0u; r < ${R}u; r++) {
    let i = r * WG + lid;
    if (i < P.aux_count) { sh_aux[ranks[r]] = ranked[r]; }
  }
  workgroupBarrier();` : '';
  // The filter: every target's bit set (atomically: targets share words), then copied to a plain
  // array, which the elements read.
  const filterStage = filtered ? `
  for (var i = lid; i < P.aux_count; i += WG) {
    let h = filter_hash(lookup_key(aux_get(i)));
    atomicOr(&sh_filter_bits[h >> 5u], 1u << (h & 31u));
  }
  workgroupBarrier();
  for (var i = lid; i < FILTER_WORDS; i += WG) { sh_filter[i] = atomicLoad(&sh_filter_bits[i]); }
  workgroupBarrier();` : '';
  const loadStage = staged ? `
  for (var i = lid; i < min(P.aux_count, AUX_CACHED); i += WG) { sh_aux[i] = aux_at(i); }
  workgroupBarrier();${sortStage}${filterStage}${kind === 'search' ? `
  aux_first = sh_aux[0];` : ''}` : '';

  const firstOf = sorted
    ? `// The last sorted target whose key is at most x's (branchless: the steps depend on the count only).
fn is_target(x: ${T}) -> bool {
  let kx = lookup_key(x);
  var lo = 0u;
  var n = P.aux_count;
  while (n > 1u) {
    let half = n >> 1u;
    lo = select(lo + half, lo, key_less(kx, lookup_key(sh_aux[lo + half])));
    n -= half;
  }
  return eq(x, sh_aux[lo]);
}`
    : `fn is_target(x: ${T}) -> bool {
  for (var k = 0u; k < P.aux_count; k++) { if (eq(x, aux_get(k))) { return true; } }
  return false;
}`;
  const matchFn: Record<FindKind, string> = {
    adjacent: `fn is_match(p: u32, x: ${T}) -> bool { return eq(x, in_at(p + 1u)); }`,
    'first-of': `${firstOf}${filtered ? `
var<workgroup> sh_filter_bits: array<atomic<u32>, FILTER_WORDS>;
var<workgroup> sh_filter: array<u32, FILTER_WORDS>;
fn maybe_target(x: ${T}) -> bool {
  let h = filter_hash(lookup_key(x));
  return ((sh_filter[h >> 5u] >> (h & 31u)) & 1u) != 0u;
}` : ''}
fn is_match(p: u32, x: ${T}) -> bool { return ${filtered ? 'maybe_target(x) && ' : ''}is_target(x); }`,
    search: `var<private> aux_first: ${T};
fn is_match(p: u32, x: ${T}) -> bool {
  if (!eq(x, aux_first)) { return false; }
  for (var k = 1u; k < P.aux_count; k++) { if (!eq(in_at(p + k), aux_get(k))) { return false; } }
  return true;
}`,
    run: `fn is_match(p: u32, x: ${T}) -> bool {
  let v = ${fromWords(t, 'vec2<u32>(P.value_lo, P.value_hi)')};
  if (!eq(x, v) || (p > 0u && eq(in_at(p - 1u), v))) { return false; }
  for (var k = 1u; k < P.aux_count; k++) { if (!eq(in_at(p + k), v)) { return false; } }
  return true;
}`,
  };

  // The fast path, generated item by item so that the words stay in registers.
  const pos = (k: number, i: number): string => `(w0 + ${k}u * WG) * E + ${i}u`;
  const record = (k: number, i: number): string => earlyExitRecord(order, pos(k, i));
  const items = (f: (k: number, i: number) => string): string =>
    Array.from({ length: V }, (_, k) => Array.from({ length: E }, (_, i) => `        ${f(k, i)}`).join('\n')).join('\n');
  const loads = `        var xs: array<array<${T}, E>, V>;${kind === 'adjacent' ? `
        var nx: array<${T}, V>;` : ''}
${Array.from({ length: V }, (_, k) => `        xs[${k}] = in_word(w0 + ${k}u * WG);${kind === 'adjacent' ? ` nx[${k}] = in_at((w0 + ${k}u * WG + 1u) * E);` : ''}`).join('\n')}`;
  let test: string;
  if (kind === 'adjacent') {
    test = items((k, i) => `if (eq(xs[${k}][${i}], ${i + 1 < E ? `xs[${k}][${i + 1}]` : `nx[${k}]`})) { ${record(k, i)} }`);
  } else if (kind === 'first-of' && !filtered) {
    // Each target is read once and compared with every element held (`|`: no short circuit).
    test = `        var hit: array<array<bool, E>, V>;
        for (var j = 0u; j < P.aux_count; j++) {
          let a = aux_get(j);
${items((k, i) => `  hit[${k}][${i}] = hit[${k}][${i}] | eq(xs[${k}][${i}], a);`)}
        }
${items((k, i) => `if (hit[${k}][${i}]) { ${record(k, i)} }`)}`;
  } else if (filtered) {
    // Every element through the filter first, into pass bits (no branch between the
    // workgroup-memory reads, so they are issued together); the rare passes are looked up after.
    const n = (k: number, i: number): number => k * E + i;
    const words = Math.ceil((V * E) / 32);
    const masks = Array.from({ length: words }, (_, w) => `pass_${w}`);
    const bit = (k: number, i: number): string => `(${masks[n(k, i) >> 5]} & ${2 ** (n(k, i) & 31) >>> 0}u) != 0u`;
    test = `${masks.map((m) => `        var ${m} = 0u;`).join('\n')}
${items((k, i) => `${masks[n(k, i) >> 5]} |= select(0u, ${2 ** (n(k, i) & 31) >>> 0}u, maybe_target(xs[${k}][${i}]));`)}
        if ((${masks.join(' | ')}) != 0u) {
${items((k, i) => `  if (${bit(k, i)} && is_target(xs[${k}][${i}])) { ${record(k, i)} }`)}
        }`;
  } else {
    test = items((k, i) => `if (is_match(${pos(k, i)}, xs[${k}][${i}])) { ${record(k, i)} }`);
  }

  const body = `    // This invocation's first word in the tile; its k-th is w0 + k * WG.
    let w0 = tile * (TILE / E) + lid;
    if ((tile + 1u) * TILE <= P.fast_end) {
${loads}
${test}
    } else {
      for (var k = 0u; k < V; k++) {
        for (var i = 0u; i < E; i++) {
          let p = (w0 + k * WG) * E + i;
          if (p < P.num_cand && is_match(p, in_at(p))) { ${earlyExitRecord(order, 'p')} }
        }
      }
    }`;

  const loop = { order, assignment: c.assignment, state: 'state', best: '0u', ticket: '1u', workgroup: 'wid.x', workgroups: 'nwg.x', numTiles: 'P.num_tiles', tileSize: 'TILE' } as const;
  const code = `${typesHeader([t])}
${paramsStruct(FIND_PARAMS)}
@group(0) @binding(0) var<uniform> P: Params;
${decls.join('\n')}
const WG = ${WG}u;
const E = ${E}u;
const V = ${V}u;
const TILE = ${WG * c.itemsPerThread}u;
${EARLY_EXIT_DECLS}
const AUX_CACHED = ${AUX_CACHED}u;${filtered ? `
const FILTER_LOG2 = ${FILTER_LOG2}u;
const FILTER_WORDS = ${2 ** FILTER_LOG2 / 32}u;` : ''}
${stage}
fn eq(a: ${T}, b: ${T}) -> bool { return ${o.equality}; }
${filtered ? lookupKey(t) : ''}
${matchFn[kind]}

@compute @workgroup_size(WG)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {${loadStage}
${earlyExitLoop(loop, body)}
${earlyExitFinish({ ...loop, done: '2u', zero: 'P.zero', none: 'P.none' }, (answer) => `out[0] = ${answer};`)}
}
`;
  const key = ['find', kind, order, t.name, WG, c.itemsPerThread, c.assignment, lookup, o.equality].join(':');
  return { key, label: `wgprim.find.${kind}.${order}.${t.name}`, code, bindings, workgroupSize: WG, userCode: o.custom };
}

/** Writes an answer known without a scan (`P.answer`) into the output. */
export function findAnswerKernel(): Kernel {
  const code = `struct Params { answer: u32 }
@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(1)
fn main() {
  out[0] = P.answer;
}
`;
  return { key: 'find-answer', label: 'wgprim.find.answer', code, bindings: ['uniform', 'storage'], workgroupSize: 1 };
}
