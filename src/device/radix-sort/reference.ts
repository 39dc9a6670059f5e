// The radix sort's CPU reference (tests, the demo): the stable order of keys by a bit range.
import { type RadixSortKeyType } from './keys.js';

/** Typed arrays of keys (f16 as a Uint16Array of bits). */
export type KeyArray = Uint32Array | Int32Array | Float32Array | Uint16Array | BigUint64Array | BigInt64Array;
const is64 = (t: RadixSortKeyType): boolean => t === 'u64' || t === 'i64';

/** Bits of a 32- or 16-bit key whose unsigned order is the sort order (floats: -NaN first, +NaN last). */
export function ordered32(type: RadixSortKeyType, bits: number): number {
  if (type === 'i32') return (bits ^ 0x80000000) >>> 0;
  if (type === 'f32') return (bits & 0x80000000 ? ~bits : bits | 0x80000000) >>> 0;
  if (type === 'f16') return bits & 0x8000 ? ~bits & 0xffff : bits | 0x8000;
  return bits;
}
/** The same for a 64-bit key (its raw bits, signed or not). */
export function ordered64(type: RadixSortKeyType, v: bigint): bigint {
  const u = BigInt.asUintN(64, v);
  return type === 'i64' ? u ^ (1n << 63n) : u;
}

/** Indices of `keys` in stable sorted order by bits [b, e) of the ordered keys. */
export function radixSortOrder(type: RadixSortKeyType, keys: KeyArray, descending: boolean, b: number, e: number): Uint32Array {
  const n = keys.length;
  if (is64(type)) {
    const mask = (1n << BigInt(e - b)) - 1n;
    const raw = new BigUint64Array(keys.buffer, keys.byteOffset, n);
    const d = Array.from(raw, (v) => (ordered64(type, v) >> BigInt(b)) & mask);
    const idx = Array.from({ length: n }, (_, i) => i);
    idx.sort((x, y) => {
      const dx = d[x]!;
      const dy = d[y]!;
      if (dx !== dy) return (dx < dy) !== descending ? -1 : 1;
      return x - y;
    });
    return Uint32Array.from(idx);
  }
  const raw = keys instanceof Uint16Array ? keys : new Uint32Array(keys.buffer, keys.byteOffset, n);
  const range = 2 ** (e - b);
  const digit = (i: number): number => {
    const d = Math.floor(ordered32(type, raw[i]!) / 2 ** b) % range;
    return descending ? range - 1 - d : d;
  };
  // A digit times 2^ib plus the index is exact in a double: a native numeric sort is stable.
  const scale = 2 ** Math.max(1, Math.ceil(Math.log2(n + 1)));
  if (range * scale > 2 ** 53) {
    const d = Array.from({ length: n }, (_, i) => digit(i));
    return Uint32Array.from(Array.from({ length: n }, (_, i) => i).sort((x, y) => d[x]! - d[y]! || x - y));
  }
  const comp = new Float64Array(n);
  for (let i = 0; i < n; i++) comp[i] = digit(i) * scale + i;
  comp.sort();
  return Uint32Array.from(comp, (c) => c % scale);
}

