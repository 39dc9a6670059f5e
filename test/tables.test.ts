// create-optimization, apply-config-improvements, and tuned tables loaded at run time.
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  type AdapterInfoLike, createPrim, type Prim, type ReduceConfig, type ScanConfig, type TransformConfig, type TunedEntry, WgprimError,
} from '../src/index.js';
import { radixSortName, reduceName, scanName, transformName } from './support/names.js';
import { type TunedTables, rowKey, typeClassKey } from '../src/tables.js';
import { scanTuned as builtInScan } from '../src/device/scan/tuned.js';
import { createOptimization, GENERATED_HEADER, type GroupResult, summarizeGroups } from '../src/tune/create-optimization.js';
import { applyConfigImprovements, classifyImprovement, decisionRows } from '../src/tune/apply-improvements.js';
import { loadTunedDir } from '../src/node/index.js';
import { readTablesDir } from '../src/node/tables.js';
import { applyImprovementsCommand } from '../src/cli/apply-config-improvements.js';
import { createOptimizationCommand } from '../src/cli/create-optimization.js';
import { testPrim } from './support/gpu.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url)).replace(/\/$/, '');
// Inside the package (so tsc finds node_modules) but ignored by git.
const TMP = fs.mkdtempSync(path.join(ROOT, 'node_modules', '.tmp-tables-test-'));
afterAll(() => fs.rmSync(TMP, { recursive: true, force: true }));

let base: Prim;
let device: GPUDevice;
beforeAll(async () => {
  base = await testPrim();
  device = base.device;
});

// ---------------------------------------------------------------------------------------------
// Crafted Google Benchmark files

interface Adapter { vendor: string; architecture: string; device: string }
const X1000: Adapter = { vendor: 'Acme', architecture: 'RDNA9', device: 'X1000' };
const X2000: Adapter = { vendor: 'Acme', architecture: 'RDNA9', device: 'X2000' };
const Z1: Adapter = { vendor: 'Zeta', architecture: '', device: 'Z1' };

interface Run { name: string; size: number; gips?: number; cv?: number; error?: string }

function gbench(a: Adapter, runs: readonly Run[], date = '2026-11-30T10:00:00+00:00'): unknown {
  return {
    context: {
      date, host_name: 'test', executable: 'wgprim', num_cpus: 1, mhz_per_cpu: 0, cpu_scaling_enabled: false, caches: [], load_avg: [],
      library_build_type: 'release', json_schema_version: 1,
      adapter_vendor: a.vendor, adapter_architecture: a.architecture, adapter_device: a.device, adapter_description: `${a.vendor} ${a.device} (crafted)`,
      adapter_subgroup_min_size: '8', adapter_subgroup_max_size: '8', wgprim_version: '0.1.0', size: '', seed: '1',
      batch_iterations: '10', warmup_iterations: '5', trials: '10', timing: 'timestamp-query',
    },
    benchmarks: runs.map((r, i) => {
      const name = `${r.name}/manual_time`;
      if (r.error) return { name, family_index: i, per_family_instance_index: 0, run_name: name, run_type: 'iteration', repetitions: 1, repetition_index: 0, threads: 1, iterations: 0, real_time: 0, cpu_time: 0, time_unit: 'ms', error_occurred: true, error_message: r.error };
      const ips = r.gips! * 1e9;
      const ms = (r.size / ips) * 1e3;
      return {
        name, family_index: i, per_family_instance_index: 0, run_name: name, run_type: 'iteration', repetitions: 1, repetition_index: 0,
        threads: 1, iterations: 100, real_time: ms, cpu_time: ms, time_unit: 'ms', bytes_per_second: ips * 8, items_per_second: ips,
        mean: ms, median: ms, stddev: ms * (r.cv ?? 0.01), cv: r.cv ?? 0.01, size: r.size,
      };
    }),
  };
}

const S1 = 1 << 20;
const S2 = 1 << 22;
// Configs every adapter can run (no subgroups), so the lavapipe device can select them.
const scanCfg = (workgroupSize: number, itemsPerThread: number, lookback: ScanConfig['lookback'] = 'decoupled'): ScanConfig => ({ workgroupSize, itemsPerThread, lookback, workgroupScan: 'shared' });
const A = scanCfg(64, 8);
const B = scanCfg(128, 8);
const C = scanCfg(256, 8);
const D = scanCfg(64, 16);
const E = scanCfg(128, 16, 'reduce-then-scan');
const F = scanCfg(256, 4);

/** Scan runs of one config: Gitems/s per (inclusive, exclusive) x (S1, S2); null = an error. */
function scanRuns(type: string, cfg: ScanConfig, inc: [number | null, number | null], exc: [number | null, number | null]): Run[] {
  const runs: Run[] = [];
  for (const [exclusive, figures] of [[false, inc], [true, exc]] as const) {
    [S1, S2].forEach((size, i) => {
      const g = figures[i];
      runs.push(g === null ? { name: scanName(exclusive, type, cfg), size, error: 'failed' } : { name: scanName(exclusive, type, cfg), size, gips: g });
    });
  }
  return runs;
}

const RA: ReduceConfig = { workgroupSize: 128, itemsPerThread: 8, maxWorkgroups: 512, workgroupReduce: 'shared' };
const RB: ReduceConfig = { workgroupSize: 256, itemsPerThread: 16, maxWorkgroups: 1024, workgroupReduce: 'shared' };
const TA: TransformConfig = { workgroupSize: 64, itemsPerThread: 4 };
const TB: TransformConfig = { workgroupSize: 128, itemsPerThread: 8 };

