import { type TypeInfo, typeInfo } from '../../wgsl/types.js';
import { type ConfigTable, defineTable } from '../spec.js';
import { type TunedEntry } from '../../config/types.js';
import { selectFlagTuned } from './tuned/select-flag.js';
import { selectPredicateTuned } from './tuned/select-predicate.js';
import { selectPredicatedFlagTuned } from './tuned/select-predicated-flag.js';
import { selectUniqueTuned } from './tuned/select-unique.js';
import { selectUniqueByKeyTuned } from './tuned/select-unique-by-key.js';
import { partitionFlagTuned } from './tuned/partition-flag.js';
import { partitionPredicateTuned } from './tuned/partition-predicate.js';
import { partitionTwoWayFlagTuned } from './tuned/partition-two-way-flag.js';
import { partitionTwoWayPredicateTuned } from './tuned/partition-two-way-predicate.js';
import { partitionThreeWayTuned } from './tuned/partition-three-way.js';
import { type SelectConfig, selectConfigProblem, selectHeuristic, selectSpace } from './config.js';

/**
 * One engine, a table per sub-algorithm, as rocPRIM tunes them (its config headers
 * `select_flag`, ..., `partition_three_way`): the flag source and the output layout change
 * what a tile does, so each is tuned on its own.
 */
function compactionTable<N extends string>(name: N, fileName: string, builtin: readonly TunedEntry<SelectConfig>[], counts: 'u32' | 'u64' = 'u32', withIndex = false): ConfigTable<SelectConfig, N> {
  const countInfo = typeInfo(counts);
  const staged = (t: TypeInfo): number => t.bytes + (withIndex ? 4 : 0);
  return defineTable<SelectConfig, N>({
    name, fileName, tunedModule: `device/select/tuned/${fileName}`, exportName: `${name}Tuned`, configType: 'SelectConfig', configModule: 'device/select/config.js',
    space: selectSpace,
    valueClasses: false,
    nameFields: { workgroupSize: 'bs', itemsPerThread: 'ipt', lookback: 'lookback', workgroupScan: 'method', scatter: 'scatter' },
    // Rows written before the field existed staged their scatter.
    defaults: { scatter: 'staged' },
    builtin,
    keyInfo: typeInfo,
    problem: (ctx, t, _vb, c) => selectConfigProblem(ctx, countInfo, staged(t), c),
    heuristic: (ctx, t) => selectHeuristic(ctx, countInfo, t.bytes, staged(t)),
  });
}

export const selectFlagTable = compactionTable('selectFlag', 'select-flag', selectFlagTuned);
export const selectPredicateTable = compactionTable('selectPredicate', 'select-predicate', selectPredicateTuned);
export const selectPredicatedFlagTable = compactionTable('selectPredicatedFlag', 'select-predicated-flag', selectPredicatedFlagTuned);
export const selectUniqueTable = compactionTable('selectUnique', 'select-unique', selectUniqueTuned);
export const selectUniqueByKeyTable = compactionTable('selectUniqueByKey', 'select-unique-by-key', selectUniqueByKeyTuned, 'u32', true);
export const partitionFlagTable = compactionTable('partitionFlag', 'partition-flag', partitionFlagTuned);
export const partitionPredicateTable = compactionTable('partitionPredicate', 'partition-predicate', partitionPredicateTuned);
export const partitionTwoWayFlagTable = compactionTable('partitionTwoWayFlag', 'partition-two-way-flag', partitionTwoWayFlagTuned);
export const partitionTwoWayPredicateTable = compactionTable('partitionTwoWayPredicate', 'partition-two-way-predicate', partitionTwoWayPredicateTuned);
export const partitionThreeWayTable = compactionTable('partitionThreeWay', 'partition-three-way', partitionThreeWayTuned, 'u64');

export const COMPACTION_TABLES = [
  selectFlagTable, selectPredicateTable, selectPredicatedFlagTable, selectUniqueTable, selectUniqueByKeyTable,
  partitionFlagTable, partitionPredicateTable, partitionTwoWayFlagTable, partitionTwoWayPredicateTable, partitionThreeWayTable,
] as const;
