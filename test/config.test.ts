import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  type AdapterInfoLike, createPrim, gridFor, type Prim, type ReduceConfig, type ScanConfig, type TransformConfig,
  type TunedEntry, type TypeClass, targetFromAdapterInfo,
} from '../src/index.js';
import { type Kernel } from '../src/runtime/kernel.js';
import { testPrim } from './support/gpu.js';
import { cpuOp, cpuScan, firstMismatch } from './support/cpu.js';
import { randomInput, SEED } from './support/data.js';

let base: Prim; // the real device, with its real adapter info
let device: GPUDevice;
let fake: AdapterInfoLike;

beforeAll(async () => {
  base = await testPrim();
  device = base.device;
  // A made-up GPU on the real device; subgroup sizes are the real ones, so configs run.
  fake = {
    vendor: 'Acme', architecture: 'RDNA9', device: 'X1000', description: 'Acme X1000 (fake)',
    subgroupMinSize: base.target.subgroupMinSize, subgroupMaxSize: base.target.subgroupMaxSize,
  };
});

afterEach(() => {
  vi.restoreAllMocks();
});

const evidence = { itemsPerSecond: 1e9, cv: 0.01, size: 1 << 20, date: '2026-11-29', version: '0.1.0', note: 'test fixture' };
const INT4: TypeClass = { float: false, bytes: 4 };
const FLOAT4: TypeClass = { float: true, bytes: 4 };
const INT8: TypeClass = { float: false, bytes: 8 };
const entry = <C>(target: TunedEntry<C>['target'], typeClass: TypeClass, config: C): TunedEntry<C> => ({ target, typeClass, config, evidence });

const R_DEVICE: ReduceConfig = { workgroupSize: 128, itemsPerThread: 8, maxWorkgroups: 3, workgroupReduce: 'shared' };
const R_ARCH: ReduceConfig = { workgroupSize: 64, itemsPerThread: 4, maxWorkgroups: 7, workgroupReduce: 'shared' };
const R_VENDOR: ReduceConfig = { workgroupSize: 512, itemsPerThread: 24, maxWorkgroups: 11, workgroupReduce: 'shared' };
const S_DEVICE: ScanConfig = { workgroupSize: 64, itemsPerThread: 12, lookback: 'reduce-then-scan', workgroupScan: 'shared' };
const S_VENDOR: ScanConfig = { workgroupSize: 128, itemsPerThread: 20, lookback: 'decoupled', workgroupScan: 'shared' };

/** Device, architecture and vendor rows for int4 (in a scrambled order), and rows that must never match. */
function reduceRows(levels: ('device' | 'architecture' | 'vendor')[]): TunedEntry<ReduceConfig>[] {
  const rows: TunedEntry<ReduceConfig>[] = [
    entry({ vendor: 'acme', device: 'x2000' }, INT4, { ...R_DEVICE, maxWorkgroups: 1001 }), // another device
    entry({ vendor: 'zeta' }, INT4, { ...R_VENDOR, maxWorkgroups: 1002 }), // another vendor
    entry({ vendor: 'acme', architecture: 'rdna8' }, INT4, { ...R_ARCH, maxWorkgroups: 1003 }), // another architecture
    entry({}, INT4, { ...R_VENDOR, maxWorkgroups: 1004 }), // matches nothing in particular: never used
  ];
  if (levels.includes('vendor')) rows.unshift(entry({ vendor: 'ACME' }, INT4, R_VENDOR));
  if (levels.includes('device')) rows.splice(2, 0, entry({ vendor: 'acme', architecture: 'rdna9', device: 'x1000' }, INT4, R_DEVICE));
  if (levels.includes('architecture')) rows.push(entry({ vendor: 'Acme', architecture: 'Rdna9' }, INT4, R_ARCH));
  return rows;
}

