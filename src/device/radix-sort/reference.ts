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

/**
 * Indices of `keys` in stable sorted order by bits [b, e) of the ordered keys (descending: of
 * their complement). An LSD radix sort of indices on typed arrays, 4n words beside the keys (6n
 * for more than 32 bits): the demo sorts 2^28 keys, past a JS array or a comparison sort.
 */
export function radixSortOrder(type: RadixSortKeyType, keys: KeyArray, descending: boolean, b: number, e: number): Uint32Array {
  const n = keys.length;
  const width = e - b;
  let idx = new Uint32Array(n);
  for (let i = 0; i < n; i++) idx[i] = i;
  if (width <= 0 || n < 2) return idx;
  // Bits [b, e) of each ordered key (complemented when descending), low and high words.
  const lowBits = Math.min(width, 32);
  const maskLo = lowBits === 32 ? 0xffffffff : 2 ** lowBits - 1;
  const maskHi = width > 32 ? (width === 64 ? 0xffffffff : 2 ** (width - 32) - 1) : 0;
  const flipLo = descending ? maskLo : 0;
  const flipHi = descending ? maskHi : 0;
  const lo = new Uint32Array(n);
  const hi = width > 32 ? new Uint32Array(n) : undefined;
  if (is64(type)) {
    const words = new Uint32Array(keys.buffer, keys.byteOffset, 2 * n);
    const sign = type === 'i64' ? 0x80000000 : 0;
    for (let i = 0; i < n; i++) {
      const l0 = words[2 * i]!;
      const h0 = (words[2 * i + 1]! ^ sign) >>> 0;
      const l = b >= 32 ? h0 >>> (b - 32) : b > 0 ? (l0 >>> b) | (h0 << (32 - b)) : l0;
      lo[i] = (l & maskLo) ^ flipLo;
      if (hi) hi[i] = ((b >= 32 ? 0 : h0 >>> b) & maskHi) ^ flipHi;
    }
  } else {
    const raw = keys instanceof Uint16Array ? keys : new Uint32Array(keys.buffer, keys.byteOffset, n);
    for (let i = 0; i < n; i++) lo[i] = ((ordered32(type, raw[i]!) >>> b) & maskLo) ^ flipLo;
  }
  // 16-bit digits (two passes a 32-bit key; large inputs) or 8-bit ones (small inputs, small
  // counts to clear): either way no digit straddles the two words.
  const bits = n >= 1 << 16 ? 16 : 8;
  const passes = Math.ceil(width / bits);
  const radix = 1 << bits;
  const masks = Array.from({ length: passes }, (_, p) => 2 ** Math.min(bits, width - p * bits) - 1);
  // Every pass's counts at once (they do not depend on the order).
  const counts = new Uint32Array(passes * radix);
  for (let i = 0; i < n; i++) {
    for (let p = 0; p < passes; p++) {
      const shift = p * bits;
      counts[p * radix + ((shift >= 32 ? hi![i]! >>> (shift - 32) : lo[i]! >>> shift) & masks[p]!)]!++;
    }
  }
  // The digit words move with the indices, so each pass reads them in order (a gather by index
  // misses the cache every element: minutes at 2^28).
  let lo2 = new Uint32Array(n);
  let hi2 = hi ? new Uint32Array(n) : undefined;
  let loCur = lo;
  let hiCur = hi;
  let tmp = new Uint32Array(n);
  for (let p = 0; p < passes; p++) {
    const c = counts.subarray(p * radix, (p + 1) * radix);
    if (c.includes(n)) continue; // one digit for every key: the pass keeps the order
    for (let d = 0, sum = 0; d < radix; d++) {
      const k = c[d]!;
      c[d] = sum;
      sum += k;
    }
    const shift = p * bits;
    const high = shift >= 32;
    const s = high ? shift - 32 : shift;
    const mask = masks[p]!;
    const from = high ? hiCur! : loCur;
    for (let k = 0; k < n; k++) {
      const at = c[(from[k]! >>> s) & mask]!++;
      tmp[at] = idx[k]!;
      lo2[at] = loCur[k]!;
      if (hiCur) hi2![at] = hiCur[k]!;
    }
    [idx, tmp] = [tmp, idx];
    [loCur, lo2] = [lo2, loCur];
    if (hiCur) [hiCur, hi2] = [hi2!, hiCur];
  }
  return idx;
}
