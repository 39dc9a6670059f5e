import { beforeAll, describe, expect, it } from 'vitest';
import { type BuiltinOperator, type ElementType, type Prim, type PrimTypedArray, type ReduceConfig, f16Bits, typeInfo } from '../src/index.js';
import { hasF16, operatorsFor, testPrim, typesOn } from './support/gpu.js';
import { cpuIdentity, cpuOp, firstMismatch, type Value, valueAt } from './support/cpu.js';
import { randomInput, randomReals, SEED, sizesAround } from './support/data.js';
import { SWEEP, sweepOr, sweepTimeout } from './support/sweep.js';

let prim: Prim;
beforeAll(async () => {
  prim = await testPrim();
});

const typesHere = (): ElementType[] => typesOn(prim);
const opsFor = operatorsFor;
const methodsHere = (): ReduceConfig['workgroupReduce'][] => (prim.context.hasSubgroups ? ['subgroup', 'shared'] : ['shared']);
const BIG = (1 << 20) + 3;

/** Inputs are deterministic in (type, op, n, seed): cache them across the configs that share them. */
const inputs = new Map<string, PrimTypedArray>();
function input(type: ElementType, op: BuiltinOperator, n: number, seed: number): PrimTypedArray {
  const key = `${type}:${op}:${n}:${seed}`;
  let a = inputs.get(key);
  if (!a) {
    a = randomInput(type, op, n, seed);
    inputs.set(key, a);
  }
  return a;
}

function cpuReduce(type: ElementType, op: (a: Value, b: Value) => Value, data: ArrayLike<Value>, init: Value | undefined, identity: Value): Value {
  let acc: Value | undefined;
  for (let i = 0; i < data.length; i++) {
    const x = valueAt(type, data, i);
    acc = acc === undefined ? x : op(acc, x);
  }
  if (acc === undefined) return init ?? identity;
  return init === undefined ? acc : op(init, acc);
}

/** The array API returns f16 results as numbers; firstMismatch reads f16 as bits. */
const asResult = (type: ElementType, v: number | bigint): Value[] => [type === 'f16' ? f16Bits(v as number) : v];

async function check(type: ElementType, op: BuiltinOperator, n: number, config: Partial<ReduceConfig> | undefined, seed: number, init?: Value): Promise<void> {
  const data = input(type, op, n, seed);
  const got = await prim.arrays.reduce(data, { op, type, config, initialValue: init });
  const want = cpuReduce(type, cpuOp(type, op), data, init, cpuIdentity(type, op));
  const bad = firstMismatch(type, asResult(type, got), [want]);
  expect(bad, `reduce ${op} ${type} n=${n} seed=${seed} init=${String(init)} config=${JSON.stringify(config)}: ${bad}`).toBeUndefined();
}

describe('reduce: sizes around tile boundaries, every type', () => {
  it('add, default config', async () => {
    for (const type of typesHere()) {
      const { config } = prim.selectedConfig('reduce', type);
      const tile = config.workgroupSize * config.itemsPerThread;
      // f16 sums of halves stay exact only while small: its large sizes use max instead.
      const sizes = [...sizesAround(tile), 3 * tile - 1, 104729];
      for (const n of sizes) {
        if (type === 'f16' && n > 65537) await check(type, 'max', n, undefined, SEED + n);
        else await check(type, 'add', n, undefined, SEED + n);
      }
    }
  });
});

