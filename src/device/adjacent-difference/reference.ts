// CPU reference of the adjacent difference: what the tests and the demo check against.
import { type ElementType } from '../../wgsl/types.js';
import { f16Bits, f16Value } from '../../wgsl/values.js';
import { type Value } from '../reference.js';

/** out[i] = op(in[i], in[i-1]) with out[0] = in[0]; right: op(in[i], in[i+1]) with the last kept. */
export function adjacentDifferenceReference<T extends Value>(data: ArrayLike<T>, op: (a: T, b: T) => T, right = false): T[] {
  const n = data.length;
  return Array.from({ length: n }, (_, i) => {
    if (right) return i === n - 1 ? data[i]! : op(data[i]!, data[i + 1]!);
    return i === 0 ? data[i]! : op(data[i]!, data[i - 1]!);
  });
}

/** The same into a typed array of the input's kind: the demo checks 2^28 elements, past what a JS array holds. */
export function adjacentDifferenceTyped<A extends Uint32Array | Float32Array>(data: A, op: (a: number, b: number) => number, right = false): A {
  const n = data.length;
  const out = new (data.constructor as new (n: number) => A)(n);
  for (let i = 0; i < n; i++) {
    if (right) out[i] = i === n - 1 ? data[i]! : op(data[i]!, data[i + 1]!);
    else out[i] = i === 0 ? data[i]! : op(data[i]!, data[i - 1]!);
  }
  return out;
}

/**
 * The default op, `a - b`, on the CPU as the GPU computes it on stored elements: integers wrap,
 * floats round to the type (f16 elements are their bits, as the typed arrays hold them).
 */
export function cpuDifference(type: ElementType): (a: Value, b: Value) => Value {
  switch (type) {
    case 'u32': return (a, b) => ((a as number) - (b as number)) >>> 0;
    case 'i32': return (a, b) => ((a as number) - (b as number)) | 0;
    case 'f32': return (a, b) => Math.fround((a as number) - (b as number));
    case 'f16': return (a, b) => f16Bits(f16Value(a as number) - f16Value(b as number));
    case 'u64': return (a, b) => BigInt.asUintN(64, (a as bigint) - (b as bigint));
    case 'i64': return (a, b) => BigInt.asIntN(64, (a as bigint) - (b as bigint));
  }
}