describe('selection order', () => {
  it('device beats architecture beats vendor beats the heuristic, in any table order', () => {
    const cases: [('device' | 'architecture' | 'vendor')[], string, ReduceConfig | undefined][] = [
      [['device', 'architecture', 'vendor'], 'tuned:device', R_DEVICE],
      [['architecture', 'vendor'], 'tuned:architecture', R_ARCH],
      [['device', 'vendor'], 'tuned:device', R_DEVICE],
      [['vendor'], 'tuned:vendor', R_VENDOR],
      [[], 'heuristic', undefined],
    ];
    for (const [levels, source, config] of cases) {
      for (const rows of [reduceRows(levels), reduceRows(levels).reverse()]) {
        const prim = createPrim(device, { adapterInfo: fake, configs: { reduce: rows } });
        const sel = prim.selectedConfig('reduce', 'u32');
        expect(sel.source, `levels ${levels.join(',')}`).toBe(source);
        if (config) {
          expect(sel.config).toEqual(config);
          expect(sel.entry?.config).toBe(config);
        } else {
          // The fake adapter matches no built-in row either: its heuristic.
          expect(sel.config).toEqual(createPrim(device, { adapterInfo: fake }).selectedConfig('reduce', 'u32').config);
          expect(sel.entry).toBeUndefined();
        }
      }
    }
  });

  it('the same rows under another adapter identity fall back to the heuristic', () => {
    const rows = reduceRows(['device', 'architecture', 'vendor']);
    for (const info of [{ ...fake, vendor: 'other' }, { ...fake, vendor: '' }]) {
      const prim = createPrim(device, { adapterInfo: info, configs: { reduce: rows } });
      expect(prim.selectedConfig('reduce', 'u32').source, JSON.stringify(info)).toBe('heuristic');
    }
    // No adapterInfo: the device's own identity, so what the built-in tables give it (lavapipe
    // has a tuned row), never the user rows.
    const own = createPrim(device, { configs: { reduce: rows } }).selectedConfig('reduce', 'u32');
    expect(own).toEqual(createPrim(device).selectedConfig('reduce', 'u32'));
    // Another device of the same architecture still gets the architecture row.
    const sibling = createPrim(device, { adapterInfo: { ...fake, device: 'X1100' }, configs: { reduce: rows } });
    expect(sibling.selectedConfig('reduce', 'u32')).toMatchObject({ source: 'tuned:architecture', config: R_ARCH });
  });

  it('an earlier user row wins a tie against a later one', () => {
    const first = entry({ vendor: 'acme' }, INT4, R_VENDOR);
    const second = entry({ vendor: 'acme' }, INT4, { ...R_VENDOR, maxWorkgroups: 99 });
    const prim = createPrim(device, { adapterInfo: fake, configs: { reduce: [first, second] } });
    expect(prim.selectedConfig('reduce', 'i32').entry).toBe(first);
  });

  it('selection works per algorithm: scan and transform rows are their own', () => {
    const prim = createPrim(device, {
      adapterInfo: fake,
      configs: {
        scan: [entry({ vendor: 'acme' }, INT4, S_VENDOR), entry({ vendor: 'acme', architecture: 'rdna9', device: 'x1000' }, INT4, S_DEVICE)],
        transform: [entry<TransformConfig>({ vendor: 'acme', architecture: 'rdna9' }, FLOAT4, { workgroupSize: 64, itemsPerThread: 4 })],
      },
    });
    expect(prim.selectedConfig('scan', 'u32')).toMatchObject({ source: 'tuned:device', config: S_DEVICE });
    expect(prim.selectedConfig('reduce', 'u32').source).toBe('heuristic');
    expect(prim.selectedConfig('transform', 'f32')).toMatchObject({ source: 'tuned:architecture', config: { workgroupSize: 64, itemsPerThread: 4 } });
    expect(prim.selectedConfig('transform', 'u32').source).toBe('heuristic');
  });
});

describe('type classes', () => {
  it('a { float: false, bytes: 4 } row applies to u32 and i32, not f32, f16, u64 or i64', () => {
    const prim = createPrim(device, { adapterInfo: fake, configs: { reduce: [entry({ vendor: 'acme' }, INT4, R_VENDOR)] } });
    for (const t of ['u32', 'i32'] as const) expect(prim.selectedConfig('reduce', t), t).toMatchObject({ source: 'tuned:vendor', config: R_VENDOR });
    for (const t of ['f32', 'f16', 'u64', 'i64'] as const) expect(prim.selectedConfig('reduce', t).source, t).toBe('heuristic');
  });

  it('float and 8-byte rows apply to their own classes only', () => {
    const f2 = { ...R_ARCH, maxWorkgroups: 2 };
    const f4 = { ...R_ARCH, maxWorkgroups: 4 };
    const i8 = { ...R_ARCH, maxWorkgroups: 8 };
    const prim = createPrim(device, {
      adapterInfo: fake,
      configs: { reduce: [entry({ vendor: 'acme' }, { float: true, bytes: 2 }, f2), entry({ vendor: 'acme' }, FLOAT4, f4), entry({ vendor: 'acme' }, INT8, i8)] },
    });
    expect(prim.selectedConfig('reduce', 'f16').config).toEqual(f2);
    expect(prim.selectedConfig('reduce', 'f32').config).toEqual(f4);
    expect(prim.selectedConfig('reduce', 'u64').config).toEqual(i8);
    expect(prim.selectedConfig('reduce', 'i64').config).toEqual(i8);
    expect(prim.selectedConfig('reduce', 'u32').source).toBe('heuristic');
  });
});

