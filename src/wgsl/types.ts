import { WgprimError } from '../runtime/errors.js';

/** Element types a primitive can work on. 64-bit integers are emulated as vec2<u32> (x = low word). */
export type ElementType = 'u32' | 'i32' | 'f32' | 'f16' | 'u64' | 'i64';
export const ELEMENT_TYPES: readonly ElementType[] = ['u32', 'i32', 'f32', 'f16', 'u64', 'i64'];

export interface TypeInfo {
  readonly name: ElementType;
  /** WGSL type of one element in registers and in the scalar (tail) view. */
  readonly wgsl: string;
  /** WGSL type of one vector load in the vector view; a quad of 4 elements takes `vecsPerQuad` of them. */
  readonly vecWgsl: string;
  readonly vecsPerQuad: 1 | 2;
  readonly bytes: number;
  readonly isFloat: boolean;
  readonly isSigned: boolean;
  readonly is64: boolean;
  /** Device feature the type needs, if any. */
  readonly feature?: GPUFeatureName;
  /** 32-bit words a value takes when stored as raw words (uniforms, look-back state). */
  readonly words: 1 | 2;
}

const TYPES: Record<ElementType, TypeInfo> = {
  u32: { name: 'u32', wgsl: 'u32', vecWgsl: 'vec4<u32>', vecsPerQuad: 1, bytes: 4, isFloat: false, isSigned: false, is64: false, words: 1 },
  i32: { name: 'i32', wgsl: 'i32', vecWgsl: 'vec4<i32>', vecsPerQuad: 1, bytes: 4, isFloat: false, isSigned: true, is64: false, words: 1 },
  f32: { name: 'f32', wgsl: 'f32', vecWgsl: 'vec4<f32>', vecsPerQuad: 1, bytes: 4, isFloat: true, isSigned: true, is64: false, words: 1 },
  f16: { name: 'f16', wgsl: 'f16', vecWgsl: 'vec4<f16>', vecsPerQuad: 1, bytes: 2, isFloat: true, isSigned: true, is64: false, words: 1, feature: 'shader-f16' },
  u64: { name: 'u64', wgsl: 'vec2<u32>', vecWgsl: 'vec4<u32>', vecsPerQuad: 2, bytes: 8, isFloat: false, isSigned: false, is64: true, words: 2 },
  i64: { name: 'i64', wgsl: 'vec2<u32>', vecWgsl: 'vec4<u32>', vecsPerQuad: 2, bytes: 8, isFloat: false, isSigned: true, is64: true, words: 2 },
};

export function typeInfo(type: string): TypeInfo {
  const info = (TYPES as Record<string, TypeInfo | undefined>)[type];
  if (!info) {
    throw new WgprimError('unsupported-type', `unknown element type "${type}": use one of ${ELEMENT_TYPES.join(', ')}`);
  }
  return info;
}

/**
 * Type class used to key tuned tables, as rocPRIM does: (is float, byte size) of the main type,
 * and for a sort the byte size of its second (value) type: 0 for keys only (rocPRIM's `empty`).
 */
export interface TypeClass {
  readonly float: boolean;
  readonly bytes: number;
  /**
   * Sorts: the value type's byte size (0 keys only, 4, 8). A tuned row without it matches any
   * value size; one with it only calls with those values (and wins over one without at the same
   * target level). Absent in a call's class (scan, reduce, transform): every row matches.
   */
  readonly valueBytes?: number;
  /**
   * Histograms: the channels of a call's pixels (1: plain samples); `bytes` is then a sample's
   * size (1 for u8). A row without it matches any channel count; one with it only calls with
   * that many (and wins over one without at the same target level).
   */
  readonly channels?: number;
}
export function typeClassOf(type: ElementType): TypeClass {
  const t = typeInfo(type);
  return { float: t.isFloat, bytes: t.bytes };
}

/** WGSL that turns 2 raw words (vec2<u32>) into a value of the type. */
export function fromWords(t: TypeInfo, words: string): string {
  switch (t.name) {
    case 'u32': return `(${words}).x`;
    case 'i32': return `bitcast<i32>((${words}).x)`;
    case 'f32': return `bitcast<f32>((${words}).x)`;
    case 'f16': return `bitcast<vec2<f16>>((${words}).x).x`;
    default: return `(${words}).xy`;
  }
}

/** WGSL that turns a value into 2 raw words (vec2<u32>; the second is 0 for 32-bit types). */
export function toWords(t: TypeInfo, value: string): string {
  switch (t.name) {
    case 'u32': return `vec2<u32>(${value}, 0u)`;
    case 'i32':
    case 'f32': return `vec2<u32>(bitcast<u32>(${value}), 0u)`;
    case 'f16': return `vec2<u32>(bitcast<u32>(vec2<f16>(${value}, 0.0h)), 0u)`;
    default: return `(${value})`;
  }
}

/** WGSL `enable` lines a type needs. */
export function typeEnables(t: TypeInfo): string[] {
  return t.name === 'f16' ? ['enable f16;'] : [];
}

/** Helpers every shader over a 64-bit type gets: compare, add with carry, full multiply. */
export const INT64_HELPERS = /* wgsl */ `
fn u64_add(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
  let lo = a.x + b.x;
  return vec2<u32>(lo, a.y + b.y + select(0u, 1u, lo < a.x));
}
fn u64_lt(a: vec2<u32>, b: vec2<u32>) -> bool {
  return a.y < b.y || (a.y == b.y && a.x < b.x);
}
fn i64_lt(a: vec2<u32>, b: vec2<u32>) -> bool {
  let ah = bitcast<i32>(a.y);
  let bh = bitcast<i32>(b.y);
  return ah < bh || (ah == bh && a.x < b.x);
}
fn mul_wide_u32(a: u32, b: u32) -> vec2<u32> {
  let a0 = a & 0xffffu; let a1 = a >> 16u;
  let b0 = b & 0xffffu; let b1 = b >> 16u;
  let p00 = a0 * b0; let p01 = a0 * b1; let p10 = a1 * b0; let p11 = a1 * b1;
  let mid = (p00 >> 16u) + (p01 & 0xffffu) + (p10 & 0xffffu);
  return vec2<u32>((p00 & 0xffffu) | (mid << 16u), p11 + (p01 >> 16u) + (p10 >> 16u) + (mid >> 16u));
}
fn u64_mul(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
  let p = mul_wide_u32(a.x, b.x);
  return vec2<u32>(p.x, p.y + a.x * b.y + a.y * b.x);
}
`;
