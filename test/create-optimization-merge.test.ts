// create-optimization's merge into an existing folder (`existing`, the CLI's default) on
// radixSortBlockSort rows: maxCount is a threshold, not a launch parameter, so a fresh row that
// replaces an existing one keeps the existing maxCount where its threshold evidence ranks higher
// (measured > set by hand > none; ties: the fresh row's): the rule apply-config-improvements uses
// (threshold.ts `withThreshold`). Pure: crafted benchmark files and tables, no device.
import { describe, expect, it } from 'vitest';
import { type TunedEntry } from '../src/config/types.js';
import { type TunedTables } from '../src/tables.js';
import { radixSortBlockSortName, radixSortName } from './support/names.js';
import { type RadixSortBlockSortConfig } from '../src/device/radix-sort/block-sort-config.js';
import { type RadixSortConfig } from '../src/device/radix-sort/config.js';
import { radixSortBlockSortTuned } from '../src/device/radix-sort/block-sort-tuned.js';
import { createOptimization, mergeRows } from '../src/tune/create-optimization.js';
import { maxCountEvidence, splitMaxCountNote } from '../src/tune/threshold-merge.js';
import { radixSortThresholdName } from '../src/tune/threshold.js';

const CONTEXT = { date: '2026-11-29T00:00:00Z', adapter_vendor: 'nvidia', adapter_architecture: 'hopper', adapter_device: 'h200', wgprim_version: '0.1.0' };
/** The sweep's config: the default maxCount (the block-sort stage never varies it). */
const SWEEP_MAX = 2 ** 17;
const A: RadixSortBlockSortConfig = { workgroupSize: 256, itemsPerThread: 8, radixBits: 4, rank: 'match', mergeWorkgroupSize: 256, mergeItemsPerThread: 8, maxCount: SWEEP_MAX };
/** Other kernels, the same tile. */
const B: RadixSortBlockSortConfig = { ...A, radixBits: 8, mergeItemsPerThread: 16 };
const ONESWEEP: RadixSortConfig = { workgroupSize: 256, itemsPerThread: 16, radixBits: 8, rank: 'match', workgroupScan: 'subgroup', lookback: 'decoupled', histogramWorkgroupSize: 256, histogramItemsPerThread: 16, decoupledMaxCount: 0, passKernels: 'specialized' };
const ROW_KEY = 'nvidia/hopper/h200|int4/v0';

const entry = (name: string, size: number, ips: number): Record<string, unknown> => ({ name: `${name}/manual_time`, run_type: 'iteration', size, items_per_second: ips, cv: 0.01 });
/** The block-sort stage (no threshold stage): each config at 2^12 and 2^14. */
const sweep = (runs: readonly [RadixSortBlockSortConfig, number][], value = 'empty'): Record<string, unknown>[] =>
  runs.flatMap(([c, ips]) => [2 ** 12, 2 ** 14].map((n) => entry(radixSortBlockSortName('u32', value, c), n, ips)));
/** The radix_sort_threshold stage with `block`: block sort faster up to `upTo` (2^10..2^16). */
const threshold = (block: RadixSortBlockSortConfig, upTo: number): Record<string, unknown>[] =>
  [2 ** 10, 2 ** 12, 2 ** 14, 2 ** 16].flatMap((n) => [
    entry(radixSortThresholdName('block_sort', 'u32', block), n, n <= upTo ? 9e8 : 1e8),
    entry(radixSortThresholdName('onesweep', 'u32', ONESWEEP), n, 5e8),
  ]);
const file = (benchmarks: Record<string, unknown>[], context: Record<string, unknown> = CONTEXT): { data: unknown; label: string } =>
  ({ data: { context, benchmarks }, label: 'x.json' });

const blockRows = (t: TunedTables): TunedEntry<RadixSortBlockSortConfig>[] => (t.radixSortBlockSort ?? []) as TunedEntry<RadixSortBlockSortConfig>[];
/** A folder's table as a previous create-optimization wrote it. */
const folder = (benchmarks: Record<string, unknown>[]): TunedTables => ({ radixSortBlockSort: createOptimization([file(benchmarks)]).tables.radixSortBlockSort! });

