import { beforeAll, describe, expect, it } from 'vitest';
import { type BinarySearchConfig, type ElementType, type Prim, type PrimTypedArray, f16Bits, WgprimError } from '../src/index.js';
import { type Key, orderedKeys, searchReference } from '../src/device/binary-search/reference.js';
import { BUCKET_MIN_KEYS, BUCKET_MIN_NEEDLES, bucketsNeedles } from '../src/device/binary-search/search.js';
import { bucketGrid } from '../src/device/binary-search/buckets.js';
import { testPrim, typesOn } from './support/gpu.js';
import { rng, SEED } from './support/data.js';

let prim: Prim;
beforeAll(async () => {
  prim = await testPrim();
});

// Small workgroups so that several tiles of needles are reached; the cache levels cover no
// cache, a cache shallower than the search, and one deeper than small haystacks' searches.
const PATHS: readonly (readonly [string, Partial<BinarySearchConfig>])[] = [
  ['no cache, 1 needle per invocation', { workgroupSize: 64, needlesPerThread: 1, cacheLevels: 0 }],
  ['3 cached levels, 8 needles per invocation', { workgroupSize: 32, needlesPerThread: 8, cacheLevels: 3 }],
  ['10 cached levels, 2 needles per invocation', { workgroupSize: 64, needlesPerThread: 2, cacheLevels: 10 }],
];
const KINDS = ['lowerBound', 'upperBound', 'binarySearch'] as const;
const KIND_OF = { lowerBound: 'lower-bound', upperBound: 'upper-bound', binarySearch: 'binary-search' } as const;

/** Keys with many duplicates (so lower and upper bounds differ), floats with NaN of both signs, -0, +0 and infinities. */
function keys(type: ElementType, n: number, seed: number, range: number): PrimTypedArray {
  const r = rng(seed);
  const small = (): number => Math.floor(r() * range) - (range >> 1);
  const float = (): number => {
    const u = r();
    return u < 0.04 ? NaN : u < 0.08 ? -0 : u < 0.12 ? 0 : u < 0.14 ? Infinity : u < 0.16 ? -Infinity : small() / 4;
  };
  switch (type) {
    case 'u32': return Uint32Array.from({ length: n }, () => (small() * 0x01000193) >>> 0);
    case 'i32': return Int32Array.from({ length: n }, () => small() * 0x01000193 | 0);
    case 'f32': {
      const a = Float32Array.from({ length: n }, float);
      // Some NaNs negative: the total order puts them first.
      const bits = new Uint32Array(a.buffer);
      for (let i = 0; i < n; i++) if (Number.isNaN(a[i]) && r() < 0.5) bits[i] = 0xffc00000;
      return a;
    }
    case 'f16': return Uint16Array.from({ length: n }, () => {
      const v = float();
      return Number.isNaN(v) && r() < 0.5 ? 0xfe00 : f16Bits(v);
    });
    case 'u64': return BigUint64Array.from({ length: n }, () => BigInt.asUintN(64, BigInt(small()) * 0x100000001b3n));
    case 'i64': return BigInt64Array.from({ length: n }, () => BigInt.asIntN(64, BigInt(small()) * 0x100000001b3n));
  }
}

/** `data` sorted by the default order (its ordered bits). */
function sorted(type: ElementType, data: PrimTypedArray): PrimTypedArray {
  const o = orderedKeys(type, data);
  const idx = Array.from(o.keys()).sort((a, b) => (o[a]! < o[b]! ? -1 : o[a]! > o[b]! ? 1 : 0));
  const out = data.slice() as PrimTypedArray;
  // Copy bits, not values: NaN payloads and signs are kept.
  const bitsOf = (a: PrimTypedArray): { [i: number]: Key } => {
    const b = a.buffer as ArrayBuffer;
    return type === 'u64' || type === 'i64' ? new BigUint64Array(b, a.byteOffset, a.length) : type === 'f16' ? new Uint16Array(b, a.byteOffset, a.length) : new Uint32Array(b, a.byteOffset, a.length);
  };
  const src = bitsOf(data);
  const dst = bitsOf(out);
  idx.forEach((from, to) => { dst[to] = src[from]!; });
  return out;
}

async function check(type: ElementType, hay: PrimTypedArray, needles: PrimTypedArray, config: Partial<BinarySearchConfig> | undefined, kinds: readonly (typeof KINDS)[number][] = KINDS, bucketNeedles?: boolean): Promise<void> {
  const h = orderedKeys(type, hay);
  const q = orderedKeys(type, needles);
  for (const kind of kinds) {
    const got = await prim.arrays[kind](hay, needles, { type: type === 'f16' ? 'f16' : undefined, config, bucketNeedles });
    const want = searchReference(KIND_OF[kind], h, q);
    const bad = want.findIndex((w, i) => got[i] !== w);
    expect(got.length, `${kind} ${type}: length`).toBe(want.length);
    expect(bad, `${kind} ${type} (${hay.length} keys, ${needles.length} needles), needle ${bad}: ${got[bad]} vs ${want[bad]} (seed ${SEED})`).toBe(-1);
  }
}

