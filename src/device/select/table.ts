import { type TypeInfo, typeInfo } from '../../wgsl/types.js';
import { type ConfigTable, defineTable } from '../spec.js';
import { type TunedEntry } from '../../config/types.js';
import { type SelectConfig, selectConfigProblem, selectHeuristic, selectSpace } from './config.js';

/**
 * One engine, a table per sub-algorithm, as rocPRIM tunes them (its config headers
 * `select_flag`, ..., `partition_three_way`): the flag source and the output layout change
 * what a tile does, so each is tuned on its own.
 */
function compactionTable<N extends string>(name: N, fileName: string, counts: 'u32' | 'u64', withIndex = false, builtin: readonly TunedEntry<SelectConfig>[] = []): ConfigTable<SelectConfig, N> {
  const countInfo = typeInfo(counts);
  const staged = (t: TypeInfo): number => t.bytes + (withIndex ? 4 : 0);
  return defineTable<SelectConfig, N>({
    name, fileName, exportName: `${name}Tuned`, configType: 'SelectConfig', configModule: 'device/select/config.js',
    space: selectSpace,
    valueClasses: false,
    nameFields: { workgroupSize: 'bs', itemsPerThread: 'ipt', lookback: 'lookback', workgroupScan: 'method' },
    builtin,
    keyInfo: typeInfo,
    problem: (ctx, t, _vb, c) => selectConfigProblem(ctx, countInfo, staged(t), c),
    heuristic: (ctx, t) => selectHeuristic(ctx, countInfo, staged(t)),
  });
}

export const selectFlagTable = compactionTable('selectFlag', 'select-flag', 'u32');
export const selectPredicateTable = compactionTable('selectPredicate', 'select-predicate', 'u32');
export const selectPredicatedFlagTable = compactionTable('selectPredicatedFlag', 'select-predicated-flag', 'u32');
export const selectUniqueTable = compactionTable('selectUnique', 'select-unique', 'u32');
export const selectUniqueByKeyTable = compactionTable('selectUniqueByKey', 'select-unique-by-key', 'u32', true);
export const partitionFlagTable = compactionTable('partitionFlag', 'partition-flag', 'u32');
export const partitionPredicateTable = compactionTable('partitionPredicate', 'partition-predicate', 'u32');
export const partitionTwoWayFlagTable = compactionTable('partitionTwoWayFlag', 'partition-two-way-flag', 'u32');
export const partitionTwoWayPredicateTable = compactionTable('partitionTwoWayPredicate', 'partition-two-way-predicate', 'u32');
export const partitionThreeWayTable = compactionTable('partitionThreeWay', 'partition-three-way', 'u64');

export const COMPACTION_TABLES = [
  selectFlagTable, selectPredicateTable, selectPredicatedFlagTable, selectUniqueTable, selectUniqueByKeyTable,
  partitionFlagTable, partitionPredicateTable, partitionTwoWayFlagTable, partitionTwoWayPredicateTable, partitionThreeWayTable,
] as const;
