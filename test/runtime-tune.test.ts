// Tuning at run time: prim.tune on the device (lavapipe here), rows installed into the Prim,
// the tune cache (memory, a Node file cache), keyed by adapter and version; and cold-cache
// timing (bench/timing, the campaign, the CLI).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  type AdapterInfoLike, type Prim, type TransformConfig, type TuneCache, type TunedEntry, WgprimError, createPrim, memoryTuneCache, tuneCacheKey,
  localStorageTuneCache, defaultTuneCache,
} from '../src/index.js';
import { tune, type TuneSummary } from '../src/tune/index.js';
import { fileTuneCache, defaultTuneCacheDir, tuneCacheFileName } from '../src/node/index.js';
import { encodeTuneCacheEntry, readTuneCache, TUNE_CACHE_FORMAT } from '../src/tune-cache.js';
import { COLD_CACHE_BYTES, timeGpu } from '../src/bench/timing.js';
import { benchmarkAlgorithm } from '../src/bench/run.js';
import { transformExpression } from '../src/device/transform/spec.js';
import { gbenchFile } from '../src/bench/gbench.js';
import { runCampaign } from '../src/tune/campaign.js';
import { defaultSettings, mergeSettings } from '../src/tune/settings.js';
import { settingsJsonSchema } from '../src/tune/settings-schema.js';
import { WGPRIM_VERSION } from '../src/bench/gbench.js';
import { testPrim } from './support/gpu.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url)).replace(/\/$/, '');
const TMP = fs.mkdtempSync(path.join(os.tmpdir(), 'wgprim-runtime-tune-'));

// Short timing, so that a budget of a few seconds measures several configs on lavapipe.
const QUICK = { warmup: 1, batches: 3, batchSize: 4 };
const ALGORITHMS = ['scan', 'reduce', 'transform'] as const;
const TYPES = ['u32', 'i32', 'f32', 'u64'] as const;

async function expectCode(p: Promise<unknown> | (() => unknown), code: string, text?: RegExp): Promise<void> {
  let err: unknown;
  try {
    await (typeof p === 'function' ? p() : p);
  } catch (e) {
    err = e;
  }
  expect(err, `expected WgprimError ${code}`).toBeInstanceOf(WgprimError);
  expect((err as WgprimError).code).toBe(code);
  if (text) expect((err as Error).message).toMatch(text);
}

/** Every (algorithm, type) selection of a Prim, for comparing two Prims. */
function selections(p: Prim): Record<string, { config: unknown; source: string }> {
  const out: Record<string, { config: unknown; source: string }> = {};
  for (const a of ALGORITHMS) for (const t of TYPES) {
    const s = p.selectedConfig(a, t);
    out[`${a} ${t}`] = { config: s.config, source: s.source };
  }
  return out;
}

/** The summary's installed rows, from its groups (must equal `summary.installed`). */
function rowsOfGroups(s: TuneSummary): Record<string, TunedEntry<unknown>[]> {
  const out: Record<string, TunedEntry<unknown>[]> = {};
  for (const g of s.groups) if (g.decision === 'installed') (out[g.algorithm] ??= []).push(g.row!);
  return out;
}

