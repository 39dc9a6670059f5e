// CPU references of the by-key family (tests, the demo).
import { type ElementType } from '../../wgsl/types.js';
import { type Value, valueAt } from '../reference.js';

/** Where runs start: the first element and each one that is not `equal` to the one before it. */
export function runHeads<T>(keys: ArrayLike<T>, equal: (a: T, b: T) => boolean): boolean[] {
  return Array.from({ length: keys.length }, (_, i) => i === 0 || !equal(keys[i - 1]!, keys[i]!));
}

/** Heads from a u32 flag per element (non-zero starts a segment). */
export const flagHeads = (flags: ArrayLike<number>, n: number): boolean[] => Array.from({ length: n }, (_, i) => i === 0 || flags[i] !== 0);

/**
 * Heads from offsets, and which elements lie inside a segment: segment i is [begins[i], ends[i])
 * (without ends, [begins[i], begins[i + 1])), clamped to n.
 */
export function offsetHeads(n: number, begins: ArrayLike<number>, ends?: ArrayLike<number>): { heads: boolean[]; inside: boolean[] } {
  const heads = new Array<boolean>(n).fill(false);
  const inside = new Array<boolean>(n).fill(false);
  const segments = ends ? begins.length : Math.max(0, begins.length - 1);
  for (let s = 0; s < segments; s++) {
    const e = Math.min(ends ? ends[s]! : begins[s + 1]!, n);
    const b = Math.min(begins[s]!, e);
    if (b < e) heads[b] = true;
    for (let i = b; i < e; i++) inside[i] = true;
  }
  return { heads, inside };
}

/**
 * The scan of `values` restarting at every head: inclusive, or exclusive (each segment's first
 * output `init`, else the identity). With `init` an inclusive scan combines it first too.
 * Elements not `inside` keep `keep[i]`.
 */
export function segmentedScanReference(type: ElementType, op: (a: Value, b: Value) => Value, values: ArrayLike<Value>, heads: readonly boolean[], exclusive: boolean,
  init: Value | undefined, identity: Value, inside?: readonly boolean[], keep?: ArrayLike<Value>): Value[] {
  const out: Value[] = new Array(values.length);
  let acc: Value | undefined;
  for (let i = 0; i < values.length; i++) {
    if (heads[i]) acc = init;
    const x = valueAt(type, values, i);
    if (exclusive) {
      out[i] = acc ?? identity;
      acc = acc === undefined ? x : op(acc, x);
    } else {
      acc = acc === undefined ? x : op(acc, x);
      out[i] = acc;
    }
    if (inside && !inside[i]) out[i] = valueAt(type, keep!, i);
  }
  return out;
}
