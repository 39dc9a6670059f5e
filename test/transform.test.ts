import { beforeAll, describe, expect, it } from 'vitest';
import { type ElementType, type Prim, type PrimTypedArray, type TransformConfig, f16Bits, f16Value } from '../src/index.js';
import { hasF16, testPrim } from './support/gpu.js';
import { firstMismatch, type Value, valueAt } from './support/cpu.js';
import { randomInput, rng, SEED, sizesAround } from './support/data.js';

let prim: Prim;
beforeAll(async () => {
  prim = await testPrim();
});

const BIG = (1 << 20) + 3;
const hereOnly = (t: ElementType): boolean => t !== 'f16' || hasF16(prim);

/** A transform case: the WGSL expression and what it computes on the CPU (f16 as numbers). */
interface Case {
  readonly name: string;
  readonly type: ElementType;
  readonly outputType?: ElementType;
  readonly expression: string;
  readonly cpu: (a: Value) => Value;
  /** Input data; default: random values over the type's range (floats within ±1000). */
  readonly data?: (n: number, seed: number) => PrimTypedArray;
  /** Absolute slack allowed for a float output given the wanted value. */
  readonly slack?: (want: number) => number;
}

const U64_MASK = 1n | (2n << 32n);
const UNARY: Case[] = [
  { name: 'u32 a * 3u + 1u', type: 'u32', expression: 'a * 3u + 1u', cpu: (a) => (Math.imul(a as number, 3) + 1) >>> 0 },
  { name: 'i32 -a', type: 'i32', expression: '-a', cpu: (a) => -(a as number) | 0 },
  { name: 'f32 a * 0.5', type: 'f32', expression: 'a * 0.5', cpu: (a) => (a as number) * 0.5 },
  { name: 'f16 a * 2.0h', type: 'f16', expression: 'a * 2.0h', cpu: (a) => (a as number) * 2 },
  { name: 'u64 a ^ vec2<u32>(1u, 2u)', type: 'u64', expression: 'a ^ vec2<u32>(1u, 2u)', cpu: (a) => (a as bigint) ^ U64_MASK },
  { name: 'i64 negate with carry', type: 'i64', expression: 'u64_add(~a, vec2<u32>(1u, 0u))', cpu: (a) => BigInt.asIntN(64, -(a as bigint)) },
];

/** f32 spacing at x: the slack of a conversion that may round either way. */
const ulp32 = (x: number): number => (Math.abs(x) < 2 ** -126 ? 2 ** -149 : 2 ** (Math.floor(Math.log2(Math.abs(x))) - 23));
const ulp16 = (x: number): number => 2 ** (Math.max(Math.floor(Math.log2(Math.abs(x) || 1)), -14) - 10);

const CONVERSIONS: Case[] = [
  {
    name: 'u32 -> f32', type: 'u32', outputType: 'f32', expression: 'f32(a)', cpu: (a) => a,
    // Above 2^24 the value is not exact in f32: either neighbour is a valid conversion.
    slack: (w) => (w > 2 ** 24 ? ulp32(w) : 0),
  },
  {
    name: 'f32 -> u32', type: 'f32', outputType: 'u32', expression: 'u32(a)', cpu: (a) => Math.trunc(a as number),
    data: (n, seed) => { const r = rng(seed); return Float32Array.from({ length: n }, () => r() * 4e6); },
  },
  {
    name: 'i32 -> i64 (sign extension)', type: 'i32', outputType: 'i64',
    expression: 'vec2<u32>(bitcast<u32>(a), select(0u, 0xffffffffu, a < 0))', cpu: (a) => BigInt(a as number),
  },
  {
    name: 'f32 -> f16', type: 'f32', outputType: 'f16', expression: 'f16(a)', cpu: (a) => a,
    // Half the inputs are exact in f16, half are not (either neighbour is a valid conversion).
    data: (n, seed) => { const r = rng(seed); return Float32Array.from({ length: n }, (_, i) => (i & 1 ? f16Value(f16Bits((r() * 2 - 1) * 60000)) : (r() * 2 - 1) * 60000)); },
    slack: (w) => ulp16(w),
  },
  { name: 'f16 -> f32', type: 'f16', outputType: 'f32', expression: 'f32(a)', cpu: (a) => a },
  { name: 'u64 -> u32 (high word)', type: 'u64', outputType: 'u32', expression: 'a.y', cpu: (a) => Number((a as bigint) >> 32n) },
];

