// The tuning campaign: settings, variants (drops with reasons), sharding, strategies, the plan,
// and the whole pipeline on a tiny space: Google Benchmark JSON, errors as entries, resume
// after an interruption, and the CLI.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { type RadixSortConfig, radixSortConfigProblem, radixSortHeuristic } from '../src/device/radix-sort/config.js';
import { typeInfo } from '../src/wgsl/types.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Prim, WgprimError } from '../src/index.js';
import { formatName, type NameFields, parseName, rawEntryName } from '../src/bench/gbench.js';
import { configFromName } from '../src/bench/run.js';
import { radixSortName, transformName } from './support/names.js';
import { type DeviceContext } from '../src/runtime/context.js';
import { type ConfigObject, groupValueClass, registerTunable, tunable } from '../src/tune/registry.js';
import { TUNING_STAGES } from '../src/algorithms.js';
import { type RadixSortBlockSortConfig, radixSortBlockSortHeuristic } from '../src/device/radix-sort/block-sort-config.js';
import { type TuneSettings, defaultSettings, deviceKindOf, mergeSettings, resolveSettings } from '../src/tune/settings.js';
import { settingsJsonSchema } from '../src/tune/settings-schema.js';
import { planFor } from '../src/tune/campaign-plan.js';
import { profilePrim, targetProfile } from '../src/tune/profiles.js';
import { type Variant, type VariantGroup, enumerateVariants, inShard, parseShard, spacePoints, spaceSize, variantKey } from '../src/tune/variants.js';
import { exhaustiveCandidates, localSearch, neighbours, randomCandidates, strategyFor } from '../src/tune/strategy.js';
import { PLAN_STAGES, formatPlan, planOrder, planStages } from '../src/tune/plan.js';
import { type CampaignResult, type SummaryRow, runCampaign, summarize, summaryTypeLabel, variantScore } from '../src/tune/campaign.js';
import { type TuneEntry, type TuneFile, entryKey, gbenchProblems, isErrorEntry } from '../src/tune/results.js';
import { createOptimization, type GroupResult } from '../src/tune/create-optimization.js';
import { groupOfRow, tune } from '../src/tune/runtime.js';
import { createPrim } from '../src/prim.js';
import { testPrim } from './support/gpu.js';
import { interruptAfterFirstRecord } from './support/interrupt.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url)).replace(/\/$/, '');
const TMP = fs.mkdtempSync(path.join(os.tmpdir(), 'wgprim-tune-test-'));

// ---------------------------------------------------------------------------------------------
// Settings (no device)

