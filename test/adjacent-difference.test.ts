import { beforeAll, describe, expect, it } from 'vitest';
import { type AdjacentDifferenceConfig, type ElementType, type Prim, type PrimTypedArray, f16Bits, f16Value, WgprimError } from '../src/index.js';
import { adjacentDifferenceReference, cpuDifference } from '../src/device/adjacent-difference/reference.js';
import { type Value } from '../src/device/reference.js';
import { testPrim, typesOn } from './support/gpu.js';
import { rng, SEED } from './support/data.js';
import { SWEEP, SWEEP_TIMEOUT } from './support/sweep.js';

let prim: Prim;
beforeAll(async () => {
  prim = await testPrim();
});

// Small tiles (32 x 4 = 128 elements) so that tile edges and many tiles are reached quickly.
const SMALL: Partial<AdjacentDifferenceConfig> = { workgroupSize: 32, itemsPerThread: 4 };
const TILE = 128;
const SIZES = [0, 1, 2, 3, 5, TILE - 1, TILE, TILE + 1, 2 * TILE - 1, 2 * TILE + 1, 1009, 9 * TILE + 3];

/** Random data with small values (float differences stay exact), -0 and NaN among the floats, full-range integers. */
function data(type: ElementType, n: number, seed: number): PrimTypedArray {
  const r = rng(seed);
  const float = (): number => {
    const u = r();
    return u < 0.03 ? NaN : u < 0.08 ? -0 : (Math.floor(r() * 64) - 32) / 4;
  };
  const word = (): number => (r() * 2 ** 32) >>> 0;
  switch (type) {
    case 'u32': return Uint32Array.from({ length: n }, word);
    case 'i32': return Int32Array.from({ length: n }, () => word() | 0);
    case 'f32': return Float32Array.from({ length: n }, float);
    case 'f16': return Uint16Array.from({ length: n }, () => f16Bits(float()));
    case 'u64': return BigUint64Array.from({ length: n }, () => (BigInt(word()) << 32n) | BigInt(word()));
    case 'i64': return BigInt64Array.from({ length: n }, () => BigInt.asIntN(64, (BigInt(word()) << 32n) | BigInt(word())));
  }
}

/** Same values (f16 bits compared as values), NaN equal to NaN, -0 apart from +0. */
function expectSame(type: ElementType, got: ArrayLike<Value>, want: ArrayLike<Value>, what: string): void {
  const plain = (a: ArrayLike<Value>): Value[] => Array.from(a, (x) => (type === 'f16' ? f16Value(x as number) : x));
  const [g, w] = [plain(got), plain(want)];
  expect(g.length, `${what}: length`).toBe(w.length);
  const bad = g.findIndex((x, i) => !Object.is(x, w[i]));
  expect(bad, `${what}: first mismatch at ${bad}: ${String(g[bad])} vs ${String(w[bad])}`).toBe(-1);
}

async function check(type: ElementType, right: boolean, inPlace: boolean, config: Partial<AdjacentDifferenceConfig>, sizes: readonly number[]): Promise<void> {
  for (const n of sizes) {
    const d = data(type, n, SEED + n);
    const got = await prim.arrays.adjacentDifference(d, { right, inPlace, config, type });
    const want = adjacentDifferenceReference(Array.from(d as ArrayLike<Value>), cpuDifference(type), right);
    expectSame(type, got, want, `${type} ${right ? 'right' : 'left'} ${inPlace ? 'in place' : 'copy'} n=${n} (seed ${SEED + n})`);
  }
}

describe('adjacent difference: every type, left and right, in place and not, awkward sizes', () => {
  it('every type: left out of place and right in place', async () => {
    for (const type of typesOn(prim)) {
      await check(type, false, false, SMALL, SIZES);
      await check(type, true, true, SMALL, SIZES);
    }
  });

  it('u32 and i64: all four variants; a second tile shape (64 x 8) and the default config', async () => {
    for (const type of ['u32', 'i64'] as const) {
      await check(type, true, false, SMALL, SIZES);
      await check(type, false, true, SMALL, SIZES);
    }
    for (const [right, inPlace] of [[true, false], [false, true]] as const) {
      await check('u32', right, inPlace, { workgroupSize: 64, itemsPerThread: 8 }, [511, 512, 513, 4099]);
    }
    await check('u32', false, false, {}, [1, 20_011]);
  });

  it.runIf(SWEEP)('sweep: every type x direction x in place or not x two tile shapes', async () => {
    for (const type of typesOn(prim)) {
      for (const config of [SMALL, { workgroupSize: 64, itemsPerThread: 8 }]) {
        for (const [right, inPlace] of [[false, false], [true, false], [false, true], [true, true]] as const) await check(type, right, inPlace, config, SIZES);
      }
    }
  }, SWEEP_TIMEOUT);

  it('integers wrap', async () => {
    const d = Uint32Array.from([0, 1, 0xffffffff, 0]);
    expect(Array.from(await prim.arrays.adjacentDifference(d, { config: SMALL }))).toEqual([0, 1, 0xfffffffe, 1]);
    const i = BigInt64Array.from([0n, -(2n ** 63n), 2n ** 63n - 1n, 5n]);
    expect(Array.from(await prim.arrays.adjacentDifference(i, { right: true, config: SMALL }))).toEqual([-(2n ** 63n), 1n, 2n ** 63n - 6n, 5n]);
  });

  it('a custom op over a and b, both directions, in place and not', async () => {
    const n = 3 * TILE + 7;
    const u = data('u32', n, SEED + 11) as Uint32Array;
    const cpu = (a: number, b: number): number => (Math.imul(a, 3) + (b >>> 1)) >>> 0;
    for (const [right, inPlace] of [[false, false], [true, true]] as const) {
      const got = await prim.arrays.adjacentDifference(u, { op: 'a * 3u + (b >> 1u)', right, inPlace, config: SMALL });
      expectSame('u32', got, adjacentDifferenceReference(Array.from(u), cpu, right), `custom u32 ${right} ${inPlace}`);
    }
    const f = data('f32', n, SEED + 12) as Float32Array;
    const got = await prim.arrays.adjacentDifference(f, { op: 'max(a, b)', right: true, config: SMALL });
    // WGSL's max with a NaN may return either operand: compare where neither is NaN.
    const want = adjacentDifferenceReference(Array.from(f), (a, b) => Math.max(a, b), true);
    const ok = Array.from(got).every((x, i) => Number.isNaN(f[i]!) || (i + 1 < n && Number.isNaN(f[i + 1]!)) || Object.is(x === 0 ? 0 : x, want[i] === 0 ? 0 : want[i]));
    expect(ok, 'custom f32 max').toBe(true);
    const big = data('u64', n, SEED + 13) as BigUint64Array;
    const gb = await prim.arrays.adjacentDifference(big, { op: 'vec2<u32>(a.x ^ b.x, a.y)', config: SMALL });
    expectSame('u64', gb, adjacentDifferenceReference(Array.from(big), (a, b) => (a & ~0xffffffffn) | ((a ^ b) & 0xffffffffn)), 'custom u64');
  });
});

