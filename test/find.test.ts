import { beforeAll, describe, expect, it } from 'vitest';
import { type ElementType, type FindConfig, type Prim, type PrimTypedArray, f16Bits, f16Value, WgprimError } from '../src/index.js';
import { typeInfo } from '../src/wgsl/types.js';
import { wordElements } from '../src/wgsl/views.js';
import { adjacentFindReference, type Elem, type Equal, findEndReference, findFirstOfReference, searchNReference, searchReference } from '../src/device/find/reference.js';
import { matchPosition } from '../src/device/find/bench.js';
import { FIND_STATE_BYTES } from '../src/device/find/find.js';
import { benchmarkName, configFromName } from '../src/bench/run.js';
import { parseName } from '../src/bench/gbench.js';
import { type Kernel } from '../src/runtime/kernel.js';
import { testPrim, typesOn } from './support/gpu.js';
import { rng, SEED } from './support/data.js';
import { SWEEP, sweepTimeout } from './support/sweep.js';

let prim: Prim;
beforeAll(async () => {
  prim = await testPrim();
});

// Small tiles so that tile boundaries and many tiles come at sizes lavapipe runs quickly: one
// persistent workgroup walking every tile in order, and many workgroups racing for tiles. An
// invocation's items are whole 16-byte words (4 elements; 8 of f16, 2 of 64-bit types).
const PATHS: readonly (readonly [string, (type: ElementType) => FindConfig])[] = [
  ['one workgroup, 32 x 4 tiles (32 x 8 for f16)', (type) => ({ workgroupSize: 32, itemsPerThread: type === 'f16' ? 8 : 4, grid: 1, assignment: 'ticket' })],
  ['64 workgroups, 64 x 8 tiles', () => ({ workgroupSize: 64, itemsPerThread: 8, grid: 64, assignment: 'ticket' })],
  ['5 workgroups taking tiles by stride, 32 x 8 tiles', () => ({ workgroupSize: 32, itemsPerThread: 8, grid: 5, assignment: 'stride' })],
  // The sweep adds a fourth shape: fewer workgroups than tiles, each taking several in turn.
  ...(SWEEP ? [['3 workgroups, 32 x 16 tiles', () => ({ workgroupSize: 32, itemsPerThread: 16, grid: 3, assignment: 'ticket' as const })] as const] : []),
];
const small = (type: ElementType): FindConfig => PATHS[0]![1](type);
/** The small path's tile of a 4-byte type. */
const TILE = 128;
const sizes = (tile: number): number[] => [0, 1, 2, 3, 5, tile - 1, tile, tile + 1, 2 * tile + 3, 1031, 20 * tile + 3];
const M = 5;

/** Random data of a type: values drawn widely enough that chance matches are rare (the reference decides anyway). */
function data(type: ElementType, n: number, seed: number): PrimTypedArray {
  const r = rng(seed);
  const word = (): number => (r() * 2 ** 32) >>> 0;
  switch (type) {
    case 'u32': return Uint32Array.from({ length: n }, word);
    case 'i32': return Int32Array.from({ length: n }, () => word() | 0);
    case 'f32': return Float32Array.from({ length: n }, () => (r() - 0.5) * 1e6);
    case 'f16': return Uint16Array.from({ length: n }, () => f16Bits((r() - 0.5) * 1e4));
    case 'u64': return BigUint64Array.from({ length: n }, () => (BigInt(word()) << 32n) | BigInt(word()));
    case 'i64': return BigInt64Array.from({ length: n }, () => BigInt.asIntN(64, (BigInt(word()) << 32n) | BigInt(word())));
  }
}

/** Marker k of a type (in the array's representation); never drawn by `data` in practice. */
function marker(type: ElementType, k: number): Elem {
  switch (type) {
    case 'u32': return 0xfffffff0 + k;
    case 'i32': return -0x7ffffff0 + k;
    case 'f32': return 3e7 + k;
    case 'f16': return f16Bits(30000 + 32 * k);
    case 'u64': return 0xffffffff00000000n + BigInt(k);
    case 'i64': return -0x7fffffff00000000n + BigInt(k);
  }
}
/** The marker as a value for `searchN` (f16 as its number). */
const markerValue = (type: ElementType, k: number): number | bigint => (type === 'f16' ? f16Value(marker(type, k) as number) : marker(type, k));

