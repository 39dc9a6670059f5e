import { type TypeInfo } from '../types.js';
import { rawType } from '../thread/radix-key.js';

/**
 * An array of keys bound as their raw bits, for random access (searches, selections): one u32
 * per 32-bit key, a vec2<u32> (x = low word) per 64-bit key, and 16-bit keys two to a word.
 * `<name>_raw(i)` is key i's bits (a 16-bit key in the low half), `<name>_value(raw)` the
 * bits as the key type (what a custom WGSL comparison sees), and for writable arrays
 * `<name>_store_raw(i, bits)` (32- and 64-bit keys only: two 16-bit keys share a word).
 * The binding covers the keys rounded up to whole words. Without `withValue` nothing names the
 * key type, so 16-bit float keys need no `shader-f16`.
 */
export function rawKeyArrayWgsl(name: string, t: TypeInfo, access: 'read' | 'read_write', binding: number, withValue = true): string {
  const K = rawType(t);
  const half = t.bytes === 2;
  const lines = [`@group(0) @binding(${binding}) var<storage, ${access}> ${name}: array<${K}>;`];
  lines.push(half
    ? `fn ${name}_raw(i: u32) -> u32 { return (${name}[i >> 1u] >> ((i & 1u) * 16u)) & 0xffffu; }`
    : `fn ${name}_raw(i: u32) -> ${K} { return ${name}[i]; }`);
  if (withValue) lines.push(`fn ${name}_value(x: ${K}) -> ${t.wgsl} { return ${rawToValue(t, 'x')}; }`);
  if (access === 'read_write' && !half) lines.push(`fn ${name}_store_raw(i: u32, x: ${K}) { ${name}[i] = x; }`);
  return lines.join('\n');
}

/** WGSL turning raw bits (`rawType`) into a value of the type. */
export function rawToValue(t: TypeInfo, x: string): string {
  switch (t.name) {
    case 'u32': case 'u64': case 'i64': return x;
    case 'i32': return `bitcast<i32>(${x})`;
    case 'f32': return `bitcast<f32>(${x})`;
    case 'f16': return `bitcast<vec2<f16>>(${x}).x`;
  }
}

/** Bytes a raw-key binding of `count` keys covers (whole words). */
export const rawKeyBytes = (t: TypeInfo, count: number): number => Math.ceil((count * t.bytes) / 4) * 4;
