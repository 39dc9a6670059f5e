// Per-kernel GPU time profile through WebGPU timestamps: browser-safe (no Node imports).
//
// While a `KernelProfiler` is attached to a `DeviceContext`, every compute pass that
// `DeviceContext.dispatch` records writes a timestamp at its beginning and its end into a query
// set the profiler owns, and the profiler remembers the pass's (kernel's) label. After the work
// is submitted, the profiler reads the timestamps back and `aggregateProfile` sums them per label
// (nsys's kernel summary, for one algorithm call).
import { WgprimError } from '../runtime/errors.js';
import { type DeviceContext, type DispatchProfiler } from '../runtime/context.js';
import { checked, type RecordCall, TimestampQuerySet, timingStats, warmUp } from './timing.js';

/** WebGPU's cap on the queries of one query set. */
export const MAX_QUERIES_PER_SET = 4096;

/** One profiled compute pass. Times are from the first pass of its read-back, in ms. */
export interface PassSample {
  readonly label: string;
  readonly beginMs: number;
  readonly endMs: number;
  /** endMs - beginMs, never negative (WebGPU allows timestamps to go backwards; those read 0). */
  readonly ms: number;
}

export interface KernelProfilerOptions {
  /**
   * Queries per query set (even, 2..4096; default 4096, i.e. 2048 passes). Past it the profiler
   * opens another set (and its buffers), so any number of passes can be profiled.
   */
  readonly querySetSize?: number;
}

interface Chunk {
  readonly queries: TimestampQuerySet;
  /** Queries handed out since the last read. */
  used: number;
  /** Queries covered by the last `resolve`. */
  resolved: number;
}

/** Throws `missing-feature` unless the device was created with 'timestamp-query'. */
export function requireTimestampQuery(device: GPUDevice): void {
  const features = device.features as unknown as ReadonlySet<string>;
  if (!features.has('timestamp-query')) {
    throw new WgprimError('missing-feature', 'kernel profiling needs the device feature "timestamp-query", which this device was not created with: request it in requiredFeatures where the adapter has it (wgprim/node\'s requestDevice does)');
  }
}

/**
 * Owns the query sets of a profile: hands out a begin/end pair of timestamp indices per
 * dispatched pass (`passTimestampWrites`, called by `DeviceContext.dispatch` while attached),
 * resolves them into an encoder (`resolve`) and reads them back (`read`).
 *
 * Use: `attach(ctx)`, record the work, `detach()`, `resolve(encoder)` in the last encoder
 * submitted, submit, then `await read()`. `profileCalls` does all of that.
 */
export class KernelProfiler implements DispatchProfiler {
  readonly device: GPUDevice;
  readonly querySetSize: number;
  private readonly chunks: Chunk[] = [];
  private current = 0;
  private labels: { label: string; chunk: number; index: number }[] = [];
  private attachedTo: DeviceContext | undefined;
  private destroyed = false;

  constructor(device: GPUDevice, options: KernelProfilerOptions = {}) {
    requireTimestampQuery(device);
    const size = options.querySetSize ?? MAX_QUERIES_PER_SET;
    if (!Number.isInteger(size) || size < 2 || size > MAX_QUERIES_PER_SET || size % 2) {
      throw new WgprimError('invalid-argument', `querySetSize must be an even integer in 2..${MAX_QUERIES_PER_SET}, got ${size}`);
    }
    this.device = device;
    this.querySetSize = size;
  }

  /** Passes recorded since the last `read`. */
  get pendingPasses(): number {
    return this.labels.length;
  }

  /** Query sets allocated so far (each `querySetSize` timestamps). */
  get querySets(): number {
    return this.chunks.length;
  }

  /** Makes `ctx.dispatch` time its passes into this profiler until `detach`. */
  attach(ctx: DeviceContext): void {
    this.assertAlive();
    if (ctx.profiler !== undefined && ctx.profiler !== this) {
      throw new WgprimError('invalid-argument', 'another profiler is attached to this context: detach it first');
    }
    if (this.attachedTo && this.attachedTo !== ctx) this.detach();
    ctx.profiler = this;
    this.attachedTo = ctx;
  }

  /** Stops timing the attached context's passes (a no-op when not attached). */
  detach(): void {
    if (this.attachedTo?.profiler === this) this.attachedTo.profiler = undefined;
    this.attachedTo = undefined;
  }

  /** `DispatchProfiler`: two timestamps (begin, end) for the pass `label`. */
  passTimestampWrites(label: string): GPUComputePassTimestampWrites {
    this.assertAlive();
    let chunk = this.chunks[this.current];
    if (chunk && chunk.used + 2 > this.querySetSize) chunk = this.chunks[++this.current];
    if (!chunk) {
      chunk = this.newChunk();
      this.current = this.chunks.length - 1;
    }
    const index = chunk.used;
    chunk.used += 2;
    this.labels.push({ label, chunk: this.current, index });
    return { querySet: chunk.queries.set, beginningOfPassWriteIndex: index, endOfPassWriteIndex: index + 1 };
  }

