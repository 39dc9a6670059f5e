import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { aggregateProfile, KernelProfiler, passMedians, type PassSample, profileCalls, requireTimestampQuery, samplesFromTicks } from '../src/bench/profile.js';
import { prepareAlgorithmCall, releaseBenchmarkBuffers } from '../src/bench/run.js';
import { WgprimError } from '../src/runtime/errors.js';
import { type DeviceContext } from '../src/runtime/context.js';
import { type RecordCall } from '../src/bench/timing.js';
import { type Prim } from '../src/prim.js';
import { testPrim } from './support/gpu.js';

const pass = (label: string, beginMs: number, endMs: number): PassSample => ({ label, beginMs, endMs, ms: endMs - beginMs });

describe('profile aggregation (fake readback)', () => {
  it('turns resolved ticks into passes in recording order, across query sets', () => {
    // Two query sets of 4 timestamps: passes 0,1 in set 0, pass 2 in set 1.
    const t0 = 1_000_000_000_000n;
    const ticks = [
      BigInt64Array.from([t0 + 500_000n, t0 + 2_500_000n, t0 + 3_000_000n, t0 + 3_250_000n]),
      BigInt64Array.from([t0 + 4_000_000n, t0 + 3_900_000n, 0n, 0n]), // end before begin: reads 0 ms
    ];
    const s = samplesFromTicks([{ label: 'a', chunk: 0, index: 0 }, { label: 'b', chunk: 0, index: 2 }, { label: 'a', chunk: 1, index: 0 }], ticks);
    expect(s.map((p) => p.label)).toEqual(['a', 'b', 'a']);
    expect(s[0]).toEqual({ label: 'a', beginMs: 0, endMs: 2, ms: 2 });
    expect(s[1]!.beginMs).toBeCloseTo(2.5, 9);
    expect(s[1]!.ms).toBeCloseTo(0.25, 9);
    expect(s[2]!.ms).toBe(0);
    expect(() => samplesFromTicks([{ label: 'x', chunk: 2, index: 0 }], ticks)).toThrow(WgprimError);
  });

  it('sums per label: calls, total, medians, shares, span and gaps', () => {
    const runs = [
      [pass('up', 0, 1), pass('scan', 1, 1.5), pass('down', 2, 4), pass('up', 4, 5)],   // span 5, passes 4.5
      [pass('up', 10, 11), pass('scan', 11, 11.5), pass('down', 11.5, 13.5), pass('up', 13.5, 16.5)], // span 6.5, passes 6.5
      [pass('up', 0, 1), pass('scan', 1, 2.5), pass('down', 2.5, 4.5), pass('up', 4.5, 5.5)], // span 5.5, passes 5.5
    ];
    const p = aggregateProfile(runs);
    expect(p.runs).toBe(3);
    expect(p.kernels.map((k) => k.label)).toEqual(['up', 'down', 'scan']); // by total time
    const up = p.kernels[0]!;
    expect(up.calls).toBe(6);
    expect(up.callsPerRun).toBe(2);
    expect(up.totalMs).toBeCloseTo(8, 9);
    expect(up.medianMsPerCall).toBeCloseTo(1, 9);
    expect(up.medianMsPerRun).toBeCloseTo(2, 9); // per run: 2, 4, 2
    const down = p.kernels[1]!;
    expect(down.calls).toBe(3);
    expect(down.totalMs).toBeCloseTo(6, 9);
    const scan = p.kernels[2]!;
    expect(scan.medianMsPerRun).toBeCloseTo(0.5, 9); // 0.5, 0.5, 1.5
    expect(p.kernelTotalMs).toBeCloseTo(16.5, 9);
    expect(up.share).toBeCloseTo(8 / 16.5, 9);
    expect(p.kernels.reduce((s, k) => s + k.share, 0)).toBeCloseTo(1, 12);
    expect(p.spanMs).toEqual([5, 6.5, 5.5]);
    expect(p.medianSpanMs).toBeCloseTo(5.5, 9);
    expect(p.medianGapMs).toBeCloseTo(0, 9); // gaps 0.5, 0, 0
    // Per position in recording order: the second 'up' (1, 3, 1) apart from the first (1, 1, 1).
    const q = passMedians(runs);
    expect(q.map((x) => x.label)).toEqual(['up', 'scan', 'down', 'up']);
    expect(q.map((x) => x.medianMs)).toEqual([1, 0.5, 2, 1]);
    expect(passMedians([[pass('a', 0, 1), pass('b', 1, 4)], [pass('a', 0, 3)]])).toEqual([{ label: 'a', medianMs: 2 }, { label: 'b', medianMs: 3 }]);
    expect(passMedians([])).toEqual([]);
  });

  it('handles no passes and all-zero timestamps', () => {
    expect(aggregateProfile([[]]).kernels).toEqual([]);
    const p = aggregateProfile([[pass('a', 0, 0), pass('b', 0, 0), pass('b', 0, 0)]]);
    expect(p.kernels.reduce((s, k) => s + k.share, 0)).toBeCloseTo(1, 12);
    expect(p.kernels.find((k) => k.label === 'b')!.share).toBeCloseTo(2 / 3, 9);
  });
});

