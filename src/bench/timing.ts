// GPU timing of one recorded call, repeated: browser-safe (no Node imports).
import { WgprimError } from '../runtime/errors.js';
import { type BatchSample, measureStable, type StabilityReport } from './stability.js';

/** Records exactly one call of the code under test into `encoder`. */
export type RecordCall = (encoder: GPUCommandEncoder) => Promise<void> | void;

export interface TimingOptions {
  /** Untimed calls first (pipeline compile, caches, clocks). */
  readonly warmup: number;
  /**
   * Untimed calls go on (the first submit `warmup` calls, at least one, the later ones grown to
   * keep the GPU busy ~20 ms) until this many host milliseconds have passed since they began
   * (default 0). A GPU that sat idle (an upload, a
   * compile) can run slow for a while after: on the H200, sort calls after a few seconds of
   * random-key generation took 2-3x their time for the first ~0.1-0.4 s.
   */
  readonly warmupMs?: number;
  /** Timed batches; each is one submit. */
  readonly batches: number;
  /** Calls per batch. */
  readonly batchSize: number;
  /** Ignore 'timestamp-query' even where the device has it. */
  readonly forceWallClock?: boolean;
  /**
   * Cold cache (rocPRIM's 256 MiB hipMemset before each timed region): before each timed
   * region, outside it, a scratch buffer larger than any GPU's L2 (`coldCacheBytes`) is
   * cleared with `clearBuffer` in its own submit, which finishes before the timed work is
   * submitted. With timestamps the timed region is one call, so every call starts cold; with
   * the wall clock it is one batch, so each batch's first call does.
   */
  readonly coldCache?: boolean;
  /** Scratch bytes cleared for a cold cache (default 256 MiB, capped by the device's maxBufferSize). */
  readonly coldCacheBytes?: number;
  /**
   * Host ms that settling (timed batches dropped until two in a row agree) and re-measuring
   * slow outlier batches may add (default 1000; 0: the batches as they come). See
   * `measureStable` in stability.ts.
   */
  readonly settleMs?: number;
  /** Two batches agree when their medians differ by at most this fraction (default 0.03). */
  readonly stableTolerance?: number;
  /** A batch this fraction slower than the rest is measured again (default 0.1). */
  readonly outlierTolerance?: number;
}

/** The timing settings a benchmark run takes (the cold-cache scratch size is the runner's). */
export type RunTimingOptions = Omit<TimingOptions, 'coldCacheBytes'>;

/** The timing fields of `o` alone, to hand on to another runner's options. */
export function runTimingOf(o: RunTimingOptions): RunTimingOptions {
  return {
    warmup: o.warmup, warmupMs: o.warmupMs, batches: o.batches, batchSize: o.batchSize, forceWallClock: o.forceWallClock, coldCache: o.coldCache,
    settleMs: o.settleMs, stableTolerance: o.stableTolerance, outlierTolerance: o.outlierTolerance,
  };
}

export type TimingMethod = 'timestamp-query' | 'wall-clock';

export interface TimingResult {
  readonly method: TimingMethod;
  /**
   * Milliseconds per call. With timestamps: one sample per call (batches × batchSize).
   * With the wall clock: one sample per batch (its time divided by batchSize), since calls
   * inside a submit cannot be told apart.
   */
  readonly times: readonly number[];
  /** Host milliseconds per batch from submit to `onSubmittedWorkDone` (both methods). */
  readonly wallBatchMs: readonly number[];
  /** Host milliseconds for the kept batches, recording included (GBench's cpu_time source). */
  readonly hostMs: number;
  readonly calls: number;
  readonly stats: TimingStats;
  /** Bytes cleared before each timed region (0: warm cache, the default). */
  readonly coldCacheBytes: number;
  /** Warm-up and re-measured batches, and whether the kept ones are stable. */
  readonly stability: StabilityReport;
}

export interface TimingStats {
  readonly mean: number;
  readonly median: number;
  /** Sample standard deviation (n - 1), as rocPRIM's executor reports it. */
  readonly stddev: number;
  /** stddev / mean; 0 with fewer than 2 samples. */
  readonly cv: number;
  readonly min: number;
  readonly max: number;
}

