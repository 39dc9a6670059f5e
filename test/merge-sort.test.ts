import { beforeAll, describe, expect, it } from 'vitest';
import { type ElementType, type MergeConfig, type Prim, type PrimTypedArray, WgprimError } from '../src/index.js';
import { type CpuLess, gatherMerged, mergeOrder, mergeSortOrder } from '../src/device/merge-sort/reference.js';
import { testPrim, typesOn } from './support/gpu.js';
import { rng, SEED } from './support/data.js';
import { sweepOr, sweepTimeout } from './support/sweep.js';

let prim: Prim;
beforeAll(async () => {
  prim = await testPrim();
});

// Small tiles so that lavapipe reaches many tiles and merge passes quickly: a power-of-two tile
// (64 x 4) and an odd one (32 x 3 = 96 keys, merge tiles of 32 x 5 = 160).
const PATHS: readonly (readonly [string, { blockSortConfig: MergeConfig; config: MergeConfig }])[] = [
  ['tiles of 64 x 4, merge tiles of 64 x 4', { blockSortConfig: { workgroupSize: 64, itemsPerThread: 4 }, config: { workgroupSize: 64, itemsPerThread: 4 } }],
  ['tiles of 32 x 3, merge tiles of 32 x 5', { blockSortConfig: { workgroupSize: 32, itemsPerThread: 3 }, config: { workgroupSize: 32, itemsPerThread: 5 } }],
];
const TILE = 256;
// 0, 1, tile boundaries +- 1, a prime of ~31 tiles (5 merge passes).
const SIZES = [0, 1, 2, TILE - 1, TILE, TILE + 1, 2 * TILE + 1, 7919];

type Elem = number | bigint;
type KeyArray = Uint32Array | Int32Array | Float32Array | Uint16Array | BigUint64Array | BigInt64Array;

/** Raw bits of a key array (NaN signs and payloads kept). */
function bits(a: KeyArray): Uint32Array | Uint16Array | BigUint64Array {
  if (a instanceof Uint16Array) return a;
  if (a instanceof BigUint64Array || a instanceof BigInt64Array) return new BigUint64Array(a.buffer, a.byteOffset, a.length);
  return new Uint32Array(a.buffer, a.byteOffset, a.length);
}

function expectBits(got: KeyArray, want: ArrayLike<Elem>, what: string): void {
  const g = Array.from(bits(got) as ArrayLike<Elem>);
  expect(g.length, `${what}: length`).toBe(want.length);
  const bad = g.findIndex((x, i) => x !== want[i]);
  expect(bad, `${what}: first mismatch at ${bad}: ${String(g[bad])} vs ${String(want[bad])}`).toBe(-1);
}

/** `data` gathered by `order`, as raw bits. */
const gatherBits = (data: KeyArray, order: ArrayLike<number>): Elem[] => {
  const b = bits(data) as ArrayLike<Elem>;
  return Array.from(order, (i) => b[i]!);
};

// Float specials: -NaN, -inf, -0, +0, +inf, NaN (as bits), mixed with a few small values.
const F32_SPECIALS = [0xffc00000, 0xff800000, 0x80000000, 0, 0x7f800000, 0x7fc00000, 0x3f800000, 0xbf800000];
const F16_SPECIALS = [0xfe00, 0xfc00, 0x8000, 0, 0x7c00, 0x7e00, 0x3c00, 0xbc00];

/** Random keys of a type, with many duplicates and (floats) every special. */
function keysOf(type: ElementType, n: number, seed: number): PrimTypedArray {
  const r = rng(seed);
  const word = (): number => (r() < 0.3 ? Math.floor(r() * 8) : (r() * 2 ** 32) >>> 0);
  switch (type) {
    case 'u32': return Uint32Array.from({ length: n }, word);
    case 'i32': return Int32Array.from({ length: n }, () => word() | 0);
    case 'f32': return new Float32Array(Uint32Array.from({ length: n }, () => (r() < 0.4 ? F32_SPECIALS[Math.floor(r() * 8)]! : word())).buffer);
    case 'f16': return Uint16Array.from({ length: n }, () => (r() < 0.4 ? F16_SPECIALS[Math.floor(r() * 8)]! : word() & 0xffff));
    case 'u64': return BigUint64Array.from({ length: n }, () => (BigInt(word()) << 32n) | BigInt(word()));
    case 'i64': return BigInt64Array.from({ length: n }, () => BigInt.asIntN(64, (BigInt(word()) << 32n) | BigInt(word())));
  }
}

