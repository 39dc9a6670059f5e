import { beforeAll, describe, expect, it } from 'vitest';
import { type BuiltinOperator, type ElementType, type Prim, type ScanConfig, WgprimError } from '../src/index.js';
import { operatorsFor, testPrim, typesOn } from './support/gpu.js';
import { cpuIdentity, cpuOp, cpuScan, firstMismatch, type Value } from './support/cpu.js';
import { randomInput, randomReals, SEED } from './support/data.js';
import { SWEEP, SWEEP_TIMEOUT } from './support/sweep.js';

let prim: Prim;
beforeAll(async () => {
  prim = await testPrim();
});

const typesHere = (): ElementType[] => typesOn(prim);
const opsFor = operatorsFor;

async function check(type: ElementType, op: BuiltinOperator, n: number, exclusive: boolean, config: Partial<ScanConfig> | undefined, seed: number, init?: Value): Promise<void> {
  const input = randomInput(type, op, n, seed);
  const call = exclusive ? prim.arrays.exclusiveScan.bind(prim.arrays) : prim.arrays.inclusiveScan.bind(prim.arrays);
  const got = await call(input, { op, type, config, initialValue: init });
  const want = cpuScan(type, cpuOp(type, op), input, exclusive, init, cpuIdentity(type, op));
  const bad = firstMismatch(type, got, want);
  expect(bad, `${exclusive ? 'exclusive' : 'inclusive'} ${op} ${type} n=${n} seed=${seed} config=${JSON.stringify(config)}: ${bad}`).toBeUndefined();
}

/**
 * Sizes that stress a config's tiles: empty, one element, a tile and one either side, two tiles
 * and one, primes, and a large count. Every check of one (type, op, direction, config) reuses
 * the same pipelines (one for a single tile, others past it), so many sizes cost one compile.
 */
function awkwardSizes(tile: number, large: number): number[] {
  return [...new Set([0, 1, 2, 3, tile - 1, tile, tile + 1, 2 * tile + 1, 7919, large])].sort((a, b) => a - b);
}

const tileOf = (c: ScanConfig): number => c.workgroupSize * c.itemsPerThread;
/** The selected config with `over` applied (what a call with `config: over` runs). */
const configFor = (type: ElementType, over: Partial<ScanConfig> = {}): ScanConfig => ({ ...prim.selectedConfig('scan', type).config, ...over });
/**
 * Small tiles for the checks of operators and methods: lavapipe compiles a 64 x 4 kernel several
 * times faster than the default 256 x 16, and a large input then spans thousands of tiles (a
 * long look-back chain, many partials). The default shape runs every type in its own test.
 */
const SMALL: Partial<ScanConfig> = { workgroupSize: 64, itemsPerThread: 4 };
// f16 sums stay exact only while small: its large sizes are smaller. With 64 x 4 tiles, 2^17
// elements are 512 tiles.
const largeFor = (type: ElementType): number => (type === 'f16' ? 30011 : (1 << 17) + 3);

// A test per type: each compiles its own pipelines, so each gets the whole timeout and its own
// duration in the report. f16 is skipped where the device lacks shader-f16.
const ALL_TYPES: readonly ElementType[] = ['u32', 'i32', 'f32', 'f16', 'u64', 'i64'];

describe('scan: sizes around tile boundaries, every type', () => {
  for (const type of ALL_TYPES) {
    it(`${type}: add, inclusive and exclusive, default config`, async (ctx) => {
      if (!typesHere().includes(type)) ctx.skip();
      // One type past a million (the CPU reference and the comparison cost a second or more per
      // million values, several with bigints); the others past 2^17, still hundreds of tiles.
      const sizes = awkwardSizes(tileOf(configFor(type)), type === 'u32' ? (1 << 20) + 3 : type === 'f16' ? 65537 : (1 << 17) + 3);
      for (const n of sizes) {
        await check(type, 'add', n, false, undefined, SEED + n);
        await check(type, 'add', n, true, undefined, SEED + n + 1);
      }
    });
  }
});

