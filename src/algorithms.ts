// The registry: every device algorithm wgprim has, one line each. `Prim`, table loading, the
// benchmark runner, the tuner and the CLI iterate over this list; adding an algorithm is a new
// folder under device/ and one line here.
import { type ConfigTable } from './device/spec.js';
import { type TunedEntry } from './config/types.js';
import { scanAlgorithm } from './device/scan/spec.js';
import { reduceAlgorithm } from './device/reduce/spec.js';
import { transformAlgorithm } from './device/transform/spec.js';
import { radixSortAlgorithm } from './device/radix-sort/spec.js';
import { segmentedRadixSortAlgorithm } from './device/segmented-radix-sort/spec.js';
import { selectAlgorithm } from './device/select/spec.js';
import { adjacentDifferenceAlgorithm } from './device/adjacent-difference/spec.js';
import { batchCopyAlgorithm } from './device/batch-copy/spec.js';
import { histogramAlgorithm } from './device/histogram/spec.js';
import { findAlgorithm } from './device/find/spec.js';
import { mergeSortAlgorithm } from './device/merge-sort/spec.js';
import { mergeAlgorithm } from './device/merge/spec.js';
import { scanByKeyAlgorithm } from './device/scan-by-key/spec.js';
import { reduceByKeyAlgorithm } from './device/reduce-by-key/spec.js';
import { segmentedReduceAlgorithm } from './device/segmented-reduce/spec.js';
import { binarySearchAlgorithm } from './device/binary-search/spec.js';
import { topKAlgorithm } from './device/top-k/spec.js';

export const ALGORITHMS = [
  scanAlgorithm,
  reduceAlgorithm,
  transformAlgorithm,
  radixSortAlgorithm,
  segmentedRadixSortAlgorithm,
  selectAlgorithm,
  adjacentDifferenceAlgorithm,
  batchCopyAlgorithm,
  histogramAlgorithm,
  findAlgorithm,
  mergeSortAlgorithm,
  mergeAlgorithm,
  scanByKeyAlgorithm,
  reduceByKeyAlgorithm,
  segmentedReduceAlgorithm,
  binarySearchAlgorithm,
  topKAlgorithm,
] as const;

type Spec = (typeof ALGORITHMS)[number];
type UnionToIntersection<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void ? I : never;

/** The buffer-level calls of every algorithm: `Prim`'s methods. */
export type AlgorithmCalls = UnionToIntersection<ReturnType<Spec['calls']>>;
/** The array-level calls of every algorithm: `prim.arrays`' methods. */
export type AlgorithmArrayCalls = UnionToIntersection<ReturnType<Spec['arrays']>>;

type AnyTable = Spec['tables'][number];
/** Names of the tuned tables (`scan`, `radixSort`, ...). */
export type TunedAlgorithm = AnyTable['name'];
type ConfigOf<T> = T extends ConfigTable<infer C, string> ? C : never;

/** Tuned tables by name: the built-in ones, or a user's, loaded at run time. */
export type TunedTables = { readonly [T in AnyTable as T['name']]?: readonly TunedEntry<ConfigOf<T>>[] };

/** Every tuned table, in registry order. */
export const TABLES: readonly ConfigTable<unknown, TunedAlgorithm>[] = ALGORITHMS.flatMap((a) => a.tables as readonly ConfigTable<unknown, TunedAlgorithm>[]);
/** Names of the tuned tables, in registry order. */
export const TUNED_ALGORITHMS: readonly TunedAlgorithm[] = TABLES.map((t) => t.name);

export function isTunedAlgorithm(name: string): name is TunedAlgorithm {
  return (TUNED_ALGORITHMS as readonly string[]).includes(name);
}

/** The table of this name (throws on a name that is not one). */
export function tableNamed(name: string): ConfigTable<unknown, TunedAlgorithm> {
  const t = TABLES.find((x) => x.name === name);
  if (!t) throw new Error(`no tuned table "${name}" (tables: ${TUNED_ALGORITHMS.join(', ')})`);
  return t;
}

/** Every benchmark of every algorithm, in registry order. */
export const BENCHMARKS = ALGORITHMS.flatMap((a) => a.benchmarks);
/** Every tuning stage of every algorithm, in registry order. */
export const TUNING_STAGES = ALGORITHMS.flatMap((a) => a.tuning);