// X1000, scan int4. The rule (geometric mean over every point, both scans) picks B:
//   A: 10 at S1, 1 at S2        geomean 3.16 (the fastest single run, and the best arithmetic mean 5.5)
//   B: 4 everywhere             geomean 4
//   C: 20 everywhere but an error at (exclusive, S2): ineligible
//   D: 6 inclusive, 2 exclusive geomean 3.46 (the best inclusive-only)
//   E: 3 everywhere
// X2000, scan int4: B 3, E 5 (E wins); vendor acme: B sqrt(4*3) = 3.46 < E sqrt(3*5) = 3.87: E.
// A, C, D were not run on X2000, so they cannot be the vendor row.
const X1000_FILE = gbench(X1000, [
  ...scanRuns('u32', A, [10, 1], [10, 1]),
  ...scanRuns('u32', B, [4, 4], [4, 4]),
  ...scanRuns('u32', C, [20, 20], [20, null]),
  ...scanRuns('u32', D, [6, 6], [2, 2]),
  ...scanRuns('u32', E, [3, 3], [3, 3]),
  // f32: one config.
  ...scanRuns('f32', F, [2, 2], [2, 2]),
  // reduce only here: no vendor row for it.
  { name: reduceName('u32', RA), size: S1, gips: 5 }, { name: reduceName('u32', RA), size: S2, gips: 5 },
  { name: reduceName('u32', RB), size: S1, gips: 7 }, { name: reduceName('u32', RB), size: S2, gips: 6 },
  { name: transformName('u32', TA), size: S1, gips: 1 }, { name: transformName('u32', TA), size: S2, gips: 1 },
]);
const X2000_FILE = gbench(X2000, [
  ...scanRuns('u32', B, [3, 3], [3, 3]),
  ...scanRuns('u32', E, [5, 5], [5, 5]),
  { name: transformName('i32', TA), size: S1, gips: 1 }, { name: transformName('i32', TA), size: S2, gips: 1 },
  { name: transformName('i32', TB), size: S1, gips: 2 }, { name: transformName('i32', TB), size: S2, gips: 2 },
], '2026-12-01T09:00:00+00:00');
const Z1_FILE = gbench(Z1, [
  ...scanRuns('i32', A, [1, 1], [1, 1]),
  ...scanRuns('i32', F, [2, 2], [2, 2]),
]);
const INPUTS = [{ data: X1000_FILE, label: 'x1000.json' }, { data: X2000_FILE, label: 'x2000.json' }, { data: Z1_FILE, label: 'z1.json' }];

const info = (a: Adapter, device = a.device): AdapterInfoLike => ({
  vendor: a.vendor, architecture: a.architecture, device, description: 'fake',
  subgroupMinSize: base.target.subgroupMinSize, subgroupMaxSize: base.target.subgroupMaxSize,
});
const group = (groups: readonly GroupResult[], algorithm: string, targetKey: string, cls: string): GroupResult | undefined =>
  groups.find((g) => g.algorithm === algorithm && g.targetKey === targetKey && typeClassKey(g.typeClass) === cls);