describe('rows the device cannot run are skipped', () => {
  it('workgroupSize 4096, a bad itemsPerThread, too much workgroup memory, subgroups on a mismatched size', () => {
    const max = device.limits.maxComputeInvocationsPerWorkgroup;
    const rows = [
      entry({ vendor: 'acme', architecture: 'rdna9', device: 'x1000' }, INT4, { ...R_DEVICE, workgroupSize: 4096 }),
      entry({ vendor: 'acme', architecture: 'rdna9', device: 'x1000' }, INT4, { ...R_DEVICE, itemsPerThread: 6 }),
      entry({ vendor: 'acme', architecture: 'rdna9', device: 'x1000' }, INT4, { ...R_DEVICE, maxWorkgroups: 0 }),
      entry({ vendor: 'acme', architecture: 'rdna9' }, INT4, { ...R_ARCH, workgroupSize: max * 2 }),
      entry({ vendor: 'acme' }, INT4, R_VENDOR),
    ];
    const prim = createPrim(device, { adapterInfo: fake, configs: { reduce: rows } });
    expect(prim.selectedConfig('reduce', 'u32')).toMatchObject({ source: 'tuned:vendor', config: R_VENDOR });
    // With only unrunnable rows, the heuristic.
    const none = createPrim(device, { adapterInfo: fake, configs: { reduce: rows.slice(0, 4) } });
    expect(none.selectedConfig('reduce', 'u32').source).toBe('heuristic');
    // Scan: a subgroup row whose workgroup size is not a multiple of the adapter's largest
    // subgroup size is skipped (the adapter here says 128 while the row has 64).
    const big = createPrim(device, {
      adapterInfo: { ...fake, subgroupMinSize: 4, subgroupMaxSize: 128 },
      configs: { scan: [entry({ vendor: 'acme', device: 'x1000' }, INT4, { ...S_DEVICE, workgroupScan: 'subgroup' }), entry({ vendor: 'acme' }, INT4, S_VENDOR)] },
    });
    expect(big.selectedConfig('scan', 'u32')).toMatchObject({ source: 'tuned:vendor', config: S_VENDOR });
    if (device.features.has('subgroups')) {
      // The same row with a workgroup size of 128 is taken.
      const ok = createPrim(device, {
        adapterInfo: { ...fake, subgroupMinSize: 4, subgroupMaxSize: 128 },
        configs: { scan: [entry({ vendor: 'acme', device: 'x1000' }, INT4, { ...S_DEVICE, workgroupSize: 128, workgroupScan: 'subgroup' }), entry({ vendor: 'acme' }, INT4, S_VENDOR)] },
      });
      expect(ok.selectedConfig('scan', 'u32').source).toBe('tuned:device');
    }
  });
});

