// The plan's radix_sort_threshold stage: both radix sort paths timed at a ladder of sizes into the
// campaign's Google Benchmark JSON, and create-optimization writing the measured threshold as
// maxCount of the radixSortBlockSort rows (the rule checked on made-up figures; the whole
// pipeline on lavapipe with a tiny ladder, in-process and through the CLI).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Prim } from '../src/index.js';
import { parseName, rawEntryName } from '../src/bench/gbench.js';
import { configFromName } from '../src/bench/run.js';
import { radixSortBlockSortName, radixSortName } from './support/names.js';
import { type RadixSortBlockSortConfig } from '../src/device/radix-sort/block-sort-config.js';
import { type RadixSortConfig } from '../src/device/radix-sort/config.js';
import { classifyImprovement } from '../src/tune/apply-improvements.js';
import { runCampaign } from '../src/tune/campaign.js';
import { createOptimization } from '../src/tune/create-optimization.js';
import { formatPlan, planStages } from '../src/tune/plan.js';
import { defaultSettings, mergeSettings, settingsProblems } from '../src/tune/settings.js';
import { settingsJsonSchema } from '../src/tune/settings-schema.js';
import { type TuneFile, gbenchProblems, isErrorEntry } from '../src/tune/results.js';
import { decoupledMaxCountOf, readThresholds } from '../src/tune/threshold-read.js';
import { decoupledVariant, radixSortThresholdName } from '../src/tune/threshold.js';
import { launchConfigKey, maxCountEvidence, splitMaxCountNote, withThreshold } from '../src/tune/threshold-merge.js';
import { pathDone, pathOutcome, type PathOutcome, THRESHOLD_MIN_IMPROVEMENT_PERCENT } from '../src/tune/threshold-rule.js';
import { radixSortBlockSortTuned } from '../src/device/radix-sort/block-sort-tuned.js';
import { testPrim } from './support/gpu.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url)).replace(/\/$/, '');
const TMP = fs.mkdtempSync(path.join(os.tmpdir(), 'wgprim-threshold-test-'));
const LADDER = [2 ** 8, 2 ** 9, 2 ** 10, 2 ** 11, 2 ** 12];

/** `a` beats `b` beyond max(P, 1.96*sqrt(cv_a^2+cv_b^2)*100)%. */
const beats = (a: { ips: number; cv: number }, b: { ips: number; cv: number }): boolean =>
  ((a.ips - b.ips) / b.ips) * 100 > Math.max(THRESHOLD_MIN_IMPROVEMENT_PERCENT, 1.96 * Math.sqrt(a.cv ** 2 + b.cv ** 2) * 100);

/**
 * What the measurements imply, computed here from the JSON alone: decoupledMaxCount, the largest
 * size where the decoupled path beats onesweep; maxCount, the largest where block sort beats the
 * LSD path as it runs there (decoupled up to decoupledMaxCount).
 */
function expectedThresholds(file: { benchmarks: readonly unknown[] }, keyType: string, valueType = 'empty'): { maxCount: number; decoupledMaxCount: number } {
  const at = new Map<number, Partial<Record<string, { ips: number; cv: number }>>>();
  for (const e of file.benchmarks as { name: string; size: number; items_per_second?: number; cv?: number; error_occurred?: boolean }[]) {
    if (e.error_occurred) continue;
    const f = parseName(e.name);
    if (f.algo !== 'radix_sort_threshold' || f.key_type !== keyType || f.value_type !== valueType) continue;
    const m = at.get(e.size) ?? {};
    m[String(f.path)] = { ips: e.items_per_second!, cv: e.cv! };
    at.set(e.size, m);
  }
  let decoupledMaxCount = 0;
  const both = [...at].filter(([, m]) => m.decoupled && m.onesweep).sort(([a], [b]) => a - b);
  for (const [size, m] of both) if (beats(m.decoupled!, m.onesweep!)) decoupledMaxCount = size;
  // Decoupled faster at the largest size measured: every count onesweep takes.
  if (both.length && decoupledMaxCount === both.at(-1)![0]) decoupledMaxCount = 2 ** 30 - 1;
  let maxCount = 0;
  for (const [size, m] of at) {
    const lsd = m.decoupled && size <= decoupledMaxCount ? m.decoupled : m.onesweep;
    if (m.block_sort && lsd && beats(m.block_sort, lsd)) maxCount = Math.max(maxCount, size);
  }
  return { maxCount, decoupledMaxCount };
}

// ---------------------------------------------------------------------------------------------
// The rule on made-up figures (no device)

const BLOCK: RadixSortBlockSortConfig = { workgroupSize: 256, itemsPerThread: 8, radixBits: 4, rank: 'match', mergeWorkgroupSize: 256, mergeItemsPerThread: 8, maxCount: 2 ** 17 };
const ONESWEEP: RadixSortConfig = { workgroupSize: 256, itemsPerThread: 16, radixBits: 8, rank: 'match', workgroupScan: 'subgroup', lookback: 'decoupled', histogramWorkgroupSize: 256, histogramItemsPerThread: 16, decoupledMaxCount: 0, passKernels: 'specialized' };
const CONTEXT = { date: '2026-11-29T00:00:00Z', adapter_vendor: 'nvidia', adapter_architecture: 'hopper', adapter_device: 'h200', wgprim_version: '0.0.0' };

