import { typeInfo } from '../../wgsl/types.js';
import { reduceTuned } from './tuned.js';
import { defineTable } from '../spec.js';
import { type ReduceConfig, reduceConfigProblem, reduceHeuristic, reduceSpace } from './config.js';

export const reduceTable = defineTable<ReduceConfig, 'reduce'>({
  name: 'reduce', fileName: 'reduce', tunedModule: 'device/reduce/tuned', exportName: 'reduceTuned', configType: 'ReduceConfig', configModule: 'device/reduce/config.js',
  space: reduceSpace,
  valueClasses: false,
  nameFields: { workgroupSize: 'bs', itemsPerThread: 'ipt', maxWorkgroups: 'max_wg', workgroupReduce: 'method' },
  builtin: reduceTuned,
  keyInfo: typeInfo,
  problem: (ctx, t, _vb, c) => reduceConfigProblem(ctx, t, c),
  heuristic: (ctx, t) => reduceHeuristic(ctx, t),
});
