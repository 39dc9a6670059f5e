import { beforeAll, describe, expect, it } from 'vitest';

// Compiling a pipeline takes seconds on lavapipe on a loaded machine: room for that.
const SLOW = 300_000;
import { type ByKeyReduceConfig, type ElementType, type Prim, WgprimError } from '../src/index.js';
import { cpuOp, type Value } from '../src/device/reference.js';
import { nonTrivialRunsReference, reduceByKeyReference, runsOf } from '../src/device/reduce-by-key/reference.js';
import { testPrim, typesOn } from './support/gpu.js';
import { randomInput, SEED } from './support/data.js';
import { expectValues, headsOf, runKeys } from './support/runs.js';

let prim: Prim;
beforeAll(async () => {
  prim = await testPrim();
});

// The staged scatter takes the tile's run count from the look-back (its fused subgroup form) or
// from reduce-then-scan: each staged path once, and the direct scatter.
const PATHS: readonly (readonly [string, Partial<ByKeyReduceConfig>])[] = [
  ['decoupled look-back, subgroup scan, direct', { workgroupSize: 64, itemsPerThread: 4, lookback: 'decoupled', workgroupScan: 'subgroup', scatter: 'direct' }],
  ['reduce-then-scan, workgroup-memory scan, staged', { workgroupSize: 64, itemsPerThread: 8, lookback: 'reduce-then-scan', workgroupScan: 'shared', scatter: 'staged' }],
  ['decoupled look-back, subgroup scan, staged', { workgroupSize: 64, itemsPerThread: 4, lookback: 'decoupled', workgroupScan: 'subgroup', scatter: 'staged' }],
];
const TILE = 256;
const SIZES = [0, 1, 2, 3, TILE - 1, TILE, TILE + 1, 2 * TILE + 1, 7919, 33 * TILE + 5];

describe('reduce by key: every key and value type, each path, awkward sizes', { timeout: SLOW }, () => {
  it('sums', async () => {
    // Every type as a key or a value (compiling dominates on lavapipe: one pipeline a case).
    const on = new Set(typesOn(prim));
    const cases = ([['u32', 'u64', ...PATHS[0]!], ['i64', 'f32', ...PATHS[2]!], ['f16', 'i32', ...PATHS[0]!], ['f32', 'u32', ...PATHS[1]!]] as [ElementType, ElementType, string, Partial<ByKeyReduceConfig>][])
      .filter(([k, v]) => on.has(k) && on.has(v));
    for (const [keyType, valueType, path, config] of cases) {
      for (const n of SIZES) {
        const keys = runKeys(keyType, n, SEED + n);
        const values = randomInput(valueType, 'add', n, SEED + 3 * n);
        const got = await prim.arrays.reduceByKey(keys, values, { keyType, valueType, config });
        const want = reduceByKeyReference(keyType, valueType, keys as ArrayLike<Value>, values as ArrayLike<Value>, headsOf(keyType, keys), cpuOp(valueType, 'add'));
        const what = `${keyType}/${valueType} n=${n} (${path})`;
        expectValues(keyType, got.keys, want.keys, `${what} keys`);
        expectValues(valueType, got.values, want.values, `${what} values`);
      }
    }
  });
  it('runs of length 1, one run over every tile, alternating; max and a custom operator; custom equality', async () => {
    const n = 40 * TILE + 9;
    const values = randomInput('i32', 'max', n, SEED);
    for (const [path, config] of PATHS) {
      for (const keys of [Uint32Array.from({ length: n }, (_, i) => i), new Uint32Array(n).fill(3), Uint32Array.from({ length: n }, (_, i) => i & 1)]) {
        const heads = headsOf('u32', keys);
        const got = await prim.arrays.reduceByKey(keys, values, { op: 'max', config });
        const want = reduceByKeyReference('u32', 'i32', keys, values, heads, cpuOp('i32', 'max'));
        expectValues('u32', got.keys, want.keys, `keys (${path})`);
        expectValues('i32', got.values, want.values, `max (${path})`);
      }
    }
    // Non-commutative: the last value of each run (a custom operator keeps the right operand).
    const keys = runKeys('u32', n, SEED + 5);
    const last = await prim.arrays.reduceByKey(keys, values, { op: { wgsl: 'b', identity: '0i', name: 'last' }, config: PATHS[0]![1] });
    const want = reduceByKeyReference('u32', 'i32', keys, values, headsOf('u32', keys), (_a, b) => b);
    expectValues('i32', last.values, want.values, 'last');
    // Equality by a tenth of the key: runs of ten.
    const ints = Uint32Array.from({ length: 1000 }, (_, i) => i);
    const tenths = await prim.arrays.reduceByKey(ints, new Uint32Array(1000).fill(1), { equality: 'a / 10u == b / 10u', config: PATHS[0]![1] });
    expect(Array.from(tenths.values)).toEqual(new Array(100).fill(10));
    expect(Array.from(tenths.keys)).toEqual(Array.from({ length: 100 }, (_, i) => 10 * i));
  });
});