const entry = (name: string, size: number, ips: number, cv = 0.01): Record<string, unknown> => ({ name: `${name}/manual_time`, run_type: 'iteration', size, items_per_second: ips, cv });
/** Threshold entries: at each size, block sort's and onesweep's items/s (keys only, or with u32 values: `valueBytes` 4). */
function thresholdFile(points: readonly [number, number, number][], cv = 0.01, valueBytes: 0 | 4 = 0, context: Record<string, unknown> = CONTEXT): { context: typeof CONTEXT; benchmarks: Record<string, unknown>[] } {
  return {
    context: context as typeof CONTEXT,
    benchmarks: points.flatMap(([size, b, o]) => [
      entry(radixSortThresholdName('block_sort', 'u32', BLOCK, valueBytes), size, b, cv),
      entry(radixSortThresholdName('onesweep', 'u32', ONESWEEP, valueBytes), size, o, cv),
    ]),
  };
}
const rowsOf = (data: unknown): { config: RadixSortBlockSortConfig; evidence: { note?: string } }[] =>
  (createOptimization([{ data, label: 'x.json' }]).fresh.radixSortBlockSort ?? []) as never;

describe('radix_sort_threshold: the rule', () => {
  it('names entries in rocPRIM\'s grammar, one path each, apart from the paths\' own stages', () => {
    const f = parseName(radixSortThresholdName('block_sort', 'u32', BLOCK));
    expect(f).toMatchObject({ lvl: 'device', algo: 'radix_sort_threshold', path: 'block_sort', key_type: 'u32', value_type: 'empty' });
    expect(f.cfg).toEqual(parseName(radixSortBlockSortName('u32', 'empty', BLOCK)).cfg);
    expect(parseName(radixSortThresholdName('onesweep', 'f32', ONESWEEP))).toMatchObject({ path: 'onesweep', key_type: 'f32', cfg: { bs: 256, ipt: 16, bits: 8 } });
  });

  it('decoupledMaxCount from the ladder: the largest size decoupled look-back won; every count onesweep takes where it won at the largest size measured', () => {
    const at = (wins: [number, boolean][]) => decoupledMaxCountOf(wins.map(([log2, decoupledFaster]) => ({ size: 2 ** log2, decoupledFaster })));
    expect(at([])).toBe(0);
    expect(at([[10, false], [12, false]])).toBe(0);
    expect(at([[10, true], [12, true], [14, false], [16, false]])).toBe(2 ** 12);
    expect(at([[10, false], [12, true], [14, false]])).toBe(2 ** 12);
    expect(at([[10, true], [12, false], [14, true]])).toBe(2 ** 30 - 1);
    expect(at([[14, true], [10, false], [12, false]])).toBe(2 ** 30 - 1);
  });

  it('the LSD path\'s own threshold: decoupledMaxCount where decoupled look-back beats reduce-then-scan; block sort against the LSD path as it runs; written to the radixSort row and kept in merges', () => {
    const RTS: RadixSortConfig = { ...ONESWEEP, lookback: 'reduce-then-scan' };
    const DEC = decoupledVariant(RTS, true)!;
    expect(DEC).toEqual({ ...RTS, lookback: 'decoupled', decoupledMaxCount: 0 });
    // Not where the vendor may not give forward progress, the row is decoupled already, or the rank cannot do it.
    expect(decoupledVariant(RTS, false)).toBeUndefined();
    expect(decoupledVariant(ONESWEEP, true)).toBeUndefined();
    expect(decoupledVariant({ ...RTS, rank: 'split' }, true)).toBeUndefined();
    // [size, block sort, reduce-then-scan, decoupled] items/s: decoupled faster up to 2^14 (2^16
    // within the noise, 2^18 slower); block sort beats reduce-then-scan up to 2^12 but decoupled only at 2^10.
    const pts: [number, number, number, number][] = [[2 ** 10, 9e8, 1e8, 2e8], [2 ** 12, 3e8, 2e8, 4e8], [2 ** 14, 5e8, 6e8, 9e8], [2 ** 16, 1e9, 3e9, 3.02e9], [2 ** 18, 1e9, 5e9, 4e9]];
    const data = {
      context: CONTEXT,
      benchmarks: pts.flatMap(([n, b, r, d]) => [
        entry(radixSortThresholdName('block_sort', 'u32', BLOCK), n, b), entry(radixSortThresholdName('onesweep', 'u32', RTS), n, r), entry(radixSortThresholdName('decoupled', 'u32', DEC), n, d),
      ]),
    };
    const t = readThresholds([{ data, label: 'x' }]).results[0]!;
    expect(t.lookback!.decoupledMaxCount).toBe(2 ** 14);
    expect(t.lookback!.points.map((p) => p.decoupledFaster)).toEqual([true, true, true, false, false]);
    expect(t.maxCount).toBe(2 ** 10);
    expect(t.points.find((p) => p.size === 2 ** 12)!.onesweep.itemsPerSecond).toBeCloseTo(4e8, -2);
    // With the sweep's radixSort row (decoupledMaxCount 0) in the data: the row takes the threshold.
    const sweep = [2 ** 20, 2 ** 24].map((n) => entry(radixSortName('u32', 'empty', RTS), n, 5e9));
    const r = createOptimization([{ data: { ...data, benchmarks: [...sweep, ...data.benchmarks] }, label: 'x.json' }]);
    const row = r.fresh.radixSort![0]!;
    expect(row.config).toEqual({ ...RTS, decoupledMaxCount: 2 ** 14 });
    expect(row.evidence.note).toMatch(/^geomean of items\/s .*; decoupledMaxCount 2\^14: measured threshold \(radix_sort_threshold: this tile with decoupled look-back against reduce-then-scan, keys only, at 2\^10, .*decoupled faster at 2\^10, 2\^12, 2\^14:/);
    expect(maxCountEvidence(row.evidence.note, 'decoupledMaxCount')).toBe('measured');
    expect(maxCountEvidence(row.evidence.note)).toBe('none');
    expect(r.fresh.radixSortBlockSort![0]!.evidence.note).toMatch(/against onesweep 256x16 8-bit match reduce-then-scan \(decoupled up to 2\^14\)/);
    // A later sweep alone (decoupledMaxCount 0, no threshold behind it) merged over that row keeps the measured threshold.
    const later = createOptimization([{ data: { context: CONTEXT, benchmarks: sweep }, label: 'y.json' }], { existing: r.tables });
    expect(later.tables.radixSort![0]!.config).toEqual({ ...RTS, decoupledMaxCount: 2 ** 14 });
    expect(launchConfigKey('radixSort', RTS)).toBe(launchConfigKey('radixSort', { ...RTS, decoupledMaxCount: 2 ** 20 }));
    // A threshold run alone merged over a folder holding the sweep's row (the same kernels): the
    // row's figures and note stay, the threshold arrives; the block-sort row likewise.
    const blockSweep = [2 ** 12, 2 ** 14].map((n) => entry(radixSortBlockSortName('u32', 'empty', BLOCK), n, 5e8));
    const sweepOnly = createOptimization([{ data: { context: CONTEXT, benchmarks: [...sweep, ...blockSweep] }, label: 'y.json' }]);
    const merged = createOptimization([{ data, label: 'x.json' }], { existing: sweepOnly.tables });
    const m = merged.tables.radixSort![0]!;
    expect(m.config).toEqual({ ...RTS, decoupledMaxCount: 2 ** 14 });
    expect(m.evidence.itemsPerSecond).toBe(sweepOnly.tables.radixSort![0]!.evidence.itemsPerSecond);
    expect(m.evidence.note).toMatch(/^geomean of items\/s over 2 points.*; decoupledMaxCount 2\^14: measured threshold/);
    const b = merged.tables.radixSortBlockSort![0]!;
    expect(b.config).toEqual({ ...BLOCK, maxCount: 2 ** 10 });
    expect(b.evidence.itemsPerSecond).toBe(sweepOnly.tables.radixSortBlockSort![0]!.evidence.itemsPerSecond);
    // A decoupled row is left alone.
    const decRow = createOptimization([{ data: { ...data, benchmarks: [...[2 ** 20, 2 ** 24].map((n) => entry(radixSortName('u32', 'empty', ONESWEEP), n, 5e9)), ...data.benchmarks] }, label: 'x.json' }]);
    expect(decRow.fresh.radixSort![0]!.config).toEqual(ONESWEEP);
    // Names carry dec_max only where it is set, and read back.
    expect(radixSortName('u32', 'empty', RTS)).not.toMatch(/dec_max/);
    expect(configFromName('radix_sort_onesweep', parseName(radixSortName('u32', 'empty', { ...RTS, decoupledMaxCount: 2 ** 20 })).cfg as never)).toEqual({ ...RTS, decoupledMaxCount: 2 ** 20 });
    // While measuring: a path is done after two clear losses in a row; a tie (inside the noise rule) is no loss.
    expect(([[], ['loss'], ['win', 'loss'], ['loss', 'win'], ['win', 'loss', 'loss'], ['loss', 'loss'], ['loss', 'tie'], ['tie', 'tie'], ['tie', 'loss', 'loss']] as PathOutcome[][]).map(pathDone))
      .toEqual([false, false, false, false, true, true, false, false, true]);
    // Outcomes by the noise rule either way: 12% faster with cv 0.093 is a tie, as at the H200's 2^22 in a slow stretch.
    expect(pathOutcome({ itemsPerSecond: 1.12, cv: 0.093 }, { itemsPerSecond: 1, cv: 0.015 })).toBe('tie');
    expect(pathOutcome({ itemsPerSecond: 1.12, cv: 0.01 }, { itemsPerSecond: 1, cv: 0.01 })).toBe('win');
    expect(pathOutcome({ itemsPerSecond: 1, cv: 0.01 }, { itemsPerSecond: 1.12, cv: 0.01 })).toBe('loss');
    expect(pathOutcome({ itemsPerSecond: 1, cv: 0.01 }, { itemsPerSecond: 1.01, cv: 0.01 })).toBe('tie');
    expect([pathOutcome(undefined, { itemsPerSecond: 1, cv: 0 }), pathOutcome({ itemsPerSecond: 1, cv: 0 }, undefined)]).toEqual(['loss', 'win']);
  });

  it('sets maxCount to the largest size where block sort is faster beyond the noise, 0 if never, the largest if always', () => {
    // Faster up to 2^12; a 1% lead at 2^14 is within P; slower above.
    const some = rowsOf(thresholdFile([[2 ** 10, 9e8, 1e8], [2 ** 12, 8e8, 4e8], [2 ** 14, 5.05e8, 5e8], [2 ** 16, 4e8, 9e8]]));
    expect(some).toHaveLength(1);
    expect(some[0]!.config).toEqual({ ...BLOCK, maxCount: 2 ** 12 });
    expect(some[0]!.evidence.note).toMatch(/maxCount 2\^12: measured threshold/);
    expect(rowsOf(thresholdFile([[2 ** 10, 1e8, 9e8], [2 ** 12, 1e8, 9e8]]))[0]!.config.maxCount).toBe(0);
    expect(rowsOf(thresholdFile([[2 ** 10, 9e8, 1e8], [2 ** 12, 9e8, 1e8]]))[0]!.config.maxCount).toBe(2 ** 12);
    // A 20% lead with cv 0.1 on both sides is noise (bound 1.96*sqrt(0.02)*100 = 27.7%).
    expect(rowsOf(thresholdFile([[2 ** 10, 9e8, 1e8], [2 ** 12, 1.2e8, 1e8]], 0.1))[0]!.config.maxCount).toBe(2 ** 10);
    const t = readThresholds([{ data: thresholdFile([[2 ** 12, 1.2e8, 1e8]], 0.1), label: 'x' }]).results[0]!;
    expect(t.points[0]!.blockSortFaster).toBe(false);
    expect(t.points[0]!.changePercent).toBeCloseTo(classifyImprovement(1e8, 1.2e8, 0.1, 0.1, 2).changePercent, 6);
  });

  it('where one (target, class) was measured in several files, the newest counts whole: paths of different runs are not mixed', () => {
    // The old run: block sort wins up to 2^14 against onesweep (another config, at more sizes); the
    // new run, after the LSD kernels changed: block sort wins up to 2^10 only.
    const OLD_LSD = { ...ONESWEEP, itemsPerThread: 12 };
    const older = {
      context: { ...CONTEXT, date: '2026-11-28T10:00:00Z' },
      benchmarks: [2 ** 10, 2 ** 12, 2 ** 14, 2 ** 16, 2 ** 18].flatMap((n) => [
        entry(radixSortThresholdName('block_sort', 'u32', BLOCK), n, n <= 2 ** 14 ? 9e8 : 1e8), entry(radixSortThresholdName('onesweep', 'u32', OLD_LSD), n, 5e8),
      ]),
    };
    const newer = { ...thresholdFile([[2 ** 10, 9e8, 1e8], [2 ** 12, 1e8, 9e8], [2 ** 14, 1e8, 9e8]]), context: { ...CONTEXT, date: '2026-11-30T10:00:00Z' } };
    for (const inputs of [[{ data: older, label: 'old.json' }, { data: newer, label: 'new.json' }], [{ data: newer, label: 'new.json' }, { data: older, label: 'old.json' }]]) {
      const r = readThresholds(inputs);
      expect(r.results).toHaveLength(1);
      expect(r.results[0]!.maxCount).toBe(2 ** 10);
      expect(r.results[0]!.onesweepConfig).toEqual(ONESWEEP);
      expect(r.results[0]!.points.map((p) => p.size)).toEqual([2 ** 10, 2 ** 12, 2 ** 14]);
      expect(r.warnings.join('\n')).toMatch(/measured in 2 files; the newest, new\.json, counts \(not old\.json\)/);
    }
    // Same date: the later input counts.
    const same = readThresholds([{ data: { ...older, context: CONTEXT }, label: 'a.json' }, { data: thresholdFile([[2 ** 10, 9e8, 1e8], [2 ** 12, 1e8, 9e8]]), label: 'b.json' }]);
    expect(same.results[0]!.maxCount).toBe(2 ** 10);
    // One file's repeated runs still combine (geometric mean).
    const twice = thresholdFile([[2 ** 10, 4e8, 1e8]]);
    const combined = readThresholds([{ data: { ...twice, benchmarks: [...twice.benchmarks, ...thresholdFile([[2 ** 10, 1e8, 1e8]]).benchmarks] }, label: 'x' }]).results[0]!;
    expect(combined.points[0]!.blockSort.itemsPerSecond).toBeCloseTo(2e8, -3);
  });

  it('writes the threshold into the tuned block-sort row of the same data, and says so where the configs differ', () => {
    const other = { ...BLOCK, itemsPerThread: 4 };
    const tuned = (c: RadixSortBlockSortConfig): Record<string, unknown>[] => [2 ** 12, 2 ** 14].map((n) => entry(radixSortBlockSortName('u32', 'empty', c), n, 5e8));
    const points: [number, number, number][] = [[2 ** 10, 9e8, 1e8], [2 ** 12, 1e8, 9e8]];
    const same = thresholdFile(points);
    const r = createOptimization([{ data: { ...same, benchmarks: [...tuned(BLOCK), ...same.benchmarks] }, label: 'x.json' }]);
    expect(r.fresh.radixSortBlockSort![0]!.config).toEqual({ ...BLOCK, maxCount: 2 ** 10 });
    expect(r.fresh.radixSortBlockSort![0]!.evidence.note).toMatch(/geomean of items\/s over 2 points.*maxCount 2\^10: measured threshold/);
    expect(r.warnings.filter((w) => /threshold|radix_sort_threshold/.test(w))).toEqual([]);
    const diff = createOptimization([{ data: { ...same, benchmarks: [...tuned(other), ...same.benchmarks] }, label: 'x.json' }]);
    expect(diff.fresh.radixSortBlockSort![0]!.config).toEqual({ ...other, maxCount: 2 ** 10 });
    expect(diff.warnings.join('\n')).toMatch(/threshold was measured with 256x8.*run radix_sort_threshold again/);
    // The threshold entries never enter the block-sort stage's groups.
    expect(r.groups.find((g) => g.algorithm === 'radixSortBlockSort')!.points).toEqual(['value_type=empty@16384', 'value_type=empty@4096']);
  });

  it('a keys-only threshold sets maxCount on the keys-only (valueBytes 0) row, a pairs row keeps its own and says so', () => {
    const tuned = (value: string): Record<string, unknown>[] => [2 ** 12, 2 ** 14].map((n) => entry(radixSortBlockSortName('u32', value, BLOCK), n, 5e8));
    const th = thresholdFile([[2 ** 10, 9e8, 1e8], [2 ** 12, 1e8, 9e8]]);
    expect(readThresholds([{ data: th, label: 'x' }]).results[0]!.typeClass).toEqual({ float: false, bytes: 4, valueBytes: 0 });
    const r = createOptimization([{ data: { ...th, benchmarks: [...tuned('empty'), ...tuned('u32'), ...th.benchmarks] }, label: 'x.json' }]);
    const rows = r.fresh.radixSortBlockSort!;
    expect(rows.map((e) => [e.typeClass.valueBytes, (e.config as RadixSortBlockSortConfig).maxCount])).toEqual([[0, 2 ** 10], [4, BLOCK.maxCount]]);
    expect(rows[0]!.evidence.note).toMatch(/keys only \(so a keys-only row, valueBytes 0\)/);
    expect(rows[1]!.evidence.note).toMatch(/maxCount 131072: the measured config's, not a threshold \(radix_sort_threshold measured keys only here: its rows are valueBytes 0; add radix_sort_pairs to its benchmarks\)$/);
    expect(maxCountEvidence(rows[1]!.evidence.note)).toBe('none');
    // Threshold data alone: a keys-only row.
    expect(createOptimization([{ data: th, label: 'x.json' }]).fresh.radixSortBlockSort!.map((e) => e.typeClass)).toEqual([{ float: false, bytes: 4, valueBytes: 0 }]);
  });

  it('a pairs threshold (value_type u32) sets maxCount on the pairs (valueBytes 4) row; keys and pairs thresholds each go to their own value class', () => {
    const tuned = (value: string): Record<string, unknown>[] => [2 ** 12, 2 ** 14].map((n) => entry(radixSortBlockSortName('u32', value, BLOCK), n, 5e8));
    expect(parseName(radixSortThresholdName('block_sort', 'u32', BLOCK, 4))).toMatchObject({ algo: 'radix_sort_threshold', path: 'block_sort', key_type: 'u32', value_type: 'u32', cfg: parseName(radixSortBlockSortName('u32', 'u32', BLOCK)).cfg as object });
    expect(parseName(radixSortThresholdName('onesweep', 'u32', ONESWEEP, 4)).value_type).toBe('u32');
    expect(radixSortThresholdName('onesweep', 'u32', ONESWEEP, 0)).toBe(radixSortThresholdName('onesweep', 'u32', ONESWEEP));
    // Pairs: faster up to 2^11 (the keys ladder below says 2^10).
    const pairs = thresholdFile([[2 ** 10, 9e8, 1e8], [2 ** 11, 8e8, 4e8], [2 ** 12, 1e8, 9e8]], 0.01, 4);
    const keys = thresholdFile([[2 ** 10, 9e8, 1e8], [2 ** 12, 1e8, 9e8]]);
    const t = readThresholds([{ data: pairs, label: 'x' }]).results;
    expect(t.map((r) => [r.typeClass, r.maxCount])).toEqual([[{ float: false, bytes: 4, valueBytes: 4 }, 2 ** 11]]);
    // Pairs threshold alone, beside a keys row and a pairs row: the pairs row takes it, the keys row keeps its own and says so.
    const r = createOptimization([{ data: { ...pairs, benchmarks: [...tuned('empty'), ...tuned('u32'), ...pairs.benchmarks] }, label: 'x.json' }]);
    const rows = r.fresh.radixSortBlockSort!;
    expect(rows.map((e) => [e.typeClass.valueBytes, (e.config as RadixSortBlockSortConfig).maxCount])).toEqual([[0, BLOCK.maxCount], [4, 2 ** 11]]);
    expect(rows[1]!.evidence.note).toMatch(/maxCount 2\^11: measured threshold \(radix_sort_threshold: .*, with u32 values \(so a pairs row, valueBytes 4\), at 2\^10, 2\^11, 2\^12; block sort faster at 2\^10, 2\^11:/);
    expect(maxCountEvidence(rows[1]!.evidence.note)).toBe('measured');
    expect(rows[0]!.evidence.note).toMatch(/maxCount 131072: the measured config's, not a threshold \(radix_sort_threshold measured value classes u32 only here: its rows are valueBytes 4; add radix_sort_keys to its benchmarks\)$/);
    expect(maxCountEvidence(rows[0]!.evidence.note)).toBe('none');
    // Pairs threshold data alone: a pairs row of the block-sort config it measured.
    expect(createOptimization([{ data: pairs, label: 'x.json' }]).fresh.radixSortBlockSort!.map((e) => [e.typeClass, e.config])).toEqual([[{ float: false, bytes: 4, valueBytes: 4 }, { ...BLOCK, maxCount: 2 ** 11 }]]);
    // Both thresholds in one file: each row its own, both measured, no warnings about them.
    const both = createOptimization([{ data: { ...keys, benchmarks: [...tuned('empty'), ...tuned('u32'), ...keys.benchmarks, ...pairs.benchmarks] }, label: 'x.json' }]);
    expect(readThresholds([{ data: { ...keys, benchmarks: [...keys.benchmarks, ...pairs.benchmarks] }, label: 'x' }]).results.map((x) => [x.typeClass.valueBytes, x.maxCount])).toEqual([[0, 2 ** 10], [4, 2 ** 11]]);
    const bothRows = both.fresh.radixSortBlockSort!;
    expect(bothRows.map((e) => [e.typeClass.valueBytes, (e.config as RadixSortBlockSortConfig).maxCount, maxCountEvidence(e.evidence.note)])).toEqual([[0, 2 ** 10, 'measured'], [4, 2 ** 11, 'measured']]);
    expect(bothRows[0]!.evidence.note).toMatch(/keys only \(so a keys-only row, valueBytes 0\)/);
    expect(bothRows.map((e) => e.evidence.note).join('\n')).not.toMatch(/not a threshold/);
    expect(both.warnings.filter((w) => /threshold/.test(w))).toEqual([]);
    // Vendor rows: the smallest pairs threshold of their targets, on the pairs row only.
    const other = { ...CONTEXT, adapter_device: 'h100' };
    const pairsOther = thresholdFile([[2 ** 10, 9e8, 1e8], [2 ** 11, 1e8, 9e8]], 0.01, 4, other);
    const vendor = createOptimization([
      { data: { ...pairs, benchmarks: [...tuned('u32'), ...pairs.benchmarks] }, label: 'a.json' },
      { data: { ...pairsOther, benchmarks: [...tuned('u32'), ...pairsOther.benchmarks] }, label: 'b.json' },
    ]).fresh.radixSortBlockSort!;
    const vendorRow = vendor.find((e) => !e.target.device)!;
    expect([vendorRow.typeClass.valueBytes, (vendorRow.config as RadixSortBlockSortConfig).maxCount]).toEqual([4, 2 ** 10]);
    expect(maxCountEvidence(vendorRow.evidence.note)).toBe('measured');
  });

  it('a pairs threshold measured later replaces a pairs row\'s config maxCount in the merge and in apply-config-improvements\' rule', () => {
    const pairs = thresholdFile([[2 ** 10, 9e8, 1e8], [2 ** 11, 8e8, 4e8], [2 ** 12, 1e8, 9e8]], 0.01, 4);
    const fresh = createOptimization([{ data: pairs, label: 'x.json' }]).fresh.radixSortBlockSort![0]!;
    const old = { ...fresh, config: { ...BLOCK }, evidence: { ...fresh.evidence, note: 'geomean of items/s over 2 points; maxCount 131072: the measured config\'s, not a threshold (radix_sort_threshold measures keys only: its rows are valueBytes 0)' } };
    const warnings: string[] = [];
    const t = withThreshold(old, fresh, old, warnings);
    expect([t.from, t.evidence, (t.entry.config as RadixSortBlockSortConfig).maxCount]).toEqual(['new', 'measured', 2 ** 11]);
    expect(warnings).toEqual([]);
    // And the other way: a fresh pairs row with no threshold keeps the measured one of the folder.
    const back = createOptimization([{ data: { context: CONTEXT, benchmarks: [2 ** 12, 2 ** 14].map((n) => entry(radixSortBlockSortName('u32', 'u32', BLOCK), n, 5e8)) }, label: 'y.json' }], { existing: { radixSortBlockSort: [fresh] } as never });
    expect(back.tables.radixSortBlockSort!.map((e) => [e.typeClass.valueBytes, (e.config as RadixSortBlockSortConfig).maxCount, maxCountEvidence(e.evidence.note)])).toEqual([[4, 2 ** 11, 'measured']]);
    expect(back.maxCountKept).toBe(1);
  });

  it('a row\'s note says what its maxCount rests on (apply-config-improvements reads it back): measured, set by hand, or none', () => {
    const tuned = (c: RadixSortBlockSortConfig): Record<string, unknown>[] => [2 ** 12, 2 ** 14].map((n) => entry(radixSortBlockSortName('u32', 'empty', c), n, 5e8));
    const pairs = (c: RadixSortBlockSortConfig): Record<string, unknown>[] => [2 ** 12, 2 ** 14].map((n) => entry(radixSortBlockSortName('u32', 'u32', c), n, 5e8));
    const th = thresholdFile([[2 ** 10, 9e8, 1e8], [2 ** 12, 1e8, 9e8]]);
    const note = (benchmarks: Record<string, unknown>[]): (string | undefined)[] => createOptimization([{ data: { ...th, benchmarks }, label: 'x.json' }]).fresh.radixSortBlockSort!.map((e) => e.evidence.note);
    // Threshold alone; with the block-sort stage's row; with a mismatched one; a pairs row beside it.
    const [alone] = note(th.benchmarks);
    const [withRow] = note([...tuned(BLOCK), ...th.benchmarks]);
    const [mismatch] = note([...tuned({ ...BLOCK, itemsPerThread: 4 }), ...th.benchmarks]);
    const [keys, pair] = note([...tuned(BLOCK), ...pairs(BLOCK), ...th.benchmarks]);
    for (const n of [alone, withRow, mismatch, keys]) expect(maxCountEvidence(n), n).toBe('measured');
    expect(maxCountEvidence(pair)).toBe('none');
    expect(splitMaxCountNote(withRow)).toEqual({ rest: expect.stringMatching(/^geomean of items\/s over 2 points.* configs eligible$/), maxCount: expect.stringMatching(/^maxCount 2\^10: measured threshold .*maxCount = the largest such size\)$/) });
    // No threshold data: the sweep's default maxCount, no maxCount part.
    const sweep = createOptimization([{ data: { context: CONTEXT, benchmarks: tuned(BLOCK) }, label: 'x.json' }]).fresh.radixSortBlockSort![0]!.evidence.note;
    expect(maxCountEvidence(sweep)).toBe('none');
    expect(splitMaxCountNote(sweep)).toEqual({ rest: sweep });
    // The built-in table: every row's maxCount a measured threshold (lavapipe keys; the H200's
    // keys and pairs rows, from a threshold run timing both).
    const builtIn = Object.fromEntries(radixSortBlockSortTuned.map((e) => [`${e.target.vendor}/${e.typeClass.float ? 'f' : 'i'}${e.typeClass.bytes}/${e.typeClass.valueBytes ?? 'any'}`, maxCountEvidence(e.evidence.note)]));
    expect(builtIn).toEqual({ 'mesa/i4/0': 'measured', 'nvidia/i4/0': 'measured', 'nvidia/f4/0': 'measured', 'nvidia/i8/0': 'measured', 'nvidia/i4/4': 'measured', 'nvidia/f4/4': 'measured', 'nvidia/i8/4': 'measured' });
    // Configs equal but for maxCount: the same launch key (radixSortBlockSort only).
    expect(launchConfigKey('radixSortBlockSort', BLOCK)).toBe(launchConfigKey('radixSortBlockSort', { ...BLOCK, maxCount: 2 ** 10 }));
    expect(launchConfigKey('radixSortBlockSort', BLOCK)).not.toBe(launchConfigKey('radixSortBlockSort', { ...BLOCK, itemsPerThread: 4 }));
  });

  it('is a stage of the plan that wgprim tune runs, with a ladder in the settings', () => {
    expect(planStages().find((s) => s.id === 'radix_sort_threshold')).toMatchObject({ status: 'available', kind: 'threshold', tables: ['radixSortBlockSort', 'radixSort'] });
    expect(formatPlan().join('\n')).toMatch(/radix_sort_threshold\s+available/);
    expect(defaultSettings('gpu').algorithms.radix_sort_threshold).toMatchObject({ types: ['u32', 'f32', 'u64', 'f16'], sizes: Array.from({ length: 17 }, (_, i) => 2 ** (10 + i)) });
    expect(() => mergeSettings(defaultSettings('cpu'), { algorithms: { radix_sort_threshold: { space: { workgroupSize: [64] } } } })).toThrow(/threshold stage has no config space/);
    expect(settingsProblems(mergeSettings(defaultSettings('cpu'), { algorithms: { radix_sort_threshold: { sizes: LADDER } } }))).toEqual([]);
    // Benchmarks: keys only by default (old settings files stay valid); pairs may be added, or timed alone.
    expect(defaultSettings('gpu').algorithms.radix_sort_threshold!.benchmarks).toEqual(['radix_sort_keys']);
    for (const benchmarks of [['radix_sort_keys'], ['radix_sort_pairs'], ['radix_sort_keys', 'radix_sort_pairs']]) {
      const s = mergeSettings(defaultSettings('cpu'), { algorithms: { radix_sort_threshold: { benchmarks } } });
      expect(settingsProblems(s), benchmarks.join()).toEqual([]);
      expect(s.algorithms.radix_sort_threshold!.benchmarks).toEqual(benchmarks);
    }
    for (const benchmarks of [[], ['radix_sort_block_sort_pairs'], ['radix_sort_pairs', 'radix_sort_pairs']]) {
      expect(() => mergeSettings(defaultSettings('cpu'), { algorithms: { radix_sort_threshold: { benchmarks } } }), benchmarks.join()).toThrow(/radix_sort_threshold\.benchmarks must be one or both of \["radix_sort_keys","radix_sort_pairs"\]/);
    }
    const schema = settingsJsonSchema() as { properties: { algorithms: { properties: Record<string, { properties: { benchmarks: unknown } }> } } };
    expect(schema.properties.algorithms.properties.radix_sort_threshold!.properties.benchmarks).toEqual({ type: 'array', items: { enum: ['radix_sort_keys', 'radix_sort_pairs'] }, minItems: 1, uniqueItems: true });
  });
});

// ---------------------------------------------------------------------------------------------
// On the device: a tiny ladder

describe('radix_sort_threshold on a device', () => {
  let prim: Prim;
  let adapterInfo: GPUAdapterInfo;
  beforeAll(async () => {
    prim = await testPrim();
    adapterInfo = (prim.device as GPUDevice & { adapterInfo: GPUAdapterInfo }).adapterInfo;
  });
  const settings = (): ReturnType<typeof defaultSettings> => mergeSettings(defaultSettings('cpu'), { warmup: 1, batches: 2, batchSize: 2, algorithms: { radix_sort_threshold: { types: ['u32'], sizes: LADDER } } });

  it('times both paths up the ladder until block sort has lost twice in a row, and create-optimization writes the threshold they imply', async () => {
    const r = await runCampaign(prim, { settings: settings(), algorithms: ['radix_sort_threshold'], adapterInfo, settleMs: 0 });
    expect(r.stopped).toBeUndefined();
    const file = JSON.parse(JSON.stringify(r.file)) as TuneFile;
    expect(gbenchProblems(file)).toEqual([]);
    expect(file.benchmarks.filter(isErrorEntry)).toEqual([]);
    const block = prim.selectedRadixSortBlockSortConfig('u32', 0).config;
    const onesweep = prim.selectedRadixSortConfig('u32', 0).config;
    // lavapipe's keys row is onesweep already: no decoupled path.
    expect(onesweep.lookback).toBe('decoupled');
    const sizesOf = (path: string): number[] => file.benchmarks.filter((e) => parseName(e.name).path === path).map((e) => e.size).sort((a, b) => a - b);
    const measured = sizesOf('block_sort');
    expect(measured).toEqual(LADDER.slice(0, measured.length));
    expect(sizesOf('onesweep')).toEqual(measured);
    expect(file.benchmarks.map((e) => rawEntryName(e.name)).filter((n, i, all) => all.indexOf(n) === i).sort())
      .toEqual([radixSortThresholdName('block_sort', 'u32', block), radixSortThresholdName('onesweep', 'u32', onesweep)].sort());
    // Stopped early only after two losses in a row.
    const figures = (path: string, n: number): { ips: number; cv: number } => {
      const e = file.benchmarks.find((b) => parseName(b.name).path === path && b.size === n) as { items_per_second: number; cv: number };
      return { ips: e.items_per_second, cv: e.cv };
    };
    if (measured.length < LADDER.length) {
      expect(measured.length).toBeGreaterThanOrEqual(2);
      for (const n of measured.slice(-2)) expect(beats(figures('block_sort', n), figures('onesweep', n))).toBe(false);
    }
    const want = expectedThresholds(file, 'u32').maxCount;
    expect(r.thresholds).toHaveLength(1);
    expect(r.thresholds[0]!.maxCount).toBe(want);
    const out = createOptimization([{ data: file, label: 'tune-results.json' }]);
    const rows = out.fresh.radixSortBlockSort!;
    expect(rows).toHaveLength(1);
    expect(rows[0]!.config).toEqual({ ...block, maxCount: want });
    expect(rows[0]!.evidence.note).toMatch(/measured threshold/);
    expect(out.outputs.map((o) => o.name)).toEqual(['device/radix-sort/block-sort-tuned.ts']);
    expect(out.outputs[0]!.text).toMatch(/tune-results\.json \(radix_sort_threshold\)/);
  });

  it('times pairs where the settings\' benchmarks say radix_sort_pairs: a threshold of its own, written to the pairs (valueBytes 4) row', async () => {
    const sizes = [2 ** 8, 2 ** 11];
    const pairsSettings = mergeSettings(defaultSettings('cpu'), { warmup: 1, batches: 2, batchSize: 2, algorithms: { radix_sort_threshold: { types: ['u32'], sizes, benchmarks: ['radix_sort_pairs'] } } });
    const r = await runCampaign(prim, { settings: pairsSettings, algorithms: ['radix_sort_threshold'], adapterInfo, settleMs: 0 });
    expect(r.stopped).toBeUndefined();
    const file = JSON.parse(JSON.stringify(r.file)) as TuneFile;
    expect(gbenchProblems(file)).toEqual([]);
    expect(file.benchmarks.filter(isErrorEntry)).toEqual([]);
    // The configs pairs calls select today, timed with u32 values on every path: lavapipe has no
    // pairs row, so the heuristic's reduce-then-scan, and (mesa gives forward progress) the same
    // tile with decoupled look-back.
    const block = prim.selectedRadixSortBlockSortConfig('u32', 4).config;
    const onesweep = prim.selectedRadixSortConfig('u32', 4).config;
    expect(onesweep.lookback).toBe('reduce-then-scan');
    const decoupled = decoupledVariant(onesweep, true)!;
    const key = (e: { name: string; size: number }): string => `${e.name}@${e.size}`;
    expect(file.benchmarks.map(key).sort()).toEqual(sizes.flatMap((n) => [
      `${radixSortThresholdName('block_sort', 'u32', block, 4)}/size:${n}/manual_time@${n}`,
      `${radixSortThresholdName('onesweep', 'u32', onesweep, 4)}/size:${n}/manual_time@${n}`,
      `${radixSortThresholdName('decoupled', 'u32', decoupled, 4)}/size:${n}/manual_time@${n}`,
    ]).sort());
    expect(file.benchmarks.every((e) => parseName(e.name).value_type === 'u32')).toBe(true);
    const want = expectedThresholds(file, 'u32', 'u32');
    expect(r.thresholds.map((t) => [t.typeClass, t.maxCount, t.lookback?.decoupledMaxCount])).toEqual([[{ float: false, bytes: 4, valueBytes: 4 }, want.maxCount, want.decoupledMaxCount]]);
    const fresh = createOptimization([{ data: file, label: 'tune-results.json' }]).fresh;
    const rows = fresh.radixSortBlockSort!;
    expect(rows.map((e) => [e.typeClass, e.config])).toEqual([[{ float: false, bytes: 4, valueBytes: 4 }, { ...block, maxCount: want.maxCount }]]);
    expect(rows[0]!.evidence.note).toMatch(/measured threshold .*with u32 values \(so a pairs row, valueBytes 4\)/);
    expect(maxCountEvidence(rows[0]!.evidence.note)).toBe('measured');
    // No radixSort group in the file: the LSD row is the config the threshold measured, with its own threshold.
    expect(fresh.radixSort!.map((e) => [e.typeClass, e.config])).toEqual([[{ float: false, bytes: 4, valueBytes: 4 }, { ...onesweep, decoupledMaxCount: want.decoupledMaxCount }]]);
    expect(maxCountEvidence(fresh.radixSort![0]!.evidence.note, 'decoupledMaxCount')).toBe('measured');
  });

  it('runs from wgprim tune --algorithms radix_sort_threshold, tables written with the measured maxCount', () => {
    const main = path.join(ROOT, 'dist/cli/main.js');
    if (!fs.existsSync(main)) execFileSync('npx', ['tsc', '-p', 'tsconfig.json'], { cwd: ROOT, stdio: 'inherit' });
    const settingsFile = path.join(TMP, 'settings.json');
    fs.writeFileSync(settingsFile, JSON.stringify({ warmup: 1, batches: 2, batchSize: 2, algorithms: { radix_sort_threshold: { types: ['u32'], sizes: [2 ** 8, 2 ** 12] } } }));
    const out = path.join(TMP, 'tune-results.json');
    const tables = path.join(TMP, 'tuned');
    const r = spawnSync('node', [main, 'tune', '--algorithms', 'radix_sort_threshold', '--settings', settingsFile, '--benchmark_out', out, '--out-basedir', tables, '-q'], { cwd: TMP, encoding: 'utf8', timeout: 240_000 });
    expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
    const file = JSON.parse(fs.readFileSync(out, 'utf8')) as TuneFile;
    expect(file.benchmarks).toHaveLength(4);
    const want = expectedThresholds(file, 'u32').maxCount;
    // maxCount 0 reads 'maxCount 0: block sort never faster', any other 'maxCount N (…)'.
    expect(String(r.stdout)).toMatch(new RegExp(`int32/empty: maxCount ${want}(?: \\(|: block sort never faster)`));
    const table = JSON.parse(fs.readFileSync(path.join(tables, 'radix-sort-block-sort.json'), 'utf8')) as { rows?: unknown[]; entries?: unknown[] };
    const rows = (table.rows ?? table.entries ?? []) as { config: RadixSortBlockSortConfig; evidence: { note: string } }[];
    expect(rows).toHaveLength(1);
    expect(rows[0]!.config.maxCount).toBe(want);
    expect(rows[0]!.evidence.note).toMatch(/measured threshold/);
  });
});