describe('subgroup sizes from the adapter', () => {
  it('0 (or out of range) is clamped to what WGSL allows', () => {
    expect(targetFromAdapterInfo({ subgroupMinSize: 0, subgroupMaxSize: 0 })).toMatchObject({ subgroupMinSize: 4, subgroupMaxSize: 128 });
    expect(targetFromAdapterInfo({ subgroupMinSize: 2, subgroupMaxSize: 256 })).toMatchObject({ subgroupMinSize: 4, subgroupMaxSize: 128 });
    expect(targetFromAdapterInfo({ subgroupMinSize: 64, subgroupMaxSize: 32 })).toMatchObject({ subgroupMinSize: 64, subgroupMaxSize: 128 });
    expect(targetFromAdapterInfo({ subgroupMinSize: 32, subgroupMaxSize: 32 })).toMatchObject({ subgroupMinSize: 32, subgroupMaxSize: 32 });
    expect(targetFromAdapterInfo(undefined)).toMatchObject({ vendor: '', subgroupMinSize: 4, subgroupMaxSize: 128 });
    const prim = createPrim(device, { adapterInfo: { ...fake, subgroupMinSize: 0, subgroupMaxSize: 0 } });
    expect(prim.target).toMatchObject({ vendor: 'acme', architecture: 'rdna9', device: 'x1000', subgroupMinSize: 4, subgroupMaxSize: 128 });
  });

  it('a clamped prim still computes correctly (its configs only assume the clamped bounds)', async () => {
    const prim = createPrim(device, { adapterInfo: { ...fake, subgroupMinSize: 0, subgroupMaxSize: 0 } });
    const n = 100003;
    const data = randomInput('u32', 'add', n, SEED + 1) as Uint32Array;
    const got = await prim.arrays.inclusiveScan(data);
    expect(firstMismatch('u32', got, cpuScan('u32', cpuOp('u32', 'add'), data, false, undefined, 0)), `seed=${SEED + 1}`).toBeUndefined();
    let sum = 0;
    for (const x of data) sum = (sum + x) >>> 0;
    expect(await prim.arrays.reduce(data), `seed=${SEED + 1}`).toBe(sum);
  });
});

/** Spies on the kernels compiled and the workgroup counts dispatched by a prim. */
function watch(prim: Prim): { kernels: Kernel[]; dispatches: number[] } {
  const seen = { kernels: [] as Kernel[], dispatches: [] as number[] };
  const pipeline = prim.context.pipeline.bind(prim.context);
  const dispatch = prim.context.dispatch.bind(prim.context);
  vi.spyOn(prim.context, 'pipeline').mockImplementation((k: Kernel) => {
    seen.kernels.push(k);
    return pipeline(k);
  });
  vi.spyOn(prim.context, 'dispatch').mockImplementation((enc, label, p, g, workgroups) => {
    seen.dispatches.push(workgroups);
    dispatch(enc, label, p, g, workgroups);
  });
  return seen;
}

describe('selected configs are the ones that run', () => {
  it('reduce with the tuned device row, then with a per-call override on top of it', async () => {
    const prim = createPrim(device, { adapterInfo: fake, configs: { reduce: reduceRows(['device', 'architecture', 'vendor']) } });
    const seen = watch(prim);
    const n = 100003;
    const seed = SEED + 2;
    const data = randomInput('u32', 'add', n, seed) as Uint32Array;
    let want = 0;
    for (const x of data) want = (want + x) >>> 0;

    expect(await prim.arrays.reduce(data), `tuned reduce seed=${seed}`).toBe(want);
    // 128 x 8 = 1024 per tile, 98 tiles, at most 3 workgroups, then one to fold the partials.
    expect(seen.kernels.map((k) => k.workgroupSize)).toEqual([128]);
    expect(seen.kernels[0]!.key).toContain(':128:8:shared');
    expect(seen.dispatches).toEqual([3, 1]);

    seen.kernels.length = 0;
    seen.dispatches.length = 0;
    const override: Partial<ReduceConfig> = { maxWorkgroups: 5, ...(prim.context.hasSubgroups ? { workgroupReduce: 'subgroup' as const } : {}) };
    expect(await prim.arrays.reduce(data, { config: override }), `override reduce seed=${seed}`).toBe(want);
    expect(seen.kernels[0]!.key).toContain(`:128:8:${override.workgroupReduce ?? 'shared'}`);
    expect(seen.dispatches).toEqual([5, 1]);
  });

  it('scan with the tuned device row (reduce-then-scan, 64 x 12), and transform with a tuned row', async () => {
    const prim = createPrim(device, {
      adapterInfo: fake,
      configs: {
        scan: [entry({ vendor: 'acme' }, INT4, S_VENDOR), entry({ vendor: 'acme', architecture: 'rdna9', device: 'x1000' }, INT4, S_DEVICE)],
        transform: [entry<TransformConfig>({ vendor: 'acme' }, INT4, { workgroupSize: 64, itemsPerThread: 4 })],
      },
    });
    const seen = watch(prim);
    for (const n of [1, 767, 768, 769, 50001]) {
      const seed = SEED + n + 3;
      const data = randomInput('i32', 'max', n, seed) as Int32Array;
      const got = await prim.arrays.inclusiveScan(data, { op: 'max' });
      expect(firstMismatch('i32', got, cpuScan('i32', cpuOp('i32', 'max'), data, false, undefined, -0x80000000)), `tuned scan n=${n} seed=${seed}`).toBeUndefined();
    }
    expect(new Set(seen.kernels.map((k) => k.workgroupSize))).toEqual(new Set([64]));
    seen.kernels.length = 0;
    seen.dispatches.length = 0;
    const data = randomInput('u32', 'add', 5000, SEED + 4) as Uint32Array;
    const got = await prim.arrays.transform(data, { expression: 'a ^ 0x5a5a5a5au' });
    expect(firstMismatch('u32', got, Array.from(data, (x) => (x ^ 0x5a5a5a5a) >>> 0)), `tuned transform seed=${SEED + 4}`).toBeUndefined();
    expect(seen.kernels.map((k) => k.workgroupSize)).toEqual([64]);
    expect(seen.dispatches).toEqual([Math.ceil(5000 / 256)]);
  });
});

