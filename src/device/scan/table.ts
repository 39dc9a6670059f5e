import { typeInfo } from '../../wgsl/types.js';
import { scanTuned } from './tuned.js';
import { defineTable } from '../spec.js';
import { type ScanConfig, scanConfigProblem, scanHeuristic, scanSpace } from './config.js';

export const scanTable = defineTable<ScanConfig, 'scan'>({
  name: 'scan', fileName: 'scan', tunedModule: 'device/scan/tuned', exportName: 'scanTuned', configType: 'ScanConfig', configModule: 'device/scan/config.js',
  space: scanSpace,
  valueClasses: false,
  nameFields: { workgroupSize: 'bs', itemsPerThread: 'ipt', lookback: 'lookback', workgroupScan: 'method' },
  builtin: scanTuned,
  keyInfo: typeInfo,
  problem: (ctx, t, _vb, c) => scanConfigProblem(ctx, t, c),
  heuristic: (ctx, t) => scanHeuristic(ctx, t),
});