/** Equality the GPU's default has on the array's representation. */
function equalOf(type: ElementType): Equal<Elem> {
  return type === 'f16' ? (a, b) => f16Value(a as number) === f16Value(b as number) : (a, b) => a === b;
}

type Algo = 'adjacentFind' | 'findFirstOf' | 'search' | 'findEnd' | 'searchN';
const ALGOS: readonly Algo[] = ['adjacentFind', 'findFirstOf', 'search', 'findEnd', 'searchN'];

/** `data` with the algorithm's match planted at each of `at` (where it fits). */
function planted(algo: Algo, type: ElementType, d: PrimTypedArray, at: readonly number[]): PrimTypedArray {
  const out = d.slice() as PrimTypedArray;
  const set = (i: number, v: Elem): void => { if (i >= 0 && i < out.length) (out as unknown as Elem[])[i] = v; };
  for (const [j, p] of at.entries()) {
    if (algo === 'adjacentFind') { set(p, marker(type, 9)); set(p + 1, marker(type, 9)); }
    else if (algo === 'findFirstOf') set(p, marker(type, j % 3));
    else if (algo === 'searchN') for (let k = 0; k < M; k++) set(p + k, marker(type, 0));
    else for (let k = 0; k < M; k++) set(p + k, marker(type, k));
  }
  return out;
}

const typed = (type: ElementType, values: Elem[]): PrimTypedArray => {
  switch (type) {
    case 'u32': return Uint32Array.from(values as number[]);
    case 'i32': return Int32Array.from(values as number[]);
    case 'f32': return Float32Array.from(values as number[]);
    case 'f16': return Uint16Array.from(values as number[]);
    case 'u64': return BigUint64Array.from(values as bigint[]);
    case 'i64': return BigInt64Array.from(values as bigint[]);
  }
};
const pattern = (type: ElementType): PrimTypedArray => typed(type, Array.from({ length: M }, (_, k) => marker(type, k)));
const targets = (type: ElementType): PrimTypedArray => typed(type, [0, 1, 2].map((k) => marker(type, k)));

/** GPU result and CPU reference of one algorithm on `d`. */
async function both(algo: Algo, type: ElementType, d: PrimTypedArray, config: FindConfig | undefined, n = M): Promise<[number, number]> {
  const o = { type, config };
  const eq = equalOf(type);
  const D = d as ArrayLike<Elem>;
  switch (algo) {
    case 'adjacentFind': return [await prim.arrays.adjacentFind(d, o), adjacentFindReference(D, eq)];
    case 'findFirstOf': return [await prim.arrays.findFirstOf(d, targets(type), o), findFirstOfReference(D, targets(type) as ArrayLike<Elem>, eq)];
    case 'search': return [await prim.arrays.search(d, pattern(type).subarray(0, n) as PrimTypedArray, o), searchReference(D, pattern(type).subarray(0, n) as ArrayLike<Elem>, eq)];
    case 'findEnd': return [await prim.arrays.findEnd(d, pattern(type).subarray(0, n) as PrimTypedArray, o), findEndReference(D, pattern(type).subarray(0, n) as ArrayLike<Elem>, eq)];
    case 'searchN': return [await prim.arrays.searchN(d, n, markerValue(type, 0), o), searchNReference(D, n, marker(type, 0), eq)];
  }
}

/**
 * Where matches go at size n: none, at 0, at the last place one fits, across the first tile
 * boundary, two (first / last wins), across a 16-byte word (its last element: the neighbour is
 * the next invocation's) and across an invocation's words (the last of its first round).
 */
function scenarios(algo: Algo, type: ElementType, n: number, tile: number): number[][] {
  const len = algo === 'adjacentFind' ? 2 : algo === 'findFirstOf' ? 1 : M;
  const last = n - len;
  const word = wordElements(typeInfo(type));
  const s: number[][] = [[]];
  if (last >= 0) s.push([0], [last]);
  if (n > tile + M) s.push([tile - 2], [tile - 1, last], [3 * word - 1], [tile / 2 - 1]);
  if (n > 3 * tile) s.push([3 * tile - 3, 3 * tile + 40]);
  return s;
}

