// CPU references of the radix select (top-k, nth element, partial sort): what the tests and the demo check against.
import { type ElementType } from '../../wgsl/types.js';
import { type PrimTypedArray } from '../typed-arrays.js';
import { orderedKeys } from '../binary-search/reference.js';
import { type CpuLess, mergeSortOrder } from '../merge-sort/reference.js';
import { type KeyArray } from '../radix-sort/reference.js';

export type Key = number | bigint;

/** Indices of `data` in the default order (the radix sort's total order on bits), stable. */
export function orderOf(type: ElementType, data: PrimTypedArray, largest = false): number[] {
  const o = orderedKeys(type, data);
  return Array.from(o.keys()).sort((a, b) => {
    const c = o[a]! < o[b]! ? -1 : o[a]! > o[b]! ? 1 : 0;
    return (largest ? -c : c) || a - b;
  });
}

/**
 * The k largest (or smallest) keys' ordered bits, in output order: what top-k's values must
 * equal. 16- and 32-bit keys: one pass histograms the top 16 bits to find the k-th key's bin,
 * and only the keys from that bin on are sorted, so the demo's 2^28 keys stay cheap.
 */
export function topKReference(type: ElementType, data: PrimTypedArray, k: number, largest = true): Key[] {
  const o = orderedKeys(type, data);
  if (o instanceof BigUint64Array) return orderOf(type, data, largest).slice(0, k).map((i) => o[i]!);
  const shift = type === 'f16' ? 0 : 16;
  const bins = new Float64Array(65536);
  const bin = (y: number): number => (largest ? 65535 - (y >>> shift) : y >>> shift);
  for (let i = 0; i < o.length; i++) bins[bin(o[i]!)]!++;
  let last = 0;
  for (let seen = 0; last < 65536 && seen + bins[last]! < k; last++) seen += bins[last]!;
  const kept = o.filter((y) => bin(y) <= last).sort();
  const inOrder = largest ? kept.reverse() : kept;
  return Array.from(inOrder.subarray(0, k));
}

/** Whether `got` holds the keys of `data` (as a multiset of bits): a message where not. */
function sameKeys(type: ElementType, data: PrimTypedArray, got: PrimTypedArray): string | undefined {
  if (!got || got.length !== data.length) return `length ${got?.length}, expected ${data.length}`;
  const a = orderedKeys(type, data).sort();
  const b = orderedKeys(type, got).sort();
  const bad = a.findIndex((x: Key, i: number) => x !== b[i]);
  return bad >= 0 ? 'the result is not a rearrangement of the input' : undefined;
}

/** What is wrong with a partial sort's result, or undefined: the first `middle` keys the smallest in order, the others the rest. */
export function partialSortProblem(type: ElementType, data: PrimTypedArray, got: PrimTypedArray, middle: number, less?: CpuLess): string | undefined {
  const same = sameKeys(type, data, got);
  if (same) return same;
  if (less) return orderProblem(type, data, got, middle, less, false);
  const want = topKReference(type, data, middle, false);
  const g = orderedKeys(type, got);
  const bad = want.findIndex((w, i) => g[i] !== w);
  return bad >= 0 ? `position ${bad} holds ${String(g[bad])} (ordered bits), expected ${String(want[bad])}` : undefined;
}

/** What is wrong with an nth element's result, or undefined. */
export function nthElementProblem(type: ElementType, data: PrimTypedArray, got: PrimTypedArray, nth: number, less?: CpuLess): string | undefined {
  const same = sameKeys(type, data, got);
  if (same) return same;
  if (less) return orderProblem(type, data, got, nth, less, true);
  const want = topKReference(type, data, nth + 1, false)[nth]!;
  const g = orderedKeys(type, got);
  if (g[nth] !== want) return `position ${nth} holds ${String(g[nth])} (ordered bits), expected ${String(want)}`;
  const before = g.findIndex((x: Key, i: number) => (i < nth && x > want) || (i > nth && x < want));
  return before >= 0 ? `position ${before} holds ${String(g[before])}, on the wrong side of the nth key ${String(want)}` : undefined;
}

/**
 * Under a custom `less` (over the array's elements, f16 as bits): `nth`, the key at `at` is
 * equivalent to what a sort puts there and no key is on the wrong side of it; else the first
 * `at` keys are equivalent to a sort's first `at`.
 */
function orderProblem(type: ElementType, data: PrimTypedArray, got: PrimTypedArray, at: number, less: CpuLess, nth: boolean): string | undefined {
  const sorted = mergeSortOrder(type, data as KeyArray, less);
  const want = (i: number): number | bigint => data[sorted[i]!]!;
  const same = (x: number | bigint, y: number | bigint): boolean => !less(x, y) && !less(y, x);
  if (!nth) {
    for (let i = 0; i < at; i++) if (!same(got[i]!, want(i))) return `position ${i} holds ${String(got[i])}, expected ${String(want(i))}`;
    return undefined;
  }
  const w = want(at);
  if (!same(got[at]!, w)) return `position ${at} holds ${String(got[at])}, expected ${String(w)}`;
  for (let i = 0; i < got.length; i++) {
    if ((i < at && less(w, got[i]!)) || (i > at && less(got[i]!, w))) return `position ${i} holds ${String(got[i])}, on the wrong side of the nth key ${String(w)}`;
  }
  return undefined;
}
