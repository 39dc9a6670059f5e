import { typeInfo } from '../../wgsl/types.js';
import { defineTable } from '../spec.js';
import { type MergeConfig, mergeConfigProblem, mergeHeuristic, mergeSpace } from './config.js';
import { mergeTuned } from './tuned/merge.js';

/** The device merge of two sorted inputs: rocPRIM's `merge`. Rows by key class and value size. */
export const mergeTable = defineTable<MergeConfig, 'merge'>({
  name: 'merge', fileName: 'merge', tunedModule: 'device/merge/tuned/merge', exportName: 'mergeTuned', configType: 'MergeConfig', configModule: 'device/merge/config.js',
  space: mergeSpace,
  valueClasses: true,
  nameFields: { workgroupSize: 'bs', itemsPerThread: 'ipt' },
  builtin: mergeTuned,
  keyInfo: typeInfo,
  problem: mergeConfigProblem,
  heuristic: mergeHeuristic,
});
