import { expect } from 'vitest';
import { type RadixSortKeyType } from '../../src/index.js';
import { rng } from './data.js';

// Shared by the radix sort tests (radix-sort, radix-sort-paths, segmented-radix-sort): random
// keys of every key type, the order-preserving transforms of their bits, a stable CPU
// reference order and a bit-for-bit comparison of a sorted result against it.

export type KeyArray = Uint32Array | Int32Array | Float32Array | Uint16Array | BigUint64Array | BigInt64Array;
export const KEY_TYPES: RadixSortKeyType[] = ['u32', 'i32', 'f32', 'f16', 'u64', 'i64'];
export const widthOf = (t: RadixSortKeyType): number => (t === 'u64' || t === 'i64' ? 64 : t === 'f16' ? 16 : 32);
export const is64 = (t: RadixSortKeyType): boolean => t === 'u64' || t === 'i64';

/** Random keys; `distinct` bounds the number of different keys (duplicates-heavy inputs). */
export function randomKeys(type: RadixSortKeyType, n: number, seed: number, distinct?: number): KeyArray {
  const r = rng(seed);
  const word = (): number => (r() * 4294967296) >>> 0;
  const pool = distinct ? Array.from({ length: distinct }, () => [word(), word()] as const) : undefined;
  const pick = (): readonly [number, number] => (pool ? pool[Math.floor(r() * pool.length)]! : [word(), word()]);
  if (is64(type)) {
    const out = new BigUint64Array(n);
    for (let i = 0; i < n; i++) {
      const [lo, hi] = pick();
      out[i] = (BigInt(hi) << 32n) | BigInt(lo);
    }
    return type === 'u64' ? out : new BigInt64Array(out.buffer);
  }
  if (type === 'f16') return Uint16Array.from({ length: n }, () => pick()[0] & 0xffff);
  const bits = Uint32Array.from({ length: n }, () => pick()[0]);
  return type === 'u32' ? bits : type === 'i32' ? new Int32Array(bits.buffer) : new Float32Array(bits.buffer);
}

export { ordered32, ordered64, radixSortOrder as referenceOrder } from '../../src/device/radix-sort/reference.js';

/** Raw bits of key i: numbers for 32-bit (and 16-bit) keys, bigints for 64-bit ones. */
export function rawKeys(keys: KeyArray): ArrayLike<number | bigint> {
  if (keys instanceof Uint16Array) return keys;
  return keys instanceof BigUint64Array || keys instanceof BigInt64Array ? new BigUint64Array(keys.buffer, keys.byteOffset, keys.length) : new Uint32Array(keys.buffer, keys.byteOffset, keys.length);
}

/**
 * The first place where `got` (and `gotValues`) differ from `keys` in `order`, compared bit for
 * bit, or undefined; the value expected at output i is `valueOf(order[i])` (by default the index).
 */
export function firstBad(keys: KeyArray, got: KeyArray, order: Uint32Array, gotValues?: ArrayLike<number | bigint>, valueOf: (i: number) => number | bigint = (i) => i): string | undefined {
  if (got.length !== keys.length) return `length ${got.length} != ${keys.length}`;
  const src = rawKeys(keys);
  const out = rawKeys(got);
  for (let i = 0; i < order.length; i++) {
    const j = order[i]!;
    if (out[i] !== src[j]) return `key at ${i}: got bits ${out[i]!.toString(16)}, want ${src[j]!.toString(16)} (input index ${j})`;
    if (gotValues && gotValues[i] !== valueOf(j)) return `value at ${i}: got ${gotValues[i]}, want ${valueOf(j)} (key bits ${src[j]!.toString(16)})`;
  }
  return undefined;
}

/** A device buffer's upload and read-back for buffer-level tests (STORAGE | COPY_SRC | COPY_DST buffers). */
export function bufferIo(device: GPUDevice): { usage: number; upload: (data: ArrayBufferView) => GPUBuffer; read: (b: GPUBuffer, bytes: number) => Promise<ArrayBuffer> } {
  const usage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST;
  const upload = (data: ArrayBufferView): GPUBuffer => {
    const b = device.createBuffer({ size: Math.max(16, Math.ceil(data.byteLength / 4) * 4), usage });
    device.queue.writeBuffer(b, 0, data.buffer as ArrayBuffer, data.byteOffset, data.byteLength);
    return b;
  };
  const read = async (b: GPUBuffer, bytes: number): Promise<ArrayBuffer> => {
    const r = device.createBuffer({ size: Math.max(16, bytes), usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
    const enc = device.createCommandEncoder();
    enc.copyBufferToBuffer(b, 0, r, 0, Math.max(16, bytes));
    device.queue.submit([enc.finish()]);
    await r.mapAsync(GPUMapMode.READ);
    const out = r.getMappedRange().slice(0, bytes);
    r.destroy();
    return out;
  };
  return { usage, upload, read };
}
