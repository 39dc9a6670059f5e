// Settling and outlier re-measurement (src/bench/stability.ts) on synthetic batch timings: a
// scripted sequence of batch medians and a fake clock, so every case is deterministic. No GPU.
import { describe, expect, it } from 'vitest';
import { agree, type BatchSample, batchMedian, measureStable, outlierIndices, referenceMedian, type StabilityOptions, timerStep } from '../src/bench/stability.js';

/** A measure callback that returns batches of the given medians in turn (3 calls each), each taking `msPerBatch` on the fake clock. */
function scripted(medians: readonly number[], msPerBatch = 10): { measure: () => Promise<BatchSample>; now: () => number; count: () => number } {
  let i = 0;
  let clock = 0;
  return {
    measure: async () => {
      if (i >= medians.length) throw new Error(`the script has only ${medians.length} batches`);
      const m = medians[i++]!;
      clock += msPerBatch;
      return { times: [m * 0.99, m, m * 1.01], wallMs: 3 * m };
    },
    now: () => clock,
    count: () => i,
  };
}

async function run(medians: readonly number[], options: StabilityOptions, msPerBatch = 10) {
  const s = scripted(medians, msPerBatch);
  const r = await measureStable(s.measure, options, s.now);
  return { ...r, medians: r.kept.map(batchMedian), used: s.count() };
}

describe('stability: the rules', () => {
  it('agree within a fraction of the smaller, or within the timer resolution', () => {
    expect(agree(1, 1.03, 0.03)).toBe(true);
    expect(agree(1, 1.031, 0.03)).toBe(false);
    expect(agree(1.031, 1, 0.03)).toBe(false);
    expect(agree(0.001, 0.0025, 0.03)).toBe(true);
    expect(batchMedian({ times: [3, 1, 2, 10], wallMs: 0 })).toBe(2.5);
  });

  it('finds the step of a quantizing timer (browsers), and none in a fine one', () => {
    const q = 0.065536;
    expect(timerStep([2 * q, 3 * q, 3 * q, 5 * q])).toBeCloseTo(q, 12);
    expect(timerStep([0.1234, 0.1301, 0.1277, 0.1250])).toBeUndefined();
    expect(timerStep([q, 2 * q])).toBeUndefined();
  });

  it('judges batches against the second-fastest (the fastest of fewer than four), slow ones only', () => {
    expect(referenceMedian([1.0, 1.02])).toBe(1.0);
    expect(referenceMedian([0.5, 1.0, 1.01, 1.02])).toBe(1.0);
    expect(outlierIndices([1.0, 1.05, 1.2, 0.98], 0.1)).toEqual([2]);
    // One freak fast batch does not make every other batch an outlier.
    expect(outlierIndices([0.5, 1.0, 1.01, 1.02, 1.0], 0.1)).toEqual([]);
  });
});