describe('every call, every type, both paths, awkward sizes, matches at 0, at the end, none, across tiles, several', () => {
  for (const [path, configOf] of PATHS) {
    it(path, async () => {
      // The second path on two types: it differs in the launch, not in what a type compiles to.
      const types = configOf('u32').grid === 1 || SWEEP ? typesOn(prim) : (['u32', 'f32'] as const).filter((t) => typesOn(prim).includes(t));
      for (const type of types) {
        const config = configOf(type);
        const tile = config.workgroupSize * config.itemsPerThread;
        for (const n of sizes(tile)) {
          const base = data(type, n, SEED + n);
          for (const algo of ALGOS) {
            for (const at of scenarios(algo, type, n, tile)) {
              const [got, want] = await both(algo, type, planted(algo, type, base, at), config);
              expect(got, `${algo} ${type} n=${n} planted at [${at.join(', ')}] (${path}, seed ${SEED + n})`).toBe(want);
            }
          }
        }
      }
    }, sweepTimeout);
  }
});

describe('findFirstOf with many targets', () => {
  // 12 targets: the filter, then compares; 36: the filter, then a binary search; 300: the filter,
  // then compares (the first 256 targets cached, the rest read from the buffer).
  for (const [lookup, count] of [['filtered and compared', 12], ['filtered and binary-searched', 36], ['filtered and compared, past the cache', 300]] as const) {
    it(`${count} targets ${lookup}: every type, duplicates, -0 and NaN, matches at word and tile ends; 64 items an invocation (two words of filter bits)`, async () => {
      const wide: FindConfig = { workgroupSize: 32, itemsPerThread: 64, grid: 3, assignment: 'ticket' };
      for (const [type, config] of [...typesOn(prim).map((type) => [type, small(type)] as const), ['u32', wide] as const]) {
        const tile = config.workgroupSize * config.itemsPerThread;
        const word = wordElements(typeInfo(type));
        const n = 3 * tile + 7;
        const base = data(type, n, SEED + 11) as unknown as Elem[];
        const float = type === 'f32' || type === 'f16';
        const zero = (negative: boolean): Elem => (type === 'f16' ? f16Bits(negative ? -0 : 0) : negative ? -0 : 0);
        // Markers repeated out of order, a value the data holds late (keys spread over the data's),
        // and for floats -0 (equal to the data's +0) and NaN (equal to nothing).
        const ts: Elem[] = [...Array.from({ length: count }, (_, k) => marker(type, (k * 7) % 13)), base[3 * tile]!, ...(float ? [zero(true), type === 'f16' ? 0x7e00 : NaN] : [])];
        // Every marker alone (a lookup that lost one misses it), then the boundaries.
        const single = Array.from({ length: 13 }, (_, k) => [[5 + 17 * k], k] as const);
        const bounds = [[], [0], [tile - 1], [3 * word - 1], [n - 1], [tile + 1, 2 * tile]].map((at, k) => [at, 3 * k] as const);
        for (const [at, k] of [...single, ...bounds]) {
          const d = base.slice();
          for (const [j, p] of at.entries()) d[p] = marker(type, (k + 5 * j) % 13);
          if (float) { d[1] = type === 'f16' ? 0x7e00 : NaN; d[2 * tile + 3] = zero(false); }
          const got = await prim.arrays.findFirstOf(typed(type, d), typed(type, ts), { type, config });
          expect(got, `${type} ${config.itemsPerThread} items, planted at [${at.join(', ')}]`).toBe(findFirstOfReference(d, ts, equalOf(type)));
        }
      }
    });
  }

  it('the filter lets non-targets through (bits shared by hash) and the lookup rejects them', async () => {
    // 256 targets and data that holds none of them: many elements pass the filter (2^14 bits),
    // every one must fail the lookup; then one target planted late.
    const d = Uint32Array.from({ length: 20 * TILE + 3 }, (_, i) => (i * 2654435761) >>> 0 | 1);
    const ts = Uint32Array.from({ length: 256 }, (_, k) => 2 * k * 40503);
    const config = small('u32');
    expect(await prim.arrays.findFirstOf(d, ts, { config })).toBe(findFirstOfReference(d, ts, (a, b) => a === b));
    d[19 * TILE + 5] = ts[200]!;
    expect(await prim.arrays.findFirstOf(d, ts, { config })).toBe(19 * TILE + 5);
    expect(await prim.arrays.findFirstOf(d, ts.subarray(0, 20), { config })).toBe(d.length);
  });

  it('the lookup follows the target count and the equality; tiles by ticket unless a config says stride', async () => {
    const ctx = prim.context;
    const pipeline = ctx.pipeline.bind(ctx);
    const keys: string[] = [];
    ctx.pipeline = (k: Kernel): Promise<GPUComputePipeline> => { keys.push(k.key); return pipeline(k); };
    try {
      const d = Uint32Array.from({ length: 300 }, (_, i) => i);
      const lookupOf = async (targets: number, equality?: string): Promise<string | undefined> => {
        keys.length = 0;
        const ts = Uint32Array.from({ length: targets }, (_, k) => 1000 + k);
        expect(await prim.arrays.findFirstOf(d, ts, { equality })).toBe(300);
        return keys.find((k) => k.startsWith('find:first-of'))?.split(':')[7];
      };
      expect(await lookupOf(7)).toBe('compare');
      expect(await lookupOf(8)).toBe('filter');
      expect(await lookupOf(32)).toBe('filter');
      expect(await lookupOf(33)).toBe('filter-sorted');
      expect(await lookupOf(256)).toBe('filter-sorted');
      expect(await lookupOf(257)).toBe('filter');
      expect(await lookupOf(40, 'a == b')).toBe('compare');
      // Tiles by ticket wherever a table does not say otherwise (here a CPU adapter, which runs
      // a few workgroups at a time: by stride, late workgroups would leave early tiles to the end).
      expect(keys.find((k) => k.startsWith('find:first-of'))?.split(':')[6]).toBe('ticket');
      keys.length = 0;
      expect(await prim.arrays.search(d, Uint32Array.of(7, 8), { config: { assignment: 'stride' } })).toBe(7);
      expect(keys.find((k) => k.startsWith('find:search'))?.split(':')[6]).toBe('stride');
    } finally {
      ctx.pipeline = pipeline;
    }
  });

  it('past the workgroup-memory cache (256): compared one by one, the rest read from the buffer', async () => {
    const d = Uint32Array.from({ length: 1031 }, (_, i) => i);
    const ts = Uint32Array.from({ length: 300 }, (_, k) => 5000 + k);
    ts[280] = 700;
    expect(await prim.arrays.findFirstOf(d, ts, { config: small('u32') })).toBe(700);
    expect(await prim.arrays.findFirstOf(d, ts.subarray(0, 280), { config: small('u32') })).toBe(1031);
  });
});

