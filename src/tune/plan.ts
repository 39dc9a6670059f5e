// The tuning plan: which stages exist, in which order they must run, which tables each writes,
// and which reuse another stage's table. Algorithms that do not exist yet are listed as
// `pending`: a tune stage is available once a tunable algorithm of its id is registered, a
// reuse stage once one of the benchmarks it names is.
// From rocPRIM's tuning dependencies (reference §1), past them where noted. Browser-safe.
import { WgprimError } from '../runtime/errors.js';
import { BENCHMARKS } from '../algorithms.js';
import { isTuneStage } from './registry.js';

export type StageKind =
  /** Measures a config space and writes a table. */
  | 'tune'
  /** Measures where one path of an algorithm overtakes another, and writes that size. */
  | 'threshold'
  /** Measures nothing: the algorithm runs on another stage's table. */
  | 'reuse';

export interface PlanStage {
  /** Stage id; for `tune` stages also the registered algorithm's name. */
  readonly id: string;
  readonly kind: StageKind;
  /** Tables the stage writes (each table's `tunedModule`); none for `reuse`. */
  readonly tables: readonly string[];
  /** Stages that must be tuned (and installed) before this one. */
  readonly after: readonly string[];
  /** For `reuse`: whose table it runs on. */
  readonly reuses?: string;
  /** For `reuse`: the benchmarks of the algorithm that runs on it (it is available once one is registered). */
  readonly benchmarks?: readonly string[];
  /** Stages that share one implementation but keep separate tables. */
  readonly family?: string;
  readonly note: string;
}

export interface PlannedStage extends PlanStage {
  /** `available`: the algorithm exists and `wgprim tune` runs the stage; `pending`: not written yet. */
  readonly status: 'available' | 'pending';
}

const FIND_NOTE = 'one early-exit scanner (adjacent find, find first of, search, find end, search n); timed with the match at the end and a hundredth in';
const SEARCH_NOTE = 'one search kernel (rocPRIM builds it on transform, but tunes each search apart); its own table, timed on 2^20 needles';
const PARTITION_NOTE = 'one compaction engine (select, partitions, unique); its own table, as rocPRIM tunes each variant separately';

const HISTOGRAM_NOTE = 'rocPRIM\'s histogram config: one table, rows keyed by sample size and channels; 256 bins of uniform samples as CUB\'s anchors';

