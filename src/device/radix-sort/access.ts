import { type Kernel } from '../../runtime/kernel.js';
import { rawType } from '../../wgsl/thread/radix-key.js';
import { type TypeInfo } from '../../wgsl/types.js';
import { type BindingKind } from '../../wgsl/views.js';

// How the radix sort kernels reach the keys and values in global memory: one binding per array,
// or two where an array is past one storage binding's size.

/**
 * `load_key(e)` from `keys_in` and (scatter) `store_key(e, x)` to `keys_out` (split: also
 * `load_key_lo(e)`, for indices known to lie before the split; not for 16-bit keys). 16-bit keys are
 * packed two to a word, whose halves may be written by different workgroups: the host clears
 * the destination's whole words (`f16ClearBytes`) before the pass and a store sets its half with
 * one atomicOr. The last key of an odd count shares its word with no other key: that word is
 * not cleared (its high half, past the keys, is the caller's) and its one writer replaces the
 * low half. Needs `P.count`.
 */
export function keyAccess(t: TypeInfo, withStore: boolean, split?: SplitAt): string {
  const K = rawType(t);
  // Split: elements (16-bit keys: words) from `at` on are in the second bindings, keys_in_hi
  // (and keys_out_hi) at split.slot (and split.slot + 1).
  const at = split ? (t.bytes === 2 ? split.at / 2 : split.at) : 0;
  const pick = (arr: string, i: string, body: (ref: string) => string): string => (split
    ? `if (${i} < KEY_SPLIT) { ${body(`${arr}[${i}]`)} } else { ${body(`${arr}_hi[${i} - KEY_SPLIT]`)} }`
    : body(`${arr}[${i}]`));
  const hiDecls = split
    ? `const KEY_SPLIT = ${at}u;
@group(0) @binding(${split.slot}) var<storage, read> keys_in_hi: array<${t.bytes === 2 ? 'u32' : K}>;
${withStore ? `@group(0) @binding(${split.slot + 1}) var<storage, read_write> keys_out_hi: array<${t.bytes === 2 ? 'atomic<u32>' : K}>;` : ''}
`
    : '';
  if (t.bytes === 2) {
    const load = split
      ? `fn load_key(e: u32) -> u32 { let w = e >> 1u; var x: u32; ${pick('keys_in', 'w', (r) => `x = ${r};`)} return (x >> ((e & 1u) * 16u)) & 0xffffu; }`
      : 'fn load_key(e: u32) -> u32 { return (keys_in[e >> 1u] >> ((e & 1u) * 16u)) & 0xffffu; }';
    const or = split ? pick('keys_out', 'w', (r) => `atomicOr(&${r}, x << ((e & 1u) * 16u));`) : 'atomicOr(&keys_out[e >> 1u], x << ((e & 1u) * 16u));';
    const tail = split
      ? pick('keys_out', 'w', (r) => `atomicStore(&${r}, (atomicLoad(&${r}) & 0xffff0000u) | x);`)
      : 'atomicStore(&keys_out[e >> 1u], (atomicLoad(&keys_out[e >> 1u]) & 0xffff0000u) | x);';
    return `${hiDecls}@group(0) @binding(1) var<storage, read> keys_in: array<u32>;
${load}
${withStore ? `@group(0) @binding(2) var<storage, read_write> keys_out: array<atomic<u32>>;
fn store_key(e: u32, x: u32) {${split ? '\n  let w = e >> 1u;' : ''}
  if ((e | 1u) < P.count) {
    ${or}
  } else {
    ${tail}
  }
}` : ''}`;
  }
  return `${hiDecls}@group(0) @binding(1) var<storage, read> keys_in: array<${K}>;
${split ? `fn load_key(e: u32) -> ${K} { ${pick('keys_in', 'e', (r) => `return ${r};`)} }
fn load_key_lo(e: u32) -> ${K} { return keys_in[e]; }` : `fn load_key(e: u32) -> ${K} { return keys_in[e]; }`}
${withStore ? `@group(0) @binding(2) var<storage, read_write> keys_out: array<${K}>;
${split ? `fn store_key(e: u32, x: ${K}) { ${pick('keys_out', 'e', (r) => `${r} = x;`)} }` : `fn store_key(e: u32, x: ${K}) { keys_out[e] = x; }`}` : ''}`;
}

/**
 * An array bound as two ranges: elements [0, at) in the usual binding and [at, ...) in a
 * second one, declared at binding `slot` (a read-write array's second one at slot + 1).
 */
export interface SplitAt {
  readonly at: number;
  readonly slot: number;
}

