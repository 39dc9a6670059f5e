import { beforeAll, describe, expect, it } from 'vitest';
import { createPrim, type ElementType, type Prim, type PrimTypedArray, type SelectConfig, f16Bits, f16Value, WgprimError } from '../src/index.js';
import { partitionReference, selectReference, threeWayReference, uniqueIndices } from '../src/device/select/reference.js';
import { testPrim, typesOn } from './support/gpu.js';
import { rng, SEED } from './support/data.js';

let prim: Prim;
beforeAll(async () => {
  prim = await testPrim();
});

// Small tiles (64 x 4 = 256 elements) so that tile boundaries, many tiles and the look-back's
// windows are reached at sizes lavapipe runs quickly; each path compiles once per case.
const PATHS: readonly (readonly [string, Partial<SelectConfig>])[] = [
  ['decoupled look-back, subgroup scan, direct scatter', { workgroupSize: 64, itemsPerThread: 4, lookback: 'decoupled', workgroupScan: 'subgroup', scatter: 'direct' }],
  ['reduce-then-scan, workgroup-memory scan, staged scatter', { workgroupSize: 64, itemsPerThread: 8, lookback: 'reduce-then-scan', workgroupScan: 'shared', scatter: 'staged' }],
  // 20 rows a subgroup: flags packed in two words (16 an element pair of bits each).
  ['decoupled look-back, striped rows ranked by ballot', { workgroupSize: 32, itemsPerThread: 20, lookback: 'decoupled', workgroupScan: 'subgroup', scatter: 'striped' }],
  // Two rounds a subgroup, each staged and copied out on its own, after either look-back.
  ['decoupled look-back, round-staged scatter', { workgroupSize: 32, itemsPerThread: 8, lookback: 'decoupled', workgroupScan: 'subgroup', scatter: 'rounds' }],
  ['reduce-then-scan, round-staged scatter', { workgroupSize: 32, itemsPerThread: 8, lookback: 'reduce-then-scan', workgroupScan: 'subgroup', scatter: 'rounds' }],
];
const TILE = 256;
const SIZES = [0, 1, 2, 3, TILE - 1, TILE, TILE + 1, 2 * TILE - 1, 2 * TILE + 1, 7919, 33 * TILE + 5];

type Elem = number | bigint;
/** Plain values of a result (f16 bits as numbers) for comparison. */
const plain = (type: ElementType, a: ArrayLike<Elem>): Elem[] => Array.from(a, (x) => (type === 'f16' ? f16Value(x as number) : x));
/** Same values, NaN equal to NaN and -0 apart from +0 (Object.is). */
function expectSame(type: ElementType, got: ArrayLike<Elem>, want: ArrayLike<Elem>, what: string): void {
  const g = plain(type, got);
  const w = plain(type, want);
  expect(g.length, `${what}: length`).toBe(w.length);
  const bad = g.findIndex((x, i) => !Object.is(x, w[i]));
  expect(bad, `${what}: first mismatch at ${bad}: ${String(g[bad])} vs ${String(w[bad])}`).toBe(-1);
}

/** Random data of a type with small values (so predicates split it), floats with NaN, -0 and +0 mixed in. */
function data(type: ElementType, n: number, seed: number): PrimTypedArray {
  const r = rng(seed);
  const small = (): number => Math.floor(r() * 16) - 8;
  const float = (): number => {
    const u = r();
    return u < 0.05 ? NaN : u < 0.1 ? -0 : u < 0.15 ? 0 : small() / 4;
  };
  switch (type) {
    case 'u32': return Uint32Array.from({ length: n }, () => (r() * 2 ** 32) >>> 0);
    case 'i32': return Int32Array.from({ length: n }, () => (r() * 2 ** 32) | 0);
    case 'f32': return Float32Array.from({ length: n }, float);
    case 'f16': return Uint16Array.from({ length: n }, () => f16Bits(float()));
    case 'u64': return BigUint64Array.from({ length: n }, () => (BigInt((r() * 2 ** 32) >>> 0) << 32n) | BigInt((r() * 2 ** 32) >>> 0));
    case 'i64': return BigInt64Array.from({ length: n }, () => BigInt.asIntN(64, (BigInt((r() * 2 ** 32) >>> 0) << 32n) | BigInt((r() * 2 ** 32) >>> 0)));
  }
}