/** Every stage of the plan, in no particular order (`planStages` orders them). */
export const PLAN_STAGES: readonly PlanStage[] = [
  { id: 'transform', kind: 'tune', tables: ['transform'], after: [], note: 'element-wise; binary search and adjacent difference build on it but are tuned apart' },
  { id: 'reduce', kind: 'tune', tables: ['reduce'], after: [], note: 'device reduce' },
  { id: 'scan', kind: 'tune', tables: ['scan'], after: [], note: 'inclusive and exclusive scan share one table' },
  { id: 'segmented_reduce', kind: 'reuse', tables: [], after: ['reduce'], reuses: 'reduce', benchmarks: ['segmented_reduce', 'segmented_reduce_variable'], note: 'runs on reduce\'s table' },
  { id: 'segmented_scan', kind: 'reuse', tables: [], after: ['scan'], reuses: 'scan', benchmarks: ['segmented_inclusive_scan'], note: 'runs on scan\'s table (the by-key engine takes the scan\'s config)' },
  { id: 'scan_by_key', kind: 'tune', tables: ['scanByKey'], after: ['scan'], note: 'key type full, value type by size; measured after scan so its look-back defaults are tuned' },
  { id: 'reduce_by_key', kind: 'tune', tables: ['reduceByKey'], after: [], note: 'key type by size, value type full' },
  { id: 'run_length_encode', kind: 'tune', tables: ['runLengthEncode'], after: ['reduce_by_key'], note: 'reduce by key of implicit ones, on its own table, not reduce_by_key\'s' },
  { id: 'run_length_encode_non_trivial_runs', kind: 'tune', tables: ['runLengthEncodeNonTrivialRuns'], after: ['reduce_by_key', 'select_flag'], note: 'depends on reduce_by_key and select (rocPRIM) but uses neither\'s configs: its own table' },
  { id: 'histogram', kind: 'tune', tables: ['histogram'], after: [], family: 'histogram', note: `${HISTOGRAM_NOTE}; its one-channel rows, timed on even and range bins together` },
  { id: 'multi_histogram_even', kind: 'tune', tables: ['histogram'], after: [], family: 'histogram', note: `${HISTOGRAM_NOTE}; its rows of several channels (RGBA8 pixels, 3 of 4 counted)` },
  { id: 'adjacent_difference', kind: 'tune', tables: ['adjacentDifference'], after: [], note: 'out of place, left and right' },
  { id: 'adjacent_difference_inplace', kind: 'tune', tables: ['adjacentDifferenceInplace'], after: [], note: 'in place, left and right: its own table (rocPRIM\'s adjacent_difference_inplace), as it adds the boundary pre-pass' },
  { id: 'batch_memcpy', kind: 'tune', tables: ['batchMemcpy'], after: [], note: 'many byte ranges in one launch; ranges by size class (rocPRIM batch_memcpy)' },
  { id: 'lower_bound', kind: 'tune', tables: ['lowerBound'], after: [], family: 'binary_search', note: SEARCH_NOTE },
  { id: 'upper_bound', kind: 'tune', tables: ['upperBound'], after: [], family: 'binary_search', note: SEARCH_NOTE },
  { id: 'binary_search', kind: 'tune', tables: ['binarySearch'], after: [], family: 'binary_search', note: SEARCH_NOTE },
  { id: 'top_k', kind: 'tune', tables: ['topK'], after: [], note: 'the radix select (AIR top-k), timed at k = 100 and 4096 (and sorting the k with the radix sort\'s table)' },
  { id: 'nth_element', kind: 'tune', tables: ['nthElement'], after: [], note: 'the same select for nth element and partial sort (rocPRIM\'s nth_element_config), timed at nth = count / 2; calls take topK\'s selection where it has no row' },
  { id: 'merge', kind: 'tune', tables: ['merge'], after: [], note: 'device merge of two sorted inputs (the merge tile kernel the merge sort\'s passes also run), timed on two sorted random halves' },
  { id: 'merge_sort_block_sort', kind: 'tune', tables: ['mergeSortBlockSort'], after: [], note: 'the block sort of each tile alone; scored with the block-sort tile bias items/s * (bs*ipt)^(1/4)' },
  { id: 'merge_sort_block_merge', kind: 'tune', tables: ['mergeSortBlockMerge'], after: ['merge_sort_block_sort'], note: 'the merge passes, timed as the whole sort (merge_sort_keys) with the installed block-sort config, so block_sort is tuned and installed first' },
  { id: 'radix_sort_block_sort', kind: 'tune', tables: ['radixSortBlockSort'], after: [], note: 'the small-size path (block sort of each tile, then merge passes), measured on that path at every size; scored with the block-sort tile bias' },
  { id: 'radix_sort_onesweep', kind: 'tune', tables: ['radixSort'], after: ['scan'], note: 'the LSD sort: onesweep (decoupled look-back) or reduce-then-scan, rank method, radix bits and histogram shape tuned; keyed by key type class and value class; reduce-then-scan\'s digit-count scan runs on scan\'s table, so scan is tuned first' },
  { id: 'radix_sort_threshold', kind: 'threshold', tables: ['radixSortBlockSort', 'radixSort'], after: ['radix_sort_block_sort', 'radix_sort_onesweep'], note: 'the size where onesweep overtakes the block-sort path, measured with both tuned (rocPRIM sets it by hand); written as maxCount of the radixSortBlockSort rows of the value class timed (keys only by default; pairs with settings benchmarks radix_sort_pairs); and where the LSD row is reduce-then-scan on a vendor with forward progress, the size up to which decoupled look-back beats it, written as decoupledMaxCount of its radixSort row' },
  { id: 'segmented_radix_sort', kind: 'tune', tables: ['segmentedRadixSort'], after: [], note: 'its own table (one workgroup per segment: workgroup memory up to a tile, LSD passes past it); timed on 1024-key segments as CUB\'s anchor' },
  { id: 'select_flag', kind: 'tune', tables: ['selectFlag'], after: [], family: 'partition', note: PARTITION_NOTE },
  { id: 'select_predicate', kind: 'tune', tables: ['selectPredicate'], after: [], family: 'partition', note: PARTITION_NOTE },
  { id: 'select_predicated_flag', kind: 'tune', tables: ['selectPredicatedFlag'], after: [], family: 'partition', note: PARTITION_NOTE },
  { id: 'select_unique', kind: 'tune', tables: ['selectUnique'], after: [], family: 'partition', note: PARTITION_NOTE },
  { id: 'select_unique_by_key', kind: 'tune', tables: ['selectUniqueByKey'], after: [], family: 'partition', note: PARTITION_NOTE },
  { id: 'partition_flag', kind: 'tune', tables: ['partitionFlag'], after: [], family: 'partition', note: PARTITION_NOTE },
  { id: 'partition_predicate', kind: 'tune', tables: ['partitionPredicate'], after: [], family: 'partition', note: PARTITION_NOTE },
  { id: 'partition_two_way_flag', kind: 'tune', tables: ['partitionTwoWayFlag'], after: [], family: 'partition', note: PARTITION_NOTE },
  { id: 'partition_two_way_predicate', kind: 'tune', tables: ['partitionTwoWayPredicate'], after: [], family: 'partition', note: PARTITION_NOTE },
  { id: 'partition_three_way', kind: 'tune', tables: ['partitionThreeWay'], after: [], family: 'partition', note: PARTITION_NOTE },
  { id: 'adjacent_find', kind: 'tune', tables: ['adjacentFind'], after: [], family: 'find', note: FIND_NOTE },
  { id: 'find_first_of', kind: 'tune', tables: ['findFirstOf'], after: [], family: 'find', note: FIND_NOTE },
  { id: 'search', kind: 'tune', tables: ['search'], after: [], family: 'find', note: 'search and find_end (untuned in rocPRIM) share this table, timed on both; ' + FIND_NOTE },
  { id: 'search_n', kind: 'tune', tables: ['searchN'], after: [], family: 'find', note: FIND_NOTE },
];

