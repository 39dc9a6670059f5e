// Keys in runs (the by-key tests) and exact comparison of typed results.
import { expect } from 'vitest';
import { type ElementType, type PrimTypedArray, f16Bits } from '../../src/index.js';
import { type Value, valueAt } from '../../src/device/reference.js';
import { runHeads } from '../../src/device/scan-by-key/reference.js';
import { rng } from './data.js';

/** Keys in runs of random length 1..maxRun, each run's key drawn from a few values (neighbouring runs may merge). */
export function runKeys(type: ElementType, n: number, seed: number, maxRun = 7): PrimTypedArray {
  const r = rng(seed);
  const ids: number[] = [];
  while (ids.length < n) {
    const id = Math.floor(r() * 5);
    const len = 1 + Math.floor(r() * maxRun);
    for (let i = 0; i < len && ids.length < n; i++) ids.push(id);
  }
  switch (type) {
    case 'u32': return Uint32Array.from(ids, (x) => x * 0x10001);
    case 'i32': return Int32Array.from(ids, (x) => x - 2);
    case 'f32': return Float32Array.from(ids, (x) => x / 2 - 1);
    case 'f16': return Uint16Array.from(ids, (x) => f16Bits(x / 2 - 1));
    case 'u64': return BigUint64Array.from(ids, (x) => BigInt(x) << 40n);
    case 'i64': return BigInt64Array.from(ids, (x) => BigInt(x - 2) * 0x100000001n);
  }
}

export const sameKey = (type: ElementType, keys: PrimTypedArray) => (i: number, j: number): boolean => valueAt(type, keys as ArrayLike<Value>, i) === valueAt(type, keys as ArrayLike<Value>, j);
export const headsOf = (type: ElementType, keys: PrimTypedArray): Uint8Array => {
  const same = sameKey(type, keys);
  return runHeads(Array.from({ length: keys.length }, (_, i) => i), (a, b) => same(a, b));
};

export function expectValues(type: ElementType, got: PrimTypedArray, want: ArrayLike<Value>, what: string): void {
  expect(got.length, `${what}: length`).toBe(want.length);
  const bad = Array.prototype.findIndex.call(want, (w: Value, i: number) => !Object.is(valueAt(type, got as ArrayLike<Value>, i), w));
  expect(bad, `${what}: first mismatch at ${bad}: ${String(bad >= 0 ? valueAt(type, got as ArrayLike<Value>, bad) : '')} vs ${String(want[bad])}`).toBe(-1);
}