/** A predicate per type, in WGSL and on the CPU; about half of `data` passes. */
const PREDICATES: Record<ElementType, readonly [string, (x: Elem) => boolean]> = {
  u32: ['(a & 1u) == 1u', (x) => ((x as number) & 1) === 1],
  i32: ['a < 0i', (x) => (x as number) < 0],
  f32: ['a > 0.0', (x) => (x as number) > 0],
  f16: ['a > 0.0h', (x) => f16Value(x as number) > 0],
  u64: ['(a.y & 1u) == 1u', (x) => ((x as bigint) >> 32n) % 2n === 1n],
  i64: ['(a.x & 3u) == 0u', (x) => BigInt.asUintN(64, x as bigint) % 4n === 0n],
};

describe('select by predicate: every type, both paths, every awkward size', () => {
  for (const [path, config] of PATHS) {
    it(path, async () => {
      for (const type of typesOn(prim)) {
        const [predicate, cpu] = PREDICATES[type];
        for (const n of SIZES) {
          const d = data(type, n, SEED + n);
          const got = await prim.arrays.select(d, { predicate, config, type });
          expectSame(type, got, selectReference(d as ArrayLike<Elem>, cpu), `select ${type} n=${n} (${path}, seed ${SEED + n})`);
        }
      }
    });
  }
});

describe('selection rates and stretches', () => {
  for (const [path, config] of PATHS) {
    it(`0%, 100%, long stretches, and tiles selecting about a workgroup's worth: ${path}`, async () => {
      const n = 20 * TILE + 3;
      const d = Uint32Array.from({ length: n }, (_, i) => Math.floor(i / 700) % 2);
      expect(Array.from(await prim.arrays.select(d, { predicate: 'false', config }))).toEqual([]);
      expectSame('u32', await prim.arrays.select(d, { predicate: 'true', config }), d, 'all selected');
      expectSame('u32', await prim.arrays.select(d, { predicate: 'a == 1u', config }), selectReference(d, (x) => x === 1), 'stretches');
      const p = await prim.arrays.partition(d, { predicate: 'a == 1u', config });
      const want = partitionReference(d, (x) => x === 1);
      expect(p.selectedCount).toBe(want.selectedCount);
      expectSame('u32', p.output, want.output, 'partition stretches');
      // The staged scatter writes a tile directly when it selects no more than its invocations:
      // tiles (of this path's size) selecting 0, 1, and WG - 1 to WG + 1 of their elements.
      const tile = config.workgroupSize! * config.itemsPerThread!;
      const wg = config.workgroupSize!;
      const per = [0, 1, wg - 1, wg, wg + 1, tile - 1, tile];
      const m = per.length * tile + 5;
      const v = Uint32Array.from({ length: m }, (_, i) => (i % tile < per[Math.floor(i / tile) % per.length]! ? 2 * i + 1 : 2 * i));
      expectSame('u32', await prim.arrays.select(v, { predicate: '(a & 1u) == 1u', config }), selectReference(v, (x) => (x & 1) === 1), 'about a workgroup selected');
      const vals = Int32Array.from({ length: m }, (_, i) => -i);
      const runs = Uint32Array.from(v, (x, i) => ((x & 1) === 1 ? i : i - (i % 64)));
      const kv = await prim.arrays.uniqueByKey(runs, vals, { config });
      const idx = uniqueIndices(runs, (a, b) => a === b);
      expectSame('u32', kv.keys, idx.map((i) => runs[i]!), 'unique by key, about a workgroup unique');
      expect(Array.from(kv.values)).toEqual(idx.map((i) => vals[i]!));
    });
  }
});