describe('settings', () => {
  it('gives CPU adapters a small space, GPUs the default campaign\'s, and --space full every algorithm\'s whole space', () => {
    const cpu = defaultSettings('cpu');
    const gpu = defaultSettings('gpu');
    const full = defaultSettings('gpu', 'full');
    for (const a of ['scan', 'reduce', 'transform']) {
      expect(gpu.algorithms[a]!.space).toEqual(tunable(a).defaultSpace);
      expect(full.algorithms[a]!.space).toEqual(tunable(a).space);
      expect(spaceSize(cpu.algorithms[a]!.space)).toBeLessThanOrEqual(8);
      // A handful of tile shapes: the default campaign is sized for minutes on a GPU.
      expect(spaceSize(gpu.algorithms[a]!.space)).toBeGreaterThanOrEqual(6);
      expect(spaceSize(gpu.algorithms[a]!.space)).toBeLessThanOrEqual(20);
      expect(spaceSize(full.algorithms[a]!.space)).toBeGreaterThanOrEqual(20);
      expect(Math.max(...cpu.algorithms[a]!.sizes)).toBeLessThan(Math.max(...gpu.algorithms[a]!.sizes));
      expect(gpu.algorithms[a]!.types).toEqual(['u32', 'f32', 'u64', 'f16']);
    }
    // Radix sort compiles slowly on lavapipe: 4 variants of u32 at 2^14 and 2^16 on a CPU.
    expect(full.algorithms.radix_sort_onesweep!.space).toEqual(tunable('radix_sort_onesweep').space);
    expect(spaceSize(gpu.algorithms.radix_sort_onesweep!.space)).toBeLessThanOrEqual(20);
    expect(spaceSize(cpu.algorithms.radix_sort_onesweep!.space)).toBeLessThanOrEqual(4);
    expect(cpu.algorithms.radix_sort_onesweep).toMatchObject({ types: ['u32'], sizes: [2 ** 14, 2 ** 16], benchmarks: ['radix_sort_keys'] });
    // GPUs time the segmented sort on power-law segments too (they decide its grouping fields); CPU adapters on 1024-key segments only.
    expect(gpu.algorithms.segmented_radix_sort!.benchmarks).toEqual(['segmented_radix_sort', 'segmented_radix_sort_pow']);
    expect(cpu.algorithms.segmented_radix_sort!.benchmarks).toEqual(['segmented_radix_sort']);
    expect(gpu.algorithms.scan!.benchmarks).toEqual(tunable('scan').defaultBenchmarks);
    // A time-based warmup after slow-to-make inputs on GPUs (a GPU idle meanwhile runs slow for a while).
    expect([cpu.warmupMs, gpu.warmupMs]).toEqual([0, 500]);
    expect(mergeSettings(gpu, { warmupMs: 0 }).warmupMs).toBe(0);
    expect(deviceKindOf({ vendor: 'mesa', architecture: 'software', device: 'llvmpipe-x', description: '', subgroupMinSize: 8, subgroupMaxSize: 8 })).toBe('cpu');
    expect(deviceKindOf({ vendor: 'google', architecture: 'swiftshader', device: '', description: '', subgroupMinSize: 4, subgroupMaxSize: 4 })).toBe('cpu');
    expect(deviceKindOf({ vendor: 'nvidia', architecture: '', device: 'nvidia-h200', description: '', subgroupMinSize: 32, subgroupMaxSize: 32 })).toBe('gpu');
  });

  it('plans the H200 campaign\'s segmented sort stage with both draws, compiling each variant\'s kernels once', () => {
    const prim = profilePrim(targetProfile('nvidia-h200'));
    const stage = (benchmarks: string[]) => {
      const s = mergeSettings(defaultSettings('gpu'), { algorithms: { segmented_radix_sort: { benchmarks } } });
      return planFor(prim, s, { algorithms: ['segmented_radix_sort'] }).plan.stages[0]!;
    };
    const one = stage(['segmented_radix_sort']);
    const both = stage(['segmented_radix_sort', 'segmented_radix_sort_pow']);
    expect(both.measurements).toBe(2 * one.measurements);
    expect(both.pipelines).toBe(one.pipelines);
    expect(planFor(prim, defaultSettings('gpu'), { algorithms: ['segmented_radix_sort'] }).plan.stages[0]).toEqual(both);
  });

  it('merges a user file over the defaults param by param, and lists every problem', () => {
    const base = defaultSettings('gpu');
    const s = mergeSettings(base, { seed: 7, algorithms: { scan: { space: { itemsPerThread: [8, 12] }, sizes: [1000] } } });
    expect(s.seed).toBe(7);
    expect(s.algorithms.scan!.space.itemsPerThread).toEqual([8, 12]);
    expect(s.algorithms.scan!.space.workgroupSize).toEqual(base.algorithms.scan!.space.workgroupSize);
    expect(s.algorithms.scan!.sizes).toEqual([1000]);
    expect(s.algorithms.reduce).toEqual(base.algorithms.reduce);
    let err: unknown;
    try {
      mergeSettings(base, { batches: 0, batchsize: 4, warmupMs: -5, algorithms: { scan: { space: { tileSize: [1] }, types: ['u8'], size: [1] }, radix_sort_pairs: { types: ['u32'] } } } as never);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(WgprimError);
    const text = (err as Error).message;
    for (const bit of ['batches must be an integer >= 1', 'warmupMs must be a number >= 0, got -5', 'unknown setting "batchsize"', 'algorithms.scan: unknown setting "size"', 'space.tileSize: not a scan config field', 'unknown type "u8"', 'no tunable algorithm "radix_sort_pairs"']) expect(text).toContain(bit);
    const schema = settingsJsonSchema() as { properties: { algorithms: { properties: Record<string, { properties: { space: { properties: Record<string, unknown> } } }> } } };
    expect(Object.keys(schema.properties.algorithms.properties)).toEqual(expect.arrayContaining(['scan', 'reduce', 'transform', 'radix_sort_onesweep']));
    // passKernels is not in the default spaces (its trade is compile time, which is not timed) but a space may name it.
    const onesweep = schema.properties.algorithms.properties.radix_sort_onesweep!.properties.space.properties;
    expect(onesweep.passKernels).toEqual({ type: 'array', minItems: 1, uniqueItems: true, items: { enum: ['specialized', 'shared'] } });
    expect(base.algorithms.radix_sort_onesweep!.space).not.toHaveProperty('passKernels');
    expect(mergeSettings(base, { algorithms: { radix_sort_onesweep: { space: { passKernels: ['shared'] } } } }).algorithms.radix_sort_onesweep!.space.passKernels).toEqual(['shared']);
  });

  it('leaves out types whose feature the device lacks and sizes over its binding limit, saying why', () => {
    const ctx = { features: new Set<string>(), limits: { maxStorageBufferBindingSize: 1 << 20, maxBufferSize: 1 << 30 } } as unknown as DeviceContext;
    const [r] = resolveSettings(mergeSettings(defaultSettings('gpu'), { algorithms: { transform: { sizes: [1 << 16, 1 << 18, 1 << 20] } } }), ctx, ['transform']);
    expect(r!.types).toEqual(['u32', 'f32', 'u64']);
    // 2^18 u64 = 2 MiB > 1 MiB: left out for u64 only; 2^20 of 4 bytes = 4 MiB for every type.
    expect(r!.sizes).toEqual([1 << 16, 1 << 18]);
    expect(r!.sizesFor('u32')).toEqual([1 << 16, 1 << 18]);
    expect(r!.sizesFor('f32')).toEqual([1 << 16, 1 << 18]);
    expect(r!.sizesFor('u64')).toEqual([1 << 16]);
    expect(r!.skipped.join('\n')).toMatch(/type f16: the device has no "shader-f16"/);
    expect(r!.skipped.filter((x) => x.startsWith('size'))).toEqual([
      `size ${1 << 18} for u64: ${8 << 18} bytes exceed maxStorageBufferBindingSize ${1 << 20}`,
      ...['u32', 'f32', 'u64'].map((t) => `size ${1 << 20} for ${t}: ${(t === 'u64' ? 8 : 4) << 20} bytes exceed maxStorageBufferBindingSize ${1 << 20}`),
    ]);
  });

  it('keeps the radix sort sizes whose arrays its LSD passes bind as two ranges (up to twice the binding limit)', () => {
    const limits = { maxStorageBufferBindingSize: 1 << 20, maxBufferSize: 1 << 30, minStorageBufferOffsetAlignment: 256 };
    const ctx = { features: new Set<string>(), limits } as unknown as DeviceContext;
    const sizes = [1 << 16, 1 << 17, 1 << 18, 1 << 19];
    const settings = mergeSettings(defaultSettings('gpu'), { algorithms: { radix_sort_onesweep: { types: ['u64'], sizes }, transform: { types: ['u64'], sizes } } });
    const [radix, transform] = resolveSettings(settings, ctx, ['radix_sort_onesweep', 'transform']);
    // 2^18 u64 = 2 MiB: two bindings for the sort (1 MiB each), over one for transform; 2^19 is over both.
    expect(radix!.sizes).toEqual([1 << 16, 1 << 17, 1 << 18]);
    expect(radix!.skipped).toEqual([`size ${1 << 19} for u64: ${8 << 19} bytes exceed the ${2 * (1 << 20)} bytes one array may take (two storage bindings)`]);
    expect(transform!.sizes).toEqual([1 << 16, 1 << 17]);
    expect(transform!.skipped).toEqual([18, 19].map((l) => `size ${1 << l} for u64: ${8 << l} bytes exceed maxStorageBufferBindingSize ${1 << 20}`));
    const small = resolveSettings(settings, { ...ctx, limits: { ...limits, maxBufferSize: 1 << 20 } } as unknown as DeviceContext, ['radix_sort_onesweep']);
    expect(small[0]!.skipped).toEqual([18, 19].map((l) => `size ${1 << l} for u64: ${8 << l} bytes exceed maxBufferSize ${1 << 20}`));
  });
});

// ---------------------------------------------------------------------------------------------
// Strategies (no device): a synthetic group and objective

function syntheticGroup(): { group: VariantGroup; score: (v: Variant) => number } {
  const space = { workgroupSize: [64, 128, 256, 512, 1024], itemsPerThread: [4, 8, 12, 16, 20, 24, 32], method: ['a', 'b'] };
  const variants: Variant[] = [...spacePoints(space)].map((p, index) => ({ algorithm: 'synthetic', type: 'u32', config: p, key: variantKey('synthetic', 'u32', p), index }));
  const selected = variants.find((v) => v.config.workgroupSize === 256 && v.config.itemsPerThread === 16 && v.config.method === 'a')!;
  const sel: Variant = { ...selected, baseline: ['selected', 'heuristic'], source: 'heuristic' };
  variants[variants.indexOf(selected)] = sel;
  const group: VariantGroup = { algorithm: 'synthetic', type: 'u32', space, variants, baselines: [sel], sizes: [1], benchmarks: ['synthetic'] };
  // One peak at 512 x 24, method b.
  const score = (v: Variant): number => 100 - (Math.log2(Number(v.config.workgroupSize)) - 9) ** 2 - ((Number(v.config.itemsPerThread) - 24) / 4) ** 2 + (v.config.method === 'b' ? 0.5 : 0);
  return { group, score };
}

describe('strategies', () => {
  it('exhaustive takes every variant once, the default first; auto switches to local for big groups', () => {
    const { group } = syntheticGroup();
    const all = exhaustiveCandidates(group);
    expect(all[0]!.baseline).toContain('selected');
    expect(new Set(all.map((v) => v.key)).size).toBe(group.variants.length);
    expect(all).toHaveLength(70);
    expect(strategyFor('auto', 70, 400)).toBe('exhaustive');
    expect(strategyFor('auto', 401, 400)).toBe('local');
    expect(strategyFor('random', 5, 400)).toBe('random');
  });

  it('random draws the same variants for the same seed, others for another, always with the default', () => {
    const { group } = syntheticGroup();
    const a = randomCandidates(group, 42, 10).map((v) => v.key);
    expect(randomCandidates(group, 42, 10).map((v) => v.key)).toEqual(a);
    const b = randomCandidates(group, 43, 10).map((v) => v.key);
    expect(b).not.toEqual(a);
    for (const list of [a, b]) {
      expect(list).toHaveLength(11);
      expect(list[0]).toBe(group.baselines[0]!.key);
      expect(new Set(list).size).toBe(11);
    }
  });

  it('local search starts at the default, climbs to the optimum, is deterministic per seed and keeps to its budget', async () => {
    const { group, score } = syntheticGroup();
    const run = async (seed: number, maxEvaluations: number): Promise<string[]> => {
      const r = await localSearch(group, async (vs) => vs.map(score), { seed, maxEvaluations });
      expect(r.evaluated.length).toBeLessThanOrEqual(maxEvaluations);
      expect(r.evaluated[0]!.key).toBe(group.baselines[0]!.key);
      return r.evaluated.map((v) => v.key);
    };
    const r = await localSearch(group, async (vs) => vs.map(score), { seed: 1, maxEvaluations: 40 });
    expect(r.best!.variant.config).toEqual({ workgroupSize: 512, itemsPerThread: 24, method: 'b' });
    expect(r.moves).toBeGreaterThanOrEqual(3);
    // Far fewer measurements than the 70 an exhaustive search takes.
    const toBest = r.evaluated.findIndex((v) => v.key === r.best!.variant.key) + 1;
    expect(toBest).toBeLessThan(30);
    const a = await run(1, 40);
    expect(await run(1, 40)).toEqual(a);
    expect(await run(2, 40)).not.toEqual(a); // the restarts after the optimum differ
    expect(await run(1, 5)).toEqual(a.slice(0, 5));
  });

  it('gives a baseline outside the space neighbours by value, and survives failed variants', async () => {
    const { group, score } = syntheticGroup();
    const byKey = new Map(group.variants.map((v) => [v.key, v]));
    const outside = neighbours(group, { workgroupSize: 256, itemsPerThread: 10, method: 'a' }, byKey).map((v) => `${v.config.workgroupSize}x${v.config.itemsPerThread}${v.config.method}`);
    // 128x10 and 512x10 are not variants (10 is not in the space): only the item counts move.
    expect(outside).toEqual(['256x8a', '256x12a']);
    const failing = await localSearch(group, async (vs) => vs.map((v) => (v.config.method === 'b' ? undefined : score(v))), { seed: 3, maxEvaluations: 30 });
    expect(failing.best!.variant.config.method).toBe('a');
    expect(failing.best!.variant.config).toEqual({ workgroupSize: 512, itemsPerThread: 24, method: 'a' });
  });
});

// ---------------------------------------------------------------------------------------------
// Summary per value class (no device)

describe('summary', () => {
  const rs = (workgroupSize: number, itemsPerThread: number): RadixSortConfig => ({
    workgroupSize, itemsPerThread, radixBits: 8, rank: 'match', workgroupScan: 'subgroup', lookback: 'decoupled', histogramWorkgroupSize: 256, histogramItemsPerThread: 16, decoupledMaxCount: 0, passKernels: 'specialized',
  });
  const KEYS = rs(128, 16); // today's keys row: too large with values
  const PAIRS = rs(128, 8); // today's pairs row
  const OTHER = rs(64, 8);
  const SIZES = [4096, 16384];
  const ok = (values: 'empty' | 'u32', c: RadixSortConfig, size: number, ips: number) => ({ name: `${radixSortName('u32', values, c)}/manual_time`, size, items_per_second: ips, cv: 0.01 }) as unknown as TuneEntry;
  const bad = (values: 'empty' | 'u32', c: RadixSortConfig, size: number) => ({ name: `${radixSortName('u32', values, c)}/manual_time`, size, error_occurred: true, error_message: 'workgroup memory' }) as unknown as TuneEntry;
  const entries = SIZES.flatMap((n) => [
    ok('empty', KEYS, n, 1e9), bad('u32', KEYS, n),
    ok('empty', PAIRS, n, 0.8e9), ok('u32', PAIRS, n, 0.5e9),
    ok('empty', OTHER, n, 1.2e9), ok('u32', OTHER, n, 0.6e9),
  ]);
  const variant = (c: RadixSortConfig, index: number): Variant => ({ algorithm: 'radix_sort_onesweep', type: 'u32', config: c as unknown as ConfigObject, key: variantKey('radix_sort_onesweep', 'u32', c as unknown as ConfigObject), index });

  it('gives a sort group timing keys and pairs a row per value class, each against its own default', () => {
    const group: VariantGroup = {
      algorithm: 'radix_sort_onesweep', type: 'u32', space: {}, variants: [variant(OTHER, 0)],
      baselines: [{ ...variant(KEYS, -1), baseline: ['selected', 'heuristic'], source: 'tuned:device' }, { ...variant(PAIRS, -1), baseline: ['selected', 'heuristic'], source: 'tuned:vendor' }],
      sizes: SIZES, benchmarks: ['radix_sort_keys', 'radix_sort_pairs'],
      valueClasses: [
        { valueBytes: 0, benchmarks: ['radix_sort_keys'], selected: { config: KEYS as unknown as ConfigObject, source: 'tuned:device' }, heuristic: KEYS as unknown as ConfigObject },
        { valueBytes: 4, benchmarks: ['radix_sort_pairs'], selected: { config: PAIRS as unknown as ConfigObject, source: 'tuned:vendor' }, heuristic: PAIRS as unknown as ConfigObject },
      ],
    };
    const rows = summarize([{ group, strategy: 'exhaustive' }], entries);
    expect(rows.map((r) => [summaryTypeLabel(r), r.benchmarks, r.measured, r.failed])).toEqual([
      ['u32/empty', ['radix_sort_keys'], 3, 0],
      ['u32/u32', ['radix_sort_pairs'], 2, 1],
    ]);
    const [keys, pairs] = rows as [SummaryRow, SummaryRow];
    // Keys: today's keys row has its keys score (its pairs failure is the pairs row's business).
    expect(keys).toMatchObject({ algorithm: 'radix_sort_onesweep', type: 'u32', valueBytes: 0, selected: { config: KEYS, source: 'tuned:device', score: expect.closeTo(1e9, 0) }, best: { config: OTHER } });
    expect(keys.ratio).toBeCloseTo(1.2, 9);
    expect(pairs).toMatchObject({ valueBytes: 4, selected: { config: PAIRS, source: 'tuned:vendor', score: expect.closeTo(0.5e9, 0) }, heuristic: { config: PAIRS }, best: { config: OTHER } });
    expect(pairs.ratio).toBeCloseTo(1.2, 9);
    // A group of one value class: one row, labelled with it; algorithms without value classes keep the bare type.
    const pairsOnly = summarize([{ group: { ...group, benchmarks: ['radix_sort_pairs'], valueClasses: [group.valueClasses![1]!] }, strategy: 'exhaustive' }], entries);
    expect(pairsOnly.map((r) => [summaryTypeLabel(r), r.selected?.config])).toEqual([['u32/u32', PAIRS]]);
    expect(summaryTypeLabel({ type: 'f32' })).toBe('f32');
  });

  it('scores a reduce-then-scan LSD config with its decoupled twin where faster, as create-optimization does', () => {
    // As the H200's u32 keys: 23 decoupled wins the small size, 22 reduce-then-scan the large one.
    const dec23 = rs(256, 23);
    const rts22 = { ...rs(256, 22), lookback: 'reduce-then-scan' as const };
    const dec22 = rs(256, 22);
    const figures: [RadixSortConfig, number, number][] = [[dec23, 2.9e10, 3.5e10], [rts22, 2.2e10, 3.8e10], [dec22, 2.8e10, 3.4e10]];
    const lsd = figures.flatMap(([c, small, large]) => [ok('empty', c, SIZES[0]!, small), ok('empty', c, SIZES[1]!, large)]);
    const group: VariantGroup = {
      algorithm: 'radix_sort_onesweep', type: 'u32', space: {}, variants: figures.map(([c], i) => variant(c, i)), baselines: [],
      sizes: SIZES, benchmarks: ['radix_sort_keys'],
    };
    const [row] = summarize([{ group, strategy: 'exhaustive' }], lsd);
    expect(row!.best).toMatchObject({ config: rts22, score: expect.closeTo(Math.sqrt(2.8e10 * 3.8e10), -3) });
    // Without the twin in the data, its own figures: the decoupled tile.
    const [alone] = summarize([{ group, strategy: 'exhaustive' }], lsd.slice(0, 4));
    expect(alone!.best).toMatchObject({ config: dec23 });
    // The search strategies' score (a local search climbs by it) counts the twin the same way.
    const lookup = (es: readonly TuneEntry[]) => (name: string, size: number) => es.find((e) => e.name === `${name}/manual_time` && e.size === size);
    expect(variantScore(group, group.variants[1]!, lookup(lsd))).toBeCloseTo(Math.sqrt(2.8e10 * 3.8e10), -3);
    expect(variantScore(group, group.variants[1]!, lookup(lsd.slice(0, 4)))).toBeCloseTo(Math.sqrt(2.2e10 * 3.8e10), -3);
    expect(variantScore(group, group.variants[0]!, lookup(lsd))).toBeCloseTo(Math.sqrt(2.9e10 * 3.5e10), -3);
    expect(variantScore(group, group.variants[2]!, lookup(lsd.slice(0, 4)))).toBeUndefined();
  });

  it('decides and installs a runtime row only from the create-optimization group of the row\'s own value class', () => {
    const g = (valueBytes: number | undefined, level: 'target' | 'vendor' = 'target') => ({ level, algorithm: 'radixSort', typeClass: { float: false, bytes: 4, ...(valueBytes !== undefined ? { valueBytes } : {}) } }) as unknown as GroupResult;
    const keys = g(0);
    const pairs = g(4);
    const groups = [g(4, 'vendor'), pairs, keys];
    expect(groupOfRow(groups, 'radixSort', { type: 'u32', valueBytes: 0 })).toBe(keys);
    expect(groupOfRow(groups, 'radixSort', { type: 'i32', valueBytes: 4 })).toBe(pairs);
    expect(groupOfRow([pairs], 'radixSort', { type: 'u32', valueBytes: 0 })).toBeUndefined();
    expect(groupOfRow([keys], 'radixSort', { type: 'u32', valueBytes: 4 })).toBeUndefined();
    expect(groupOfRow([keys], 'radixSort', { type: 'f32', valueBytes: 0 })).toBeUndefined();
    const scan = { ...g(undefined), algorithm: 'scan' } as GroupResult;
    expect(groupOfRow([scan], 'scan', { type: 'u32' })).toBe(scan);
  });
});

// ---------------------------------------------------------------------------------------------
// Plan (no device)

describe('plan', () => {
  it('orders every stage after the stages it depends on, and marks what exists', () => {
    const stages = planStages();
    const ids = stages.map((s) => s.id);
    expect(new Set(ids).size).toBe(PLAN_STAGES.length);
    stages.forEach((s, i) => {
      for (const d of s.after) expect(ids.indexOf(d), `${s.id} after ${d}`).toBeLessThan(i);
    });
    const pos = (id: string): number => ids.indexOf(id);
    expect(pos('merge_sort_block_sort')).toBeLessThan(pos('merge_sort_block_merge'));
    expect(pos('radix_sort_threshold')).toBeGreaterThan(Math.max(pos('radix_sort_block_sort'), pos('radix_sort_onesweep')));
    expect(stages.find((s) => s.id === 'segmented_reduce')).toMatchObject({ kind: 'reuse', reuses: 'reduce', tables: [] });
    expect(stages.find((s) => s.id === 'segmented_scan')).toMatchObject({ kind: 'reuse', reuses: 'scan' });
    const family = stages.filter((s) => s.family === 'partition');
    expect(family.map((s) => s.id)).toEqual(['select_flag', 'select_predicate', 'select_predicated_flag', 'select_unique', 'select_unique_by_key', 'partition_flag', 'partition_predicate', 'partition_two_way_flag', 'partition_two_way_predicate', 'partition_three_way']);
    expect(new Set(family.flatMap((s) => s.tables)).size).toBe(family.flatMap((s) => s.tables).length);
    // Every registered stage is in the plan and available, and the reuse stages of registered
    // algorithms; nothing else is available.
    const registered = [...TUNING_STAGES.map((t) => t.stage), ...TUNING_STAGES.flatMap((t) => (t.threshold ? [t.threshold.stage] : [])), 'segmented_reduce', 'segmented_scan'];
    expect(stages.filter((s) => s.status === 'available').map((s) => s.id).sort()).toEqual([...registered].sort());
    const unregistered = planStages([{ id: 'segmented_scan', kind: 'reuse', tables: [], after: [], reuses: 'scan', benchmarks: ['no_such_benchmark'], note: '' }]);
    expect(unregistered[0]!.status).toBe('pending');
    expect(stages.find((s) => s.id === 'radix_sort_block_sort')).toMatchObject({ kind: 'tune', tables: ['radixSortBlockSort'] });
    expect(stages.find((s) => s.id === 'merge_sort_block_merge')).toMatchObject({ kind: 'tune', tables: ['mergeSortBlockMerge'], after: ['merge_sort_block_sort'] });
    expect(pos('radix_sort_onesweep')).toBeGreaterThan(pos('scan'));
    expect(stages.find((s) => s.id === 'radix_sort_onesweep')).toMatchObject({ kind: 'tune', tables: ['radixSort'] });
    expect(stages.find((s) => s.id === 'radix_sort')).toBeUndefined();
    // nth element's own table (rocPRIM's nth_element_config), tuned right after top-k's on the same spaces.
    expect(pos('nth_element')).toBe(pos('top_k') + 1);
    expect(stages.find((s) => s.id === 'nth_element')).toMatchObject({ kind: 'tune', tables: ['nthElement'], after: [], status: 'available' });
    expect(tunable('nth_element')).toMatchObject({ table: 'nthElement', benchmarks: ['nth_element'], defaultSpace: tunable('top_k').defaultSpace, smallSpace: tunable('top_k').smallSpace });
    expect(planOrder(['scan', 'transform', 'reduce'])).toEqual(['transform', 'reduce', 'scan']);
    expect(formatPlan(stages)[0]).toMatch(/^ 1\. transform\s+available/);
  });

  it('rejects a cycle and an unknown dependency', () => {
    expect(() => planStages([{ id: 'a', kind: 'tune', tables: ['a'], after: ['b'], note: '' }, { id: 'b', kind: 'tune', tables: ['b'], after: ['a'], note: '' }])).toThrow(/cycle/);
    expect(() => planStages([{ id: 'a', kind: 'tune', tables: ['a'], after: ['nope'], note: '' }])).toThrow(/unknown stage "nope"/);
  });
});

// ---------------------------------------------------------------------------------------------
// On the device

// A tunable algorithm plugged in by the test: transform under another name, whose 8-wide
// configs fail to build (as a kernel that does not compile would).
const FAILING = 'transform_failing';
const failingName = (type: string, c: ConfigObject): string => formatName({ lvl: 'device', algo: FAILING, value_type: type, cfg: { bs: Number(c.workgroupSize), ipt: Number(c.itemsPerThread) } });
registerTunable({
  ...tunable('transform'),
  name: FAILING,
  record: async (prim, enc, b, type, c, bench) => {
    if (c.itemsPerThread === 8) throw new WgprimError('compile-failed', 'kernel wgprim.transform_failing did not compile (crafted)');
    return tunable('transform').record(prim, enc, b, type, c, bench);
  },
  measure: async (prim, o) => ({ ...(await tunable('transform').measure(prim, o)), name: failingName(o.type, o.config) }),
  benchmarkName: (_b, type, c) => failingName(type, c),
  parseName: (f) => (f.algo === FAILING && typeof f.cfg === 'object' ? { algorithm: FAILING, benchmark: 'transform', type: String(f.value_type), config: { workgroupSize: Number(f.cfg.bs), itemsPerThread: Number(f.cfg.ipt) } } : undefined),
});

const TINY = {
  seed: 5, warmup: 1, batches: 2, batchSize: 2, buildConcurrency: 2,
  algorithms: {
    // 64x4 and 128x4 run; 6 is no multiple of 4 and 2048 is over the invocation limit.
    transform: { space: { workgroupSize: [64, 128, 2048], itemsPerThread: [4, 6] }, types: ['u32'], sizes: [4096, 16384] },
    [FAILING]: { space: { workgroupSize: [64], itemsPerThread: [4, 8] }, types: ['u32'], sizes: [4096] },
  },
};

describe('campaign on a device', () => {
  let prim: Prim;
  let settings: TuneSettings;
  let adapterInfo: GPUAdapterInfo;
  let first: CampaignResult;
  let updates: TuneFile[];
  beforeAll(async () => {
    prim = await testPrim();
    adapterInfo = (prim.device as GPUDevice & { adapterInfo: GPUAdapterInfo }).adapterInfo;
    settings = mergeSettings(defaultSettings('cpu'), TINY);
  });

  it('enumerates the space, drops what the device cannot run with the reason, and adds the defaults', () => {
    const resolved = resolveSettings(mergeSettings(settings, { algorithms: { transform: { constraints: [{ kind: 'exclude', match: { workgroupSize: 128 } }] } } }), prim.context, ['transform']);
    const set = enumerateVariants(prim, resolved);
    expect(set.total).toBe(6);
    expect(set.kept).toBe(1);
    expect(set.dropped).toHaveLength(5);
    const reasons = set.dropped.map((d) => `${d.config.workgroupSize}x${d.config.itemsPerThread}: ${d.reason}`);
    expect(reasons).toEqual([
      '64x6: itemsPerThread 6 is not a multiple of 4 in [4, 64]',
      '128x4: constraint: excluded {"workgroupSize":128}',
      '128x6: itemsPerThread 6 is not a multiple of 4 in [4, 64]',
      expect.stringMatching(/^2048x4: workgroupSize 2048 exceeds this device's maxComputeInvocationsPerWorkgroup/),
      expect.stringMatching(/^2048x6: workgroupSize 2048 exceeds/),
    ]);
    expect(set.reasons.reduce((n, r) => n + r.count, 0)).toBe(5);
    expect(set.reasons[0]).toEqual({ reason: 'itemsPerThread 6 is not a multiple of 4 in [4, 64]', count: 2 });
    const g = set.groups[0]!;
    expect(g.variants.map((v) => v.config)).toEqual([{ workgroupSize: 64, itemsPerThread: 4 }]);
    // The selected config (the heuristic here) lies outside the space and is measured anyway.
    expect(g.baselines).toHaveLength(1);
    expect(g.baselines[0]).toMatchObject({ config: prim.selectedConfig('transform', 'u32').config, baseline: ['selected', 'heuristic'], index: -1 });
  });

  it('splits the variants into shards that cover each exactly once, baselines in every shard', () => {
    // The whole spaces of the algorithms that enumerate quickly (the sorts' run to tens of thousands).
    const cheap = ['scan', 'reduce', 'transform'];
    const set = enumerateVariants(prim, resolveSettings(defaultSettings('gpu', 'full'), prim.context, cheap));
    const space = set.groups.flatMap((g) => g.variants.filter((v) => !v.baseline));
    expect(space.length).toBeGreaterThan(300);
    const seen = new Map<string, number>();
    const sizes: number[] = [];
    for (let i = 0; i < 3; i++) {
      const shard = parseShard(`${i}/3`);
      const mine = space.filter((v) => inShard(v, shard));
      sizes.push(mine.length);
      for (const v of mine) seen.set(v.key, (seen.get(v.key) ?? 0) + 1);
      for (const g of set.groups) for (const b of g.baselines) expect(inShard(b, shard)).toBe(true);
    }
    expect(seen.size).toBe(space.length);
    expect([...seen.values()].every((n) => n === 1)).toBe(true);
    // Round robin over the enumeration: every shard gets a slice of every group.
    for (const g of set.groups) {
      for (let i = 0; i < 3; i++) expect(g.variants.filter((v) => !v.baseline && inShard(v, { index: i, count: 3 })).length, `${g.algorithm} ${g.type} shard ${i}`).toBeGreaterThan(0);
    }
    expect(Math.min(...sizes)).toBeGreaterThan(space.length / 3 - set.groups.length * 2);
    // The same enumeration twice gives the same split.
    const again = enumerateVariants(prim, resolveSettings(defaultSettings('gpu', 'full'), prim.context, cheap)).groups.flatMap((g) => g.variants.filter((v) => !v.baseline));
    expect(again.filter((v) => inShard(v, { index: 1, count: 3 })).map((v) => v.key)).toEqual(space.filter((v) => inShard(v, { index: 1, count: 3 })).map((v) => v.key));
    expect(() => parseShard('3/3')).toThrow(/0 <= i < n/);
    expect(() => parseShard('1of3')).toThrow();
  });

  it('stops at a measurement limit with its work in the file', async () => {
    updates = [];
    first = await runCampaign(prim, { settings, algorithms: ['transform'], adapterInfo, maxMeasurements: 2, onUpdate: (f) => void updates.push(f) });
    expect(first.stopped?.reason).toBe('limit');
    expect(first.measured).toBe(2);
    expect(first.file.benchmarks).toHaveLength(2);
    expect(updates).toHaveLength(2);
    expect(updates[1]!.benchmarks).toEqual(first.file.benchmarks);
    expect(gbenchProblems(JSON.parse(JSON.stringify(first.file)))).toEqual([]);
  });

  it('resumes without measuring again what the file holds, and completes it', async () => {
    const existing = JSON.parse(JSON.stringify(first.file)) as TuneFile;
    const done = await runCampaign(prim, { settings, algorithms: ['transform'], adapterInfo, existing });
    expect(done.stopped).toBeUndefined();
    expect(done.reused).toBe(2);
    expect(done.measured).toBe(4);
    const file = JSON.parse(JSON.stringify(done.file)) as TuneFile;
    expect(gbenchProblems(file)).toEqual([]);
    // The two entries measured before the interruption are there unchanged.
    expect(file.benchmarks.slice(0, 2)).toEqual(existing.benchmarks);
    // Every variant at every size exactly once: 64x4, 128x4 and the heuristic 256x8.
    const want = ['64,4', '128,4', '256,8'].flatMap((c) => {
      const [bs, ipt] = c.split(',').map(Number);
      return [4096, 16384].map((size) => entryKey(transformName('u32', { workgroupSize: bs!, itemsPerThread: ipt! }), size));
    });
    expect(file.benchmarks.map((e) => entryKey(e.name, e.size)).sort()).toEqual(want.sort());
    expect(file.context.adapter_vendor).toBe(adapterInfo.vendor);
    expect(file.context.size).toBe('4096,16384');
    expect(file.context.tune_algorithms).toBe('transform');
    // Family numbering as GBench's: one family per name, one instance per size.
    for (const e of file.benchmarks) {
      const same = file.benchmarks.filter((x) => rawEntryName(x.name) === rawEntryName(e.name));
      expect(new Set(same.map((x) => x.family_index)).size).toBe(1);
      expect(same.map((x) => x.per_family_instance_index).sort()).toEqual([0, 1]);
    }
    expect(new Set(file.benchmarks.map((e) => e.family_index)).size).toBe(3);
    // The summary compares the best config with the selected one, both measured here.
    const row = done.summary[0]!;
    expect(row).toMatchObject({ algorithm: 'transform', type: 'u32', measured: 3, failed: 0 });
    expect(row.selected!.config).toEqual(prim.selectedConfig('transform', 'u32').config);
    expect(row.best!.score).toBeGreaterThanOrEqual(row.selected!.score);
    expect(row.ratio).toBeCloseTo(row.best!.score / row.selected!.score, 12);
    // A resumed random search draws from what is there: the default plus one sample, nothing new.
    const random = await runCampaign(prim, { settings: { ...settings, randomSamples: 1 }, strategy: 'random', algorithms: ['transform'], adapterInfo, existing: file });
    expect([random.measured, random.reused]).toEqual([0, 4]);
    expect(random.summary[0]!.selected).toBeDefined();
    // Another adapter's file is refused.
    await expect(runCampaign(prim, { settings, algorithms: ['transform'], adapterInfo, existing: { ...file, context: { ...file.context, adapter_device: 'other' } } })).rejects.toThrow(/another adapter/);
  });

  it('records a variant that fails to build as error entries, not a crash', async () => {
    const r = await runCampaign(prim, { settings, algorithms: [FAILING], adapterInfo });
    expect(r.stopped).toBeUndefined();
    const file = JSON.parse(JSON.stringify(r.file)) as TuneFile;
    expect(gbenchProblems(file)).toEqual([]);
    const errors = file.benchmarks.filter(isErrorEntry);
    // The default (the heuristic's 256x8, measured first) and 64x8 fail: 8 items per invocation.
    expect(errors.map((e) => parseName(e.name).cfg)).toEqual([{ bs: 256, ipt: 8 }, { bs: 64, ipt: 8 }]);
    for (const e of errors) {
      expect(e.error_message).toMatch(/^build failed: .*kernel wgprim.transform_failing did not compile \(crafted\)$/);
      expect([e.iterations, e.real_time]).toEqual([0, 0]);
    }
    const ok = file.benchmarks.filter((e) => !isErrorEntry(e));
    expect(ok.map((e) => parseName(e.name).cfg)).toEqual([{ bs: 64, ipt: 4 }]);
    expect(r.errors).toBe(errors.length);
    expect(r.summary[0]).toMatchObject({ measured: 1, failed: 2 });
    expect(r.summary[0]!.selected).toBeUndefined();
    expect(r.summary[0]!.best!.config).toEqual({ workgroupSize: 64, itemsPerThread: 4 });
  });

  it('takes a radix sort group\'s default and heuristic from its benchmarks\' value class: a pairs campaign compares against the pairs selection', async () => {
    const target = { vendor: adapterInfo.vendor, architecture: adapterInfo.architecture, device: adapterInfo.device };
    const evidence = { itemsPerSecond: 1e8, cv: 0.01, size: 4096, date: '2026-12-01', version: 'test' };
    const PAIRS: RadixSortConfig = { workgroupSize: 64, itemsPerThread: 4, radixBits: 8, rank: 'split', workgroupScan: 'shared', lookback: 'reduce-then-scan', histogramWorkgroupSize: 64, histogramItemsPerThread: 4, decoupledMaxCount: 0, passKernels: 'specialized' };
    const BLOCK_PAIRS: RadixSortBlockSortConfig = { workgroupSize: 64, itemsPerThread: 4, radixBits: 4, rank: 'split', mergeWorkgroupSize: 64, mergeItemsPerThread: 4, maxCount: 2 ** 12 };
    const pairsClass = { float: false, bytes: 4, valueBytes: 4 };
    // A user table with pairs rows (valueBytes 4) only: keys calls select something else.
    const tunedPrim = createPrim(prim.device, { adapterInfo, tuned: {
      radixSort: [{ target, typeClass: pairsClass, config: PAIRS, evidence }],
      radixSortBlockSort: [{ target, typeClass: pairsClass, config: BLOCK_PAIRS, evidence }],
    } });
    const pairsSel = tunedPrim.selectedRadixSortConfig('u32', 4);
    const keysSel = tunedPrim.selectedRadixSortConfig('u32', 0);
    expect(pairsSel.config).toEqual(PAIRS);
    expect(keysSel.config).not.toEqual(PAIRS);
    expect(tunedPrim.selectedRadixSortBlockSortConfig('u32', 4).config).toEqual(BLOCK_PAIRS);
    expect(tunedPrim.selectedRadixSortBlockSortConfig('u32', 0).config).not.toEqual(BLOCK_PAIRS);
    const onesweep = TUNING_STAGES.find((s) => s.stage === 'radix_sort_onesweep')!;
    const vc = (b: string[] | undefined): number => groupValueClass(onesweep, b);
    expect([vc(undefined), vc(['radix_sort_pairs']), vc(['radix_sort_keys', 'radix_sort_pairs']), vc(['radix_sort_keys'])]).toEqual([0, 4, 0, 0]);

    // The baselines (no device work): pairs only, the pairs selection and heuristic; keys and
    // pairs, the keys selection first (the reported default), the pairs ones measured too.
    const group = (algorithm: string, benchmarks: string[], space: Record<string, unknown[]>) =>
      enumerateVariants(tunedPrim, resolveSettings(mergeSettings(settings, { algorithms: { [algorithm]: { space, types: ['u32'], sizes: [4096], benchmarks } } } as never), tunedPrim.context, [algorithm])).groups[0]!;
    const roles = (g: VariantGroup) => g.baselines.map((b) => [b.config, b.baseline]);
    const ctx = tunedPrim.context;
    const onesweepSpace = { workgroupSize: [64], itemsPerThread: [4] };
    const blockSpace = { workgroupSize: [64], itemsPerThread: [4] };
    const pairsGroup = group('radix_sort_onesweep', ['radix_sort_pairs'], onesweepSpace);
    expect(pairsGroup.baselines[0]).toMatchObject({ config: PAIRS, source: pairsSel.source });
    expect(pairsGroup.baselines[0]!.baseline).toContain('selected');
    expect(roles(pairsGroup)).toContainEqual([radixSortHeuristic(ctx, typeInfo('u32'), 4), expect.arrayContaining(['heuristic'])]);
    const blockPairs = group('radix_sort_block_sort', ['radix_sort_block_sort_pairs'], blockSpace);
    expect(blockPairs.baselines[0]!.config).toEqual(BLOCK_PAIRS);
    expect(roles(blockPairs)).toContainEqual([radixSortBlockSortHeuristic(ctx, typeInfo('u32'), 4), expect.arrayContaining(['heuristic'])]);
    for (const [algorithm, benchmarks, space, keys, pairs, heuristicOf] of [
      ['radix_sort_onesweep', ['radix_sort_keys', 'radix_sort_pairs'], onesweepSpace, keysSel.config, PAIRS, (v: 0 | 4) => radixSortHeuristic(ctx, typeInfo('u32'), v)],
      ['radix_sort_block_sort', ['radix_sort_block_sort_pairs', 'radix_sort_block_sort_keys'], blockSpace, tunedPrim.selectedRadixSortBlockSortConfig('u32', 0).config, BLOCK_PAIRS, (v: 0 | 4) => radixSortBlockSortHeuristic(ctx, typeInfo('u32'), v)],
    ] as const) {
      const both = group(algorithm, [...benchmarks], space);
      expect(both.baselines[0]!.config, algorithm).toEqual(keys);
      expect(both.baselines[0]!.baseline).toContain('selected');
      expect(roles(both), algorithm).toContainEqual([pairs, expect.arrayContaining(['selected'])]);
      // Each value class with its own defaults (keys only first), what the summary compares each class's row against.
      expect(both.valueClasses!.map((c) => [c.valueBytes, c.benchmarks, c.selected.config, c.heuristic]), algorithm).toEqual([
        [0, [benchmarks.find((b) => b.endsWith('_keys'))], keys, heuristicOf(0)],
        [4, [benchmarks.find((b) => b.endsWith('_pairs'))], pairs, heuristicOf(4)],
      ]);
      expect(both.valueClasses![1]!.selected.source).toBe(algorithm === 'radix_sort_onesweep' ? pairsSel.source : tunedPrim.selectedRadixSortBlockSortConfig('u32', 4).source);
    }
    expect(pairsGroup.valueClasses!.map((c) => [c.valueBytes, c.selected.config])).toEqual([[4, PAIRS]]);

    // On the device: a pairs-only campaign reports the pairs selection as its default.
    // The space is the pairs row alone: the variants are it and the pairs heuristic.
    const space = Object.fromEntries(Object.entries(PAIRS).map(([k, v]) => [k, [v]]));
    const pairsSettings = mergeSettings(settings, { algorithms: { radix_sort_onesweep: { space, types: ['u32'], sizes: [4096], benchmarks: ['radix_sort_pairs'] } } });
    const r = await runCampaign(tunedPrim, { settings: pairsSettings, algorithms: ['radix_sort_onesweep'], adapterInfo });
    expect(r.stopped).toBeUndefined();
    const file = JSON.parse(JSON.stringify(r.file)) as TuneFile;
    expect(gbenchProblems(file)).toEqual([]);
    expect(file.benchmarks.filter(isErrorEntry)).toEqual([]);
    expect(file.benchmarks.every((e) => parseName(e.name).value_type === 'u32')).toBe(true);
    expect(r.summary).toHaveLength(1);
    expect(summaryTypeLabel(r.summary[0]!)).toBe('u32/u32');
    expect(r.summary[0]!.selected).toMatchObject({ config: tunedPrim.selectedRadixSortConfig('u32', 4).config, source: pairsSel.source });
    expect(r.summary[0]!.selected!.config).not.toEqual(keysSel.config);
    expect(r.summary[0]!.heuristic!.config).toEqual(radixSortHeuristic(ctx, typeInfo('u32'), 4));
  });

  it('measures radix sort keys and pairs, and create-optimization turns them into a radixSort row that Prim selects', async () => {
    const radix = mergeSettings(settings, { algorithms: { radix_sort_onesweep: {
      space: { workgroupSize: [64], itemsPerThread: [4], radixBits: [8], rank: ['split'], workgroupScan: ['shared'], lookback: ['reduce-then-scan'], histogramWorkgroupSize: [64], histogramItemsPerThread: [4] }, types: ['u32'], sizes: [4096], benchmarks: ['radix_sort_keys', 'radix_sort_pairs'],
    } } });
    const r = await runCampaign(prim, { settings: radix, algorithms: ['radix_sort_onesweep'], adapterInfo });
    expect(r.stopped).toBeUndefined();
    const file = JSON.parse(JSON.stringify(r.file)) as TuneFile;
    expect(gbenchProblems(file)).toEqual([]);
    // 64x4 and the selected (heuristic, keys-only) config, keys and pairs each. Variants are
    // checked for keys only: a tile too large for workgroup memory with values fails the
    // variant's build (error entries for both benchmarks), so that config is not eligible.
    const names = file.benchmarks.map((e) => parseName(e.name));
    expect(names.filter((n) => n.value_type === 'empty')).toHaveLength(names.length / 2);
    expect(names).toContainEqual({
      lvl: 'device', algo: 'radix_sort_onesweep', key_type: 'u32', value_type: 'u32',
      // pk: lavapipe's heuristic passKernels (CPU adapters: shared), which sweeps keep.
      cfg: { bs: 64, ipt: 4, bits: 8, rank: 'split', method: 'shared', lookback: 'reduce_then_scan', hist_bs: 64, hist_ipt: 4, pk: 'shared' },
    });
    // The campaign always measures the heuristic config and the selected one (on lavapipe its
    // built-in tuned row) for keys only (the group's reported default: keys and pairs together),
    // and those for pairs: a keys tile may not fit workgroup memory with values. Every error
    // entry must be one of the keys ones, failing for that reason.
    const heuristic = radixSortHeuristic(prim.context, typeInfo('u32'), 0);
    const selected = prim.selectedRadixSortConfig('u32', 0).config;
    for (const e of file.benchmarks.filter(isErrorEntry)) {
      const cfg = configFromName('radix_sort_onesweep', parseName(e.name).cfg as NameFields) as unknown as RadixSortConfig;
      expect([heuristic, selected]).toContainEqual(cfg);
      expect(radixSortConfigProblem(prim.context, typeInfo('u32'), 4, cfg)).toMatch(/workgroup memory/);
      expect(e.error_message).toMatch(/workgroup memory/);
    }
    // The group's default is the keys selection (its first baseline). The summary has a row per
    // value class, as the tables: keys rows against the keys selection (scored over the keys
    // points only, so a keys tile that fails with values still has its score), pairs rows
    // against the pairs selection.
    expect(r.variants.groups[0]!.baselines[0]).toMatchObject({ config: selected, baseline: expect.arrayContaining(['selected']) });
    const pairsSelected = prim.selectedRadixSortConfig('u32', 4).config;
    expect(r.summary.map((x) => [x.algorithm, summaryTypeLabel(x), x.benchmarks])).toEqual([
      ['radix_sort_onesweep', 'u32/empty', ['radix_sort_keys']],
      ['radix_sort_onesweep', 'u32/u32', ['radix_sort_pairs']],
    ]);
    const [keysRow, pairsSummary] = r.summary as [SummaryRow, SummaryRow];
    expect(keysRow).toMatchObject({ type: 'u32', valueBytes: 0, failed: 0, selected: { config: selected }, heuristic: { config: heuristic } });
    expect(pairsSummary).toMatchObject({ type: 'u32', valueBytes: 4, selected: { config: pairsSelected }, heuristic: { config: radixSortHeuristic(prim.context, typeInfo('u32'), 4) } });
    expect(keysRow.ratio).toBeGreaterThan(0);
    expect(pairsSummary.ratio).toBeGreaterThan(0);
    expect(names).toContainEqual(parseName(radixSortName('u32', 'u32', pairsSelected)));
    const opt = createOptimization([{ data: file, label: 'radix.json' }]);
    // Keys-only and pairs runs are groups of their own: a row each, with typeClass.valueBytes.
    const rowOf = (valueBytes: number) => opt.fresh.radixSort!.find((e) => !e.typeClass.float && e.typeClass.bytes === 4 && e.typeClass.valueBytes === valueBytes)!;
    const row = rowOf(0);
    const pairsRow = rowOf(4);
    expect(row).toBeDefined();
    expect(pairsRow).toBeDefined();
    // Each winner is a config measured without errors with its values (so never a tile that failed with values for pairs).
    const failed = (value: string) => file.benchmarks.filter(isErrorEntry).map((e) => parseName(e.name)).filter((n) => n.value_type === value).map((n) => JSON.stringify(n.cfg));
    const cfgOf = (c: RadixSortConfig): string => JSON.stringify(parseName(radixSortName('u32', 'empty', c)).cfg);
    expect(failed('empty')).not.toContain(cfgOf(row.config as RadixSortConfig));
    expect(failed('u32')).not.toContain(cfgOf(pairsRow.config as RadixSortConfig));
    expect(radixSortConfigProblem(prim.context, typeInfo('u32'), 4, pairsRow.config as RadixSortConfig)).toBeUndefined();
    expect(names.map((n) => JSON.stringify(n.cfg))).toContain(cfgOf(row.config as RadixSortConfig));
    expect(opt.outputs.map((o) => o.name)).toEqual(['device/radix-sort/tuned.ts']);
    expect(opt.outputs[0]!.text).toContain('export const radixSortTuned: readonly TunedEntry<RadixSortConfig>[] = [');
    const asJson = createOptimization([{ data: file, label: 'radix.json' }], { form: 'json' });
    expect(asJson.outputs.map((o) => o.name)).toEqual(['radix-sort.json']);
    const tuned = createPrim(prim.device, { adapterInfo, tuned: JSON.parse(asJson.outputs[0]!.text) });
    expect(tuned.selectedRadixSortConfig('u32')).toMatchObject({ source: 'tuned:device', config: row.config });
    expect(tuned.selectedRadixSortConfig('i32', 4)).toMatchObject({ source: 'tuned:device', config: pairsRow.config });
    expect(tuned.selectedRadixSortConfig('f32').source).toBe('heuristic');

    // A tile that fits workgroup memory with keys only but not with values: kept for keys,
    // dropped (with the reason) once pairs are among the benchmarks.
    const big = { space: { workgroupSize: [128], itemsPerThread: [32], radixBits: [8], rank: ['split'], workgroupScan: ['shared'], lookback: ['reduce-then-scan'] }, types: ['u32'], sizes: [4096] };
    const limit = prim.context.limits.maxComputeWorkgroupStorageSize;
    const keysOnly = enumerateVariants(prim, resolveSettings(mergeSettings(settings, { algorithms: { radix_sort_onesweep: { ...big, benchmarks: ['radix_sort_keys'] } } }), prim.context, ['radix_sort_onesweep']));
    const withPairs = enumerateVariants(prim, resolveSettings(mergeSettings(settings, { algorithms: { radix_sort_onesweep: { ...big, benchmarks: ['radix_sort_keys', 'radix_sort_pairs'] } } }), prim.context, ['radix_sort_onesweep']));
    // Keys: 128*32*4 + 128*4 + 256*4 + 16 = 17936 bytes; pairs: 128*32*8 + 1552 = 34320.
    expect(limit).toBeGreaterThanOrEqual(17936);
    expect(keysOnly.kept).toBe(1);
    if (limit < 34320) {
      expect(withPairs.kept).toBe(0);
      expect(withPairs.dropped[0]!.reason).toMatch(/workgroup memory.*radix_sort_pairs/);
    }
  });
  it('prim.tune with radix sort keys and pairs: a group per value class, each row installed for its own class only', async () => {
    const p = createPrim(prim.device, { adapterInfo });
    const keysBefore = p.selectedRadixSortConfig('u32', 0);
    const pairsBefore = p.selectedRadixSortConfig('u32', 4);
    const space = { workgroupSize: [64], itemsPerThread: [4], radixBits: [8], rank: ['match'], workgroupScan: ['subgroup'], lookback: ['decoupled', 'reduce-then-scan'], histogramWorkgroupSize: [64], histogramItemsPerThread: [4] };
    const s = await tune(p, {
      budgetMs: 60_000, algorithms: ['radix_sort_onesweep'], types: ['u32'], sizes: [4096], install: 'best', cache: false,
      settings: { warmup: 1, batches: 2, batchSize: 2, strategy: 'exhaustive', algorithms: { radix_sort_onesweep: { space, benchmarks: ['radix_sort_keys', 'radix_sort_pairs'] } } },
    });
    expect(s.stopped).toBeUndefined();
    expect(s.groups.map((g) => [g.algorithm, g.type, g.valueBytes, g.typeClass, g.decision])).toEqual([
      ['radix_sort_onesweep', 'u32', 0, { float: false, bytes: 4, valueBytes: 0 }, 'installed'],
      ['radix_sort_onesweep', 'u32', 4, { float: false, bytes: 4, valueBytes: 4 }, 'installed'],
    ]);
    const [keys, pairs] = s.groups;
    // Each against the config its own class selected before.
    expect(keys!.default).toMatchObject({ config: keysBefore.config, source: keysBefore.source });
    expect(pairs!.default).toMatchObject({ config: pairsBefore.config, source: pairsBefore.source });
    // Each row carries its value class, and is selected for that class only.
    expect(keys!.row!.typeClass).toEqual({ float: false, bytes: 4, valueBytes: 0 });
    expect(pairs!.row!.typeClass).toEqual({ float: false, bytes: 4, valueBytes: 4 });
    expect(s.installed.radixSort).toEqual([keys!.row, pairs!.row]);
    expect(p.selectedRadixSortConfig('u32', 0)).toMatchObject({ source: 'tuned:runtime', config: keys!.best!.config });
    expect(p.selectedRadixSortConfig('u32', 0).entry).toBe(keys!.row);
    expect(p.selectedRadixSortConfig('u32', 4)).toMatchObject({ source: 'tuned:runtime', config: pairs!.best!.config });
    expect(p.selectedRadixSortConfig('u32', 4).entry).toBe(pairs!.row);
  });
});

// ---------------------------------------------------------------------------------------------
// CLI

describe('wgprim tune', () => {
  const main = path.join(ROOT, 'dist/cli/main.js');
  beforeAll(() => {
    if (!fs.existsSync(main)) execFileSync('npx', ['tsc', '-p', 'tsconfig.json'], { cwd: ROOT, stdio: 'inherit' });
  });
  const tune = (...args: string[]): ReturnType<typeof spawnSync> => spawnSync('node', [main, 'tune', ...args], { cwd: TMP, encoding: 'utf8', timeout: 60_000 });

  it('--plan prints the stages in dependency order', () => {
    const r = tune('--plan');
    expect(r.status, String(r.stderr)).toBe(0);
    const ids = [...String(r.stdout).matchAll(/^\s*\d+\. (\S+)/gm)].map((m) => m[1]);
    expect(ids).toEqual(planStages().map((s) => s.id));
  });

  it('with -q says on stderr how long each stage took as the next begins', () => {
    const settingsFile = path.join(TMP, 'settings-stages.json');
    const tiny = { space: { workgroupSize: [64], itemsPerThread: [4] }, types: ['u32'], sizes: [4096] };
    fs.writeFileSync(settingsFile, JSON.stringify({ warmup: 1, batches: 2, batchSize: 2, algorithms: { transform: tiny, reduce: { ...tiny, space: { ...tiny.space, maxWorkgroups: [16] } } } }));
    const r = tune('--algorithms', 'transform,reduce', '--settings', settingsFile, '--benchmark_out', path.join(TMP, 'tune-stages.json'), '--no-apply', '-q');
    expect(r.status, String(r.stderr)).toBe(0);
    expect(String(r.stderr)).toMatch(/^stage transform took \d+ s \(planned \d+ s\)$/m);
    expect(String(r.stdout)).toMatch(/^\s+reduce\s+\d+ s\s+\d+ s$/m);
  });

  it('stops on SIGTERM after the measurement under way, with the file written and the stage times printed', async () => {
    const settingsFile = path.join(TMP, 'settings-term.json');
    // Twelve measurements of 40 batches each, so the signal lands mid-run.
    fs.writeFileSync(settingsFile, JSON.stringify({ warmup: 1, batches: 40, batchSize: 2, algorithms: { transform: { space: { workgroupSize: [64, 128], itemsPerThread: [4, 8] }, types: ['u32'], sizes: [4096, 65536, 1048576] } } }));
    const out = path.join(TMP, 'tune-term.json');
    const r = await interruptAfterFirstRecord([main, 'tune', '--algorithms', 'transform', '--settings', settingsFile, '--benchmark_out', out, '--no-apply', '-q'], TMP, out);
    expect(r.before).toBeGreaterThan(0);
    expect(r.exit, r.stderr).toBe('130 null');
    expect(r.stderr).toMatch(/SIGTERM: stopping after the measurement under way/);
    expect(r.stdout).toMatch(/^stopped early: interrupted/m);
    expect(r.stdout).toMatch(/^\s+transform\s+\d+ s\s+\d+ s$/m);
    expect(r.after).toBeGreaterThanOrEqual(r.before);
    expect(r.after).toBeLessThan(12);
  }, 120_000);

  it('is interrupted by a limit, resumed by the same command, and prints best against default', async () => {
    const settingsFile = path.join(TMP, 'settings.json');
    fs.writeFileSync(settingsFile, JSON.stringify({ warmup: 1, batches: 2, batchSize: 2, algorithms: { transform: { space: { workgroupSize: [64], itemsPerThread: [4] }, types: ['u32'], sizes: [4096] } } }));
    const out = path.join(TMP, 'tune-results.json');
    const args = ['--algorithms', 'transform', '--settings', settingsFile, '--benchmark_out', out, '--no-apply', '-q'];
    const cut = tune(...args, '--max-measurements', '1');
    expect(cut.status, String(cut.stderr)).toBe(1);
    expect(String(cut.stdout)).toMatch(/stopped early/);
    const part = JSON.parse(fs.readFileSync(out, 'utf8')) as TuneFile;
    expect(part.benchmarks).toHaveLength(1);
    const rest = tune(...args);
    expect(rest.status, String(rest.stderr)).toBe(0);
    expect(String(rest.stdout)).toMatch(/resume\s+1 entries/);
    expect(String(rest.stdout)).toMatch(/^measured 1; 0 errors; reused 1 /m);
    // The plan printed up front counts what the run then measures.
    expect(String(rest.stdout)).toMatch(/^\s+total\s+1\s+1\s+1\s/m);
    // Each run, cut short or not, ends with the stage's wall time against the plan's.
    for (const r of [cut, rest]) expect(String(r.stdout)).toMatch(/^time by stage \(seconds\):\n\s+stage\s+planned\s+took\n\s+transform\s+\d+ s\s+\d+ s\n/m);
    // The default is whatever this device selects: the heuristic, or lavapipe's built-in tuned row.
    const selected = (await testPrim()).selectedConfig('transform', 'u32');
    const source = selected.source.replace(/^tuned:/, '');
    expect(String(rest.stdout)).toMatch(/^transform \(exhaustive\)$/m);
    expect(String(rest.stdout)).toMatch(new RegExp(`^  u32\\s+2\\s+${source}\\s.*x$`, 'm'));
    // The summary keeps to 100 columns (lines naming files may run longer).
    const summary = String(rest.stdout).split('\n').slice(String(rest.stdout).split('\n').findIndex((l) => l.startsWith('best config against the default')));
    for (const l of summary) expect(l.length, l).toBeLessThanOrEqual(100);
    const full = JSON.parse(fs.readFileSync(out, 'utf8')) as TuneFile;
    expect(gbenchProblems(full)).toEqual([]);
    expect(full.benchmarks).toHaveLength(2);
    expect(full.benchmarks[0]).toEqual(part.benchmarks[0]);
    // With --algorithms the run is the named algorithm's alone: no note.
    expect(String(rest.stdout)).not.toMatch(/^note /m);
  });

  it('says when a settings file names some algorithms and the defaults add the others', () => {
    const settingsFile = path.join(TMP, 'settings-some.json');
    fs.writeFileSync(settingsFile, JSON.stringify({ warmup: 1, batches: 2, batchSize: 2, algorithms: { transform: { space: { workgroupSize: [64], itemsPerThread: [4] }, types: ['u32'], sizes: [4096] } } }));
    const r = tune('--settings', settingsFile, '--benchmark_out', path.join(TMP, 'tune-some.json'), '--no-apply', '-q', '--max-measurements', '1');
    expect(r.status, String(r.stderr)).toBe(1);
    const note = String(r.stdout).match(/^note\s+the settings name transform; (.*) come from the defaults and run too \(--algorithms transform runs only the named\)$/m);
    expect(note, String(r.stdout)).not.toBeNull();
    expect(note![1]).toContain('reduce');
    expect(note![1]).not.toContain('transform');
  });
});

describe('wgprim tune summary table', () => {
  it('labels a sort row with its value class (keys and pairs rows of one type are told apart)', async () => {
    const { summaryTable } = await import('../src/cli/tune.js');
    const row = (valueBytes: number | undefined) => ({ algorithm: 'radix_sort_onesweep', type: 'u32' as const, valueBytes, strategy: 'exhaustive' as const, sizes: [1024], benchmarks: [], measured: 1, failed: 0 });
    const table = summaryTable([row(0), row(4)]);
    expect(table).toMatch(/^radix_sort_onesweep \(exhaustive\)\n/);
    expect(table).toMatch(/^  u32\/empty\s/m);
    expect(table).toMatch(/^  u32\/u32\s/m);
    expect(summaryTable([{ ...row(undefined), algorithm: 'scan' }])).toMatch(/^scan \(exhaustive\)\n(.*\n){2}  u32\s/);
    // What the best changes from the default, within 100 columns.
    const RA = { workgroupSize: 256, itemsPerThread: 23, radixBits: 8, rank: 'match', workgroupScan: 'subgroup', lookback: 'reduce-then-scan', histogramWorkgroupSize: 256, histogramItemsPerThread: 16, decoupledMaxCount: 0, passKernels: 'specialized' };
    const wide = summaryTable([{ ...row(0), selected: { config: RA, score: 1e9, cv: 0.01, source: 'tuned:device' }, best: { config: { ...RA, workgroupSize: 320, itemsPerThread: 9 }, score: 1.1e9, cv: 0.01 }, ratio: 1.1 }]);
    expect(wide).toMatch(/^  u32\/empty\s+1\s+device\s+1\.000\s+bs:320 ipt:9\s+1\.100\s+0\.010\s+1\.100x$/m);
    for (const l of wide.split('\n')) expect(l.length, l).toBeLessThanOrEqual(100);
  });
});
