// Measurements that repeat: timed batches begin only once the GPU has settled, and batches far
// slower than the rest are measured again. A GPU can run a benchmark 2-3x slower for a while
// (clocks ramping up after idle, first touch of new buffers, another process): one such batch
// moves a mean, several move a median, and a tuner that ranks configs on them picks noise.
// Pure logic over a batch-measuring callback and a clock, so it is tested on synthetic timings.
// Browser-safe.
import { WgprimError } from '../runtime/errors.js';

/** One measured batch: per-call milliseconds (with the wall clock, one sample: the batch's time per call). */
export interface BatchSample {
  readonly times: readonly number[];
  /** Host milliseconds from submit to completion. */
  readonly wallMs: number;
}

export interface StabilityOptions {
  /** Batches to keep. */
  readonly batches: number;
  /**
   * Settled: two consecutive batches whose medians differ by at most this fraction of the
   * smaller (default 0.03). The first batch that agrees with the one before it, and that one,
   * are the first kept batches; those before are warm-up.
   */
  readonly tolerance?: number;
  /**
   * A kept batch whose median is over the reference (the second-fastest kept batch's median;
   * the fastest with fewer than four) by more than this fraction is measured again
   * (default 0.1). Only slow batches: a GPU does not run a batch faster than it can.
   */
  readonly outlierTolerance?: number;
  /** Differences of at most this many ms always agree (timer resolution; default 0.002). */
  readonly resolutionMs?: number;
  /**
   * Host milliseconds that settling and re-measuring may add (default 1000; 0: neither, the
   * batches are kept as they come). When it runs out, what is kept is reported unstable.
   */
  readonly settleMs?: number;
  /**
   * Most batches settling and re-measuring may add together (default `batches`, at least 2):
   * with `settleMs`, what bounds the cost of a measurement that never settles (a CPU adapter
   * under load), so a tuning campaign takes at most about twice as long measuring.
   */
  readonly maxExtraBatches?: number;
}

export const DEFAULT_STABLE_TOLERANCE = 0.03;
export const DEFAULT_OUTLIER_TOLERANCE = 0.1;
export const DEFAULT_SETTLE_MS = 1000;
const DEFAULT_RESOLUTION_MS = 0.002;
const MIN_EXTRA_BATCHES = 2;

export interface StabilityReport {
  /** Batches run before the kept ones and dropped (the GPU not yet settled). */
  readonly warmupBatches: number;
  /** Kept batches dropped as outliers and measured again. */
  readonly remeasuredBatches: number;
  /** Settled, and no kept batch is an outlier. */
  readonly stable: boolean;
  /** Why not stable (for a warning), when not. */
  readonly reason?: string;
}

export interface StableMeasurement<B extends BatchSample = BatchSample> {
  /** The kept batches, in the order they were measured. */
  readonly kept: readonly B[];
  readonly report: StabilityReport;
}

/** The median of a batch's per-call times. */
export function batchMedian(b: BatchSample): number {
  const s = [...b.times].sort((x, y) => x - y);
  const n = s.length;
  if (n === 0) return 0;
  return n % 2 ? s[n >> 1]! : (s[(n >> 1) - 1]! + s[n >> 1]!) / 2;
}

/** Whether two batch medians agree within `tolerance` of the smaller (or `resolutionMs`). */
export function agree(a: number, b: number, tolerance: number, resolutionMs = DEFAULT_RESOLUTION_MS): boolean {
  const d = Math.abs(a - b);
  // The tiny slack keeps a difference of exactly the bound (1 against 1.03) agreeing despite rounding.
  const slack = 1 + 1e-9;
  return d <= resolutionMs * slack || d <= tolerance * Math.min(a, b) * slack;
}

/**
 * The timer's step where `samples` show one: browsers quantize timestamps (~0.065 ms), so every
 * per-call time is a whole multiple of the step, and two medians one step apart are the same
 * time. Undefined with fewer than three distinct values or where they are not all multiples of
 * their smallest gap (a timer that does not quantize).
 */
export function timerStep(samples: readonly number[]): number | undefined {
  const values = [...new Set(samples)].sort((a, b) => a - b);
  if (values.length < 3) return undefined;
  let step = Infinity;
  for (let i = 1; i < values.length; i++) step = Math.min(step, values[i]! - values[i - 1]!);
  if (!(step > 0)) return undefined;
  return values.every((v) => Math.abs(v / step - Math.round(v / step)) < 1e-6) ? step : undefined;
}

/** Whether two batches agree: their medians, within `tolerance` or one step of a quantizing timer. */
function batchesAgree(a: BatchSample, b: BatchSample, tolerance: number, resolutionMs: number): boolean {
  const step = timerStep([...a.times, ...b.times]) ?? 0;
  return agree(batchMedian(a), batchMedian(b), tolerance, Math.max(resolutionMs, step));
}

/** The median the kept batches are judged against: the second-fastest, or the fastest of fewer than four. */
export function referenceMedian(medians: readonly number[]): number {
  const s = [...medians].sort((x, y) => x - y);
  return s.length >= 4 ? s[1]! : s[0] ?? 0;
}

