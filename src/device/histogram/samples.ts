// Sample types, their order-preserving u32 keys and the host side of binning. Browser-safe.
import { fail } from '../../runtime/errors.js';
import { type ElementType } from '../../wgsl/types.js';

/** Types a histogram counts; u8 and u16 lie packed four and two to a 32-bit word. */
export type HistogramSampleType = 'u8' | 'u16' | 'u32' | 'i32' | 'f32' | 'f16';
export const SAMPLE_TYPES: readonly HistogramSampleType[] = ['u8', 'u16', 'u32', 'i32', 'f32', 'f16'];

export interface SampleInfo {
  readonly name: HistogramSampleType;
  readonly bytes: 1 | 2 | 4;
  readonly isFloat: boolean;
  /** The type the range histogram's levels are given in (32-bit words): u32, i32 or f32. */
  readonly levelType: 'u32' | 'i32' | 'f32';
  /** Integer types: the smallest and largest sample. */
  readonly min: number;
  readonly max: number;
  /** The element type its config is checked and its heuristic made with (u8 and u16 are read as u32 words); rows are matched on `histogramClass`. */
  readonly selectType: ElementType;
}

const INFO: Record<HistogramSampleType, SampleInfo> = {
  u8: { name: 'u8', bytes: 1, isFloat: false, levelType: 'u32', min: 0, max: 255, selectType: 'u32' },
  u16: { name: 'u16', bytes: 2, isFloat: false, levelType: 'u32', min: 0, max: 65535, selectType: 'u32' },
  u32: { name: 'u32', bytes: 4, isFloat: false, levelType: 'u32', min: 0, max: 2 ** 32 - 1, selectType: 'u32' },
  i32: { name: 'i32', bytes: 4, isFloat: false, levelType: 'i32', min: -(2 ** 31), max: 2 ** 31 - 1, selectType: 'i32' },
  f32: { name: 'f32', bytes: 4, isFloat: true, levelType: 'f32', min: -Infinity, max: Infinity, selectType: 'f32' },
  f16: { name: 'f16', bytes: 2, isFloat: true, levelType: 'f32', min: -Infinity, max: Infinity, selectType: 'f16' },
};

export function sampleInfo(type: unknown): SampleInfo {
  const info = typeof type === 'string' ? (INFO as Record<string, SampleInfo | undefined>)[type] : undefined;
  if (!info) fail('unsupported-type', `sampleType ${String(type)} is not one of ${SAMPLE_TYPES.join(', ')}`);
  return info;
}

const f32Bits = (v: number): number => new Uint32Array(new Float32Array([v]).buffer)[0]!;

/**
 * The u32 key of a sample or level value, whose unsigned order is the value's order: integers
 * offset to unsigned, floats with the sign bit flipped (negatives: every bit), -0 as +0. The
 * kernels compare keys, never floats, so NaN (whose key lies past +-inf) falls outside every
 * range and no float comparison is left to a compiler's assumptions about NaN.
 */
export function keyOf(levelType: 'u32' | 'i32' | 'f32', v: number): number {
  if (levelType === 'u32') return v >>> 0;
  if (levelType === 'i32') return (v + 2 ** 31) >>> 0;
  const b = v === 0 ? 0 : f32Bits(v);
  return (b >>> 31 ? ~b : b | 0x80000000) >>> 0;
}

/** ceil(p / d) for integers with p <= 2^53: the float quotient corrected, as it may round across an integer. */
function ceilDivExact(p: number, d: number): number {
  let q = Math.floor(p / d);
  while (q * d > p) q--;
  while ((q + 1) * d <= p) q++;
  return q * d === p ? q : q + 1;
}

/** What an even histogram's kernel needs beside the samples: keys of its range, its f32 scale, its edge table. */
export interface EvenPlan {
  /** Keys of the lowest and highest sample counted. */
  readonly loKey: number;
  readonly hiKey: number;
  /** f32 bits of `lower` (floats) and of the scale bins / (upper - lower). */
  readonly lowerBits: number;
  readonly scaleBits: number;
  /** Integers: for each bin i > 0, the key of the last value below it (bins + 1 entries). */
  readonly edges?: Uint32Array;
  /** Integers whose bins are a power of two wide: log2 of the width (bin = (x - lower) >> shift; no table). */
  readonly shift?: number;
}

/**
 * Checks `bins`, `lower` and `upper` for a sample type and plans the binning. Integers: bin =
 * floor((x - lower) * bins / (upper - lower)) exactly (an f32 estimate corrected against the
 * edge table). Floats: bin = floor(f32(x - lower) * f32(bins / (upper - lower))), in f32 as
 * CUB's floating-point path, capped at bins - 1.
 */