describe('stability: measureStable', () => {
  it('a steady GPU: the first two batches agree and are kept, nothing added', async () => {
    const r = await run([1, 1.01, 1.0, 0.99, 1.02], { batches: 5 });
    expect(r.used).toBe(5);
    expect(r.medians).toEqual([1, 1.01, 1.0, 0.99, 1.02]);
    expect(r.report).toEqual({ warmupBatches: 0, remeasuredBatches: 0, stable: true });
  });

  it('a slow start (the H200 u32 sort: 1.58 ms, then 0.556): the slow batches are warm-up, dropped', async () => {
    const r = await run([1.58, 1.2, 0.7, 0.556, 0.555, 0.556, 0.557, 0.555], { batches: 5 });
    expect(r.report).toEqual({ warmupBatches: 3, remeasuredBatches: 0, stable: true });
    expect(r.medians).toEqual([0.556, 0.555, 0.556, 0.557, 0.555]);
  });

  it('a slow plateau that agrees with itself, then the real speed: the slow batches are outliers, measured again', async () => {
    // Two slow batches agree (settled too early); the later fast ones show they were slow.
    const r = await run([3.9, 3.88, 1.47, 1.47, 1.46, 1.48, 1.47, 1.47], { batches: 6 });
    expect(r.report).toEqual({ warmupBatches: 0, remeasuredBatches: 2, stable: true });
    expect(r.medians.every((m) => m < 1.5)).toBe(true);
    expect(r.medians).toHaveLength(6);
  });

  it('one slow batch in the middle (another process, a clock dip) is measured again', async () => {
    const r = await run([1, 1, 1, 1.6, 1, 1, 1], { batches: 6 });
    expect(r.report).toEqual({ warmupBatches: 0, remeasuredBatches: 1, stable: true });
    expect(r.medians).toEqual([1, 1, 1, 1, 1, 1]);
  });

  it('never settles within the extra-batch cap: the last batches kept, reported unstable with why', async () => {
    const noisy = [1, 1.2, 1, 1.2, 1, 1.2, 1, 1.2, 1, 1.2, 1, 1.2];
    const r = await run(noisy, { batches: 4, maxExtraBatches: 4 });
    expect(r.report.stable).toBe(false);
    expect(r.report.warmupBatches).toBe(4);
    expect(r.report.reason).toMatch(/did not settle: no two batches in a row within 3.0% after 4 warm-up batches/);
    expect(r.kept).toHaveLength(4);
    expect(r.used).toBeLessThanOrEqual(4 + 4 + 1);
  });

  it('stops settling and re-measuring when the time budget runs out', async () => {
    const noisy = Array.from({ length: 40 }, (_, i) => (i % 2 ? 1.3 : 1));
    const r = await run(noisy, { batches: 3, settleMs: 55, maxExtraBatches: 100 }, 10);
    expect(r.report.stable).toBe(false);
    // 10 ms a batch, 55 ms of budget: about five batches of settling, then the three kept.
    expect(r.used).toBeLessThanOrEqual(6 + 3);
  });

  it('outliers that stay after the budget: unstable, saying how much slower', async () => {
    const r = await run([1, 1, 2, 2, 2, 2, 2, 2], { batches: 4, maxExtraBatches: 2 });
    expect(r.report.stable).toBe(false);
    expect(r.report.remeasuredBatches).toBe(2);
    expect(r.report.reason).toMatch(/2 of 4 batches still over 10.0% slower than the rest \(up to 100.0%\) after 2 re-measured/);
  });

  it('one batch: settles on a pair and keeps the later', async () => {
    const r = await run([2, 1, 1.01], { batches: 1 });
    expect(r.medians).toEqual([1.01]);
    expect(r.report).toEqual({ warmupBatches: 2, remeasuredBatches: 0, stable: true });
  });

  it('settleMs 0: the batches as they come, still judged', async () => {
    const r = await run([2, 1, 1, 1], { batches: 4, settleMs: 0 });
    expect(r.used).toBe(4);
    expect(r.medians).toEqual([2, 1, 1, 1]);
    expect(r.report.stable).toBe(false);
    expect(r.report.reason).toMatch(/settling off/);
    expect((await run([1, 1], { batches: 2, settleMs: 0 })).report).toEqual({ warmupBatches: 0, remeasuredBatches: 0, stable: true });
  });

  it('batches one step of a quantizing timer apart agree', async () => {
    const q = 0.065536;
    let i = 0;
    const batches = [[2, 2, 4], [3, 3, 2], [2, 3, 3], [3, 2, 2]].map((ticks) => ({ times: ticks.map((t) => t * q), wallMs: 1 }));
    const r = await measureStable(async () => batches[i++]!, { batches: 2 }, () => 0);
    expect(r.report).toEqual({ warmupBatches: 0, remeasuredBatches: 0, stable: true });
    expect(i).toBe(2);
  });

  it('rejects bad options', async () => {
    await expect(run([1], { batches: 0 })).rejects.toThrow(/batches/);
    await expect(run([1], { batches: 1, tolerance: -1 })).rejects.toThrow(/tolerance/);
    await expect(run([1], { batches: 1, settleMs: Number.NaN })).rejects.toThrow(/settleMs/);
  });
});
