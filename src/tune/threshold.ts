// The plan's `radix_sort_threshold` stage: where the radix sort's small-size path (block sort of
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
import { benchmarkAlgorithm, benchmarkName, configFromName } from '../bench/run.js';
import { type ConfigObject } from '../device/spec.js';
import { type RadixSortBlockSortConfig } from '../device/radix-sort/block-sort-config.js';
import { type RunTimingOptions, runTimingOf } from '../bench/timing.js';
import { ONESWEEP_MAX_COUNT, type RadixSortConfig } from '../device/radix-sort/config.js';
import { type TargetMatch, type TunedEntry } from '../config/types.js';
import { configKey, rowKey, type TunedAlgorithm } from '../tables.js';
import { type Prim } from '../prim.js';
import { type ElementType, type TypeClass } from '../wgsl/types.js';
import { classifyImprovement } from './acceptance.js';
import { type BenchInput, configLabel, formatSize, geomean, targetOfContext, typeClassLabel, typeClassOfName, valueClassLabel, valueClassOfName } from './measurements.js';

export const RADIX_THRESHOLD_ALGO = 'radix_sort_threshold';
/**
 * `block_sort`: the small-size path; `onesweep`: the LSD path on its config's own lookback at every
 * size (decoupledMaxCount 0); `decoupled`: that config with decoupled look-back.
 */
export type ThresholdPath = 'block_sort' | 'onesweep' | 'decoupled';
export const THRESHOLD_PATHS: readonly ThresholdPath[] = ['block_sort', 'onesweep', 'decoupled'];


/**
 * The threshold field of a table's rows (a size, not a launch parameter: the kernels are the same
 * whatever it is), and the stage's path that sets it.
 */
export const THRESHOLD_FIELDS = { radixSortBlockSort: 'maxCount', radixSort: 'decoupledMaxCount' } as const;
export type ThresholdTable = keyof typeof THRESHOLD_FIELDS;
export const isThresholdTable = (a: string): a is ThresholdTable => a in THRESHOLD_FIELDS;


/**
 * The ladder of sizes: GPUs 2^10..2^26 (every power of two: onesweep against reduce-then-scan
 * crosses near 2^24 on the H200); CPU adapters 2^10..2^16 (every other). A path stops once it has
 * lost THRESHOLD_LOSSES_TO_STOP sizes in a row.
 */
export function defaultThresholdSizes(kind: 'cpu' | 'gpu'): number[] {
  return kind === 'cpu' ? [2 ** 10, 2 ** 12, 2 ** 14, 2 ** 16] : Array.from({ length: 17 }, (_, i) => 2 ** (10 + i));
}

/**
 * The decoupled-look-back variant of an LSD config, where the stage measures one: the config is
 * reduce-then-scan with the match rank and the device's vendor gives forward progress (elsewhere a
 * spinning look-back may never finish). undefined: no decoupled path.
 */
export function decoupledVariant(onesweep: RadixSortConfig, forwardProgress: boolean): RadixSortConfig | undefined {
  if (!forwardProgress || onesweep.lookback === 'decoupled' || onesweep.rank !== 'match') return undefined;
  return { ...onesweep, lookback: 'decoupled', decoupledMaxCount: 0 };
}

/** The value classes a threshold is measured for: 0 keys only, 4 pairs with u32 values. */
export type ThresholdValueBytes = 0 | 4;

/** The value class a threshold stage's benchmark times (settings `benchmarks`): `radix_sort_pairs` 4, `radix_sort_keys` 0. */
export function thresholdValueBytes(benchmark: string): ThresholdValueBytes {
  return benchmark === 'radix_sort_pairs' ? 4 : 0;
}

/** The entry name of one path's measurement: keys only (`valueBytes` 0, `value_type:empty`) or with u32 values (4, `value_type:u32`). */
export function radixSortThresholdName(path: ThresholdPath, keyType: string, config: RadixSortBlockSortConfig | RadixSortConfig, valueBytes: ThresholdValueBytes = 0): string {
  if (path !== 'block_sort') config = { ...(config as RadixSortConfig), decoupledMaxCount: 0 };
  const valueType = valueClassLabel(valueBytes);
  const benchmark = `radix_sort_${path === 'block_sort' ? 'block_sort_' : ''}${valueBytes ? 'pairs' : 'keys'}`;
  const inner = benchmarkName(benchmark, keyType, config as unknown as ConfigObject);
  const cfg = parseName(inner).cfg as NameFields;
  return formatName({ lvl: 'device', algo: RADIX_THRESHOLD_ALGO, path, key_type: keyType, value_type: valueType, cfg: cfg as NameInput });
}

export interface ThresholdMeasureOptions extends RunTimingOptions {
  readonly path: ThresholdPath;
  readonly type: ElementType;
  /** 0 (default): keys only; 4: pairs with u32 values (as the pairs benchmarks). */
  readonly valueBytes?: ThresholdValueBytes;
  readonly size: number;
  readonly seed: number;
  /** The path's config: a block sort config for `block_sort`, an LSD config for `onesweep` and `decoupled` (timed with decoupledMaxCount 0). */
  readonly config: RadixSortBlockSortConfig | RadixSortConfig;
}

/**
 * Times one path at one size with the bench functions (`radix_sort_block_sort_*` force the
 * block-sort path; `radix_sort_keys` / `radix_sort_pairs` force onesweep), renamed to the
 * threshold entry's name.
 */
export async function measureRadixSortThreshold(prim: Prim, o: ThresholdMeasureOptions): Promise<BenchRecord> {
  const valueBytes = o.valueBytes ?? 0;
  const timing = { ...runTimingOf(o), type: o.type, size: o.size, seed: o.seed };
  const pairs = valueBytes !== 0 ? 'pairs' : 'keys';
  const [record] = o.path === 'block_sort'
    ? await benchmarkAlgorithm(prim, { ...timing, algorithm: `radix_sort_block_sort_${pairs}`, config: o.config as unknown as ConfigObject })
    : await benchmarkAlgorithm(prim, { ...timing, algorithm: `radix_sort_${pairs}`, config: { ...(o.config as unknown as ConfigObject), decoupledMaxCount: 0 } });
  return { ...record!, name: radixSortThresholdName(o.path, o.type, o.config, valueBytes) };
}