export function timingStats(samples: readonly number[]): TimingStats {
  const n = samples.length;
  if (n === 0) return { mean: 0, median: 0, stddev: 0, cv: 0, min: 0, max: 0 };
  const mean = samples.reduce((s, x) => s + x, 0) / n;
  const sorted = [...samples].sort((a, b) => a - b);
  const mid = n >> 1;
  const median = n % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  const stddev = n > 1 ? Math.sqrt(samples.reduce((s, x) => s + (x - mean) ** 2, 0) / (n - 1)) : 0;
  return { mean, median, stddev, cv: n > 1 && mean > 0 ? stddev / mean : 0, min: sorted[0]!, max: sorted[n - 1]! };
}

/** A device, or anything holding one (a `Prim`). */
export type DeviceSource = GPUDevice | { readonly device: GPUDevice };

function deviceOf(src: DeviceSource): GPUDevice {
  return 'createBuffer' in src ? src : src.device;
}

/** Host ms a warmup submit after the first aims at, and the most calls it holds. */
const WARMUP_SUBMIT_MS = 20;
const MAX_WARMUP_CALLS = 1024;

/**
 * Untimed calls of `record`: one submit of `calls` (at least one, none where both `calls` and
 * `ms` are 0), then more until `ms` host milliseconds have passed since the first began, each
 * holding enough calls to keep the GPU busy ~WARMUP_SUBMIT_MS (small calls one submit at a time
 * would leave it idle between them, and as slow). See `TimingOptions.warmupMs`.
 */
export async function warmUp(device: GPUDevice, record: RecordCall, calls: number, ms: number, label = 'wgprim.bench.warmup'): Promise<void> {
  if (!(ms >= 0) || !Number.isFinite(ms)) throw new WgprimError('invalid-argument', `warmupMs must be a finite number >= 0, got ${ms}`);
  const start = performance.now();
  let n = Math.max(1, calls);
  for (let done = 0; (calls > 0 && done === 0) || performance.now() - start < ms; done++) {
    const t0 = performance.now();
    await checked(device, async () => {
      const enc = device.createCommandEncoder({ label });
      for (let i = 0; i < n; i++) await record(enc);
      device.queue.submit([enc.finish()]);
    }, 'warm-up work');
    await device.queue.onSubmittedWorkDone();
    const perCall = (performance.now() - t0) / n;
    n = Math.min(MAX_WARMUP_CALLS, Math.max(n, Math.ceil(WARMUP_SUBMIT_MS / Math.max(perCall, 1e-3))));
  }
}

// WebGPU caps a query set at 4096 queries; each call takes two.
const MAX_BATCH_SIZE = 2048;

/** rocPRIM's cache flush before a cold run: a 256 MiB memset (the H200's L2 holds 50 MB). */
export const COLD_CACHE_BYTES = 256 << 20;

/** The scratch buffer a cold-cache timing clears, kept per device (see `releaseColdCacheBuffer`). */
const coldBuffers = new WeakMap<GPUDevice, GPUBuffer>();

/** The bytes a cold-cache clear writes on this device: `requested`, at most maxBufferSize, a multiple of 4. */
export function coldCacheSize(device: GPUDevice, requested = COLD_CACHE_BYTES): number {
  if (!Number.isInteger(requested) || requested < 4) throw new WgprimError('invalid-argument', `coldCacheBytes must be an integer >= 4, got ${requested}`);
  return Math.floor(Math.min(requested, device.limits.maxBufferSize) / 4) * 4;
}

function coldBuffer(device: GPUDevice, bytes: number): GPUBuffer {
  const have = coldBuffers.get(device);
  if (have && have.size === bytes) return have;
  have?.destroy();
  const buffer = device.createBuffer({ label: 'wgprim.bench.cold-cache', size: bytes, usage: GPUBufferUsage.COPY_DST });
  coldBuffers.set(device, buffer);
  return buffer;
}

/** Frees the scratch buffer that cold-cache timings keep on this device. */
export function releaseColdCacheBuffer(device: GPUDevice): void {
  coldBuffers.get(device)?.destroy();
  coldBuffers.delete(device);
}

/**
 * Clears the scratch buffer in a submit of its own and waits for it: whatever the timed work
 * touches afterwards is no longer in the GPU's caches, and the clear cannot overlap the timed
 * region (no barrier orders a clear against passes that do not use its buffer).
 */
