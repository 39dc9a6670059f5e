import { typeInfo } from '../../wgsl/types.js';
import { type ConfigTable, defineTable } from '../spec.js';
import { type TopKConfig, topKConfigProblem, topKHeuristic, topKSpace } from './config.js';
import { topKTuned } from './tuned/top-k.js';
import { nthElementTuned } from './tuned/nth-element.js';

/** What the two tables share: one config, one space. */
const fields = {
  space: topKSpace,
  valueClasses: false,
  nameFields: { workgroupSize: 'bs', itemsPerThread: 'ipt', radixBits: 'bits', gridSize: 'grid', candidateDivisor: 'cand' },
  keyInfo: typeInfo,
  problem: (ctx, _t, _vb, c) => topKConfigProblem(ctx, c),
  heuristic: (ctx) => topKHeuristic(ctx),
} as const satisfies Partial<ConfigTable<TopKConfig>>;

/** The radix select's table for top-k (rocPRIM's `topk_air`). */
export const topKTable = defineTable<TopKConfig, 'topK'>({
  name: 'topK', fileName: 'top-k', tunedModule: 'device/top-k/tuned/top-k', exportName: 'topKTuned', configType: 'TopKConfig', configModule: 'device/top-k/config.js',
  ...fields,
  builtin: topKTuned,
});

/**
 * nth element's and partial sort's (rocPRIM's `nth_element_config`, which its partial sort also
 * takes): the same select, timed where it selects half the keys. Where it has no row, calls take
 * topK's selection (its row, else its heuristic), so they keep topK's tuning until they have their own.
 */
export const nthElementTable = defineTable<TopKConfig, 'nthElement'>({
  name: 'nthElement', fileName: 'nth-element', tunedModule: 'device/top-k/tuned/nth-element', exportName: 'nthElementTuned', configType: 'TopKConfig', configModule: 'device/top-k/config.js',
  ...fields,
  builtin: nthElementTuned,
  fallback: topKTable,
});
