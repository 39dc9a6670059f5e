// The buffer-level calls: arguments checked before anything is launched, the path chosen
// (privatized in workgroup memory where the bins fit), then an optional clear pass and one sweep.
import { type DeviceContext, checkCount } from '../../runtime/context.js';
import { ceilDiv, roundUp } from '../../runtime/dispatch.js';
import { fail } from '../../runtime/errors.js';
import { typeInfo } from '../../wgsl/types.js';
import { type AlgorithmEnv } from '../spec.js';
import { type HistogramConfig } from './config.js';
import { binCapacity, type Binning, clearKernel, histogramKernel, type HistogramKernelOptions, histogramWorkgroupBytes } from './kernel.js';
import { type EvenPlan, type HistogramSampleType, planEven, type SampleInfo, sampleInfo } from './samples.js';
import { histogramClass, histogramTable } from './table.js';

/** Most bins an even histogram takes (and most levels, less one, a range histogram takes). */
export const MAX_BINS = 1 << 24;
export const MAX_CHANNELS = 4;

export interface HistogramCommonArgs {
  /** The samples: `count * channels` of `sampleType`, interleaved by channel, packed (u8 four to a word). */
  readonly samples: GPUBuffer;
  /** Pixels: groups of `channels` samples. */
  readonly count: number;
  readonly sampleType: HistogramSampleType;
  /** u32 counters, `bins` per active channel, channel-major; added onto unless `clear`. */
  readonly histogram: GPUBuffer;
  /** Samples a pixel (1 to 4, default 1). */
  readonly channels?: number;
  /** The first `activeChannels` of each pixel are counted (default all). */
  readonly activeChannels?: number;
  /** Zero the counters first (default false: accumulate onto what `histogram` holds). */
  readonly clear?: boolean;
  readonly config?: Partial<HistogramConfig>;
}

export interface HistogramEvenArgs extends HistogramCommonArgs {
  /** Equal-width bins over [lower, upper). */
  readonly bins: number;
  readonly lower: number;
  readonly upper: number;
}

export interface HistogramRangeArgs extends HistogramCommonArgs {
  /**
   * `levelCount` strictly increasing 32-bit levels: u32 for u8, u16 and u32 samples, i32 for
   * i32, f32 for f32 and f16; bin i is [levels[i], levels[i + 1]). Not read back to check.
   */
  readonly levels: GPUBuffer;
  readonly levelCount: number;
}

/**
 * `asRow`: `args.config` is taken as a table row is (the benchmarks of many bins): shared
 * privatization that does not fit falls back to global, where a caller's config fails.
 */
export type HistogramCall = ({ readonly kind: 'even'; readonly args: HistogramEvenArgs } | { readonly kind: 'range'; readonly args: HistogramRangeArgs }) & { readonly asRow?: boolean };

