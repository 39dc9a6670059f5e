// CPU references of the merge sort and the merge: what the tests and the demo check against.
import { type ElementType, typeInfo } from '../../wgsl/types.js';
import { type KeyArray, ordered32, ordered64, radixSortOrder } from '../radix-sort/reference.js';
import { type RadixSortKeyType } from '../radix-sort/keys.js';

/** `less` on the CPU over the typed array's elements (f16 as their bits). */
export type CpuLess = (a: number | bigint, b: number | bigint) => boolean;

/**
 * Indices of `keys` in stable sorted order: by the radix sort's total order (its LSD reference),
 * or by `less` (a bottom-up merge sort of indices on typed arrays; ties keep input order).
 */
export function mergeSortOrder(type: ElementType, keys: KeyArray, less?: CpuLess): Uint32Array {
  if (!less) return radixSortOrder(type, keys, false, 0, 8 * typeInfo(type).bytes);
  const n = keys.length;
  let idx = new Uint32Array(n);
  for (let i = 0; i < n; i++) idx[i] = i;
  let tmp = new Uint32Array(n);
  for (let w = 1; w < n; w *= 2) {
    for (let lo = 0; lo < n; lo += 2 * w) {
      const mid = Math.min(lo + w, n);
      const hi = Math.min(lo + 2 * w, n);
      let i = lo;
      let j = mid;
      let k = lo;
      // The right run's element goes first only when strictly less: stable.
      while (i < mid && j < hi) tmp[k++] = less(keys[idx[j]!]!, keys[idx[i]!]!) ? idx[j++]! : idx[i++]!;
      while (i < mid) tmp[k++] = idx[i++]!;
      while (j < hi) tmp[k++] = idx[j++]!;
    }
    [idx, tmp] = [tmp, idx];
  }
  return idx;
}

/** `values` (or the keys) gathered by `order`. */
export function gather<A extends ArrayLike<number | bigint> & { constructor: unknown }>(data: A, order: ArrayLike<number>): A {
  const Ctor = data.constructor as new (n: number) => A & { [i: number]: number | bigint };
  const out = new Ctor(order.length);
  for (let i = 0; i < order.length; i++) out[i] = data[order[i]!]!;
  return out;
}

/** A key array's raw bits: u32 words, f16 bits, or u64 words. */
function rawBits(type: ElementType, x: KeyArray): ArrayLike<number | bigint> {
  if (typeInfo(type).bytes === 8) return new BigUint64Array(x.buffer, x.byteOffset, x.length);
  return x instanceof Uint16Array ? x : new Uint32Array(x.buffer, x.byteOffset, x.length);
}

/** The radix sort's total order over raw key bits (floats: -NaN first, NaN last). */
function rawLess(type: ElementType): CpuLess {
  if (typeInfo(type).bytes === 8) return (a, b) => ordered64(type as RadixSortKeyType, a as bigint) < ordered64(type as RadixSortKeyType, b as bigint);
  return (a, b) => ordered32(type as RadixSortKeyType, a as number) < ordered32(type as RadixSortKeyType, b as number);
}

/**
 * Where each merged element comes from, stable (ties take a first): indices < a.length into a,
 * the others a.length + j into b. Both inputs sorted by `less` (default: the total order).
 */
export function mergeOrder(type: ElementType, a: KeyArray, b: KeyArray, less?: CpuLess): Uint32Array {
  const [xa, xb] = less ? [a, b] : [rawBits(type, a), rawBits(type, b)];
  const lt = less ?? rawLess(type);
  const out = new Uint32Array(a.length + b.length);
  let i = 0;
  let j = 0;
  for (let k = 0; k < out.length; k++) {
    if (i < a.length && (j >= b.length || !lt(xb[j]!, xa[i]!))) out[k] = i++;
    else out[k] = a.length + j++;
  }
  return out;
}

/** Two arrays' elements by a merge order (indices past a.length read b). */
export function gatherMerged<A extends KeyArray | ArrayLike<number | bigint>>(a: A, b: A, order: ArrayLike<number>): A {
  const Ctor = (a as unknown as { constructor: new (n: number) => A & { [i: number]: number | bigint } }).constructor;
  const out = new Ctor(order.length);
  for (let k = 0; k < order.length; k++) {
    const s = order[k]!;
    out[k] = s < a.length ? a[s]! : b[s - a.length]!;
  }
  return out;
}
