import { typeInfo } from '../../wgsl/types.js';
import { defineTable } from '../spec.js';
import { type TopKConfig, topKConfigProblem, topKHeuristic, topKSpace } from './config.js';
import { topKTuned } from './tuned/top-k.js';

/** The radix select's table (rocPRIM's `topk_air`); nth element and partial sort run on it too. */
export const topKTable = defineTable<TopKConfig, 'topK'>({
  name: 'topK', fileName: 'top-k', tunedModule: 'device/top-k/tuned/top-k', exportName: 'topKTuned', configType: 'TopKConfig', configModule: 'device/top-k/config.js',
  space: topKSpace,
  valueClasses: false,
  nameFields: { workgroupSize: 'bs', itemsPerThread: 'ipt', radixBits: 'bits', gridSize: 'grid', candidateDivisor: 'cand' },
  builtin: topKTuned,
  keyInfo: typeInfo,
  problem: (ctx, _t, _vb, c) => topKConfigProblem(ctx, c),
  heuristic: (ctx) => topKHeuristic(ctx),
});
