import { type TypeInfo, typeInfo } from '../../wgsl/types.js';
import { type ConfigTable, defineTable } from '../spec.js';
import { type TunedEntry } from '../../config/types.js';
import { BYKEY_NAME_FIELDS } from '../scan-by-key/table.js';
import { reduceByKeyTuned } from './tuned/reduce-by-key.js';
import { runLengthEncodeTuned } from './tuned/run-length-encode.js';
import { runLengthEncodeNonTrivialRunsTuned } from './tuned/run-length-encode-non-trivial-runs.js';
import { byKeyReduceHeuristic, byKeyReduceProblem, type ByKeyReduceConfig, byKeyReduceSpace, type RunBytes } from './config.js';

/**
 * A table of the by-key reductions, keyed by the key type and (where `valueClasses`) the value's
 * size; `run`: what its tiles stage per run, from the key type and value size.
 */
function reductionTable<N extends string>(name: N, fileName: string, builtin: readonly TunedEntry<ByKeyReduceConfig>[], valueClasses: boolean, run: (key: TypeInfo, valueBytes: number) => RunBytes): ConfigTable<ByKeyReduceConfig, N> {
  return defineTable<ByKeyReduceConfig, N>({
    name, fileName, tunedModule: `device/reduce-by-key/tuned/${fileName}`, exportName: `${name}Tuned`, configType: 'ByKeyReduceConfig', configModule: 'device/reduce-by-key/config.js',
    space: byKeyReduceSpace,
    valueClasses,
    nameFields: { ...BYKEY_NAME_FIELDS, scatter: 'scatter' },
    // Rows written before the field existed stored directly (no tuned shape left room to stage),
    // and names leave the default out, so they read as before.
    defaults: { scatter: 'direct' },
    nameOmits: { scatter: 'direct' },
    builtin,
    keyInfo: typeInfo,
    problem: (ctx, t, vb, c) => byKeyReduceProblem(ctx, vb || 4, c, run(t, vb || 4)),
    heuristic: (ctx, t, vb) => byKeyReduceHeuristic(ctx, t.bytes, vb || 4),
  });
}

/**
 * rocPRIM's three tables: reduce by key (key class and value size), and run-length encode and
 * its non-trivial runs each on their own rows (their counts are u32 values), though both run the
 * by-key engine reduce by key runs.
 */
export const reduceByKeyTable = reductionTable('reduceByKey', 'reduce-by-key', reduceByKeyTuned, true, (k, vb) => ({ head: k.bytes, tail: vb }));
export const runLengthEncodeTable = reductionTable('runLengthEncode', 'run-length-encode', runLengthEncodeTuned, false, (k) => ({ head: k.bytes, tail: 4 }));
export const runLengthEncodeNonTrivialRunsTable = reductionTable('runLengthEncodeNonTrivialRuns', 'run-length-encode-non-trivial-runs', runLengthEncodeNonTrivialRunsTuned, false, () => ({ head: 4, tail: 4 }));