describe('buffer level: in place when output is omitted; bad input is a typed error before launch', () => {
  const buffer = (bytes: number, usage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST): GPUBuffer => prim.device.createBuffer({ size: Math.max(bytes, 4), usage });

  it('writes into input when output is omitted, and into output (input untouched) otherwise', async () => {
    const n = 2 * TILE + 9;
    const d = data('i32', n, SEED + 21) as Int32Array;
    const input = buffer(4 * n);
    const output = buffer(4 * n);
    prim.device.queue.writeBuffer(input, 0, d as Int32Array<ArrayBuffer>);
    const read = async (b: GPUBuffer): Promise<Int32Array> => {
      const r = buffer(4 * n, GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST);
      const enc = prim.device.createCommandEncoder();
      enc.copyBufferToBuffer(b, 0, r, 0, 4 * n);
      prim.device.queue.submit([enc.finish()]);
      await r.mapAsync(GPUMapMode.READ);
      const out = new Int32Array(r.getMappedRange().slice(0));
      r.destroy();
      return out;
    };
    const want = adjacentDifferenceReference(Array.from(d), cpuDifference('i32') as (a: number, b: number) => number);
    let enc = prim.device.createCommandEncoder();
    await prim.adjacentDifference(enc, { input, output, count: n, type: 'i32', config: SMALL });
    prim.device.queue.submit([enc.finish()]);
    expect(Array.from(await read(output))).toEqual(want);
    expect(Array.from(await read(input))).toEqual(Array.from(d));
    enc = prim.device.createCommandEncoder();
    await prim.adjacentDifference(enc, { input, count: n, type: 'i32', config: SMALL });
    prim.device.queue.submit([enc.finish()]);
    expect(Array.from(await read(input))).toEqual(want);
  });

  it('rejects what cannot run, with the reason', async () => {
    const input = buffer(64);
    const output = buffer(64);
    const enc = (): GPUCommandEncoder => prim.device.createCommandEncoder();
    const base = { input, output, count: 16, type: 'u32' as const };
    const code = async (p: Promise<unknown>): Promise<string> => p.then(() => 'resolved', (e: unknown) => (e instanceof WgprimError ? e.code : `untyped: ${String(e)}`));
    expect(await code(prim.adjacentDifference(enc(), undefined as never))).toBe('invalid-argument');
    expect(await code(prim.adjacentDifference(enc(), { ...base, output: input }))).toBe('overlap');
    expect(await code(prim.adjacentDifference(enc(), { ...base, output: buffer(60) }))).toBe('buffer-size');
    expect(await code(prim.adjacentDifference(enc(), { ...base, input: buffer(32) }))).toBe('buffer-size');
    expect(await code(prim.adjacentDifference(enc(), { ...base, type: 'u64' }))).toBe('buffer-size');
    expect(await code(prim.adjacentDifference(enc(), { ...base, output: buffer(64, GPUBufferUsage.COPY_SRC) }))).toBe('buffer-usage');
    expect(await code(prim.adjacentDifference(enc(), { ...base, count: -1 }))).toBe('invalid-argument');
    expect(await code(prim.adjacentDifference(enc(), { ...base, count: 2 ** 32 }))).toBe('invalid-argument');
    expect(await code(prim.adjacentDifference(enc(), { ...base, count: 2 ** 31 }))).toBe('limit-exceeded');
    expect(await code(prim.adjacentDifference(enc(), { ...base, type: 'u8' as never }))).toBe('unsupported-type');
    expect(await code(prim.adjacentDifference(enc(), { ...base, op: '' }))).toBe('invalid-operator');
    expect(await code(prim.adjacentDifference(enc(), { ...base, right: 'yes' as never }))).toBe('invalid-argument');
    expect(await code(prim.adjacentDifference(enc(), { ...base, config: { itemsPerThread: 6 } }))).toBe('invalid-config');
    expect(await code(prim.arrays.adjacentDifference(new Uint16Array(4)))).toBe('unsupported-type');
    const err = await prim.adjacentDifference(enc(), { ...base, op: 'a +* b' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WgprimError);
    expect((err as WgprimError).code).toBe('invalid-operator');
    expect((err as WgprimError).message).toMatch(/did not compile/);
  });
});
