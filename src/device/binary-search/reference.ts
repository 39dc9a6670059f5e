// CPU references of the searches: what the tests and the demo check against.
import { type ElementType } from '../../wgsl/types.js';
import { ordered32, ordered64 } from '../radix-sort/reference.js';
import { type PrimTypedArray } from '../typed-arrays.js';

export type Key = number | bigint;
export type Less = (a: Key, b: Key) => boolean;

/**
 * The keys as values whose `<` is the default order: the radix sort's ordered bits, read from
 * the raw bits (so -NaN, -0 and NaN payloads keep their places).
 */
export function orderedKeys(type: ElementType, keys: PrimTypedArray): Uint32Array | BigUint64Array {
  if (type === 'u64' || type === 'i64') return BigUint64Array.from(new BigUint64Array(keys.buffer, keys.byteOffset, keys.length), (v) => ordered64(type, v));
  const raw = keys instanceof Uint16Array ? keys : new Uint32Array(keys.buffer, keys.byteOffset, keys.length);
  return Uint32Array.from(raw, (b) => ordered32(type, b));
}

/** First index whose key is not before `x` (`upper`: first whose key is after `x`). */
export function bound(hay: ArrayLike<Key>, x: Key, less: Less, upper: boolean): number {
  let lo = 0;
  let hi = hay.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (upper ? !less(x, hay[mid]!) : less(hay[mid]!, x)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

const defaultLess: Less = (a, b) => a < b;

/** Lower bounds, upper bounds or found flags of `needles` in `hay`, both already in comparison form. */
export function searchReference(kind: 'lower-bound' | 'upper-bound' | 'binary-search', hay: ArrayLike<Key>, needles: ArrayLike<Key>, less: Less = defaultLess): Uint32Array {
  return Uint32Array.from(needles as ArrayLike<Key>, (x: Key) => {
    const lb = bound(hay, x, less, kind === 'upper-bound');
    return kind === 'binary-search' ? Number(lb < hay.length && !less(x, hay[lb]!)) : lb;
  });
}
