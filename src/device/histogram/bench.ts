// The histogram benchmarks, named as rocPRIM's (`histogram_even`, `histogram_range`,
// `multi_histogram_even`) and set up as CUB's anchors: 256 bins of uniform random samples
// (u32 over all 32 bits, i32 likewise, floats over [-1, 1)), counters cleared each call as CUB's
// init kernel does; RGBA8 pixels with 3 of 4 channels counted. A tuning stage per table.
import { fail } from '../../runtime/errors.js';
import { type ElementType, typeInfo } from '../../wgsl/types.js';
import { type AlgorithmEnv, type BenchCall, type BenchmarkSpec, type BenchResources, type ConfigTable, type TuningSpec } from '../spec.js';
import { type HistogramConfig } from './config.js';
import { prepareHistogram } from './calls.js';
import { type HistogramSampleType } from './samples.js';
import { histogramEvenTable, histogramRangeTable, multiHistogramTable } from './table.js';

const BINS = 256;

/** The benchmark's range of a sample type (its sort-keys input): all of an integer's values, [-1, 1) for floats. */
function benchRange(type: ElementType): [number, number] {
  switch (type) {
    case 'u32': return [0, 2 ** 32];
    case 'i32': return [-(2 ** 31), 2 ** 31];
    case 'f32': case 'f16': return [-1, 1];
    default: return fail('unsupported-type', `histograms take no ${type} samples`);
  }
}

/** 257 levels over the range (i * 2^24 for u32, as CUB's anchor spaces its levels evenly); the top one at the type's largest value. */
function benchLevels(type: ElementType): Uint32Array | Int32Array | Float32Array {
  const [lo, hi] = benchRange(type);
  const at = (i: number): number => lo + ((hi - lo) * i) / BINS;
  switch (type) {
    case 'u32': return Uint32Array.from({ length: BINS + 1 }, (_, i) => Math.min(at(i), 2 ** 32 - 1));
    case 'i32': return Int32Array.from({ length: BINS + 1 }, (_, i) => Math.min(at(i), 2 ** 31 - 1));
    default: return Float32Array.from({ length: BINS + 1 }, (_, i) => at(i));
  }
}

/** The benchmark's levels in a buffer of its own role (written once per type). */
function levelsBuffer(r: BenchResources, type: ElementType): GPUBuffer {
  const levels = benchLevels(type);
  const buffer = r.buffer(`histogram-levels-${type}`, levels.byteLength);
  r.device.queue.writeBuffer(buffer, 0, levels.buffer as ArrayBuffer, levels.byteOffset, levels.byteLength);
  return buffer;
}

interface HistogramBench {
  readonly name: string;
  readonly table: ConfigTable<HistogramConfig>;
  readonly anchorType?: (type: ElementType) => string;
  readonly nameFields: Readonly<Record<string, string | number>>;
}

const BENCHES: readonly HistogramBench[] = [
  // CUB's float binning path (f32 levels over u32 samples) is our f32 samples' binning.
  { name: 'histogram_even', table: histogramEvenTable, anchorType: (t) => (t === 'f32' ? 'u32/levels_f32' : t), nameFields: { bins: BINS } },
  { name: 'histogram_range', table: histogramRangeTable, nameFields: { levels: BINS + 1 } },
  { name: 'multi_histogram_even', table: multiHistogramTable, anchorType: (t) => (t === 'u32' ? 'u8x4/3ch' : t), nameFields: { channels: 4, active_channels: 3, bins: BINS } },
];

/** multi_histogram_even: u32 words are RGBA8 pixels (CUB's case); other types are pixels of 4 samples. */
const multiShape = (type: ElementType, count: number): { sampleType: HistogramSampleType; pixels: number } =>
  type === 'u32' ? { sampleType: 'u8', pixels: count } : { sampleType: type as HistogramSampleType, pixels: Math.floor(count / 4) };

export const histogramBenchmarks: readonly BenchmarkSpec[] = BENCHES.map((b) => ({
  name: b.name,
  table: b.table,
  anchorType: b.anchorType,
  input: 'sort-keys',
  valueBytes: 0,
  // f16 samples are widened with unpack2x16float: no shader-f16 needed.
  needsTypeFeature: false,
  // value_type keys the row (the word type); u32 multi-channel words hold RGBA8 samples, named apart.
  nameFields: (type: ElementType) => ({ lvl: 'device', algo: b.name, value_type: type, ...(b.name === 'multi_histogram_even' && type === 'u32' ? { sample_type: 'u8' } : {}), ...b.nameFields }),
  bytesPerCall: (type: ElementType, n: number) => n * typeInfo(type).bytes + 4 * BINS * (b.name === 'multi_histogram_even' ? 3 : 1),
  prepare: async (env, c, r) => {
    const record = await prepareCall(env, b, c, r);
    return async (encoder) => record(encoder);
  },
}));

async function prepareCall(env: AlgorithmEnv, b: HistogramBench, c: BenchCall, r: BenchResources): Promise<(encoder: GPUCommandEncoder) => void> {
  const config = c.config as unknown as HistogramConfig;
  const common = { samples: c.input, clear: true, config };
  if (b.name === 'multi_histogram_even') {
    const { sampleType, pixels } = multiShape(c.type, c.count);
    const [lower, upper] = sampleType === 'u8' ? [0, 256] : benchRange(c.type);
    return prepareHistogram(env, { kind: 'even', args: { ...common, count: pixels, sampleType, channels: 4, activeChannels: 3, bins: BINS, lower, upper, histogram: r.buffer('histogram', 4 * 3 * BINS) } });
  }
  const sampleType = c.type as HistogramSampleType;
  if (b.name === 'histogram_range') {
    return prepareHistogram(env, { kind: 'range', args: { ...common, count: c.count, sampleType, levels: levelsBuffer(r, c.type), levelCount: BINS + 1, histogram: r.buffer('histogram', 4 * BINS) } });
  }
  const [lower, upper] = benchRange(c.type);
  return prepareHistogram(env, { kind: 'even', args: { ...common, count: c.count, sampleType, bins: BINS, lower, upper, histogram: r.buffer('histogram', 4 * BINS) } });
}

export const histogramTuning: readonly TuningSpec[] = BENCHES.map((b) => ({
  stage: b.name, table: b.table, benchmarks: [b.name], defaultBenchmarks: [b.name],
  defaultSpace: { workgroupSize: [256, 512], itemsPerThread: [8, 16], copies: [1, 2], gridSize: [1024, 2048] },
  smallSpace: { workgroupSize: [64, 128], itemsPerThread: [4, 8], copies: [1], gridSize: [64] },
  smallTypes: ['u32'],
  // Histograms take no 64-bit samples.
  gpuTypes: ['u32', 'f32'],
  // The clear pass and the sweep; the grid size changes only the launch.
  cost: { pipelines: () => 2, passes: () => 1, launchOnly: ['gridSize'] },
  fullCoverageCount: (c) => 2 * Number(c.workgroupSize) * Number(c.itemsPerThread) + 1,
}));