describe('tiles with about a workgroup of heads (the two-phase scatter writes such a tile directly)', { timeout: SLOW }, () => {
  it('reduce by key and non-trivial runs, each path (its scatter the one that runs)', async () => {
    const kernels: string[] = [];
    const pipeline = prim.context.pipeline.bind(prim.context);
    prim.context.pipeline = (k) => {
      kernels.push(k.key);
      return pipeline(k);
    };
    try {
      for (const [path, config] of PATHS) {
        kernels.length = 0;
        const wg = config.workgroupSize!;
        const tile = wg * config.itemsPerThread!;
        const per = [0, 1, wg - 1, wg, wg + 1, tile - 4, tile - 3];
        const n = per.length * tile + 7;
        // Tile t: its first 3 elements continue the run before it, then per[t] runs start (reduce:
        // runs of one; non-trivial runs: pairs, as many as fit), and the rest continue the last.
        const keys = new Uint32Array(n);
        const pairs = new Uint32Array(n);
        for (let i = 0; i < n; i++) {
          const p = i % tile;
          const t = Math.floor(i / tile);
          const c = per[t % per.length]!;
          keys[i] = i > 0 && (p < 3 || p >= 3 + c) ? keys[i - 1]! : i;
          const pairsHere = Math.min(c, (tile - 3) >> 1);
          pairs[i] = i > 0 && p < 3 ? pairs[i - 1]! : p < 3 + 2 * pairsHere ? 2 * n + t * tile + ((p - 3) >> 1) : i;
        }
        const values = randomInput('i32', 'max', n, SEED + 7);
        const got = await prim.arrays.reduceByKey(keys, values, { op: 'max', config });
        const want = reduceByKeyReference('u32', 'i32', keys, values, headsOf('u32', keys), cpuOp('i32', 'max'));
        expectValues('u32', got.keys, want.keys, `keys (${path})`);
        expectValues('i32', got.values, want.values, `max (${path})`);
        const runs = await prim.arrays.runLengthEncodeNonTrivialRuns(pairs, { config });
        const wantRuns = nonTrivialRunsReference(headsOf('u32', pairs));
        expect(Array.from(runs.offsets), `offsets (${path})`).toEqual(Array.from(wantRuns.offsets));
        expect(Array.from(runs.lengths), `lengths (${path})`).toEqual(Array.from(wantRuns.lengths));
        const written = kernels.filter((k) => /^bykey:(lookback|partials-in):/.test(k));
        expect(written.length, path).toBe(2);
        expect(written.every((k) => k.endsWith(`:${config.scatter}`)), `${path}: ${written.join(' ')}`).toBe(true);
      }
    } finally {
      prim.context.pipeline = pipeline;
    }
  });
});

describe('run-length encode', { timeout: SLOW }, () => {
  it('values and counts, every type, each path', async () => {
    for (const [i, type] of typesOn(prim).filter((t) => ['u32', 'f16', 'i64'].includes(t)).entries()) {
      const [path, config] = PATHS[i % PATHS.length]!;
      for (const n of [0, 1, 5, TILE + 1, 21 * TILE + 3]) {
        const data = runKeys(type, n, SEED + n, 9);
        const heads = headsOf(type, data);
        const { starts, lengths } = runsOf(heads);
        const got = await prim.arrays.runLengthEncode(data, { type, config });
        expectValues(type, got.values, reduceByKeyReference(type, 'u32', data as ArrayLike<Value>, new Uint32Array(n), heads, () => 0).keys, `${type} n=${n} values (${path})`);
        expect(Array.from(got.counts), `${type} n=${n} counts (${path})`).toEqual(Array.from(lengths));
        expect(starts.length).toBe(got.counts.length);
      }
    }
  });
  it('non-trivial runs: offsets and lengths, each path, runs of one, all equal', async () => {
    for (const [i, type] of typesOn(prim).filter((t) => ['i32', 'f32', 'u64'].includes(t)).entries()) {
      const [path, config] = PATHS[i % PATHS.length]!;
      for (const n of [0, 1, 2, 7, TILE + 1, 21 * TILE + 3]) {
        const data = runKeys(type, n, SEED + 2 * n, 4);
        const want = nonTrivialRunsReference(headsOf(type, data));
        const got = await prim.arrays.runLengthEncodeNonTrivialRuns(data, { type, config });
        expect(Array.from(got.offsets), `${type} n=${n} offsets (${path})`).toEqual(Array.from(want.offsets));
        expect(Array.from(got.lengths), `${type} n=${n} lengths (${path})`).toEqual(Array.from(want.lengths));
      }
    }
    const n = 30 * TILE + 1;
    for (const [path, config] of PATHS) {
      const distinct = await prim.arrays.runLengthEncodeNonTrivialRuns(Uint32Array.from({ length: n }, (_, i) => i), { config });
      expect(distinct.offsets.length, path).toBe(0);
      const one = await prim.arrays.runLengthEncodeNonTrivialRuns(new Uint32Array(n), { config });
      expect([Array.from(one.offsets), Array.from(one.lengths)], path).toEqual([[0], [n]]);
    }
  });
});

