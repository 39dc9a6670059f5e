// Histograms: even bins and bins between given levels, over one channel or interleaved pixels
// (RGBA8 with 3 of 4 channels counted), privatized in workgroup memory where the bins fit.
import { fail } from '../../runtime/errors.js';
import { type AlgorithmEnv, type ArrayEnv, defineAlgorithm } from '../spec.js';
import { compareArrays } from '../reference.js';
import { type HistogramConfig } from './config.js';
import { checkHistogramCall, type HistogramCall, type HistogramEvenArgs, type HistogramRangeArgs, recordHistogram } from './calls.js';
import { histogramClass, histogramTable } from './table.js';
import { histogramBenchmarks, histogramTuning } from './bench.js';
import { histogramEvenReference, histogramRangeReference } from './reference.js';
import { type HistogramSampleType, levelsProblem, sampleInfo } from './samples.js';

/** Arrays of samples the array-level calls take: Uint8Array (and Uint8ClampedArray) as u8, Uint16Array as u16 (or f16 bits). */
export type HistogramSampleArray = Uint8Array | Uint8ClampedArray | Uint16Array | Uint32Array | Int32Array | Float32Array;

export interface ArrayHistogramOptions {
  /** Needed only for f16 (a Uint16Array of f16 bits). */
  readonly sampleType?: HistogramSampleType;
  readonly channels?: number;
  readonly activeChannels?: number;
  readonly config?: Partial<HistogramConfig>;
}

export interface ArrayHistogramEvenOptions extends ArrayHistogramOptions {
  readonly bins: number;
  readonly lower: number;
  readonly upper: number;
}

/** The sample type a typed array holds. */
export function sampleTypeOfArray(samples: unknown, explicit?: HistogramSampleType): HistogramSampleType {
  let type: HistogramSampleType | undefined;
  if (samples instanceof Uint8Array || samples instanceof Uint8ClampedArray) type = 'u8';
  else if (samples instanceof Uint16Array) type = explicit === 'f16' ? 'f16' : 'u16';
  else if (samples instanceof Uint32Array) type = 'u32';
  else if (samples instanceof Int32Array) type = 'i32';
  else if (samples instanceof Float32Array) type = 'f32';
  if (!type) fail('unsupported-type', 'pass samples as a Uint8Array, Uint16Array (u16, or f16 bits with { sampleType: "f16" }), Uint32Array, Int32Array or Float32Array');
  if (explicit !== undefined && explicit !== type) fail('unsupported-type', `a ${(samples as object).constructor.name} holds ${type} samples, not ${explicit}`);
  return type;
}

/** Levels as the 32-bit words of their level type, checked on the CPU (the buffer-level call cannot read them back). */
function levelWords(levels: unknown, type: HistogramSampleType): Uint32Array | Int32Array | Float32Array {
  if (!ArrayBuffer.isView(levels) && !Array.isArray(levels)) fail('invalid-argument', 'levels must be an array or typed array of numbers');
  const list = levels as ArrayLike<number>;
  if (list.length < 2) fail('invalid-argument', `a range histogram needs at least 2 levels (1 bin), got ${list.length}`);
  const levelType = sampleInfo(type).levelType;
  const problem = levelsProblem(list, levelType);
  if (problem) fail('invalid-argument', problem);
  return levelType === 'u32' ? Uint32Array.from(list) : levelType === 'i32' ? Int32Array.from(list) : Float32Array.from(list);
}

function pixelsOf(samples: HistogramSampleArray, channels: number | undefined): number {
  const c = channels ?? 1;
  if (Number.isInteger(c) && c > 0 && samples.length % c !== 0) fail('invalid-argument', `${samples.length} samples are not whole pixels of ${c} channels`);
  return Number.isInteger(c) && c > 0 ? samples.length / c : 0;
}

/** Uploads the samples (and levels), runs the call on a fresh cleared histogram and reads it back. */
async function runArrayHistogram(env: ArrayEnv, samples: HistogramSampleArray, extra: Uint32Array | Int32Array | Float32Array | undefined,
  make: (samples: GPUBuffer, histogram: GPUBuffer, levels: GPUBuffer | undefined) => HistogramCall): Promise<Uint32Array> {
  // Every check runs before anything is uploaded, on placeholders of the right sizes.
  const probe = make(undefined!, undefined!, undefined);
  const counters = countersOf(env, probe);
  const buffers: GPUBuffer[] = [];
  try {
    const input = env.upload(samples);
    buffers.push(input);
    const histogram = env.buffer(4 * counters);
    buffers.push(histogram);
    const levels = extra ? env.upload(extra) : undefined;
    if (levels) buffers.push(levels);
    const call = make(input, histogram, levels);
    const [out] = await env.runAll([[histogram, 4 * counters]], (enc) => recordHistogram(env, enc, call));
    return new Uint32Array(out!, 0, counters);
  } finally {
    for (const b of buffers) b.destroy();
  }
}

