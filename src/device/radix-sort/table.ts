import { radixSortTuned } from './tuned.js';
import { radixSortBlockSortTuned } from './block-sort-tuned.js';
import { defineTable } from '../spec.js';
import { radixKeyInfo } from './keys.js';
import { type RadixSortConfig, radixSortConfigProblem, radixSortHeuristic, radixSortSpace, radixSortUntimedSpace } from './config.js';
import { type RadixSortBlockSortConfig, radixSortBlockSortHeuristic, radixSortBlockSortProblem, radixSortBlockSortSpace } from './block-sort-config.js';

/** The LSD passes (onesweep or reduce-then-scan a digit): rocPRIM's `radix_sort_onesweep`. */
export const radixSortTable = defineTable<RadixSortConfig, 'radixSort'>({
  name: 'radixSort', fileName: 'radix-sort', tunedModule: 'device/radix-sort/tuned', exportName: 'radixSortTuned', configType: 'RadixSortConfig', configModule: 'device/radix-sort/config.js',
  space: radixSortSpace,
  untimedSpace: radixSortUntimedSpace,
  defaults: { decoupledMaxCount: 0, passKernels: 'specialized' },
  valueClasses: true,
  nameFields: {
    workgroupSize: 'bs', itemsPerThread: 'ipt', radixBits: 'bits', rank: 'rank', workgroupScan: 'method', lookback: 'lookback',
    histogramWorkgroupSize: 'hist_bs', histogramItemsPerThread: 'hist_ipt', decoupledMaxCount: 'dec_max', passKernels: 'pk',
  },
  // Names of configs without the threshold (or with the default pass kernels) read as before those fields existed.
  nameOmits: { decoupledMaxCount: 0, passKernels: 'specialized' },
  builtin: radixSortTuned,
  keyInfo: radixKeyInfo,
  problem: radixSortConfigProblem,
  heuristic: radixSortHeuristic,
});

/** The small-size path (block sort of each tile, then merge passes): rocPRIM's `radix_sort_block_sort`. */
export const radixSortBlockSortTable = defineTable<RadixSortBlockSortConfig, 'radixSortBlockSort'>({
  name: 'radixSortBlockSort', fileName: 'radix-sort-block-sort', tunedModule: 'device/radix-sort/block-sort-tuned', exportName: 'radixSortBlockSortTuned', configType: 'RadixSortBlockSortConfig',
  configModule: 'device/radix-sort/block-sort-config.js',
  space: radixSortBlockSortSpace,
  valueClasses: true,
  nameFields: { workgroupSize: 'bs', itemsPerThread: 'ipt', radixBits: 'bits', rank: 'rank', mergeWorkgroupSize: 'merge_bs', mergeItemsPerThread: 'merge_ipt', maxCount: 'max' },
  builtin: radixSortBlockSortTuned,
  keyInfo: radixKeyInfo,
  problem: radixSortBlockSortProblem,
  heuristic: radixSortBlockSortHeuristic,
});
