import { typeInfo } from '../../wgsl/types.js';
import { type ConfigTable, defineTable } from '../spec.js';
import { type TunedEntry } from '../../config/types.js';
import { scanByKeyTuned } from './tuned/scan-by-key.js';
import { byKeyConfigProblem, byKeyHeuristic, type ByKeyConfig, byKeySpace } from './config.js';

/** Benchmark-name abbreviations of the engine's fields (the reductions' tables add theirs). */
export const BYKEY_NAME_FIELDS = { workgroupSize: 'bs', itemsPerThread: 'ipt', lookback: 'lookback', workgroupScan: 'method' } as const;

/**
 * The scan by key's table, keyed by the key type and the value's size, as rocPRIM keys
 * scan_by_key.
 */
function byKeyTable<N extends string>(name: N, fileName: string, builtin: readonly TunedEntry<ByKeyConfig>[]): ConfigTable<ByKeyConfig, N> {
  return defineTable<ByKeyConfig, N>({
    name, fileName, tunedModule: `device/scan-by-key/tuned/${fileName}`, exportName: `${name}Tuned`, configType: 'ByKeyConfig', configModule: 'device/scan-by-key/config.js',
    space: byKeySpace,
    valueClasses: true,
    nameFields: BYKEY_NAME_FIELDS,
    builtin,
    keyInfo: typeInfo,
    problem: (ctx, _t, vb, c) => byKeyConfigProblem(ctx, vb || 4, c),
    heuristic: (ctx, t, vb) => byKeyHeuristic(ctx, t.bytes, vb || 4),
  });
}

export const scanByKeyTable = byKeyTable('scanByKey', 'scan-by-key', scanByKeyTuned);
