import { beforeAll, describe, expect, it } from 'vitest';
import { type ElementType, type Prim, type PrimTypedArray, type TopKConfig, f16Bits, WgprimError } from '../src/index.js';
import { orderedKeys } from '../src/device/binary-search/reference.js';
import { nthElementProblem, partialSortProblem, topKReference } from '../src/device/top-k/reference.js';
import { type CpuLess } from '../src/device/merge-sort/reference.js';
import { testPrim, typesOn } from './support/gpu.js';
import { createPrim } from '../src/prim.js';
import { benchmarkAlgorithm } from '../src/bench/run.js';
import { parseName } from '../src/bench/gbench.js';
import { benchResources } from '../src/bench/inputs.js';
import { nthElementBenchmark } from '../src/device/top-k/bench.js';
import { type ConfigObject } from '../src/device/spec.js';
import { rng, SEED } from './support/data.js';

let prim: Prim;
beforeAll(async () => {
  prim = await testPrim();
});

// Small tiles and grids so that the grid strides and tiles' atomics are exercised; 8- and 11-bit
// digits; candidates that fit (divisor 2) and that overflow (a buffer of count / 10^6 keys, so
// every pass reads the input).
const PATHS: readonly (readonly [string, Partial<TopKConfig>])[] = [
  ['8-bit digits, candidates kept', { workgroupSize: 64, itemsPerThread: 4, gridSize: 3, radixBits: 8, candidateDivisor: 2 }],
  ['11-bit digits, candidates overflow', { workgroupSize: 32, itemsPerThread: 8, gridSize: 5, radixBits: 11, candidateDivisor: 1e6 }],
];

/** Keys with ties (few distinct values where `range` is small), floats with NaN of both signs, -0, +0 and infinities. */
function keys(type: ElementType, n: number, seed: number, range = 0): PrimTypedArray {
  const r = rng(seed);
  const word = (): number => (range ? Math.floor(r() * range) * 0x01000193 : r() * 2 ** 32) >>> 0;
  const float = (): number => {
    const u = r();
    return u < 0.03 ? NaN : u < 0.06 ? -0 : u < 0.09 ? 0 : u < 0.1 ? Infinity : u < 0.11 ? -Infinity : range ? Math.floor(r() * range) / 4 - range / 8 : r() * 2 - 1;
  };
  switch (type) {
    case 'u32': return Uint32Array.from({ length: n }, word);
    case 'i32': return Int32Array.from({ length: n }, () => word() | 0);
    case 'f32': {
      const a = Float32Array.from({ length: n }, float);
      const bits = new Uint32Array(a.buffer);
      for (let i = 0; i < n; i++) if (Number.isNaN(a[i]) && r() < 0.5) bits[i] = 0xffc00000;
      return a;
    }
    case 'f16': return Uint16Array.from({ length: n }, () => {
      const v = float();
      return Number.isNaN(v) && r() < 0.5 ? 0xfe00 : f16Bits(v);
    });
    case 'u64': return BigUint64Array.from({ length: n }, () => (BigInt(word()) << 32n) | BigInt(word()));
    case 'i64': return BigInt64Array.from({ length: n }, () => BigInt.asIntN(64, (BigInt(word()) << 32n) | BigInt(word() >>> 7)));
  }
}

/** Values right (as ordered bits, so NaN signs and -0 count) and each index distinct and holding its value. */
async function check(type: ElementType, data: PrimTypedArray, k: number, largest: boolean | undefined, config?: Partial<TopKConfig>): Promise<void> {
  const got = await prim.arrays.topK(data, k, { largest, type: type === 'f16' ? 'f16' : undefined, config });
  const what = `topK ${type} n=${data.length} k=${k} largest=${String(largest)} (seed ${SEED})`;
  expect(got.values.length, what).toBe(k);
  const want = topKReference(type, data, k, largest ?? true);
  const vals = orderedKeys(type, got.values);
  const bad = want.findIndex((w, i) => vals[i] !== w);
  expect(bad, `${what}: value ${bad}: ${String(vals[bad])} vs ${String(want[bad])}`).toBe(-1);
  const all = orderedKeys(type, data);
  expect(new Set(got.indices).size, `${what}: indices distinct`).toBe(k);
  const wrong = Array.from(got.indices).findIndex((i, j) => i >= data.length || all[i] !== vals[j]);
  expect(wrong, `${what}: index ${wrong} (${got.indices[wrong]}) holds another value`).toBe(-1);
}

