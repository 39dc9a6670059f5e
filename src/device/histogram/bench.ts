// The histogram benchmarks, named as rocPRIM's (`histogram_even`, `histogram_range`,
// `multi_histogram_even`) and set up as CUB's anchors: 256 bins of uniform random samples
// (u32 over all 32 bits, i32 likewise, floats over [-1, 1)), counters cleared each call as CUB's
// init kernel does; RGBA8 pixels with 3 of 4 channels counted. Two tuning stages of the one
// table: one channel (even and range bins together) and several. Beside them, rocPRIM's grid of
// bin counts and input entropies for even and range bins (opt-in).
import { fail } from '../../runtime/errors.js';
import { type Kernel, LINEAR_WORKGROUP_ID, paramsStruct } from '../../runtime/kernel.js';
import { type ElementType, typeInfo } from '../../wgsl/types.js';
import { type AlgorithmEnv, type BenchCall, type BenchmarkSpec, type BenchResources, type TuningSpec } from '../spec.js';
import { type HistogramConfig } from './config.js';
import { prepareHistogram } from './calls.js';
import { type HistogramSampleType, sampleInfo } from './samples.js';
import { histogramClass, histogramTable, pixelsOf } from './table.js';

const BINS = 256;

/** rocPRIM's histogram benchmark grid: bin counts, and entropies per bit of the samples. */
const GRID_BINS = [10, 100, 1000, 10000] as const;
/**
 * Each entropy's draws: a sample is the AND of that many independent uniform words, so each bit
 * is set with probability 2^-draws (entropy 1, 0.544, 0.201 bits); 0: every sample one value.
 */
const GRID_ENTROPIES = [[1, '1.000'], [3, '0.544'], [5, '0.201'], [0, '0.000']] as const;

/** The benchmark's range of a sample type (its sort-keys input): all of an integer's values, [-1, 1) for floats. */
function benchRange(type: ElementType): [number, number] {
  switch (type) {
    case 'u32': return [0, 2 ** 32];
    case 'i32': return [-(2 ** 31), 2 ** 31];
    case 'f32': case 'f16': return [-1, 1];
    default: return fail('unsupported-type', `histograms take no ${type} samples`);
  }
}

/** `bins + 1` levels over the range (i * 2^24 for u32 and 256 bins, as CUB's anchor spaces its levels evenly); the top one at the type's largest value. */
function benchLevels(type: ElementType, bins: number): Uint32Array | Int32Array | Float32Array {
  const [lo, hi] = benchRange(type);
  const at = (i: number): number => lo + ((hi - lo) * i) / bins;
  switch (type) {
    case 'u32': return Uint32Array.from({ length: bins + 1 }, (_, i) => Math.min(Math.floor(at(i)), 2 ** 32 - 1));
    case 'i32': return Int32Array.from({ length: bins + 1 }, (_, i) => Math.min(Math.floor(at(i)), 2 ** 31 - 1));
    default: return Float32Array.from({ length: bins + 1 }, (_, i) => at(i));
  }
}

/** The benchmark's levels in a buffer of its own role (written once per type and bin count). */
function levelsBuffer(r: BenchResources, type: ElementType, bins: number): GPUBuffer {
  const levels = benchLevels(type, bins);
  const buffer = r.buffer(`histogram-levels-${type}-${bins}`, levels.byteLength);
  r.device.queue.writeBuffer(buffer, 0, levels.buffer as ArrayBuffer, levels.byteOffset, levels.byteLength);
  return buffer;
}

interface HistogramBench {
  readonly name: string;
  /** rocPRIM's `algo` (the grid's benchmarks share their stage's). */
  readonly algo: string;
  readonly anchorType?: (type: ElementType) => string;
  readonly nameFields: Readonly<Record<string, string | number>>;
  readonly bins: number;
  /** Draws ANDed into a sample (`GRID_ENTROPIES`); absent: the input's uniform samples. */
  readonly draws?: number;
}