/** Indices of the kept batches whose medians are outliers (slow) against the reference. */
export function outlierIndices(medians: readonly number[], outlierTolerance: number, resolutionMs = DEFAULT_RESOLUTION_MS): number[] {
  const ref = referenceMedian(medians);
  const out: number[] = [];
  medians.forEach((m, i) => {
    if (m - ref > resolutionMs * (1 + 1e-9) && m > ref * (1 + outlierTolerance)) out.push(i);
  });
  return out;
}

const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;

/**
 * Measures `options.batches` batches with `measure`, settled and without slow outliers:
 *
 * 1. Settle: batches run until one agrees with the one before it (`tolerance`); those two are
 *    the first kept, the ones before are warm-up. Out of budget, the last batch is kept as
 *    the first and the result is unstable.
 * 2. The rest of the batches.
 * 3. Outliers (`outlierTolerance` over the reference median) are dropped and measured again,
 *    while budget lasts; each round judges against the batches kept so far.
 *
 * The budget: `settleMs` host ms (from `now`) and `maxExtraBatches` batches beyond `batches`.
 */
export async function measureStable<B extends BatchSample>(measure: () => Promise<B>, options: StabilityOptions, now: () => number = () => performance.now()): Promise<StableMeasurement<B>> {
  const { batches } = options;
  const tolerance = options.tolerance ?? DEFAULT_STABLE_TOLERANCE;
  const outlierTolerance = options.outlierTolerance ?? DEFAULT_OUTLIER_TOLERANCE;
  const resolutionMs = options.resolutionMs ?? DEFAULT_RESOLUTION_MS;
  const settleMs = options.settleMs ?? DEFAULT_SETTLE_MS;
  const maxExtra = options.maxExtraBatches ?? Math.max(batches, MIN_EXTRA_BATCHES);
  if (!Number.isInteger(batches) || batches < 1) throw new WgprimError('invalid-argument', `batches must be an integer >= 1, got ${batches}`);
  for (const [k, v] of Object.entries({ tolerance, outlierTolerance, resolutionMs, settleMs, maxExtraBatches: maxExtra })) {
    if (!(v >= 0) || !Number.isFinite(v)) throw new WgprimError('invalid-argument', `${k} must be a finite number >= 0, got ${v}`);
  }

  const kept: B[] = [];
  // A quantizing timer's step counts as its resolution when judging outliers too.
  const resolutionOf = (bs: readonly B[]): number => Math.max(resolutionMs, timerStep(bs.flatMap((b) => b.times)) ?? 0);
  if (settleMs === 0) {
    // Neither settling nor re-measuring: the batches as they come, judged all the same.
    for (let b = 0; b < batches; b++) kept.push(await measure());
    const n = outlierIndices(kept.map(batchMedian), outlierTolerance, resolutionOf(kept)).length;
    const reason = n ? `${n} of ${kept.length} batches over ${pct(outlierTolerance)} slower than the rest (settling off)` : undefined;
    return { kept, report: { warmupBatches: 0, remeasuredBatches: 0, stable: !reason, ...(reason ? { reason } : {}) } };
  }

  const start = now();
  let extra = 0;
  const canAdd = (): boolean => extra < maxExtra && now() - start < settleMs;

  // 1. Settle.
  let warmupBatches = 0;
  let settled = false;
  let prev = await measure();
  if (batches === 1) {
    // One batch cannot be kept in pairs: settle on a pair, keep the later one.
    while (!settled) {
      if (!canAdd()) break;
      const next = await measure();
      extra++;
      warmupBatches++;
      settled = batchesAgree(prev, next, tolerance, resolutionMs);
      prev = next;
    }
    kept.push(prev);
  } else {
    while (!settled) {
      if (warmupBatches > 0 && !canAdd()) break;
      const next = await measure();
      if (batchesAgree(prev, next, tolerance, resolutionMs)) {
        settled = true;
        kept.push(prev, next);
      } else {
        extra++;
        warmupBatches++;
        prev = next;
      }
    }
    if (!settled) kept.push(prev);
  }

  // 2. The rest.
  while (kept.length < batches) kept.push(await measure());

  // 3. Outliers, measured again while the budget lasts.
  let remeasured = 0;
  let outliers = outlierIndices(kept.map(batchMedian), outlierTolerance, resolutionOf(kept));
  while (outliers.length && canAdd()) {
    // The slowest goes first: the reference may move once it is gone.
    const medians = kept.map(batchMedian);
    const i = outliers.reduce((w, j) => (medians[j]! > medians[w]! ? j : w), outliers[0]!);
    kept.splice(i, 1);
    kept.push(await measure());
    extra++;
    remeasured++;
    outliers = outlierIndices(kept.map(batchMedian), outlierTolerance, resolutionOf(kept));
  }

  const medians = kept.map(batchMedian);
  let reason: string | undefined;
  if (!settled) {
    reason = `did not settle: no two batches in a row within ${pct(tolerance)} after ${warmupBatches} warm-up batch${warmupBatches === 1 ? '' : 'es'}`;
  } else if (outliers.length) {
    const ref = referenceMedian(medians);
    const worst = Math.max(...outliers.map((i) => medians[i]!));
    reason = `${outliers.length} of ${kept.length} batches still over ${pct(outlierTolerance)} slower than the rest (up to ${pct(worst / ref - 1)}) after ${remeasured} re-measured`;
  }
  return { kept, report: { warmupBatches, remeasuredBatches: remeasured, stable: reason === undefined, ...(reason ? { reason } : {}) } };
}