/** The checks of a call that need no buffers, and the counters it writes. */
function countersOf(env: ArrayEnv, call: HistogramCall): number {
  const a = call.args;
  const s = sampleInfo(a.sampleType);
  const channels = a.channels ?? 1;
  const fake = (bytes: number): GPUBuffer => ({ size: bytes, usage: GPUBufferUsage.STORAGE } as GPUBuffer);
  const bins = call.kind === 'even' ? call.args.bins : call.args.levelCount - 1;
  const active = a.activeChannels ?? channels;
  const counters = Number.isInteger(bins) && Number.isInteger(active) ? Math.max(bins * active, 0) : 0;
  const probe = { ...a, samples: fake(Math.ceil((a.count * channels * s.bytes) / 4) * 4 || 4), histogram: fake(4 * counters || 4) };
  checkHistogramCall(env.context, call.kind === 'even' ? { kind: 'even', args: probe as HistogramEvenArgs } : { kind: 'range', args: { ...probe, levels: fake(4 * call.args.levelCount) } as HistogramRangeArgs });
  if (a.config !== undefined) env.select(histogramTable, s.selectType, 0, a.config, histogramClass(s, channels));
  return counters;
}

function histogramCalls(env: AlgorithmEnv) {
  return {
    /** Records an even histogram: `bins` equal bins over [lower, upper) per active channel. */
    histogramEven: (encoder: GPUCommandEncoder, args: HistogramEvenArgs): Promise<void> => recordHistogram(env, encoder, { kind: 'even', args }),
    /** Records a range histogram: bin i is [levels[i], levels[i + 1]). */
    histogramRange: (encoder: GPUCommandEncoder, args: HistogramRangeArgs): Promise<void> => recordHistogram(env, encoder, { kind: 'range', args }),
  };
}

function histogramArrays(env: ArrayEnv) {
  return {
    /** Counts per bin (times active channels, channel-major) of `bins` equal bins over [lower, upper). */
    async histogramEven(samples: HistogramSampleArray, options: ArrayHistogramEvenOptions): Promise<Uint32Array> {
      if (!options || typeof options !== 'object') fail('invalid-argument', 'histogramEven needs options { bins, lower, upper }');
      const sampleType = sampleTypeOfArray(samples, options.sampleType);
      const count = pixelsOf(samples, options.channels);
      return runArrayHistogram(env, samples, undefined, (input, histogram) => ({
        kind: 'even', args: { samples: input, histogram, count, sampleType, bins: options.bins, lower: options.lower, upper: options.upper, channels: options.channels, activeChannels: options.activeChannels, clear: true, config: options.config },
      }));
    },
    /** Counts per bin (times active channels, channel-major), bin i being [levels[i], levels[i + 1]). */
    async histogramRange(samples: HistogramSampleArray, levels: ArrayLike<number>, options: ArrayHistogramOptions = {}): Promise<Uint32Array> {
      const sampleType = sampleTypeOfArray(samples, options.sampleType);
      const count = pixelsOf(samples, options.channels);
      const words = levelWords(levels, sampleType);
      return runArrayHistogram(env, samples, words, (input, histogram, lv) => ({
        kind: 'range', args: { samples: input, histogram, count, sampleType, levels: lv!, levelCount: words.length, channels: options.channels, activeChannels: options.activeChannels, clear: true, config: options.config },
      }));
    },
  };
}

export const histogramAlgorithm = defineAlgorithm({
  name: 'histogram',
  summary: 'histograms: even bins or bins between levels, one channel or interleaved pixels (RGBA8), privatized in workgroup memory',
  tables: [histogramTable],
  benchmarks: histogramBenchmarks,
  tuning: histogramTuning,
  calls: histogramCalls,
  arrays: histogramArrays,
  demo: (arrays, { u32, f32 }) => {
    const pixels = new Uint8Array(u32.buffer, u32.byteOffset, u32.byteLength);
    const levels = Float32Array.from({ length: 258 }, (_, i) => i / 257);
    const shape = { channels: 4, activeChannels: 3 };
    return [
      { name: 'histogramEven u8x4 RGBA (3 of 4 channels, 256 bins)', run: () => arrays.histogramEven(pixels, { bins: 256, lower: 0, upper: 256, ...shape }), verify: (g: unknown) => compareArrays(g, histogramEvenReference(pixels, 'u8', { bins: 256, lower: 0, upper: 256, ...shape })) },
      { name: 'histogramEven u32 (1000 bins)', run: () => arrays.histogramEven(u32, { bins: 1000, lower: 0, upper: 2 ** 32 }), verify: (g: unknown) => compareArrays(g, histogramEvenReference(u32, 'u32', { bins: 1000, lower: 0, upper: 2 ** 32 })) },
      { name: 'histogramEven f32 (256 bins over [0.25, 0.75))', run: () => arrays.histogramEven(f32, { bins: 256, lower: 0.25, upper: 0.75 }), verify: (g: unknown) => compareArrays(g, histogramEvenReference(f32, 'f32', { bins: 256, lower: 0.25, upper: 0.75 })) },
      { name: 'histogramRange f32 (258 levels)', run: () => arrays.histogramRange(f32, levels), verify: (g: unknown) => compareArrays(g, histogramRangeReference(f32, 'f32', levels)) },
    ];
  },
});