describe("the C++ standard library's edge cases", () => {
  it('empty patterns, n = 0, no targets, patterns longer than the input, empty input', async () => {
    const d = Uint32Array.of(7, 8, 9);
    expect(await prim.arrays.search(d, new Uint32Array(0))).toBe(0);
    expect(await prim.arrays.findEnd(d, new Uint32Array(0))).toBe(3);
    expect(await prim.arrays.searchN(d, 0, 5)).toBe(0);
    expect(await prim.arrays.findFirstOf(d, new Uint32Array(0))).toBe(3);
    expect(await prim.arrays.search(d, Uint32Array.of(7, 8, 9, 10))).toBe(3);
    expect(await prim.arrays.findEnd(d, Uint32Array.of(7, 8, 9, 10))).toBe(3);
    expect(await prim.arrays.searchN(d, 4, 7)).toBe(3);
    expect(await prim.arrays.search(d, d)).toBe(0);
    expect(await prim.arrays.findEnd(d, d)).toBe(0);
    const empty = new Uint32Array(0);
    expect(await prim.arrays.search(empty, empty)).toBe(0);
    expect(await prim.arrays.findEnd(empty, empty)).toBe(0);
    expect(await prim.arrays.searchN(empty, 0, 1)).toBe(0);
    expect(await prim.arrays.adjacentFind(empty)).toBe(0);
    expect(await prim.arrays.adjacentFind(Uint32Array.of(4))).toBe(1);
  });

  it('search_n: runs one short, a run across tiles, overlapping runs', async () => {
    const config = small('u32');
    const n = 6 * TILE;
    const d = Uint32Array.from({ length: n }, (_, i) => i);
    for (let k = 0; k < M - 1; k++) d[40 + k] = 5000; // one short
    for (let k = 0; k < 3 * M; k++) d[2 * TILE - 7 + k] = 5000; // long, across a boundary
    expect(await prim.arrays.searchN(d, M, 5000, { config })).toBe(searchNReference(d, M, 5000));
    expect(await prim.arrays.searchN(d, 3 * M, 5000, { config })).toBe(2 * TILE - 7);
    expect(await prim.arrays.searchN(d, 3 * M + 1, 5000, { config })).toBe(n);
    expect(await prim.arrays.searchN(d, M - 1, 5000, { config })).toBe(40);
    // A run from element 0 (no element before its head), and one a word's last element starts.
    const z = Uint32Array.from({ length: n }, (_, i) => i + 1).fill(5000, 0, M);
    expect(await prim.arrays.searchN(z, M, 5000, { config })).toBe(0);
    z.fill(1, 0, M).fill(7, 4 * TILE + 3, 4 * TILE + 3 + M);
    expect(await prim.arrays.searchN(z, M, 7, { config })).toBe(4 * TILE + 3);
    // A pattern whose prefix repeats (brute force restarts at every candidate).
    const s = Uint32Array.from({ length: 3 * TILE }, () => 1);
    s[2 * TILE + 1] = 2;
    expect(await prim.arrays.search(s, Uint32Array.of(1, 1, 1, 2), { config })).toBe(2 * TILE - 2);
    expect(await prim.arrays.findEnd(s, Uint32Array.of(1, 1), { config })).toBe(3 * TILE - 2);
  });
});