describe('prim.tune on the device', () => {
  let prim: Prim;
  let device: GPUDevice;
  let adapterInfo: AdapterInfoLike;
  beforeAll(async () => {
    prim = await testPrim();
    device = prim.device;
    adapterInfo = (device as GPUDevice & { adapterInfo: GPUAdapterInfo }).adapterInfo;
  });
  const fresh = (options: Parameters<typeof createPrim>[1] = {}): Prim => createPrim(device, { adapterInfo, ...options });

  it('rejects bad options with typed errors before measuring', async () => {
    const p = fresh();
    await expectCode(tune(p, { budgetMs: 0 }), 'invalid-argument', /budgetMs/);
    await expectCode(tune(p, {} as never), 'invalid-argument', /budgetMs/);
    await expectCode(tune(p, { budgetMs: 100, algorithms: ['radix_sort'] }), 'invalid-argument', /no tunable algorithm "radix_sort"/);
    await expectCode(tune(p, { budgetMs: 100, types: ['u8' as never] }), 'invalid-argument', /unknown type "u8"/);
    await expectCode(tune(p, { budgetMs: 100, sizes: [0] }), 'invalid-argument', /sizes/);
    await expectCode(tune(p, { budgetMs: 100, install: 'all' as never }), 'invalid-argument', /install/);
    await expectCode(tune(p, { budgetMs: 100, settings: { batches: 0 } }), 'invalid-argument', /batches must be an integer >= 1/);
    // Rows for an adapter without a vendor could never be selected.
    await expectCode(tune(createPrim(device, { adapterInfo: {} }), { budgetMs: 100 }), 'invalid-argument', /no vendor/);
    expect(p.runtimeTuned).toEqual({});
  });

  it('installs exactly the rows its summary reports, writes the cache, and refuses a second call meanwhile', async () => {
    const cache = memoryTuneCache();
    const p = fresh({ tuneCache: cache });
    expect(p.tuneCacheState).toMatchObject({ status: 'missing', rows: 0, key: tuneCacheKey(p.target) });
    const before = selections(p);
    const running = tune(p, { budgetMs: 3000, algorithms: ['transform', 'reduce'], types: ['u32', 'u64'], settings: QUICK });
    await expectCode(tune(p, { budgetMs: 100 }), 'invalid-argument', /already running/);
    const s = await running;
    console.log(`[runtime-tune] ${s.measurements} measurements in ${s.elapsedMs.toFixed(0)} ms${s.stopped ? ` (${s.stopped.message})` : ''}; ` +
      s.groups.map((g) => `${g.algorithm} ${g.type}: ${g.decision} (${g.detail})`).join('; '));

    expect(s.budgetMs).toBe(3000);
    // The budget is checked before each measurement: it ends within about one measurement of it.
    expect(s.elapsedMs).toBeLessThan(3000 + 2500);
    expect(s.measurements).toBeGreaterThan(0);
    expect(s.sizes).toEqual([2 ** 16]); // a CPU adapter's default size
    expect(s.groups.map((g) => `${g.algorithm} ${g.type}`)).toEqual(['transform u32', 'transform u64', 'reduce u32', 'reduce u64']);
    expect(s.file.context.tune_strategy).toBe('local');
    expect(s.file.context.cold_cache).toBe('false');
    expect(s.file.benchmarks.length).toBe(s.measurements);

    // The decision and the rows agree, group by group.
    expect(s.installed).toEqual(rowsOfGroups(s));
    expect(p.runtimeTuned).toEqual(s.installed);
    for (const g of s.groups) {
      const now = p.selectedConfig(g.algorithm as 'scan', g.type);
      const was = before[`${g.algorithm} ${g.type}`]!;
      if (g.decision === 'installed') {
        expect(now.source, `${g.algorithm} ${g.type}`).toBe('tuned:runtime');
        expect(now.entry).toBe(g.row);
        expect(now.config).toEqual(g.best!.config);
        expect(g.row!.target).toMatchObject({ vendor: p.target.vendor, device: p.target.device });
        expect(g.speedup!).toBeGreaterThan(1);
      } else {
        expect(g.row).toBeUndefined();
        expect({ config: now.config, source: now.source }, `${g.algorithm} ${g.type}`).toEqual(was);
        if (g.decision === 'default-best') expect(g.best!.config).toEqual(g.default!.config);
      }
      if (g.default) expect(g.default.config).toEqual(was.config);
    }
    // i32 shares u32's rows (one type class).
    expect(p.selectedConfig('reduce', 'i32').config).toEqual(p.selectedConfig('reduce', 'u32').config);

    // The cache holds this adapter's rows under its key.
    expect(s.cache).toEqual({ key: tuneCacheKey(p.target), written: true, rows: Object.values(s.installed).flat().length });
    const entry = JSON.parse(cache.entries.get(s.cacheKey)!);
    expect(entry).toMatchObject({ format: TUNE_CACHE_FORMAT, wgprimVersion: WGPRIM_VERSION, key: s.cacheKey, adapter: { vendor: p.target.vendor, device: p.target.device } });
    expect(entry.tables).toEqual(JSON.parse(JSON.stringify(s.installed)));
    expect(entry.tuned).toHaveLength(4);
  }, 60_000);

  it('tunes radix sort when named: its row goes to the radixSort table and is selected as tuned:runtime', async () => {
    const p = fresh();
    // A small tile, onesweep and reduce-then-scan: compiles fast on lavapipe.
    const space = { workgroupSize: [64], itemsPerThread: [4], radixBits: [8], rank: ['match'], workgroupScan: ['subgroup'], lookback: ['decoupled', 'reduce-then-scan'], histogramWorkgroupSize: [64], histogramItemsPerThread: [4] };
    const s = await tune(p, { budgetMs: 30_000, algorithms: ['radix_sort_onesweep'], types: ['u32'], sizes: [4096], install: 'best', cache: false, settings: { ...QUICK, strategy: 'exhaustive', algorithms: { radix_sort_onesweep: { space } } } });
    expect(s.algorithms).toEqual(['radix_sort_onesweep']);
    expect(s.groups).toHaveLength(1);
    expect(s.groups[0]).toMatchObject({ algorithm: 'radix_sort_onesweep', type: 'u32', decision: 'installed' });
    expect(s.installed.radixSort).toHaveLength(1);
    expect(p.selectedRadixSortConfig('u32')).toMatchObject({ source: 'tuned:runtime', config: s.installed.radixSort![0]!.config });
    expect(p.runtimeTuned.radixSort).toEqual(s.installed.radixSort);
  });

  it('a second createPrim with the same cache selects the same configs without measuring; other adapters and versions are ignored', async () => {
    // install: 'best' pins the best measured config of each group, so rows exist whatever the noise.
    const dir = path.join(TMP, 'file-cache');
    const cache = fileTuneCache(dir);
    const p = fresh({ tuneCache: cache });
    const s = await tune(p, { budgetMs: 2500, algorithms: ['transform', 'scan'], types: ['u32'], install: 'best', settings: QUICK });
    const installed = s.groups.filter((g) => g.decision === 'installed');
    expect(installed.length, s.groups.map((g) => `${g.algorithm}: ${g.decision} ${g.detail}`).join('; ')).toBeGreaterThan(0);
    for (const g of installed) {
      const sel = p.selectedConfig(g.algorithm as 'scan', g.type);
      expect(sel).toMatchObject({ source: 'tuned:runtime', config: g.best!.config });
    }
    expect(s.cache).toMatchObject({ written: true, rows: installed.length });
    expect(fs.existsSync(cache.fileOf(s.cacheKey))).toBe(true);
    expect(path.dirname(cache.fileOf(s.cacheKey))).toBe(path.resolve(dir));

    // Same adapter, same version, a new Prim and a new cache object on the same folder: the
    // rows are installed in the constructor, and no GPU work is submitted.
    let submits = 0;
    const submit = device.queue.submit.bind(device.queue);
    device.queue.submit = (cbs: Iterable<GPUCommandBuffer>) => {
      submits++;
      return submit(cbs);
    };
    let again: Prim;
    try {
      again = fresh({ tuneCache: fileTuneCache(dir) });
      expect(selections(again)).toEqual(selections(p));
    } finally {
      device.queue.submit = submit;
    }
    expect(submits).toBe(0);
    expect(again.tuneCacheState).toMatchObject({ status: 'loaded', rows: installed.length, key: s.cacheKey });
    expect(again.runtimeTuned).toEqual(JSON.parse(JSON.stringify(p.runtimeTuned)));
    const untuned = selections(fresh());
    expect(Object.entries(selections(again)).filter(([k, x]) => k.endsWith(' u32') && x.source === 'tuned:runtime')).toHaveLength(installed.length);

    // Another adapter (same device object, other identity) has another key: nothing to load.
    const other = createPrim(device, { adapterInfo: { ...adapterInfo, device: 'some-other-gpu' }, tuneCache: fileTuneCache(dir) });
    expect(other.tuneCacheState).toMatchObject({ status: 'missing', rows: 0 });
    expect(Object.values(selections(other)).some((x) => x.source === 'tuned:runtime')).toBe(false);

    // This adapter's entry rewritten as if another version or adapter had made it: ignored.
    const text = cache.get(s.cacheKey)!;
    const forged = (patch: (e: Record<string, unknown>) => void): string => {
      const e = JSON.parse(text) as Record<string, unknown>;
      patch(e);
      return JSON.stringify(e);
    };
    const cases: [string, string, RegExp][] = [
      ['version', forged((e) => (e.wgprimVersion = '0.0.1')), /tuned by wgprim "0\.0\.1", this is/],
      ['adapter', forged((e) => (e.adapter = { ...(e.adapter as object), device: 'some-other-gpu' })), /another adapter/],
      ['format', forged((e) => (e.formatVersion = 99)), /format version 99/],
      ['bad row', forged((e) => (e.tables = { scan: [{ target: {}, typeClass: { float: false, bytes: 4 }, config: { workgroupSize: 'x' } }] })), /config\.workgroupSize: must be a non-negative integer/],
      ['not JSON', '{"format":', /not JSON/],
    ];
    for (const [what, value, reason] of cases) {
      const mem = memoryTuneCache([[s.cacheKey, value]]);
      const q = fresh({ tuneCache: mem });
      expect(q.tuneCacheState?.status, what).toBe('ignored');
      expect(q.tuneCacheState?.reason, what).toMatch(reason);
      expect(selections(q), what).toEqual(untuned);
    }
    // The same entry stored under another version's key is never looked up.
    const keyed = memoryTuneCache([[tuneCacheKey(p.target, '0.0.1'), forged((e) => (e.wgprimVersion = '0.0.1'))]]);
    expect(fresh({ tuneCache: keyed }).tuneCacheState?.status).toBe('missing');
    // A cache that throws is ignored too: createPrim never fails because of it.
    const broken: TuneCache = { get: () => { throw new Error('disk on fire'); }, set: () => undefined };
    expect(fresh({ tuneCache: broken }).tuneCacheState).toMatchObject({ status: 'ignored', reason: expect.stringMatching(/disk on fire/) });
  }, 60_000);

  it('useTuned installs validated rows first, replaces by target and type class, and reports tuned:runtime', () => {
    const p = fresh();
    const t = p.target;
    const row = (ipt: number): TunedEntry<TransformConfig> => ({
      target: { vendor: t.vendor, architecture: t.architecture, device: t.device }, typeClass: { float: false, bytes: 4 },
      config: { workgroupSize: 64, itemsPerThread: ipt }, evidence: { itemsPerSecond: 1, cv: 0, size: 1, date: '2026-01-01', version: WGPRIM_VERSION },
    });
    p.useTuned({ transform: [row(4)] });
    expect(p.selectedConfig('transform', 'u32')).toMatchObject({ source: 'tuned:runtime', config: { workgroupSize: 64, itemsPerThread: 4 } });
    p.useTuned({ transform: [row(12)] });
    expect(p.runtimeTuned.transform).toHaveLength(1);
    expect(p.selectedConfig('transform', 'i32')).toMatchObject({ source: 'tuned:runtime', config: { itemsPerThread: 12 } });
    // A per-call override still wins and says so.
    expect(p.selectedConfig('transform', 'u32', { itemsPerThread: 8 })).toMatchObject({ source: 'user', config: { workgroupSize: 64, itemsPerThread: 8 } });
    expect(() => p.useTuned({ transform: [{ ...row(4), config: { workgroupSize: 64 } as never }] })).toThrow(/config\.itemsPerThread: must be a non-negative integer/);
    p.useTuned({}, { replace: true });
    expect(p.runtimeTuned).toEqual({});
    expect(p.selectedConfig('transform', 'u32').source).not.toBe('tuned:runtime');
  });
});