describe('reduce: every operator, every type, both workgroup methods', () => {
  // A test per type (each compiles its own kernels: its own timeout and duration); f16 is
  // skipped where the device lacks shader-f16.
  (['u32', 'i32', 'f32', 'f16', 'u64', 'i64'] as const).forEach((type, t) => {
    it(`${type}: multi-tile and single-tile inputs`, async (ctx) => {
      if (!typesHere().includes(type)) ctx.skip();
      // Each operator with one method by default, the methods alternating (each its own
      // kernels); both under the sweep.
      const methods = methodsHere();
      for (const [i, op] of opsFor(type).entries()) {
        for (const workgroupReduce of sweepOr(methods, [methods[(i + t) % methods.length]!])) {
          for (const n of [1, 1000, 3 * 4096 + 7, 65537]) await check(type, op, n, { workgroupReduce }, SEED + 31 * n + 1);
        }
      }
    }, sweepTimeout);
  });

  it('maxWorkgroups below the tile count (workgroups loop over tiles), both methods', async () => {
    for (const workgroupReduce of methodsHere()) {
      const config = { workgroupSize: 128, itemsPerThread: 8, maxWorkgroups: 3, workgroupReduce };
      const tile = 128 * 8;
      for (const type of typesHere()) {
        const op: BuiltinOperator = typeInfo(type).isFloat ? 'max' : 'xor';
        for (const n of [3 * tile - 1, 3 * tile, 3 * tile + 1, 7 * tile + 5, 65521]) await check(type, op, n, config, SEED + n + 3);
      }
    }
  });
});

describe('reduce: configs at the edges of the space', () => {
  it('workgroupSize 64 and the device max, itemsPerThread 4 and 32, maxWorkgroups 1 and 65535, both methods', async () => {
    const max = prim.context.limits.maxComputeInvocationsPerWorkgroup;
    let runs = 0;
    const methods = methodsHere();
    const all: ReduceConfig[] = [];
    for (const workgroupSize of [64, max]) {
      for (const itemsPerThread of [4, 32]) {
        for (const maxWorkgroups of [1, 65535]) {
          for (const workgroupReduce of methods) all.push({ workgroupSize, itemsPerThread, maxWorkgroups, workgroupReduce });
        }
      }
    }
    // By default four corners where each value of workgroupSize, itemsPerThread and
    // maxWorkgroups meets each value of the other two, the method alternating; all sixteen
    // under the sweep.
    const m = (i: number): ReduceConfig['workgroupReduce'] => methods[i % methods.length]!;
    const corners: ReduceConfig[] = [
      { workgroupSize: 64, itemsPerThread: 4, maxWorkgroups: 1, workgroupReduce: m(0) },
      { workgroupSize: 64, itemsPerThread: 32, maxWorkgroups: 65535, workgroupReduce: m(1) },
      { workgroupSize: max, itemsPerThread: 4, maxWorkgroups: 65535, workgroupReduce: m(0) },
      { workgroupSize: max, itemsPerThread: 32, maxWorkgroups: 1, workgroupReduce: m(1) },
    ];
    for (const config of sweepOr(all, corners)) {
      const { workgroupSize, itemsPerThread } = config;
      const tile = workgroupSize * itemsPerThread;
      // 65536 = 256 tiles of the smallest config: one partial per tile, and pass 2 then
      // folds exactly one (65536) or more than one (65537) of its own tiles.
      for (const n of [0, 1, tile - 1, tile, tile + 1, 2 * tile + 1, 65535, 65536, 65537, BIG]) {
        await check('u32', 'add', n, config, SEED + n);
        runs++;
      }
      for (const n of [tile + 1, BIG]) await check('i64', 'min', n, config, SEED + n + 5);
      if (hasF16(prim)) await check('f16', 'max', 7 * tile + 3, config, SEED + 17);
    }
    expect(runs).toBeGreaterThanOrEqual((SWEEP ? 16 : 4) * 10);
  }, sweepTimeout);
});

