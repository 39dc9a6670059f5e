// CPU references of the by-key family (tests, the demo). Heads and results are typed arrays: the
// demo checks 2^28 elements, past what a JS array holds.
import { type ElementType } from '../../wgsl/types.js';
import { type Value, type ValueArray, valueArray, valueAt } from '../reference.js';

/** A head flag per element (non-zero or true: a run or segment starts there). */
export type Heads = ArrayLike<number | boolean>;

/** Where runs start: the first element and each one that is not `equal` to the one before it. */
export function runHeads<T>(keys: ArrayLike<T>, equal: (a: T, b: T) => boolean): Uint8Array {
  const heads = new Uint8Array(keys.length);
  for (let i = 0; i < keys.length; i++) heads[i] = i === 0 || !equal(keys[i - 1]!, keys[i]!) ? 1 : 0;
  return heads;
}

/** Heads from a u32 flag per element (non-zero starts a segment). */
export function flagHeads(flags: ArrayLike<number>, n: number): Uint8Array {
  const heads = new Uint8Array(n);
  for (let i = 0; i < n; i++) heads[i] = i === 0 || flags[i] !== 0 ? 1 : 0;
  return heads;
}

/**
 * Heads from offsets, and which elements lie inside a segment: segment i is [begins[i], ends[i])
 * (without ends, [begins[i], begins[i + 1])), clamped to n.
 */
export function offsetHeads(n: number, begins: ArrayLike<number>, ends?: ArrayLike<number>): { heads: Uint8Array; inside: Uint8Array } {
  const heads = new Uint8Array(n);
  const inside = new Uint8Array(n);
  const segments = ends ? begins.length : Math.max(0, begins.length - 1);
  for (let s = 0; s < segments; s++) {
    const e = Math.min(ends ? ends[s]! : begins[s + 1]!, n);
    const b = Math.min(begins[s]!, e);
    if (b < e) heads[b] = 1;
    inside.fill(1, b, e);
  }
  return { heads, inside };
}

/**
 * The scan of `values` restarting at every head: inclusive, or exclusive (each segment's first
 * output `init`, else the identity). With `init` an inclusive scan combines it first too.
 * Elements not `inside` keep `keep[i]`.
 */
export function segmentedScanReference(type: ElementType, op: (a: Value, b: Value) => Value, values: ArrayLike<Value>, heads: Heads, exclusive: boolean,
  init: Value | undefined, identity: Value, inside?: Heads, keep?: ArrayLike<Value>): ValueArray {
  const out = valueArray(type, values.length);
  const o = out as unknown as { [i: number]: Value };
  let acc: Value | undefined;
  for (let i = 0; i < values.length; i++) {
    if (heads[i]) acc = init;
    const x = valueAt(type, values, i);
    if (exclusive) {
      o[i] = acc ?? identity;
      acc = acc === undefined ? x : op(acc, x);
    } else {
      acc = acc === undefined ? x : op(acc, x);
      o[i] = acc;
    }
    if (inside && !inside[i]) o[i] = valueAt(type, keep!, i);
  }
  return out;
}