const wanted = new WeakMap<PrimTypedArray, Map<string, Value[]>>();
function cpuMap(c: Case, data: PrimTypedArray): Value[] {
  let byCase = wanted.get(data);
  if (!byCase) wanted.set(data, (byCase = new Map()));
  let out = byCase.get(c.name);
  if (!out) {
    out = new Array(data.length);
    for (let i = 0; i < data.length; i++) out[i] = c.cpu(valueAt(c.type, data, i));
    byCase.set(c.name, out);
  }
  return out;
}

const inputs = new Map<string, PrimTypedArray>();
function dataFor(c: Case, n: number, seed: number): PrimTypedArray {
  const key = `${c.name}:${n}:${seed}`;
  let d = inputs.get(key);
  if (!d) {
    d = c.data ? c.data(n, seed) : randomInput(c.type, 'max', n, seed);
    inputs.set(key, d);
  }
  return d;
}

async function check(c: Case, n: number, config: Partial<TransformConfig> | undefined, seed: number): Promise<void> {
  const data = dataFor(c, n, seed);
  const got = await prim.arrays.transform(data, { type: c.type, outputType: c.outputType, expression: c.expression, config });
  const want = cpuMap(c, data);
  const out = c.outputType ?? c.type;
  const bad = firstMismatch(out, got, want, c.slack ? (i) => c.slack!(Number(want[i])) : undefined);
  expect(bad, `transform ${c.name} n=${n} seed=${seed} config=${JSON.stringify(config)}: ${bad}`).toBeUndefined();
}

describe('transform: unary, every type, sizes around tile boundaries', () => {
  it('default config', async () => {
    for (const c of UNARY.filter((x) => hereOnly(x.type))) {
      const { config } = prim.selectedConfig('transform', c.type);
      const tile = config.workgroupSize * config.itemsPerThread;
      for (const n of [...sizesAround(tile), 3 * tile - 1, 104729]) await check(c, n, undefined, SEED + n);
    }
  });
});

describe('transform: output type differing from the input type', () => {
  it('u32 -> f32, f32 -> u32, i32 -> i64, f32 -> f16, f16 -> f32, u64 -> u32', async () => {
    for (const c of CONVERSIONS.filter((x) => hereOnly(x.type) && hereOnly(x.outputType!))) {
      for (const n of [0, 1, 2, 3, 5, 2047, 2048, 2049, 65537, BIG]) await check(c, n, undefined, SEED + n + 1);
      for (const config of [{ workgroupSize: 64, itemsPerThread: 4 }, { workgroupSize: 128, itemsPerThread: 32 }]) {
        for (const n of [255, 257, 4099, 100003]) await check(c, n, config, SEED + n + 2);
      }
    }
  });
});

