// apply-config-improvements on radixSortBlockSort rows: maxCount is a threshold, not a launch
// parameter. Two configs equal but for maxCount are the same kernels (same speed): the speed
// comparison is on the config without maxCount, and the maxCount written is the one whose
// threshold evidence ranks higher (measured > set by hand > none; ties: the new table's).
// Pure: crafted benchmark files and tables, no device.
import { describe, expect, it } from 'vitest';
import { type TunedEntry } from '../src/config/types.js';
import { radixSortBlockSortName } from './support/names.js';
import { type RadixSortBlockSortConfig } from '../src/device/radix-sort/block-sort-config.js';
import { applyConfigImprovements, decisionSummary } from '../src/tune/apply-improvements.js';

const T = { vendor: 'nvidia', architecture: 'hopper', device: 'h200' };
const K = { float: false, bytes: 4, valueBytes: 0 };
const CONTEXT = { date: '2026-11-29T00:00:00Z', adapter_vendor: 'nvidia', adapter_architecture: 'hopper', adapter_device: 'h200', wgprim_version: '0.1.0' };
/** The sweep's config: the default maxCount (the block-sort stage never varies it). */
const SWEEP_MAX = 2 ** 17;
const A: RadixSortBlockSortConfig = { workgroupSize: 256, itemsPerThread: 8, radixBits: 4, rank: 'match', mergeWorkgroupSize: 256, mergeItemsPerThread: 8, maxCount: SWEEP_MAX };
/** Other kernels, the same tile (so the block-sort tile bias of the scores, F, is the same on both sides). */
const B: RadixSortBlockSortConfig = { ...A, radixBits: 8, mergeItemsPerThread: 16 };
const F = (256 * 8) ** 0.25;
const SIZES = [2 ** 12, 2 ** 14];

/** The block-sort stage's runs (named with the sweep's maxCount, as the campaign names them). */
function benchFile(runs: readonly [RadixSortBlockSortConfig, number][]): { data: unknown; label: string } {
  return {
    label: 'x.json',
    data: {
      context: CONTEXT,
      benchmarks: runs.flatMap(([c, ips]) => SIZES.map((size) => ({
        name: `${radixSortBlockSortName('u32', 'empty', { ...c, maxCount: SWEEP_MAX })}/manual_time`, run_type: 'iteration', size, items_per_second: ips, cv: 0.01,
      }))),
    },
  };
}

const KERNEL_NOTE = 'geomean of items/s over 2 points (sizes 2^12, 2^14 x value_type=empty); cv: max; 2/2 configs eligible';
const measured = (n: number): string => `${KERNEL_NOTE}; maxCount ${n}: measured threshold (radix_sort_threshold: this block sort path against onesweep 256x16 8-bit match decoupled, keys only (so a keys-only row, valueBytes 0), at 2^10, 2^12; block sort faster at 2^10: by more than max(2%, 1.96*sqrt(cv_o^2+cv_b^2)*100); maxCount = the largest such size)`;
const byHand = (n: number): string => `${KERNEL_NOTE}; maxCount: threshold set by hand from the paths measured: block sort faster up to ${n}`;

/** A row; evidence figures that say nothing of the runs (the comparison must use the runs, not these). */
function row(config: RadixSortBlockSortConfig, maxCount: number, note: string, itemsPerSecond = 1e8, date = '2026-11-29'): TunedEntry<RadixSortBlockSortConfig> {
  return { target: T, typeClass: K, config: { ...config, maxCount }, evidence: { itemsPerSecond, cv: 0.01, size: SIZES, date, version: '0.1.0', note } };
}

function apply(o: TunedEntry<RadixSortBlockSortConfig>, n: TunedEntry<RadixSortBlockSortConfig>, runs: readonly [RadixSortBlockSortConfig, number][]) {
  const json = [benchFile(runs)];
  const res = applyConfigImprovements({ oldTables: { radixSortBlockSort: [o] }, newTables: { radixSortBlockSort: [n] }, oldJson: json, newJson: json, thresholdPercent: 5 });
  expect(res.decisions).toHaveLength(1);
  expect(res.tables.radixSortBlockSort).toHaveLength(1);
  return { res, d: res.decisions[0]!, written: res.tables.radixSortBlockSort![0]! as TunedEntry<RadixSortBlockSortConfig> };
}

