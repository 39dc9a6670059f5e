import { beforeAll, describe, expect, it } from 'vitest';

// Compiling a pipeline takes seconds on lavapipe on a loaded machine: room for that.
const SLOW = 300_000;
import { type ByKeyConfig, type ElementType, type Prim, type PrimTypedArray, WgprimError } from '../src/index.js';
import { cpuIdentity, cpuOp, type Value, type ValueArray, valueAt } from '../src/device/reference.js';
import { flagHeads, type Heads, offsetHeads, segmentedScanReference } from '../src/device/scan-by-key/reference.js';
import { testPrim, typesOn } from './support/gpu.js';
import { randomInput, rng, SEED } from './support/data.js';
import { expectValues, headsOf, runKeys } from './support/runs.js';

let prim: Prim;
beforeAll(async () => {
  prim = await testPrim();
});

// Small tiles so that many tiles and the look-back's windows are reached at sizes lavapipe runs quickly.
const PATHS: readonly (readonly [string, Partial<ByKeyConfig>])[] = [
  ['decoupled look-back, subgroup scan', { workgroupSize: 64, itemsPerThread: 4, lookback: 'decoupled', workgroupScan: 'subgroup' }],
  ['reduce-then-scan, workgroup-memory scan', { workgroupSize: 64, itemsPerThread: 8, lookback: 'reduce-then-scan', workgroupScan: 'shared' }],
];
const TILE = 256;
const SIZES = [0, 1, 2, 3, TILE - 1, TILE, TILE + 1, 2 * TILE + 1, 7919, 33 * TILE + 5];

const addRef = (type: ElementType, values: PrimTypedArray, heads: Heads, exclusive: boolean, init?: Value): ValueArray =>
  segmentedScanReference(type, cpuOp(type, 'add'), values as ArrayLike<Value>, heads, exclusive, init, cpuIdentity(type, 'add'));

describe('scan by key: every key type and value type, awkward sizes', { timeout: SLOW }, () => {
  // Every type as key and as value on the look-back path; two pairs (32- and 64-bit pairs) on reduce-then-scan.
  const cases = (types: ElementType[]): [ElementType, ElementType, string, Partial<ByKeyConfig>][] => [
    ...types.map((k, i): [ElementType, ElementType, string, Partial<ByKeyConfig>] => [k, types[(i + 1) % types.length]!, ...PATHS[0]!]),
    ['u64', 'f32', ...PATHS[1]!], ['i32', 'i64', ...PATHS[1]!],
  ];
  it('inclusive and exclusive', async () => {
    for (const [i, [keyType, valueType, path, config]] of cases(typesOn(prim)).entries()) {
      const exclusive = i % 2 === 1;
      for (const n of SIZES) {
        const keys = runKeys(keyType, n, SEED + n);
        const values = randomInput(valueType, 'add', n, SEED + 7 * n);
        const run = exclusive ? prim.arrays.exclusiveScanByKey : prim.arrays.inclusiveScanByKey;
        const got = await run(keys, values, { keyType, valueType, config });
        expectValues(valueType, got, addRef(valueType, values, headsOf(keyType, keys), exclusive), `${exclusive ? 'ex' : 'in'}clusive ${keyType}/${valueType} n=${n} (${path})`);
      }
    }
  });
});

describe('scan by key: runs', { timeout: SLOW }, () => {
  const n = 40 * TILE + 17;
  const values = randomInput('u32', 'add', n, SEED);
  const cases: [string, Uint32Array][] = [
    ['runs of length 1', Uint32Array.from({ length: n }, (_, i) => i)],
    ['one run over the whole input (across every tile and window)', new Uint32Array(n).fill(7)],
    ['alternating', Uint32Array.from({ length: n }, (_, i) => i % 2)],
    ['long runs across tiles', Uint32Array.from({ length: n }, (_, i) => Math.floor(i / 3001))],
  ];
  for (const [name, keys] of cases) {
    it(name, async () => {
      for (const [path, config, exclusive] of [[...PATHS[0]!, false], [...PATHS[0]!, true], [...PATHS[1]!, false]] as const) {
        {
          const got = await (exclusive ? prim.arrays.exclusiveScanByKey : prim.arrays.inclusiveScanByKey)(keys, values, { config });
          expectValues('u32', got, addRef('u32', values, headsOf('u32', keys), exclusive), `${name} ${exclusive} (${path})`);
        }
      }
    });
  }
});

