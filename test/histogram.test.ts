import { beforeAll, describe, expect, it } from 'vitest';
import { f16Bits, type HistogramConfig, type HistogramSampleArray, type HistogramSampleType, type Prim, WgprimError } from '../src/index.js';
import { histogramEvenReference, histogramRangeReference } from '../src/device/histogram/reference.js';
import { testPrim } from './support/gpu.js';
import { rng, SEED } from './support/data.js';
import { sweepOr } from './support/sweep.js';
import { anchorRatio, anchorType, loadAnchors, packageAnchorsFile } from '../src/cli/table.js';
import { type BenchRecord } from '../src/bench/gbench.js';
import { benchmarkName, benchmarkSpec, benchResources, prepareAlgorithmCall } from '../src/bench/run.js';
import { type Kernel } from '../src/runtime/kernel.js';
import { type TunedEntry } from '../src/config/types.js';
import { type TypeClass } from '../src/wgsl/types.js';
import { histogramClass, histogramTable } from '../src/device/histogram/table.js';
import { createOptimization } from '../src/tune/create-optimization.js';
import { renderTableModule } from '../src/tune/render-tables.js';
import { PLAN_STAGES } from '../src/tune/plan.js';
import { testPrim as makePrim } from './support/gpu.js';

let prim: Prim;
beforeAll(async () => {
  prim = await testPrim();
});

// Small tiles (64 invocations x 4 words = 256 words) and small grids, so that tile edges, the
// persistent loop (several tiles a workgroup) and the tail are reached at sizes lavapipe runs quickly.
const PATHS: readonly (readonly [string, Partial<HistogramConfig>])[] = [
  ['privatized, 2 copies, grid of 3', { workgroupSize: 64, itemsPerThread: 4, privatization: 'shared', copies: 2, gridSize: 3 }],
  ['global atomics, grid of 64', { workgroupSize: 64, itemsPerThread: 8, privatization: 'global', copies: 1, gridSize: 64 }],
];
const TILE_WORDS = 256;
const TYPES: readonly HistogramSampleType[] = ['u8', 'u16', 'u32', 'i32', 'f32', 'f16'];
const BYTES: Record<HistogramSampleType, number> = { u8: 1, u16: 2, u32: 4, i32: 4, f32: 4, f16: 2 };
/** Sample counts around one and several tiles of words, for a sample size. */
const sizes = (t: HistogramSampleType): number[] => {
  const tile = (TILE_WORDS * 4) / BYTES[t];
  return [0, 1, 2, 3, 5, tile - 1, tile, tile + 1, 2 * tile + 3, 7 * tile + 13];
};

/** Random samples of a type: integers over all their values, floats in [-2, 2) with NaN, +-inf, -0 and bin edges mixed in. */
function samples(t: HistogramSampleType, n: number, seed: number): HistogramSampleArray {
  const r = rng(seed);
  const float = (): number => {
    const u = r();
    return u < 0.03 ? NaN : u < 0.05 ? Infinity : u < 0.07 ? -Infinity : u < 0.1 ? -0 : u < 0.2 ? Math.floor(r() * 16) / 4 - 2 : r() * 4 - 2;
  };
  switch (t) {
    case 'u8': return Uint8Array.from({ length: n }, () => Math.floor(r() * 256));
    case 'u16': return Uint16Array.from({ length: n }, () => Math.floor(r() * 65536));
    case 'u32': return Uint32Array.from({ length: n }, () => (r() * 2 ** 32) >>> 0);
    case 'i32': return Int32Array.from({ length: n }, () => (r() * 2 ** 32) | 0);
    case 'f32': return Float32Array.from({ length: n }, float);
    case 'f16': return Uint16Array.from({ length: n }, () => f16Bits(float()));
  }
}

/** Even binning per type: ranges that do not divide into the bins, so the integer path corrects its estimate. */
const EVEN: Record<HistogramSampleType, { bins: number; lower: number; upper: number }> = {
  u8: { bins: 37, lower: 3, upper: 250 },
  u16: { bins: 100, lower: 1000, upper: 60001 },
  u32: { bins: 97, lower: 12345, upper: 4000000007 },
  i32: { bins: 61, lower: -2000000011, upper: 1500000000 },
  f32: { bins: 50, lower: -1.5, upper: 1.75 },
  f16: { bins: 50, lower: -1.5, upper: 1.75 },
};
/** Range levels per type: uneven widths. */
const LEVELS: Record<HistogramSampleType, number[]> = {
  u8: [0, 1, 2, 10, 100, 101, 200, 255],
  u16: [5, 6, 300, 1000, 40000, 65535],
  u32: [0, 1, 2 ** 20, 2 ** 31, 2 ** 31 + 1, 3e9, 2 ** 32 - 1],
  i32: [-(2 ** 31), -5, 0, 1, 2 ** 30, 2 ** 31 - 1],
  f32: [-Infinity, -1, -0.5, 0, 0.25, 1, 1.5, 2],
  f16: [-1.5, -1, 0, 0.25, 1, 1.5],
};