const ANCHORED: readonly HistogramBench[] = [
  // CUB's float binning path (f32 levels over u32 samples) is our f32 samples' binning.
  { name: 'histogram_even', algo: 'histogram_even', anchorType: (t) => (t === 'f32' ? 'u32/levels_f32' : t), nameFields: { bins: BINS }, bins: BINS },
  { name: 'histogram_range', algo: 'histogram_range', nameFields: { levels: BINS + 1 }, bins: BINS },
  { name: 'multi_histogram_even', algo: 'multi_histogram_even', anchorType: (t) => (t === 'u32' ? 'u8x4/3ch' : t), nameFields: { channels: 4, active_channels: 3, bins: BINS }, bins: BINS },
];

/** `histogram_even_b1000_e0.544`: the grid's benchmarks of even and range bins. */
const GRID: readonly HistogramBench[] = ANCHORED.slice(0, 2).flatMap((b) => GRID_BINS.flatMap((bins) => GRID_ENTROPIES.map(([draws, entropy]) => ({
  name: `${b.algo}_b${bins}_e${entropy}`, algo: b.algo, bins, draws,
  nameFields: { ...(b.algo === 'histogram_range' ? { levels: bins + 1 } : { bins }), entropy },
}))));

const BENCHES: readonly HistogramBench[] = [...ANCHORED, ...GRID];

/** Names of the grid's benchmarks of one stage. */
const gridOf = (algo: string): string[] => GRID.filter((b) => b.algo === algo).map((b) => b.name);

/**
 * The grid's samples: word i the AND of `draws` words of the input (independent uniform draws,
 * `words / draws` apart, so no two of them are one word), or (`draws` 0) all of them the input's
 * first word. Made once per buffer, on the GPU: 2^28 samples are made in a few milliseconds.
 */
const SAMPLES_KERNEL: Kernel = {
  key: 'bench:histogram-samples', label: 'wgprim.bench.histogram-samples', bindings: ['uniform', 'read-only-storage', 'storage'], workgroupSize: 256,
  code: `${paramsStruct(['words', 'draws', 'stride'])}
@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read_write> dst: array<u32>;
@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = (${LINEAR_WORKGROUP_ID}) * 256u + lid;
  if (i >= P.words) { return; }
  var v = src[select(i, 0u, P.draws == 0u)];
  for (var d = 1u; d < P.draws; d++) { v &= src[(i + d * P.stride) % P.words]; }
  dst[i] = v;
}`,
};
const filled = new WeakSet<GPUBuffer>();
async function lowEntropySamples(env: AlgorithmEnv, r: BenchResources, c: BenchCall, draws: number): Promise<GPUBuffer> {
  const words = Math.ceil((c.count * typeInfo(c.type).bytes) / 4);
  const buffer = r.buffer(`histogram-samples-${c.type}-${c.count}-${draws}`, words * 4);
  if (filled.has(buffer) || words === 0) return buffer;
  const ctx = env.context;
  const pipeline = await ctx.pipeline(SAMPLES_KERNEL);
  const params = ctx.uniform(new Uint32Array([words, draws, Math.max(1, Math.floor(words / Math.max(draws, 1)))]));
  const group = ctx.bindGroup(pipeline, SAMPLES_KERNEL.key, [{ buffer: params }, { buffer: c.input, offset: 0, size: words * 4 }, { buffer, offset: 0, size: words * 4 }]);
  const enc = r.device.createCommandEncoder();
  ctx.dispatch(enc, SAMPLES_KERNEL.label, pipeline, group, Math.ceil(words / 256));
  r.device.queue.submit([enc.finish()]);
  await r.device.queue.onSubmittedWorkDone();
  filled.add(buffer);
  return buffer;
}

/** multi_histogram_even: u32 words are RGBA8 pixels (CUB's case); other types are pixels of 4 samples. */
const multiShape = (type: ElementType, count: number): { sampleType: HistogramSampleType; pixels: number } =>
  type === 'u32' ? { sampleType: 'u8', pixels: count } : { sampleType: type as HistogramSampleType, pixels: Math.floor(count / 4) };

/** A benchmark's samples and pixels: the class its calls select rows with (u32 words of RGBA8 pixels: u8 samples). */
const classOf = (b: HistogramBench, type: ElementType) =>
  b.name !== 'multi_histogram_even' ? pixelsOf(type, 1) : type === 'u32' ? histogramClass(sampleInfo('u8'), 4) : pixelsOf(type, 4);

