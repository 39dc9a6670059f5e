import { typeInfo } from '../../wgsl/types.js';
import { type ConfigTable, defineTable } from '../spec.js';
import { type TunedEntry } from '../../config/types.js';
import { adjacentFindTuned } from './tuned/adjacent-find.js';
import { findFirstOfTuned } from './tuned/find-first-of.js';
import { searchTuned } from './tuned/search.js';
import { searchNTuned } from './tuned/search-n.js';
import { type FindConfig, findConfigProblem, findHeuristic, findSpace } from './config.js';

/**
 * One scanner, a table per rocPRIM-tuned algorithm (`adjacent_find`, `find_first_of`,
 * `search_n`): what a candidate position costs differs (one neighbour, every target, a run).
 * rocPRIM leaves `search` and `find_end` untuned; here they share a fourth table, `search`,
 * tuned on both: find_end is search scanning tiles from the end.
 */
function findTable<N extends string>(name: N, fileName: string, builtin: readonly TunedEntry<FindConfig>[]): ConfigTable<FindConfig, N> {
  return defineTable<FindConfig, N>({
    name, fileName, tunedModule: `device/find/tuned/${fileName}`, exportName: `${name}Tuned`, configType: 'FindConfig', configModule: 'device/find/config.js',
    space: findSpace,
    valueClasses: false,
    nameFields: { workgroupSize: 'bs', itemsPerThread: 'ipt', grid: 'grid', assignment: 'tiles' },
    nameOmits: { assignment: 'ticket' },
    // Rows written before the field existed took tiles by ticket.
    defaults: { assignment: 'ticket' },
    builtin,
    keyInfo: typeInfo,
    problem: (ctx, t, _vb, c) => findConfigProblem(ctx, t, c),
    heuristic: (ctx, t) => findHeuristic(ctx, t),
  });
}

export const adjacentFindTable = findTable('adjacentFind', 'adjacent-find', adjacentFindTuned);
export const findFirstOfTable = findTable('findFirstOf', 'find-first-of', findFirstOfTuned);
export const searchTable = findTable('search', 'search', searchTuned);
export const searchNTable = findTable('searchN', 'search-n', searchNTuned);

export const FIND_TABLES = [adjacentFindTable, findFirstOfTable, searchTable, searchNTable] as const;
