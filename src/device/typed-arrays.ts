// Typed arrays in and out of the array-level calls (`prim.arrays`). Browser-safe.
import { WgprimError } from '../runtime/errors.js';
import { type ElementType, typeInfo } from '../wgsl/types.js';
import { type Operator, resolveOperator } from '../wgsl/operators.js';
import { encodeValue } from '../wgsl/values.js';
import { type AlgorithmEnv, type ConfigTable, type ValueBytes } from './spec.js';

/** Typed arrays the array-level API takes; Uint16Array holds f16 bits and needs `{ type: 'f16' }`. */
export type PrimTypedArray = Uint32Array | Int32Array | Float32Array | Uint16Array | BigUint64Array | BigInt64Array;

/** The element type a typed array holds. */
export function typeOfArray(data: unknown, explicit?: ElementType): ElementType {
  let type: ElementType | undefined;
  if (data instanceof Uint32Array) type = 'u32';
  else if (data instanceof Int32Array) type = 'i32';
  else if (data instanceof Float32Array) type = 'f32';
  else if (data instanceof BigUint64Array) type = 'u64';
  else if (data instanceof BigInt64Array) type = 'i64';
  else if (data instanceof Uint16Array) {
    if (explicit !== 'f16') throw new WgprimError('unsupported-type', 'a Uint16Array is read as f16 bits: pass { type: "f16" }');
    type = 'f16';
  }
  if (!type) {
    throw new WgprimError('unsupported-type', 'pass a Uint32Array, Int32Array, Float32Array, BigUint64Array, BigInt64Array, or a Uint16Array of f16 bits with { type: "f16" }');
  }
  if (explicit !== undefined && explicit !== type) {
    throw new WgprimError('unsupported-type', `a ${data!.constructor.name} holds ${type}, not ${explicit}`);
  }
  return type;
}

export function arrayOfType(type: ElementType, buffer: ArrayBuffer, count: number): PrimTypedArray {
  switch (type) {
    case 'u32': return new Uint32Array(buffer, 0, count);
    case 'i32': return new Int32Array(buffer, 0, count);
    case 'f32': return new Float32Array(buffer, 0, count);
    case 'f16': return new Uint16Array(buffer, 0, count);
    case 'u64': return new BigUint64Array(buffer, 0, count);
    case 'i64': return new BigInt64Array(buffer, 0, count);
  }
}


/**
 * The checks a buffer-level call makes before any GPU work, made by an array-level call before
 * anything is uploaded, so that a rejected call costs no allocation or copy: the types' device
 * features, the operator and initial value where given, and a config override (merged and
 * checked by selection: an `invalid-config` error if it cannot run).
 */
export function precheckArrayCall<C>(
  env: AlgorithmEnv,
  table: ConfigTable<C>,
  o: { readonly type: ElementType; readonly op?: Operator; readonly useOp?: boolean; readonly initialValue?: number | bigint; readonly config?: Partial<C>; readonly moreTypes?: readonly (ElementType | undefined)[]; readonly valueBytes?: ValueBytes },
): void {
  const ctx = env.context;
  ctx.assertAlive();
  const t = typeInfo(o.type);
  for (const x of [o.type, ...(o.moreTypes ?? [])]) if (x !== undefined) ctx.requireTypeFeature(typeInfo(x));
  if (o.useOp) resolveOperator(o.op ?? 'add', t);
  if (o.initialValue !== undefined) encodeValue(t, o.initialValue, 'initialValue');
  if (o.config !== undefined) env.select(table, o.type, o.valueBytes ?? 0, o.config);
}