function expectCounts(got: Uint32Array, want: Uint32Array, what: string): void {
  expect(got.length, `${what}: length`).toBe(want.length);
  const bad = want.findIndex((w, i) => got[i] !== w);
  expect(bad, `${what}: first mismatch at bin ${bad}: ${got[bad]} vs ${want[bad]}`).toBe(-1);
}

describe('every sample type, both paths, awkward sizes', () => {
  for (const [path, config] of PATHS) {
    // Every type on the privatized path; the global path on a packed and a float type (all under the sweep).
    const types = config.privatization === 'shared' ? TYPES : sweepOr(TYPES, ['u8', 'f32']);
    it(`even: ${path}`, async () => {
      for (const t of types) {
        for (const n of sizes(t)) {
          const d = samples(t, n, SEED + n);
          const o = { ...EVEN[t], sampleType: t, config };
          expectCounts(await prim.arrays.histogramEven(d, o), histogramEvenReference(d, t, EVEN[t]), `even ${t} n=${n} (${path}, seed ${SEED + n})`);
        }
      }
    });
    it(`range: ${path}`, async () => {
      for (const t of types) {
        for (const n of sizes(t)) {
          const d = samples(t, n, SEED + n);
          expectCounts(await prim.arrays.histogramRange(d, LEVELS[t], { sampleType: t, config }), histogramRangeReference(d, t, LEVELS[t]), `range ${t} n=${n} (${path}, seed ${SEED + n})`);
        }
      }
    });
  }
});

describe('channels', () => {
  const config = PATHS[0]![1];
  const cases: readonly [HistogramSampleType, number, number][] = sweepOr(
    [['u8', 4, 3], ['u8', 4, 4], ['u8', 3, 3], ['u8', 3, 2], ['u8', 2, 1], ['u16', 3, 2], ['u32', 4, 3], ['f32', 3, 3], ['f16', 2, 2], ['i32', 2, 1]],
    [['u8', 4, 3], ['u8', 3, 2], ['f16', 2, 1]],
  );
  it('1 to 4 channels, some inactive: even and range, channel-major', async () => {
    for (const [t, channels, activeChannels] of cases) {
      for (const pixels of [0, 1, 7, 333, 2 * TILE_WORDS + 1]) {
        const d = samples(t, pixels * channels, SEED + pixels);
        const shape = { channels, activeChannels };
        const what = `${t} ${activeChannels} of ${channels} channels, ${pixels} pixels`;
        expectCounts(await prim.arrays.histogramEven(d, { ...EVEN[t], ...shape, sampleType: t, config }), histogramEvenReference(d, t, { ...EVEN[t], ...shape }), `even ${what}`);
        expectCounts(await prim.arrays.histogramRange(d, LEVELS[t], { ...shape, sampleType: t, config }), histogramRangeReference(d, t, LEVELS[t], shape), `range ${what}`);
      }
    }
  });
  it('RGBA8 pixels: 3 of 4 channels, 256 bins, a channel each of constant, ramp and random', async () => {
    const n = 5 * TILE_WORDS + 3;
    const r = rng(SEED);
    const d = new Uint8Array(4 * n);
    for (let i = 0; i < n; i++) d.set([200, i & 255, Math.floor(r() * 256), 17], 4 * i);
    const got = await prim.arrays.histogramEven(d, { bins: 256, lower: 0, upper: 256, channels: 4, activeChannels: 3 });
    expect(got[200]).toBe(n); // red: all in one bin
    expectCounts(got, histogramEvenReference(d, 'u8', { bins: 256, lower: 0, upper: 256, channels: 4, activeChannels: 3 }), 'rgba');
  });
});

