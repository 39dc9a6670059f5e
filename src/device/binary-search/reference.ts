// CPU references of the searches: what the tests and the demo check against.
import { type ElementType } from '../../wgsl/types.js';
import { ordered32, ordered64 } from '../radix-sort/reference.js';
import { type PrimTypedArray } from '../typed-arrays.js';

export type Key = number | bigint;
export type Less = (a: Key, b: Key) => boolean;

/**
 * The keys as values whose `<` is the default order: the radix sort's ordered bits, read from
 * the raw bits (so -NaN, -0 and NaN payloads keep their places). Filled in a loop: `from` with a
 * map function first lists an iterable source in a JS array, which 2^28 keys (the demo) overflow.
 */
export function orderedKeys(type: ElementType, keys: PrimTypedArray): Uint32Array | BigUint64Array {
  const n = keys.length;
  if (type === 'u64' || type === 'i64') {
    const raw = new BigUint64Array(keys.buffer, keys.byteOffset, n);
    const out = new BigUint64Array(n);
    for (let i = 0; i < n; i++) out[i] = ordered64(type, raw[i]!);
    return out;
  }
  const raw = keys instanceof Uint16Array ? keys : new Uint32Array(keys.buffer, keys.byteOffset, n);
  const out = new Uint32Array(n);
  for (let i = 0; i < n; i++) out[i] = ordered32(type, raw[i]!);
  return out;
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
  const out = new Uint32Array(needles.length);
  for (let i = 0; i < needles.length; i++) {
    const x = needles[i]!;
    const lb = bound(hay, x, less, kind === 'upper-bound');
    out[i] = kind === 'binary-search' ? Number(lb < hay.length && !less(x, hay[lb]!)) : lb;
  }
  return out;
}