describe('create-optimization --merge: radixSortBlockSort maxCount is a threshold, not a config field', () => {
  it('a sweep without the threshold stage keeps the folder\'s measured maxCount (same kernels): not the sweep default 2^17', () => {
    const existing = folder([...sweep([[A, 5e8]]), ...threshold(A, 2 ** 12)]);
    const old = blockRows(existing)[0]!;
    expect(old.config.maxCount).toBe(2 ** 12);
    expect(maxCountEvidence(old.evidence.note)).toBe('measured');

    const r = createOptimization([file(sweep([[A, 6e8]]))], { existing });
    // The fresh row (the data's) says nothing of a threshold.
    expect(blockRows(r.fresh)[0]!.config.maxCount).toBe(SWEEP_MAX);
    const [written, ...more] = blockRows(r.tables);
    expect(more).toEqual([]);
    expect(written!.config).toEqual({ ...A, maxCount: 2 ** 12 });
    // The fresh figures and kernel note; the existing threshold note.
    expect(written!.evidence.itemsPerSecond).toBe(blockRows(r.fresh)[0]!.evidence.itemsPerSecond);
    expect(splitMaxCountNote(written!.evidence.note)).toEqual({ rest: splitMaxCountNote(blockRows(r.fresh)[0]!.evidence.note).rest, maxCount: splitMaxCountNote(old.evidence.note).maxCount });
    expect(maxCountEvidence(written!.evidence.note)).toBe('measured');
    expect(r.warnings).toEqual([]);
    expect(r.kept.radixSortBlockSort).toBe(0);
    expect(r.maxCountKept).toBe(1);
    // The written files say the same.
    expect(r.outputs.find((o) => o.name === 'device/radix-sort/block-sort-tuned.ts')!.text).toContain('maxCount: 4096');
    expect(r.outputs.find((o) => o.name === 'device/radix-sort/block-sort-tuned.ts')!.text).toMatch(/\/\/ 1 row\(s\) keep the maxCount of the table this one replaced/);
    // Merging the same data again changes nothing (the kept note still says measured).
    const again = createOptimization([file(sweep([[A, 6e8]]))], { existing: r.tables });
    expect(again.tables).toEqual(r.tables);
    expect(again.warnings).toEqual([]);
  });

  it('new kernels from the sweep: written with the folder\'s measured maxCount, the note and a warning say it was measured with the old kernels', () => {
    const existing = folder([...sweep([[A, 5e8]]), ...threshold(A, 2 ** 12)]);
    const r = createOptimization([file(sweep([[A, 5e8], [B, 7e8]]))], { existing });
    const written = blockRows(r.tables)[0]!;
    expect(written.config).toEqual({ ...B, maxCount: 2 ** 12 });
    expect(written.evidence.note).toMatch(/; maxCount 2\^12: measured threshold .*\(taken from the old table's row, whose kernels were 256x8 4 match 256 8 4096, not this row's\)$/);
    expect(r.warnings.join('\n')).toMatch(new RegExp(`radixSortBlockSort ${ROW_KEY.replace(/[|/]/g, '\\$&')}: maxCount 4096 \\(measured\\) is the old table's, whose row has other kernels .*run radix_sort_threshold again`));
    expect(r.maxCountKept).toBe(1);
    // Again: the written row is now the existing one, with B's kernels: no new warning, the same row.
    const again = createOptimization([file(sweep([[A, 5e8], [B, 7e8]]))], { existing: r.tables });
    expect(again.tables).toEqual(r.tables);
    expect(again.warnings).toEqual([]);
  });

  it('a measured threshold stays against a sweep (the built-in H200 row); one set by hand stays too, and a measured one replaces it', () => {
    const h200 = radixSortBlockSortTuned.find((e) => e.target.device === 'nvidia-h200' && !e.typeClass.float && e.typeClass.bytes === 4 && e.typeClass.valueBytes === 0)!;
    expect(maxCountEvidence(h200.evidence.note)).toBe('measured');
    expect(h200.config.maxCount).not.toBe(SWEEP_MAX);
    const ctx = { ...CONTEXT, adapter_architecture: '', adapter_device: 'nvidia-h200' };
    const existing: TunedTables = { radixSortBlockSort: radixSortBlockSortTuned };
    const swept = createOptimization([file(sweep([[{ ...h200.config, maxCount: SWEEP_MAX }, 9e8]]), ctx)], { existing });
    const row = blockRows(swept.tables).find((e) => e.target.device === 'nvidia-h200' && e.typeClass.bytes === 4 && !e.typeClass.float && e.typeClass.valueBytes === 0)!;
    expect(row.config).toEqual(h200.config);
    expect(splitMaxCountNote(row.evidence.note).maxCount).toBe(splitMaxCountNote(h200.evidence.note).maxCount);
    expect(row.evidence.itemsPerSecond).not.toBe(h200.evidence.itemsPerSecond);
    expect(swept.warnings).toEqual([]);
    expect(blockRows(swept.tables)).toHaveLength(radixSortBlockSortTuned.length);

    // Set by hand in the folder, measured in the data: the measured one.
    const hand: TunedEntry<RadixSortBlockSortConfig> = { ...blockRows(folder(sweep([[A, 5e8]])))[0]!, config: { ...A, maxCount: 2 ** 20 } };
    const handRow = { ...hand, evidence: { ...hand.evidence, note: `${hand.evidence.note}; maxCount: threshold set by hand from measurements: block sort faster up to 2^20` } };
    const kept = createOptimization([file(sweep([[A, 6e8]]))], { existing: { radixSortBlockSort: [handRow] } });
    expect(blockRows(kept.tables)[0]!.config.maxCount).toBe(2 ** 20);
    expect(maxCountEvidence(blockRows(kept.tables)[0]!.evidence.note)).toBe('set');
    const measured = createOptimization([file([...sweep([[A, 5e8]]), ...threshold(A, 2 ** 14)])], { existing: { radixSortBlockSort: [handRow] } });
    expect(blockRows(measured.tables)[0]!.config.maxCount).toBe(2 ** 14);
    expect(maxCountEvidence(blockRows(measured.tables)[0]!.evidence.note)).toBe('measured');
    expect(measured.maxCountKept).toBe(0);
  });

  it('ties go to the fresh row: a new measured threshold over an old measured one; no threshold on either side: the fresh row whole', () => {
    const existing = folder([...sweep([[A, 5e8]]), ...threshold(A, 2 ** 12)]);
    const r = createOptimization([file([...sweep([[B, 5e8]]), ...threshold(B, 2 ** 16)])], { existing });
    expect(blockRows(r.tables)).toEqual(blockRows(r.fresh));
    expect(blockRows(r.tables)[0]!.config).toEqual({ ...B, maxCount: 2 ** 16 });
    expect(r.warnings).toEqual([]);
    expect(r.maxCountKept).toBe(0);

    const plain = folder(sweep([[A, 5e8]]));
    const s = createOptimization([file(sweep([[B, 5e8]]))], { existing: plain });
    expect(blockRows(s.tables)).toEqual(blockRows(s.fresh));
    expect(s.maxCountKept).toBe(0);
  });

  it('only radixSortBlockSort rows of the same (target, type class): other rows and tables merge as before', () => {
    const existing = folder([...sweep([[A, 5e8]]), ...threshold(A, 2 ** 12)]);
    // A pairs row (value class u32) is another row: the keys-only threshold does not reach it.
    const r = createOptimization([file(sweep([[B, 5e8]], 'u32'))], { existing });
    const rows = blockRows(r.tables);
    expect(rows.map((e) => [e.typeClass.valueBytes, e.config.maxCount])).toEqual([[0, 2 ** 12], [4, SWEEP_MAX]]);
    expect(r.kept.radixSortBlockSort).toBe(1);
    expect(r.maxCountKept).toBe(0);
    // mergeRows without the algorithm (or another table): the fresh row replaces the existing one whole.
    const old = blockRows(existing)[0]!;
    const fresh = blockRows(createOptimization([file(sweep([[A, 6e8]]))]).fresh)[0]!;
    expect(mergeRows([old], [fresh]).rows).toEqual([fresh]);
    expect(mergeRows([old], [fresh], 'scan').rows).toEqual([fresh]);
    const warnings: string[] = [];
    const m = mergeRows([old], [fresh], 'radixSortBlockSort', warnings);
    expect(m).toMatchObject({ kept: 0, maxCountKept: 1 });
    expect(m.rows[0]!.config.maxCount).toBe(2 ** 12);
    expect(warnings).toEqual([]);
  });
});