describe('gridFor', () => {
  it('1-D up to the per-dimension limit, then a near-square fit that covers n', () => {
    expect(gridFor(0, 65535)).toEqual([1, 1]);
    expect(gridFor(1, 65535)).toEqual([1, 1]);
    expect(gridFor(65535, 65535)).toEqual([65535, 1]);
    expect(gridFor(65536, 65535)).toEqual([32768, 2]);
    expect(gridFor(2 ** 24, 65535)).toEqual([65281, 257]);
    expect(gridFor(65535 * 65535, 65535)).toEqual([65535, 65535]);
    expect(() => gridFor(65535 * 65535 + 1, 65535)).toThrow(RangeError);
    for (const n of [1, 2, 255, 256, 257, 65535, 65536, 65537, 131071, 131072, 1e6, 2 ** 24, 2 ** 24 + 1, 4e9]) {
      for (const max of [256, 65535]) {
        if (n > max * max) continue;
        const [x, y] = gridFor(n, max);
        expect(x * y, `n=${n} max=${max}`).toBeGreaterThanOrEqual(n);
        expect(x, `n=${n} max=${max}`).toBeLessThanOrEqual(max);
        expect(y, `n=${n} max=${max}`).toBeLessThanOrEqual(max);
        // Fewer than one row of idle workgroups.
        expect(x * y - n, `n=${n} max=${max}`).toBeLessThan(y);
        if (n <= max) expect([x, y]).toEqual([n, 1]);
      }
    }
  });
});

describe('a real 2-D dispatch (more than 65,535 workgroups)', () => {
  const n = 65536 * 256 + 5;
  const config = { workgroupSize: 64, itemsPerThread: 4 };
  let data: Uint32Array;
  beforeAll(() => {
    data = randomInput('u32', 'add', n, SEED + 5) as Uint32Array;
  });

  it('transform', async () => {
    const seen = watch(base);
    const got = (await base.arrays.transform(data, { expression: 'a * 2654435761u + 1u', config })) as Uint32Array;
    expect(seen.dispatches.length).toBe(1);
    expect(seen.dispatches[0]!).toBeGreaterThan(device.limits.maxComputeWorkgroupsPerDimension);
    let bad: string | undefined;
    for (let i = 0; i < n && !bad; i++) {
      const w = (Math.imul(data[i]!, 2654435761) + 1) >>> 0;
      if (got[i] !== w) bad = `at ${i}: got ${got[i]}, want ${w}`;
    }
    expect(bad, `2-D transform n=${n} seed=${SEED + 5}`).toBeUndefined();
  });

  it('inclusive scan', async () => {
    const seen = watch(base);
    const got = await base.arrays.inclusiveScan(data, { config });
    expect(Math.max(...seen.dispatches)).toBeGreaterThan(device.limits.maxComputeWorkgroupsPerDimension);
    let acc = 0;
    let bad: string | undefined;
    for (let i = 0; i < n && !bad; i++) {
      acc = (acc + data[i]!) >>> 0;
      if (got[i] !== acc) bad = `at ${i}: got ${got[i]}, want ${acc}`;
    }
    expect(bad, `2-D inclusive scan n=${n} seed=${SEED + 5} config=${JSON.stringify(config)}`).toBeUndefined();
  });
});