describe('create-optimization', () => {
  const result = createOptimization(INPUTS);

  it('picks the best geometric mean over sizes and both scans, among configs measured at every point', () => {
    const g = group(result.groups, 'scan', 'acme/rdna9/x1000', 'int4')!;
    expect(g.points).toHaveLength(4);
    expect(g.winner?.config).toEqual(B);
    expect(g.winner?.itemsPerSecond).toBeCloseTo(4e9, -3);
    expect(g.candidates.find((c) => c.config && JSON.stringify(c.config) === JSON.stringify(C))?.eligible).toBe(false);
    expect(g.candidates.filter((c) => c.eligible)).toHaveLength(4);
    expect(group(result.groups, 'scan', 'acme/rdna9/x2000', 'int4')!.winner?.config).toEqual(E);
    expect(group(result.groups, 'scan', 'acme/rdna9/x1000', 'float4')!.winner?.config).toEqual(F);
    expect(group(result.groups, 'reduce', 'acme/rdna9/x1000', 'int4')!.winner?.config).toEqual(RB);
    expect(group(result.groups, 'scan', 'zeta//z1', 'int4')!.winner?.config).toEqual(F);
    expect(result.errors).toBe(1);
  });

  it('records the evidence', () => {
    const row = result.fresh.scan!.find((e) => e.target.device === 'x1000' && !e.typeClass.float)!;
    expect(row.target).toEqual({ vendor: 'acme', architecture: 'rdna9', device: 'x1000' });
    expect(row.evidence).toMatchObject({ itemsPerSecond: 4e9, cv: 0.01, size: [S1, S2], date: '2026-11-30', version: '0.1.0' });
    expect(row.evidence.note).toContain('runner-up');
  });

  it('adds a vendor row only where a vendor has two or more measured devices', () => {
    const vendorRows = Object.entries(result.fresh).flatMap(([a, rows]) => (rows as TunedEntry<unknown>[]).filter((e) => !e.target.device && !e.target.architecture).map((e) => `${a} ${rowKey(e)}`));
    // acme scan int4 (X1000 and X2000), and acme transform int4 (u32 on X1000, i32 on X2000: one
    // type class); not acme reduce or scan float4 (one device each), not zeta (one device).
    expect(vendorRows.sort()).toEqual(['scan acme//|int4', 'transform acme//|int4']);
    // TB is faster on X2000 but was not run on X1000: TA is the vendor's.
    expect(result.fresh.transform!.find((e) => !e.target.device)!.config).toEqual(TA);
    const v = result.fresh.scan!.find((e) => e.target.vendor === 'acme' && !e.target.device)!;
    expect(v.config).toEqual(E);
    expect(v.evidence.itemsPerSecond).toBeCloseTo(Math.sqrt(15) * 1e9, -6);
    expect(v.evidence.devices).toEqual(['acme/rdna9/x1000', 'acme/rdna9/x2000']);
    expect(v.evidence.date).toBe('2026-12-01');
    // Without the second device, no vendor row.
    const one = createOptimization([INPUTS[0]!, INPUTS[2]!]);
    expect(Object.values(one.fresh).flat().filter((e) => !e.target.device)).toEqual([]);
  });

  it('keeps existing rows for targets the data does not cover, replaces the ones it does', () => {
    const stale: TunedEntry<ScanConfig> = { target: { vendor: 'acme', architecture: 'rdna9', device: 'x1000' }, typeClass: { float: false, bytes: 4 }, config: A, evidence: { itemsPerSecond: 1, cv: 0, size: 1, date: '2020-01-01', version: '0.0.1' } };
    const merged = createOptimization(INPUTS, { existing: { scan: [...builtInScan, stale] } });
    const scan = merged.tables.scan!;
    expect(merged.kept.scan).toBe(builtInScan.length);
    for (const e of builtInScan) expect(scan).toContain(e);
    expect(scan).not.toContain(stale);
    expect(scan.find((e) => e.target.device === 'x1000' && !e.typeClass.float)!.config).toEqual(B);
    // reduce had no existing rows; transform's file is written too (it has fresh rows).
    // One file per table, in its algorithm's folder (module form, the default); JSON for a user's folder.
    expect(merged.outputs.map((o) => o.name).sort()).toEqual(['device/reduce/tuned.ts', 'device/scan/tuned.ts', 'device/transform/tuned.ts']);
    expect(createOptimization(INPUTS, { form: 'json' }).outputs.map((o) => o.name).sort()).toEqual(['reduce.json', 'scan.json', 'transform.json']);
  });

  it('writes modules that compile, and createPrim selects their rows', async () => {
    // The modules go to the package's src/ (a copy here), the JSON form to a user's folder.
    const pkg = path.join(TMP, 'pkg');
    fs.cpSync(path.join(ROOT, 'src'), path.join(pkg, 'src'), { recursive: true });
    const res = createOptimization(INPUTS);
    for (const o of res.outputs) fs.writeFileSync(path.join(pkg, 'src', o.name), o.text);
    const dir = path.join(TMP, 'tuned');
    fs.mkdirSync(dir, { recursive: true });
    for (const o of createOptimization(INPUTS, { form: 'json' }).outputs) fs.writeFileSync(path.join(dir, o.name), o.text);
    const scanTs = fs.readFileSync(path.join(pkg, 'src/device/scan/tuned.ts'), 'utf8');
    expect(scanTs.startsWith(GENERATED_HEADER)).toBe(true);
    expect(scanTs).toContain('export const scanTuned: readonly TunedEntry<ScanConfig>[] = [');
    expect(scanTs).toContain("import type { ScanConfig } from './config.js';");
    expect(scanTs).toContain("target: { vendor: 'acme', architecture: 'rdna9', device: 'x1000' },");

    // Type-check and compile them with the package's sources.
    const out = path.join(TMP, 'out');
    const modules = ['scan', 'reduce', 'transform'].map((a) => `src/device/${a}/tuned.ts`);
    fs.writeFileSync(path.join(pkg, 'tsconfig.json'), JSON.stringify({
      extends: path.join(ROOT, 'tsconfig.json'),
      compilerOptions: { rootDir: pkg, outDir: out, declaration: false, sourceMap: false },
      include: [], files: modules,
    }));
    execFileSync(process.execPath, [path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', path.join(pkg, 'tsconfig.json')], { stdio: 'pipe' });
    const compiled = (a: string): string => pathToFileURL(path.join(out, 'src/device', a, 'tuned.js')).href;
    const tables: TunedTables = {
      scan: (await import(compiled('scan'))).scanTuned,
      reduce: (await import(compiled('reduce'))).reduceTuned,
      transform: (await import(compiled('transform'))).transformTuned,
    };
    expect(tables.scan).toEqual(res.tables.scan);

    for (const tuned of [tables, loadTunedDir(dir)]) {
      const x1000 = createPrim(device, { adapterInfo: info(X1000), tuned });
      expect(x1000.selectedConfig('scan', 'u32')).toMatchObject({ source: 'tuned:device', config: B });
      expect(x1000.selectedConfig('scan', 'i32')).toMatchObject({ source: 'tuned:device', config: B });
      expect(x1000.selectedConfig('scan', 'f32')).toMatchObject({ source: 'tuned:device', config: F });
      expect(x1000.selectedConfig('reduce', 'u32')).toMatchObject({ source: 'tuned:device', config: RB });
      expect(x1000.selectedConfig('transform', 'u32')).toMatchObject({ source: 'tuned:device', config: TA });
      // An acme device nobody measured gets the vendor row; zeta has none.
      const x3000 = createPrim(device, { adapterInfo: info(X1000, 'X3000'), tuned });
      expect(x3000.selectedConfig('scan', 'u32')).toMatchObject({ source: 'tuned:vendor', config: E });
      expect(x3000.selectedConfig('reduce', 'u32').source).toBe('heuristic');
      expect(createPrim(device, { adapterInfo: info(Z1, 'Z2'), tuned }).selectedConfig('scan', 'u32').source).toBe('heuristic');
      expect(createPrim(device, { adapterInfo: info(Z1), tuned }).selectedConfig('scan', 'u32')).toMatchObject({ source: 'tuned:device', config: F });
    }
    // And the selected config runs.
    const prim = createPrim(device, { adapterInfo: info(X1000, 'X3000'), tuned: loadTunedDir(dir) });
    const got = await prim.arrays.inclusiveScan(Uint32Array.from({ length: 5000 }, () => 1));
    expect(got[4999]).toBe(5000);
  });

  it('the CLI writes into --out-basedir and merges with what is there', async () => {
    const files = INPUTS.map((i) => {
      const f = path.join(TMP, 'bench', i.label);
      fs.mkdirSync(path.dirname(f), { recursive: true });
      fs.writeFileSync(f, JSON.stringify(i.data));
      return f;
    });
    const outDir = path.join(TMP, 'cli-out');
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      expect(await createOptimizationCommand({ benchmarkFiles: [files[2]!], outBasedir: outDir, merge: true, vendorLevel: true })).toBe(0);
      expect(await createOptimizationCommand({ benchmarkFiles: [files[0]!, files[1]!], outBasedir: outDir, merge: true, vendorLevel: true })).toBe(0);
    } finally {
      log.mockRestore();
      err.mockRestore();
    }
    const scan = readTablesDir(outDir).tables.scan!;
    // zeta's row from the first run survived the second.
    expect(scan.map((e) => `${e.target.vendor}/${e.target.device ?? ''}`).sort()).toEqual(['acme/', 'acme/x1000', 'acme/x1000', 'acme/x2000', 'zeta/z1']);
    // A user's folder holds JSON only: one form per place.
    expect(fs.readdirSync(outDir).sort()).toEqual(['reduce.json', 'scan.json', 'transform.json']);
  });
});

describe('tuned tables at run time are validated', () => {
  const good: TunedEntry<ScanConfig> = { target: { vendor: 'acme' }, typeClass: { float: false, bytes: 4 }, config: B, evidence: { itemsPerSecond: 1e9, cv: 0.01, size: 1024, date: '2026-11-30', version: '0.1.0' } };
  const rejects = (tuned: unknown, message: RegExp): void => {
    let caught: unknown;
    try {
      createPrim(device, { adapterInfo: info(X1000), tuned: tuned as TunedTables });
    } catch (e) {
      caught = e;
    }
    expect(caught, message.source).toBeInstanceOf(WgprimError);
    expect((caught as WgprimError).code).toBe('invalid-argument');
    expect((caught as WgprimError).message).toMatch(message);
  };

  it('malformed rows throw invalid-argument naming the row and field', () => {
    rejects({ scan: [good, { ...good, config: { ...B, workgroupSize: '128' } }] }, /tuned\.scan\[1\]\.config\.workgroupSize: must be a non-negative integer/);
    rejects({ scan: [{ ...good, config: { ...B, lookback: 'sideways' } }] }, /config\.lookback: must be one of "decoupled", "reduce-then-scan"/);
    rejects({ scan: [{ ...good, config: { ...B, extra: 1 } }] }, /unknown scan config field "extra"/);
    rejects({ reduce: [{ ...good, config: { ...RA, maxWorkgroups: undefined } }] }, /tuned\.reduce\[0\]\.config\.maxWorkgroups/);
    rejects({ scan: [{ ...good, typeClass: { float: 'no', bytes: 4 } }] }, /typeClass\.float: must be true or false/);
    rejects({ scan: [{ ...good, target: { vendor: 3 } }] }, /target\.vendor: must be a string/);
    rejects({ scan: [{ ...good, evidence: undefined }] }, /evidence: must be an object/);
    rejects({ scna: [good] }, /unknown algorithm "scna"/);
    // A former table's rows: where they went, and what they need there.
    rejects({ multiHistogram: [] }, /table "multiHistogram" is now part of table "histogram": name its rows there \(pixels: typeClass \{ float, bytes/);
    rejects({ format: 'wgprim-tuned-table', formatVersion: 1, algorithm: 'histogramEven', entries: [] }, /tuned\.algorithm: table "histogramEven" is now part of table "histogram"/);
    rejects({ scan: good }, /tuned\.scan: must be a list of rows/);
    rejects({ format: 'wgprim-tuned-table', formatVersion: 1, algorithm: 'sort', entries: [] }, /tuned\.algorithm: must be one of scan, reduce, transform/);
    rejects({ format: 'wgprim-tuned-table', formatVersion: 9, algorithm: 'scan', entries: [] }, /formatVersion/);
    rejects([{ scan: [good] }, 'x'], /tuned\[1\]: must be tables by name/);
  });

  it('the JSON form and the configs alias select, tuned rows first', () => {
    const file = { format: 'wgprim-tuned-table', formatVersion: 1, algorithm: 'scan', entries: [good] };
    const other = { ...good, config: E };
    expect(createPrim(device, { adapterInfo: info(X1000), tuned: JSON.parse(JSON.stringify(file)) }).selectedConfig('scan', 'u32')).toMatchObject({ source: 'tuned:vendor', config: B });
    expect(createPrim(device, { adapterInfo: info(X1000), configs: { scan: [other] } }).selectedConfig('scan', 'u32').config).toEqual(E);
    expect(createPrim(device, { adapterInfo: info(X1000), tuned: file as never, configs: { scan: [other] } }).selectedConfig('scan', 'u32').config).toEqual(B);
  });

  it('loadTunedDir needs at least one table file', () => {
    const dir = path.join(TMP, 'empty');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'notes.json'), '{"a":1}');
    expect(() => loadTunedDir(dir)).toThrow(/no tuned-table JSON/);
    fs.writeFileSync(path.join(dir, 'scan.json'), JSON.stringify({ format: 'wgprim-tuned-table', formatVersion: 1, algorithm: 'scan', entries: [{ ...good, typeClass: { float: false, bytes: 0 } }] }));
    expect(() => loadTunedDir(dir)).toThrow(/scan\.json\.entries\[0\]\.typeClass\.bytes: must be a positive integer/);
  });
});

// ---------------------------------------------------------------------------------------------

describe('apply-config-improvements', () => {
  const P = 5;
  const ev = { itemsPerSecond: 1, cv: 0, size: [S1, S2], date: '2026-11-30', version: '0.1.0' };
  const T1 = { vendor: 'acme', architecture: 'rdna9', device: 'x1000' };
  const T2 = { vendor: 'acme', architecture: 'rdna9', device: 'x2000' };
  const T3 = { vendor: 'zeta', device: 'z1' };
  const I4 = { float: false, bytes: 4 };
  const F4 = { float: true, bytes: 4 };
  const row = <C>(target: object, typeClass: object, config: C): TunedEntry<C> => ({ target, typeClass, config, evidence: ev }) as TunedEntry<C>;
  const oldTables: TunedTables = {
    scan: [row(T1, I4, A), row(T1, F4, A), row(T3, I4, A)],
    reduce: [row(T1, I4, RA)],
    transform: [row(T1, I4, TA)],
  };
  const newTables: TunedTables = {
    scan: [row(T1, I4, B), row(T1, F4, B), row(T2, I4, B)],
    reduce: [row(T1, I4, RB)],
    transform: [row(T1, I4, TB)],
  };
  const two = (name: string, gips: number, cv: number): Run[] => [{ name, size: S1, gips, cv }, { name, size: S2, gips, cv }];
  // Old runs (old configs) and new runs (new configs), on X1000.
  const oldJson = gbench(X1000, [
    ...two(scanName(false, 'u32', A), 100, 0.01), ...two(scanName(true, 'u32', A), 100, 0.01), // accepted: +20% vs bound 5
    ...two(scanName(false, 'f32', A), 100, 0.01), // slower: -5%
    ...two(reduceName('u32', RA), 100, 0.001), // marginal: +3% < P
    ...two(transformName('u32', TA), 100, 0.05), // noisy: +10% > P but < 1.96*sqrt(2)*5 = 13.9
  ]);
  const newJson = gbench(X1000, [
    ...two(scanName(false, 'u32', B), 120, 0.01), ...two(scanName(true, 'u32', B), 120, 0.01),
    ...two(scanName(false, 'f32', B), 95, 0.01),
    ...two(reduceName('u32', RB), 103, 0.001),
    ...two(transformName('u32', TB), 110, 0.05),
  ]);

  it('the rule: slower, marginal, noisy, accepted', () => {
    expect(classifyImprovement(100, 100, 0, 0, 5).status).toBe('slower');
    expect(classifyImprovement(100, 99, 0, 0, 5).status).toBe('slower');
    expect(classifyImprovement(100, 105, 0, 0, 5).status).toBe('marginal');
    expect(classifyImprovement(100, 105.1, 0, 0, 5).status).toBe('accepted');
    // noise bound 1.96 * sqrt(0.04^2 + 0.03^2) * 100 = 9.8
    expect(classifyImprovement(100, 109, 0.04, 0.03, 5)).toMatchObject({ status: 'noisy' });
    expect(classifyImprovement(100, 110, 0.04, 0.03, 5).status).toBe('accepted');
    expect(classifyImprovement(100, 110, 0.04, 0.03, 5).boundPercent).toBeCloseTo(9.8, 6);
  });

  it('classifies each row and keeps only accepted and new rows', () => {
    const res = applyConfigImprovements({
      oldTables, newTables, thresholdPercent: P,
      oldJson: [{ data: oldJson, label: 'old.json' }], newJson: [{ data: newJson, label: 'new.json' }],
    });
    const status = (a: string, device: string, float: boolean): string | undefined =>
      res.decisions.find((d) => d.algorithm === a && d.target.device === device && d.typeClass.float === float)?.status;
    expect(status('scan', 'x1000', false)).toBe('accepted');
    expect(status('scan', 'x1000', true)).toBe('slower');
    expect(status('reduce', 'x1000', false)).toBe('marginal');
    expect(status('transform', 'x1000', false)).toBe('noisy');
    expect(status('scan', 'x2000', false)).toBe('new');
    const acc = res.decisions.find((d) => d.status === 'accepted')!;
    expect(acc.changePercent).toBeCloseTo(20, 6);
    expect(acc.boundPercent).toBe(P);
    expect(res.keptOldOnly).toBe(1);
    const cfg = (t: TunedTables, a: 'scan' | 'reduce' | 'transform', device: string, float = false): unknown =>
      t[a]!.find((e) => e.target.device === device && e.typeClass.float === float)?.config;
    expect(cfg(res.tables, 'scan', 'x1000')).toEqual(B);
    expect(cfg(res.tables, 'scan', 'x1000', true)).toEqual(A);
    expect(cfg(res.tables, 'reduce', 'x1000')).toEqual(RA);
    expect(cfg(res.tables, 'transform', 'x1000')).toEqual(TA);
    expect(cfg(res.tables, 'scan', 'x2000')).toEqual(B);
    expect(cfg(res.tables, 'scan', 'z1')).toEqual(A);
  });

  it('the command prints the classification with figures and writes the improved tables', async () => {
    const dirs = Object.fromEntries(['oldJson', 'newJson', 'oldCfg', 'newCfg', 'improved'].map((k) => [k, path.join(TMP, 'apply', k)]));
    for (const d of Object.values(dirs)) fs.mkdirSync(d, { recursive: true });
    fs.writeFileSync(path.join(dirs.oldJson!, 'x1000.json'), JSON.stringify(oldJson));
    fs.writeFileSync(path.join(dirs.newJson!, 'x1000.json'), JSON.stringify(newJson));
    const { renderTableJson } = await import('../src/tune/create-optimization.js');
    for (const a of ['scan', 'reduce', 'transform'] as const) {
      fs.writeFileSync(path.join(dirs.oldCfg!, `${a}.json`), renderTableJson(a, oldTables[a]!));
      fs.writeFileSync(path.join(dirs.newCfg!, `${a}.json`), renderTableJson(a, newTables[a]!));
    }
    const lines: string[] = [];
    const log = vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => void lines.push(args.join(' ')));
    try {
      expect(await applyImprovementsCommand({
        oldJsonDir: dirs.oldJson!, newJsonDir: dirs.newJson!, oldConfigsDir: dirs.oldCfg!, newConfigsDir: dirs.newCfg!,
        improvedConfigsDir: dirs.improved!, improvementThresholdPercentage: P,
      })).toBe(0);
    } finally {
      log.mockRestore();
    }
    const text = lines.join('\n').split('\n');
    // One block per table: its name, then its rows indented; every line within 100 columns.
    for (const l of text.filter((x) => !x.startsWith('wrote '))) expect(l.length, l).toBeLessThanOrEqual(100);
    const line = (status: string, table: string, target: string, type: string): string | undefined => {
      const start = text.indexOf(table);
      const end = text.findIndex((l, i) => i > start && !l.startsWith(' '));
      return text.slice(start + 1, end < 0 ? undefined : end).find((l) => new RegExp(`^\\s+${status}\\s+${target.replace(/\//g, '\\/')}\\s+${type}\\s`).test(l));
    };
    const accepted = line('accepted', 'scan', 'acme/rdna9/x1000', 'int32');
    expect(accepted, text.join('\n')).toBeDefined();
    expect(accepted).toMatch(/100\.000\s+120\.000\s+\+20\.00\s+5\.00/);
    expect(line('slower', 'scan', 'acme/rdna9/x1000', 'float32')).toMatch(/100\.000\s+95\.000\s+-5\.00\s+5\.00/);
    expect(line('marginal', 'reduce', 'acme/rdna9/x1000', 'int32')).toMatch(/\+3\.00\s+5\.00/);
    expect(line('noisy', 'transform', 'acme/rdna9/x1000', 'int32')).toMatch(/\+10\.00\s+13\.86/);
    expect(line('new', 'scan', 'acme/rdna9/x2000', 'int32')).toBeDefined();
    expect(text).toContain('accepted 1, new 1, slower 1, marginal 1, noisy 1, same 0; 1 old row(s) without a new row kept');
    const improved = loadTunedDir(dirs.improved!);
    expect(improved.scan!.find((e) => e.target.device === 'x1000' && !e.typeClass.float)!.config).toEqual(B);
    expect(improved.transform!.find((e) => e.target.device === 'x1000')!.config).toEqual(TA);
    // A folder gets the JSON form only.
    expect(fs.readdirSync(dirs.improved!).sort()).toEqual(['reduce.json', 'scan.json', 'transform.json']);
  });
});