describe('scan by key: operators, equality, initial value', { timeout: SLOW }, () => {
  const config = PATHS[0]![1];
  it('custom equality: NaN keys under == are never equal; integer keys by a tenth', async () => {
    const n = 3 * TILE + 11;
    const keys = Float32Array.from({ length: n }, (_, i) => (i % 5 === 0 ? NaN : Math.floor(i / 4)));
    const values = randomInput('i32', 'add', n, SEED);
    const heads = Array.from({ length: n }, (_, i) => i === 0 || !(keys[i - 1] === keys[i]));
    expectValues('i32', await prim.arrays.inclusiveScanByKey(keys, values, { config }), addRef('i32', values, heads, false), 'NaN keys');
    const ints = Uint32Array.from({ length: n }, (_, i) => i);
    const tenths = Array.from({ length: n }, (_, i) => i % 10 === 0);
    expectValues('i32', await prim.arrays.inclusiveScanByKey(ints, values, { equality: 'a / 10u == b / 10u', config }), addRef('i32', values, tenths, false), 'a / 10 == b / 10');
  });
  it('min, a custom operator, and an exclusive initial value', async () => {
    const n = 5 * TILE + 3;
    const keys = runKeys('u32', n, SEED + 1);
    const heads = headsOf('u32', keys);
    const values = randomInput('i32', 'min', n, SEED + 2);
    const min = segmentedScanReference('i32', cpuOp('i32', 'min'), values, heads, false, undefined, cpuIdentity('i32', 'min'));
    expectValues('i32', await prim.arrays.inclusiveScanByKey(keys, values, { op: 'min', config }), min, 'min');
    // A non-commutative operator: keeps the left operand where it is even (an associative "first even").
    const firstEven = { wgsl: 'select(b, a, (a & 1) == 0)', identity: '1', name: 'first-even' };
    const cpu = (a: Value, b: Value): Value => ((a as number) % 2 === 0 ? a : b);
    const odd = Int32Array.from(values as Int32Array, (x) => x | 0);
    const want = segmentedScanReference('i32', cpu, odd, heads, false, undefined, 1);
    expectValues('i32', await prim.arrays.inclusiveScanByKey(keys, odd, { op: firstEven, config }), want, 'first even');
    const u = randomInput('u64', 'add', n, SEED + 3);
    expectValues('u64', await prim.arrays.exclusiveScanByKey(keys, u, { initialValue: 5n, config }), addRef('u64', u, heads, true, 5n), 'u64 init 5');
  });
});