async function flushCaches(device: GPUDevice, buffer: GPUBuffer): Promise<void> {
  const enc = device.createCommandEncoder({ label: 'wgprim.bench.cold-cache' });
  enc.clearBuffer(buffer);
  device.queue.submit([enc.finish()]);
  await device.queue.onSubmittedWorkDone();
}

/**
 * Times `record` on the GPU: `warmup` untimed calls, then `batches` submits of `batchSize`
 * calls each, kept once the GPU has settled and measured again where one is a slow outlier
 * (`settleMs`; see stability.ts). With 'timestamp-query' every call sits between an empty pass that writes a
 * timestamp at its beginning and an empty pass that writes one at its end, so each call gets
 * its own GPU time (the rocPRIM v2025 executor's per-call event pairs). Without it, the host
 * clock around submit + `onSubmittedWorkDone` times each batch.
 */
export async function timeGpu(src: DeviceSource, record: RecordCall, options: TimingOptions): Promise<TimingResult> {
  const device = deviceOf(src);
  const { warmup, batches, batchSize } = options;
  for (const [k, v] of Object.entries({ warmup, batches, batchSize })) {
    if (!Number.isInteger(v) || v < (k === 'warmup' ? 0 : 1)) throw new WgprimError('invalid-argument', `${k} must be an integer >= ${k === 'warmup' ? 0 : 1}, got ${v}`);
  }
  const useTimestamps = !options.forceWallClock && device.features.has('timestamp-query');
  if (useTimestamps && batchSize > MAX_BATCH_SIZE) {
    throw new WgprimError('invalid-argument', `batchSize ${batchSize} is over ${MAX_BATCH_SIZE} (a query set holds 4096 timestamps)`);
  }

  await warmUp(device, record, warmup, options.warmupMs ?? 0);

  const coldBytes = options.coldCache ? coldCacheSize(device, options.coldCacheBytes) : 0;
  const cold = coldBytes ? coldBuffer(device, coldBytes) : undefined;

  const queries = useTimestamps ? new TimestampReader(device, batchSize) : undefined;
  /** One batch: `batchSize` calls, in one submit (per-call submits with a cold cache and timestamps). */
  const batch = async (): Promise<TimedBatch> => {
    const hostStart = performance.now();
    if (cold && queries) {
      // Cold, per-call timestamps: each call is its own submit, after a clear of its own.
      let wall = 0;
      for (let i = 0; i < batchSize; i++) {
        await flushCaches(device, cold);
        let submitted = 0;
        await checked(device, async () => {
          const enc = device.createCommandEncoder({ label: 'wgprim.bench.call' });
          queries.mark(enc, 2 * i, 'begin');
          await record(enc);
          queries.mark(enc, 2 * i + 1, 'end');
          if (i === batchSize - 1) queries.resolve(enc);
          const cmd = enc.finish();
          submitted = performance.now();
          device.queue.submit([cmd]);
        });
        await device.queue.onSubmittedWorkDone();
        wall += performance.now() - submitted;
      }
      return { times: await queries.read(), wallMs: wall, hostMs: performance.now() - hostStart };
    }
    if (cold) await flushCaches(device, cold);
    let submitted = 0;
    await checked(device, async () => {
      const enc = device.createCommandEncoder({ label: 'wgprim.bench.batch' });
      for (let i = 0; i < batchSize; i++) {
        if (queries) queries.mark(enc, 2 * i, 'begin');
        await record(enc);
        if (queries) queries.mark(enc, 2 * i + 1, 'end');
      }
      queries?.resolve(enc);
      const cmd = enc.finish();
      submitted = performance.now();
      device.queue.submit([cmd]);
    });
    await device.queue.onSubmittedWorkDone();
    const wall = performance.now() - submitted;
    return { times: queries ? await queries.read() : [wall / batchSize], wallMs: wall, hostMs: performance.now() - hostStart };
  };
  let measured: Awaited<ReturnType<typeof measureStable<TimedBatch>>>;
  try {
    measured = await measureStable(batch, { batches, settleMs: options.settleMs, tolerance: options.stableTolerance, outlierTolerance: options.outlierTolerance });
  } finally {
    queries?.destroy();
  }
  const times = measured.kept.flatMap((b) => b.times);
  return {
    method: queries ? 'timestamp-query' : 'wall-clock', times, wallBatchMs: measured.kept.map((b) => b.wallMs),
    hostMs: measured.kept.reduce((s, b) => s + b.hostMs, 0), calls: batches * batchSize, stats: timingStats(times), coldCacheBytes: coldBytes,
    stability: measured.report,
  };
}

