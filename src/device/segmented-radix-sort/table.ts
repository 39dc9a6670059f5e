import { segmentedRadixSortTuned } from './tuned.js';
import { defineTable } from '../spec.js';
import { radixKeyInfo } from '../radix-sort/keys.js';
import { type SegmentedRadixSortConfig, segmentedRadixSortConfigProblem, segmentedRadixSortHeuristic, segmentedRadixSortSpace } from './config.js';

export const segmentedRadixSortTable = defineTable<SegmentedRadixSortConfig, 'segmentedRadixSort'>({
  name: 'segmentedRadixSort', fileName: 'segmented-radix-sort', tunedModule: 'device/segmented-radix-sort/tuned', exportName: 'segmentedRadixSortTuned', configType: 'SegmentedRadixSortConfig',
  configModule: 'device/segmented-radix-sort/config.js',
  space: segmentedRadixSortSpace,
  valueClasses: true,
  nameFields: { workgroupSize: 'bs', itemsPerThread: 'ipt', radixBits: 'bits', rank: 'rank', segmentsPerWorkgroup: 'spw', subgroupKeysPerLane: 'kpl', grouping: 'grp', shortItemsPerThread: 'sipt' },
  // Rows and names written before these fields existed sorted one key a lane, ungrouped.
  defaults: { subgroupKeysPerLane: 1, grouping: 'none', shortItemsPerThread: 0 },
  nameOmits: { subgroupKeysPerLane: 1, grouping: 'none', shortItemsPerThread: 0 },
  builtin: segmentedRadixSortTuned,
  keyInfo: radixKeyInfo,
  problem: segmentedRadixSortConfigProblem,
  heuristic: segmentedRadixSortHeuristic,
});