describe('binning edges', () => {
  it('one bin, samples on every edge, outside the range, NaN and infinities', async () => {
    const f = Float32Array.from([-1, -0, 0, 0.5, 1, 1.0000001, 0.99999994, NaN, -NaN, Infinity, -Infinity, -1.0000001, 0.25, 0.75]);
    expectCounts(await prim.arrays.histogramEven(f, { bins: 1, lower: -1, upper: 1 }), Uint32Array.of(7), 'f32 one bin');
    expectCounts(await prim.arrays.histogramEven(f, { bins: 8, lower: -1, upper: 1 }), histogramEvenReference(f, 'f32', { bins: 8, lower: -1, upper: 1 }), 'f32 8 bins');
    expectCounts(await prim.arrays.histogramRange(f, [-1, 0, 0.25, 1]), Uint32Array.of(1, 2, 4), 'f32 range edges (-0 counts as 0)');
    expectCounts(await prim.arrays.histogramRange(f, [-Infinity, 0, Infinity]), Uint32Array.of(3, 8), 'f32 infinite levels');
    const u = Uint32Array.from([0, 1, 2 ** 32 - 1, 2 ** 31, 5]);
    expectCounts(await prim.arrays.histogramEven(u, { bins: 4, lower: 0, upper: 2 ** 32 }), Uint32Array.of(3, 0, 1, 1), 'u32 whole range');
    expectCounts(await prim.arrays.histogramEven(u, { bins: 1, lower: 1, upper: 2 ** 32 - 1 }), Uint32Array.of(3), 'u32 top value excluded');
    expectCounts(await prim.arrays.histogramEven(u, { bins: 1, lower: 0, upper: 2 ** 32 }), Uint32Array.of(5), 'u32 one bin of width 2^32 (no shift: the table)');
    expectCounts(await prim.arrays.histogramEven(u, { bins: 2, lower: 0, upper: 2 ** 32 }), Uint32Array.of(3, 2), 'u32 shift of 31');
    const top = Uint32Array.from({ length: 12 }, (_, k) => 2 ** 32 - 1 - k);
    expectCounts(await prim.arrays.histogramEven(top, { bins: 20, lower: 2 ** 32 - 10, upper: 2 ** 32 }), histogramEvenReference(top, 'u32', { bins: 20, lower: 2 ** 32 - 10, upper: 2 ** 32 }), 'u32 more bins than values at the top');
    const i = Int32Array.from([-(2 ** 31), -1, 0, 2 ** 31 - 1]);
    expectCounts(await prim.arrays.histogramEven(i, { bins: 2, lower: -(2 ** 31), upper: 2 ** 31 }), Uint32Array.of(2, 2), 'i32 whole range');
    const b = Uint8Array.from({ length: 256 }, (_, k) => k);
    expectCounts(await prim.arrays.histogramEven(b, { bins: 300, lower: 0, upper: 256 }), histogramEvenReference(b, 'u8', { bins: 300, lower: 0, upper: 256 }), 'u8 more bins than values');
    expectCounts(await prim.arrays.histogramEven(b, { bins: 7, lower: 0, upper: 256 }), histogramEvenReference(b, 'u8', { bins: 7, lower: 0, upper: 256 }), 'u8 7 bins');
  });

  it('many bins: past workgroup memory the call counts with global atomics; a forced shared config is refused', async () => {
    const bins = 20000;
    const d = samples('u32', 3 * TILE_WORDS + 7, SEED);
    const o = { bins, lower: 0, upper: 2 ** 32 };
    expectCounts(await prim.arrays.histogramEven(d, o), histogramEvenReference(d, 'u32', o), 'u32 20000 bins');
    const levels = Array.from({ length: bins + 1 }, (_, k) => Math.min(k * 214749, 2 ** 32 - 1));
    expectCounts(await prim.arrays.histogramRange(d, levels), histogramRangeReference(d, 'u32', levels), 'u32 20001 levels');
    const f = samples('f32', 999, SEED);
    expectCounts(await prim.arrays.histogramEven(f, { bins: 65536, lower: -2, upper: 2 }), histogramEvenReference(f, 'f32', { bins: 65536, lower: -2, upper: 2 }), 'f32 65536 bins');
    const err = await prim.arrays.histogramEven(d, { ...o, config: { privatization: 'shared' } }).catch((e: unknown) => e);
    expect((err as WgprimError).code).toBe('invalid-config');
    expect((err as WgprimError).message).toMatch(/workgroup memory/);
  });

  it('4096 bins, all samples in one bin (contention), several copies', async () => {
    const d = new Uint16Array(9 * TILE_WORDS).fill(777);
    for (const copies of [1, 3]) {
      const got = await prim.arrays.histogramEven(d, { bins: 4096, lower: 0, upper: 65536, config: { workgroupSize: 64, itemsPerThread: 4, copies, gridSize: 2 } });
      expect(got[Math.floor((777 * 4096) / 65536)], `copies ${copies}`).toBe(d.length);
      expect(got.reduce((a, x) => a + x, 0)).toBe(d.length);
    }
  });
});

