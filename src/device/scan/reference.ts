// The scans' CPU reference (tests, the demo).
import { type ElementType } from '../../wgsl/types.js';
import { type Value, valueAt } from '../reference.js';

/** The inclusive or exclusive scan of `input` by `op`, from `init` where given (`identity` is an exclusive scan's first output without one). */
export function scanReference(type: ElementType, op: (a: Value, b: Value) => Value, input: ArrayLike<Value>, exclusive: boolean, init: Value | undefined, identity: Value): Value[] {
  const out: Value[] = new Array(input.length);
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

