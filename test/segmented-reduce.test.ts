import { beforeAll, describe, expect, it } from 'vitest';
import { type Prim, type ReduceConfig, WgprimError } from '../src/index.js';
import { cpuIdentity, cpuOp, type Value } from '../src/device/reference.js';
import { segmentedReduceReference } from '../src/device/segmented-reduce/reference.js';
import { segmentedReducePath, splitParts } from '../src/device/segmented-reduce/spec.js';
import { testPrim, typesOn } from './support/gpu.js';
import { randomInput, rng, SEED } from './support/data.js';
import { expectValues } from './support/runs.js';

// Compiling a pipeline takes seconds on lavapipe on a loaded machine: room for that.
const SLOW = 300_000;

let prim: Prim;
beforeAll(async () => {
  prim = await testPrim();
});

const PATHS = ['group', 'workgroup', 'split'] as const;
const SUB: Partial<ReduceConfig> = { workgroupSize: 64, itemsPerThread: 4, workgroupReduce: 'subgroup' };
const SHARED: Partial<ReduceConfig> = { workgroupSize: 64, itemsPerThread: 8, workgroupReduce: 'shared' };

/** Offsets with empty, one-element and long segments (longer than a workgroup's stride), not covering the input's ends. */
function offsetsFor(n: number, seed: number): Uint32Array {
  const r = rng(seed);
  const out = [Math.min(3, n)];
  while (out[out.length - 1]! < n - 5) {
    const u = r();
    const len = u < 0.2 ? 0 : u < 0.4 ? 1 : u < 0.9 ? Math.floor(r() * 40) : 700 + Math.floor(r() * 900);
    out.push(Math.min(out[out.length - 1]! + len, n - 5));
  }
  return Uint32Array.from(out);
}