/** A timed batch and the host ms it took, recording included (GBench's cpu_time source). */
interface TimedBatch extends BatchSample {
  readonly hostMs: number;
}

/** Runs `body` inside validation and out-of-memory error scopes; throws what either caught (`what`: the work, for the message). */
export async function checked(device: GPUDevice, body: () => Promise<void>, what = 'benchmark work'): Promise<void> {
  device.pushErrorScope('out-of-memory');
  device.pushErrorScope('validation');
  let thrown: unknown;
  try {
    await body();
  } catch (err) {
    thrown = err;
  }
  const validation = await device.popErrorScope();
  const oom = await device.popErrorScope();
  if (thrown) throw thrown;
  const err = validation ?? oom;
  if (err) throw new WgprimError(oom && !validation ? 'limit-exceeded' : 'invalid-argument', `WebGPU rejected the ${what}: ${err.message}`);
}

/**
 * A timestamp query set with its resolve and read-back buffers (labels `<prefix>.timestamps`,
 * `.resolve`, `.readback`, each followed by `suffix`): the bench timer's and the kernel
 * profiler's query plumbing.
 */
export class TimestampQuerySet {
  readonly set: GPUQuerySet;
  private readonly resolveBuf: GPUBuffer;
  private readonly readBuf: GPUBuffer;

  constructor(device: GPUDevice, readonly count: number, prefix: string, suffix = '') {
    this.set = device.createQuerySet({ label: `${prefix}.timestamps${suffix}`, type: 'timestamp', count });
    const size = count * 8;
    this.resolveBuf = device.createBuffer({ label: `${prefix}.resolve${suffix}`, size, usage: GPUBufferUsage.QUERY_RESOLVE | GPUBufferUsage.COPY_SRC });
    this.readBuf = device.createBuffer({ label: `${prefix}.readback${suffix}`, size, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
  }

  /** Resolves queries [0, used) into `enc` and copies them to the read-back buffer. */
  resolve(enc: GPUCommandEncoder, used = this.count): void {
    enc.resolveQuerySet(this.set, 0, used, this.resolveBuf, 0);
    enc.copyBufferToBuffer(this.resolveBuf, 0, this.readBuf, 0, used * 8);
  }

  /** The nanosecond ticks of queries [0, used), once the work holding `resolve` has run. */
  async ticks(used = this.count): Promise<BigInt64Array> {
    await this.readBuf.mapAsync(GPUMapMode.READ, 0, used * 8);
    const out = new BigInt64Array(this.readBuf.getMappedRange(0, used * 8).slice(0));
    this.readBuf.unmap();
    return out;
  }

  destroy(): void {
    this.set.destroy();
    this.resolveBuf.destroy();
    this.readBuf.destroy();
  }
}

/** One query set of begin/end pairs, resolved and read back once per batch. */
class TimestampReader {
  private readonly queries: TimestampQuerySet;

  constructor(device: GPUDevice, calls: number) {
    this.queries = new TimestampQuerySet(device, 2 * calls, 'wgprim.bench');
  }

  /** An empty compute pass whose only job is to write one timestamp. */
  mark(enc: GPUCommandEncoder, index: number, at: 'begin' | 'end'): void {
    const querySet = this.queries.set;
    const timestampWrites: GPUComputePassTimestampWrites = at === 'begin' ? { querySet, beginningOfPassWriteIndex: index } : { querySet, endOfPassWriteIndex: index };
    enc.beginComputePass({ label: `wgprim.bench.${at}`, timestampWrites }).end();
  }

  resolve(enc: GPUCommandEncoder): void {
    this.queries.resolve(enc);
  }

  /** Milliseconds per call, from the nanosecond ticks of the last resolved batch. */
  async read(): Promise<number[]> {
    const ticks = await this.queries.ticks();
    const out: number[] = [];
    for (let i = 0; i < ticks.length; i += 2) out.push(Number(ticks[i + 1]! - ticks[i]!) / 1e6);
    return out;
  }

  destroy(): void {
    this.queries.destroy();
  }
}
