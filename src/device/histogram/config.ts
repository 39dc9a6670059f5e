import { type DeviceContext } from '../../runtime/context.js';
import { type TypeInfo } from '../../wgsl/types.js';
import { launchShapeProblem } from '../common.js';

/**
 * Launch config of the histograms (rocPRIM's `histogram_config`: block size, items per thread,
 * shared histograms, max grid size; CUB's privatization choice).
 */
export interface HistogramConfig {
  readonly workgroupSize: number;
  /**
   * 32-bit words of samples per invocation per tile, a multiple of 4 (one 16-byte load per 4):
   * 4 u8 samples (one RGBA8 pixel), 2 u16 or f16 samples, or one 32-bit sample a word.
   */
  readonly itemsPerThread: number;
  /**
   * Where a workgroup counts: `shared`, a privatized histogram in workgroup memory added to the
   * output once per workgroup (falls back to `global` where the bins do not fit); `global`,
   * atomic adds straight onto the output.
   */
  readonly privatization: 'shared' | 'global';
  /** Copies of the workgroup histogram (invocation i counts into copy i mod copies): less contention on skewed data. */
  readonly copies: number;
  /** Most workgroups launched; each loops over tiles (a persistent grid: fewer flushes of the privatized histogram). */
  readonly gridSize: number;
}

export const histogramSpace = {
  workgroupSize: [64, 128, 256, 512, 1024],
  itemsPerThread: [4, 8, 12, 16, 24, 32],
  privatization: ['shared', 'global'],
  copies: [1, 2, 3, 4],
  gridSize: [64, 256, 512, 1024, 2048, 4096],
} as const;

export function histogramConfigProblem(ctx: DeviceContext, c: HistogramConfig): string | undefined {
  if (c.privatization !== 'shared' && c.privatization !== 'global') return `unknown privatization "${String(c.privatization)}"`;
  if (!Number.isInteger(c.copies) || c.copies < 1 || c.copies > 8) return `copies ${c.copies} is not an integer in [1, 8]`;
  if (!Number.isInteger(c.gridSize) || c.gridSize < 1 || c.gridSize > ctx.limits.maxComputeWorkgroupsPerDimension) {
    return `gridSize ${c.gridSize} is not an integer in [1, ${ctx.limits.maxComputeWorkgroupsPerDimension}]`;
  }
  return launchShapeProblem(ctx, c);
}

/**
 * 256 invocations of 8 words (2 vector loads), privatized in workgroup memory with 2 copies,
 * 1024 workgroups at most (rocPRIM's max_grid_size): about 8 resident a multiprocessor on a
 * large GPU, few enough that flushing the bins stays negligible.
 */
export function histogramHeuristic(_ctx: DeviceContext, _sample: TypeInfo): HistogramConfig {
  return { workgroupSize: 256, itemsPerThread: 8, privatization: 'shared', copies: 2, gridSize: 1024 };
}