describe('top-k', { timeout: 300_000 }, () => {
  it('every type: random keys with float specials, and ties (few distinct keys)', async () => {
    for (const type of typesOn(prim)) {
      await check(type, keys(type, 3001, SEED + type.length), 37, undefined, PATHS[0]![1]);
      // Ties: the k-th key's run is cut. The smallest first, on the pipelines nth element and partial sort use below.
      await check(type, keys(type, 2000, SEED + 5, 7), 333, false, PATHS[0]![1]);
    }
  });

  for (const [path, config] of PATHS) {
    it(`config path: ${path}: sizes, k of 1, 4096 and the whole input`, async () => {
      for (const [n, k] of [[1, 1], [2, 1], [255, 255], [257, 3], [1000, 1], [4099, 4096], [9001, 4096]] as const) {
        await check('u32', keys('u32', n, SEED + n), k, undefined, config);
      }
      await check('u32', keys('u32', 2000, SEED + 6, 5), 1000, undefined, config);
    });
  }

  it('the heuristic config', async () => {
    await check('f32', keys('f32', 5000, SEED + 9), 100, undefined);
  });

  it('k = 0 and an empty input give empty results', async () => {
    const none = await prim.arrays.topK(new Float32Array(0), 0);
    expect(none.values.length + none.indices.length).toBe(0);
    expect((await prim.arrays.topK(Uint32Array.of(5, 6), 0)).values.length).toBe(0);
  });

  it('typed errors before launch', async () => {
    const code = async (p: Promise<unknown>): Promise<string> => p.then(() => 'ok', (e: unknown) => (e instanceof WgprimError ? e.code : String(e)));
    const data = Uint32Array.of(3, 1, 2);
    expect(await code(prim.arrays.topK(data, 4))).toBe('invalid-argument');
    expect(await code(prim.arrays.topK(data, -1))).toBe('invalid-argument');
    expect(await code(prim.arrays.topK(data, 1.5))).toBe('invalid-argument');
    expect(await code(prim.arrays.topK(data, 1, { config: { radixBits: 9 } }))).toBe('invalid-config');
    expect(await code(prim.arrays.topK(data, 1, { config: { gridSize: 0 } }))).toBe('invalid-config');
    expect(await code(prim.arrays.topK(new Uint16Array(3), 1))).toBe('unsupported-type');
    const buf = (bytes: number, usage: number = GPUBufferUsage.STORAGE): GPUBuffer => prim.device.createBuffer({ size: bytes, usage });
    const enc = prim.device.createCommandEncoder();
    const input = buf(64);
    const args = { input, count: 16, k: 4, type: 'u32' as const, valuesOut: buf(16), indicesOut: buf(16) };
    expect(await code(prim.topK(enc, { ...args, k: 17 }))).toBe('invalid-argument');
    expect(await code(prim.topK(enc, { ...args, valuesOut: input }))).toBe('overlap');
    expect(await code(prim.topK(enc, { ...args, indicesOut: buf(8) }))).toBe('buffer-size');
    expect(await code(prim.topK(enc, { ...args, count: 17 }))).toBe('buffer-size');
    expect(await code(prim.topK(enc, { ...args, input: buf(64, GPUBufferUsage.UNIFORM) }))).toBe('buffer-usage');
    expect(await code(prim.topK(enc, { ...args, largest: 'yes' as unknown as boolean }))).toBe('invalid-argument');
    expect(await code(prim.topK(enc, null as never))).toBe('invalid-argument');
  });
});

