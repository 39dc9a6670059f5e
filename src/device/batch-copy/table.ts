import { typeInfo } from '../../wgsl/types.js';
import { defineTable } from '../spec.js';
import { type BatchCopyConfig, batchCopyHeuristic, batchCopyProblem, batchCopySpace } from './config.js';
import { batchMemcpyTuned } from './tuned/batch-memcpy.js';

/**
 * rocPRIM `batch_memcpy`. A call moves bytes and has no element type: it selects the row of
 * `u32` (the benchmark's `u32` is the 4-byte aligned case; `f16` and `u64` time 2- and 8-byte granularity).
 */
export const batchMemcpyTable = defineTable<BatchCopyConfig, 'batchMemcpy'>({
  name: 'batchMemcpy', fileName: 'batch-memcpy', tunedModule: 'device/batch-copy/tuned/batch-memcpy', exportName: 'batchMemcpyTuned',
  configType: 'BatchCopyConfig', configModule: 'device/batch-copy/config.js',
  space: batchCopySpace,
  valueClasses: false,
  nameFields: { workgroupSize: 'bs', lanes: 'lanes', wordsPerLane: 'wpl', workgroups: 'grid' },
  builtin: batchMemcpyTuned,
  keyInfo: typeInfo,
  problem: (ctx, _t, _vb, c) => batchCopyProblem(ctx, c),
  heuristic: (ctx) => batchCopyHeuristic(ctx),
});
