import { WgprimError } from '../runtime/errors.js';
import { type TypeInfo } from './types.js';

export type BuiltinOperator = 'add' | 'min' | 'max' | 'mul' | 'and' | 'or' | 'xor';
export const BUILTIN_OPERATORS: readonly BuiltinOperator[] = ['add', 'min', 'max', 'mul', 'and', 'or', 'xor'];

/**
 * A user operator: a WGSL expression over `a` and `b` of the element type, and its identity.
 * It must be associative (scan, reduce); reduce also assumes it is commutative.
 * Example: `{ wgsl: 'max(a, b)', identity: '0u' }`.
 */
export interface CustomOperator {
  readonly wgsl: string;
  readonly identity: string;
  /** Short name for pipeline labels and benchmark names. */
  readonly name?: string;
}
export type Operator = BuiltinOperator | CustomOperator;

/** An operator resolved for one element type: what the shader generators need. */
export interface ResolvedOperator {
  /** Stable key for pipeline caching. */
  readonly key: string;
  /** Body of `fn op(a: T, b: T) -> T`. */
  readonly combine: string;
  /** WGSL expression of the identity. */
  readonly identity: string;
  /** Native subgroup reduction (e.g. `subgroupAdd`), when one exists for this type. */
  readonly subgroupReduce?: string;
  /** Native subgroup inclusive scan, when one exists for this type. */
  readonly subgroupInclusive?: string;
  /** Caller-written WGSL. */
  readonly custom?: boolean;
}

// WGSL rejects constant expressions that evaluate to infinity, so the bits come from a
// module-scope private variable (see FLOAT_LIMIT_BITS) and the bitcast happens at run time.
const F32_INF = 'bitcast<f32>(F32_INF_BITS)';
const F32_NEG_INF = 'bitcast<f32>(F32_INF_BITS | 0x80000000u)';
const F16_INF = 'bitcast<vec2<f16>>(F16_INF_BITS).x';
const F16_NEG_INF = 'bitcast<vec2<f16>>(F16_INF_BITS | 0x8000u).x';

/** Declarations the float identities above refer to. */
export const FLOAT_LIMIT_BITS = 'var<private> F32_INF_BITS: u32 = 0x7f800000u;\nvar<private> F16_INF_BITS: u32 = 0x7c00u;';

function limits(t: TypeInfo): { lowest: string; highest: string } {
  switch (t.name) {
    case 'u32': return { lowest: '0u', highest: '0xffffffffu' };
    case 'i32': return { lowest: 'bitcast<i32>(0x80000000u)', highest: '0x7fffffffi' };
    case 'f32': return { lowest: F32_NEG_INF, highest: F32_INF };
    case 'f16': return { lowest: F16_NEG_INF, highest: F16_INF };
    case 'u64': return { lowest: 'vec2<u32>(0u, 0u)', highest: 'vec2<u32>(0xffffffffu, 0xffffffffu)' };
    case 'i64': return { lowest: 'vec2<u32>(0u, 0x80000000u)', highest: 'vec2<u32>(0xffffffffu, 0x7fffffffu)' };
  }
}

function literal(t: TypeInfo, v: 0 | 1): string {
  switch (t.name) {
    case 'u32': return `${v}u`;
    case 'i32': return `${v}i`;
    case 'f32': return `${v}.0f`;
    case 'f16': return `${v}.0h`;
    default: return `vec2<u32>(${v}u, 0u)`;
  }
}

export function isBuiltinOperator(op: unknown): op is BuiltinOperator {
  return typeof op === 'string' && (BUILTIN_OPERATORS as readonly string[]).includes(op);
}

export function resolveOperator(op: Operator, t: TypeInfo): ResolvedOperator {
  if (typeof op === 'object' && op !== null) {
    if (typeof op.wgsl !== 'string' || typeof op.identity !== 'string' || !op.wgsl.trim() || !op.identity.trim()) {
      throw new WgprimError('invalid-operator', 'a custom operator needs non-empty `wgsl` (an expression over a and b) and `identity` strings');
    }
    const name = op.name ?? 'custom';
    return { key: `custom(${name}:${op.wgsl}|${op.identity})`, combine: `return ${op.wgsl};`, identity: op.identity, custom: true };
  }
  if (!isBuiltinOperator(op)) {
    throw new WgprimError('invalid-operator', `unknown operator ${JSON.stringify(op)}: use one of ${BUILTIN_OPERATORS.join(', ')} or { wgsl, identity }`);
  }
  const bitwise = op === 'and' || op === 'or' || op === 'xor';
  if (bitwise && t.isFloat) {
    throw new WgprimError('unsupported-type', `operator "${op}" works on integer types only, not ${t.name}`);
  }
  const { lowest, highest } = limits(t);
  const native32 = !t.is64;
  if (t.is64) {
    const lt = t.isSigned ? 'i64_lt' : 'u64_lt';
    const table: Record<BuiltinOperator, [string, string]> = {
      add: ['return u64_add(a, b);', literal(t, 0)],
      mul: ['return u64_mul(a, b);', literal(t, 1)],
      min: [`return select(b, a, ${lt}(a, b));`, highest],
      max: [`return select(a, b, ${lt}(a, b));`, lowest],
      and: ['return a & b;', 'vec2<u32>(0xffffffffu, 0xffffffffu)'],
      or: ['return a | b;', literal(t, 0)],
      xor: ['return a ^ b;', literal(t, 0)],
    };
    const [combine, identity] = table[op];
    return { key: op, combine, identity };
  }
  const allOnes = t.name === 'i32' ? '-1i' : '0xffffffffu';
  const table: Record<BuiltinOperator, [string, string, string, string | undefined]> = {
    add: ['return a + b;', literal(t, 0), 'subgroupAdd', 'subgroupInclusiveAdd'],
    mul: ['return a * b;', literal(t, 1), 'subgroupMul', 'subgroupInclusiveMul'],
    min: ['return min(a, b);', highest, 'subgroupMin', undefined],
    max: ['return max(a, b);', lowest, 'subgroupMax', undefined],
    and: ['return a & b;', allOnes, 'subgroupAnd', undefined],
    or: ['return a | b;', literal(t, 0), 'subgroupOr', undefined],
    xor: ['return a ^ b;', literal(t, 0), 'subgroupXor', undefined],
  };
  const [combine, identity, reduce, inclusive] = table[op];
  return {
    key: op,
    combine,
    identity,
    subgroupReduce: native32 ? reduce : undefined,
    subgroupInclusive: native32 ? inclusive : undefined,
  };
}