describe('transform: binary', () => {
  interface BinaryCase {
    readonly name: string;
    readonly type: ElementType;
    readonly type2: ElementType;
    readonly outputType: ElementType;
    readonly expression: string;
    readonly cpu: (a: Value, b: Value) => Value;
    readonly b?: (n: number, seed: number) => PrimTypedArray;
  }
  const cases: BinaryCase[] = [
    { name: 'u32 a + b', type: 'u32', type2: 'u32', outputType: 'u32', expression: 'a + b', cpu: (a, b) => ((a as number) + (b as number)) >>> 0 },
    { name: 'i32 a + b', type: 'i32', type2: 'i32', outputType: 'i32', expression: 'a + b', cpu: (a, b) => ((a as number) + (b as number)) | 0 },
    { name: 'f32 a + b', type: 'f32', type2: 'f32', outputType: 'f32', expression: 'a + b', cpu: (a, b) => (a as number) + (b as number) },
    { name: 'f16 a + b', type: 'f16', type2: 'f16', outputType: 'f16', expression: 'a + b', cpu: (a, b) => (a as number) + (b as number) },
    { name: 'u64 a + b', type: 'u64', type2: 'u64', outputType: 'u64', expression: 'u64_add(a, b)', cpu: (a, b) => BigInt.asUintN(64, (a as bigint) + (b as bigint)) },
    { name: 'i64 a + b', type: 'i64', type2: 'i64', outputType: 'i64', expression: 'u64_add(a, b)', cpu: (a, b) => BigInt.asIntN(64, (a as bigint) + (b as bigint)) },
    // Three element sizes at once: every view has its own tail start.
    {
      name: 'u32 and f16 -> u64', type: 'u32', type2: 'f16', outputType: 'u64', expression: 'vec2<u32>(a, u32(b))',
      cpu: (a, b) => BigInt(a as number) | (BigInt(b as number) << 32n),
      b: (n, seed) => { const r = rng(seed); return Uint16Array.from({ length: n }, () => f16Bits(Math.floor(r() * 2048))); },
    },
  ];
  it('a + b per type, and mixed element sizes', async () => {
    for (const c of cases.filter((x) => hereOnly(x.type) && hereOnly(x.type2))) {
      for (const [n, config] of [[0, undefined], [1, undefined], [7, undefined], [2049, undefined], [BIG, undefined], [257, { workgroupSize: 64, itemsPerThread: 4 }], [70001, { workgroupSize: 64, itemsPerThread: 4 }], [70001, { workgroupSize: 1024, itemsPerThread: 32 }]] as const) {
        const seed = SEED + n + 3;
        const a = randomInput(c.type, 'add', n, seed);
        const b = c.b ? c.b(n, seed + 1) : randomInput(c.type2, 'add', n, seed + 1);
        const got = await prim.arrays.transform(a, { b, type: c.type, type2: c.type2, outputType: c.outputType, expression: c.expression, config });
        const want: Value[] = [];
        for (let i = 0; i < n; i++) want.push(c.cpu(valueAt(c.type, a, i), valueAt(c.type2, b, i)));
        const bad = firstMismatch(c.outputType, got, want);
        expect(bad, `transform ${c.name} n=${n} seed=${seed} config=${JSON.stringify(config)}: ${bad}`).toBeUndefined();
      }
    }
  });
});

describe('transform: configs at the edges of the space', () => {
  it('workgroupSize 64 and the device max, itemsPerThread 4 and 32', async () => {
    const max = prim.context.limits.maxComputeInvocationsPerWorkgroup;
    let runs = 0;
    for (const workgroupSize of [64, max]) {
      for (const itemsPerThread of [4, 32]) {
        const config = { workgroupSize, itemsPerThread };
        const tile = workgroupSize * itemsPerThread;
        for (const c of [UNARY[0]!, UNARY[3]!, UNARY[5]!].filter((x) => hereOnly(x.type))) {
          for (const n of [1, 3, tile - 1, tile, tile + 1, 2 * tile + 1, 7919, BIG]) {
            await check(c, n, config, SEED + n);
            runs++;
          }
        }
      }
    }
    expect(runs).toBeGreaterThanOrEqual(4 * 2 * 8);
  });
});