/** Where the keys' and values' arrays continue in second bindings (element indices); absent: one binding each. */
export interface RadixSplit {
  readonly keys?: number;
  readonly values?: number;
}

/** Pipeline key suffix of a split variant ('' for the common case). */
export const splitKey = (split: RadixSplit | undefined): string =>
  (split?.keys !== undefined ? `:sk${split.keys}` : '') + (split?.values !== undefined ? `:sv${split.values}` : '');

/**
 * A run of loads through `load(fn)` (fn: the load function's name). Keys past one binding: a
 * run whose indices all lie before the split (`end`, an upper bound, at most KEY_SPLIT) loads
 * from the first binding alone (`load_key_lo`: one uniform branch, not one per key, which
 * costs far more).
 */
export function splitLoads(t: TypeInfo, split: SplitAt | undefined, end: string, load: (fn: string) => string): string {
  if (split === undefined || t.bytes === 2) return load('load_key');
  return splitRun('KEY_SPLIT', end, load('load_key_lo'), load('load_key'));
}

/** `lo` where a run that ends before `end` (an upper bound) lies wholly before the split `at`, else `full`. */
export function splitRun(at: string, end: string, lo: string, full: string): string {
  return `    if (${end} <= ${at}) {
${lo}
    } else {
${full}
    }`;
}

/**
 * Values: `vals_in` at binding `inSlot`, `vals_out` at inSlot + 1, and the WGSL expressions that
 * load element e and store x at e. Split: vals_in_hi / vals_out_hi at split.slot, + 1, chosen by
 * index; `loads` wraps a run of loads ending before `end` so that a run wholly before the split
 * loads from the first binding alone (as `splitLoads` for keys).
 */
export function valueAccess(V: string, inSlot: number, split?: SplitAt): {
  code: string;
  load: (e: string) => string;
  store: (e: string, x: string) => string;
  loads: (end: string, run: (load: (e: string) => string) => string) => string;
} {
  const code = `@group(0) @binding(${inSlot}) var<storage, read> vals_in: array<${V}>;
@group(0) @binding(${inSlot + 1}) var<storage, read_write> vals_out: array<${V}>;`;
  const lo = (e: string): string => `vals_in[${e}]`;
  if (!split) return { code, load: lo, store: (e, x) => `vals_out[${e}] = ${x}`, loads: (_end, run) => run(lo) };
  return {
    code: `${code}
@group(0) @binding(${split.slot}) var<storage, read> vals_in_hi: array<${V}>;
@group(0) @binding(${split.slot + 1}) var<storage, read_write> vals_out_hi: array<${V}>;
const VAL_SPLIT = ${split.at}u;
fn load_val(e: u32) -> ${V} { if (e < VAL_SPLIT) { return vals_in[e]; } return vals_in_hi[e - VAL_SPLIT]; }
fn store_val(e: u32, x: ${V}) { if (e < VAL_SPLIT) { vals_out[e] = x; } else { vals_out_hi[e - VAL_SPLIT] = x; } }`,
    load: (e) => `load_val(${e})`,
    store: (e, x) => `store_val(${e}, ${x})`,
    loads: (end, run) => splitRun('VAL_SPLIT', end, run(lo), run((e) => `load_val(${e})`)),
  };
}

/** The second bindings' slots after `bindings` (appended to it): keys (in, and out with stores), then values (in, out). */
export function splitSlots(bindings: BindingKind[], split: RadixSplit | undefined, withStore: boolean, pairs: boolean): { keys?: SplitAt; values?: SplitAt } {
  const out: { keys?: SplitAt; values?: SplitAt } = {};
  if (split?.keys !== undefined) {
    out.keys = { at: split.keys, slot: bindings.length };
    bindings.push('read-only-storage', ...(withStore ? ['storage' as const] : []));
  }
  if (pairs && split?.values !== undefined) {
    out.values = { at: split.values, slot: bindings.length };
    bindings.push('read-only-storage', 'storage');
  }
  return out;
}

/** Bytes at the front of a 16-bit key destination that the host clears before a scatter pass: its whole words. */
export const f16ClearBytes = (count: number): number => Math.floor(count / 2) * 4;

/** Zeroes the words of its binding (one per invocation; arrayLength gives the count): clears a buffer without COPY_DST. */
export function zeroWordsKernel(): Kernel {
  const code = `@group(0) @binding(0) var<storage, read_write> w: array<u32>;
@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = (wid.x + wid.y * nwg.x) * 256u + lid;
  if (i < arrayLength(&w)) { w[i] = 0u; }
}
`;
  return { key: 'radix-zero-words', label: 'wgprim.radixSort.zeroWords', code, bindings: ['storage'], workgroupSize: 256 };
}