describe('lower bound, upper bound, binary search', () => {
  it('every type: duplicates, float specials, needles below, above, between and equal to keys', async () => {
    for (const type of typesOn(prim)) {
      const hay = sorted(type, keys(type, 1000, SEED + 1, 64));
      // Needles from a wider range than the keys: below, above and between them, and equal ones.
      const needles = keys(type, 777, SEED + 2, 96);
      // A config of 2 unrolled needles: the default's 8 take lavapipe twice as long to compile for
      // every type and kind; the tests below run the default on 32-bit keys.
      await check(type, hay, needles, PATHS[2]![1]);
    }
  });

  for (const [path, config] of PATHS) {
    for (const bucketNeedles of [false, true]) {
      it(`config path: ${path}, ${bucketNeedles ? 'needles bucketed first' : 'needles as given'}, awkward sizes`, async () => {
        // Haystacks of exactly 2^levels keys (8, 256, 1024) leave the tree's leaves empty ranges;
        // bucketed, tiles of needles past one bucket's share, and buckets with no needles.
        for (const [n, m] of [[0, 5], [1, 7], [2, 3], [3, 65], [8, 40], [31, 1], [255, 257], [256, 129], [1024, 300], [4099, 1031], [20011, 2053]] as const) {
          const hay = sorted('u32', keys('u32', n, SEED + n, n > 5000 ? 1 << 20 : 40));
          const needles = keys('u32', m, SEED + m + 7, n > 5000 ? 1 << 21 : 50);
          await check('u32', hay, needles, config, KINDS, bucketNeedles);
        }
        // 64-bit and 16-bit keys through the cache.
        for (const type of typesOn(prim).filter((t) => t === 'i64' || t === 'f16')) {
          await check(type, sorted(type, keys(type, 3001, SEED + 3, 200)), keys(type, 300, SEED + 4, 240), config, ['lowerBound'], bucketNeedles);
        }
      });
    }
  }

  it('bucketed needles: every type, and the default choice (GPUs, large calls only)', async () => {
    for (const type of typesOn(prim)) {
      await check(type, sorted(type, keys(type, 5003, SEED + 11, 4096)), keys(type, 3001, SEED + 12, 5000), PATHS[2]![1], ['lowerBound', 'binarySearch'], true);
    }
    // Past 128 workgroups' sub-tiles (each bucket workgroup then takes several).
    const hay = sorted('u32', keys('u32', 70001, SEED + 13, 1 << 22));
    await check('u32', hay, keys('u32', 2 ** 17 + 3, SEED + 14, 1 << 23), undefined, ['upperBound'], true);
    expect(bucketGrid(2 ** 17 + 3, 2).subTiles).toBeGreaterThan(1);
    expect(bucketsNeedles('lowerBound', 2 ** 22, 2 ** 20, false)).toBe(true);
    expect(bucketsNeedles('lowerBound', 2 ** 22, 2 ** 20, true)).toBe(false);
    expect(bucketsNeedles('lowerBound', 2 ** 22, BUCKET_MIN_NEEDLES - 1, false)).toBe(false);
    expect(bucketsNeedles('lowerBound', BUCKET_MIN_KEYS - 1, 2 ** 20, false)).toBe(false);
    expect(bucketsNeedles('lowerBound', 10, 10, true, true)).toBe(true);
    // Not where the permutation would not fit one binding.
    expect(bucketsNeedles('lowerBound', 2 ** 22, 2 ** 20, false, undefined, 2 ** 22 - 4)).toBe(false);
  });

  it('empty needles give an empty result; an empty haystack gives 0 for every needle', async () => {
    expect(await prim.arrays.lowerBound(Uint32Array.of(1, 2, 3), new Uint32Array(0))).toEqual(new Uint32Array(0));
    expect(Array.from(await prim.arrays.upperBound(new Float32Array(0), Float32Array.of(1, NaN, -Infinity)))).toEqual([0, 0, 0]);
    expect(Array.from(await prim.arrays.binarySearch(new Int32Array(0), Int32Array.of(0)))).toEqual([0]);
  });

  it('lower and upper bound of duplicates, and found flags', async () => {
    const hay = Uint32Array.of(1, 3, 3, 3, 7, 9, 9);
    const needles = Uint32Array.of(0, 1, 2, 3, 4, 7, 8, 9, 10);
    expect(Array.from(await prim.arrays.lowerBound(hay, needles))).toEqual([0, 0, 1, 1, 4, 4, 5, 5, 7]);
    expect(Array.from(await prim.arrays.upperBound(hay, needles))).toEqual([0, 1, 1, 4, 4, 5, 5, 7, 7]);
    expect(Array.from(await prim.arrays.binarySearch(hay, needles))).toEqual([0, 1, 0, 1, 0, 1, 0, 1, 0]);
  });

  it('the float total order: -NaN < -inf < -0 < +0 < +inf < NaN', async () => {
    const bits = Uint32Array.of(0xffc00000, 0xff800000, 0x80000000, 0x00000000, 0x3f800000, 0x7f800000, 0x7fc00000);
    const hay = new Float32Array(bits.buffer);
    expect(Array.from(await prim.arrays.lowerBound(hay, hay))).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(Array.from(await prim.arrays.upperBound(hay, Float32Array.of(-0, 0, 0.5)))).toEqual([3, 4, 4]);
  });

  it('a custom less: descending keys, and a comparison of the upper 16 bits only', async () => {
    const desc = Int32Array.of(9, 7, 7, 3, 0, -2, -2, -5);
    const needles = Int32Array.of(10, 9, 8, 7, 1, -2, -6);
    const gt = (a: Key, b: Key): boolean => a > b;
    expect(Array.from(await prim.arrays.lowerBound(desc, needles, { less: 'a > b', config: PATHS[1]![1] }))).toEqual(Array.from(searchReference('lower-bound', Array.from(desc), Array.from(needles), gt)));
    expect(Array.from(await prim.arrays.upperBound(desc, needles, { less: 'a > b' }))).toEqual(Array.from(searchReference('upper-bound', Array.from(desc), Array.from(needles), gt)));
    expect(Array.from(await prim.arrays.upperBound(desc, needles, { less: 'a > b', bucketNeedles: true }))).toEqual(Array.from(searchReference('upper-bound', Array.from(desc), Array.from(needles), gt)));
    const r = rng(SEED + 9);
    const hay = Uint32Array.from({ length: 500 }, () => (r() * 2 ** 32) >>> 0).sort((a, b) => (a >>> 16) - (b >>> 16));
    const q = Uint32Array.from({ length: 300 }, (_, i) => (i % 2 ? hay[(i * 7) % 500]! ^ 0xffff : (r() * 2 ** 32) >>> 0));
    const hi16 = (a: Key, b: Key): boolean => (Number(a) >>> 16) < (Number(b) >>> 16);
    for (const kind of KINDS) {
      const got = await prim.arrays[kind](hay, q, { less: '(a >> 16u) < (b >> 16u)', config: PATHS[2]![1], bucketNeedles: kind !== 'lowerBound' });
      expect(Array.from(got), kind).toEqual(Array.from(searchReference(KIND_OF[kind], Array.from(hay), Array.from(q), hi16)));
    }
    // 64-bit keys are vec2<u32> (low word first): u64_lt is in scope.
    const big = BigUint64Array.of(1n, 5n, 1n << 40n, (1n << 40n) + 1n);
    expect(Array.from(await prim.arrays.lowerBound(big, BigUint64Array.of(0n, 5n, 1n << 40n, 1n << 41n), { less: 'u64_lt(a, b)' }))).toEqual([0, 1, 2, 4]);
  });

  it('typed errors before launch', async () => {
    const code = async (p: Promise<unknown>): Promise<string> => p.then(() => 'ok', (e: unknown) => (e instanceof WgprimError ? e.code : String(e)));
    const hay = Uint32Array.of(1, 2, 3);
    expect(await code(prim.arrays.lowerBound(hay, hay, { less: 'a <<< b' }))).toBe('invalid-operator');
    expect(await code(prim.arrays.lowerBound(hay, hay, { less: '' }))).toBe('invalid-operator');
    expect(await code(prim.arrays.lowerBound(hay, Int32Array.of(1)))).toBe('unsupported-type');
    expect(await code(prim.arrays.lowerBound(hay, hay, { config: { needlesPerThread: 0 } }))).toBe('invalid-config');
    expect(await code(prim.arrays.lowerBound(hay, hay, { config: { cacheLevels: 16 } }))).toBe('invalid-config');
    expect(await code(prim.arrays.lowerBound([1, 2] as unknown as Uint32Array, hay))).toBe('unsupported-type');
    const storage = GPUBufferUsage.STORAGE;
    const buf = (bytes: number, usage = storage): GPUBuffer => prim.device.createBuffer({ size: bytes, usage });
    const enc = prim.device.createCommandEncoder();
    const a = buf(16);
    const args = { haystack: a, haystackCount: 4, needles: buf(16), needlesCount: 4, output: buf(16), type: 'u32' as const };
    expect(await code(prim.lowerBound(enc, { ...args, output: a }))).toBe('overlap');
    expect(await code(prim.upperBound(enc, { ...args, output: buf(8) }))).toBe('buffer-size');
    expect(await code(prim.binarySearch(enc, { ...args, haystackCount: 5 }))).toBe('buffer-size');
    expect(await code(prim.lowerBound(enc, { ...args, needles: buf(16, GPUBufferUsage.UNIFORM) }))).toBe('buffer-usage');
    expect(await code(prim.lowerBound(enc, { ...args, needlesCount: -1 }))).toBe('invalid-argument');
    expect(await code(prim.lowerBound(enc, { ...args, type: 'u8' as ElementType }))).toBe('unsupported-type');
    expect(await code(prim.lowerBound(enc, undefined as never))).toBe('invalid-argument');
    expect(await code(prim.lowerBound(enc, { ...args, bucketNeedles: 'yes' as never }))).toBe('invalid-argument');
  });
});