describe('reduce: initial values and empty inputs', () => {
  it('an empty input gives the initial value, or the identity without one, for every operator', async () => {
    for (const type of typesHere()) {
      for (const op of opsFor(type)) {
        const empty = input(type, op, 0, 0);
        const got = await prim.arrays.reduce(empty, { op, type });
        expect(firstMismatch(type, asResult(type, got), [cpuIdentity(type, op)]), `empty ${op} ${type}: identity`).toBeUndefined();
        const init: Value = type === 'u64' || type === 'i64' ? 0x1234_5678_9abcn : type === 'f16' ? 3.5 : type === 'f32' ? -2.25 : 77;
        const withInit = await prim.arrays.reduce(empty, { op, type, initialValue: init });
        expect(firstMismatch(type, asResult(type, withInit), [init]), `empty ${op} ${type}: init ${String(init)}`).toBeUndefined();
      }
    }
  });

  it('the initial value is combined once with the result, whatever the grid', async () => {
    const cases: [ElementType, BuiltinOperator, Value][] = [
      ['u32', 'add', 1234567],
      ['u32', 'add', 0xffffffff],
      ['i32', 'add', -2147483648],
      ['i32', 'min', -3],
      ['u32', 'xor', 0xdeadbeef],
      ['f32', 'max', 0.5],
      ['f32', 'add', 0.75],
      ['f16', 'add', -1.5],
      ['u64', 'add', (1n << 64n) - 1n],
      ['i64', 'add', -(1n << 40n)],
      ['i64', 'max', (1n << 62n)],
      ['u64', 'mul', 3n],
    ];
    for (const [type, op, init] of cases) {
      if (type === 'f16' && !hasF16(prim)) continue;
      for (const config of [undefined, { maxWorkgroups: 1 }, { workgroupSize: 64, itemsPerThread: 4, maxWorkgroups: 65535 }]) {
        for (const n of [1, 5000, type === 'f16' ? 30011 : 100003]) await check(type, op, n, config, SEED + n + 9, init);
      }
    }
  });
});

describe('reduce: custom operators', () => {
  it("{ wgsl: 'max(a, b)', identity: '0u' }, both methods", async () => {
    const op = { wgsl: 'max(a, b)', identity: '0u' };
    for (const workgroupReduce of methodsHere()) {
      for (const n of [0, 1, 4095, 4097, 100003, BIG]) {
        const data = input('u32', 'max', n, SEED + n) as Uint32Array;
        const got = await prim.arrays.reduce(data, { op, config: { workgroupReduce } });
        const want = cpuReduce('u32', cpuOp('u32', 'max'), data, undefined, 0);
        expect(got, `custom max u32 n=${n} seed=${SEED + n} ${workgroupReduce}`).toBe(want);
      }
    }
  });

  it('custom operators on 64-bit and float types, with an initial value', async () => {
    const n = 50021;
    for (const workgroupReduce of methodsHere()) {
      const u = input('u64', 'xor', n, SEED + 1) as BigUint64Array;
      const gotU = await prim.arrays.reduce(u, { op: { wgsl: 'a ^ b', identity: 'vec2<u32>(0u, 0u)', name: 'xor64' }, config: { workgroupReduce }, initialValue: 5n });
      expect(gotU, `custom xor u64 seed=${SEED + 1} ${workgroupReduce}`).toBe(cpuReduce('u64', cpuOp('u64', 'xor'), u, 5n, 0n));
      const f = input('f32', 'add', n, SEED + 2) as Float32Array;
      const gotF = await prim.arrays.reduce(f, { op: { wgsl: 'a + b', identity: '0.0' }, config: { workgroupReduce } });
      expect(gotF, `custom add f32 seed=${SEED + 2} ${workgroupReduce}`).toBe(cpuReduce('f32', cpuOp('f32', 'add'), f, undefined, 0));
    }
  });
});

