// wgprim core: runs wherever a GPUDevice exists; imports nothing from Node, the tuner or the CLI.
export { createPrim, Prim, type PrimOptions, type TunedTables, type AlgorithmName } from './prim.js';
export {
  ArrayApi, typeOfArray, type PrimTypedArray, type ArrayScanOptions, type ArrayReduceOptions, type ArrayTransformOptions, type ArrayRadixSortOptions,
  type ArraySegmentedRadixSortOptions, type RadixSortValueArray,
} from './arrays.js';
export { WgprimError, type WgprimErrorCode } from './runtime/errors.js';
export { type Target, type AdapterInfoLike, targetFromAdapterInfo, hasForwardProgress, describeTarget } from './runtime/target.js';
export { DeviceContext, type DispatchProfiler, type LimitName, registerAdapterLimits } from './runtime/context.js';
export { gridFor } from './runtime/dispatch.js';
export { type ElementType, ELEMENT_TYPES, typeInfo, typeClassOf, type TypeClass } from './wgsl/types.js';
export { type Operator, type BuiltinOperator, type CustomOperator, BUILTIN_OPERATORS } from './wgsl/operators.js';
export { f16Bits, f16Value } from './wgsl/values.js';
export { type TunedEntry, type TargetMatch, type TuningEvidence, type ConfigSource, type SelectedConfig } from './config/types.js';
export { selectConfig, matchLevel } from './config/select.js';
export { normalizeTunedInput, TUNED_ALGORITHMS, TUNED_TABLE_FORMAT, type TunedAlgorithm, type TunedInput, type TunedTableFile } from './tables.js';
export { ALGORITHMS, TABLES, BENCHMARKS, TUNING_STAGES } from './algorithms.js';
export {
  type AlgorithmSpec, type ConfigTable, type BenchmarkSpec, type TuningSpec, type AlgorithmEnv, type ArrayEnv, type ParamSpace, type ParamValue, type ConfigObject,
  type ValueBytes,
} from './device/spec.js';
export {
  type TuneCache, type TuneCacheState, type TuneCacheEntry, type StorageLike, memoryTuneCache, localStorageTuneCache, defaultTuneCache, tuneCacheKey,
  TUNE_CACHE_FORMAT,
} from './tune-cache.js';
export { WGPRIM_VERSION } from './version.js';
export { type ScanConfig, scanSpace } from './device/scan/config.js';
export { type ScanArgs } from './device/scan/scan.js';
export { type ReduceConfig, reduceSpace } from './device/reduce/config.js';
export { type ReduceArgs } from './device/reduce/reduce.js';
export { type TransformConfig, transformSpace } from './device/transform/config.js';
export { type TransformArgs } from './device/transform/transform.js';
export { type RadixSortConfig, radixSortSpace } from './device/radix-sort/config.js';
export { type SegmentedRadixSortConfig, segmentedRadixSortSpace } from './device/segmented-radix-sort/config.js';
export { type SegmentedRadixSortKeysArgs, type SegmentedRadixSortPairsArgs } from './device/segmented-radix-sort/segmented-radix-sort.js';
export { type RadixSortBlockSortConfig, radixSortBlockSortSpace, RADIX_BLOCK_SORT_DEFAULT_MAX_COUNT } from './device/radix-sort/block-sort-config.js';
export { type RadixSortKeysArgs, type RadixSortPairsArgs, type RadixSortKeyType } from './device/radix-sort/radix-sort.js';
export { type SelectConfig, selectSpace } from './device/select/config.js';
export { type SelectArgs, type PartitionArgs, type PartitionTwoWayArgs, type PartitionThreeWayArgs, type UniqueArgs, type UniqueByKeyArgs } from './device/select/calls.js';
export { type FlagBytes } from './device/select/kernel.js';
export { type ArraySelectOptions, type ArrayThreeWayOptions, type ArrayUniqueOptions, type ValueArray as UniqueByKeyValueArray } from './device/select/spec.js';
export { type AdjacentDifferenceConfig, adjacentDifferenceSpace } from './device/adjacent-difference/config.js';
export { type AdjacentDifferenceArgs } from './device/adjacent-difference/adjacent-difference.js';
export { type ArrayAdjacentDifferenceOptions } from './device/adjacent-difference/spec.js';
export { type BatchCopyConfig, batchCopySpace } from './device/batch-copy/config.js';
export { type BatchCopyArgs } from './device/batch-copy/batch-copy.js';
export { type ArrayBatchCopyRanges } from './device/batch-copy/spec.js';
export { type HistogramConfig, histogramSpace } from './device/histogram/config.js';
export { type HistogramEvenArgs, type HistogramRangeArgs, type HistogramCommonArgs } from './device/histogram/calls.js';
export { type HistogramSampleType, SAMPLE_TYPES as HISTOGRAM_SAMPLE_TYPES } from './device/histogram/samples.js';
export { type ArrayHistogramOptions, type ArrayHistogramEvenOptions, type HistogramSampleArray } from './device/histogram/spec.js';
export { type FindConfig, findSpace } from './device/find/config.js';
export { type AdjacentFindArgs, type FindFirstOfArgs, type SearchArgs, type SearchNArgs } from './device/find/calls.js';
export { type ArrayFindOptions } from './device/find/spec.js';
export { type MergeConfig, mergeSpace } from './device/merge/config.js';
export { type MergeArgs, type MergePairsArgs } from './device/merge/merge.js';
export { type ArrayMergeOptions, type MergeValueArray } from './device/merge/spec.js';
export { type MergeSortBlockSortConfig, type MergeSortBlockMergeConfig, mergeSortBlockSortSpace, mergeSortBlockMergeSpace } from './device/merge-sort/config.js';
export { type MergeSortKeysArgs, type MergeSortPairsArgs } from './device/merge-sort/merge-sort.js';
export { type ArrayMergeSortOptions, type MergeSortValueArray } from './device/merge-sort/spec.js';
export { type ByKeyConfig, byKeySpace } from './device/scan-by-key/config.js';
export { type ByKeyReduceConfig, byKeyReduceSpace } from './device/reduce-by-key/config.js';
export { type InclusiveScanByKeyArgs, type ScanByKeyArgs, type SegmentedScanArgs } from './device/scan-by-key/calls.js';
export { type ArrayInclusiveScanByKeyOptions, type ArrayScanByKeyOptions, type ArraySegmentedScanOptions, type ArraySegments } from './device/scan-by-key/spec.js';
export { type ReduceByKeyArgs, type RunLengthEncodeArgs, type NonTrivialRunsArgs } from './device/reduce-by-key/calls.js';
export { type ArrayReduceByKeyOptions, type ArrayRunLengthOptions } from './device/reduce-by-key/spec.js';
export { type SegmentedReduceArgs, type ArraySegmentedReduceOptions } from './device/segmented-reduce/spec.js';
export { type SegmentedReducePath } from './device/segmented-reduce/kernel.js';
export { type BinarySearchConfig, binarySearchSpace } from './device/binary-search/config.js';
export { type BinarySearchArgs } from './device/binary-search/search.js';
export { type ArraySearchOptions } from './device/binary-search/spec.js';
export { type TopKConfig, topKSpace } from './device/top-k/config.js';
export { type TopKArgs } from './device/top-k/top-k.js';
export { type ArrayTopKOptions, type ArrayPartialOptions } from './device/top-k/spec.js';
export { type NthElementArgs, type PartialSortArgs } from './device/top-k/arrange.js';