describe('scan: every operator on every type', () => {
  ALL_TYPES.forEach((type, t) => {
    it(`${type}: multi-tile inputs, one direction each (alternating), small tiles`, async (ctx) => {
      if (!typesHere().includes(type)) ctx.skip();
      // Add runs both directions above; each other operator one direction, alternating (and
      // starting with the other direction on the next type), on sizes past one tile (the
      // single-tile kernel holds the same operator code, checked with add).
      const tile = tileOf(configFor(type, SMALL));
      const ops = opsFor(type).filter((o) => o !== 'add');
      for (const [i, op] of ops.entries()) {
        for (const n of [tile + 1, 3 * tile + 7, 20011]) await check(type, op, n, (i + t) % 2 === 1, SMALL, SEED + 11 + n);
      }
    });
  });

  it.runIf(SWEEP)('sweep: every operator on every type, inclusive and exclusive', async () => {
    for (const type of typesHere()) {
      for (const op of opsFor(type)) {
        await check(type, op, 3 * 4096 + 7, false, undefined, SEED + 11);
        await check(type, op, 3 * 4096 + 7, true, undefined, SEED + 12);
      }
    }
  }, SWEEP_TIMEOUT);
});

describe('scan: every config method on every type', () => {
  const methods: Partial<ScanConfig>[] = [
    { lookback: 'decoupled', workgroupScan: 'subgroup' },
    { lookback: 'decoupled', workgroupScan: 'shared' },
    { lookback: 'reduce-then-scan', workgroupScan: 'subgroup' },
    { lookback: 'reduce-then-scan', workgroupScan: 'shared' },
  ];
  const usable = (m: Partial<ScanConfig>): boolean => m.workgroupScan !== 'subgroup' || prim.context.hasSubgroups;

  // The default config (decoupled, subgroup here) runs every type above. Each method (small
  // tiles) runs a 32-bit and a 64-bit type (64-bit values are emulated, so their WGSL differs),
  // so that every type takes a method other than the default, with add and max, both directions.
  const plan: [Partial<ScanConfig>, ElementType, BuiltinOperator, boolean][] = [
    [methods[0]!, 'i64', 'max', true],
    [methods[0]!, 'u32', 'add', false],
    [methods[1]!, 'i32', 'add', true],
    [methods[1]!, 'u64', 'add', false],
    [methods[1]!, 'f16', 'max', false],
    [methods[2]!, 'f32', 'add', false],
    [methods[2]!, 'i64', 'add', true],
    [methods[3]!, 'u32', 'max', true],
    [methods[3]!, 'u64', 'max', false],
    [methods[3]!, 'f16', 'add', true],
  ];
  it('the plan: every method with a 32- and a 64-bit type, every type under a method other than the default', () => {
    for (const m of methods) {
      const widths = new Set(plan.filter(([pm]) => pm === m).map(([, t]) => (t.endsWith('64') ? 64 : 32)));
      expect([...widths].sort(), JSON.stringify(m)).toEqual([32, 64]);
    }
    for (const type of ALL_TYPES) expect(plan.some(([m, t]) => t === type && m !== methods[0]), type).toBe(true);
  });

  for (const m of methods) {
    it(`${m.lookback === 'decoupled' ? 'decoupled look-back' : 'reduce-then-scan'}, ${m.workgroupScan} workgroup scan: ${plan.filter(([pm]) => pm === m).map(([, t, op, ex]) => `${t} ${op} ${ex ? 'exclusive' : 'inclusive'}`).join(', ')}`, async (ctx) => {
      if (!usable(m)) ctx.skip();
      for (const [, type, op, exclusive] of plan.filter(([pm]) => pm === m)) {
        if (!typesHere().includes(type)) continue;
        const config = { ...SMALL, ...m };
        for (const n of awkwardSizes(tileOf(configFor(type, config)), largeFor(type))) await check(type, op, n, exclusive, config, SEED + n);
      }
    });
  }

  it.runIf(SWEEP)('sweep: every method on every type, add and max', async () => {
    for (const type of typesHere()) {
      for (const m of methods) {
        if (!usable(m)) continue;
        for (const n of [4095, 4097, type === 'f16' ? 30011 : 200003]) {
          await check(type, 'add', n, false, m, SEED + n);
          await check(type, 'max', n, true, m, SEED + n + 2);
        }
      }
    }
  }, SWEEP_TIMEOUT);

  const max = (): number => prim.context.limits.maxComputeInvocationsPerWorkgroup;
  it('configs at the edges of the space: the smallest and largest workgroups and items, shapes not powers of two', async () => {
    // One type and one direction each (32- and 64-bit alternate); each config compiled once and
    // run on many sizes.
    const edges: [Partial<ScanConfig>, ElementType, boolean][] = [
      [{ workgroupSize: 64, itemsPerThread: 32 }, 'u32', false],
      [{ workgroupSize: max(), itemsPerThread: 4, workgroupScan: 'shared' }, 'u32', true],
      // Not powers of two (multiples of 32, as CUB's 192-invocation SM90 scan).
      [{ workgroupSize: 96, itemsPerThread: 20, workgroupScan: 'shared' }, 'u64', true],
      [{ workgroupSize: 160, itemsPerThread: 4, lookback: 'reduce-then-scan' }, 'u32', false],
    ];
    for (const [config, type, exclusive] of edges) {
      for (const n of awkwardSizes(tileOf(configFor(type, config)), 100003)) await check(type, 'add', n, exclusive, config, SEED + n);
    }
  });

  it.runIf(SWEEP)('sweep: configs at the edges of the space, u32 and u64', async () => {
    const edges: Partial<ScanConfig>[] = [
      { workgroupSize: 64, itemsPerThread: 4 },
      { workgroupSize: 64, itemsPerThread: 32 },
      { workgroupSize: max(), itemsPerThread: 4 },
      { workgroupSize: max(), itemsPerThread: 16, workgroupScan: 'shared' },
      { workgroupSize: 128, itemsPerThread: 12, lookback: 'reduce-then-scan' },
      { workgroupSize: 192, itemsPerThread: 8 },
      { workgroupSize: 96, itemsPerThread: 20, workgroupScan: 'shared' },
      { workgroupSize: 160, itemsPerThread: 4, lookback: 'reduce-then-scan' },
    ];
    for (const config of edges) {
      for (const type of ['u32', 'u64'] as const) {
        for (const n of [1, 255, 256 * 32 + 1, 100003]) await check(type, 'add', n, false, config, SEED + n);
      }
    }
  }, SWEEP_TIMEOUT);
});

