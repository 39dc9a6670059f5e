import { type TypeInfo } from '../types.js';

/** WGSL type holding a key's raw bits: one word, or two (x = low word) for 64-bit keys. */
export const rawType = (t: TypeInfo): string => (t.bytes === 8 ? 'vec2<u32>' : 'u32');

/**
 * What a radix pass's key functions are compiled for. `rawIn` / `rawOut`: whether the pass
 * loads (stores) the caller's raw key bits: the first pass loads them and the last stores them;
 * the passes between move ordered bits as they are, so only two of a sort's passes pay for the
 * key transform. `word` (8-byte keys): the one word that holds the pass's digit (0 low, 1 high),
 * so the digit takes no test of which word it lies in; absent: any, a digit may straddle them.
 */
export interface LsdPass {
  readonly rawIn: boolean;
  readonly rawOut: boolean;
  readonly word?: 0 | 1;
  /**
   * The direction as a constant (ascending: the first pass's load is the raw key, no transform,
   * for unsigned keys); absent: the uniform's `flip`.
   */
  readonly descending?: boolean;
}
/** A kernel for any pass: raw keys in and out, a digit anywhere. */
export const ANY_PASS: LsdPass = { rawIn: true, rawOut: true };

/**
 * `to_ordered(x)` maps a key's raw bits to bits whose unsigned order is the sort order
 * (descending: the complement); `from_ordered` inverts it. `digit_at(y, shift, bits)` is bits
 * [shift, shift + bits) of ordered bits (bits <= 8), `bit_at(y, s)` one bit, and (`withParams`)
 * `digit(y)` the pass's digit from the uniform's `shift` and `pass_bits`. Floats: negative keys
 * have every bit flipped, others the sign bit, which gives -NaN < -inf < ... < -0 < +0 < ... <
 * +inf < +NaN. Without params the direction comes from a private `flip`.
 */
export function keyFunctions(t: TypeInfo, withParams = true, pass: LsdPass = ANY_PASS): string {
  const K = rawType(t);
  const wide = t.bytes === 8;
  let to: string;
  let from: string;
  switch (t.name) {
    case 'u32': case 'u64': to = 'x'; from = 'y'; break;
    case 'i32': to = 'x ^ 0x80000000u'; from = 'y ^ 0x80000000u'; break;
    case 'i64': to = 'vec2<u32>(x.x, x.y ^ 0x80000000u)'; from = 'vec2<u32>(y.x, y.y ^ 0x80000000u)'; break;
    case 'f16':
      // 16-bit keys live in the low half of a u32; the digit never reads the high half.
      to = '(x ^ select(0x8000u, 0xffffu, (x >> 15u) == 1u))';
      from = '(y ^ select(0xffffu, 0x8000u, ((y >> 15u) & 1u) == 1u)) & 0xffffu';
      break;
    case 'f32':
      to = 'x ^ select(0x80000000u, 0xffffffffu, (x >> 31u) == 1u)';
      from = 'y ^ select(0xffffffffu, 0x80000000u, (y >> 31u) == 1u)';
      break;
    default: throw new Error(`radix key functions: no key transform for ${t.name}`);
  }
  const digit = wide
    ? `fn digit_at(y: vec2<u32>, shift: u32, bits: u32) -> u32 {
  let mask = (1u << bits) - 1u;
  if (shift >= 32u) { return (y.y >> (shift - 32u)) & mask; }
  var lo = y.x >> shift;
  if (shift > 0u) { lo |= y.y << (32u - shift); }
  return lo & mask;
}
fn bit_at(y: vec2<u32>, s: u32) -> u32 {
  if (s >= 32u) { return (y.y >> (s - 32u)) & 1u; }
  return (y.x >> s) & 1u;
}`
    : `fn digit_at(y: u32, shift: u32, bits: u32) -> u32 { return (y >> shift) & ((1u << bits) - 1u); }
fn bit_at(y: u32, s: u32) -> u32 { return (y >> s) & 1u; }`;
  const flip = pass.descending !== undefined ? (pass.descending ? '0xffffffffu' : '0u') : withParams ? 'P.flip' : 'flip';
  // Between passes the keys stay ordered: only the first pass transforms what it loads and
  // only the last what it stores (16-bit keys: the stored half alone).
  const toBody = pass.rawIn ? `(${to}) ^ ${K}(${flip})` : 'x';
  const fromBody = pass.rawOut ? `let y = y0 ^ ${K}(${flip}); return ${from};` : `return y0${t.bytes === 2 ? ' & 0xffffu' : ''};`;
  return `fn to_ordered(x: ${K}) -> ${K} { return ${toBody}; }
fn from_ordered(y0: ${K}) -> ${K} { ${fromBody} }
${digit}
${withParams ? `fn digit(y: ${K}) -> u32 { return ${pass.word === undefined ? 'digit_at(y, P.shift, P.pass_bits)' : `(y.${pass.word === 0 ? 'x >> P.shift' : 'y >> (P.shift - 32u)'}) & ((1u << P.pass_bits) - 1u)`}; }` : ''}
const SENTINEL = ${K}(${wide ? '0xffffffffu, 0xffffffffu' : '0xffffffffu'});`;
}

/** `key_less(a, b)`: unsigned order of ordered key bits (64-bit: high word first). */
export function keyLess(t: TypeInfo): string {
  return t.bytes === 8
    ? 'fn key_less(a: vec2<u32>, b: vec2<u32>) -> bool { return a.y < b.y || (a.y == b.y && a.x < b.x); }'
    : 'fn key_less(a: u32, b: u32) -> bool { return a < b; }';
}

/**
 * `range_bits(y)`: ordered key bits restricted to the uniform's [begin_bit, end_bit) (a sort by
 * a bit range compares only those), with `word_mask(lo, hi)` and `key_less`.
 */
export function keyRangeFunctions(t: TypeInfo): string {
  return `// Bits [lo, hi) of a word (lo, hi in [0, 32]).
fn word_mask(lo: u32, hi: u32) -> u32 {
  if (hi <= lo) { return 0u; }
  return select(0xffffffffu << lo, 0u, lo >= 32u) & select((1u << hi) - 1u, 0xffffffffu, hi >= 32u);
}
${t.bytes === 8
    ? `// Ordered bits restricted to [begin_bit, end_bit), and their order.
fn range_bits(y: vec2<u32>) -> vec2<u32> {
  return vec2<u32>(y.x & word_mask(min(P.begin_bit, 32u), min(P.end_bit, 32u)), y.y & word_mask(max(P.begin_bit, 32u) - 32u, max(P.end_bit, 32u) - 32u));
}`
    : 'fn range_bits(y: u32) -> u32 { return y & word_mask(P.begin_bit, P.end_bit); }'}
${keyLess(t)}`;
}