  /**
   * Resolves every timestamp handed out since the last `read` and copies them to the read-back
   * buffers. Record it in the encoder submitted last (after every profiled pass).
   */
  resolve(encoder: GPUCommandEncoder): void {
    this.assertAlive();
    for (const chunk of this.chunks) {
      if (chunk.used === 0) continue;
      chunk.queries.resolve(encoder, chunk.used);
      chunk.resolved = chunk.used;
    }
  }

  /**
   * The passes recorded since the last `read`, in recording order, once the work holding
   * `resolve` has been submitted. Frees the query slots for the next recording.
   */
  async read(): Promise<PassSample[]> {
    this.assertAlive();
    const used = this.chunks.filter((c) => c.used > 0);
    const unresolved = used.find((c) => c.resolved !== c.used);
    if (unresolved) {
      throw new WgprimError('invalid-argument', 'KernelProfiler.read: passes were recorded after the last resolve(encoder); resolve in the last encoder submitted');
    }
    const ticks: BigInt64Array[] = [];
    for (const chunk of this.chunks) {
      if (chunk.used === 0) {
        ticks.push(new BigInt64Array(0));
        continue;
      }
      ticks.push(await chunk.queries.ticks(chunk.used));
    }
    const samples = samplesFromTicks(this.labels, ticks);
    for (const chunk of this.chunks) chunk.used = chunk.resolved = 0;
    this.current = 0;
    this.labels = [];
    return samples;
  }

  /** Detaches and frees the query sets and buffers. */
  destroy(): void {
    if (this.destroyed) return;
    this.detach();
    for (const c of this.chunks) c.queries.destroy();
    this.chunks.length = 0;
    this.labels = [];
    this.destroyed = true;
  }

  private assertAlive(): void {
    if (this.destroyed) throw new WgprimError('invalid-argument', 'this KernelProfiler was destroyed');
  }

  private newChunk(): Chunk {
    const chunk: Chunk = { queries: new TimestampQuerySet(this.device, this.querySetSize, 'wgprim.profile', `.${this.chunks.length}`), used: 0, resolved: 0 };
    this.chunks.push(chunk);
    return chunk;
  }
}

/**
 * Passes from resolved timestamps (ns ticks, one array per query set): pass `i` of `passes`
 * reads `ticks[chunk][index]` (begin) and `[index + 1]` (end). Times are relative to the
 * earliest begin, in ms.
 */
export function samplesFromTicks(passes: readonly { label: string; chunk: number; index: number }[], ticks: readonly BigInt64Array[]): PassSample[] {
  const at = (chunk: number, index: number): bigint => {
    const v = ticks[chunk]?.[index];
    if (v === undefined) throw new WgprimError('invalid-argument', `no timestamp ${index} in query set ${chunk}`);
    return v;
  };
  let base: bigint | undefined;
  for (const p of passes) {
    const b = at(p.chunk, p.index);
    if (base === undefined || b < base) base = b;
  }
  return passes.map((p) => {
    const beginMs = Number(at(p.chunk, p.index) - base!) / 1e6;
    const endMs = Number(at(p.chunk, p.index + 1) - base!) / 1e6;
    return { label: p.label, beginMs, endMs, ms: Math.max(0, endMs - beginMs) };
  });
}

// ---------------------------------------------------------------------------------------------

/** One kernel label's figures over the profiled runs. */
export interface KernelStat {
  readonly label: string;
  /** Passes with this label, over all runs. */
  readonly calls: number;
  /** calls / runs. */
  readonly callsPerRun: number;
  /** GPU ms of its passes, over all runs. */
  readonly totalMs: number;
  /** Median GPU ms of one of its passes. */
  readonly medianMsPerCall: number;
  /** Median over runs of its GPU ms in a run. */
  readonly medianMsPerRun: number;
  /** totalMs over the total of every label (the shares sum to 1). */
  readonly share: number;
}

export interface KernelProfile {
  readonly runs: number;
  /** Sorted by total time, largest first. */
  readonly kernels: readonly KernelStat[];
  /** Sum of every pass's GPU ms, over all runs. */
  readonly kernelTotalMs: number;
  /** Whole call: from the first pass's beginning to the last pass's end, per run (ms). */
  readonly spanMs: readonly number[];
  readonly medianSpanMs: number;
  /** Median per run of span minus the passes' time: gaps between passes (barriers, copies, launch). */
  readonly medianGapMs: number;
}

