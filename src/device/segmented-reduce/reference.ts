// The segmented reduce's CPU reference (tests, the demo).
import { type ElementType } from '../../wgsl/types.js';
import { type Value, valueAt } from '../reference.js';

/** One value per segment, the empty ones `init` (or the identity). */
export function segmentedReduceReference(type: ElementType, op: (a: Value, b: Value) => Value, values: ArrayLike<Value>, begins: ArrayLike<number>, ends: ArrayLike<number> | undefined, init: Value): Value[] {
  const segments = ends ? begins.length : begins.length - 1;
  return Array.from({ length: segments }, (_, s) => {
    let acc = init;
    for (let i = begins[s]!; i < (ends ? ends[s]! : begins[s + 1]!); i++) acc = op(acc, valueAt(type, values, i));
    return acc;
  });
}