describe('create-optimization: LSD rows (radixSort) score reduce-then-scan with its own tile\'s decoupled look-back', () => {
  // A reduce-then-scan row runs its tile with decoupled look-back up to decoupledMaxCount (the
  // threshold stage's), so where that twin was measured, each point counts the faster of the two.
  const RTS = (itemsPerThread: number): RadixSortConfig => ({ ...ONESWEEP, itemsPerThread, lookback: 'reduce-then-scan' });
  const DEC = (itemsPerThread: number): RadixSortConfig => ({ ...ONESWEEP, itemsPerThread });
  const lsd = (runs: readonly [RadixSortConfig, number, number][]): Record<string, unknown>[] =>
    runs.flatMap(([c, small, large]) => [entry(radixSortName('u32', 'empty', c), 2 ** 24, small), entry(radixSortName('u32', 'empty', c), 2 ** 28, large)]);
  const winner = (benchmarks: Record<string, unknown>[]): RadixSortConfig => createOptimization([file(benchmarks)]).fresh.radixSort![0]!.config as RadixSortConfig;

  it('a reduce-then-scan tile that loses at the small size alone but whose decoupled twin wins there is picked over a decoupled tile', () => {
    // As the H200's u32 keys (G keys/s): 23 decoupled wins 2^24, 22 reduce-then-scan 2^28, 22 decoupled is close at 2^24.
    const runs: [RadixSortConfig, number, number][] = [[DEC(23), 28.8, 34.8], [RTS(22), 22.1, 37.9], [DEC(22), 28.3, 34.2]];
    expect(winner(lsd(runs))).toEqual(RTS(22));
    // Without the twin, the sweep's own figures decide: the decoupled tile.
    expect(winner(lsd(runs.slice(0, 2)))).toEqual(DEC(23));
  });

  it('the twin only lifts points where it is faster, and never a decoupled config or the split rank', () => {
    // 22 reduce-then-scan is slower than 21 decoupled at both sizes and its twin no faster at 2^28: 21 wins.
    expect(winner(lsd([[DEC(21), 30, 36], [RTS(22), 20, 35], [DEC(22), 29, 30]]))).toEqual(DEC(21));
    const split: RadixSortConfig = { ...RTS(8), rank: 'split', workgroupScan: 'shared' };
    // (The split rank has no decoupled look-back: a row of it never runs one, whatever the data holds.)
    expect(winner(lsd([[DEC(21), 30, 36], [split, 10, 36.5], [{ ...split, lookback: 'decoupled' }, 40, 30]]))).toEqual({ ...split, lookback: 'decoupled' });
  });
});
