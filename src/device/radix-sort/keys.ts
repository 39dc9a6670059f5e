// The radix sort's key types and bit ranges, shared by the radix sorts' calls, tables and array calls.
import { fail } from '../../runtime/errors.js';
import { typeInfo, type TypeInfo } from '../../wgsl/types.js';

/**
 * Key types the radix sort takes. f16 keys (16-bit patterns, two to a word) need no device
 * feature: the sort only moves their bits.
 */
export type RadixSortKeyType = 'u32' | 'i32' | 'f32' | 'f16' | 'u64' | 'i64';
const KEY_TYPES: readonly string[] = ['u32', 'i32', 'f32', 'f16', 'u64', 'i64'];

export function radixKeyInfo(type: unknown): TypeInfo {
  if (typeof type !== 'string' || !KEY_TYPES.includes(type)) {
    fail('unsupported-type', `radix sort keys must be one of ${KEY_TYPES.join(', ')}, got ${String(type)}`);
  }
  return typeInfo(type);
}

/** The bit range a call sorts by, checked: floats take only the full range. */
export function radixBitRange(t: TypeInfo, beginBit: unknown, endBit: unknown): [number, number] {
  const width = t.bytes * 8;
  const b = beginBit ?? 0;
  const e = endBit ?? width;
  if (typeof b !== 'number' || typeof e !== 'number' || !Number.isInteger(b) || !Number.isInteger(e) || b < 0 || e > width || b > e) {
    fail('invalid-argument', `bit range [${String(beginBit)}, ${String(endBit)}) is not within [0, ${width}] with beginBit <= endBit`);
  }
  if (t.isFloat && (b !== 0 || e !== width)) {
    fail('invalid-argument', `a bit range is for integer keys: ${t.name} keys sort by all ${width} bits (got [${b}, ${e}))`);
  }
  return [b, e];
}