describe('flags, partitions, three-way, unique and unique by key', () => {
  for (const [path, config] of PATHS) {
    it(`byte flags (Uint8Array) and u32 flags (Uint32Array), plain and predicated: ${path}`, async () => {
      for (const n of SIZES) {
        const d = data('u32', n, SEED + 1 + n) as Uint32Array;
        // Byte values up to 200, so a byte read from the wrong place of its word shows.
        const f8 = Uint8Array.from({ length: n }, (_, i) => (d[i]! % 3 === 0 ? 1 + (i % 200) : 0));
        const keep = (_: Elem, i: number): boolean => f8[i] !== 0;
        const f32 = Uint32Array.from(f8, (x) => x * 7);
        for (const [width, flags, over] of [['bytes', f8, 100], ['u32', f32, 700]] as const) {
          const what = `${width} flags n=${n}`;
          expectSame('u32', await prim.arrays.select(d, { flags, config }), selectReference(d, keep), `select, ${what}`);
          expectSame('u32', await prim.arrays.select(d, { flags, predicate: `a > ${over}u`, config }), selectReference(d, (_, i) => flags[i]! > over), `predicated, ${what}`);
          const two = await prim.arrays.partitionTwoWay(d, { flags, config });
          expectSame('u32', two.selected, selectReference(d, keep), `two-way selected, ${what}`);
          expectSame('u32', two.rejected, selectReference(d, (x, i) => !keep(x, i)), `two-way rejected, ${what}`);
          const p = await prim.arrays.partition(d, { flags, config });
          const want = partitionReference(d, keep);
          expect(p.selectedCount, `partition count, ${what}`).toBe(want.selectedCount);
          expectSame('u32', p.output, want.output, `partition, ${what}`);
        }
      }
    });

    it(`partition and two-way by predicate, three-way by two: ${path}`, async () => {
      for (const n of SIZES) {
        const d = data('i32', n, SEED + 2 + n);
        const neg = (x: Elem): boolean => (x as number) < 0;
        const p = await prim.arrays.partition(d, { predicate: 'a < 0i', config });
        const want = partitionReference(d as ArrayLike<Elem>, neg);
        expect(p.selectedCount).toBe(want.selectedCount);
        expectSame('i32', p.output, want.output, `partition n=${n}`);
        const two = await prim.arrays.partitionTwoWay(d, { predicate: 'a < 0i', config });
        expectSame('i32', two.selected, selectReference(d as ArrayLike<Elem>, neg), `two-way n=${n}`);
        expectSame('i32', two.rejected, selectReference(d as ArrayLike<Elem>, (x) => !neg(x)), `two-way rejected n=${n}`);
        const three = await prim.arrays.partitionThreeWay(d, { firstPredicate: 'a % 3i == 0i', secondPredicate: 'a % 3i == 1i', config });
        const w3 = threeWayReference(d as ArrayLike<Elem>, (x) => (x as number) % 3 === 0, (x) => (x as number) % 3 === 1);
        expectSame('i32', three.first, w3.first, `three-way first n=${n}`);
        expectSame('i32', three.second, w3.second, `three-way second n=${n}`);
        expectSame('i32', three.unselected, w3.unselected, `three-way unselected n=${n}`);
      }
    });

    it(`unique (u32 runs, f32 with NaN and -0, u64, custom equality): ${path}`, async () => {
      for (const n of SIZES) {
        const r = rng(SEED + 3 + n);
        const runs = new Uint32Array(n);
        for (let i = 0; i < n; i++) runs[i] = i > 0 && r() < 0.7 ? runs[i - 1]! : (r() * 5) >>> 0;
        expectSame('u32', await prim.arrays.unique(runs, { config }), uniqueIndices(runs, (a, b) => a === b).map((i) => runs[i]!), `unique u32 n=${n}`);
        // Equal under a custom equality: same value modulo 2.
        expectSame('u32', await prim.arrays.unique(runs, { equality: 'a % 2u == b % 2u', config }), uniqueIndices(runs, (a, b) => a % 2 === b % 2).map((i) => runs[i]!), `unique custom n=${n}`);
        const f = Float32Array.from(runs, (x, i) => (x === 0 ? (i % 2 ? -0 : 0) : x === 1 ? NaN : x));
        // == on floats: -0 equals +0, NaN equals nothing.
        expectSame('f32', await prim.arrays.unique(f, { config }), uniqueIndices(f, (a, b) => a === b).map((i) => f[i]!), `unique f32 n=${n}`);
        const big = BigUint64Array.from(runs, (x) => (BigInt(x) << 40n) | 7n);
        expectSame('u64', await prim.arrays.unique(big, { config }), uniqueIndices(big, (a, b) => a === b).map((i) => big[i]!), `unique u64 n=${n}`);
      }
    });

    it(`unique by key (4- and 8-byte values, u32 and i64 keys): ${path}`, async () => {
      for (const n of SIZES) {
        const r = rng(SEED + 4 + n);
        const runs = new Uint32Array(n);
        for (let i = 0; i < n; i++) runs[i] = i > 0 && r() < 0.7 ? runs[i - 1]! : (r() * 5) >>> 0;
        const vals = Float64Array.from({ length: n }, (_, i) => i + 0.5);
        const kv = await prim.arrays.uniqueByKey(runs, vals, { config });
        const idx = uniqueIndices(runs, (a, b) => a === b);
        expectSame('u32', kv.keys, idx.map((i) => runs[i]!), `unique by key keys n=${n}`);
        expect(Array.from(kv.values), `unique by key values n=${n}`).toEqual(idx.map((i) => vals[i]!));
        const ikeys = BigInt64Array.from(runs, (x) => BigInt(x) - 2n);
        const ivals = Int32Array.from({ length: n }, (_, i) => -i);
        const kv2 = await prim.arrays.uniqueByKey(ikeys, ivals, { config });
        const idx2 = uniqueIndices(ikeys, (a, b) => a === b);
        expectSame('i64', kv2.keys, idx2.map((i) => ikeys[i]!), `unique by key i64 n=${n}`);
        expect(Array.from(kv2.values)).toEqual(idx2.map((i) => ivals[i]!));
      }
    });
  }
});