describe('scan: initial values, in place, custom operators, float rounding', () => {
  it('exclusive and inclusive with an initial value', async () => {
    await check('u32', 'add', 10007, true, undefined, 1, 1234567);
    await check('u32', 'add', 10007, false, undefined, 2, 7);
    await check('i64', 'add', 10007, true, undefined, 3, -(1n << 40n));
    await check('f32', 'max', 10007, false, undefined, 4, 0.5);
    await check('i32', 'min', 10007, true, { lookback: 'reduce-then-scan' }, 5, -3);
  });

  it('scans in place when input and output are one buffer', async () => {
    for (const lookback of ['decoupled', 'reduce-then-scan'] as const) {
      const n = 100003;
      const data = randomInput('u32', 'add', n, 77) as Uint32Array;
      const buf = prim.device.createBuffer({ size: n * 4, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST });
      prim.device.queue.writeBuffer(buf, 0, data as Uint32Array<ArrayBuffer>);
      const enc = prim.device.createCommandEncoder();
      await prim.exclusiveScan(enc, { input: buf, output: buf, count: n, type: 'u32', config: { lookback } });
      const read = prim.device.createBuffer({ size: n * 4, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
      enc.copyBufferToBuffer(buf, 0, read, 0, n * 4);
      prim.device.queue.submit([enc.finish()]);
      await read.mapAsync(GPUMapMode.READ);
      const got = new Uint32Array(read.getMappedRange().slice(0));
      const want = cpuScan('u32', cpuOp('u32', 'add'), data, true, undefined, 0);
      expect(firstMismatch('u32', got, want), lookback).toBeUndefined();
      buf.destroy();
      read.destroy();
    }
  });

  it('custom operator: max as WGSL', async () => {
    const input = randomInput('u32', 'max', 50021, 9) as Uint32Array;
    const got = await prim.arrays.inclusiveScan(input, { op: { wgsl: 'max(a, b)', identity: '0u', name: 'max' } });
    expect(firstMismatch('u32', got, cpuScan('u32', cpuOp('u32', 'max'), input, false, undefined, 0))).toBeUndefined();
  });

  it('custom non-commutative operator: composition of affine maps (order matters)', async () => {
    // x -> m*x + c as (m, c) in a u64 slot; (m1,c1) then (m2,c2) = (m1*m2, c1*m2 + c2) mod 2^32.
    const op = { wgsl: 'vec2<u32>(a.x * b.x, a.y * b.x + b.y)', identity: 'vec2<u32>(1u, 0u)', name: 'affine' };
    const n = 70001;
    const r = randomInput('u64', 'xor', n, 10) as BigUint64Array;
    const compose = (a: Value, b: Value): Value => {
      const [m1, c1] = [Number(BigInt(a) & 0xffffffffn), Number(BigInt(a) >> 32n)];
      const [m2, c2] = [Number(BigInt(b) & 0xffffffffn), Number(BigInt(b) >> 32n)];
      return BigInt(Math.imul(m1, m2) >>> 0) | (BigInt((Math.imul(c1, m2) + c2) >>> 0) << 32n);
    };
    for (const config of [{ lookback: 'decoupled' as const }, { lookback: 'reduce-then-scan' as const, workgroupScan: 'shared' as const }]) {
      const got = await prim.arrays.inclusiveScan(r, { op, config });
      expect(firstMismatch('u64', got, cpuScan('u64', compose, r, false, undefined, 1n)), JSON.stringify(config)).toBeUndefined();
    }
  });

  it('f32 sums of random reals stay within a size-derived tolerance', async () => {
    for (const n of [4097, (1 << 20) + 3]) {
      const input = randomReals(n, SEED + n);
      const got = await prim.arrays.inclusiveScan(input);
      const want: number[] = [];
      const absPrefix: number[] = [];
      let s = 0;
      let a = 0;
      for (let i = 0; i < n; i++) {
        s += input[i]!;
        a += Math.abs(input[i]!);
        want.push(s);
        absPrefix.push(a);
      }
      // Each output is a chain of at most ipt + tiles + log2(workgroup) roundings.
      const { config } = prim.selectedConfig('scan', 'f32');
      const depth = config.itemsPerThread + Math.ceil(n / (config.workgroupSize * config.itemsPerThread)) + 16;
      const eps = 2 ** -24;
      expect(firstMismatch('f32', got, want, (i) => absPrefix[i]! * eps * depth + 1e-30), `n=${n}`).toBeUndefined();
    }
  });

  it('rejects an invalid per-call config with a typed error', async () => {
    const input = new Uint32Array(10);
    await expect(prim.arrays.inclusiveScan(input, { config: { itemsPerThread: 6 } })).rejects.toMatchObject({ code: 'invalid-config' });
    await expect(prim.arrays.inclusiveScan(input, { config: { workgroupSize: 100 } })).rejects.toBeInstanceOf(WgprimError);
  });
});
