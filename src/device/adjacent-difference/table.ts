import { typeInfo } from '../../wgsl/types.js';
import { type TunedEntry } from '../../config/types.js';
import { type ConfigTable, defineTable } from '../spec.js';
import { type AdjacentDifferenceConfig, adjacentDifferenceHeuristic, adjacentDifferenceProblem, adjacentDifferenceSpace } from './config.js';
import { adjacentDifferenceTuned } from './tuned/adjacent-difference.js';
import { adjacentDifferenceInplaceTuned } from './tuned/adjacent-difference-inplace.js';

function table<N extends string>(name: N, fileName: string, builtin: readonly TunedEntry<AdjacentDifferenceConfig>[]): ConfigTable<AdjacentDifferenceConfig, N> {
  return defineTable<AdjacentDifferenceConfig, N>({
    name, fileName, tunedModule: `device/adjacent-difference/tuned/${fileName}`, exportName: `${name}Tuned`,
    configType: 'AdjacentDifferenceConfig', configModule: 'device/adjacent-difference/config.js',
    space: adjacentDifferenceSpace,
    valueClasses: false,
    nameFields: { workgroupSize: 'bs', itemsPerThread: 'ipt' },
    builtin,
    keyInfo: typeInfo,
    problem: (ctx, t, _vb, c) => adjacentDifferenceProblem(ctx, t, c),
    heuristic: (ctx, t) => adjacentDifferenceHeuristic(ctx, t),
  });
}

/** Out of place (rocPRIM `adjacent_difference`). */
export const adjacentDifferenceTable = table('adjacentDifference', 'adjacent-difference', adjacentDifferenceTuned);
/** In place (rocPRIM `adjacent_difference_inplace`): its own table, as it adds the boundary pre-pass. */
export const adjacentDifferenceInplaceTable = table('adjacentDifferenceInplace', 'adjacent-difference-inplace', adjacentDifferenceInplaceTuned);
