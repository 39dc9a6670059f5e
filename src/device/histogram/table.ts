import { type ElementType, typeClassOf, typeInfo, type TypeClass } from '../../wgsl/types.js';
import { type ConfigTable, defineTable } from '../spec.js';
import { type HistogramConfig, histogramConfigProblem, histogramHeuristic, histogramSpace } from './config.js';
import { type SampleInfo } from './samples.js';
import { histogramTuned } from './tuned/histogram.js';

/**
 * rocPRIM's `histogram` config: one table for every histogram call (even and range bins, one
 * channel or interleaved pixels), its rows keyed as rocPRIM's by the sample (integer or float,
 * its size: 1 for u8, 2 for u16 and f16) and the pixel's channels (`histogramClass`).
 */
export const histogramTable: ConfigTable<HistogramConfig, 'histogram'> = defineTable<HistogramConfig, 'histogram'>({
  name: 'histogram', fileName: 'histogram', tunedModule: 'device/histogram/tuned/histogram', exportName: 'histogramTuned', configType: 'HistogramConfig', configModule: 'device/histogram/config.js',
  space: histogramSpace,
  valueClasses: false,
  nameFields: { workgroupSize: 'bs', itemsPerThread: 'ipt', privatization: 'priv', copies: 'copies', gridSize: 'grid' },
  builtin: histogramTuned,
  replaces: {
    histogramEven: 'one channel: typeClass { float, bytes: the sample\'s size, channels: 1 }',
    histogramRange: 'one channel: typeClass { float, bytes: the sample\'s size, channels: 1 }',
    multiHistogram: 'pixels: typeClass { float, bytes: the sample\'s size (1 for RGBA8), channels }',
  },
  keyInfo: typeInfo,
  // A call named by its type alone (`selectedConfig('histogram', 'f32')`): samples of that type, one channel.
  callClass: (type) => pixelsOf(type, 1),
  problem: (ctx, t, _vb, c) => (t.is64 ? `histograms take no ${t.name} samples` : histogramConfigProblem(ctx, c)),
  heuristic: (ctx, t) => histogramHeuristic(ctx, t),
});

/** The class a histogram call's rows are matched on: its sample's kind and size, and its channels. */
export const histogramClass = (s: Pick<SampleInfo, 'isFloat' | 'bytes'>, channels: number): TypeClass => ({ float: s.isFloat, bytes: s.bytes, channels });

/** The class of pixels of `channels` samples of an element type (any type: 64-bit ones have no rows). */
export const pixelsOf = (type: ElementType, channels: number): TypeClass => ({ ...typeClassOf(type), channels });