describe('nth element and partial sort', { timeout: 300_000 }, () => {
  it('every type: nth and middle at 0, 1, the middle and the last', async () => {
    for (const type of typesOn(prim)) {
      const data = keys(type, 1001, SEED + 11 + type.length, type === 'i32' || type === 'u64' ? 9 : 0);
      const options = { type: type === 'f16' ? 'f16' as const : undefined, config: PATHS[0]![1] };
      for (const nth of type === 'u32' || type === 'i64' ? [0, 1, 500, 1000] : [500]) {
        expect(nthElementProblem(type, data, await prim.arrays.nthElement(data, nth, options), nth), `nthElement ${type} nth=${nth} (seed ${SEED})`).toBeUndefined();
      }
      for (const middle of type === 'u32' || type === 'f16' ? [0, 1, 500, 1001] : [2]) {
        expect(partialSortProblem(type, data, await prim.arrays.partialSort(data, middle, options), middle), `partialSort ${type} middle=${middle} (seed ${SEED})`).toBeUndefined();
      }
    }
  });

  it('custom less: every key sorted by the merge sort (u32 descending with ties, i64 by the high word)', async () => {
    const cases: readonly [ElementType, string, CpuLess][] = [
      ['u32', 'a > b', (a, b) => (a as number) > (b as number)],
      ['i64', 'bitcast<i32>(a.y) < bitcast<i32>(b.y)', (a, b) => (a as bigint) >> 32n < (b as bigint) >> 32n],
    ];
    for (const [type, less, cpu] of cases) {
      if (!typesOn(prim).includes(type)) continue;
      for (const n of type === 'u32' ? [1, 1001] : [1001]) {
        const data = keys(type, n, SEED + 13 + n, 9);
        for (const at of type === 'u32' ? new Set([0, n >> 1, n - 1]) : [n >> 1]) {
          expect(nthElementProblem(type, data, await prim.arrays.nthElement(data, at, { less }), at, cpu), `nthElement ${type} ${less} n=${n} nth=${at}`).toBeUndefined();
          expect(partialSortProblem(type, data, await prim.arrays.partialSort(data, at + 1, { less }), at + 1, cpu), `partialSort ${type} ${less} n=${n} middle=${at + 1}`).toBeUndefined();
        }
      }
    }
    // The default order's answer is not a descending one: the check can fail.
    const data = keys('u32', 1001, SEED + 17, 0);
    expect(partialSortProblem('u32', data, await prim.arrays.partialSort(data, 10), 10, cases[0]![2])).toBeDefined();
  });

  it('typed errors: out of range, a less that does not compile', async () => {
    const code = async (p: Promise<unknown>): Promise<string> => p.then(() => 'ok', (e: unknown) => (e instanceof WgprimError ? e.code : String(e)));
    const data = Int32Array.of(3, 1, 2);
    expect(await code(prim.arrays.nthElement(data, 3))).toBe('invalid-argument');
    expect(await code(prim.arrays.nthElement(new Int32Array(0), 0))).toBe('invalid-argument');
    expect(await code(prim.arrays.partialSort(data, 4))).toBe('invalid-argument');
    expect(await code(prim.arrays.partialSort(data, -1))).toBe('invalid-argument');
    expect(await code(prim.arrays.nthElement(data, 1, { less: 'a <<< b' }))).toBe('invalid-operator');
    expect(await code(prim.arrays.partialSort(data, 1, { less: '' }))).toBe('invalid-operator');
    const enc = prim.device.createCommandEncoder();
    expect(await code(prim.partialSort(enc, { keys: prim.device.createBuffer({ size: 8, usage: GPUBufferUsage.STORAGE }), count: 3, middle: 1, type: 'u32' }))).toBe('buffer-size');
  });
});