describe('buffer level', () => {
  const buffer = (bytes: number, usage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC): GPUBuffer => prim.device.createBuffer({ size: bytes, usage });
  async function read(b: GPUBuffer, words: number): Promise<Uint32Array> {
    const r = prim.device.createBuffer({ size: 4 * words, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ });
    const enc = prim.device.createCommandEncoder();
    enc.copyBufferToBuffer(b, 0, r, 0, 4 * words);
    prim.device.queue.submit([enc.finish()]);
    await r.mapAsync(GPUMapMode.READ);
    const out = new Uint32Array(r.getMappedRange().slice(0));
    r.destroy();
    return out;
  }

  it('accumulates onto the histogram unless clear, even and range, over several calls in one encoder', async () => {
    const d = samples('u8', 4 * 1001, SEED) as Uint8Array;
    const input = buffer(d.byteLength);
    prim.device.queue.writeBuffer(input, 0, d.buffer as ArrayBuffer, 0, d.byteLength);
    const hist = buffer(4 * 3 * 16);
    const start = Uint32Array.from({ length: 48 }, (_, i) => 1000 * i);
    prim.device.queue.writeBuffer(hist, 0, start);
    const levels = buffer(4 * 17);
    const lv = Uint32Array.from({ length: 17 }, (_, i) => i * 16);
    prim.device.queue.writeBuffer(levels, 0, lv);
    const even = { samples: input, count: 1001, sampleType: 'u8' as const, histogram: hist, channels: 4, activeChannels: 3, bins: 16, lower: 0, upper: 256 };
    const ref = histogramEvenReference(d, 'u8', even);
    let enc = prim.device.createCommandEncoder();
    await prim.histogramEven(enc, even);
    await prim.histogramRange(enc, { ...even, levels, levelCount: 17 });
    prim.device.queue.submit([enc.finish()]);
    expectCounts(await read(hist, 48), start.map((x, i) => x + 2 * ref[i]!), 'accumulated twice');
    enc = prim.device.createCommandEncoder();
    await prim.histogramEven(enc, { ...even, clear: true });
    prim.device.queue.submit([enc.finish()]);
    expectCounts(await read(hist, 48), ref, 'cleared');
    enc = prim.device.createCommandEncoder();
    await prim.histogramEven(enc, { ...even, count: 0, clear: true });
    prim.device.queue.submit([enc.finish()]);
    expectCounts(await read(hist, 48), new Uint32Array(48), 'cleared by an empty call');
    for (const b of [input, hist, levels]) b.destroy();
  });

  it('rejects what cannot run, with the reason', async () => {
    const samplesBuf = buffer(64);
    const hist = buffer(64);
    const levels = buffer(64);
    const enc = (): GPUCommandEncoder => prim.device.createCommandEncoder();
    const base = { samples: samplesBuf, count: 16, sampleType: 'u32' as const, histogram: hist, bins: 16, lower: 0, upper: 100 };
    const range = { ...base, levels, levelCount: 9 };
    const code = async (p: Promise<unknown>): Promise<string> => p.then(() => 'resolved', (e: unknown) => (e instanceof WgprimError ? e.code : `untyped: ${String(e)}`));
    expect(await code(prim.histogramEven(enc(), { ...base }))).toBe('resolved');
    expect(await code(prim.histogramEven(enc(), { ...base, bins: 0 }))).toBe('invalid-argument');
    expect(await code(prim.histogramEven(enc(), { ...base, bins: 1.5 }))).toBe('invalid-argument');
    expect(await code(prim.histogramEven(enc(), { ...base, lower: 100 }))).toBe('invalid-argument');
    expect(await code(prim.histogramEven(enc(), { ...base, lower: 0.5 }))).toBe('invalid-argument');
    expect(await code(prim.histogramEven(enc(), { ...base, lower: -1 }))).toBe('invalid-argument');
    expect(await code(prim.histogramEven(enc(), { ...base, upper: 2 ** 32 + 1 }))).toBe('invalid-argument');
    expect(await code(prim.histogramEven(enc(), { ...base, sampleType: 'f32', upper: Infinity }))).toBe('invalid-argument');
    expect(await code(prim.histogramEven(enc(), { ...base, sampleType: 'f32', lower: -3e38, upper: 3e38 }))).toBe('invalid-argument');
    expect(await code(prim.histogramEven(enc(), { ...base, sampleType: 'u64' as 'u32' }))).toBe('unsupported-type');
    expect(await code(prim.histogramEven(enc(), { ...base, channels: 5 }))).toBe('invalid-argument');
    expect(await code(prim.histogramEven(enc(), { ...base, channels: 2, activeChannels: 3 }))).toBe('invalid-argument');
    expect(await code(prim.histogramEven(enc(), { ...base, count: 17 }))).toBe('buffer-size');
    expect(await code(prim.histogramEven(enc(), { ...base, bins: 17 }))).toBe('buffer-size');
    expect(await code(prim.histogramEven(enc(), { ...base, histogram: buffer(64, GPUBufferUsage.COPY_DST) }))).toBe('buffer-usage');
    expect(await code(prim.histogramEven(enc(), { ...base, histogram: samplesBuf }))).toBe('overlap');
    expect(await code(prim.histogramEven(enc(), { ...base, clear: 1 as unknown as boolean }))).toBe('invalid-argument');
    expect(await code(prim.histogramEven(enc(), { ...base, config: { copies: 0 } }))).toBe('invalid-config');
    expect(await code(prim.histogramRange(enc(), range))).toBe('resolved');
    expect(await code(prim.histogramRange(enc(), { ...range, levelCount: 1 }))).toBe('invalid-argument');
    expect(await code(prim.histogramRange(enc(), { ...range, levelCount: 17 }))).toBe('buffer-size');
    expect(await code(prim.histogramRange(enc(), { ...range, levels: hist }))).toBe('overlap');
    expect(await code(prim.arrays.histogramRange(new Uint32Array(4), [0, 5, 5]))).toBe('invalid-argument');
    expect(await code(prim.arrays.histogramRange(new Uint32Array(4), [0, 5, 3]))).toBe('invalid-argument');
    expect(await code(prim.arrays.histogramRange(new Float32Array(4), [0, NaN]))).toBe('invalid-argument');
    expect(await code(prim.arrays.histogramRange(new Float32Array(4), [1, 1 + 1e-9]))).toBe('invalid-argument');
    expect(await code(prim.arrays.histogramRange(new Uint32Array(4), [-1, 3]))).toBe('invalid-argument');
    expect(await code(prim.arrays.histogramRange(new Uint32Array(4), [3]))).toBe('invalid-argument');
    expect(await code(prim.arrays.histogramEven(new Uint8Array(10), { bins: 4, lower: 0, upper: 256, channels: 4 }))).toBe('invalid-argument');
    expect(await code(prim.arrays.histogramEven(new Uint8Array(10), { bins: 4, lower: 0, upper: 257 }))).toBe('invalid-argument');
    expect(await code(prim.arrays.histogramEven(new Uint16Array(10), { bins: 4, lower: 0, upper: 256, sampleType: 'u8' }))).toBe('unsupported-type');
    expect(await code(prim.arrays.histogramEven(new Float64Array(10) as unknown as Float32Array, { bins: 4, lower: 0, upper: 1 }))).toBe('unsupported-type');
    expect(await code(prim.arrays.histogramEven(new Uint8Array(10), { bins: 2 ** 24 + 1, lower: 0, upper: 256 }))).toBe('limit-exceeded');
    for (const b of [samplesBuf, hist, levels]) b.destroy();
  });
});