describe('floats: NaN equals nothing, -0 equals +0; custom equality', () => {
  it('f32 and f16', async () => {
    for (const type of (['f32', 'f16'] as const).filter((t) => typesOn(prim).includes(t))) {
      const enc = (xs: number[]): PrimTypedArray => (type === 'f32' ? Float32Array.from(xs) : Uint16Array.from(xs, f16Bits));
      // The small tiles' pipelines (compiled above for the default equality): lavapipe compiles
      // large f16 kernels slowly.
      const o = { type, config: small(type) };
      expect(await prim.arrays.adjacentFind(enc([1, NaN, NaN, 2, -0, 0, 3]), o)).toBe(4);
      expect(await prim.arrays.searchN(enc([NaN, NaN, NaN]), 2, NaN, o)).toBe(3);
      expect(await prim.arrays.searchN(enc([1, -0, 0, 0]), 3, 0, o)).toBe(1);
      expect(await prim.arrays.search(enc([5, NaN, 0, 1]), enc([-0, 1]), o)).toBe(2);
      expect(await prim.arrays.findEnd(enc([0, 1, -0, 1, NaN]), enc([0, 1]), o)).toBe(2);
      expect(await prim.arrays.findFirstOf(enc([NaN, 4, -0]), enc([NaN, 0]), o)).toBe(2);
      // Bits, not `a != a`: WGSL lets a compiler assume no NaN in float comparisons.
      const bits = type === 'f32' ? 'bitcast<u32>(a) == bitcast<u32>(b)' : 'bitcast<u32>(vec2<f16>(a, 0.0h)) == bitcast<u32>(vec2<f16>(b, 0.0h))';
      expect(await prim.arrays.adjacentFind(enc([1, NaN, NaN, 2]), { ...o, equality: bits })).toBe(1);
      expect(await prim.arrays.adjacentFind(enc([1, -0, 0, 2]), { ...o, equality: bits })).toBe(4);
    }
  });

  it('custom equality on integers: by the low byte, and a comparison that is not symmetric', async () => {
    const d = Uint32Array.of(0x101, 0x202, 0x302, 0x403);
    const config = small('u32');
    const low = '(a & 0xffu) == (b & 0xffu)';
    expect(await prim.arrays.adjacentFind(d, { equality: low, config })).toBe(1);
    expect(await prim.arrays.findFirstOf(d, Uint32Array.of(0x903), { equality: low, config })).toBe(3);
    expect(await prim.arrays.search(d, Uint32Array.of(2, 3), { equality: low, config })).toBe(2);
    expect(await prim.arrays.searchN(d, 2, 0x502, { equality: low, config })).toBe(1);
    // a is the input's element, b the target: "a greater than b".
    expect(await prim.arrays.findFirstOf(d, Uint32Array.of(0x300), { equality: 'a > b', config })).toBe(2);
    const big = BigUint64Array.of(1n << 40n, (1n << 40n) + 1n, 3n);
    expect(await prim.arrays.adjacentFind(big, { equality: 'a.y == b.y', config })).toBe(0);
    expect(await prim.arrays.adjacentFind(big, { config })).toBe(3);
  });
});