/** Immutable edge tables of even integer histograms, by their binning, per context (as its uniforms). */
const edgeCache = new WeakMap<DeviceContext, Map<string, GPUBuffer>>();
const EDGE_CACHE_LIMIT = 64;
function edgeBuffer(ctx: DeviceContext, key: string, edges: Uint32Array): GPUBuffer {
  let cache = edgeCache.get(ctx);
  if (!cache) edgeCache.set(ctx, (cache = new Map()));
  const have = cache.get(key);
  if (have) return have;
  const buf = ctx.device.createBuffer({ label: 'wgprim.histogram.edges', size: roundUp(edges.byteLength, 16), usage: GPUBufferUsage.STORAGE, mappedAtCreation: true });
  new Uint32Array(buf.getMappedRange()).set(edges);
  buf.unmap();
  cache.set(key, buf);
  // Dropped, not destroyed: a command buffer recorded earlier may still use it.
  if (cache.size > EDGE_CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
  return buf;
}

function checkStorage(ctx: DeviceContext, what: string, buffer: unknown, bytes: number, describe: string): asserts buffer is GPUBuffer {
  ctx.checkBuffer(what, buffer as GPUBuffer, 0, typeInfo('u32'));
  const b = buffer as GPUBuffer;
  if (bytes > ctx.limits.maxStorageBufferBindingSize) {
    fail('limit-exceeded', `${what}: ${describe} (${bytes} bytes) exceed this device's maxStorageBufferBindingSize of ${ctx.limits.maxStorageBufferBindingSize}; ${ctx.limitAdvice('maxStorageBufferBindingSize', bytes, 'split the samples into several calls that accumulate')}`);
  }
  if (b.size < bytes) fail('buffer-size', `${what} holds ${b.size} bytes but ${describe} need ${bytes}`);
}

function channelsOf(args: HistogramCommonArgs): { channels: number; active: number } {
  const channels = args.channels ?? 1;
  if (!Number.isInteger(channels) || channels < 1 || channels > MAX_CHANNELS) fail('invalid-argument', `channels must be an integer in [1, ${MAX_CHANNELS}], got ${String(channels)}`);
  const active = args.activeChannels ?? channels;
  if (!Number.isInteger(active) || active < 1 || active > channels) fail('invalid-argument', `activeChannels must be an integer in [1, channels = ${channels}], got ${String(active)}`);
  return { channels, active };
}

/** What a checked call runs: its sample type, shape and binning. */
interface Plan {
  readonly s: SampleInfo;
  readonly channels: number;
  readonly active: number;
  readonly bins: number;
  readonly binning: Binning;
  readonly even?: EvenPlan;
  readonly evenKey?: string;
}

/** Every check of a call that needs no device state beyond limits, in the order a caller would fix them. */
export function checkHistogramCall(ctx: DeviceContext, call: HistogramCall): Plan {
  ctx.assertAlive();
  const what = call.kind === 'even' ? 'histogramEven' : 'histogramRange';
  const args = call.args;
  if (!args || typeof args !== 'object') fail('invalid-argument', `${what} needs an argument object`);
  const s = sampleInfo(args.sampleType);
  checkCount(args.count);
  const { channels, active } = channelsOf(args);
  const elements = args.count * channels;
  if (elements > 2 ** 32 - 4) fail('limit-exceeded', `${args.count} pixels of ${channels} channels (${elements} samples) exceed 2^32 - 4 samples a call: split the samples into several calls that accumulate`);
  if (args.clear !== undefined && typeof args.clear !== 'boolean') fail('invalid-argument', `clear must be a boolean, got ${String(args.clear)}`);
  checkStorage(ctx, `${what} samples`, args.samples, roundUp(elements * s.bytes, 4), `${elements} samples of ${s.name}`);
  let plan: Plan;
  if (call.kind === 'even') {
    const a = call.args;
    const even = planEven(s, a.bins, a.lower, a.upper, MAX_BINS);
    plan = { s, channels, active, bins: a.bins, binning: s.isFloat ? 'even-float' : even.shift !== undefined ? 'even-shift' : 'even-int', even, evenKey: `${s.name}:${a.bins}:${a.lower}:${a.upper}` };
  } else {
    const a = call.args;
    if (!Number.isInteger(a.levelCount) || a.levelCount < 2) fail('invalid-argument', `levelCount must be an integer >= 2 (bins + 1), got ${String(a.levelCount)}`);
    if (a.levelCount > MAX_BINS + 1) fail('limit-exceeded', `levelCount ${a.levelCount} is over the most a range histogram takes, ${MAX_BINS + 1}`);
    checkStorage(ctx, 'histogramRange levels', a.levels, 4 * a.levelCount, `${a.levelCount} levels of ${s.levelType}`);
    if (a.levels === args.histogram) fail('overlap', 'histogramRange levels and histogram must be different buffers');
    plan = { s, channels, active, bins: a.levelCount - 1, binning: 'range' };
  }
  checkStorage(ctx, `${what} histogram`, args.histogram, 4 * plan.bins * active, `${plan.bins} bins x ${active} active channels of u32 counters`);
  if (args.histogram === args.samples) fail('overlap', `${what} samples and histogram must be different buffers`);
  return plan;
}

/** The kernel's path: privatized copies reduced, then abandoned for global atomics, where workgroup memory is short. */
export function histogramPath(ctx: DeviceContext, plan: Pick<Plan, 's' | 'active' | 'bins' | 'binning'>, c: HistogramConfig, forcedShared: boolean): Omit<HistogramKernelOptions, 'sample' | 'channels'> {
  const limit = ctx.limits.maxComputeWorkgroupStorageSize;
  const hasLevels = plan.binning === 'even-int' || plan.binning === 'range';
  const base = { binning: plan.binning, activeChannels: plan.active, capacity: binCapacity(plan.bins), hasLevels, byValue: plan.s.name === 'u8', workgroupSize: c.workgroupSize, itemsPerThread: c.itemsPerThread };
  let privatization = c.privatization;
  let copies = c.copies;
  const bytes = (p: 'shared' | 'global', n: number, at: 'workgroup' | 'global'): number => histogramWorkgroupBytes({ ...base, privatization: p, copies: n, levelsIn: at });
  if (privatization === 'shared') {
    while (copies > 1 && bytes('shared', copies, 'global') > limit) copies--;
    if (bytes('shared', 1, 'global') > limit) {
      if (forcedShared) fail('invalid-config', `privatization "shared" needs ${bytes('shared', 1, 'global')} bytes of workgroup memory for ${plan.bins} bins x ${plan.active} channels, over this device's ${limit}: use privatization "global"`);
      privatization = 'global';
      copies = 1;
    }
  } else {
    copies = 1;
  }
  const levelsIn = hasLevels && bytes(privatization, copies, 'workgroup') <= limit ? 'workgroup' : 'global';
  return { ...base, privatization, copies, levelsIn };
}

/** Checks a call, compiles its kernels, and returns what records it (the clear pass, then the sweep). */
export async function prepareHistogram(env: AlgorithmEnv, call: HistogramCall): Promise<(encoder: GPUCommandEncoder) => void> {
  const ctx = env.context;
  const plan = checkHistogramCall(ctx, call);
  const args = call.args;
  const { config } = env.select(histogramTable, plan.s.selectType, 0, args.config, histogramClass(plan.s, plan.channels));
  const path = histogramPath(ctx, plan, config, !call.asRow && args.config?.privatization === 'shared');
  const counters = plan.bins * plan.active;
  const clear = args.clear ? { pipeline: await ctx.pipeline(clearKernel()), params: ctx.uniform(new Uint32Array([counters])) } : undefined;
  const recordClear = (encoder: GPUCommandEncoder): void => {
    if (!clear) return;
    const group = ctx.bindGroup(clear.pipeline, 'histogram-clear', [{ buffer: clear.params }, { buffer: args.histogram, offset: 0, size: 4 * counters }]);
    ctx.dispatch(encoder, 'wgprim.histogram.clear', clear.pipeline, group, ceilDiv(counters, 256));
  };
  if (args.count === 0) return recordClear;

  const kernel = histogramKernel({ ...path, sample: plan.s, channels: plan.channels });
  const pipeline = await ctx.pipeline(kernel);
  const elements = args.count * plan.channels;
  const sampleBytes = elements * plan.s.bytes;
  const words = ceilDiv(sampleBytes, 4);
  const view = ctx.view(args.samples, words, typeInfo('u32'), 1);
  const tile = config.workgroupSize * config.itemsPerThread;
  const numTiles = ceilDiv(words, tile);
  const fullTiles = Math.floor(Math.min(view.tailStart, Math.floor(sampleBytes / 4)) / tile);
  const grid = Math.min(numTiles, config.gridSize);
  const even = plan.even;
  const levelCount = path.hasLevels ? plan.bins + 1 : 0;
  // The binary search's first step: the largest power of two below the last level's index.
  const top = levelCount > 2 ? 2 ** Math.floor(Math.log2(levelCount - 2)) : 0;
  const params = ctx.uniform(new Uint32Array([elements, words, view.tailStart, numTiles, fullTiles, grid, even?.loKey ?? 0, even?.hiKey ?? 0, even?.lowerBits ?? 0, even?.shift ?? even?.scaleBits ?? 0, plan.bins, levelCount, top]));
  const levels: GPUBufferBinding = call.kind === 'range'
    ? { buffer: call.args.levels, offset: 0, size: 4 * call.args.levelCount }
    : even?.edges ? { buffer: edgeBuffer(ctx, plan.evenKey!, even.edges), offset: 0, size: 4 * even.edges.length }
      // Unused by float and shift binning: any readable binding fills the slot.
      : { buffer: args.samples, offset: 0, size: 4 };
  const group = ctx.bindGroup(pipeline, kernel.key, [{ buffer: params }, ...view.entries, levels, { buffer: args.histogram, offset: 0, size: 4 * counters }]);
  return (encoder) => {
    recordClear(encoder);
    ctx.dispatch(encoder, kernel.label, pipeline, group, grid);
  };
}

export async function recordHistogram(env: AlgorithmEnv, encoder: GPUCommandEncoder, call: HistogramCall): Promise<void> {
  (await prepareHistogram(env, call))(encoder);
}