export function planEven(s: SampleInfo, bins: unknown, lower: unknown, upper: unknown, maxBins: number): EvenPlan {
  if (typeof bins !== 'number' || !Number.isInteger(bins) || bins < 1) fail('invalid-argument', `bins must be a positive integer, got ${String(bins)}`);
  if (bins > maxBins) fail('limit-exceeded', `bins ${bins} is over the most an even histogram takes, ${maxBins}`);
  if (typeof lower !== 'number' || typeof upper !== 'number' || !Number.isFinite(lower) || !Number.isFinite(upper)) {
    fail('invalid-argument', `lower and upper must be finite numbers, got ${String(lower)} and ${String(upper)}`);
  }
  if (s.isFloat) {
    const lo = Math.fround(lower) + 0; // -0 as +0
    const hi = Math.fround(upper);
    if (!(lo < hi)) fail('invalid-argument', `lower (${lower}) must be below upper (${upper}) as f32 values`);
    const range = Math.fround(hi - lo);
    if (!Number.isFinite(range)) fail('invalid-argument', `upper - lower (${upper} - ${lower}) overflows f32`);
    return { loKey: keyOf('f32', lo), hiKey: keyOf('f32', hi) - 1, lowerBits: f32Bits(lo), scaleBits: f32Bits(Math.fround(bins / range)) };
  }
  if (!Number.isInteger(lower) || !Number.isInteger(upper)) fail('invalid-argument', `lower and upper of ${s.name} samples must be integers, got ${lower} and ${upper}`);
  if (!(lower < upper)) fail('invalid-argument', `lower (${lower}) must be below upper (${upper})`);
  if (lower < s.min || upper > s.max + 1) fail('invalid-argument', `lower and upper of ${s.name} samples must lie in [${s.min}, ${s.max + 1}], got ${lower} and ${upper}`);
  const range = upper - lower;
  const loKey = keyOf(s.levelType, lower);
  const hiKey = keyOf(s.levelType, upper - 1);
  const width = range / bins;
  // Shifts stay below 32 (WGSL takes a shift modulo 32): one bin over all of u32 uses the table.
  if (Number.isInteger(width) && width <= 2 ** 31 && width === 2 ** Math.round(Math.log2(width))) {
    return { loKey, hiKey, lowerBits: 0, scaleBits: 0, shift: Math.round(Math.log2(width)) };
  }
  const edges = new Uint32Array(bins + 1);
  const exact = bins * range <= Number.MAX_SAFE_INTEGER;
  for (let i = 0; i <= bins; i++) {
    // The first x of bin i: lower + ceil(i * range / bins).
    const off = exact ? ceilDivExact(i * range, bins) : Number((BigInt(i) * BigInt(range) + BigInt(bins) - 1n) / BigInt(bins));
    // Stored as the key of bin i - 1's last value: fits 32 bits where the edge is 2^32 (i = 0 is never read).
    edges[i] = i === 0 ? 0 : lower + off - 1 - (s.levelType === 'i32' ? -(2 ** 31) : 0);
  }
  return { loKey, hiKey, lowerBits: 0, scaleBits: f32Bits(Math.fround(bins / range)), edges };
}

/**
 * Why levels are not usable levels of a level type: integers in the type's range, no NaN,
 * strictly increasing (floats as f32 values, -0 equal to +0); undefined when they are.
 */
export function levelsProblem(levels: ArrayLike<number>, levelType: 'u32' | 'i32' | 'f32'): string | undefined {
  const [min, max] = levelType === 'u32' ? [0, 2 ** 32 - 1] : levelType === 'i32' ? [-(2 ** 31), 2 ** 31 - 1] : [-Infinity, Infinity];
  for (let i = 0; i < levels.length; i++) {
    const v = levels[i]!;
    if (typeof v !== 'number' || Number.isNaN(v)) return `levels[${i}] is not a number`;
    if (levelType !== 'f32' && (!Number.isInteger(v) || v < min || v > max)) return `levels[${i}] = ${v} is not a ${levelType}`;
    if (i > 0 && !(keyOf(levelType, levelType === 'f32' ? Math.fround(levels[i - 1]!) : levels[i - 1]!) < keyOf(levelType, levelType === 'f32' ? Math.fround(v) : v))) {
      return `levels are not strictly increasing${levelType === 'f32' ? ' as f32 values' : ''} at ${i} (${levels[i - 1]}, ${v})`;
    }
  }
  return undefined;
}