describe('typed errors', { timeout: SLOW }, () => {
  const code = async (f: () => Promise<unknown>): Promise<string | undefined> => {
    try {
      await f();
    } catch (e) {
      expect(e).toBeInstanceOf(WgprimError);
      return (e as WgprimError).code;
    }
    return undefined;
  };
  it('bad arguments fail before launch', async () => {
    expect(await code(() => prim.arrays.reduceByKey(new Uint32Array(4), new Uint32Array(5)))).toBe('invalid-argument');
    expect(await code(() => prim.arrays.reduceByKey(new Uint32Array(4), new Float32Array(4), { op: 'xor' }))).toBe('unsupported-type');
    expect(await code(() => prim.arrays.runLengthEncode(new Uint32Array(4), { equality: 'a ==' }))).toBe('invalid-operator');
    const dev = prim.device;
    const b = (size: number): GPUBuffer => dev.createBuffer({ size, usage: GPUBufferUsage.STORAGE });
    const enc = dev.createCommandEncoder();
    const [keys, values, out] = [b(64), b(64), b(64)];
    expect(await code(() => prim.reduceByKey(enc, { keys, values, uniqueKeysOut: out, aggregatesOut: out, runCount: b(4), count: 16, keyType: 'u32', valueType: 'u32' }))).toBe('overlap');
    expect(await code(() => prim.reduceByKey(enc, { keys, values, uniqueKeysOut: out, aggregatesOut: b(32), runCount: b(4), count: 16, keyType: 'u32', valueType: 'u32' }))).toBe('buffer-size');
    expect(await code(() => prim.runLengthEncode(enc, { input: keys, uniqueOut: out, countsOut: b(64), runCount: dev.createBuffer({ size: 4, usage: GPUBufferUsage.UNIFORM }), count: 16, type: 'u32' }))).toBe('buffer-usage');
    expect(await code(() => prim.runLengthEncodeNonTrivialRuns(enc, { input: keys, offsetsOut: b(16), lengthsOut: b(32), runCount: b(4), count: 16, type: 'u32' }))).toBe('buffer-size');
  });
  it('configs: an unknown scatter, and a staged tile past workgroup memory (its direct twin runs)', async () => {
    const keys = new Uint32Array([1, 1, 2]);
    await expect(prim.arrays.reduceByKey(keys, keys, { config: { scatter: 'sideways' as 'direct' } })).rejects.toMatchObject({ code: 'invalid-config', message: expect.stringMatching(/unknown scatter "sideways"/) });
    // A tile as large as workgroup memory holds: its keys and aggregates do not fit beside it.
    const limit = prim.device.limits.maxComputeWorkgroupStorageSize;
    const itemsPerThread = Math.min(64, 4 * Math.floor(limit / 8 / 128 / 4));
    expect(128 * itemsPerThread * 8).toBeGreaterThanOrEqual(limit);
    const config = { workgroupSize: 128, itemsPerThread, lookback: 'decoupled', workgroupScan: 'shared' } as const;
    await expect(prim.arrays.runLengthEncode(keys, { config: { ...config, scatter: 'staged' } })).rejects.toMatchObject({ code: 'invalid-config' });
    expect(Array.from((await prim.arrays.runLengthEncode(keys, { config: { ...config, scatter: 'direct' } })).counts)).toEqual([2, 1]);
  });
});
