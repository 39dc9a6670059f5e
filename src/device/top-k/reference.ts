// CPU references of the radix select (top-k, nth element, partial sort): what the tests and the demo check against.
import { type ElementType } from '../../wgsl/types.js';
import { type PrimTypedArray } from '../typed-arrays.js';
import { orderedKeys } from '../binary-search/reference.js';

export type Key = number | bigint;

/** Indices of `data` in the default order (the radix sort's total order on bits), stable. */
export function orderOf(type: ElementType, data: PrimTypedArray, largest = false): number[] {
  const o = orderedKeys(type, data);
  return Array.from(o.keys()).sort((a, b) => {
    const c = o[a]! < o[b]! ? -1 : o[a]! > o[b]! ? 1 : 0;
    return (largest ? -c : c) || a - b;
  });
}

/** The k largest (or smallest) keys' ordered bits, in output order: what top-k's values must equal. */
export function topKReference(type: ElementType, data: PrimTypedArray, k: number, largest = true): Key[] {
  const o = orderedKeys(type, data);
  return orderOf(type, data, largest).slice(0, k).map((i) => o[i]!);
}

/** Whether `got` holds the keys of `data` (as a multiset of bits): a message where not. */
function sameKeys(type: ElementType, data: PrimTypedArray, got: PrimTypedArray): string | undefined {
  if (!got || got.length !== data.length) return `length ${got?.length}, expected ${data.length}`;
  const a = orderedKeys(type, data).sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
  const b = orderedKeys(type, got).sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
  const bad = a.findIndex((x, i) => x !== b[i]);
  return bad >= 0 ? 'the result is not a rearrangement of the input' : undefined;
}

/** What is wrong with a partial sort's result, or undefined: the first `middle` keys the smallest in order, the others the rest. */
export function partialSortProblem(type: ElementType, data: PrimTypedArray, got: PrimTypedArray, middle: number): string | undefined {
  const same = sameKeys(type, data, got);
  if (same) return same;
  const want = topKReference(type, data, middle, false);
  const g = orderedKeys(type, got);
  const bad = want.findIndex((w, i) => g[i] !== w);
  return bad >= 0 ? `position ${bad} holds ${String(g[bad])} (ordered bits), expected ${String(want[bad])}` : undefined;
}

/** What is wrong with an nth element's result, or undefined. */
export function nthElementProblem(type: ElementType, data: PrimTypedArray, got: PrimTypedArray, nth: number): string | undefined {
  const same = sameKeys(type, data, got);
  if (same) return same;
  const want = topKReference(type, data, nth + 1, false)[nth]!;
  const g = orderedKeys(type, got);
  if (g[nth] !== want) return `position ${nth} holds ${String(g[nth])} (ordered bits), expected ${String(want)}`;
  const before = g.findIndex((x, i) => (i < nth && x > want) || (i > nth && x < want));
  return before >= 0 ? `position ${before} holds ${String(g[before])}, on the wrong side of the nth key ${String(want)}` : undefined;
}
