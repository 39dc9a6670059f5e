import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestDevice, type NodeDevice } from '../src/node/index.js';
import { createPrim, type Prim } from '../src/prim.js';
import { type BenchRecord, formatName, gbenchFile, nameToJson, parseName, rawEntryName, sizeOfEntryName, type GBenchFile } from '../src/bench/gbench.js';
import { gbenchProblems, ResultStore } from '../src/tune/results.js';
import { benchmarkAlgorithm, configFromName, configNameFields, expandAlgorithm, RANDOM_BLOCK, randomBlock, randomBuffer, randomSortKeys } from '../src/bench/run.js';
import { radixSortName, reduceName, scanName, transformName } from './support/names.js';
import { anchorRatio } from '../src/cli/table.js';
import { dawnFlagsFromEnv } from '../src/cli/device.js';
import { dawnCreateFlags } from '../src/node/index.js';
import { timeGpu, timingStats } from '../src/bench/timing.js';
import { benchFlags } from '../src/bench/inputs.js';
import { typeInfo } from '../src/wgsl/types.js';
import { TABLES } from '../src/algorithms.js';
import { interruptAfterFirstRecord } from './support/interrupt.js';

const root = path.resolve(__dirname, '..');

describe('benchmark names (rocPRIM grammar)', () => {
  it('converts rocPRIM\'s documented example to its json form', () => {
    expect(nameToJson('{lvl:device,algo:reduce,key_type:int,cfg:{bs:256,ipt:8,method:using_warp_reduce}}'))
      .toBe('{"lvl":"device","algo":"reduce","key_type":"int","cfg":{"bs":256,"ipt":8,"method":"using_warp_reduce"}}');
  });

  it('round-trips format -> parse -> format, with /manual_time, nesting and custom_type<a,b>', () => {
    const fields = {
      lvl: 'device', algo: 'radix_sort_onesweep', key_type: 'custom_type<char,double>', value_type: 'empty_type',
      cfg: { histogram: { bs: 256, ipt: 8 }, sort: { bs: 512, ipt: 16 }, bits_per_place: 8, algorithm: 'block_radix_rank_algorithm::match' },
    };
    const raw = formatName(fields);
    const parsed = parseName(`${raw}/manual_time`);
    expect(parsed).toEqual(fields);
    expect(formatName(parsed)).toBe(raw);
  });

  it('names each algorithm from its config and maps the cfg back', () => {
    const scan = { workgroupSize: 256, itemsPerThread: 16, lookback: 'reduce-then-scan', workgroupScan: 'subgroup' } as const;
    const sName = scanName(true, 'u32', scan);
    expect(sName).toBe('{lvl:device,algo:scan,exclusive:true,value_type:u32,cfg:{bs:256,ipt:16,lookback:reduce_then_scan,method:subgroup}}');
    const sp = parseName(sName);
    expect(sp.exclusive).toBe('true');
    expect(configFromName('scan', sp.cfg as never)).toEqual(scan);
    const reduce = { workgroupSize: 128, itemsPerThread: 8, maxWorkgroups: 1024, workgroupReduce: 'shared' } as const;
    expect(configFromName('reduce', parseName(reduceName('f32', reduce)).cfg as never)).toEqual(reduce);
    expect(parseName(transformName('u64', { workgroupSize: 64, itemsPerThread: 4 }))).toEqual({ lvl: 'device', algo: 'transform', value_type: 'u64', cfg: { bs: 64, ipt: 4 } });
    const radix = {
      workgroupSize: 256, itemsPerThread: 15, radixBits: 8, rank: 'match', workgroupScan: 'subgroup', lookback: 'decoupled', histogramWorkgroupSize: 512, histogramItemsPerThread: 16, decoupledMaxCount: 0, passKernels: 'specialized',
    } as const;
    const rName = radixSortName('u32', 'empty', radix);
    expect(rName).toBe('{lvl:device,algo:radix_sort_onesweep,key_type:u32,value_type:empty,cfg:{bs:256,ipt:15,bits:8,rank:match,method:subgroup,lookback:decoupled,hist_bs:512,hist_ipt:16}}');
    expect(configFromName('radix_sort_onesweep', parseName(rName).cfg as never)).toEqual(radix);
    // Shared pass kernels are named (pk); specialized ones, the default, are not.
    const split = { ...radix, itemsPerThread: 8, radixBits: 4, rank: 'split', workgroupScan: 'shared', lookback: 'reduce-then-scan', passKernels: 'shared' } as const;
    expect(parseName(radixSortName('i64', 'empty', split)).cfg).toMatchObject({ rank: 'split', method: 'shared', lookback: 'reduce_then_scan', pk: 'shared' });
    expect(configFromName('radix_sort_onesweep', parseName(radixSortName('i64', 'empty', split)).cfg as never)).toEqual(split);
    expect(() => configFromName('radix_sort', parseName(rName).cfg as never)).toThrow(/no config mapping/);
    expect(parseName(radixSortName('f32', 'u32', radix)).value_type).toBe('u32');
    expect(expandAlgorithm('radix_sort_pairs')).toEqual(['radix_sort_pairs']);
  });

  it('puts the size in each entry\'s name (GBench\'s named-argument form), so several sizes name each run once; old names still read', () => {
    const raw = reduceName('u32', { workgroupSize: 128, itemsPerThread: 8, maxWorkgroups: 1024, workgroupReduce: 'shared' });
    const stats = timingStats([1, 1.1]);
    const record = (size: number): BenchRecord => ({
      name: raw, algorithm: 'reduce', type: 'u32', size, bytesPerCall: 4 * size, times: [1, 1.1], stats, calls: 2, hostMs: 2.2, method: 'timestamp-query', configSource: 'heuristic', config: {},
    });
    const file = gbenchFile([record(2 ** 20), record(2 ** 24)], { adapterInfo: {}, size: [2 ** 20, 2 ** 24], seed: 1, batchIterations: 2, warmupIterations: 1, batches: 1, timing: 'timestamp-query' });
    expect(file.benchmarks.map((b) => b.name)).toEqual([`${raw}/size:1048576/manual_time`, `${raw}/size:16777216/manual_time`]);
    // One family, two instances, as GBench numbers one benchmark at two arguments.
    expect(file.benchmarks.map((b) => [b.family_index, b.per_family_instance_index])).toEqual([[0, 0], [0, 1]]);
    for (const b of file.benchmarks) {
      expect(rawEntryName(b.name)).toBe(raw);
      expect(sizeOfEntryName(b.name)).toBe(b.size);
      // rocPRIM's scripts take the greedy {.*}: the fields are what they were.
      expect(parseName(b.name)).toEqual(parseName(raw));
      expect(gbenchProblems({ context: file.context, benchmarks: [b] })).toEqual([]);
    }
    // Files written before: `{...}/manual_time`.
    expect(rawEntryName(`${raw}/manual_time`)).toBe(raw);
    expect(sizeOfEntryName(`${raw}/manual_time`)).toBeUndefined();
    expect(gbenchProblems({ context: file.context, benchmarks: [{ ...file.benchmarks[0]!, name: `${raw}/manual_time`, run_name: `${raw}/manual_time` }] })).toEqual([]);
    // A resumed campaign finds an old entry under the key its new name has.
    const store = new ResultStore([{ ...file.benchmarks[0]!, name: `${raw}/manual_time`, run_name: `${raw}/manual_time` }]);
    expect(store.get(raw, 2 ** 20)).toBeDefined();
    expect(store.get(`${raw}/size:1048576/manual_time`, 2 ** 20)).toBeDefined();
    expect(store.addRecord(record(2 ** 24))).toMatchObject({ name: `${raw}/size:16777216/manual_time`, family_index: 0, per_family_instance_index: 1 });
    expect(store.addError(raw, 2 ** 26, 'out of memory')).toMatchObject({ name: `${raw}/size:67108864/manual_time`, family_index: 0, per_family_instance_index: 2 });
  });

  it('WGPRIM_DAWN_FLAGS: space-separated Dawn flags, recorded in the context only when given', () => {
    expect(dawnCreateFlags([])).toEqual(['disable-dawn-features=timestamp_quantization']);
    // A caller's disable list joins wgprim's rather than replacing it (Dawn keeps the last of a key).
    expect(dawnCreateFlags(['disable-dawn-features=a_b,timestamp_quantization', 'enable-dawn-features=e', 'backend=vulkan', 'disable-dawn-features=c'])).toEqual([
      'disable-dawn-features=timestamp_quantization,a_b,c',
      'enable-dawn-features=e',
      'backend=vulkan',
    ]);
    expect(dawnFlagsFromEnv({})).toEqual([]);
    expect(dawnFlagsFromEnv({ WGPRIM_DAWN_FLAGS: '  ' })).toEqual([]);
    const flags = dawnFlagsFromEnv({ WGPRIM_DAWN_FLAGS: ' disable-dawn-features=a_b,c_d  enable-dawn-features=e ' });
    expect(flags).toEqual(['disable-dawn-features=a_b,c_d', 'enable-dawn-features=e']);
    const run = { adapterInfo: {}, size: 1, seed: 1, batchIterations: 1, warmupIterations: 1, batches: 1, timing: 'timestamp-query' } as const;
    expect(gbenchFile([], run, { dawnFlags: flags }).context.dawn_flags).toBe('disable-dawn-features=a_b,c_d enable-dawn-features=e');
    expect('dawn_flags' in gbenchFile([], run, { dawnFlags: [] }).context).toBe(false);
    expect(gbenchProblems(gbenchFile([], run, { dawnFlags: flags }))).toEqual([]);
  });

  it('rejects names rocPRIM rejects', () => {
    expect(() => parseName('{lvl:device,algo:reduce}')).toThrow(/cfg/);
    expect(() => parseName('no braces')).toThrow();
    expect(() => formatName({ lvl: 'device', algo: 'a-b' })).toThrow();
  });
});

