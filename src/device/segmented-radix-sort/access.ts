import { rawType } from '../../wgsl/thread/radix-key.js';
import { type TypeInfo } from '../../wgsl/types.js';

/**
 * Raw key access: `load_in(e)` from `keys_in` (binding `at`), `load_out` / `store_out` on
 * `keys_out` (binding `at + 1`). In place there is one read-write binding (`at`) and `load_in`
 * reads it: a segment's keys are read before the segment's workgroup (or subgroup) writes them.
 */
export function rawKeyAccess(t: TypeInfo, at: number, inPlace: boolean): string {
  const K = rawType(t);
  const outAt = inPlace ? at : at + 1;
  if (t.bytes === 2) {
    // 16-bit keys are packed two to a word: a store clears and sets its own half with two
    // atomics, so workgroups writing the halves of one word (neighbouring segments) never lose a key.
    return `${inPlace ? '' : `@group(0) @binding(${at}) var<storage, read> keys_in: array<u32>;\n`}@group(0) @binding(${outAt}) var<storage, read_write> keys_out: array<atomic<u32>>;
fn load_out(e: u32) -> u32 { return (atomicLoad(&keys_out[e >> 1u]) >> ((e & 1u) * 16u)) & 0xffffu; }
fn load_in(e: u32) -> u32 { return ${inPlace ? 'load_out(e)' : '(keys_in[e >> 1u] >> ((e & 1u) * 16u)) & 0xffffu'}; }
fn store_out(e: u32, x: u32) {
  let s = (e & 1u) * 16u;
  atomicAnd(&keys_out[e >> 1u], ~(0xffffu << s));
  atomicOr(&keys_out[e >> 1u], x << s);
}`;
  }
  return `${inPlace ? '' : `@group(0) @binding(${at}) var<storage, read> keys_in: array<${K}>;\n`}@group(0) @binding(${outAt}) var<storage, read_write> keys_out: array<${K}>;
fn load_in(e: u32) -> ${K} { return ${inPlace ? 'keys_out[e]' : 'keys_in[e]'}; }
fn load_out(e: u32) -> ${K} { return keys_out[e]; }
fn store_out(e: u32, x: ${K}) { keys_out[e] = x; }`;
}

/**
 * WGSL \`segment_bounds(s)\`: segment s's [begin, end) clamped to [0, P.count), an end before
 * its begin an empty segment; the ends are \`ends[s + P.end_shift]\` (end_shift 1: the begins
 * shifted by one). Needs \`begins\`, \`ends\` and those params.
 */
export const SEGMENT_BOUNDS_FN = `fn segment_bounds(s: u32) -> vec2<u32> {
  let e = min(ends[s + P.end_shift], P.count);
  return vec2<u32>(min(begins[s], e), e);
}`;

/**
 * The sort's view of its three buffers (0 input, 1 output, 2 scratch): `load_key(src, e)` gives
 * element e's ordered bits, `store_key(dst, e, y)` stores them (the scratch holds ordered bits,
 * the output raw keys), and `load_val` / `store_val` likewise (`vin`: the values' source
 * array). The scratch keeps keys from word 0 (two words a 64-bit key) and values from
 * `P.tmp_vals`. Needs rawKeyAccess, the key functions and the bindings.
 */
export function scratchAccess(t: TypeInfo, valueBytes: 0 | 4 | 8, vin: string): string {
  const K = rawType(t);
  const V = valueBytes === 8 ? 'vec2<u32>' : 'u32';
  const tmpKey = t.bytes === 8
    ? `fn load_tmp(e: u32) -> vec2<u32> { return vec2<u32>(tmp[2u * e], tmp[2u * e + 1u]); }
fn store_tmp(e: u32, y: vec2<u32>) { tmp[2u * e] = y.x; tmp[2u * e + 1u] = y.y; }`
    : `fn load_tmp(e: u32) -> u32 { return tmp[e]; }
fn store_tmp(e: u32, y: u32) { tmp[e] = y; }`;
  const tmpVal = valueBytes === 8
    ? `fn load_tmp_val(e: u32) -> vec2<u32> { let w = P.tmp_vals + 2u * e; return vec2<u32>(tmp[w], tmp[w + 1u]); }
fn store_tmp_val(e: u32, x: vec2<u32>) { let w = P.tmp_vals + 2u * e; tmp[w] = x.x; tmp[w + 1u] = x.y; }`
    : `fn load_tmp_val(e: u32) -> u32 { return tmp[P.tmp_vals + e]; }
fn store_tmp_val(e: u32, x: u32) { tmp[P.tmp_vals + e] = x; }`;
  return `${tmpKey}
// Ordered bits of element e of buffer src (0 input, 1 output, 2 scratch); the scratch holds ordered bits.
fn load_key(src: u32, e: u32) -> ${K} {
  if (src == 0u) { return to_ordered(load_in(e)); }
  if (src == 1u) { return to_ordered(load_out(e)); }
  return load_tmp(e);
}
fn store_key(dst: u32, e: u32, y: ${K}) {
  if (dst == 1u) { store_out(e, from_ordered(y)); } else { store_tmp(e, y); }
}
${valueBytes === 0 ? '' : `${tmpVal}
fn load_val(src: u32, e: u32) -> ${V} {
  if (src == 0u) { return ${vin}[e]; }
  if (src == 1u) { return vals_out[e]; }
  return load_tmp_val(e);
}
fn store_val(dst: u32, e: u32, x: ${V}) {
  if (dst == 1u) { vals_out[e] = x; } else { store_tmp_val(e, x); }
}`}`;
}