describe('merge sort keys: every type (floats in the total order), both paths, awkward sizes', () => {
  PATHS.forEach(([path, config], p) => {
    it(path, async () => {
      // Every type on the first path; one per width on the second (all under the sweep).
      for (const type of p === 0 ? typesOn(prim) : sweepOr(typesOn(prim), typesOn(prim).filter((t) => t === 'f32' || t === 'f16' || t === 'u64'))) {
        for (const n of SIZES) {
          const keys = keysOf(type, n, SEED + n);
          const got = await prim.arrays.mergeSortKeys(keys, { ...config, type });
          expectBits(got as KeyArray, gatherBits(keys, mergeSortOrder(type, keys)), `${type} n=${n} (${path}, seed ${SEED + n})`);
        }
      }
    }, sweepTimeout);
  });
  it('agrees with the radix sort (f32 with every special)', async () => {
    const keys = keysOf('f32', 3001, SEED) as Float32Array;
    const [m, r] = [await prim.arrays.mergeSortKeys(keys, PATHS[0]![1]), await prim.arrays.radixSortKeys(keys)];
    expectBits(m, Array.from(bits(r) as ArrayLike<Elem>), 'merge sort vs radix sort');
  });
  it('sorted, reversed and constant inputs: every merge tile\'s bounds at its runs\' ends', async () => {
    // Sorted: each pair's B follows all of A; reversed: B precedes A; constant: ties, A first.
    // 7919 u32 keys (a prime: the last pair short, no count a multiple of a tile) and an odd
    // count of f16 keys (a half word at the end).
    for (const [path, config] of PATHS) {
      for (const [type, n] of ([['u32', 7919], ['f16', 2 * TILE + 3]] as const).filter(([t]) => typesOn(prim).includes(t))) {
        const keys = keysOf(type, n, SEED + 11);
        const b = Array.from(bits(keys) as ArrayLike<Elem>);
        const sorted = gatherBits(keys, mergeSortOrder(type, keys));
        const make = (raw: Elem[]): KeyArray => (type === 'f16' ? Uint16Array.from(raw as number[]) : Uint32Array.from(raw as number[]));
        for (const [what, input] of [['sorted', make(sorted)], ['reversed', make([...sorted].reverse())], ['constant', make(b.map(() => b[0]!))]] as const) {
          const got = await prim.arrays.mergeSortKeys(input as PrimTypedArray, { ...config, type });
          expectBits(got as KeyArray, gatherBits(input, mergeSortOrder(type, input)), `${type} ${what} n=${n} (${path})`);
        }
      }
    }
  });
  it('the heuristic configs (3 tiles of 4096 at most, 2 merge passes)', async () => {
    const keys = keysOf('u32', 9001, SEED);
    expectBits(await prim.arrays.mergeSortKeys(keys), gatherBits(keys, mergeSortOrder('u32', keys)), 'heuristic');
  });
});

// Ordering by the top 4 bits only: many ties, so the values (input indices) show stability.
const BY_TOP: readonly [string, CpuLess] = ['(a >> 28u) < (b >> 28u)', (a, b) => (Number(a) >>> 28) < (Number(b) >>> 28)];