export const histogramBenchmarks: readonly BenchmarkSpec[] = BENCHES.map((b) => ({
  name: b.name,
  table: histogramTable,
  typeClass: (type: ElementType) => classOf(b, type),
  ...(b.draws !== undefined ? { anchor: null, optIn: true } : {}),
  anchorType: b.anchorType,
  input: 'sort-keys',
  valueBytes: 0,
  // f16 samples are widened with unpack2x16float: no shader-f16 needed.
  needsTypeFeature: false,
  // value_type keys the row (the word type); u32 multi-channel words hold RGBA8 samples, named apart.
  nameFields: (type: ElementType) => ({ lvl: 'device', algo: b.algo, value_type: type, ...(b.name === 'multi_histogram_even' && type === 'u32' ? { sample_type: 'u8' } : {}), ...b.nameFields }),
  bytesPerCall: (type: ElementType, n: number) => n * typeInfo(type).bytes + 4 * b.bins * (b.name === 'multi_histogram_even' ? 3 : 1),
  prepare: async (env, c, r) => {
    const record = await prepareCall(env, b, c, r);
    return async (encoder) => record(encoder);
  },
}));

async function prepareCall(env: AlgorithmEnv, b: HistogramBench, c: BenchCall, r: BenchResources): Promise<(encoder: GPUCommandEncoder) => void> {
  const config = c.config as unknown as HistogramConfig;
  const samples = b.draws === undefined ? c.input : await lowEntropySamples(env, r, c, b.draws);
  const common = { samples, clear: true, config };
  if (b.name === 'multi_histogram_even') {
    const { sampleType, pixels } = multiShape(c.type, c.count);
    const [lower, upper] = sampleType === 'u8' ? [0, 256] : benchRange(c.type);
    return prepareHistogram(env, { kind: 'even', args: { ...common, count: pixels, sampleType, channels: 4, activeChannels: 3, bins: BINS, lower, upper, histogram: r.buffer('histogram', 4 * 3 * BINS) } });
  }
  const sampleType = c.type as HistogramSampleType;
  const histogram = r.buffer('histogram', 4 * b.bins);
  // The grid's bin counts run a config as its table row would (10000 bins do not fit workgroup memory).
  const asRow = b.draws !== undefined;
  if (b.algo === 'histogram_range') {
    return prepareHistogram(env, { kind: 'range', asRow, args: { ...common, count: c.count, sampleType, levels: levelsBuffer(r, c.type, b.bins), levelCount: b.bins + 1, histogram } });
  }
  const [lower, upper] = benchRange(c.type);
  return prepareHistogram(env, { kind: 'even', asRow, args: { ...common, count: c.count, sampleType, bins: b.bins, lower, upper, histogram } });
}

// Two stages of the one table, each timing calls of one class a type: one channel (even and range
// bins, CUB's two cases: a row serves both) and RGBA8 pixels. The grid's benchmarks are the first
// stage's to choose in settings (`benchmarks`); the default times CUB's cases.
const STAGES = [
  { stage: 'histogram', benchmarks: ['histogram_even', 'histogram_range'] },
  { stage: 'multi_histogram_even', benchmarks: ['multi_histogram_even'] },
] as const;
export const histogramTuning: readonly TuningSpec[] = STAGES.map((s) => ({
  stage: s.stage, table: histogramTable, benchmarks: [...s.benchmarks, ...s.benchmarks.flatMap(gridOf)], defaultBenchmarks: s.benchmarks,
  defaultSpace: { workgroupSize: [256, 512], itemsPerThread: [8, 16], copies: [1, 2], gridSize: [1024, 2048] },
  smallSpace: { workgroupSize: [64, 128], itemsPerThread: [4, 8], copies: [1], gridSize: [64] },
  smallTypes: ['u32'],
  // Histograms take no 64-bit samples.
  gpuTypes: ['u32', 'f32'],
  // The clear pass and the sweep; the grid size changes only the launch.
  cost: { pipelines: () => 2, passes: () => 1, launchOnly: ['gridSize'] },
  fullCoverageCount: (c) => 2 * Number(c.workgroupSize) * Number(c.itemsPerThread) + 1,
}));