describe('reduce: f32 sums of random reals', () => {
  it('stay within a bound derived from the summation tree', async () => {
    const max = prim.context.limits.maxComputeInvocationsPerWorkgroup;
    const { subgroupMinSize, subgroupMaxSize } = prim.target;
    const configs: (Partial<ReduceConfig> | undefined)[] = [
      undefined,
      { workgroupReduce: 'shared' },
      { workgroupSize: 64, itemsPerThread: 4, maxWorkgroups: 65535 },
      { workgroupSize: max, itemsPerThread: 32, maxWorkgroups: 1, workgroupReduce: 'shared' },
      // 16 items: a tile whose typical sum stays above the bound (below) even with 4-lane
      // subgroups, whose workgroup step folds twice as many subgroup results as 8-lane ones.
      { workgroupSize: max, itemsPerThread: 16, maxWorkgroups: 7, workgroupReduce: 'subgroup' },
    ];
    for (const override of configs) {
      const c = { ...prim.selectedConfig('reduce', 'f32').config, ...override } as ReduceConfig;
      if (c.workgroupReduce === 'subgroup' && !prim.context.hasSubgroups) continue;
      for (const n of [4097, 300007, BIG]) {
        const seed = SEED + n + 101;
        const data = randomReals(n, seed);
        let sum = 0;
        let abs = 0;
        for (let i = 0; i < n; i++) {
          sum += data[i]!;
          abs += Math.abs(data[i]!);
        }
        // Height of the summation tree (roundings an element's contribution passes through):
        // quad (3) + one add per quad per tile folded by an invocation, then the workgroup
        // step, then the same for the partials in pass 2, and the initial value.
        const tile = c.workgroupSize * c.itemsPerThread;
        const tiles = Math.ceil(n / tile);
        const wgs = Math.min(tiles, c.maxWorkgroups);
        const wgStep = c.workgroupReduce === 'subgroup' ? subgroupMaxSize - 1 + c.workgroupSize / subgroupMinSize : Math.log2(c.workgroupSize);
        const perPass = (elements: number, workgroups: number): number => 3 + (c.itemsPerThread / 4) * Math.ceil(Math.ceil(elements / tile) / workgroups) + wgStep;
        const height = perPass(n, wgs) + (tiles > 1 ? perPass(wgs, 1) : 0) + 1;
        const u = 2 ** -24;
        const tol = (height * u) / (1 - height * u) * abs;
        // Not a vacuous bound: it stays below the typical size of one tile's sum (random signs:
        // sqrt(tile) / sqrt(3)), so a lost or doubled tile fails the check.
        expect(tol, `tolerance n=${n} config=${JSON.stringify(c)}`).toBeLessThan(Math.sqrt(tile) / 4);
        const got = (await prim.arrays.reduce(data, { config: override })) as number;
        const err = Math.abs(got - sum);
        expect(err <= tol, `f32 sum n=${n} seed=${seed} config=${JSON.stringify(c)}: got ${got}, want ${sum}, error ${err} > tolerance ${tol} (height ${height})`).toBe(true);
      }
    }
  });
});