describe('the nthElement table and the nth_element benchmark', { timeout: 300_000 }, () => {
  const evidence = { itemsPerSecond: 1, cv: 0, size: 1, date: '', version: '' };
  const A: TopKConfig = { workgroupSize: 64, itemsPerThread: 4, radixBits: 8, gridSize: 3, candidateDivisor: 2 };
  const B: TopKConfig = { workgroupSize: 32, itemsPerThread: 8, radixBits: 11, gridSize: 5, candidateDivisor: 4 };
  const row = (config: TopKConfig) => ({ target: { vendor: prim.target.vendor, device: prim.target.device }, typeClass: { float: false, bytes: 4 }, config, evidence });

  it('selects its own rows, else what topK selects (its rows, else its heuristic); overrides are checked against it', async () => {
    for (const type of ['u32', 'f32', 'u64'] as const) expect(prim.selectedConfig('nthElement', type)).toEqual(prim.selectedConfig('topK', type));
    const onTopK = createPrim(prim.device, { tuned: { topK: [row(A)] } });
    expect(onTopK.selectedConfig('nthElement', 'u32')).toMatchObject({ config: A, source: 'tuned:device' });
    expect(onTopK.selectedConfig('nthElement', 'f32')).toEqual(onTopK.selectedConfig('topK', 'f32'));
    expect(onTopK.selectedConfig('nthElement', 'u32', { gridSize: 7 })).toEqual({ config: { ...A, gridSize: 7 }, source: 'user' });
    onTopK.useTuned({ topK: [row(B)] });
    expect(onTopK.selectedConfig('nthElement', 'u32')).toMatchObject({ config: B, source: 'tuned:runtime' });
    const own = createPrim(prim.device, { tuned: { topK: [row(A)], nthElement: [row(B)] } });
    expect(own.selectedConfig('nthElement', 'u32')).toMatchObject({ config: B, source: 'tuned:device' });
    expect(own.selectedConfig('topK', 'u32').config).toEqual(A);
    const data = keys('u32', 3001, SEED + 19);
    expect(nthElementProblem('u32', data, await own.arrays.nthElement(data, 1500), 1500)).toBeUndefined();
    expect(partialSortProblem('u32', data, await own.arrays.partialSort(data, 700), 700)).toBeUndefined();
    const code = async (p: Promise<unknown>): Promise<string> => p.then(() => 'ok', (e: unknown) => (e instanceof WgprimError ? e.code : String(e)));
    expect(await code(prim.arrays.nthElement(data, 1, { config: { radixBits: 9 } }))).toBe('invalid-config');
    expect(await code(prim.arrays.partialSort(data, 1, { config: { gridSize: 0 } }))).toBe('invalid-config');
    const keysBuffer = prim.device.createBuffer({ size: 4 * data.length, usage: GPUBufferUsage.STORAGE });
    expect(await code(prim.nthElement(prim.device.createCommandEncoder(), { keys: keysBuffer, count: data.length, nth: 1, type: 'u32', config: { radixBits: 9 } }))).toBe('invalid-config');
    keysBuffer.destroy();
  });

  it('nth_element: the median of random keys, in place into a fresh copy each call; bytes and name', async () => {
    const n = 5001;
    const [r] = await benchmarkAlgorithm(prim, { algorithm: 'nth_element', type: 'u32', size: n, seed: 1, warmup: 1, batches: 1, batchSize: 2 });
    expect(r!.algorithm).toBe('nth_element');
    // The copy reads and writes n keys, the select reads them, the nth + 1 = 2501 smallest are written.
    expect(r!.bytesPerCall).toBe((3 * n + 2501) * 4);
    expect(parseName(r!.name)).toMatchObject({ algo: 'nth_element', key_type: 'u32' });
    expect(r!.config).toEqual(prim.selectedConfig('nthElement', 'u32').config);
    // Twice on one input: the second call rearranges a fresh copy, and the input stays as it was.
    const data = keys('u32', n, SEED + 23) as Uint32Array<ArrayBuffer>;
    const usage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST;
    const input = prim.device.createBuffer({ size: 4 * n, usage });
    prim.device.queue.writeBuffer(input, 0, data);
    const made: GPUBuffer[] = [input];
    const resources = { ...benchResources(prim.device, 1), buffer: (_role: string, bytes: number) => made[made.push(prim.device.createBuffer({ size: bytes, usage })) - 1]! };
    const config = prim.selectedConfig('nthElement', 'u32').config as unknown as ConfigObject;
    const record = await nthElementBenchmark.prepare(prim.algorithmEnv, { input, output: input, count: n, type: 'u32', config }, resources);
    const staging = prim.device.createBuffer({ size: 8 * n, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
    const enc = prim.device.createCommandEncoder();
    await record(enc);
    await record(enc);
    enc.copyBufferToBuffer(made[1]!, 0, staging, 0, 4 * n);
    enc.copyBufferToBuffer(input, 0, staging, 4 * n, 4 * n);
    prim.device.queue.submit([enc.finish()]);
    await staging.mapAsync(GPUMapMode.READ);
    const words = new Uint32Array(staging.getMappedRange().slice(0));
    expect(nthElementProblem('u32', data, words.subarray(0, n), n >> 1)).toBeUndefined();
    expect(Array.from(words.subarray(n))).toEqual(Array.from(data));
    for (const b of [...made, staging]) b.destroy();
  });
});