describe('buffer level: the call initialises its output; early exit', () => {
  const buffer = (bytes: number, usage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST): GPUBuffer => prim.device.createBuffer({ size: Math.max(bytes, 4), usage });
  async function read(b: GPUBuffer, words: number): Promise<Uint32Array> {
    const r = prim.device.createBuffer({ size: words * 4, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ });
    const enc = prim.device.createCommandEncoder();
    enc.copyBufferToBuffer(b, 0, r, 0, words * 4);
    prim.device.queue.submit([enc.finish()]);
    await r.mapAsync(GPUMapMode.READ);
    const out = new Uint32Array(r.getMappedRange().slice(0));
    r.destroy();
    return out;
  }

  it('writes count over what the output held; two calls in one encoder; the scan leaves its state zero', async () => {
    const n = 10 * TILE;
    const input = buffer(n * 4);
    const d = Uint32Array.from({ length: n }, (_, i) => i);
    d[2 * TILE + 5] = d[2 * TILE + 6];
    prim.device.queue.writeBuffer(input, 0, d);
    const out1 = buffer(4);
    const out2 = buffer(4);
    prim.device.queue.writeBuffer(out1, 0, Uint32Array.of(12345));
    prim.device.queue.writeBuffer(out2, 0, Uint32Array.of(0));
    const config = small('u32');
    const enc = prim.device.createCommandEncoder();
    await prim.search(enc, { input, count: n, pattern: input, patternCount: 0, type: 'u32', output: out2, config });
    await prim.adjacentFind(enc, { input, count: n, type: 'u32', output: out1, config });
    prim.device.queue.submit([enc.finish()]);
    expect((await read(out1, 1))[0]).toBe(2 * TILE + 5);
    expect((await read(out2, 1))[0]).toBe(0);
    // The next call needs no clear: best, tile counter and count out are zero again (which tiles
    // a workgroup takes is the early-exit block's test, wgsl-device-early-exit.test.ts).
    const state = async (): Promise<number[]> => Array.from(await read(prim.context.scratch('find.state', FIND_STATE_BYTES), FIND_STATE_BYTES / 4));
    expect(await state()).toEqual([0, 0, 0]);
    const none = buffer(4);
    const enc2 = prim.device.createCommandEncoder();
    await prim.searchN(enc2, { input, count: n, n: 2, value: 7, type: 'u32', output: none, config });
    prim.device.queue.submit([enc2.finish()]);
    expect((await read(none, 1))[0]).toBe(n);
    expect(await state()).toEqual([0, 0, 0]);
    // find_end takes tiles from the end (last: p + 1).
    const pat = buffer(4);
    prim.device.queue.writeBuffer(pat, 0, Uint32Array.of(9 * TILE + 3));
    const enc3 = prim.device.createCommandEncoder();
    await prim.findEnd(enc3, { input, count: n, pattern: pat, patternCount: 1, type: 'u32', output: none, config });
    prim.device.queue.submit([enc3.finish()]);
    expect((await read(none, 1))[0]).toBe(9 * TILE + 3);
    expect(await state()).toEqual([0, 0, 0]);
    pat.destroy();
    for (const b of [input, out1, out2, none]) b.destroy();
  });

  it('rejects what cannot run, with the reason', async () => {
    const input = buffer(64);
    const output = buffer(4);
    const enc = (): GPUCommandEncoder => prim.device.createCommandEncoder();
    const base = { input, output, count: 16, type: 'u32' as const };
    const code = async (p: Promise<unknown>): Promise<string> => p.then(() => 'resolved', (e: unknown) => (e instanceof WgprimError ? e.code : `untyped: ${String(e)}`));
    expect(await code(prim.adjacentFind(enc(), undefined as never))).toBe('invalid-argument');
    expect(await code(prim.adjacentFind(enc(), { ...base, count: 17 }))).toBe('buffer-size');
    expect(await code(prim.adjacentFind(enc(), { ...base, count: -1 }))).toBe('invalid-argument');
    expect(await code(prim.adjacentFind(enc(), { ...base, output: buffer(4, GPUBufferUsage.COPY_SRC) }))).toBe('buffer-usage');
    expect(await code(prim.adjacentFind(enc(), { ...base, output: input }))).toBe('overlap');
    expect(await code(prim.adjacentFind(enc(), { ...base, equality: '' }))).toBe('invalid-operator');
    expect(await code(prim.adjacentFind(enc(), { ...base, config: { workgroupSize: 48 } }))).toBe('invalid-config');
    expect(await code(prim.adjacentFind(enc(), { ...base, config: { grid: 0 } }))).toBe('invalid-config');
    // An invocation's items are whole 16-byte words: 8 of f16.
    if (typesOn(prim).includes('f16')) expect(await code(prim.arrays.adjacentFind(new Uint16Array(8), { type: 'f16', config: { itemsPerThread: 4 } }))).toBe('invalid-config');
    expect(await code(prim.findFirstOf(enc(), { ...base, targets: buffer(4), targetCount: 2 }))).toBe('buffer-size');
    expect(await code(prim.findFirstOf(enc(), { ...base, targets: output, targetCount: 1 }))).toBe('overlap');
    expect(await code(prim.search(enc(), { ...base, pattern: input, patternCount: -1 }))).toBe('invalid-argument');
    expect(await code(prim.findEnd(enc(), { ...base, pattern: undefined as never, patternCount: 1 }))).toBe('invalid-argument');
    expect(await code(prim.searchN(enc(), { ...base, n: 2 } as never))).toBe('invalid-argument');
    expect(await code(prim.searchN(enc(), { ...base, n: 1.5, value: 1 }))).toBe('invalid-argument');
    expect(await code(prim.searchN(enc(), { ...base, n: 2, value: -1 }))).toBe('invalid-argument');
    expect(await code(prim.searchN(enc(), { ...base, type: 'u64', count: 8, n: 2, value: 1.5 }))).toBe('invalid-argument');
    expect(await code(prim.arrays.adjacentFind(new Uint16Array(4)))).toBe('unsupported-type');
    expect(await code(prim.arrays.search(new Uint32Array(4), new Int32Array(2)))).toBe('unsupported-type');
    const err = await prim.arrays.adjacentFind(new Uint32Array(8), { equality: 'a +* b' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WgprimError);
    expect((err as WgprimError).code).toBe('invalid-operator');
    expect((err as WgprimError).message).toMatch(/did not compile/);
  });
});

describe('benchmark inputs', () => {
  it('place the match so that the part read is the fraction asked for', () => {
    expect(matchPosition('adjacent_find', 1000, 1, 2)).toBe(998);
    expect(matchPosition('adjacent_find', 1000, 0.01, 2)).toBe(8);
    expect(matchPosition('find_end', 1000, 0.01, 16)).toBe(984);
    expect(matchPosition('find_end', 1001, 1, 16)).toBe(0);
    expect(matchPosition('search', 8, 0.5, 16)).toBe(0);
  });

  it("carry rocPRIM's names with the part read, and map the cfg back (tiles by ticket left out, as names before the field)", () => {
    const config = { workgroupSize: 256, itemsPerThread: 8, grid: 512, assignment: 'ticket' } as const;
    const name = benchmarkName('find_end_at_1pct', 'u64', config);
    expect(name).toBe('{lvl:device,algo:find_end,key_type:u64,read:0.01,cfg:{bs:256,ipt:8,grid:512}}');
    expect(configFromName('find_end', parseName(name).cfg as never)).toEqual(config);
    const stride = { ...config, assignment: 'stride' } as const;
    const strideName = benchmarkName('search_n', 'f32', stride);
    expect(strideName).toBe('{lvl:device,algo:search_n,key_type:f32,read:1,cfg:{bs:256,ipt:8,grid:512,tiles:stride}}');
    expect(configFromName('search_n', parseName(strideName).cfg as never)).toEqual(stride);
  });
});