describe('merge sort pairs: stable, values of 4 and 8 bytes, custom less', () => {
  for (const [path, config] of sweepOr(PATHS, [PATHS[1]!])) {
    it(`${path}: u32 keys by their top bits, values = indices (4 and 8 bytes)`, async () => {
      for (const n of [1, TILE + 1, 7919]) {
        const keys = keysOf('u32', n, SEED + n) as Uint32Array;
        const order = mergeSortOrder('u32', keys, BY_TOP[1]);
        const idx = Uint32Array.from({ length: n }, (_, i) => i);
        const r4 = await prim.arrays.mergeSortPairs(keys, idx, { ...config, less: BY_TOP[0] });
        expect(Array.from(r4.values), `4-byte values n=${n}`).toEqual(Array.from(order));
        expectBits(r4.keys, gatherBits(keys, order), `keys n=${n}`);
        const idx8 = BigUint64Array.from({ length: n }, (_, i) => BigInt(i) | (BigInt(i) << 40n));
        const r8 = await prim.arrays.mergeSortPairs(keys, idx8, { ...config, less: BY_TOP[0] });
        expect(Array.from(r8.values), `8-byte values n=${n}`).toEqual(Array.from(order, (i) => BigInt(i) | (BigInt(i) << 40n)));
      }
    });
  }
  it('default order with values: f32 specials and i64, stable', async () => {
    for (const type of sweepOr(['f32', 'i64', 'f16'] as const, ['f32'])) {
      if (!typesOn(prim).includes(type)) continue;
      const n = 1001;
      const keys = keysOf(type, n, SEED);
      const idx = Uint32Array.from({ length: n }, (_, i) => i);
      const r = await prim.arrays.mergeSortPairs(keys, idx, { ...PATHS[1]![1], type });
      expect(Array.from(r.values), type).toEqual(Array.from(mergeSortOrder(type, keys)));
    }
  });
  it('custom less over each type: descending (f32, f16, i32), by the high word (u64, i64)', async () => {
    const cases: readonly [ElementType, string, CpuLess][] = [
      ['f32', 'a > b', (a, b) => (a as number) > (b as number)],
      ['i32', 'a > b', (a, b) => (a as number) > (b as number)],
      ['f16', 'a > b', (a, b) => f16(a as number) > f16(b as number)],
      ['u64', 'a.y < b.y', (a, b) => BigInt.asUintN(64, a as bigint) >> 32n < BigInt.asUintN(64, b as bigint) >> 32n],
      ['i64', 'bitcast<i32>(a.y) > bitcast<i32>(b.y)', (a, b) => (a as bigint) >> 32n > (b as bigint) >> 32n],
    ];
    for (const [type, less, cpu] of sweepOr(cases, cases.filter(([t]) => t === 'f32' || t === 'f16' || t === 'i64'))) {
      if (!typesOn(prim).includes(type)) continue;
      // No NaN: `a > b` is not a strict weak order with NaN.
      const keys = keysOf(type === 'f32' || type === 'f16' ? 'i32' : type, 2 * TILE + 3, SEED + 7);
      const data = type === 'f32' ? Float32Array.from(keys as Int32Array, (x) => x % 9) : type === 'f16' ? Uint16Array.from(keys as Int32Array, (x) => F16_SPECIALS[Math.abs(x) % 8]! === 0x7e00 || F16_SPECIALS[Math.abs(x) % 8]! === 0xfe00 ? 0x4000 : F16_SPECIALS[Math.abs(x) % 8]!) : keys;
      const idx = Uint32Array.from({ length: data.length }, (_, i) => i);
      const r = await prim.arrays.mergeSortPairs(data, idx, { ...PATHS[0]![1], less, type });
      expect(Array.from(r.values), `${type} ${less}`).toEqual(Array.from(mergeSortOrder(type, data, cpu)));
    }
  });
});

/** f16 bits to a number (finite values and infinities only). */
function f16(h: number): number {
  const s = h & 0x8000 ? -1 : 1;
  const e = (h >> 10) & 31;
  const m = h & 1023;
  if (e === 31) return s * Infinity;
  return s * (e === 0 ? m / 1024 * 2 ** -14 : (1 + m / 1024) * 2 ** (e - 15));
}