/**
 * The stages in dependency order: a stage comes after every stage it names in `after`; among
 * stages free to go, the listed order is kept. A stage is `available` where `available(stage)`
 * says so (default `stageAvailable`). Throws on an unknown dependency or a cycle.
 */
export function planStages(stages: readonly PlanStage[] = PLAN_STAGES, available: (stage: PlanStage) => boolean = stageAvailable): PlannedStage[] {
  const byId = new Map(stages.map((s) => [s.id, s]));
  for (const s of stages) {
    for (const d of s.after) if (!byId.has(d)) throw new WgprimError('invalid-argument', `plan stage "${s.id}" depends on unknown stage "${d}"`);
  }
  const done = new Set<string>();
  const out: PlannedStage[] = [];
  while (out.length < stages.length) {
    const ready = stages.find((s) => !done.has(s.id) && s.after.every((d) => done.has(d)));
    if (!ready) {
      const stuck = stages.filter((s) => !done.has(s.id)).map((s) => s.id);
      throw new WgprimError('invalid-argument', `the tuning plan has a dependency cycle among ${stuck.join(', ')}`);
    }
    done.add(ready.id);
    out.push({ ...ready, status: available(ready) ? 'available' : 'pending' });
  }
  return out;
}

/**
 * A tune or threshold stage: its algorithm or threshold is registered for tuning; a reuse stage:
 * one of its benchmarks is registered (the algorithm exists and runs on the other's table).
 */
export function stageAvailable(stage: PlanStage): boolean {
  if (stage.kind === 'reuse') return (stage.benchmarks ?? []).some((b) => BENCHMARKS.some((r) => r.name === b));
  return isTuneStage(stage.id);
}

/** Registered algorithms in plan order (those the plan does not list come last, in the given order). */
export function planOrder(algorithms: readonly string[]): string[] {
  const order = planStages().map((s) => s.id);
  const pos = (a: string): number => {
    const i = order.indexOf(a);
    return i < 0 ? order.length : i;
  };
  return [...algorithms].sort((a, b) => pos(a) - pos(b));
}

/** The plan as text lines (what `wgprim tune --plan` prints). */
export function formatPlan(stages: readonly PlannedStage[] = planStages()): string[] {
  const lines: string[] = [];
  stages.forEach((s, i) => {
    const what = s.kind === 'reuse' ? `reuses ${s.reuses}'s table` : `writes ${s.tables.join(', ')}`;
    const after = s.after.length ? `after ${s.after.join(', ')}` : '';
    lines.push(`${String(i + 1).padStart(2)}. ${s.id.padEnd(24)} ${s.status.padEnd(9)} ${s.kind.padEnd(9)} ${what}${after ? `; ${after}` : ''}${s.family ? `; family ${s.family}` : ''}`);
    lines.push(`    ${s.note}`);
  });
  return lines;
}
