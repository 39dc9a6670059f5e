import { typeInfo } from '../../wgsl/types.js';
import { type ConfigTable, defineTable } from '../spec.js';
import { type TunedEntry } from '../../config/types.js';
import { type HistogramConfig, histogramConfigProblem, histogramHeuristic, histogramSpace } from './config.js';
import { histogramEvenTuned } from './tuned/histogram-even.js';
import { histogramRangeTuned } from './tuned/histogram-range.js';
import { multiHistogramTuned } from './tuned/multi-histogram.js';

/**
 * rocPRIM's `histogram` config, one table per call shape: even bins and range bins on one
 * channel (their binning costs differ: a multiply against a binary search), and several
 * channels (RGBA pixels, even or range). Rows are keyed by the sample's word type: u8 and u16
 * samples select the u32 rows.
 */
function histogramTable<N extends string>(name: N, fileName: string, builtin: readonly TunedEntry<HistogramConfig>[]): ConfigTable<HistogramConfig, N> {
  return defineTable<HistogramConfig, N>({
    name, fileName, tunedModule: `device/histogram/tuned/${fileName}`, exportName: `${name}Tuned`, configType: 'HistogramConfig', configModule: 'device/histogram/config.js',
    space: histogramSpace,
    valueClasses: false,
    nameFields: { workgroupSize: 'bs', itemsPerThread: 'ipt', privatization: 'priv', copies: 'copies', gridSize: 'grid' },
    builtin,
    keyInfo: typeInfo,
    problem: (ctx, t, _vb, c) => (t.is64 ? `histograms take no ${t.name} samples` : histogramConfigProblem(ctx, c)),
    heuristic: (ctx, t) => histogramHeuristic(ctx, t),
  });
}

export const histogramEvenTable = histogramTable('histogramEven', 'histogram-even', histogramEvenTuned);
export const histogramRangeTable = histogramTable('histogramRange', 'histogram-range', histogramRangeTuned);
export const multiHistogramTable = histogramTable('multiHistogram', 'multi-histogram', multiHistogramTuned);

export const HISTOGRAM_TABLES = [histogramEvenTable, histogramRangeTable, multiHistogramTable] as const;
