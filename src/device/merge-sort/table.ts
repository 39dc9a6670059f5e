import { typeInfo } from '../../wgsl/types.js';
import { defineTable } from '../spec.js';
import {
  type MergeSortBlockMergeConfig, mergeSortBlockMergeHeuristic, mergeSortBlockMergeProblem, mergeSortBlockMergeSpace,
  type MergeSortBlockSortConfig, mergeSortBlockSortHeuristic, mergeSortBlockSortProblem, mergeSortBlockSortSpace,
} from './config.js';
import { mergeSortBlockSortTuned } from './tuned/merge-sort-block-sort.js';
import { mergeSortBlockMergeTuned } from './tuned/merge-sort-block-merge.js';

/** The block sort of each tile: rocPRIM's `merge_sort_block_sort`. Rows by key class and value size. */
export const mergeSortBlockSortTable = defineTable<MergeSortBlockSortConfig, 'mergeSortBlockSort'>({
  name: 'mergeSortBlockSort', fileName: 'merge-sort-block-sort', tunedModule: 'device/merge-sort/tuned/merge-sort-block-sort', exportName: 'mergeSortBlockSortTuned',
  configType: 'MergeSortBlockSortConfig', configModule: 'device/merge-sort/config.js',
  space: mergeSortBlockSortSpace,
  valueClasses: true,
  nameFields: { workgroupSize: 'bs', itemsPerThread: 'ipt' },
  builtin: mergeSortBlockSortTuned,
  keyInfo: typeInfo,
  problem: mergeSortBlockSortProblem,
  heuristic: mergeSortBlockSortHeuristic,
});

/** The merge passes over the sorted tiles: rocPRIM's `merge_sort_block_merge` (tuned after the block sort). */
export const mergeSortBlockMergeTable = defineTable<MergeSortBlockMergeConfig, 'mergeSortBlockMerge'>({
  name: 'mergeSortBlockMerge', fileName: 'merge-sort-block-merge', tunedModule: 'device/merge-sort/tuned/merge-sort-block-merge', exportName: 'mergeSortBlockMergeTuned',
  configType: 'MergeSortBlockMergeConfig', configModule: 'device/merge-sort/config.js',
  space: mergeSortBlockMergeSpace,
  valueClasses: true,
  nameFields: { workgroupSize: 'bs', itemsPerThread: 'ipt' },
  builtin: mergeSortBlockMergeTuned,
  keyInfo: typeInfo,
  problem: mergeSortBlockMergeProblem,
  heuristic: mergeSortBlockMergeHeuristic,
});
