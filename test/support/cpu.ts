import { type ElementType, type BuiltinOperator, f16Value, f16Bits } from '../../src/index.js';

export type Value = number | bigint;

/** The operator on the CPU, with the GPU type's wrap-around and rounding. */
export function cpuOp(type: ElementType, op: BuiltinOperator): (a: Value, b: Value) => Value {
  switch (type) {
    case 'u32': {
      const f: Record<BuiltinOperator, (a: number, b: number) => number> = {
        add: (a, b) => (a + b) >>> 0, mul: (a, b) => Math.imul(a, b) >>> 0, min: Math.min, max: Math.max,
        and: (a, b) => (a & b) >>> 0, or: (a, b) => (a | b) >>> 0, xor: (a, b) => (a ^ b) >>> 0,
      };
      return f[op] as (a: Value, b: Value) => Value;
    }
    case 'i32': {
      const f: Record<BuiltinOperator, (a: number, b: number) => number> = {
        add: (a, b) => (a + b) | 0, mul: (a, b) => Math.imul(a, b), min: Math.min, max: Math.max,
        and: (a, b) => a & b, or: (a, b) => a | b, xor: (a, b) => a ^ b,
      };
      return f[op] as (a: Value, b: Value) => Value;
    }
    case 'f32':
    case 'f16': {
      // Sums and products are computed in f64: inputs are drawn so that they stay exact.
      const f: Partial<Record<BuiltinOperator, (a: number, b: number) => number>> = {
        add: (a, b) => a + b, mul: (a, b) => a * b, min: Math.min, max: Math.max,
      };
      return f[op] as (a: Value, b: Value) => Value;
    }
    case 'u64':
    case 'i64': {
      const wrap = type === 'u64' ? (v: bigint) => BigInt.asUintN(64, v) : (v: bigint) => BigInt.asIntN(64, v);
      const f: Record<BuiltinOperator, (a: bigint, b: bigint) => bigint> = {
        add: (a, b) => wrap(a + b), mul: (a, b) => wrap(a * b), min: (a, b) => (a < b ? a : b), max: (a, b) => (a > b ? a : b),
        and: (a, b) => wrap(a & b), or: (a, b) => wrap(a | b), xor: (a, b) => wrap(a ^ b),
      };
      return f[op] as (a: Value, b: Value) => Value;
    }
  }
}

export function cpuIdentity(type: ElementType, op: BuiltinOperator): Value {
  const big = type === 'u64' || type === 'i64';
  switch (op) {
    case 'add': case 'or': case 'xor': return big ? 0n : 0;
    case 'mul': return big ? 1n : 1;
    case 'and': return type === 'u64' ? (1n << 64n) - 1n : type === 'i64' ? -1n : type === 'i32' ? -1 : 0xffffffff;
    case 'min': return { u32: 0xffffffff, i32: 0x7fffffff, f32: Infinity, f16: Infinity, u64: (1n << 64n) - 1n, i64: (1n << 63n) - 1n }[type];
    case 'max': return { u32: 0, i32: -0x80000000, f32: -Infinity, f16: -Infinity, u64: 0n, i64: -(1n << 63n) }[type];
  }
}

/** Reads element i of a GPU result as a plain number or bigint (f16 bits become numbers). */
export function valueAt(type: ElementType, a: ArrayLike<Value>, i: number): Value {
  const v = a[i]!;
  return type === 'f16' ? f16Value(v as number) : v;
}

export function cpuScan(type: ElementType, op: (a: Value, b: Value) => Value, input: ArrayLike<Value>, exclusive: boolean, init: Value | undefined, identity: Value): Value[] {
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

/** Index and values of the first mismatch, or undefined. Floats compare with `tol(i)` absolute slack. */
export function firstMismatch(type: ElementType, got: ArrayLike<Value>, want: readonly Value[], tol?: (i: number) => number): string | undefined {
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