describe('benchmarks', () => {
  it('pair with CUB\'s anchors: integer and f32-levels even binning, range, RGBA8 pixels', () => {
    const file = packageAnchorsFile('nvidia-h200');
    const anchors = loadAnchors(file);
    const record = (algorithm: string, type: string): BenchRecord => ({ name: '', algorithm, type, size: 2 ** 28, bytesPerCall: 0, times: [], stats: { median: 1 } as BenchRecord['stats'], calls: 1, hostMs: 0, method: 'timestamp-query', configSource: 'heuristic', config: {} });
    expect(anchorType(record('histogram_even', 'f32'))).toBe('u32/levels_f32');
    expect(anchorType(record('multi_histogram_even', 'u32'))).toBe('u8x4/3ch');
    for (const [algo, type] of [['histogram_even', 'u32'], ['histogram_even', 'f32'], ['histogram_range', 'u32'], ['multi_histogram_even', 'u32']] as const) {
      expect(anchorRatio(anchors, record(algo, type)), `${algo} ${type}`).toBeGreaterThan(0);
    }
  });

  it('rocPRIM\'s grid of bin counts and entropies: opt-in, no anchor, samples of the entropy named, 10000 bins on a shared row', async () => {
    for (const name of ['histogram_even_b10_e1.000', 'histogram_range_b10000_e0.000']) {
      expect(benchmarkSpec(name)).toMatchObject({ optIn: true, anchor: null });
    }
    // Counted bins of a benchmark call (the runner's kept `histogram` buffer, read back).
    const run = async (name: string, bins: number, config?: Partial<HistogramConfig>): Promise<Uint32Array> => {
      const call = await prepareAlgorithmCall(prim, name, { type: 'u32', size: 6000, seed: 7, config });
      const enc = prim.device.createCommandEncoder();
      await call.record(enc);
      const read = prim.device.createBuffer({ size: 4 * bins, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
      enc.copyBufferToBuffer(benchResources(prim.device, 7).buffer('histogram', 4 * bins), 0, read, 0, 4 * bins);
      prim.device.queue.submit([enc.finish()]);
      await read.mapAsync(GPUMapMode.READ);
      const h = new Uint32Array(read.getMappedRange().slice(0));
      read.destroy();
      return h;
    };
    const sum = (h: Uint32Array): number => h.reduce((a, b) => a + b, 0);
    // Uniform words over 10 even bins of the u32 range: about 600 each.
    const uniform = await run('histogram_even_b10_e1.000', 10);
    expect(sum(uniform)).toBe(6000);
    for (const c of uniform) expect(c).toBeGreaterThan(450);
    // Bits set one time in 32 (6000 words: draws a third of them apart would repeat a word): nearly every word is below 2^32 / 10 (its top 4 bits clear: (31/32)^4 = 0.88).
    const low = await run('histogram_even_b10_e0.201', 10);
    expect(sum(low)).toBe(6000);
    expect(low[0]).toBeGreaterThan(0.8 * 6000);
    // Entropy 0: one value, one bin, range binning past what fits workgroup memory, the row's shared privatization falling back.
    const one = await run('histogram_range_b10000_e0.000', 10000, { privatization: 'shared', copies: 1, workgroupSize: 64, itemsPerThread: 4, gridSize: 4 });
    expect(sum(one)).toBe(6000);
    expect(one.filter((c) => c !== 0)).toEqual(Uint32Array.of(6000));
  });
});

describe('one table, histogram, rows keyed by sample size and channels', () => {
  const config = (workgroupSize: number, gridSize: number): HistogramConfig => ({ workgroupSize, itemsPerThread: 4, privatization: 'shared', copies: 1, gridSize });
  const row = (typeClass: TypeClass, c: HistogramConfig): TunedEntry<HistogramConfig> =>
    ({ target: { vendor: prim.target.vendor, architecture: prim.target.architecture, device: prim.target.device }, typeClass, config: c, evidence: { itemsPerSecond: 1, cv: 0, size: 1, date: '2026-12-08', version: '0.1.0' } });

  it('a call takes the row of its samples and channels; a row without channels serves any count', async () => {
    const rows = [
      row({ float: false, bytes: 1, channels: 4 }, config(64, 5)),
      row({ float: false, bytes: 4, channels: 1 }, config(128, 6)),
      row({ float: false, bytes: 4 }, config(256, 7)),
    ];
    const p = await makePrim({ tuned: { histogram: rows } });
    const keys: string[] = [];
    const pipeline = p.context.pipeline.bind(p.context);
    p.context.pipeline = (k: Kernel): Promise<GPUComputePipeline> => { keys.push(k.key); return pipeline(k); };
    // The workgroup size a call's sweep kernel ran with.
    const ran = async (run: () => Promise<Uint32Array>): Promise<number> => {
      keys.length = 0;
      await run();
      return Number(keys.find((k) => k.startsWith('histogram:'))!.split(':')[11]);
    };
    const bytes = Uint8Array.from({ length: 4000 }, (_, i) => i % 251);
    const words = Uint32Array.from({ length: 4000 }, (_, i) => i * 7919);
    expect(await ran(() => p.arrays.histogramEven(bytes, { bins: 256, lower: 0, upper: 256, channels: 4, activeChannels: 3 }))).toBe(64);
    expect(await ran(() => p.arrays.histogramEven(words, { bins: 100, lower: 0, upper: 2 ** 32 }))).toBe(128);
    expect(await ran(() => p.arrays.histogramRange(words, [0, 10, 2 ** 31, 2 ** 32 - 1]))).toBe(128);
    // u32 pixels of 4 channels: no row of 4 channels for 4-byte samples, so the one without channels.
    expect(await ran(() => p.arrays.histogramEven(words, { bins: 10, lower: 0, upper: 2 ** 32, channels: 4 }))).toBe(256);
    // u8 samples on one channel: no 1-byte row of one channel (the pixels' row has 4): the heuristic.
    const u8Single = p.algorithmEnv.select(histogramTable, 'u32', 0, undefined, histogramClass({ isFloat: false, bytes: 1 }, 1));
    expect(u8Single.source).toBe('heuristic');
    expect(p.algorithmEnv.select(histogramTable, 'u32', 0, undefined, histogramClass({ isFloat: false, bytes: 1 }, 4)).config).toEqual(config(64, 5));
    // By type alone: one channel of that type's samples, whatever order the rows come in; pixels by their class.
    const floats = await makePrim({ tuned: { histogram: [row({ float: true, bytes: 4, channels: 4 }, config(64, 9)), row({ float: true, bytes: 4, channels: 1 }, config(128, 9))] } });
    expect(floats.selectedConfig('histogram', 'f32').config).toEqual(config(128, 9));
    expect(floats.selectedConfig('histogram', 'f32', undefined, 0, { float: true, bytes: 4, channels: 4 }).config).toEqual(config(64, 9));
    // A malformed channel count in a row is refused by name.
    await expect(makePrim({ tuned: { histogram: [row({ float: false, bytes: 4, channels: 0 }, config(64, 5))] } })).rejects.toThrow(/typeClass.channels/);
  });

  it('create-optimization makes one row a class: even and range bins together for one channel, RGBA8 pixels apart', () => {
    const context = { date: '2026-12-08T00:00:00Z', adapter_vendor: 'nvidia', adapter_architecture: 'hopper', adapter_device: 'h200', wgprim_version: '0.1.0' };
    const A = config(256, 1024);
    const B = config(512, 2048);
    const entry = (bench: string, type: string, c: HistogramConfig, ips: number): Record<string, unknown> =>
      ({ name: `${benchmarkName(bench, type, c as never)}/manual_time`, run_type: 'iteration', size: 2 ** 24, items_per_second: ips, cv: 0.01 });
    // One channel: A wins even bins by a little and loses range bins by a lot, so B wins the pair.
    // RGBA8 pixels: A wins.
    const benchmarks = [
      entry('histogram_even', 'u32', A, 1.1e11), entry('histogram_even', 'u32', B, 1.0e11),
      entry('histogram_range', 'u32', A, 0.5e11), entry('histogram_range', 'u32', B, 0.8e11),
      entry('multi_histogram_even', 'u32', A, 2e11), entry('multi_histogram_even', 'u32', B, 1e11),
      entry('multi_histogram_even', 'f32', B, 1e11),
    ];
    const r = createOptimization([{ data: { context, benchmarks }, label: 'h.json' }]);
    const rows = (r.fresh.histogram ?? []) as TunedEntry<HistogramConfig>[];
    const of = (c: TypeClass): HistogramConfig | undefined => rows.find((e) => JSON.stringify(e.typeClass) === JSON.stringify(c))?.config;
    expect(rows).toHaveLength(3);
    expect(of({ float: false, bytes: 4, channels: 1 })).toEqual(B);
    expect(of({ float: false, bytes: 1, channels: 4 })).toEqual(A);
    expect(of({ float: true, bytes: 4, channels: 4 })).toEqual(B);
    // The generated module keeps the class whole.
    expect(renderTableModule('histogram', rows)).toMatch(/typeClass: \{ float: false, bytes: 1, channels: 4 \}/);
    // Both tuning stages write the one table.
    expect(PLAN_STAGES.filter((s) => s.tables.includes('histogram')).map((s) => s.id)).toEqual(['histogram', 'multi_histogram_even']);
  });
});
