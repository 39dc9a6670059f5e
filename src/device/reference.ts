// CPU twins of the WGSL operators: what the algorithms' CPU references (tests, the demo) compute with.
import { type BuiltinOperator } from '../wgsl/operators.js';
import { type ElementType } from '../wgsl/types.js';
import { f16Value } from '../wgsl/values.js';

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

/**
 * What the references compute into: a typed array, since the demo checks 2^28 elements, past
 * what a JS array holds. Floats (f16 as values, not bits) are kept in f64, as computed.
 */
export type ValueArray = Uint32Array | Int32Array | Float64Array | BigUint64Array | BigInt64Array;

export function valueArray(type: ElementType, n: number): ValueArray {
  switch (type) {
    case 'u32': return new Uint32Array(n);
    case 'i32': return new Int32Array(n);
    case 'f32': case 'f16': return new Float64Array(n);
    case 'u64': return new BigUint64Array(n);
    case 'i64': return new BigInt64Array(n);
  }
}

/** Reads element i of a GPU result as a plain number or bigint (f16 bits become numbers). */
export function valueAt(type: ElementType, a: ArrayLike<Value>, i: number): Value {
  const v = a[i]!;
  return type === 'f16' ? f16Value(v as number) : v;
}


/** First index where `got` and `want` differ by more than `tol(want)`, as a message; undefined where they agree. */
export function compareArrays(got: unknown, want: ArrayLike<number>, tol: (w: number) => number = () => 0): string | undefined {
  const g = got as ArrayLike<number>;
  if (!g || typeof g.length !== 'number') return `got ${String(got)}, expected an array`;
  if (g.length !== want.length) return `length ${g.length}, expected ${want.length}`;
  for (let i = 0; i < want.length; i++) {
    if (!(Math.abs(g[i]! - want[i]!) <= tol(want[i]!))) return `element ${i} is ${g[i]}, expected ${want[i]}`;
  }
  return undefined;
}

/** Parallel float sums associate differently from a sequential one: a relative slack against an fp64 reference. */
export const looseSum = (w: number): number => 1e-4 * Math.max(Math.abs(w), 1);