describe('timing statistics', () => {
  it('uses the sample standard deviation and cv = stddev / mean', () => {
    const s = timingStats([1, 2, 3, 4]);
    expect(s.mean).toBe(2.5);
    expect(s.median).toBe(2.5);
    expect(s.stddev).toBeCloseTo(Math.sqrt(5 / 3), 12);
    expect(s.cv).toBeCloseTo(Math.sqrt(5 / 3) / 2.5, 12);
    expect(timingStats([7]).cv).toBe(0);
  });

  it('generates the same seeded data every time, in [0, 1000]', () => {
    const a = randomBlock(typeInfo('u32'), 1000, 42);
    expect(randomBlock(typeInfo('u32'), 1000, 42)).toEqual(a);
    expect(randomBlock(typeInfo('u32'), 1000, 43)).not.toEqual(a);
    expect(Math.max(...new Uint32Array(a.buffer))).toBeLessThanOrEqual(1000);
  });
});

describe('on a device', () => {
  let nd: NodeDevice;
  let prim: Prim;
  beforeAll(async () => {
    nd = await requestDevice();
    prim = createPrim(nd.device, { adapterInfo: nd.adapterInfo });
  });
  afterAll(() => nd?.device.destroy());

  it('fills sort keys fresh to the end (the first block the seeded keys), values by repeating one block', async () => {
    const read = async (b: GPUBuffer): Promise<Uint32Array> => {
      const staging = nd.device.createBuffer({ size: b.size, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
      const enc = nd.device.createCommandEncoder();
      enc.copyBufferToBuffer(b, 0, staging, 0, b.size);
      nd.device.queue.submit([enc.finish()]);
      await staging.mapAsync(GPUMapMode.READ);
      const words = new Uint32Array(staging.getMappedRange().slice(0));
      staging.destroy();
      b.destroy();
      return words;
    };
    const n = RANDOM_BLOCK + 1000;
    for (const type of ['u32', 'u64'] as const) {
      const t = typeInfo(type);
      const w = t.bytes / 4;
      const keys = await read(await randomBuffer(nd.device, t, n, 7, 'keys', 'sort-keys'));
      expect(keys.subarray(0, RANDOM_BLOCK * w)).toEqual(new Uint32Array(randomSortKeys(t, RANDOM_BLOCK, 7).buffer));
      const tail = keys.subarray(RANDOM_BLOCK * w);
      const head = keys.subarray(0, 1000 * w);
      // Fresh keys: equal words where the block would repeat are chance (2^-32 each).
      expect(tail.filter((x, i) => x === head[i]).length, type).toBeLessThan(3);
    }
    const values = await read(await randomBuffer(nd.device, typeInfo('u32'), n, 7));
    expect(values.subarray(RANDOM_BLOCK)).toEqual(values.subarray(0, 1000));
  });

  it('warms up for at least warmupMs (in submits that grow to keep the GPU busy), and rejects a bad warmupMs', async () => {
    let calls = 0;
    const record = (): void => void calls++;
    const t0 = performance.now();
    await timeGpu(prim, record, { warmup: 2, warmupMs: 120, batches: 1, batchSize: 1, forceWallClock: true });
    expect(performance.now() - t0).toBeGreaterThanOrEqual(120);
    // More than one warmup submit, the later ones of more calls (an empty call takes no time).
    expect(calls).toBeGreaterThan(3 + 2);
    calls = 0;
    // Settling off: exactly the one timed call.
    await timeGpu(prim, record, { warmup: 0, warmupMs: 0, batches: 1, batchSize: 1, forceWallClock: true, settleMs: 0 });
    expect(calls).toBe(1);
    await expect(timeGpu(prim, record, { warmup: 1, warmupMs: -1, batches: 1, batchSize: 1 })).rejects.toThrow(/warmupMs/);
  });

  it('settles before the kept batches and reports it; keeps the batches asked for', async () => {
    let calls = 0;
    const record = (): void => void calls++;
    // Empty calls: batches agree within the timer's resolution, so the first two are kept.
    const r = await timeGpu(prim, record, { warmup: 0, batches: 4, batchSize: 3, forceWallClock: true });
    expect(r.times).toHaveLength(4);
    expect(r.wallBatchMs).toHaveLength(4);
    expect(r.stability.warmupBatches + r.stability.remeasuredBatches).toBe(calls / 3 - 4);
    expect(typeof r.stability.stable).toBe('boolean');
  });

  it('times each call with timestamps, plausibly against the wall clock, and falls back to the wall clock', async () => {
    const n = 1 << 18;
    const input = nd.device.createBuffer({ size: n * 4, usage: GPUBufferUsage.STORAGE });
    const output = nd.device.createBuffer({ size: 16, usage: GPUBufferUsage.STORAGE });
    const record = (enc: GPUCommandEncoder): Promise<void> => prim.reduce(enc, { input, output, count: n, type: 'u32' });
    try {
      const gpu = await timeGpu(prim, record, { warmup: 1, batches: 3, batchSize: 4 });
      expect(gpu.method).toBe(nd.device.features.has('timestamp-query') ? 'timestamp-query' : 'wall-clock');
      if (gpu.method === 'timestamp-query') {
        expect(gpu.times).toHaveLength(12);
        // A batch's GPU time cannot much exceed the host time from its submit to its completion.
        for (let b = 0; b < 3; b++) {
          const sum = gpu.times.slice(4 * b, 4 * b + 4).reduce((s, x) => s + x, 0);
          expect(sum).toBeLessThanOrEqual(gpu.wallBatchMs[b]! * 1.5 + 0.5);
        }
      }
      const wall = await timeGpu(prim, record, { warmup: 0, batches: 2, batchSize: 3, forceWallClock: true });
      expect(wall.method).toBe('wall-clock');
      expect(wall.times).toHaveLength(2);
      for (const r of [gpu, wall]) {
        for (const t of r.times) expect(t).toBeGreaterThan(0);
        expect(Number.isFinite(r.stats.cv)).toBe(true);
        expect(r.stats.cv).toBeGreaterThanOrEqual(0);
        expect(r.stats.median).toBeGreaterThan(0);
      }
    } finally {
      input.destroy();
      output.destroy();
    }
  });

  it('writes a complete Google Benchmark file', async () => {
    const common = { type: 'u32' as const, size: 5000, seed: 1, warmup: 1, batches: 2, batchSize: 2 };
    const records = [
      ...(await benchmarkAlgorithm(prim, { ...common, algorithm: 'scan' })),
      ...(await benchmarkAlgorithm(prim, { ...common, algorithm: 'reduce', config: { maxWorkgroups: 64 } })),
      ...(await benchmarkAlgorithm(prim, { ...common, algorithm: 'transform', type: 'u64' })),
    ];
    expect(records.map((r) => r.algorithm)).toEqual(['inclusive_scan', 'exclusive_scan', 'reduce', 'transform']);
    expect(records[2]!.configSource).toBe('user');
    expect(records.map((r) => r.bytesPerCall)).toEqual([40000, 40000, 20000, 80000]);
    const file = gbenchFile(records, { adapterInfo: nd.adapterInfo, size: 5000, seed: 1, batchIterations: 2, warmupIterations: 1, batches: 2, timing: records[0]!.method });
    validateFile(JSON.parse(JSON.stringify(file)) as GBenchFile);
    expect(file.benchmarks.map((b) => b.family_index)).toEqual([0, 1, 2, 3]);
    expect(parseName(file.benchmarks[2]!.name)).toMatchObject({ algo: 'reduce', key_type: 'u32', cfg: { max_wg: 64 } });
    expect(file.benchmarks[3]!.items_per_second).toBeCloseTo(5000 / (file.benchmarks[3]!.real_time / 1e3), 3);
  });

  it('times select by u32 and by byte flags: the same random flags, half set, and a byte a flag counted as read', async () => {
    const n = 5003;
    // What each flags buffer selects of 0..n-1 (the buffers are the kernels' to read, not copyable).
    const input = nd.device.createBuffer({ size: 4 * n, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
    nd.device.queue.writeBuffer(input, 0, Uint32Array.from({ length: n }, (_, i) => i));
    const selected = async (flagBytes: 1 | 4): Promise<number[]> => {
      const output = nd.device.createBuffer({ size: 4 * n, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC });
      const count = nd.device.createBuffer({ size: 4, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC });
      const staging = nd.device.createBuffer({ size: 4 * n + 4, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
      const enc = nd.device.createCommandEncoder();
      await prim.select(enc, { input, output, count: n, type: 'u32', selectedCount: count, flags: await benchFlags(nd.device, n, 3, 'test:', flagBytes), flagBytes });
      enc.copyBufferToBuffer(count, 0, staging, 0, 4);
      enc.copyBufferToBuffer(output, 0, staging, 4, 4 * n);
      nd.device.queue.submit([enc.finish()]);
      await staging.mapAsync(GPUMapMode.READ);
      const words = new Uint32Array(staging.getMappedRange().slice(0));
      for (const b of [output, count, staging]) b.destroy();
      return Array.from(words.subarray(1, 1 + words[0]!));
    };
    const byWords = await selected(4);
    expect(await selected(1)).toEqual(byWords);
    expect(byWords.length).toBeGreaterThan(0.45 * n);
    expect(byWords.length).toBeLessThan(0.55 * n);
    input.destroy();
    const common = { type: 'u32' as const, size: n, seed: 1, warmup: 1, batches: 2, batchSize: 2 };
    const records = [
      ...(await benchmarkAlgorithm(prim, { ...common, algorithm: 'select_flag' })),
      ...(await benchmarkAlgorithm(prim, { ...common, algorithm: 'select_flag_u8' })),
    ];
    expect(records.map((r) => r.algorithm)).toEqual(['select_flag', 'select_flag_u8']);
    // Input, flags, and the half selected written: 4 + 4 + 2 bytes an element, or 4 + 1 + 2.
    expect(records.map((r) => r.bytesPerCall)).toEqual([10 * n, 7 * n]);
    expect(records[1]!.config).toEqual(records[0]!.config);
  });

  it('times radix sort keys and pairs: keys/s, input read and output written once, CUB anchors matched', async () => {
    const common = { type: 'u32' as const, size: 5000, seed: 1, warmup: 1, batches: 2, batchSize: 2 };
    const config = { workgroupSize: 64, itemsPerThread: 4, radixBits: 8, rank: 'split', workgroupScan: 'shared', lookback: 'reduce-then-scan', histogramWorkgroupSize: 64, histogramItemsPerThread: 4 } as const;
    const records = [
      ...(await benchmarkAlgorithm(prim, { ...common, algorithm: 'radix_sort_keys', config })),
      ...(await benchmarkAlgorithm(prim, { ...common, algorithm: 'radix_sort_pairs' })),
    ];
    expect(records.map((r) => r.algorithm)).toEqual(['radix_sort_keys', 'radix_sort_pairs']);
    expect(records.map((r) => r.bytesPerCall)).toEqual([40000, 80000]);
    expect(records[0]!.name).toBe('{lvl:device,algo:radix_sort_onesweep,key_type:u32,value_type:empty,cfg:{bs:64,ipt:4,bits:8,rank:split,method:shared,lookback:reduce_then_scan,hist_bs:64,hist_ipt:4,pk:shared}}');
    expect(parseName(records[1]!.name)).toMatchObject({ algo: 'radix_sort_onesweep', key_type: 'u32', value_type: 'u32' });
    expect(records[1]!.config).toEqual(prim.selectedRadixSortConfig('u32', 4).config);
    // CUB's time over ours at the same n (CUB's items may count something else: lower_bound's queries).
    const anchors = [
      { algo: 'radix_sort_keys', type: 'u32', n: 5000, ms: 2, gitems_per_s: 5000 / 2e-3 / 1e9 },
      { algo: 'radix_sort_pairs', type: 'u32:u32', n: 5000, ms: 3, gitems_per_s: 5000 / 3e-3 / 1e9 },
    ];
    for (const [i, r] of records.entries()) expect(anchorRatio(anchors, r)).toBeCloseTo((i === 0 ? 2 : 3) / r.stats.median, 9);
    expect(anchorRatio([{ algo: 'lower_bound', type: 'u32/q2^20', n: 5000, ms: 0.5, gitems_per_s: 2 }], { ...records[0]!, algorithm: 'lower_bound' })).toBeCloseTo(0.5 / records[0]!.stats.median, 9);
  });
});

describe('wgprim CLI', () => {
  it('info: each selected config as benchmark names abbreviate it, whole with --json', () => {
    const main = path.join(root, 'dist/cli/main.js');
    if (!fs.existsSync(main)) execFileSync('npx', ['tsc', '-p', 'tsconfig.json'], { cwd: root, stdio: 'inherit' });
    const text = spawnSync('node', [main, 'info'], { cwd: root, encoding: 'utf8', timeout: 60_000 });
    const json = spawnSync('node', [main, 'info', '--json'], { cwd: root, encoding: 'utf8', timeout: 60_000 });
    expect(text.status, text.stderr).toBe(0);
    expect(json.status, json.stderr).toBe(0);
    const configs = (JSON.parse(json.stdout) as { configs: { algorithm: string; type: string; valueBytes?: number; config: Record<string, string | number> }[] }).configs;
    for (const [algorithm, type, valueBytes] of [['reduce', 'u32', undefined], ['radixSort', 'u64', 4], ['merge', 'f32', 0]] as const) {
      const c = configs.find((x) => x.algorithm === algorithm && x.type === type && x.valueBytes === valueBytes);
      expect(c, `${algorithm} ${type}`).toBeDefined();
      const cfg = formatName(configNameFields(TABLES.find((t) => t.name === algorithm)!, c!.config));
      expect(cfg, 'abbreviated').toMatch(/^\{bs:\d+,/);
      const row = text.stdout.split('\n').find((l) => new RegExp(`^\\s+${algorithm}\\s+${type}[/ ]`).test(l) && l.includes(cfg));
      expect(row, `${algorithm} ${type}: ${cfg}`).toBeDefined();
    }
    // Histograms: one channel by type, and the RGBA8 pixels its benchmark calls with (u8 samples, 4 channels) as their own row.
    const pixels = (JSON.parse(json.stdout) as { configs: { algorithm: string; type: string; callClass?: string }[] }).configs.filter((x) => x.algorithm === 'histogram' && x.type === 'u32');
    expect(pixels.map((x) => x.callClass)).toEqual([undefined, 'int8/4ch']);
    expect(text.stdout).toMatch(/^\s+histogram\s+u32 as int8\/4ch\s/m);
  });
  it('bench --benchmark_out=FILE writes a valid file', () => {
    const main = path.join(root, 'dist/cli/main.js');
    if (!fs.existsSync(main)) execFileSync('npx', ['tsc', '-p', 'tsconfig.json'], { cwd: root, stdio: 'inherit' });
    const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'wgprim-bench-')), 'reduce.json');
    const run = spawnSync('node', [main, 'bench', '--algorithm', 'reduce', '--type', 'u32', '--size', '65536', '--batches', '2', `--benchmark_out=${out}`], { cwd: root, encoding: 'utf8', timeout: 60_000 });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/reduce\s+u32\s+2\^16/);
    const file = JSON.parse(fs.readFileSync(out, 'utf8')) as GBenchFile;
    validateFile(file);
    expect(file.context.size).toBe('65536');
    expect(file.benchmarks).toHaveLength(1);
    expect(file.benchmarks[0]!.iterations).toBe(20);
    expect(parseName(file.benchmarks[0]!.name)).toMatchObject({ lvl: 'device', algo: 'reduce', key_type: 'u32' });
  });

  it('bench keeps what it measured when stopped: the file after each benchmark; on SIGTERM it stops after the one under way', async () => {
    const main = path.join(root, 'dist/cli/main.js');
    if (!fs.existsSync(main)) execFileSync('npx', ['tsc', '-p', 'tsconfig.json'], { cwd: root, stdio: 'inherit' });
    const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'wgprim-bench-')), 'cut.json');
    // reduce first, then benchmarks that take far longer than the wait for its record.
    const r = await interruptAfterFirstRecord([main, 'bench', '--algorithm', 'reduce,radix_sort_keys,radix_sort_pairs,merge_sort_keys,merge_sort_pairs', '--type', 'u32', '--size', '65536,1048576', '--batches', '50', `--benchmark_out=${out}`], root, out);
    expect(r.before).toBeGreaterThan(0);
    // It stops after the benchmark under way and ends as a finished run does, the table printed.
    expect(r.exit, r.stderr).toBe('130 null');
    expect(r.stderr).toMatch(/SIGTERM: stopping after the benchmark under way/);
    expect(r.stdout).toMatch(/reduce\s+u32\s+2\^16/);
    const file = JSON.parse(fs.readFileSync(out, 'utf8')) as GBenchFile;
    validateFile(file);
    expect(file.benchmarks.length).toBeGreaterThanOrEqual(r.before);
    expect(file.benchmarks.length).toBeLessThan(10);
    expect(parseName(file.benchmarks[0]!.name)).toMatchObject({ algo: 'reduce' });
  }, 120_000);

  it('bench times the radix sort\'s block sort path with its own config family', () => {
    const main = path.join(root, 'dist/cli/main.js');
    const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'wgprim-bench-')), 'block.json');
    const config = JSON.stringify({ radixSortBlockSort: { workgroupSize: 64, itemsPerThread: 4, radixBits: 4, mergeWorkgroupSize: 64, mergeItemsPerThread: 4, maxCount: 0 } });
    const run = spawnSync('node', [main, 'bench', '--algorithm', 'radix_sort_block_sort_keys,radix_sort_block_sort_pairs', '--size', '3000', '--batches', '1', '--batch-size', '2',
      '--config', config, `--benchmark_out=${out}`], { cwd: root, encoding: 'utf8', timeout: 120_000 });
    expect(run.status, run.stderr).toBe(0);
    const file = JSON.parse(fs.readFileSync(out, 'utf8')) as GBenchFile;
    validateFile(file);
    // The path is taken at every size: the name keeps the config's own maxCount (0 here).
    expect(file.benchmarks.map((b) => parseName(b.name))).toEqual([
      expect.objectContaining({ algo: 'radix_sort_block_sort', key_type: 'u32', value_type: 'empty', cfg: expect.objectContaining({ bs: 64, ipt: 4, bits: 4, max: 0 }) }),
      expect.objectContaining({ algo: 'radix_sort_block_sort', key_type: 'u32', value_type: 'u32', cfg: expect.objectContaining({ bs: 64, ipt: 4, max: 0 }) }),
    ]);
  });
});

