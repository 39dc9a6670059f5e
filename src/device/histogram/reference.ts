// CPU references of the histograms (tests and `wgprim demo`): the same binning rules as the
// kernels, on samples given as plain values (f16 as their bits' values).
import { f16Value } from '../../wgsl/values.js';
import { type HistogramSampleType, sampleInfo } from './samples.js';

/** The samples of a typed array as numbers (f16 bits decoded). */
export function sampleValues(samples: ArrayLike<number>, type: HistogramSampleType): ArrayLike<number> {
  if (type !== 'f16') return samples;
  const out = new Float32Array(samples.length);
  for (let i = 0; i < samples.length; i++) out[i] = f16Value(samples[i]!);
  return out;
}

interface Shape { readonly channels?: number; readonly activeChannels?: number }

function countInto(values: ArrayLike<number>, shape: Shape, bins: number, binOf: (v: number) => number): Uint32Array {
  const channels = shape.channels ?? 1;
  const active = shape.activeChannels ?? channels;
  const out = new Uint32Array(bins * active);
  for (let i = 0; i < values.length; i++) {
    const c = i % channels;
    if (c >= active) continue;
    const b = binOf(values[i]!);
    if (b >= 0) out[c * bins + b]!++;
  }
  return out;
}

/** Even bins over [lower, upper): integers exactly, floats in f32 arithmetic capped at bins - 1; -1 where not counted. */
export function histogramEvenReference(samples: ArrayLike<number>, type: HistogramSampleType, o: Shape & { bins: number; lower: number; upper: number }): Uint32Array {
  const s = sampleInfo(type);
  const values = sampleValues(samples, type);
  const { bins } = o;
  if (s.isFloat) {
    const lo = Math.fround(o.lower);
    const hi = Math.fround(o.upper);
    const scale = Math.fround(bins / Math.fround(hi - lo));
    return countInto(values, o, bins, (v) => (v >= lo && v < hi ? Math.min(Math.floor(Math.fround(Math.fround(v - lo) * scale)), bins - 1) : -1));
  }
  const range = o.upper - o.lower;
  const exact = range * bins <= Number.MAX_SAFE_INTEGER;
  const floorBin = (d: number): number => {
    if (!exact) return Number((BigInt(d) * BigInt(bins)) / BigInt(range));
    const p = d * bins;
    let q = Math.floor(p / range);
    if (q * range > p) q--;
    else if ((q + 1) * range <= p) q++;
    return q;
  };
  return countInto(values, o, bins, (v) => (v >= o.lower && v < o.upper ? floorBin(v - o.lower) : -1));
}

/** Bin i is [levels[i], levels[i + 1]) (levels as the level type: f32 for floats); -1 where not counted. */
export function histogramRangeReference(samples: ArrayLike<number>, type: HistogramSampleType, levels: ArrayLike<number>, o: Shape = {}): Uint32Array {
  const s = sampleInfo(type);
  const values = sampleValues(samples, type);
  const lv = Array.from(levels, (x) => (s.isFloat ? Math.fround(x) : x));
  const bins = lv.length - 1;
  return countInto(values, o, bins, (v) => {
    if (!(v >= lv[0]! && v < lv[bins]!)) return -1;
    let lo = 0;
    let hi = bins; // the answer lies in [lo, hi)
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      if (lv[mid]! <= v) lo = mid;
      else hi = mid;
    }
    return lo;
  });
}
