// The order the comparison sorts and merges use: `merge_less(x, y)` over a key's bits (a word,
// two for 64-bit keys; 16-bit keys in a word's low half), from a caller's `less` or the radix
// sort's total order, so that the merge sort and the radix sort agree.
import { fail } from '../../runtime/errors.js';
import { keyFunctions, keyLess, rawType } from '../../wgsl/thread/radix-key.js';
import { type TypeInfo } from '../../wgsl/types.js';

/** Throws a typed error unless `less` is absent or a non-empty string. */
export function checkLess(what: string, less: unknown): asserts less is string | undefined {
  if (less !== undefined && (typeof less !== 'string' || !less.trim())) {
    fail('invalid-operator', `${what}: \`less\` must be a WGSL expression over a and b that evaluates to bool (a strictly before b), got ${typeof less === 'string' ? 'an empty string' : String(less)}`);
  }
}

/** WGSL turning raw key bits into the caller's type (what `less` sees as a and b). */
function fromRaw(t: TypeInfo, x: string): string {
  switch (t.name) {
    case 'u32': case 'u64': case 'i64': return x;
    case 'i32': return `bitcast<i32>(${x})`;
    case 'f32': return `bitcast<f32>(${x})`;
    case 'f16': return `bitcast<vec2<f16>>(${x}).x`;
  }
}

/** `enable` lines the order needs: f16 for a caller's `less` over f16 keys. */
export const orderEnables = (t: TypeInfo, less: string | undefined): string => (less !== undefined && t.name === 'f16' ? 'enable f16;\n' : '');

/**
 * `fn merge_less(x: K, y: K) -> bool` over the keys as the kernels hold them in workgroup
 * memory, `order_in(raw)` making that form from a key's raw bits (once, at its load) and
 * `order_out` the raw bits back (at the store), so that no comparison pays for the transform.
 * With `less`: raw bits, the caller's expression over a and b (the type's WGSL values: 64-bit
 * keys as vec2<u32>, x the low word). Without: ordered bits (`to_ordered`) in the total order
 * of the radix sort (floats: -NaN < -inf < ... < -0 < +0 < ... < +inf < NaN); `uniform`:
 * compared under the uniform's `mask_lo`/`mask_hi` and complemented by its `flip` (the radix
 * sort's merge passes; main sets the privates `mask` and `flip` from them).
 */
export function orderFunctions(t: TypeInfo, less: string | undefined, uniform = false): string {
  const K = rawType(t);
  if (less !== undefined) {
    return `fn user_less(a: ${t.wgsl}, b: ${t.wgsl}) -> bool { return ${less}; }
fn merge_less(x: ${K}, y: ${K}) -> bool { return user_less(${fromRaw(t, 'x')}, ${fromRaw(t, 'y')}); }
fn order_in(x: ${K}) -> ${K} { return x; }
fn order_out(y: ${K}) -> ${K} { return y; }`;
  }
  const inOut = `fn order_in(x: ${K}) -> ${K} { return to_ordered(x); }
fn order_out(y: ${K}) -> ${K} { return from_ordered(y); }`;
  if (!uniform) {
    return `${keyFunctions(t, false, { rawIn: true, rawOut: true, descending: false })}
${keyLess(t)}
fn merge_less(x: ${K}, y: ${K}) -> bool { return key_less(x, y); }
${inOut}`;
  }
  return `${keyFunctions(t, false)}
var<private> flip: u32;
var<private> mask: ${K};
${keyLess(t)}
fn merge_less(x: ${K}, y: ${K}) -> bool { return key_less(x & mask, y & mask); }
${inOut}`;
}

/** Main's first lines for the `uniform` order. */
export const uniformOrderSetup = (t: TypeInfo): string => `  flip = P.flip;
  mask = ${t.bytes === 8 ? 'vec2<u32>(P.mask_lo, P.mask_hi)' : 'P.mask_lo'};`;
