// What a tuning campaign takes and gives back: its options, the progress it reports, the
// summary rows and the result. Browser-safe.
import { type AdapterInfoLike } from '../runtime/target.js';
import { type ElementType } from '../wgsl/types.js';
import { type HostFacts } from '../bench/gbench.js';
import { type ConfigObject } from './registry.js';
import { type StrategyName, type TuneSettings } from './settings.js';
import { type Shard, type VariantSet } from './variants.js';
import { type CampaignPlan } from './campaign-plan.js';
import { type ThresholdResult } from './threshold-read.js';
import { type TuneFile } from './results.js';

export interface ProgressEvent {
  /** `build`: a variant's pipelines compiled and run once; `run`: one measurement done. */
  readonly phase: 'build' | 'run';
  readonly done: number;
  /** Known or estimated total (local search grows it as it goes). */
  readonly total: number;
  /** `algorithm type` of the group at work. */
  readonly group: string;
  /** Its stage (the algorithm). */
  readonly stage: string;
}

/** Wall time of one group of a campaign. */
export interface GroupTime {
  readonly stage: string;
  readonly group: string;
  readonly ms: number;
}

export interface CampaignOptions {
  readonly settings: TuneSettings;
  /** Algorithms to tune (default: every tunable one in the settings), run in plan order. */
  readonly algorithms?: readonly string[];
  /** Overrides the settings' strategy. */
  readonly strategy?: StrategyName | 'auto';
  /** Overrides the settings' budget: stop measuring after this many seconds. */
  readonly budgetSeconds?: number;
  readonly shard?: Shard;
  /** A parsed earlier file of this campaign: what it holds is not measured again. */
  readonly existing?: unknown;
  /** Where `existing` came from, for messages. */
  readonly existingLabel?: string;
  /** Measure again what `existing` holds as an error (default: an error counts as done). */
  readonly retryErrors?: boolean;
  /** Stop after this many new measurements (each (variant, benchmark, size), errors included). */
  readonly maxMeasurements?: number;
  /** The adapter, for the file's context (and to refuse resuming another adapter's file). */
  readonly adapterInfo: AdapterInfoLike;
  readonly host?: HostFacts;
  readonly forceWallClock?: boolean;
  /**
   * Milliseconds of untimed measurements that keep the device busy before the first timed one
   * of a (type, size) and after each build step (default 500; see SETTLE_MS).
   */
  readonly settleMs?: number;
  /**
   * Compile the next group's pipelines while this one is measured (default: on GPUs that time
   * with timestamps; never on CPU adapters, where compiling and running share the cores and the
   * host clock times the runs).
   */
  readonly buildAhead?: boolean;
  readonly onProgress?: (e: ProgressEvent) => void;
  /** Called once the variants are enumerated and each group's strategy chosen, before anything is built. */
  readonly onStart?: (info: CampaignStart) => void;
  /** Called with the whole file after every new entry: write it, so an interrupted campaign keeps its work. */
  readonly onUpdate?: (file: TuneFile) => void | Promise<void>;
  readonly log?: (line: string) => void;
  /** Polled before each build and measurement: true stops the campaign there, as its budget would (an interrupt). */
  readonly stopRequested?: () => boolean;
  /** Called as each (algorithm, type) group and threshold run ends: its stage and wall time, waits for its builds included. */
  readonly onGroupDone?: (e: GroupTime) => void;
  /** Milliseconds clock (default `performance.now`). */
  readonly now?: () => number;
}

export interface CampaignStart {
  readonly variants: VariantSet;
  /** Per group: its strategy, and the variants this shard measures (local search: an estimate). */
  readonly groups: readonly { readonly label: string; readonly strategy: StrategyName; readonly variants: number; readonly baselines: number }[];
  /**
   * Measurements to make (local search: an estimate; threshold stages: their most, since a path
   * that loses at two sizes in a row is not measured further), and those the existing file holds.
   */
  readonly pending: number;
  readonly existing: number;
  /** Per stage: builds, pipelines, measurements and the time they should take. */
  readonly plan: CampaignPlan;
}

/** One config's figures in a summary row: geometric mean of items/s over every (benchmark, size) of the row. */
export interface ConfigScore {
  readonly config: ConfigObject;
  readonly score: number;
  /** Largest cv over its points. */
  readonly cv: number;
}

/**
 * One row of the summary: per (algorithm, type), and for the sorts per value class too (their
 * tables keep a row per class: `valueBytes`), so a row compares configs the way its table does.
 */
export interface SummaryRow {
  readonly algorithm: string;
  readonly type: ElementType;
  /**
   * Sorts: the value class this row covers (bytes of values; 0 keys only, 4 pairs with u32
   * values), as the rows it corresponds to (`typeClass.valueBytes`); `benchmarks` are that
   * class's only. Absent for algorithms without value classes. See `summaryTypeLabel`.
   */
  readonly valueBytes?: number;
  readonly strategy: StrategyName;
  readonly sizes: readonly number[];
  /** The benchmarks the row scores (a sort row: those of its value class). */
  readonly benchmarks: readonly string[];
  /** Configs measured at every point of the row. */
  readonly measured: number;
  /** Configs with an error at some point. */
  readonly failed: number;
  /** The config a call selects today, and where it comes from. */
  readonly selected?: ConfigScore & { readonly source: string };
  /** The heuristic's config (the same as `selected` where no tuned row applies). */
  readonly heuristic?: ConfigScore;
  readonly best?: ConfigScore;
  /** best / selected, both measured in this file. */
  readonly ratio?: number;
}

export type StopReason = 'budget' | 'limit' | 'device-lost' | 'interrupt';

export interface CampaignResult {
  readonly file: TuneFile;
  readonly variants: VariantSet;
  readonly summary: readonly SummaryRow[];
  /** New measurements (errors included). */
  readonly measured: number;
  /** New error entries. */
  readonly errors: number;
  /** Measurements found in `existing` and not repeated. */
  readonly reused: number;
  /** Planned measurements not made: threshold points past a path's crossover (and local search's unspent estimate). */
  readonly skipped: number;
  /** Variants built, and the seconds the build steps took (compiling not overlapped with measuring). */
  readonly built: number;
  readonly buildMs: number;
  /** Seconds spent measuring (settling included). */
  readonly measureMs: number;
  /** The threshold stages' results (radix_sort_threshold), from every threshold entry in the file. */
  readonly thresholds: readonly ThresholdResult[];
  /** Why the campaign stopped before the end, if it did. */
  readonly stopped?: { readonly reason: StopReason; readonly message: string };
  readonly elapsedMs: number;
}

/** Thrown inside a campaign to end it early; `runCampaign` catches it and reports `stopped`. */
export class StopCampaign extends Error {
  constructor(readonly reason: StopReason, message: string) {
    super(message);
  }
}

