// The segmented reduce's CPU reference (tests, the demo).
import { type ElementType } from '../../wgsl/types.js';
import { type Value, type ValueArray, valueArray, valueAt } from '../reference.js';

/** One value per segment, the empty ones `init` (or the identity), in a typed array (as the by-key references). */
export function segmentedReduceReference(type: ElementType, op: (a: Value, b: Value) => Value, values: ArrayLike<Value>, begins: ArrayLike<number>, ends: ArrayLike<number> | undefined, init: Value): ValueArray {
  const segments = ends ? begins.length : Math.max(0, begins.length - 1);
  const out = valueArray(type, segments);
  const o = out as unknown as { [i: number]: Value };
  for (let s = 0; s < segments; s++) {
    let acc = init;
    for (let i = begins[s]!; i < (ends ? ends[s]! : begins[s + 1]!); i++) acc = op(acc, valueAt(type, values, i));
    o[s] = acc;
  }
  return out;
}
