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