describe('missing timestamp-query', () => {
  const noTimestamps = { features: new Set(['subgroups']) } as unknown as GPUDevice;

  it('KernelProfiler and profileCalls throw WgprimError missing-feature', async () => {
    const expectMissing = (fn: () => unknown): void => {
      try {
        fn();
      } catch (e) {
        expect(e).toBeInstanceOf(WgprimError);
        expect((e as WgprimError).code).toBe('missing-feature');
        expect((e as WgprimError).message).toMatch(/timestamp-query/);
        return;
      }
      throw new Error('did not throw');
    };
    expectMissing(() => requireTimestampQuery(noTimestamps));
    expectMissing(() => new KernelProfiler(noTimestamps));
    const context = { profiler: undefined } as unknown as DeviceContext;
    await expect(profileCalls({ device: noTimestamps, context }, () => undefined)).rejects.toMatchObject({ code: 'missing-feature' });
    expect(context.profiler).toBeUndefined();
  });
});

describe('profiling on the device', () => {
  let prim: Prim;
  let has: boolean;
  beforeAll(async () => {
    prim = await testPrim();
    has = prim.context.features.has('timestamp-query');
    if (!has) console.warn('this adapter has no timestamp-query: device profiling tests are skipped');
  });
  afterAll(() => {
    if (prim) releaseBenchmarkBuffers(prim.device);
  });

  /** The labels `record` dispatches, in order, found by wrapping `dispatch` (no profiler involved). */
  async function dispatchedLabels(record: RecordCall): Promise<string[]> {
    const ctx = prim.context;
    const labels: string[] = [];
    const original = ctx.dispatch.bind(ctx);
    const spy = vi.spyOn(ctx, 'dispatch').mockImplementation((...args) => {
      labels.push(args[1]);
      original(...args);
    });
    try {
      const enc = prim.device.createCommandEncoder();
      await record(enc);
      prim.device.queue.submit([enc.finish()]);
      await prim.device.queue.onSubmittedWorkDone();
    } finally {
      spy.mockRestore();
    }
    return labels;
  }

  it('profiles a reduce-then-scan scan: every dispatched kernel appears, shares sum to 1', async () => {
    if (!has) return;
    const call = await prepareAlgorithmCall(prim, 'inclusive_scan', { type: 'u32', size: 5000, seed: 7, config: { lookback: 'reduce-then-scan', workgroupSize: 64, itemsPerThread: 4 } });
    const expected = await dispatchedLabels(call.record);
    expect(new Set(expected).size).toBeGreaterThanOrEqual(2); // several kernels: a real test of per-label sums
    const runs = 4;
    const p = await profileCalls(prim, call.record, { runs, warmup: 1 });
    expect(prim.context.profiler).toBeUndefined();
    expect(p.runs).toBe(runs);
    expect(new Set(p.kernels.map((k) => k.label))).toEqual(new Set(expected));
    for (const label of new Set(expected)) {
      const k = p.kernels.find((x) => x.label === label)!;
      expect(k.calls).toBe(runs * expected.filter((l) => l === label).length);
      expect(k.callsPerRun).toBe(expected.filter((l) => l === label).length);
      expect(k.totalMs).toBeGreaterThanOrEqual(0);
      expect(Number.isFinite(k.medianMsPerCall)).toBe(true);
    }
    expect(p.kernelTotalMs).toBeGreaterThan(0);
    expect(p.kernels.reduce((s, k) => s + k.share, 0)).toBeCloseTo(1, 6);
    for (let i = 1; i < p.kernels.length; i++) expect(p.kernels[i - 1]!.totalMs).toBeGreaterThanOrEqual(p.kernels[i]!.totalMs);
    // Each run's passes, in the order dispatched; the span covers every pass of its run.
    for (const [r, passes] of p.passes.entries()) {
      expect(passes.map((x) => x.label)).toEqual(expected);
      expect(p.spanMs[r]!).toBeGreaterThanOrEqual(Math.max(...passes.map((x) => x.ms)) - 1e-9);
    }
    expect(p.medianSpanMs).toBeGreaterThan(0);
    // A time-based warmup runs the call unprofiled for that long first; the profiled runs stay `runs`.
    let calls = 0;
    const counted = async (enc: GPUCommandEncoder): Promise<void> => { calls++; await call.record(enc); };
    const t0 = performance.now();
    const w = await profileCalls(prim, counted, { runs: 2, warmup: 1, warmupMs: 80 });
    expect(performance.now() - t0).toBeGreaterThanOrEqual(80);
    expect(w.passes).toHaveLength(2);
    expect(calls).toBeGreaterThan(1 + 2 + 1); // more than one warmup submit
    await expect(profileCalls(prim, call.record, { warmupMs: Number.NaN })).rejects.toThrow(/warmupMs/);
  });

  it('chunks past one query set and keeps the recording order', async () => {
    if (!has) return;
    const call = await prepareAlgorithmCall(prim, 'radix_sort_keys', { type: 'u32', size: 4000, seed: 3, config: { lookback: 'reduce-then-scan' } });
    const expected = await dispatchedLabels(call.record);
    // 2 passes per set: every pass after the second opens (or reuses) another query set.
    const profiler = new KernelProfiler(prim.device, { querySetSize: 4 });
    try {
      for (let round = 0; round < 2; round++) {
        const enc = prim.device.createCommandEncoder();
        profiler.attach(prim.context);
        await call.record(enc);
        await call.record(enc); // twice in one submit
        profiler.detach();
        profiler.resolve(enc);
        prim.device.queue.submit([enc.finish()]);
        await prim.device.queue.onSubmittedWorkDone();
        const samples = await profiler.read();
        expect(samples.map((s) => s.label)).toEqual([...expected, ...expected]);
        expect(profiler.querySets).toBe(Math.ceil((2 * expected.length) / 2));
        for (const s of samples) expect(s.ms).toBeGreaterThanOrEqual(0);
        // In submission order on one queue, each pass begins no earlier than the previous one began.
        for (let i = 1; i < samples.length; i++) expect(samples[i]!.beginMs).toBeGreaterThanOrEqual(samples[i - 1]!.beginMs);
      }
    } finally {
      profiler.destroy();
    }
    expect(prim.context.profiler).toBeUndefined();
  });

  it('reading without a resolve, or a second profiler, is an error', async () => {
    if (!has) return;
    const a = new KernelProfiler(prim.device);
    const b = new KernelProfiler(prim.device);
    try {
      a.attach(prim.context);
      expect(() => b.attach(prim.context)).toThrow(/another profiler/);
      a.passTimestampWrites('x');
      a.detach();
      await expect(a.read()).rejects.toMatchObject({ code: 'invalid-argument' });
    } finally {
      a.destroy();
      b.destroy();
    }
    expect(prim.context.profiler).toBeUndefined();
  });

  it('detaches when the recorded call throws, and later dispatches are unaffected', async () => {
    if (!has) return;
    const data = Uint32Array.from({ length: 3000 }, (_, i) => i % 13);
    const input = prim.device.createBuffer({ size: data.byteLength, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
    prim.device.queue.writeBuffer(input, 0, data);
    const output = prim.device.createBuffer({ size: 16, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC });
    let n = 0;
    const failing: RecordCall = async (enc) => {
      await prim.reduce(enc, { input, output, count: data.length, type: 'u32' });
      if (++n === 2) throw new Error('boom'); // the first profiled run
    };
    await expect(profileCalls(prim, failing, { runs: 2, warmup: 1 })).rejects.toThrow('boom');
    expect(prim.context.profiler).toBeUndefined();
    // Passes recorded afterwards carry no timestamp writes, and results are right.
    const enc = prim.device.createCommandEncoder();
    const begin = vi.spyOn(enc, 'beginComputePass');
    await prim.reduce(enc, { input, output, count: data.length, type: 'u32' });
    expect(begin).toHaveBeenCalled();
    for (const [desc] of begin.mock.calls) expect(desc?.timestampWrites).toBeUndefined();
    prim.device.queue.submit([enc.finish()]);
    expect(await prim.arrays.reduce(data)).toBe(data.reduce((s, x) => s + x, 0));
    input.destroy();
    output.destroy();
  });

  it('profileCommand prints the table and writes the JSON', async () => {
    if (!has) return;
    const { profileCommand } = await import('../src/cli/profile.js');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wgprim-profile-'));
    const file = path.join(dir, 'p.json');
    const lines: string[] = [];
    const log = vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void lines.push(a.join(' ')));
    const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    let code: number;
    try {
      code = await profileCommand({ algorithm: 'exclusive_scan', type: 'u32', size: 65536, runs: 2, warmup: 1, seed: 1, json: file, config: '{"scan":{"lookback":"reduce-then-scan"}}' });
    } finally {
      log.mockRestore();
      err.mockRestore();
    }
    expect(code).toBe(0);
    const out = lines.join('\n');
    expect(out).toMatch(/kernel\s+calls\/run\s+median ms\/run/);
    const json = JSON.parse(fs.readFileSync(file, 'utf8')) as { format: string; runs: number; kernels: { label: string; calls: number; share: number; calls_per_run: number }[]; passes: { label: string; median_ms: number }[] };
    expect(json.format).toBe('wgprim-kernel-profile');
    expect(json.runs).toBe(2);
    expect(json.kernels.length).toBeGreaterThanOrEqual(2);
    for (const k of json.kernels) {
      expect(k.label).toMatch(/^wgprim\.scan\./);
      expect(k.calls).toBeGreaterThan(0);
      expect(out).toContain(k.label);
    }
    expect(json.kernels.reduce((s, k) => s + k.share, 0)).toBeCloseTo(1, 6);
    // One entry a pass of a run, in recording order: each label as often as its calls a run.
    expect(json.passes.length).toBe(json.kernels.reduce((s, k) => s + k.calls_per_run, 0));
    for (const k of json.kernels) expect(json.passes.filter((q) => q.label === k.label).length).toBe(k.calls_per_run);
    for (const q of json.passes) expect(q.median_ms).toBeGreaterThanOrEqual(0);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