describe('segmented reduce', { timeout: SLOW }, () => {
  // Every path on the same segments: unaligned begins, segments past the input's vector view.
  for (const path of PATHS) {
    it(`every type: empty, one-element and long segments, segments not covering the input (${path} a segment)`, async () => {
      for (const type of typesOn(prim)) {
        for (const n of [0, 1, 10, 5000]) {
          const values = randomInput(type, 'add', n, SEED + n);
          const offsets = n < 6 ? Uint32Array.from([0, 0, n]) : offsetsFor(n, SEED + n);
          const got = await prim.arrays.segmentedReduce(values, offsets, { type, config: SUB, path });
          expectValues(type, got, segmentedReduceReference(type, cpuOp(type, 'add'), values as ArrayLike<Value>, offsets, undefined, cpuIdentity(type, 'add')), `${type} n=${n}`);
        }
      }
    });
  }
  it('the path from the mean segment length: short segments a group, long ones one or several workgroups', async () => {
    const n = 3000;
    const values = randomInput('u32', 'add', n, SEED + 5);
    // Mean 3 elements (group), then 3000 / 2 (over two 64 x 4 tiles: split on a GPU, a workgroup on a CPU adapter), each element its own segment at the start.
    for (const offsets of [Uint32Array.from({ length: 1001 }, (_, i) => Math.min(n, i * 3)), Uint32Array.from([0, 1, n])]) {
      const got = await prim.arrays.segmentedReduce(values, offsets, { config: SUB });
      expectValues('u32', got, segmentedReduceReference('u32', cpuOp('u32', 'add'), values, offsets, undefined, 0), `${offsets.length - 1} segments`);
    }
  });
  it('few long segments: several workgroups a segment (split), every type, uneven shares, initial values', async () => {
    const n = 50_003;
    // 4 segments (one empty, one of 3 elements, two long and unaligned) and the input's ends uncovered.
    const offsets = Uint32Array.from([1, 4, 20_001, 20_001, 49_990]);
    const config: Partial<ReduceConfig> = { ...SUB, maxWorkgroups: 64 };
    const full = { ...SUB, maxWorkgroups: 64 } as ReduceConfig;
    // Long enough a mean for the workgroup paths, few enough segments for split; 16 shares each.
    expect(segmentedReducePath(full, 4 * 2 * 256 + 1, 4)).toBe('split');
    expect(segmentedReducePath(full, 40 * 2 * 256 + 1, 40)).toBe('workgroup');
    expect(splitParts(full, n, 4)).toBe(16);
    expect(splitParts(full, 4 * 300, 4)).toBe(2);
    for (const type of typesOn(prim)) {
      const values = randomInput(type, 'add', n, SEED + 11);
      for (const initialValue of [undefined, type === 'u64' || type === 'i64' ? 5n : 5]) {
        const got = await prim.arrays.segmentedReduce(values, offsets, { type, config, path: 'split', initialValue });
        const want = segmentedReduceReference(type, cpuOp(type, 'add'), values as ArrayLike<Value>, offsets, undefined, initialValue ?? cpuIdentity(type, 'add'));
        expectValues(type, got, want, `${type} split, init ${String(initialValue)}`);
      }
    }
    // On a GPU the default path for few long segments is split; a CPU adapter keeps a workgroup a segment.
    const x = randomInput('u32', 'max', n, SEED + 12);
    const two = Uint32Array.from([0, 25_000, n]);
    expect(segmentedReducePath(full, n, 2)).toBe('split');
    expect(segmentedReducePath(full, n, 2, undefined, true)).toBe('workgroup');
    expectValues('u32', await prim.arrays.segmentedReduce(x, two, { op: 'max', config }), segmentedReduceReference('u32', cpuOp('u32', 'max'), x, two, undefined, cpuIdentity('u32', 'max')), 'default path, max');
  });
  it('workgroup-memory reduce, min, initial values, end offsets in any order and overlapping', async () => {
    const n = 6000;
    const values = randomInput('i32', 'min', n, SEED);
    const offsets = offsetsFor(n, SEED + 1);
    for (const path of PATHS) {
      const min = await prim.arrays.segmentedReduce(values, offsets, { op: 'min', config: SHARED, path });
      expectValues('i32', min, segmentedReduceReference('i32', cpuOp('i32', 'min'), values, offsets, undefined, cpuIdentity('i32', 'min')), `min (${path})`);
    }
    const begins = Uint32Array.from([4000, 0, 10, 10, 5999, 7]);
    const ends = Uint32Array.from([6000, 3000, 10, 2500, 6000, 8]);
    const u = randomInput('u64', 'add', n, SEED + 2);
    for (const path of PATHS) {
      const got = await prim.arrays.segmentedReduce(u, begins, { endOffsets: ends, initialValue: 7n, config: SUB, path });
      expectValues('u64', got, segmentedReduceReference('u64', cpuOp('u64', 'add'), u as ArrayLike<Value>, begins, ends, 7n), `u64 with ends and init 7 (${path})`);
    }
    // A custom operator: the group's reduction by shuffles, not a native subgroup reduction.
    const x = randomInput('u32', 'add', n, SEED + 3);
    for (const path of PATHS) {
      const got = await prim.arrays.segmentedReduce(x, offsets, { op: { wgsl: 'a + b', identity: '0u', name: 'plus' }, config: SUB, path });
      expectValues('u32', got, segmentedReduceReference('u32', cpuOp('u32', 'add'), x, offsets, undefined, 0), `custom + (${path})`);
    }
    // Float sums: a tolerance scaled by the sum of magnitudes.
    const f = Float32Array.from({ length: n }, (_, i) => Math.sin(i) * 1000);
    const fs = await prim.arrays.segmentedReduce(f, offsets, { config: SUB });
    const want = segmentedReduceReference('f32', (a, b) => (a as number) + (b as number), f, offsets, undefined, 0) as Float64Array;
    const mags = segmentedReduceReference('f32', (a, b) => (a as number) + Math.abs(b as number), f, offsets, undefined, 0) as Float64Array;
    want.forEach((w, i) => expect(Math.abs(fs[i]! - w), `f32 segment ${i}`).toBeLessThanOrEqual(1e-5 * (mags[i]! as number) + 1e-3));
  });
  it('typed errors', async () => {
    const code = async (f: () => Promise<unknown>): Promise<string | undefined> => {
      try {
        await f();
      } catch (e) {
        expect(e).toBeInstanceOf(WgprimError);
        return (e as WgprimError).code;
      }
      return undefined;
    };
    const v = new Uint32Array(10);
    expect(await code(() => prim.arrays.segmentedReduce(v, Uint32Array.from([0, 5, 2])))).toBe('invalid-argument');
    expect(await code(() => prim.arrays.segmentedReduce(v, Uint32Array.from([0, 11])))).toBe('invalid-argument');
    expect(await code(() => prim.arrays.segmentedReduce(v, Uint32Array.from([4]), { endOffsets: Uint32Array.from([3]) }))).toBe('invalid-argument');
    expect(await code(() => prim.arrays.segmentedReduce(v, Uint32Array.from([0, 10]), { op: { wgsl: 'a +', identity: '0u' } }))).toBe('invalid-operator');
    const b = prim.device.createBuffer({ size: 64, usage: GPUBufferUsage.STORAGE });
    const enc = prim.device.createCommandEncoder();
    expect(await code(() => prim.segmentedReduce(enc, { input: b, output: b, beginOffsets: prim.device.createBuffer({ size: 64, usage: GPUBufferUsage.STORAGE }), segments: 2, type: 'u32' }))).toBe('overlap');
    expect(await code(() => prim.segmentedReduce(enc, { input: b, output: prim.device.createBuffer({ size: 4, usage: GPUBufferUsage.STORAGE }), beginOffsets: prim.device.createBuffer({ size: 64, usage: GPUBufferUsage.STORAGE }), segments: 2, type: 'u32' }))).toBe('buffer-size');
  });
});