function validateFile(file: GBenchFile): void {
  const ctx = file.context as unknown as Record<string, unknown>;
  for (const k of ['date', 'host_name', 'executable', 'library_build_type', 'adapter_vendor', 'adapter_architecture', 'adapter_device',
    'adapter_description', 'adapter_subgroup_min_size', 'adapter_subgroup_max_size', 'wgprim_version', 'size', 'seed', 'batch_iterations', 'warmup_iterations', 'warmup_ms']) {
    expect(typeof ctx[k], k).toBe('string');
  }
  expect(ctx.library_build_type).toBe('release');
  expect(typeof ctx.num_cpus).toBe('number');
  expect(ctx.date).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d$/);
  expect(file.benchmarks.length).toBeGreaterThan(0);
  for (const b of file.benchmarks) {
    const e = b as unknown as Record<string, unknown>;
    for (const k of ['name', 'run_name', 'run_type', 'time_unit']) expect(typeof e[k], k).toBe('string');
    for (const k of ['family_index', 'per_family_instance_index', 'repetitions', 'repetition_index', 'threads', 'iterations', 'real_time', 'cpu_time',
      'bytes_per_second', 'items_per_second', 'mean', 'median', 'stddev', 'cv']) {
      expect(typeof e[k], k).toBe('number');
      expect(Number.isFinite(e[k]), k).toBe(true);
    }
    expect(b.name).toMatch(/^\{.*\}\/size:\d+\/manual_time$/);
    expect(sizeOfEntryName(b.name)).toBe(b.size);
    expect(b.run_name).toBe(b.name);
    expect(b.run_type).toBe('iteration');
    expect(b.time_unit).toBe('ms');
    expect([b.repetitions, b.repetition_index, b.threads]).toEqual([1, 0, 1]);
    expect(b.real_time).toBeGreaterThan(0);
    expect(b.items_per_second).toBeGreaterThan(0);
    expect(b.bytes_per_second).toBeGreaterThan(0);
    expect(b.mean).toBe(b.real_time);
    expect(b.cv).toBeCloseTo(b.stddev / b.mean, 12);
    // Settling and re-measurement, as counters (see stability.ts).
    expect(Number.isInteger(b.warmup_batches) && b.warmup_batches! >= 0).toBe(true);
    expect(Number.isInteger(b.remeasured_batches) && b.remeasured_batches! >= 0).toBe(true);
    expect([0, 1]).toContain(b.stable);
    // rocPRIM's scripts: greedy {.*} then json.loads.
    expect(() => JSON.parse(nameToJson(b.name))).not.toThrow();
  }
}
