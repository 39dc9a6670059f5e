import { indent } from '../thread/unroll.js';

export interface SharedScanOptions {
  /** Workgroup array scanned in place: invocation `index` owns element `index`. */
  readonly array: string;
  readonly index: string;
  /** Position within the scanned run (default `index`: one run over the whole array). */
  readonly lane?: string;
  /** Length of a run (WGSL expression). */
  readonly size: string;
  /** WGSL expression of the identity. */
  readonly zero: string;
  /** Statement folding the earlier value `y` into element `x` (an lvalue): `x = op(y, x)`. */
  readonly combine: (y: string, x: string) => string;
  readonly pad?: string;
}

/**
 * Inclusive scan of a workgroup array in place (Hillis-Steele, log2(size) steps, two barriers
 * each): the scan without subgroup operations. Every invocation runs it (its barriers are
 * uniform); afterwards element i holds the combination of its run's elements up to i.
 */
export function sharedInclusiveScan(o: SharedScanOptions): string {
  const lane = o.lane ?? o.index;
  const x = `${o.array}[${o.index}]`;
  return indent(`for (var d = 1u; d < ${o.size}; d <<= 1u) {
  var y = ${o.zero};
  if (${lane} >= d) { y = ${o.array}[${o.index} - d]; }
  workgroupBarrier();
  if (${lane} >= d) { ${o.combine('y', x)} }
  workgroupBarrier();
}`, o.pad ?? '  ');
}

/** `sharedInclusiveScan` of u32 counts (sum): `array[0 .. size)`, invocation `index` owning element `index`. */
export function sharedInclusiveSum(array: string, index: string, size: string, pad = '  '): string {
  return sharedInclusiveScan({ array, index, size, zero: '0u', combine: (y, x) => `${x} += ${y};`, pad });
}
