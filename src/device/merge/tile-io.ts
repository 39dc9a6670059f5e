// How the sorts' tile kernels (the radix sort's block sort and merge passes, the merge sort's,
// the merge's) reach their keys and values: loads, stores and the coalesced store of a sorted
// tile held in workgroup memory.
import { keyAccess } from '../radix-sort/access.js';
import { rawType } from '../../wgsl/thread/radix-key.js';
import { type TypeInfo } from '../../wgsl/types.js';
import { type BindingKind } from '../../wgsl/views.js';
import { sharedTileStore, type StagedLane } from '../../wgsl/workgroup/tile.js';

export const valueType = (valueBytes: 0 | 4 | 8): string => (valueBytes === 8 ? 'vec2<u32>' : 'u32');

/** WGSL reading 16-bit key e of `arr`, an array of words holding two keys each (low half first). */
export const halfKey = (arr: string, e: string): string => `(${arr}[(${e}) >> 1u] >> (((${e}) & 1u) * 16u)) & 0xffffu`;

/**
 * 16-bit keys: `store_key_pair(e, lo, hi, both)` writes keys e (even) and e + 1 (when both) to
 * `out`; without the second (the last of an odd count), the word's high half is past the keys
 * and stays as it was.
 */
export const storeKeyPair = (out: string): string => `fn store_key_pair(e: u32, lo: u32, hi: u32, both: bool) {
  if (both) { ${out}[e >> 1u] = lo | (hi << 16u); } else { ${out}[e >> 1u] = (${out}[e >> 1u] & 0xffff0000u) | lo; }
}`;

/**
 * `load_key(e)` / `store_key(e, x)` (and `load_val` / `store_val`) with their bindings from
 * binding 1 on: separate input and output buffers, or one read-write buffer (in place).
 */
export function accessors(key: TypeInfo, valueBytes: 0 | 4 | 8, keysInPlace: boolean, valuesInPlace: boolean): { code: string; bindings: BindingKind[] } {
  const K = rawType(key);
  const bindings: BindingKind[] = [];
  let code: string;
  if (key.bytes === 2) {
    // 16-bit keys, two to a word: a workgroup writes whole words of its own (tiles and merge
    // tiles start at even positions), each with one plain store (store_key_pair).
    const decl = keysInPlace
      ? '@group(0) @binding(1) var<storage, read_write> keys_io: array<u32>;'
      : '@group(0) @binding(1) var<storage, read> keys_in: array<u32>;\n@group(0) @binding(2) var<storage, read_write> keys_out: array<u32>;';
    const out = keysInPlace ? 'keys_io' : 'keys_out';
    code = `${decl}
fn load_key(e: u32) -> u32 { return ${halfKey(keysInPlace ? 'keys_io' : 'keys_in', 'e')}; }
${storeKeyPair(out)}`;
    bindings.push(...(keysInPlace ? ['storage' as const] : ['read-only-storage' as const, 'storage' as const]));
  } else if (!keysInPlace) {
    code = keyAccess(key, true);
    bindings.push('read-only-storage', 'storage');
  } else {
    code = `@group(0) @binding(1) var<storage, read_write> keys_io: array<${K}>;
fn load_key(e: u32) -> ${K} { return keys_io[e]; }
fn store_key(e: u32, x: ${K}) { keys_io[e] = x; }`;
    bindings.push('storage');
  }
  if (valueBytes !== 0) {
    const V = valueType(valueBytes);
    const b = 1 + bindings.length;
    if (valuesInPlace) {
      code += `
@group(0) @binding(${b}) var<storage, read_write> vals_io: array<${V}>;
fn load_val(e: u32) -> ${V} { return vals_io[e]; }
fn store_val(e: u32, v: ${V}) { vals_io[e] = v; }`;
      bindings.push('storage');
    } else {
      code += `
@group(0) @binding(${b}) var<storage, read> vals_in: array<${V}>;
@group(0) @binding(${b + 1}) var<storage, read_write> vals_out: array<${V}>;
fn load_val(e: u32) -> ${V} { return vals_in[e]; }
fn store_val(e: u32, v: ${V}) { vals_out[e] = v; }`;
      bindings.push('read-only-storage', 'storage');
    }
  }
  return { code, bindings: ['uniform', ...bindings] };
}

/** How a tile's store reads it: `key(x)` turns s_keys' entry x into raw bits; `at(i)` is where position i lies. */
export interface SharedTileRead {
  readonly key: (x: string) => string;
  readonly at?: (i: string) => string;
}

/** 16-bit keys: writes the sorted keys s_keys[0 .. n) to out_base + i, a word (two keys) per store; out_base is even. */
export function storeKeyWords(n: string, outBase: string, wg: string, read: SharedTileRead): string {
  const k = (i: string): string => read.key(`s_keys[${read.at ? read.at(i) : i}]`);
  return `  for (var w = lid; 2u * w < ${n}; w += ${wg}) {
    let i = 2u * w;
    store_key_pair(${outBase} + i, ${k('i')}, ${k('i + 1u')}, i + 1u < ${n});
  }`;
}

/**
 * Writes s_keys (and s_vals) [0 .. n) to out_base + i, coalesced: `items` rounds of `wg`
 * invocations (16-bit keys a word at a time).
 */
export function storeTile(o: { key: TypeInfo; valueBytes: 0 | 4 | 8 }, n: string, outBase: string, wg: string, items: string, read: SharedTileRead): string {
  const half = o.key.bytes === 2;
  const at = read.at ?? ((i: string): string => i);
  return `${half ? storeKeyWords(n, outBase, wg, read) : ''}
${sharedTileStore(n, wg, items, (i) => `${half ? '' : `store_key(${outBase} + ${i}, ${read.key(`s_keys[${at(i)}]`)});`}
      ${o.valueBytes !== 0 ? `store_val(${outBase} + ${i}, s_vals[${at(i)}]);` : ''}`)}`;
}

/**
 * What a sort tile's staged load (`stagedTileLoad`) fills: s_keys in the order's form
 * (`order_in`) and, with values, s_vals; `from(i)` is where tile position i is read, `at(i)`
 * where it lies in workgroup memory.
 */
export function tileLanes(K: string, valueBytes: 0 | 4 | 8, from: (i: string) => string, at: (i: string) => string): StagedLane[] {
  const keys: StagedLane = { type: K, load: (i) => `order_in(load_key(${from(i)}))`, store: (i, x) => `s_keys[${at(i)}] = ${x}` };
  if (valueBytes === 0) return [keys];
  return [keys, { type: valueType(valueBytes), load: (i) => `load_val(${from(i)})`, store: (i, x) => `s_vals[${at(i)}] = ${x}` }];
}