// ---------------------------------------------------------------------------------------------
// The radixSort table: keyed by the key type's class and the value class (typeClass.valueBytes).

describe('radixSort table', () => {
  const RA = { workgroupSize: 64, itemsPerThread: 4, radixBits: 8, rank: 'split', workgroupScan: 'shared', lookback: 'reduce-then-scan', histogramWorkgroupSize: 64, histogramItemsPerThread: 4, decoupledMaxCount: 0, passKernels: 'specialized' } as const;
  const RB = { workgroupSize: 128, itemsPerThread: 7, radixBits: 6, rank: 'match', workgroupScan: 'subgroup', lookback: 'decoupled', histogramWorkgroupSize: 256, histogramItemsPerThread: 16, decoupledMaxCount: 0, passKernels: 'specialized' } as const;
  const runs = (c: typeof RA | typeof RB, gips: number, values: readonly string[] = ['empty', 'u32']): Run[] => values.flatMap((v) => [S1, S2].map((size) => ({ name: radixSortName('u32', v, c), size, gips })));
  const file = gbench(X1000, [...runs(RA, 2), ...runs(RB, 3)]);
  // Keys only: RB is faster; pairs: RA is.
  const split = gbench(X1000, [...runs(RA, 2, ['empty']), ...runs(RB, 3, ['empty']), ...runs(RA, 5, ['u32']), ...runs(RB, 1, ['u32'])]);

  it('create-optimization renders the radix sort module (and JSON for a folder), createPrim and useTuned select the row', () => {
    const res = createOptimization([{ data: file, label: 'radix.json' }]);
    const asJson = createOptimization([{ data: file, label: 'radix.json' }], { form: 'json' });
    const g = group(res.groups, 'radixSort', 'acme/rdna9/x1000', 'int4/v0')!;
    expect(g.points).toHaveLength(2);
    expect(g.typeClass).toEqual({ float: false, bytes: 4, valueBytes: 0 });
    expect(g.winner?.config).toEqual(RB);
    expect(group(res.groups, 'radixSort', 'acme/rdna9/x1000', 'int4/v4')?.winner?.config).toEqual(RB);
    expect(res.outputs.map((o) => o.name)).toEqual(['device/radix-sort/tuned.ts']);
    expect(asJson.outputs.map((o) => o.name)).toEqual(['radix-sort.json']);
    const ts = res.outputs[0]!.text;
    expect(ts.startsWith(GENERATED_HEADER)).toBe(true);
    expect(ts).toContain('export const radixSortTuned: readonly TunedEntry<RadixSortConfig>[] = [');
    expect(ts).toContain("config: { workgroupSize: 128, itemsPerThread: 7, radixBits: 6, rank: 'match', workgroupScan: 'subgroup', lookback: 'decoupled', histogramWorkgroupSize: 256, histogramItemsPerThread: 16, decoupledMaxCount: 0, passKernels: 'specialized' },");
    expect(ts).toContain('typeClass: { float: false, bytes: 4, valueBytes: 0 },');
    expect(ts).toContain('typeClass: { float: false, bytes: 4, valueBytes: 4 },');
    const json = JSON.parse(asJson.outputs[0]!.text);
    expect(json).toMatchObject({ format: 'wgprim-tuned-table', algorithm: 'radixSort' });

    const dir = path.join(TMP, 'radix');
    fs.mkdirSync(dir, { recursive: true });
    for (const o of asJson.outputs) fs.writeFileSync(path.join(dir, o.name), o.text);
    for (const tuned of [res.tables, json, loadTunedDir(dir)]) {
      const x1000 = createPrim(device, { adapterInfo: info(X1000), tuned });
      expect(x1000.selectedRadixSortConfig('u32')).toMatchObject({ source: 'tuned:device', config: RB });
      expect(x1000.selectedRadixSortConfig('i32', 4)).toMatchObject({ source: 'tuned:device', config: RB });
      expect(x1000.selectedRadixSortConfig('i32', 4).entry?.typeClass.valueBytes).toBe(4);
      // No u64-value row, and none without valueBytes: the heuristic.
      expect(x1000.selectedRadixSortConfig('u32', 8).source).toBe('heuristic');
      expect(x1000.selectedRadixSortConfig('f32').source).toBe('heuristic');
      expect(createPrim(device, { adapterInfo: info(X2000), tuned }).selectedRadixSortConfig('u32').source).toBe('heuristic');
    }
    const p = createPrim(device, { adapterInfo: info(X1000) });
    expect(p.selectedRadixSortConfig('u32').source).toBe('heuristic');
    p.useTuned({ radixSort: res.tables.radixSort });
    expect(p.selectedRadixSortConfig('u32')).toMatchObject({ source: 'tuned:runtime', config: RB });
    expect(p.runtimeTuned.radixSort).toHaveLength(2);
  });

  it('keys-only and pairs runs give two rows with their own winners, and the JSON and module parse back', async () => {
    const res = createOptimization([{ data: split, label: 'split.json' }]);
    const rows = res.tables.radixSort!;
    expect(rows.map((r) => r.typeClass)).toEqual([{ float: false, bytes: 4, valueBytes: 0 }, { float: false, bytes: 4, valueBytes: 4 }]);
    expect(rows.map((r) => r.config)).toEqual([RB, RA]);
    expect(rows.map(rowKey)).toEqual(['acme/rdna9/x1000|int4/v0', 'acme/rdna9/x1000|int4/v4']);
    expect(res.warnings).toEqual([]);
    const dir = path.join(TMP, 'radix-split');
    fs.mkdirSync(path.join(dir, 'device/radix-sort'), { recursive: true });
    for (const o of [...res.outputs, ...createOptimization([{ data: split, label: 'split.json' }], { form: 'json' }).outputs]) fs.writeFileSync(path.join(dir, o.name), o.text);
    // JSON round trip: the rows as written, valueBytes included.
    const back = loadTunedDir(dir).radixSort!;
    expect(back.map((r) => ({ typeClass: r.typeClass, config: r.config }))).toEqual(rows.map((r) => ({ typeClass: r.typeClass, config: r.config })));
    // The module, imported: the same rows as the JSON.
    const mod = (await import(pathToFileURL(path.join(dir, 'device/radix-sort/tuned.ts')).href)) as { radixSortTuned: readonly TunedEntry<unknown>[] };
    expect(mod.radixSortTuned).toEqual(JSON.parse(fs.readFileSync(path.join(dir, 'radix-sort.json'), 'utf8')).entries);
    const x1000 = createPrim(device, { adapterInfo: info(X1000), tuned: { radixSort: back } as never });
    expect(x1000.selectedRadixSortConfig('u32', 0)).toMatchObject({ source: 'tuned:device', config: RB });
    expect(x1000.selectedRadixSortConfig('u32', 4)).toMatchObject({ source: 'tuned:device', config: RA });
    // Printed: the value class in the type column.
    expect(summarizeGroups(res.groups).map((r) => r[2])).toEqual(['int32/empty', 'int32/u32']);
  });

  it('selection: a valueBytes row beats one without at the same level; target specificity comes first; old rows still match', () => {
    const ev = { itemsPerSecond: 1, cv: 0, size: 1, date: '', version: '' };
    const dev = { vendor: 'acme', architecture: 'rdna9', device: 'x1000' };
    const row = (target: object, typeClass: object, config: object): TunedEntry<unknown> => ({ target, typeClass, config, evidence: ev }) as TunedEntry<unknown>;
    const RC = { ...RA, itemsPerThread: 8 };
    const sel = (rows: readonly TunedEntry<unknown>[], valueBytes: 0 | 4 | 8): { source: string; config: unknown } =>
      createPrim(device, { adapterInfo: info(X1000), tuned: { radixSort: rows as never } }).selectedRadixSortConfig('u32', valueBytes);
    // Same level (device): the exact value class wins, in either order.
    for (const rows of [[row(dev, { float: false, bytes: 4 }, RA), row(dev, { float: false, bytes: 4, valueBytes: 4 }, RB)], [row(dev, { float: false, bytes: 4, valueBytes: 4 }, RB), row(dev, { float: false, bytes: 4 }, RA)]]) {
      expect(sel(rows, 4)).toMatchObject({ source: 'tuned:device', config: RB });
      expect(sel(rows, 0)).toMatchObject({ source: 'tuned:device', config: RA });
      expect(sel(rows, 8)).toMatchObject({ source: 'tuned:device', config: RA });
    }
    // A device row without valueBytes beats a vendor row with it.
    const mixed = [row({ vendor: 'acme' }, { float: false, bytes: 4, valueBytes: 4 }, RB), row(dev, { float: false, bytes: 4 }, RA)];
    expect(sel(mixed, 4)).toMatchObject({ source: 'tuned:device', config: RA });
    // A row for other values never serves the call: the vendor row without valueBytes does.
    const other = [row(dev, { float: false, bytes: 4, valueBytes: 0 }, RB), row({ vendor: 'acme' }, { float: false, bytes: 4 }, RC)];
    expect(sel(other, 0)).toMatchObject({ source: 'tuned:device', config: RB });
    expect(sel(other, 4)).toMatchObject({ source: 'tuned:vendor', config: RC });
    expect(sel([row(dev, { float: false, bytes: 4, valueBytes: 0 }, RB)], 4).source).toBe('heuristic');
    // Old rows (no valueBytes) match keys and pairs alike.
    const old = [row(dev, { float: false, bytes: 4 }, RB)];
    expect(sel(old, 0)).toMatchObject({ source: 'tuned:device', config: RB });
    expect(sel(old, 4)).toMatchObject({ source: 'tuned:device', config: RB });
    // Skip-if-invalid stays: an exact row the device cannot run gives way to the row without.
    const huge = { ...RA, workgroupSize: 4096 };
    expect(sel([row(dev, { float: false, bytes: 4, valueBytes: 4 }, huge), row(dev, { float: false, bytes: 4 }, RA)], 4)).toMatchObject({ source: 'tuned:device', config: RA });
    // Segmented radix sort and the block-sort path select the same way.
    const SC = { workgroupSize: 128, itemsPerThread: 4, radixBits: 8, rank: 'match', segmentsPerWorkgroup: 1 };
    const SD = { ...SC, workgroupSize: 64 };
    const seg = createPrim(device, { adapterInfo: info(X1000), tuned: { segmentedRadixSort: [row(dev, { float: false, bytes: 4 }, SC), row(dev, { float: false, bytes: 4, valueBytes: 4 }, SD)] as never } });
    expect(seg.selectedSegmentedRadixSortConfig('u32', 0)).toMatchObject({ source: 'tuned:device', config: SC });
    expect(seg.selectedSegmentedRadixSortConfig('u32', 4)).toMatchObject({ source: 'tuned:device', config: SD });
  });

  it('validates valueBytes', () => {
    const row = { target: { vendor: 'acme' }, typeClass: { float: false, bytes: 4, valueBytes: -4 }, config: RA, evidence: { itemsPerSecond: 1, cv: 0, size: 1, date: '', version: '' } };
    expect(() => createPrim(device, { tuned: { radixSort: [row as never] } })).toThrow(/radixSort\[0\]\.typeClass\.valueBytes: must be 0 \(keys only\)/);
    const typo = { ...row, typeClass: { float: false, bytes: 4, values: 4 } };
    expect(() => createPrim(device, { tuned: { radixSort: [typo as never] } })).toThrow(/radixSort\[0\]\.typeClass: unknown field "values"/);
  });

  it('apply-config-improvements compares rows of the same key and value class', () => {
    const ev = { itemsPerSecond: 1, cv: 0, size: [S1, S2], date: '2026-11-30', version: '0.1.0' };
    const T1 = { vendor: 'acme', architecture: 'rdna9', device: 'x1000' };
    const K = { float: false, bytes: 4, valueBytes: 0 };
    const V = { float: false, bytes: 4, valueBytes: 4 };
    const row = (typeClass: object, config: object): TunedEntry<unknown> => ({ target: T1, typeClass, config, evidence: ev }) as TunedEntry<unknown>;
    // Old: RA for both. New: RB for both. RB is faster keys only (3 vs 2) and slower with pairs (1 vs 5).
    const res = applyConfigImprovements({
      oldTables: { radixSort: [row(K, RA), row(V, RA)] as never },
      newTables: { radixSort: [row(K, RB), row(V, RB)] as never },
      thresholdPercent: 5,
      oldJson: [{ data: split, label: 'split.json' }], newJson: [{ data: split, label: 'split.json' }],
    });
    const d = (valueBytes: number) => res.decisions.find((x) => x.typeClass.valueBytes === valueBytes)!;
    expect(d(0)).toMatchObject({ status: 'accepted' });
    expect(d(0).changePercent).toBeCloseTo(50, 6);
    expect(d(4)).toMatchObject({ status: 'slower' });
    expect(d(4).changePercent).toBeCloseTo(-80, 6);
    expect(res.tables.radixSort!.map((r) => [r.typeClass.valueBytes, r.config])).toEqual([[0, RB], [4, RA]]);
    expect(decisionRows(res.decisions).map((r) => r[3])).toEqual(['int32/empty', 'int32/u32']);
  });

  it('the built-in radix tables: every row has a value class; each table is one module in its algorithm\'s folder', async () => {
    const modules = {
      'radix-sort/tuned': (await import('../src/device/radix-sort/tuned.js')).radixSortTuned,
      'radix-sort/block-sort-tuned': (await import('../src/device/radix-sort/block-sort-tuned.js')).radixSortBlockSortTuned,
      'segmented-radix-sort/tuned': (await import('../src/device/segmented-radix-sort/tuned.js')).segmentedRadixSortTuned,
    } as Record<string, readonly TunedEntry<unknown>[]>;
    for (const [file, rows] of Object.entries(modules)) {
      expect(rows.length, file).toBeGreaterThan(0);
      for (const e of rows) expect([0, 4, 8], file).toContain(e.typeClass.valueBytes);
      expect(fs.existsSync(path.join(ROOT, 'src/device', `${file}.json`)), file).toBe(false);
    }
    expect(fs.existsSync(path.join(ROOT, 'src/config/tuned'))).toBe(false);
  });

  it('rejects a row whose config is not a radix sort config', () => {
    const row = { target: { vendor: 'acme' }, typeClass: { float: false, bytes: 4 }, config: { ...RA, radixBits: 'eight' }, evidence: { itemsPerSecond: 1, cv: 0, size: 1, date: '', version: '' } };
    expect(() => createPrim(device, { tuned: { radixSort: [row as never] } })).toThrow(/radixSort\[0\]\.config\.radixBits: must be a non-negative integer/);
  });

  it('a row written before decoupledMaxCount existed reads as 0 (its lookback at every count); a bad one is named', () => {
    const { decoupledMaxCount: _, ...old } = RB;
    const evidence = { itemsPerSecond: 1, cv: 0, size: 1, date: '', version: '' };
    const row = { target: { vendor: 'acme', device: 'x1000' }, typeClass: { float: false, bytes: 4, valueBytes: 0 }, config: { ...old, rank: 'match', lookback: 'reduce-then-scan' }, evidence };
    const p = createPrim(device, { adapterInfo: info(X1000), tuned: { format: 'wgprim-tuned-table', formatVersion: 1, algorithm: 'radixSort', entries: [row] } as never });
    expect(p.selectedRadixSortConfig('u32', 0)).toMatchObject({ config: { ...row.config, decoupledMaxCount: 0 }, source: 'tuned:device' });
    expect(row.config).not.toHaveProperty('decoupledMaxCount');
    expect(() => createPrim(device, { tuned: { radixSort: [{ ...row, config: { ...row.config, decoupledMaxCount: -2 } } as never] } })).toThrow(/radixSort\[0\]\.config\.decoupledMaxCount: must be a non-negative integer/);
  });

  it("a row written before passKernels existed reads as 'specialized'; 'shared' stays; another value is named", () => {
    const { passKernels: _, ...old } = RB;
    const evidence = { itemsPerSecond: 1, cv: 0, size: 1, date: '', version: '' };
    const row = { target: { vendor: 'acme', device: 'x1000' }, typeClass: { float: false, bytes: 4, valueBytes: 0 }, config: old, evidence };
    const load = (config: object) => createPrim(device, { adapterInfo: info(X1000), tuned: { radixSort: [{ ...row, config } as never] } });
    expect(load(old).selectedRadixSortConfig('u32', 0).config.passKernels).toBe('specialized');
    expect(load({ ...old, passKernels: 'shared' }).selectedRadixSortConfig('u32', 0).config.passKernels).toBe('shared');
    expect(() => load({ ...old, passKernels: 'all' })).toThrow(/radixSort\[0\]\.config\.passKernels: must be one of "specialized", "shared", got "all"/);
  });
});