describe('segmented scan: head flags and offsets', { timeout: SLOW }, () => {
  it('head flags, both paths, inclusive and exclusive with an initial value', async () => {
    for (const [path, config] of PATHS) {
      for (const n of [1, TILE + 1, 21 * TILE + 3]) {
        const r = rng(SEED + n);
        const flags = Uint32Array.from({ length: n }, () => (r() < 0.01 ? 1 + Math.floor(r() * 9) : 0));
        const values = randomInput('f32', 'add', n, SEED + n);
        const heads = flagHeads(flags, n);
        expectValues('f32', await prim.arrays.segmentedInclusiveScan(values, { headFlags: flags }, { config }), addRef('f32', values, heads, false), `inclusive n=${n} (${path})`);
        expectValues('f32', await prim.arrays.segmentedExclusiveScan(values, { headFlags: flags }, { initialValue: 0.5, config }), addRef('f32', values, heads, true, 0.5), `exclusive n=${n} (${path})`);
      }
    }
  });
  /**
   * Offsets over all n elements: element 0 and the last one, length-1 segments (300 in a row: more
   * begins in a tile than the workgroup has invocations), empty segments, segments across several
   * tiles, random lengths.
   */
  const tileOffsets = (n: number, seed: number): Uint32Array => {
    const r = rng(seed);
    const out = [0, 1, 1, 2];
    for (let i = 0; i < 300; i++) out.push(10 + i);
    out.push(310, 310, 310 + 5 * TILE + 17);
    while (out[out.length - 1]! < n) out.push(Math.min(n, out[out.length - 1]! + (r() < 0.2 ? 0 : Math.floor(r() * 3 * TILE))));
    out.push(n, n);
    return Uint32Array.from(out);
  };
  it('offsets read by the tiles: every type, both paths, inclusive and exclusive', async () => {
    const n = 7919;
    const offsets = tileOffsets(n, SEED);
    const { heads } = offsetHeads(n, offsets);
    for (const type of typesOn(prim)) {
      const values = randomInput(type, 'add', n, SEED + 3);
      expectValues(type, await prim.arrays.segmentedInclusiveScan(values, offsets, { type, config: PATHS[0]![1] }), addRef(type, values, heads, false), `${type} inclusive`);
    }
    for (const type of ['u32', 'u64'] as const) {
      const values = randomInput(type, 'add', n, SEED + 4);
      const init = type === 'u64' ? 3n : 3;
      expectValues(type, await prim.arrays.segmentedExclusiveScan(values, offsets, { initialValue: init, config: PATHS[1]![1] }), addRef(type, values, heads, true, init), `${type} exclusive, init 3`);
    }
    const values = randomInput('i32', 'min', n, SEED + 5);
    const want = segmentedScanReference('i32', cpuOp('i32', 'min'), values, heads, true, undefined, cpuIdentity('i32', 'min'));
    expectValues('i32', await prim.arrays.segmentedExclusiveScan(values, offsets, { op: 'min', config: PATHS[0]![1] }), want, 'i32 min exclusive');
    // One segment, and segments of one element each.
    for (const o of [Uint32Array.from([0, n]), Uint32Array.from({ length: n + 1 }, (_, i) => i)]) {
      const u = randomInput('u32', 'add', n, SEED + 6);
      expectValues('u32', await prim.arrays.segmentedInclusiveScan(u, o, { config: PATHS[0]![1] }), addRef('u32', u, offsetHeads(n, o).heads, false), `${o.length - 1} segments`);
    }
  });
  it('offsets: empty segments, gaps left as they were, unsorted segments (buffer level)', async () => {
    const config = PATHS[1]![1];
    const n = 9 * TILE + 7;
    const values = randomInput('u32', 'add', n, SEED);
    const offsets = Uint32Array.from([5, 5, 300, 301, 301, 2000, n - 3]);
    const { heads, inside } = offsetHeads(n, offsets);
    const got = await prim.arrays.segmentedInclusiveScan(values, offsets, { config });
    expectValues('u32', got, segmentedScanReference('u32', cpuOp('u32', 'add'), values, heads, false, undefined, 0, inside, values), 'offsets');
    // Buffer level: begin and end offsets in any order, with gaps between segments.
    const begins = Uint32Array.from([1500, 10, 700, 40]);
    const ends = Uint32Array.from([2100, 30, 700, 41]);
    const o = offsetHeads(n, begins, ends);
    const dev = prim.device;
    const up = (d: ArrayBufferView<ArrayBuffer>): GPUBuffer => {
      const b = dev.createBuffer({ size: Math.max(16, d.byteLength), usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC });
      dev.queue.writeBuffer(b, 0, d);
      return b;
    };
    const input = up(values as Uint32Array<ArrayBuffer>);
    const output = up(new Uint32Array(n).fill(99));
    const enc = dev.createCommandEncoder();
    await prim.segmentedExclusiveScan(enc, { input, output, count: n, type: 'u32', beginOffsets: up(begins), endOffsets: up(ends), segments: 4, initialValue: 1, config });
    const read = dev.createBuffer({ size: n * 4, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
    enc.copyBufferToBuffer(output, 0, read, 0, n * 4);
    dev.queue.submit([enc.finish()]);
    await read.mapAsync(GPUMapMode.READ);
    const result = new Uint32Array(read.getMappedRange().slice(0));
    expectValues('u32', result, segmentedScanReference('u32', cpuOp('u32', 'add'), values, o.heads, true, 1, 0, o.inside, new Uint32Array(n).fill(99)), 'begin and end offsets');
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
    const k = new Uint32Array(10);
    const v = new Uint32Array(10);
    expect(await code(() => prim.arrays.inclusiveScanByKey(k, new Uint32Array(9)))).toBe('invalid-argument');
    // Refused by the types too; JavaScript callers get the typed error.
    // @ts-expect-error inclusive scans by key take no initialValue
    expect(await code(() => prim.arrays.inclusiveScanByKey(k, v, { initialValue: 1 }))).toBe('invalid-argument');
    expect(await code(() => prim.arrays.inclusiveScanByKey(k, v, { equality: 'a === b' }))).toBe('invalid-operator');
    expect(await code(() => prim.arrays.inclusiveScanByKey(k, v, { op: { wgsl: 'a +* b', identity: '0u' } }))).toBe('invalid-operator');
    expect(await code(() => prim.arrays.segmentedInclusiveScan(v, Uint32Array.from([0, 5, 3])))).toBe('invalid-argument');
    expect(await code(() => prim.arrays.segmentedInclusiveScan(v, Uint32Array.from([0, 11])))).toBe('invalid-argument');
    expect(await code(() => prim.arrays.segmentedInclusiveScan(v, { headFlags: new Uint32Array(9) }))).toBe('invalid-argument');
    const buf = prim.device.createBuffer({ size: 64, usage: GPUBufferUsage.STORAGE });
    const enc = prim.device.createCommandEncoder();
    expect(await code(() => prim.inclusiveScanByKey(enc, { keys: buf, values: buf, output: buf, count: 4, keyType: 'u32', valueType: 'u32' }))).toBe('overlap');
    expect(await code(() => prim.segmentedInclusiveScan(enc, { input: buf, output: buf, count: 4, type: 'u32' }))).toBe('invalid-argument');
    const small = prim.device.createBuffer({ size: 8, usage: GPUBufferUsage.STORAGE });
    const other = prim.device.createBuffer({ size: 64, usage: GPUBufferUsage.STORAGE });
    expect(await code(() => prim.inclusiveScanByKey(enc, { keys: buf, values: other, output: small, count: 4, keyType: 'u32', valueType: 'u32' }))).toBe('buffer-size');
  });
});
