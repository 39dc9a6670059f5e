// The scans' CPU reference (tests, the demo).
import { type ElementType } from '../../wgsl/types.js';
import { type Value, type ValueArray, valueArray, valueAt } from '../reference.js';

/**
 * The inclusive or exclusive scan of `input` by `op`, from `init` where given (`identity` is an
 * exclusive scan's first output without one), into a typed array (`valueArray`: the demo scans
 * 2^28 elements, past what a JS array holds).
 */
export function scanReference(type: ElementType, op: (a: Value, b: Value) => Value, input: ArrayLike<Value>, exclusive: boolean, init: Value | undefined, identity: Value): ValueArray {
  const out = valueArray(type, input.length);
  let acc: Value | undefined = init;
  for (let i = 0; i < input.length; i++) {
    const x = valueAt(type, input, i);
    if (exclusive) {
      out[i] = acc ?? identity;
      acc = acc === undefined ? x : op(acc, x);
    } else {
      acc = acc === undefined ? x : op(acc, x);
      out[i] = acc;
    }
  }
  return out;
}