/** Sums passes per label. `runs[i]` holds run i's passes (times relative to any fixed origin). */
export function aggregateProfile(runs: readonly (readonly PassSample[])[]): KernelProfile {
  const byLabel = new Map<string, { calls: number[]; perRun: number[] }>();
  const spanMs: number[] = [];
  const gaps: number[] = [];
  runs.forEach((passes, r) => {
    let first = Infinity;
    let last = -Infinity;
    let sum = 0;
    for (const p of passes) {
      let entry = byLabel.get(p.label);
      if (!entry) {
        entry = { calls: [], perRun: new Array<number>(runs.length).fill(0) };
        byLabel.set(p.label, entry);
      }
      entry.calls.push(p.ms);
      entry.perRun[r]! += p.ms;
      sum += p.ms;
      first = Math.min(first, p.beginMs);
      last = Math.max(last, p.endMs);
    }
    const span = passes.length ? Math.max(0, last - first) : 0;
    spanMs.push(span);
    gaps.push(Math.max(0, span - sum));
  });
  const totals = [...byLabel].map(([label, e]) => ({ label, e, totalMs: e.calls.reduce((s, x) => s + x, 0) }));
  const kernelTotalMs = totals.reduce((s, k) => s + k.totalMs, 0);
  const kernels: KernelStat[] = totals.map(({ label, e, totalMs }) => ({
    label,
    calls: e.calls.length,
    callsPerRun: runs.length ? e.calls.length / runs.length : 0,
    totalMs,
    medianMsPerCall: timingStats(e.calls).median,
    medianMsPerRun: timingStats(e.perRun).median,
    // With every pass at 0 ms (coarse timestamps), split by calls so the shares still sum to 1.
    share: kernelTotalMs > 0 ? totalMs / kernelTotalMs : e.calls.length / Math.max(1, totals.reduce((s, k) => s + k.e.calls.length, 0)),
  }));
  kernels.sort((a, b) => b.totalMs - a.totalMs || b.calls - a.calls || a.label.localeCompare(b.label));
  return { runs: runs.length, kernels, kernelTotalMs, spanMs, medianSpanMs: timingStats(spanMs).median, medianGapMs: timingStats(gaps).median };
}

/** One pass position of a call: its label and median GPU ms over the runs that reached it. */
export interface PassMedian {
  readonly label: string;
  readonly medianMs: number;
}

/**
 * The passes of a call in recording order, each the median over runs of that position (where one
 * label runs several times, as the LSD sort's passes, shows which of them is slow).
 */
export function passMedians(runs: readonly (readonly PassSample[])[]): PassMedian[] {
  const longest = Math.max(0, ...runs.map((r) => r.length));
  return Array.from({ length: longest }, (_, i) => {
    const at = runs.flatMap((r) => (i < r.length ? [r[i]!] : []));
    return { label: at[0]!.label, medianMs: timingStats(at.map((p) => p.ms)).median };
  });
}

// ---------------------------------------------------------------------------------------------

/** Anything holding a device and its `DeviceContext` (a `Prim`). */
export interface ProfileTarget {
  readonly device: GPUDevice;
  readonly context: DeviceContext;
}

export interface ProfileOptions extends KernelProfilerOptions {
  /** Profiled runs (default 5), each one submit. */
  readonly runs?: number;
  /** Unprofiled runs first (default 1): pipeline compiles, caches. */
  readonly warmup?: number;
  /** Unprofiled runs go on until this many ms have passed (default 0; `TimingOptions.warmupMs`). */
  readonly warmupMs?: number;
}

export interface ProfileResult extends KernelProfile {
  /** Every profiled pass, per run. */
  readonly passes: readonly (readonly PassSample[])[];
}

/**
 * Runs `record` `warmup` times unprofiled, then `runs` times with a `KernelProfiler` attached to
 * `target.context` (one submit per run), and aggregates the passes per kernel label. The
 * profiler is detached and destroyed when it returns or throws. Other work recorded through
 * the same context while a run is being recorded would be profiled too.
 */
export async function profileCalls(target: ProfileTarget, record: RecordCall, options: ProfileOptions = {}): Promise<ProfileResult> {
  const runs = options.runs ?? 5;
  const warmup = options.warmup ?? 1;
  if (!Number.isInteger(runs) || runs < 1) throw new WgprimError('invalid-argument', `runs must be an integer >= 1, got ${runs}`);
  if (!Number.isInteger(warmup) || warmup < 0) throw new WgprimError('invalid-argument', `warmup must be an integer >= 0, got ${warmup}`);
  const { device, context } = target;
  requireTimestampQuery(device);
  context.assertAlive();
  if (context.profiler !== undefined) throw new WgprimError('invalid-argument', 'a profiler is already attached to this context');

  await warmUp(device, record, warmup, options.warmupMs ?? 0, 'wgprim.profile.warmup');

  const profiler = new KernelProfiler(device, options);
  const passes: PassSample[][] = [];
  try {
    for (let r = 0; r < runs; r++) {
      await checked(device, async () => {
        const enc = device.createCommandEncoder({ label: 'wgprim.profile.run' });
        profiler.attach(context);
        try {
          await record(enc);
        } finally {
          profiler.detach();
        }
        profiler.resolve(enc);
        device.queue.submit([enc.finish()]);
      }, 'profiled work');
      await device.queue.onSubmittedWorkDone();
      passes.push(await profiler.read());
    }
  } finally {
    profiler.destroy();
  }
  return { ...aggregateProfile(passes), passes };
}

