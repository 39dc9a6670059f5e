// Host side of one merge pass (the device merge's one, each merge pass of both sorts): the
// partition kernel, then the merge tile kernel reading its bounds, through one uniform.
import { type DeviceContext } from '../../runtime/context.js';
import { ceilDiv } from '../../runtime/dispatch.js';
import { type Kernel } from '../../runtime/kernel.js';
import { type TypeInfo } from '../../wgsl/types.js';
import { type MergeTileKernelOptions, mergePartitionKernel, mergeTileKernel, PARTITION_WORKGROUP } from './kernel.js';

export interface MergePipelines {
  readonly tile: number;
  readonly partition: Kernel;
  readonly merge: Kernel;
  readonly partitionPipeline: GPUComputePipeline;
  readonly mergePipeline: GPUComputePipeline;
}

/** Compiles a merge's two kernels. */
export async function mergePipelines(ctx: DeviceContext, o: MergeTileKernelOptions): Promise<MergePipelines> {
  const partition = mergePartitionKernel(o);
  const merge = mergeTileKernel(o);
  const [partitionPipeline, mergePipeline] = await Promise.all([ctx.pipeline(partition), ctx.pipeline(merge)]);
  return { tile: o.workgroupSize * o.itemsPerThread, partition, merge, partitionPipeline, mergePipeline };
}

/** Merge tiles of a pass over `count` elements in pairs of runs of `run` (`two`: run = A's count, one pair). */
export function mergePassTiles(count: number, run: number, tile: number, source: 'runs' | 'two'): { tilesPerPair: number; tiles: number } {
  if (source === 'two') {
    const tiles = ceilDiv(count, tile);
    return { tilesPerPair: tiles, tiles };
  }
  const tilesPerPair = ceilDiv(2 * run, tile);
  return { tilesPerPair, tiles: ceilDiv(count, 2 * run) * tilesPerPair };
}

/**
 * The partition scratch of a call's passes (over `count` elements, one pass per run length),
 * sized for the largest (one u32 per merge tile) and taken before anything is recorded; the
 * passes reuse it one after another.
 */
export function mergePartitionScratch(ctx: DeviceContext, m: MergePipelines, count: number, runs: readonly number[], source: 'runs' | 'two'): GPUBuffer {
  return ctx.scratch('merge.partition', 4 * Math.max(...runs.map((run) => mergePassTiles(count, run, m.tile, source).tiles)));
}

/** The bit order's mask of every bit of a key (16-bit keys: the low half). */
export const wholeKeyMask = (t: TypeInfo): [number, number] => (t.bytes === 2 ? [0xffff, 0] : t.bytes === 8 ? [0xffffffff, 0xffffffff] : [0xffffffff, 0]);

export interface MergePass {
  readonly count: number;
  readonly run: number;
  readonly source: 'runs' | 'two';
  /** The bit order's mask words and flip (a comparison's: anything). */
  readonly mask: readonly [number, number];
  readonly flip: number;
  /** The merge kernel's bindings after its uniform (inputs, outputs). */
  readonly io: readonly GPUBufferBinding[];
  /** `mergePartitionScratch` for at least this pass's tiles. */
  readonly partition: GPUBuffer;
}

/** Records one merge pass: partition, then merge. */
export function recordMergePass(ctx: DeviceContext, encoder: GPUCommandEncoder, m: MergePipelines, p: MergePass): void {
  const { tilesPerPair, tiles } = mergePassTiles(p.count, p.run, m.tile, p.source);
  const params = { buffer: ctx.uniform(new Uint32Array([p.count, p.run, tilesPerPair, p.mask[0], p.mask[1], p.flip, m.tile, tiles])) };
  const part = { buffer: p.partition, offset: 0, size: tiles * 4 };
  // The partition reads only the keys: the inputs' key bindings (one buffer for runs, two for two inputs).
  const keyInputs = p.io.slice(0, p.source === 'two' ? 2 : 1);
  ctx.dispatch(encoder, m.partition.label, m.partitionPipeline, ctx.bindGroup(m.partitionPipeline, m.partition.key, [params, ...keyInputs, part]), ceilDiv(tiles, PARTITION_WORKGROUP));
  ctx.dispatch(encoder, m.merge.label, m.mergePipeline, ctx.bindGroup(m.mergePipeline, m.merge.key, [params, ...p.io, part]), tiles);
}