describe('apply-config-improvements: radixSortBlockSort maxCount is a threshold, not a config field', () => {
  it('old and new rows equal but for maxCount are the same config; a new measured threshold replaces the old maxCount', () => {
    // Old: the sweep's default maxCount, no threshold. New: the same kernels, a measured 2^12.
    // New evidence figures that would lose a speed comparison: there must be none.
    const { res, d, written } = apply(row(A, SWEEP_MAX, KERNEL_NOTE, 5e8), row(A, 2 ** 12, measured(2 ** 12), 1e8), [[A, 5e8]]);
    expect(d.status).toBe('same');
    expect(d.changePercent).toBeUndefined();
    expect(d).toMatchObject({ maxCountFrom: 'new', maxCountEvidence: 'measured' });
    expect(written.config).toEqual({ ...A, maxCount: 2 ** 12 });
    expect(written.evidence.note).toBe(measured(2 ** 12));
    // The kernel's figures are the old row's (it stays); only the threshold changed.
    expect(written.evidence.itemsPerSecond).toBe(5e8);
    expect(res.warnings).toEqual([]);
    expect(decisionSummary(res)).toMatch(/same 1; 0 old row\(s\) without a new row kept; 1 row\(s\) with the maxCount of the other table/);
  });

  it('no new threshold: an old measured maxCount is kept, with the same kernels and with a faster new kernel', () => {
    // Same kernels; new evidence figures far above the old: before the fix this was "accepted" and wrote 2^17.
    const same = apply(row(A, 2 ** 12, measured(2 ** 12), 1e8), row(A, SWEEP_MAX, KERNEL_NOTE, 9e8), [[A, 5e8]]);
    expect(same.d.status).toBe('same');
    expect(same.d).toMatchObject({ maxCountFrom: 'old', maxCountEvidence: 'measured' });
    expect(same.written.config).toEqual({ ...A, maxCount: 2 ** 12 });
    expect(same.written.evidence.note).toBe(measured(2 ** 12));

    // B is 40% faster (runs): B's kernels are taken, the old measured maxCount stays, and the note
    // and a warning say it was measured with A.
    const faster = apply(row(A, 2 ** 12, measured(2 ** 12)), row(B, SWEEP_MAX, KERNEL_NOTE), [[A, 5e8], [B, 7e8]]);
    expect(faster.d).toMatchObject({ status: 'accepted', oldFrom: 'json', newFrom: 'json', maxCountFrom: 'old', maxCountEvidence: 'measured' });
    expect(faster.d.changePercent).toBeCloseTo(40, 6);
    expect(faster.written.config).toEqual({ ...B, maxCount: 2 ** 12 });
    expect(faster.written.evidence.note).toMatch(/^geomean of items\/s .*; maxCount 4096: measured threshold .*\(taken from the old table's row, whose kernels were 256x8 4 match 256 8 4096, not this row's\)$/);
    expect(faster.res.warnings.join('\n')).toMatch(/radixSortBlockSort nvidia\/hopper\/h200\|int4\/v0: maxCount 4096 .*old table.*run radix_sort_threshold again/);
  });

  it('new row faster with a different maxCount: compared on the runs of its kernels (the names carry the sweep maxCount), new row written whole', () => {
    // Both rows carry a measured maxCount that the runs' names do not: before the fix no run matched
    // either row, the evidence figures (old faster) stood in, and the status was "slower".
    const { d, written, res } = apply(row(A, 2 ** 12, measured(2 ** 12), 9e8), row(B, 2 ** 14, measured(2 ** 14), 1e8), [[A, 5e8], [B, 6e8]]);
    expect(d).toMatchObject({ status: 'accepted', oldFrom: 'json', newFrom: 'json', maxCountFrom: 'new' });
    expect(d.oldItemsPerSecond).toBeCloseTo(5e8 * F, -2);
    expect(d.newItemsPerSecond).toBeCloseTo(6e8 * F, -2);
    expect(written).toEqual(row(B, 2 ** 14, measured(2 ** 14), 1e8));
    expect(res.warnings).toEqual([]);
    // Slower instead: the old kernels stay, with the new (measured, so newer) threshold.
    const slower = apply(row(A, 2 ** 12, measured(2 ** 12)), row(B, 2 ** 14, measured(2 ** 14)), [[A, 6e8], [B, 5e8]]);
    expect(slower.d).toMatchObject({ status: 'slower', oldFrom: 'json', newFrom: 'json', maxCountFrom: 'new', maxCountEvidence: 'measured' });
    expect(slower.written.config).toEqual({ ...A, maxCount: 2 ** 14 });
    expect(slower.written.evidence.note).toMatch(/; maxCount 16384: measured threshold .*\(taken from the new table's row, whose kernels were 256x8 8 match 256 16 16384, not this row's\)$/);
    expect(slower.res.warnings.join('\n')).toMatch(/maxCount 16384 .*new table.*run radix_sort_threshold again/);
  });

  it('the newer threshold wins: a new measured one over an old measured or hand-set one; a hand-set one over none', () => {
    // Same kernels, both measured: the new table's (the newer tuning run).
    const both = apply(row(A, 2 ** 12, measured(2 ** 12)), row(A, 2 ** 16, measured(2 ** 16), 1e8, '2026-12-05'), [[A, 5e8]]);
    expect(both.d).toMatchObject({ status: 'same', maxCountFrom: 'new', maxCountEvidence: 'measured' });
    expect(both.written.config.maxCount).toBe(2 ** 16);
    expect(both.written.evidence.date).toBe('2026-11-29');
    // Old set by hand, new measured: measured wins.
    const hand = apply(row(A, 2 ** 20, byHand(2 ** 20)), row(A, 2 ** 18, measured(2 ** 18)), [[A, 5e8]]);
    expect(hand.d).toMatchObject({ status: 'same', maxCountFrom: 'new', maxCountEvidence: 'measured' });
    expect(hand.written.config.maxCount).toBe(2 ** 18);
    expect(hand.written.evidence.note).toBe(measured(2 ** 18));
    // Old set by hand, new without a threshold (a faster kernel from a sweep): the hand-set one stays.
    const sweep = apply(row(A, 2 ** 20, byHand(2 ** 20)), row(B, SWEEP_MAX, KERNEL_NOTE), [[A, 5e8], [B, 7e8]]);
    expect(sweep.d).toMatchObject({ status: 'accepted', maxCountFrom: 'old', maxCountEvidence: 'set' });
    expect(sweep.written.config).toEqual({ ...B, maxCount: 2 ** 20 });
    // Neither has a threshold: the kept kernel's own maxCount, nothing crosses.
    const none = apply(row(A, SWEEP_MAX, KERNEL_NOTE), row(B, 2 ** 16, `${KERNEL_NOTE}; maxCount 65536: the measured config's, not a threshold (radix_sort_threshold measures keys only: its rows are valueBytes 0)`), [[A, 6e8], [B, 5e8]]);
    expect(none.d).toMatchObject({ status: 'slower', maxCountFrom: 'old', maxCountEvidence: 'none' });
    expect(none.written).toEqual(row(A, SWEEP_MAX, KERNEL_NOTE));
  });

  it('a new row without an old one: scored on the runs of its kernels, whatever maxCount their names carry', () => {
    const json = [benchFile([[A, 5e8]])];
    const res = applyConfigImprovements({ oldTables: {}, newTables: { radixSortBlockSort: [row(A, 2 ** 12, measured(2 ** 12))] }, oldJson: json, newJson: json, thresholdPercent: 5 });
    // No old row: the new one is taken, scored on its kernels' runs.
    expect(res.decisions[0]).toMatchObject({ status: 'new', newFrom: 'json' });
    expect(res.decisions[0]!.newItemsPerSecond).toBeCloseTo(5e8 * F, -2);
    expect(res.decisions[0]!.maxCountFrom).toBeUndefined();
  });
});