describe('merge sort: buffer level', () => {
  it('in place, to keysOut (input untouched), pairs in place and not', async () => {
    const device = prim.context.device;
    const n = 3 * TILE + 17;
    const keys = keysOf('u32', n, SEED + 3) as Uint32Array;
    const want = gatherBits(keys, mergeSortOrder('u32', keys));
    const usage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST;
    const make = (data: Uint32Array): GPUBuffer => {
      const b = device.createBuffer({ size: data.byteLength, usage });
      device.queue.writeBuffer(b, 0, data as Uint32Array<ArrayBuffer>);
      return b;
    };
    const read = async (b: GPUBuffer): Promise<Uint32Array> => {
      const staging = device.createBuffer({ size: b.size, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
      const enc = device.createCommandEncoder();
      enc.copyBufferToBuffer(b, 0, staging, 0, b.size);
      device.queue.submit([enc.finish()]);
      await staging.mapAsync(GPUMapMode.READ);
      const out = new Uint32Array(staging.getMappedRange().slice(0));
      staging.destroy();
      return out;
    };
    const { blockSortConfig, config } = PATHS[0]![1];
    const run = async (record: (enc: GPUCommandEncoder) => Promise<void>): Promise<void> => {
      const enc = device.createCommandEncoder();
      await record(enc);
      device.queue.submit([enc.finish()]);
    };
    const inPlace = make(keys);
    await run((enc) => prim.mergeSortKeys(enc, { keys: inPlace, count: n, type: 'u32', config, blockSortConfig }));
    expectBits(await read(inPlace), want, 'in place');
    const src = make(keys);
    const out = device.createBuffer({ size: keys.byteLength, usage });
    await run((enc) => prim.mergeSortKeys(enc, { keys: src, keysOut: out, count: n, type: 'u32', config, blockSortConfig }));
    expectBits(await read(out), want, 'keysOut');
    expectBits(await read(src), Array.from(keys), 'the input untouched');
    const idx = Uint32Array.from({ length: n }, (_, i) => i);
    const [k2, v2, vOut] = [make(keys), make(idx), device.createBuffer({ size: idx.byteLength, usage })];
    await run((enc) => prim.mergeSortPairs(enc, { keys: k2, values: v2, valuesOut: vOut, count: n, type: 'u32', valueBytes: 4, config, blockSortConfig }));
    expectBits(await read(k2), want, 'pairs: keys in place');
    expect(Array.from(await read(vOut)), 'pairs: valuesOut').toEqual(Array.from(mergeSortOrder('u32', keys)));
    expect(Array.from(await read(v2)), 'pairs: values untouched').toEqual(Array.from(idx));
    for (const b of [inPlace, src, out, k2, v2, vOut]) b.destroy();
  });

  it('typed errors before launch', async () => {
    const device = prim.context.device;
    const usage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST;
    const small = device.createBuffer({ size: 16, usage });
    const big = device.createBuffer({ size: 4096, usage });
    const enc = device.createCommandEncoder();
    const code = async (p: Promise<unknown>): Promise<string> => p.then(() => 'ok', (e: unknown) => (e instanceof WgprimError ? e.code : `untyped: ${String(e)}`));
    expect(await code(prim.mergeSortKeys(enc, { keys: small, count: 100, type: 'u32' }))).toBe('buffer-size');
    expect(await code(prim.mergeSortKeys(enc, { keys: big, keysOut: small, count: 100, type: 'u32' }))).toBe('buffer-size');
    expect(await code(prim.mergeSortKeys(enc, { keys: big, count: 100, type: 'u32', less: 'a <<< b' }))).toBe('invalid-operator');
    expect(await code(prim.mergeSortKeys(enc, { keys: big, count: 100, type: 'u32', less: '' }))).toBe('invalid-operator');
    expect(await code(prim.mergeSortPairs(enc, { keys: big, values: big, count: 100, type: 'u32', valueBytes: 4 }))).toBe('overlap');
    expect(await code(prim.mergeSortPairs(enc, { keys: big, values: small, valuesOut: big, count: 2, type: 'u32', valueBytes: 4 }))).toBe('overlap');
    expect(await code(prim.mergeSortPairs(enc, { keys: big, values: small, count: 2, type: 'u32', valueBytes: 3 as 4 }))).toBe('invalid-argument');
    expect(await code(prim.mergeSortKeys(enc, { keys: big, count: 100, type: 'u32', config: { workgroupSize: 48, itemsPerThread: 4 } }))).toBe('invalid-config');
    expect(await code(prim.mergeSortKeys(enc, { keys: big, count: 100, type: 'u32', blockSortConfig: { itemsPerThread: 0 } }))).toBe('invalid-config');
    expect(await code(prim.arrays.mergeSortKeys(new Uint16Array(4)))).toBe('unsupported-type');
    expect(await code(prim.merge(enc, { a: big, b: big, output: big, countA: 4, countB: 4, type: 'u32' }))).toBe('overlap');
    expect(await code(prim.merge(enc, { a: big, b: big, output: small, countA: 4, countB: 4, type: 'u32' }))).toBe('buffer-size');
    expect(await code(prim.merge(enc, { a: big, b: small, output: big, countA: 4, countB: 4, type: 'u32', less: 'a < ' }))).toBe('overlap');
    const out = device.createBuffer({ size: 64, usage });
    expect(await code(prim.merge(enc, { a: big, b: big, output: out, countA: 4, countB: 4, type: 'u32', less: 'a < ' }))).toBe('invalid-operator');
    expect(await code(prim.mergePairs(enc, { a: big, b: big, aValues: small, bValues: small, output: out, valuesOut: out, countA: 2, countB: 2, type: 'u32', valueBytes: 4 }))).toBe('overlap');
    for (const b of [small, big, out]) b.destroy();
  });
});

describe('merge', () => {
  const sorted = (type: ElementType, n: number, seed: number, less?: CpuLess): KeyArray => {
    const k = keysOf(type, n, seed);
    const order = mergeSortOrder(type, k, less);
    const b = bits(k) as ArrayLike<Elem>;
    const raw = type === 'f16' ? Uint16Array.from(order, (i) => b[i] as number) : type === 'u64' || type === 'i64' ? BigUint64Array.from(order, (i) => b[i] as bigint) : Uint32Array.from(order, (i) => b[i] as number);
    const C = k.constructor as new (buf: ArrayBuffer, o: number, n: number) => KeyArray;
    return new C(raw.buffer, 0, n);
  };
  it('every type, empty inputs, unequal lengths, several tiles', async () => {
    const config = { workgroupSize: 32, itemsPerThread: 5 };
    for (const type of typesOn(prim)) {
      for (const [na, nb] of [[0, 0], [0, 7], [9, 0], [1, 1], [300, 5], [5, 301], [1009, 997]] as const) {
        const a = sorted(type, na, SEED + na);
        const b = sorted(type, nb, SEED + 2 * nb + 1);
        const got = await prim.arrays.merge(a as PrimTypedArray, b as PrimTypedArray, { type, config });
        const order = mergeOrder(type, a, b);
        expectBits(got as KeyArray, Array.from(order, (s) => (s < na ? (bits(a) as ArrayLike<Elem>)[s]! : (bits(b) as ArrayLike<Elem>)[s - na]!)), `${type} ${na}+${nb}`);
      }
    }
  });
  it('inputs that do not interleave: every tile\'s bounds at the end of a or b', async () => {
    // All of a before b, all of b before a, and all keys equal (a first), over several merge
    // tiles of 160 (a tile of a exactly 480, its last key on a tile boundary) and of 256 (64 x 4).
    for (const config of [{ workgroupSize: 32, itemsPerThread: 5 }, { workgroupSize: 64, itemsPerThread: 4 }]) {
      for (const type of (['u32', 'f16'] as const).filter((t) => typesOn(prim).includes(t))) {
        for (const [na, nb] of [[1009, 997], [480, 161], [7, 800]] as const) {
          const low = sorted(type, na + nb, SEED + na);
          const u = low as Uint32Array;
          const same = u.slice().fill(u[0]!);
          for (const [what, a, b] of [['a below b', u.slice(0, na), u.slice(na)], ['b below a', u.slice(nb), u.slice(0, nb)], ['equal', same.slice(0, na), same.slice(na)]] as const) {
            const got = await prim.arrays.merge(a as PrimTypedArray, b as PrimTypedArray, { type, config });
            const order = mergeOrder(type, a, b);
            expectBits(got as KeyArray, Array.from(order, (s) => (s < a.length ? (bits(a) as ArrayLike<Elem>)[s]! : (bits(b) as ArrayLike<Elem>)[s - a.length]!)), `${type} ${what} ${na}+${nb} (${config.workgroupSize} x ${config.itemsPerThread})`);
          }
        }
      }
    }
  });
  it('pairs: ties take a first (values of 4 and 8 bytes), custom less', async () => {
    const [na, nb] = [700, 333];
    const a = sorted('u32', na, SEED, BY_TOP[1]) as Uint32Array;
    const b = sorted('u32', nb, SEED + 1, BY_TOP[1]) as Uint32Array;
    const av = Uint32Array.from({ length: na }, (_, i) => i);
    const bv = Uint32Array.from({ length: nb }, (_, i) => na + i);
    const order = mergeOrder('u32', a, b, BY_TOP[1]);
    const r = await prim.arrays.mergePairs(a, av, b, bv, { less: BY_TOP[0], config: { workgroupSize: 64, itemsPerThread: 4 } });
    expect(Array.from(r.values)).toEqual(Array.from(order));
    expect(Array.from(r.keys)).toEqual(Array.from(gatherMerged(a, b, order)));
    const r8 = await prim.arrays.mergePairs(a, BigInt64Array.from(av, BigInt), b, BigInt64Array.from(bv, BigInt), { less: BY_TOP[0] });
    expect(Array.from(r8.values)).toEqual(Array.from(order, BigInt));
  });
});
