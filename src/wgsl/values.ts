import { WgprimError } from '../runtime/errors.js';
import { type TypeInfo } from './types.js';

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** IEEE binary16 bits of a number, rounded to nearest even. */
export function f16Bits(value: number): number {
  f32[0] = value;
  const x = u32[0]!;
  const sign = (x >>> 16) & 0x8000;
  const exp = (x >>> 23) & 0xff;
  let mant = x & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0);
  let e = exp - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign;
    mant |= 0x800000;
    const shift = 14 - e;
    let half = mant >>> shift;
    const rem = mant & ((1 << shift) - 1);
    const mid = 1 << (shift - 1);
    if (rem > mid || (rem === mid && (half & 1))) half++;
    return sign | half;
  }
  let half = (e << 10) | (mant >>> 13);
  const rem = mant & 0x1fff;
  if (rem > 0x1000 || (rem === 0x1000 && (half & 1))) half++;
  return sign | half;
}

/** The number a binary16 bit pattern holds. */
export function f16Value(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const exp = (bits >>> 10) & 0x1f;
  const mant = bits & 0x3ff;
  if (exp === 0) return sign * mant * 2 ** -24;
  if (exp === 0x1f) return mant ? NaN : sign * Infinity;
  return sign * (1 + mant / 1024) * 2 ** (exp - 15);
}

/** The two raw 32-bit words (low, high) a value of type `t` is passed to a kernel as. */
export function encodeValue(t: TypeInfo, value: number | bigint, what = 'value'): [number, number] {
  if (t.is64) {
    if (typeof value !== 'bigint' && !(typeof value === 'number' && Number.isSafeInteger(value))) {
      throw new WgprimError('invalid-argument', `${what} for ${t.name} must be a bigint or a safe integer, got ${String(value)}`);
    }
    const big = BigInt(value);
    const min = t.isSigned ? -(1n << 63n) : 0n;
    const max = t.isSigned ? (1n << 63n) - 1n : (1n << 64n) - 1n;
    if (big < min || big > max) throw new WgprimError('invalid-argument', `${what} ${big} does not fit ${t.name}`);
    const bits = BigInt.asUintN(64, big);
    return [Number(bits & 0xffffffffn), Number(bits >> 32n)];
  }
  if (typeof value !== 'number') {
    throw new WgprimError('invalid-argument', `${what} for ${t.name} must be a number, got ${typeof value}`);
  }
  switch (t.name) {
    case 'u32':
      if (!Number.isInteger(value) || value < 0 || value > 0xffffffff) throw new WgprimError('invalid-argument', `${what} ${value} does not fit u32`);
      return [value >>> 0, 0];
    case 'i32':
      if (!Number.isInteger(value) || value < -0x80000000 || value > 0x7fffffff) throw new WgprimError('invalid-argument', `${what} ${value} does not fit i32`);
      return [value >>> 0, 0];
    case 'f32':
      f32[0] = value;
      return [u32[0]!, 0];
    case 'f16':
      return [f16Bits(value), 0];
    default:
      throw new WgprimError('unsupported-type', `cannot encode a value of ${t.name}`);
  }
}