// ---------------------------------------------------------------------------------------------

describe('tune caches', () => {
  const target = { vendor: 'acme', architecture: 'rocket', device: 'r-9000', description: 'ACME R-9000 (driver 1.2)' };

  it('the Node file cache round-trips in a folder, one file per key, and says where it fails', () => {
    const dir = path.join(TMP, 'files', 'deeper');
    const c = fileTuneCache(dir);
    const key = tuneCacheKey(target);
    expect(key).toBe(`wgprim-tune/${WGPRIM_VERSION}/acme/rocket/r-9000/ACME R-9000 (driver 1.2)`);
    expect(c.get(key)).toBeUndefined();
    expect(fs.existsSync(dir)).toBe(false); // made on the first write
    const value = encodeTuneCacheEntry(target, {});
    c.set(key, value);
    expect(JSON.parse(c.get(key)!)).toEqual(JSON.parse(value));
    expect(fs.readdirSync(dir)).toEqual([tuneCacheFileName(key)]);
    expect(tuneCacheFileName(key)).toMatch(/^wgprim-tune-0\.1\.0-acme-rocket-r-9000-acme-r-9000-driver-1\.2-[0-9a-f]{8}\.json$/);
    // Keys that slug alike still get their own files.
    expect(tuneCacheFileName('a/b')).not.toBe(tuneCacheFileName('a b'));
    // A fresh object on the same folder reads what the first wrote; readTuneCache accepts it.
    expect(readTuneCache(fileTuneCache(dir), target).state).toMatchObject({ status: 'loaded', rows: 0 });
    c.set(key, encodeTuneCacheEntry(target, {}, ['transform u32: default-best']));
    expect(JSON.parse(fs.readFileSync(c.fileOf(key), 'utf8')).tuned).toEqual(['transform u32: default-best']);
    c.delete!(key);
    expect(c.get(key)).toBeUndefined();
    // Under a plain file, the folder cannot be made: a typed error.
    const file = path.join(TMP, 'plain-file');
    fs.writeFileSync(file, 'x');
    let err: unknown;
    try {
      fileTuneCache(path.join(file, 'sub')).set(key, value);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(WgprimError);
    expect((err as WgprimError).code).toBe('cache-failed');
    expect(defaultTuneCacheDir({ XDG_CACHE_HOME: '/x/cache' })).toBe('/x/cache/wgprim');
    expect(defaultTuneCacheDir({ XDG_CACHE_HOME: 'relative' })).toBe(path.join(os.homedir(), '.cache', 'wgprim'));
    expect(defaultTuneCacheDir({})).toBe(path.join(os.homedir(), '.cache', 'wgprim'));
  });

  it('localStorage: used where a page has it, a typed error where there is none', () => {
    const store = new Map<string, string>();
    const storage = {
      getItem: (k: string) => store.get(k) ?? null,
      setItem: (k: string, v: string) => {
        if (v.length > 10_000) throw new Error('QuotaExceededError');
        store.set(k, v);
      },
      removeItem: (k: string) => void store.delete(k),
    };
    const c = localStorageTuneCache(storage);
    expect(c.get('k')).toBeNull();
    c.set('k', 'v');
    expect(store.get('k')).toBe('v');
    expect(() => c.set('k', 'x'.repeat(20_000))).toThrow(/localStorage refused/);
    // Node (20) has no localStorage: a typed error, and the default falls back to memory.
    const g = globalThis as { localStorage?: unknown };
    const had = 'localStorage' in g;
    const saved = g.localStorage;
    try {
      delete g.localStorage;
      let err: unknown;
      try {
        localStorageTuneCache();
      } catch (e) {
        err = e;
      }
      expect((err as WgprimError).code).toBe('invalid-argument');
      expect('entries' in defaultTuneCache()).toBe(true);
      g.localStorage = storage;
      defaultTuneCache().set('via-global', '1');
      expect(store.get('via-global')).toBe('1');
    } finally {
      if (had) g.localStorage = saved;
      else delete g.localStorage;
    }
  });
});

// ---------------------------------------------------------------------------------------------

describe('cold-cache timing', () => {
  let prim: Prim;
  beforeAll(async () => {
    prim = await testPrim();
  });

  it('clears a scratch buffer before every timed call, outside the timed region, and says how much', async () => {
    const device = prim.device;
    const timestamps = device.features.has('timestamp-query');
    const n = 4096;
    const usage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST;
    const input = device.createBuffer({ size: n * 4, usage });
    const output = device.createBuffer({ size: n * 4, usage });
    // Count the clears: each encoder the timing makes gets a counting clearBuffer.
    let clears = 0;
    let clearedBytes = 0;
    const counting = {
      device: new Proxy(device, {
        get(target, prop) {
          if (prop === 'createCommandEncoder') {
            return (d?: GPUCommandEncoderDescriptor) => {
              const enc = target.createCommandEncoder(d);
              const clear = enc.clearBuffer.bind(enc);
              enc.clearBuffer = (b: GPUBuffer, offset?: number, size?: number) => {
                clears++;
                clearedBytes = b.size;
                return clear(b, offset, size);
              };
              return enc;
            };
          }
          const v = Reflect.get(target, prop, target) as unknown;
          return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
        },
      }),
    };
    const record = (enc: GPUCommandEncoder): Promise<void> => prim.transform(enc, { input, output, count: n, type: 'u32', expression: transformExpression('u32') });
    const warm = await timeGpu(counting, record, { warmup: 1, batches: 2, batchSize: 3 });
    expect(clears).toBe(0);
    expect(warm.coldCacheBytes).toBe(0);
    // Settling off, so that the batches timed are exactly those asked for.
    const cold = await timeGpu(counting, record, { warmup: 1, batches: 2, batchSize: 3, coldCache: true, settleMs: 0 });
    expect(cold.coldCacheBytes).toBe(Math.min(COLD_CACHE_BYTES, device.limits.maxBufferSize));
    expect(clearedBytes).toBe(cold.coldCacheBytes);
    // Timestamps: one clear per call; the wall clock: one per batch.
    expect(clears).toBe(timestamps ? 6 : 2);
    expect(cold.times).toHaveLength(timestamps ? 6 : 2);
    expect(cold.times.every((t) => t > 0)).toBe(true);
    clears = 0;
    const wall = await timeGpu(counting, record, { warmup: 0, batches: 2, batchSize: 3, coldCache: true, coldCacheBytes: 1 << 20, forceWallClock: true, settleMs: 0 });
    expect(clears).toBe(2);
    expect(wall.coldCacheBytes).toBe(1 << 20);
    expect(wall.method).toBe('wall-clock');
    await expectCode(() => timeGpu(prim, record, { warmup: 0, batches: 1, batchSize: 1, coldCache: true, coldCacheBytes: 2 }), 'invalid-argument', /coldCacheBytes/);
    input.destroy();
    output.destroy();
  });

  it('bench records cold_cache in the context; a cold campaign too, and will not resume a warm file', async () => {
    const records = await benchmarkAlgorithm(prim, { algorithm: 'reduce', type: 'u32', size: 4096, seed: 1, warmup: 0, batches: 1, batchSize: 2, coldCache: true });
    expect(records).toHaveLength(1);
    const file = gbenchFile(records, { adapterInfo: {}, size: 4096, seed: 1, batchIterations: 2, warmupIterations: 0, batches: 1, timing: records[0]!.method, coldCache: true });
    expect(file.context.cold_cache).toBe('true');
    expect(gbenchFile(records, { adapterInfo: {}, size: 4096, seed: 1, batchIterations: 2, warmupIterations: 0, batches: 1, timing: 'wall-clock' }).context.cold_cache).toBe('false');

    const adapterInfo = (prim.device as GPUDevice & { adapterInfo: GPUAdapterInfo }).adapterInfo;
    const tiny = { warmup: 0, batches: 1, batchSize: 2, algorithms: { transform: { space: { workgroupSize: [64], itemsPerThread: [4] }, types: ['u32'], sizes: [4096] } } };
    const settings = mergeSettings(defaultSettings('cpu'), { ...tiny, coldCache: true });
    expect(mergeSettings(defaultSettings('cpu'), tiny).coldCache).toBe(false);
    expect(() => mergeSettings(defaultSettings('cpu'), { coldCache: 'yes' as never })).toThrow(/coldCache must be true or false/);
    expect((settingsJsonSchema() as { properties: Record<string, unknown> }).properties.coldCache).toEqual({ type: 'boolean' });
    const r = await runCampaign(prim, { settings, algorithms: ['transform'], adapterInfo, settleMs: 0 });
    expect(r.file.context.cold_cache).toBe('true');
    expect(r.errors).toBe(0);
    expect(r.measured).toBeGreaterThan(0);
    // Resuming a warm file cold mixes figures: refused.
    const warmFile = { ...r.file, context: { ...r.file.context, cold_cache: 'false' } };
    await expectCode(runCampaign(prim, { settings, algorithms: ['transform'], adapterInfo, existing: warmFile, existingLabel: 'warm.json' }), 'invalid-argument', /warm\.json was measured with a warm cache/);
    // The same file, cold, resumes with nothing left to measure.
    const resumed = await runCampaign(prim, { settings, algorithms: ['transform'], adapterInfo, existing: r.file, settleMs: 0 });
    expect(resumed.measured).toBe(0);
  }, 60_000);

  it('wgprim bench --cold writes cold_cache "true" into the file; wgprim tune --cold sets coldCache', () => {
    const main = path.join(ROOT, 'dist/cli/main.js');
    if (!fs.existsSync(main)) execFileSync('npx', ['tsc', '-p', 'tsconfig.json'], { cwd: ROOT, stdio: 'inherit' });
    const out = path.join(TMP, 'cold.json');
    const run = spawnSync('node', [main, 'bench', '--algorithm', 'transform', '--size', '4096', '--warmup', '0', '--batches', '1', '--batch-size', '2', '--cold', '-q', `--benchmark_out=${out}`], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
    expect(run.status, run.stderr).toBe(0);
    const file = JSON.parse(fs.readFileSync(out, 'utf8')) as { context: Record<string, unknown>; benchmarks: unknown[] };
    expect(file.context.cold_cache).toBe('true');
    expect(file.benchmarks).toHaveLength(1);
    // wgprim tune --cold sets the settings' coldCache.
    const settings = spawnSync('node', [main, 'tune', '--cold', '--print-settings'], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
    expect(settings.status, settings.stderr).toBe(0);
    expect(JSON.parse(settings.stdout).coldCache).toBe(true);
    const plain = spawnSync('node', [main, 'tune', '--print-settings'], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
    expect(JSON.parse(plain.stdout).coldCache).toBe(false);
  }, 60_000);
});
