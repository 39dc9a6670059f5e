import { type ElementType, type BuiltinOperator, f16Bits, type PrimTypedArray } from '../../src/index.js';

import { rng } from '../../src/tune/strategy.js';

// Seeded PRNG (the tuner's mulberry32): every failure message prints the seed.
export { rng };

export const SEED = Number(process.env.WGPRIM_TEST_SEED ?? 20261129);

/**
 * Random input of `n` elements for an operator, drawn so the CPU reference is exact where it
 * can be: small integers for float sums, ±1 and powers of two for float products, odd
 * factors for integer products (so they do not collapse to 0).
 */
export function randomInput(type: ElementType, op: BuiltinOperator | 'custom', n: number, seed: number): PrimTypedArray {
  const r = rng(seed);
  const int = (lo: number, hi: number): number => lo + Math.floor(r() * (hi - lo + 1));
  const float = (): number => {
    // Exact on the CPU: products of ±1; sums of quarters (f32) or halves in [-1, 1] (f16,
    // exact while |sum| < 1024, which holds for the f16 sizes the tests use).
    if (op === 'mul') return r() < 0.5 ? 1 : -1;
    if (op === 'add') return type === 'f16' ? int(-2, 2) / 2 : int(-4, 4) / 4;
    return (r() * 2 - 1) * 1000;
  };
  switch (type) {
    case 'u32': return Uint32Array.from({ length: n }, () => (op === 'mul' ? (int(0, 0x7fffffff) * 2 + 1) >>> 0 : (r() * 4294967296) >>> 0));
    case 'i32': return Int32Array.from({ length: n }, () => (op === 'mul' ? (int(-0x3fffffff, 0x3fffffff) * 2 + 1) | 0 : (r() * 4294967296) | 0));
    case 'f32': return Float32Array.from({ length: n }, float);
    case 'f16': return Uint16Array.from({ length: n }, () => f16Bits(float()));
    case 'u64': return BigUint64Array.from({ length: n }, () => {
      const v = (BigInt((r() * 4294967296) >>> 0) << 32n) | BigInt((r() * 4294967296) >>> 0);
      return op === 'mul' ? v | 1n : v;
    });
    case 'i64': return BigInt64Array.from({ length: n }, () => {
      const v = BigInt.asIntN(64, (BigInt((r() * 4294967296) >>> 0) << 32n) | BigInt((r() * 4294967296) >>> 0));
      return op === 'mul' ? v | 1n : v;
    });
  }
}

/** Uniform reals in [-1, 1): float sums that round, for the tolerance check. */
export function randomReals(n: number, seed: number): Float32Array {
  const r = rng(seed);
  return Float32Array.from({ length: n }, () => r() * 2 - 1);
}

export function sizesAround(tile: number): number[] {
  return [0, 1, 2, 3, tile - 1, tile, tile + 1, 2 * tile + 1, 7919, 65537, (1 << 20) + 3];
}
