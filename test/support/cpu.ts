import { type ElementType, f16Value, f16Bits } from '../../src/index.js';
import { type Value, valueAt } from '../../src/device/reference.js';

export { type Value, cpuOp, cpuIdentity, valueAt } from '../../src/device/reference.js';
export { scanReference as cpuScan } from '../../src/device/scan/reference.js';

/** Index and values of the first mismatch, or undefined. Floats compare with `tol(i)` absolute slack. */
export function firstMismatch(type: ElementType, got: ArrayLike<Value>, want: ArrayLike<Value>, tol?: (i: number) => number): string | undefined {
  if (got.length !== want.length) return `length ${got.length} != ${want.length}`;
  for (let i = 0; i < want.length; i++) {
    const g = valueAt(type, got, i);
    const w = want[i]!;
    if (typeof g === 'bigint' || typeof w === 'bigint') {
      if (g !== w) return `at ${i}: got ${g}, want ${w}`;
    } else if (type === 'f32' || type === 'f16') {
      const wq = type === 'f32' ? Math.fround(w) : f16Value(f16Bits(w));
      const slack = tol ? tol(i) : 0;
      if (!(Object.is(g, wq) || Math.abs(g - wq) <= slack || (Number.isNaN(g) && Number.isNaN(wq)))) return `at ${i}: got ${g}, want ${wq} (slack ${slack})`;
    } else if (g !== w) {
      return `at ${i}: got ${g}, want ${w}`;
    }
  }
  return undefined;
}