describe('reduce: buffer level', () => {
  const usage = (): number => GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST;
  async function readBack(buffers: GPUBuffer[], enc: GPUCommandEncoder): Promise<ArrayBuffer[]> {
    const reads = buffers.map((b) => {
      const r = prim.device.createBuffer({ size: b.size, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
      enc.copyBufferToBuffer(b, 0, r, 0, b.size);
      return r;
    });
    prim.device.queue.submit([enc.finish()]);
    const out: ArrayBuffer[] = [];
    for (const r of reads) {
      await r.mapAsync(GPUMapMode.READ);
      out.push(r.getMappedRange().slice(0));
      r.destroy();
    }
    return out;
  }
  /** A STORAGE buffer holding `data`, zero-padded to whole words. */
  const upload = (data: ArrayBufferView): GPUBuffer => {
    const size = Math.ceil(Math.max(data.byteLength, 4) / 4) * 4;
    const padded = new Uint8Array(size);
    padded.set(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
    const b = prim.device.createBuffer({ size, usage: usage() });
    prim.device.queue.writeBuffer(b, 0, padded);
    return b;
  };

  it('two reduces (and a transform feeding one) composed in one caller encoder', async () => {
    const seed = SEED + 500;
    const nA = 100003;
    const nB = (1 << 20) + 3;
    const a = input('u32', 'add', nA, seed) as Uint32Array;
    const b = input('i64', 'max', nB, seed + 1) as BigInt64Array;
    const inA = upload(a);
    const inB = upload(b);
    const doubled = prim.device.createBuffer({ size: nA * 4, usage: usage() });
    const outA = upload(new Uint32Array([7, 0xdeadbeef, 0xdeadbeef, 0xdeadbeef]));
    const outB = prim.device.createBuffer({ size: 16, usage: usage() });
    const outC = prim.device.createBuffer({ size: 4, usage: usage() });
    const enc = prim.device.createCommandEncoder();
    // The second reduce needs a larger partials scratch than the first (65535 workgroups):
    // it grows inside one encoder, and the first keeps its own.
    await prim.reduce(enc, { input: inA, output: outA, count: nA, type: 'u32', config: { maxWorkgroups: 2 } });
    await prim.reduce(enc, { input: inB, output: outB, count: nB, type: 'i64', op: 'max', config: { workgroupSize: 64, itemsPerThread: 4, maxWorkgroups: 65535 } });
    await prim.transform(enc, { input: inA, output: doubled, count: nA, type: 'u32', expression: 'a * 2u' });
    await prim.reduce(enc, { input: doubled, output: outC, count: nA, type: 'u32', op: 'add', initialValue: 1 });
    const [ra, rb, rc] = await readBack([outA, outB, outC], enc);
    const wantA = cpuReduce('u32', cpuOp('u32', 'add'), a, undefined, 0) as number;
    const wantB = cpuReduce('i64', cpuOp('i64', 'max'), b, undefined, 0n);
    const wantC = ((wantA * 2 + 1) >>> 0);
    // Element 0 holds the result; the rest of the output buffer is left alone.
    expect([...new Uint32Array(ra!)], `reduce A seed=${seed}`).toEqual([wantA, 0xdeadbeef, 0xdeadbeef, 0xdeadbeef]);
    expect(new BigInt64Array(rb!)[0], `reduce B seed=${seed + 1}`).toBe(wantB);
    expect(new Uint32Array(rc!)[0], `transform then reduce seed=${seed}`).toBe(wantC);
    for (const x of [inA, inB, doubled, outA, outB, outC]) x.destroy();
  });

  it('reads only `count` elements of a larger input buffer', async () => {
    const cases: [ElementType, number][] = [['u32', 4099], ['f16', 4101], ['u64', 4097], ['i32', 37], ['f16', 3], ['i64', 1]];
    const poison: Record<ElementType, Value> = { u32: 0xffffffff, i32: 0x7fffffff, f32: 3e38, f16: 0x7bff, u64: (1n << 64n) - 1n, i64: (1n << 63n) - 1n };
    for (const [type, n] of cases) {
      if (type === 'f16' && !hasF16(prim)) continue;
      const seed = SEED + n + 700;
      // Poison past count: the largest finite value of the type, which max would pick up.
      const whole = randomInput(type, 'max', n + 300, seed);
      for (let i = n; i < whole.length; i++) (whole as unknown as Value[])[i] = poison[type];
      const data = whole.subarray(0, n);
      const inBuf = upload(whole);
      const methods = methodsHere();
      const outs = methods.map(() => prim.device.createBuffer({ size: 16, usage: usage() }));
      const enc = prim.device.createCommandEncoder();
      for (const [i, workgroupReduce] of methods.entries()) {
        await prim.reduce(enc, { input: inBuf, output: outs[i]!, count: n, type, op: 'max', config: { workgroupReduce, workgroupSize: 64, itemsPerThread: 4 } });
      }
      const results = await readBack(outs, enc);
      const want = cpuReduce(type, cpuOp(type, 'max'), data, undefined, cpuIdentity(type, 'max'));
      for (const [i, r] of results.entries()) {
        const got = type === 'u64' ? new BigUint64Array(r) : type === 'i64' ? new BigInt64Array(r) : type === 'f16' ? new Uint16Array(r) : type === 'u32' ? new Uint32Array(r) : new Int32Array(r);
        const bad = firstMismatch(type, Array.from(got as ArrayLike<Value>).slice(0, 1), [want]);
        expect(bad, `max ${type} n=${n} in a buffer of ${whole.length} seed=${seed} ${methods[i]}: ${bad}`).toBeUndefined();
      }
      inBuf.destroy();
      for (const o of outs) o.destroy();
    }
  });
});
