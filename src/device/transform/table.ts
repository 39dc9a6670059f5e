import { typeInfo } from '../../wgsl/types.js';
import { transformTuned } from './tuned.js';
import { defineTable } from '../spec.js';
import { type TransformConfig, transformConfigProblem, transformHeuristic, transformSpace } from './config.js';

export const transformTable = defineTable<TransformConfig, 'transform'>({
  name: 'transform', fileName: 'transform', tunedModule: 'device/transform/tuned', exportName: 'transformTuned', configType: 'TransformConfig', configModule: 'device/transform/config.js',
  space: transformSpace,
  valueClasses: false,
  nameFields: { workgroupSize: 'bs', itemsPerThread: 'ipt' },
  builtin: transformTuned,
  keyInfo: typeInfo,
  problem: (ctx, _t, _vb, c) => transformConfigProblem(ctx, c),
  heuristic: () => transformHeuristic(),
});
