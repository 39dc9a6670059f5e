// What a row's threshold rests on, and which of two rows' threshold is written: shared by
// apply-config-improvements and create-optimization's merge into an existing folder. Browser-safe.
import { type TunedEntry } from '../config/types.js';
import { configKey, rowKey, type TunedAlgorithm } from '../tables.js';
import { configLabel } from './measurements.js';
import { isThresholdTable, SMALL_TABLE, THRESHOLD_FIELDS, type ThresholdTable } from './threshold.js';

// ---------------------------------------------------------------------------------------------
// What a row's maxCount rests on (apply-config-improvements and create-optimization's merge read it
// back), and which of two rows' maxCount is written

/**
 * A config's key without what is not a launch parameter: the table's threshold field
 * (THRESHOLD_FIELDS: radixSortBlockSort's maxCount, radixSort's decoupledMaxCount; the kernels, and
 * so their speed at a given path, are the same whatever it is). Other tables: configKey.
 */
export function launchConfigKey(algorithm: TunedAlgorithm, config: unknown): string {
  return configKey(algorithm, isThresholdTable(algorithm) ? { ...(config as object), [THRESHOLD_FIELDS[algorithm]!]: 0 } : config);
}

/**
 * What a radixSortBlockSort row's maxCount rests on, as its evidence note says:
 * - `measured`: a radix_sort_threshold measurement (`thresholdNote`, or a vendor row's smallest
 *   measured threshold of its targets);
 * - `set`: a threshold stated otherwise (e.g. `maxCount: threshold set by hand from ...`);
 * - `none`: no threshold: the config's own maxCount (the block-sort sweep's default, or the
 *   `... not a threshold` of a row whose value class radix_sort_threshold did not measure, e.g. a
 *   pairs row where it timed keys only), or no maxCount part in the note at all.
 */
export type MaxCountEvidence = 'measured' | 'set' | 'none';
export const MAX_COUNT_EVIDENCE_RANK: Readonly<Record<MaxCountEvidence, number>> = { none: 0, set: 1, measured: 2 };

/**
 * A note split at its threshold part (`field`: maxCount, or radixSort's decoupledMaxCount):
 * create-optimization appends it last, `; maxCount ...` (or the note starts with it), running to
 * the end. `rest`: what comes before, without the `; `.
 */
export function splitMaxCountNote(note: string | undefined, field: string = THRESHOLD_FIELDS[SMALL_TABLE]!): { rest: string; maxCount?: string } {
  const text = note ?? '';
  const m = new RegExp(`(?:^|; )(${field}\\b[\\s\\S]*)$`).exec(text);
  return m ? { rest: text.slice(0, m.index), maxCount: m[1]! } : { rest: text };
}

export function maxCountEvidence(note: string | undefined, field: string = THRESHOLD_FIELDS[SMALL_TABLE]!): MaxCountEvidence {
  const part = splitMaxCountNote(note, field).maxCount;
  if (!part || /not a threshold/.test(part)) return 'none';
  if (/measured threshold/.test(part)) return 'measured';
  return /threshold/.test(part) ? 'set' : 'none';
}

/**
 * A threshold table's row (`a`: radixSortBlockSort, whose field is maxCount, or radixSort,
 * decoupledMaxCount; the rule below says maxCount for either) written for an old row `o` and a new
 * row `n` of one (target, type class) once the kernels are decided (`kernel`: `o` or `n`).
 * apply-config-improvements: `n` if accepted, else `o`; create-optimization's merge into an
 * existing folder: always `n` (the fresh row; `o` the existing one). The rule for maxCount:
 * - the row whose maxCount rests on more wins: measured (radix_sort_threshold) > set (a threshold
 *   stated by hand) > none (the config's own, e.g. the sweep's default); see `maxCountEvidence`.
 *   So a new measured threshold replaces the old maxCount even where the old kernels stay, and an
 *   old measured (or hand-set) one stays where the new table has none;
 * - a tie with a threshold on both sides: the new table's. It is the newer tuning run, and a row's
 *   evidence date is its kernels', not its threshold's, so dates are not compared;
 * - a tie with no threshold on either side: the kernel row's own maxCount (nothing to move).
 * Where the maxCount comes from the other row, the written row is the kernel row with that
 * maxCount and the other row's maxCount note in place of its own (figures: the kernels'); if the
 * other row's kernels differ, the note says so and a warning asks for radix_sort_threshold again
 * (a threshold depends on the block-sort kernels it was measured with).
 */
export function withThreshold(o: TunedEntry<unknown>, n: TunedEntry<unknown>, kernel: TunedEntry<unknown>, warnings: string[], a: ThresholdTable = SMALL_TABLE): { entry: TunedEntry<unknown>; from: 'old' | 'new'; evidence: MaxCountEvidence } {
  const field = THRESHOLD_FIELDS[a]!;
  const eo = maxCountEvidence(o.evidence.note, field);
  const en = maxCountEvidence(n.evidence.note, field);
  const ro = MAX_COUNT_EVIDENCE_RANK[eo];
  const rn = MAX_COUNT_EVIDENCE_RANK[en];
  const source = rn > ro || (rn === ro && rn > 0) ? n : ro > rn ? o : kernel;
  const from = source === n ? 'new' as const : 'old' as const;
  const evidence = source === n ? en : eo;
  if (source === kernel) return { entry: kernel, from, evidence };
  const maxCount = (source.config as Record<string, number>)[field]!;
  const otherKernels = launchConfigKey(a, source.config) !== launchConfigKey(a, kernel.config);
  let part = splitMaxCountNote(source.evidence.note, field).maxCount ?? `${field} ${maxCount}`;
  if (otherKernels) {
    part += ` (taken from the ${from} table's row, whose kernels were ${configLabel(a, source.config)}, not this row's)`;
    warnings.push(`${a} ${rowKey(kernel)}: ${field} ${maxCount} (${evidence}) is the ${from} table's, whose row has other kernels (${configLabel(a, source.config)}) than the one written (${configLabel(a, kernel.config)}): run radix_sort_threshold again`);
  }
  const rest = splitMaxCountNote(kernel.evidence.note, field).rest;
  return {
    entry: { ...kernel, config: { ...(kernel.config as object), [field]: maxCount }, evidence: { ...kernel.evidence, note: rest ? `${rest}; ${part}` : part } },
    from, evidence,
  };
}