describe('buffer level: counts land on the GPU; bad input is a typed error before launch', () => {
  const buffer = (bytes: number, u?: number): GPUBuffer => prim.device.createBuffer({
    size: Math.max(bytes, 4), usage: u ?? GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST,
  });

  it('select writes the selected count as a u32, 0 for an empty input', async () => {
    const input = buffer(16);
    const output = buffer(16);
    const selectedCount = buffer(4);
    prim.device.queue.writeBuffer(input, 0, new Uint32Array([1, 2, 3, 5]));
    prim.device.queue.writeBuffer(selectedCount, 0, new Uint32Array([99]));
    for (const [count, want] of [[4, 3], [0, 0]] as const) {
      const enc = prim.device.createCommandEncoder();
      await prim.select(enc, { input, output, count, type: 'u32', selectedCount, predicate: '(a & 1u) == 1u' });
      const read = buffer(4, GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST);
      enc.copyBufferToBuffer(selectedCount, 0, read, 0, 4);
      prim.device.queue.submit([enc.finish()]);
      await read.mapAsync(GPUMapMode.READ);
      expect(new Uint32Array(read.getMappedRange())[0]).toBe(want);
      read.destroy();
    }
  });

  it("the heuristic: rounds with subgroups (16 items, 8 for 8-byte elements), and the scatter's needs as invalid-config", async () => {
    const { subgroupMinSize, subgroupMaxSize } = prim.target;
    // An adapter no table knows: every selection is the heuristic.
    const bare = createPrim(prim.device, { adapterInfo: { vendor: 'nobody', architecture: '', device: '', description: '', subgroupMinSize, subgroupMaxSize } as GPUAdapterInfo });
    const tables = ['selectFlag', 'selectPredicate', 'selectPredicatedFlag', 'selectUnique', 'selectUniqueByKey', 'partitionFlag', 'partitionPredicate', 'partitionTwoWayFlag', 'partitionTwoWayPredicate', 'partitionThreeWay'] as const;
    for (const table of tables) {
      for (const type of typesOn(prim)) {
        const { config, source } = bare.selectedConfig(table, type);
        expect(source, `${table} ${type}`).toBe('heuristic');
        const wide = type === 'u64' || type === 'i64';
        if (prim.context.hasSubgroups) expect(config, `${table} ${type}`).toMatchObject({ workgroupSize: 256, itemsPerThread: wide ? 8 : 16, workgroupScan: 'subgroup', scatter: 'rounds' });
        else expect(config, `${table} ${type}`).toMatchObject({ workgroupScan: 'shared', scatter: 'direct' });
      }
    }
    const d = Uint32Array.from({ length: 1000 }, (_, i) => i);
    const code = async (p: Promise<unknown>): Promise<string> => p.then(() => 'resolved', (e: unknown) => (e instanceof WgprimError ? e.code : `untyped: ${String(e)}`));
    expect(await code(prim.arrays.select(d, { predicate: 'true', config: { workgroupScan: 'shared', scatter: 'rounds' } }))).toBe('invalid-config');
    expect(await code(prim.arrays.select(d, { predicate: 'true', config: { scatter: 'scattered' as 'rounds' } }))).toBe('invalid-config');
  });

  it('rejects what cannot run, with the reason', async () => {
    const input = buffer(64);
    const output = buffer(64);
    const count = buffer(8);
    const enc = (): GPUCommandEncoder => prim.device.createCommandEncoder();
    const base = { input, output, count: 16, type: 'u32' as const, selectedCount: count };
    const code = async (p: Promise<unknown>): Promise<string> => p.then(() => 'resolved', (e: unknown) => (e instanceof WgprimError ? e.code : `untyped: ${String(e)}`));
    expect(await code(prim.select(enc(), { ...base }))).toBe('invalid-argument');
    expect(await code(prim.select(enc(), { ...base, predicate: '' }))).toBe('invalid-operator');
    expect(await code(prim.select(enc(), { ...base, flags: buffer(8) }))).toBe('buffer-size');
    expect(await code(prim.select(enc(), { ...base, output: buffer(8), predicate: 'true' }))).toBe('buffer-size');
    expect(await code(prim.select(enc(), { ...base, output: buffer(64, GPUBufferUsage.COPY_SRC), predicate: 'true' }))).toBe('buffer-usage');
    expect(await code(prim.select(enc(), { ...base, output: input, predicate: 'true' }))).toBe('overlap');
    expect(await code(prim.partition(enc(), { ...base, flags: buffer(64), predicate: 'a > 1u' }))).toBe('invalid-argument');
    expect(await code(prim.partitionThreeWay(enc(), { input, first: output, second: buffer(64), unselected: buffer(64), count: 16, type: 'u32', counts: buffer(4), firstPredicate: 'true', secondPredicate: 'true' }))).toBe('buffer-size');
    expect(await code(prim.uniqueByKey(enc(), { keys: input, values: buffer(64), keysOut: output, valuesOut: buffer(64), count: 16, type: 'u32', valueBytes: 2 as 4, selectedCount: count }))).toBe('invalid-argument');
    expect(await code(prim.arrays.select(new Uint32Array(8), { flags: new Uint8Array(7) }))).toBe('invalid-argument');
    // Byte flags: whole words (16 flags: 16 bytes; 17: 20), a width of 1 or 4, and only with flags.
    expect(await code(prim.select(enc(), { ...base, flags: buffer(12), flagBytes: 1 }))).toBe('buffer-size');
    expect(await code(prim.select(enc(), { ...base, count: 17, output: buffer(68), input: buffer(68), flags: buffer(16), flagBytes: 1 }))).toBe('buffer-size');
    expect(await code(prim.select(enc(), { ...base, flags: buffer(16), flagBytes: 2 as 1 }))).toBe('invalid-argument');
    expect(await code(prim.select(enc(), { ...base, predicate: 'true', flagBytes: 1 }))).toBe('invalid-argument');
    const err = await prim.select(enc(), { ...base, predicate: 'a +* 1u' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WgprimError);
    expect((err as WgprimError).code).toBe('invalid-operator');
    expect((err as WgprimError).message).toMatch(/did not compile/);
  });
});
