import { typeInfo } from '../../wgsl/types.js';
import { type ConfigTable, defineTable } from '../spec.js';
import { type TunedEntry } from '../../config/types.js';
import { scanByKeyTuned } from './tuned/scan-by-key.js';
import { byKeyConfigProblem, byKeyHeuristic, type ByKeyConfig, byKeySpace } from './config.js';

/**
 * A table of the by-key engine, keyed by the key type and (where `valueClasses`) the value's
 * size, as rocPRIM keys scan_by_key and reduce_by_key. `folder`: the algorithm folder holding
 * the generated module `tuned/<fileName>`.
 */
export function byKeyTable<N extends string>(name: N, folder: string, fileName: string, builtin: readonly TunedEntry<ByKeyConfig>[], valueClasses: boolean): ConfigTable<ByKeyConfig, N> {
  return defineTable<ByKeyConfig, N>({
    name, fileName, tunedModule: `device/${folder}/tuned/${fileName}`, exportName: `${name}Tuned`, configType: 'ByKeyConfig', configModule: 'device/scan-by-key/config.js',
    space: byKeySpace,
    valueClasses,
    nameFields: { workgroupSize: 'bs', itemsPerThread: 'ipt', lookback: 'lookback', workgroupScan: 'method' },
    builtin,
    keyInfo: typeInfo,
    problem: (ctx, _t, vb, c) => byKeyConfigProblem(ctx, vb || 4, c),
    heuristic: (ctx, t, vb) => byKeyHeuristic(ctx, t.bytes, vb || 4),
  });
}

export const scanByKeyTable = byKeyTable('scanByKey', 'scan-by-key', 'scan-by-key', scanByKeyTuned, true);
