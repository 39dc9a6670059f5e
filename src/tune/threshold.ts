// The plan's threshold stage, as the radix sort declares it (`TuningSpec.threshold`, its
// `radix_sort_threshold`): where the radix sort's small-size path (block sort of
// each tile, then merge passes) stops beating the LSD path (onesweep), measured with both
// configs known for the type, at a ladder of sizes, for keys only and (settings `benchmarks`
// with `radix_sort_pairs`) for pairs with u32 values, each a threshold of its own. The
// measurements are Google Benchmark entries named in rocPRIM's grammar,
//   {lvl:device,algo:radix_sort_threshold,path:block_sort|onesweep,key_type:T,value_type:empty|u32,cfg:{...}}
// (cfg: that path's config, as radix_sort_block_sort / radix_sort_onesweep names it), so they
// never mix with those stages' own groups. create-optimization reads them back and writes each
// threshold as maxCount of the radixSortBlockSort rows of its value class (value_type empty: the
// keys-only rows, valueBytes 0; u32: the pairs rows, valueBytes 4). Browser-safe.
//
// The same stage measures the LSD path's second threshold: where its config is reduce-then-scan
// (the match rank, on a vendor that gives forward progress), the same tile with decoupled
// look-back (path `decoupled`) against it; the largest size where onesweep wins beyond the noise
// rule is written as decoupledMaxCount of the radixSort rows. The block-sort threshold is then
// measured against the LSD path as it will run at each size (onesweep up to decoupledMaxCount).
import { type BenchRecord, formatName, type NameFields, type NameInput, parseName } from '../bench/gbench.js';
import { benchmarkAlgorithm, benchmarkName } from '../bench/run.js';
import { type ConfigObject, type ThresholdSpec } from '../device/spec.js';
import { type RunTimingOptions, runTimingOf } from '../bench/timing.js';
import { type Prim } from '../prim.js';
import { type ElementType } from '../wgsl/types.js';
import { THRESHOLD_SPECS } from './registry.js';
import { type TunedAlgorithm } from '../tables.js';
import { valueClassLabel } from './measurements.js';

/** The threshold stage the registered algorithms declare (one today: the radix sort's). */
export const THRESHOLD_SPEC: ThresholdSpec = THRESHOLD_SPECS[0]!;
/** Its `algo` in benchmark names. */
export const RADIX_THRESHOLD_ALGO = THRESHOLD_SPEC.stage;
/**
 * The paths as names write them: `block_sort` the small path; `onesweep` the general path on its
 * config's own method at every size (its threshold field 0); `decoupled` the general config's twin.
 */
export type ThresholdPath = 'block_sort' | 'onesweep' | 'decoupled';
export const THRESHOLD_PATHS: readonly ThresholdPath[] = ['block_sort', 'onesweep', 'decoupled'];

/**
 * The threshold field of a table's rows (a size, not a launch parameter: the kernels are the same
 * whatever it is), by table: the small path's (maxCount) and the general path's (decoupledMaxCount).
 */
export const THRESHOLD_FIELDS: Readonly<Record<string, string>> = THRESHOLD_SPEC.fields;
export type ThresholdTable = TunedAlgorithm;
export const isThresholdTable = (a: string): a is ThresholdTable => a in THRESHOLD_FIELDS;
/** The small path's table and the general path's (`radixSortBlockSort`, `radixSort`). */
export const SMALL_TABLE = THRESHOLD_SPEC.small.table.name as TunedAlgorithm;
export const GENERAL_TABLE = THRESHOLD_SPEC.general.table.name as TunedAlgorithm;

/** The stage's ladder of sizes; a path stops once it has lost THRESHOLD_LOSSES_TO_STOP sizes in a row. */
export function defaultThresholdSizes(kind: 'cpu' | 'gpu'): number[] {
  return THRESHOLD_SPEC.sizes(kind);
}

/** The general config's twin where the stage measures one (`ThresholdSpec.twin`); undefined: no twin path. */
export function decoupledVariant<C>(general: C, forwardProgress: boolean): C | undefined {
  return THRESHOLD_SPEC.twin(general as unknown as ConfigObject, forwardProgress) as C | undefined;
}

/** The value classes a threshold is measured for: 0 keys only, 4 pairs with u32 values. */
export type ThresholdValueBytes = 0 | 4;

/** The value class a threshold stage's settings benchmark times. */
export function thresholdValueBytes(benchmark: string): ThresholdValueBytes {
  return THRESHOLD_SPEC.valueBytes(benchmark);
}

const pathSpec = (path: ThresholdPath) => (path === 'block_sort' ? THRESHOLD_SPEC.small : THRESHOLD_SPEC.general);
/** A general-path config timed on its own method at every size: its threshold field 0. */
const atEverySize = (config: unknown): ConfigObject => ({ ...(config as ConfigObject), [THRESHOLD_FIELDS[GENERAL_TABLE]!]: 0 });

/** The entry name of one path's measurement: keys only (`valueBytes` 0, `value_type:empty`) or with u32 values (4, `value_type:u32`). */
export function radixSortThresholdName(path: ThresholdPath, keyType: string, config: unknown, valueBytes: ThresholdValueBytes = 0): string {
  const c = path === 'block_sort' ? (config as ConfigObject) : atEverySize(config);
  const inner = benchmarkName(pathSpec(path).benchmarks[valueBytes], keyType, c);
  const cfg = parseName(inner).cfg as NameFields;
  return formatName({ lvl: 'device', algo: RADIX_THRESHOLD_ALGO, path, key_type: keyType, value_type: valueClassLabel(valueBytes), cfg: cfg as NameInput });
}

export interface ThresholdMeasureOptions extends RunTimingOptions {
  readonly path: ThresholdPath;
  readonly type: ElementType;
  /** 0 (default): keys only; 4: pairs with u32 values (as the pairs benchmarks). */
  readonly valueBytes?: ThresholdValueBytes;
  readonly size: number;
  readonly seed: number;
  /** The path's config: the small path's table's for `block_sort`, the general path's for the others (timed with its threshold field 0). */
  readonly config: unknown;
}

/**
 * Times one path at one size with the benchmark that forces it (the small path's benchmarks
 * force the block sort; the general path's force onesweep), renamed to the threshold entry's name.
 */
export async function measureRadixSortThreshold(prim: Prim, o: ThresholdMeasureOptions): Promise<BenchRecord> {
  const valueBytes = o.valueBytes ?? 0;
  const config = o.path === 'block_sort' ? (o.config as ConfigObject) : atEverySize(o.config);
  const [record] = await benchmarkAlgorithm(prim, { ...runTimingOf(o), type: o.type, size: o.size, seed: o.seed, algorithm: pathSpec(o.path).benchmarks[valueBytes], config });
  return { ...record!, name: radixSortThresholdName(o.path, o.type, o.config, valueBytes) };
}