describe('transform: buffer level', () => {
  const usage = (): number => GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST;
  const bytesOf: Record<ElementType, number> = { u32: 4, i32: 4, f32: 4, f16: 2, u64: 8, i64: 8 };
  const view = (type: ElementType, buf: ArrayBuffer): PrimTypedArray => {
    switch (type) {
      case 'u32': return new Uint32Array(buf);
      case 'i32': return new Int32Array(buf);
      case 'f32': return new Float32Array(buf);
      case 'f16': return new Uint16Array(buf);
      case 'u64': return new BigUint64Array(buf);
      case 'i64': return new BigInt64Array(buf);
    }
  };
  /** A STORAGE buffer of `bytes` (whole words), holding `data` and then the byte 0xA5 repeated. */
  function bufferWith(data: PrimTypedArray, bytes: number): GPUBuffer {
    const size = Math.ceil(bytes / 8) * 8;
    const init = new Uint8Array(size).fill(0xa5);
    init.set(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
    const b = prim.device.createBuffer({ size, usage: usage() });
    prim.device.queue.writeBuffer(b, 0, init);
    return b;
  }
  async function readAll(b: GPUBuffer, enc: GPUCommandEncoder): Promise<ArrayBuffer> {
    const r = prim.device.createBuffer({ size: b.size, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
    enc.copyBufferToBuffer(b, 0, r, 0, b.size);
    prim.device.queue.submit([enc.finish()]);
    await r.mapAsync(GPUMapMode.READ);
    const out = r.getMappedRange().slice(0);
    r.destroy();
    return out;
  }

  it('in place (input === output), same type and same-size different types, and nothing past count is touched', async () => {
    const inPlace: Case[] = [
      UNARY[0]!, UNARY[3]!, UNARY[4]!, UNARY[5]!,
      { name: 'i32 -> f32 in place', type: 'i32', outputType: 'f32', expression: 'f32(a) * 0.5', cpu: (a) => (a as number) * 0.5, data: (n, seed) => (randomInput('i32', 'add', n, seed) as Int32Array).map((x) => x >> 8) },
      { name: 'f32 -> u32 in place', type: 'f32', outputType: 'u32', expression: 'u32(a)', cpu: (a) => Math.trunc(a as number), data: CONVERSIONS[1]!.data },
      { name: 'u64 -> i64 in place', type: 'u64', outputType: 'i64', expression: 'a.yx', cpu: (a) => BigInt.asIntN(64, ((a as bigint) >> 32n) | (((a as bigint) & 0xffffffffn) << 32n)) },
    ];
    for (const c of inPlace.filter((x) => hereOnly(x.type))) {
      for (const config of [undefined, { workgroupSize: 64, itemsPerThread: 4 }, { workgroupSize: 1024, itemsPerThread: 32 }]) {
        for (const n of [1, 5, 255, 257, 4097, 70001]) {
          const seed = SEED + n + 11;
          const data = dataFor(c, n, seed);
          const extra = 40;
          const bytes = (n + extra) * bytesOf[c.type];
          const buf = bufferWith(data, bytes);
          const enc = prim.device.createCommandEncoder();
          await prim.transform(enc, { input: buf, output: buf, count: n, type: c.type, outputType: c.outputType, expression: c.expression, config });
          const raw = await readAll(buf, enc);
          buf.destroy();
          const out = c.outputType ?? c.type;
          const got = view(out, raw.slice(0, n * bytesOf[out]));
          const want = cpuMap(c, data);
          const bad = firstMismatch(out, got, want, c.slack ? (i) => c.slack!(Number(want[i])) : undefined);
          expect(bad, `in-place ${c.name} n=${n} seed=${seed} config=${JSON.stringify(config)}: ${bad}`).toBeUndefined();
          const after = new Uint8Array(raw, n * bytesOf[out], bytes - n * bytesOf[out]);
          expect(after.every((x) => x === 0xa5), `in-place ${c.name} n=${n} seed=${seed}: bytes past count changed`).toBe(true);
        }
      }
    }
  });

  it('out of place: a larger output buffer keeps its bytes past count', async () => {
    for (const c of [UNARY[0]!, UNARY[3]!, UNARY[5]!, CONVERSIONS[2]!, CONVERSIONS[3]!].filter((x) => hereOnly(x.type) && hereOnly(x.outputType ?? x.type))) {
      for (const n of [1, 3, 255, 2049, 70001]) {
        const seed = SEED + n + 13;
        const data = dataFor(c, n, seed);
        const out = c.outputType ?? c.type;
        const input = bufferWith(data, n * bytesOf[c.type] + 64);
        const bytes = (n + 40) * bytesOf[out];
        const output = bufferWith(new Uint8Array(0) as unknown as PrimTypedArray, bytes);
        const enc = prim.device.createCommandEncoder();
        await prim.transform(enc, { input, output, count: n, type: c.type, outputType: c.outputType, expression: c.expression, config: { workgroupSize: 64, itemsPerThread: 4 } });
        const raw = await readAll(output, enc);
        input.destroy();
        output.destroy();
        const want = cpuMap(c, data);
        const bad = firstMismatch(out, view(out, raw.slice(0, n * bytesOf[out])), want, c.slack ? (i) => c.slack!(Number(want[i])) : undefined);
        expect(bad, `${c.name} n=${n} seed=${seed}: ${bad}`).toBeUndefined();
        expect(new Uint8Array(raw, n * bytesOf[out]).every((x) => x === 0xa5), `${c.name} n=${n} seed=${seed}: bytes past count changed`).toBe(true);
      }
    }
  });

});
