import { typeInfo } from '../../wgsl/types.js';
import { type TunedEntry } from '../../config/types.js';
import { type ConfigTable, defineTable } from '../spec.js';
import { type BinarySearchConfig, binarySearchConfigProblem, binarySearchHeuristic, binarySearchSpace } from './config.js';
import { lowerBoundTuned } from './tuned/lower-bound.js';
import { upperBoundTuned } from './tuned/upper-bound.js';
import { binarySearchTuned } from './tuned/binary-search.js';

/** One kernel, a table per search, as rocPRIM tunes `lower_bound`, `upper_bound` and `binary_search` apart. */
function searchTable<N extends string>(name: N, fileName: string, builtin: readonly TunedEntry<BinarySearchConfig>[]): ConfigTable<BinarySearchConfig, N> {
  return defineTable<BinarySearchConfig, N>({
    name, fileName, tunedModule: `device/binary-search/tuned/${fileName}`, exportName: `${name}Tuned`, configType: 'BinarySearchConfig', configModule: 'device/binary-search/config.js',
    space: binarySearchSpace,
    valueClasses: false,
    nameFields: { workgroupSize: 'bs', needlesPerThread: 'ipt', cacheLevels: 'cache' },
    builtin,
    keyInfo: typeInfo,
    problem: (ctx, t, _vb, c) => binarySearchConfigProblem(ctx, t, c),
    heuristic: (ctx, t) => binarySearchHeuristic(ctx, t),
  });
}

export const lowerBoundTable = searchTable('lowerBound', 'lower-bound', lowerBoundTuned);
export const upperBoundTable = searchTable('upperBound', 'upper-bound', upperBoundTuned);
export const binarySearchTable = searchTable('binarySearch', 'binary-search', binarySearchTuned);
export const SEARCH_TABLES = [lowerBoundTable, upperBoundTable, binarySearchTable] as const;
