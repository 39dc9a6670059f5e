// Host side of one merge pass (the device merge's one, each merge pass of both sorts): the
// partition kernel, then the merge tile kernel reading its bounds, through one uniform.
import { type DeviceContext } from '../../runtime/context.js';
import { ceilDiv } from '../../runtime/dispatch.js';
import { type Kernel } from '../../runtime/kernel.js';
import { type TypeInfo } from '../../wgsl/types.js';
import { type MergeTileKernelOptions, mergePartitionKernel, mergeTileKernel, PARTITION_WORKGROUP, partitionLanesLog2 } from './kernel.js';

export interface MergePipelines {
  readonly tile: number;
  readonly partition: Kernel;
  readonly partitionPipeline: GPUComputePipeline;
  /** The tile kernel that takes a tile a workgroup. */
  readonly merge: Kernel;
  readonly mergePipeline: GPUComputePipeline;
  /** Where the config caps the workgroups (`MergeConfig.maxWorkgroups`): the cap and the tile kernel that loops over tiles. */
  readonly looping?: { readonly maxWorkgroups: number; readonly merge: Kernel; readonly mergePipeline: GPUComputePipeline };
  /** Where the config lets tiles share their search (`MergeConfig.partitionLanes`): the most a tile and that partition kernel. */
  readonly cooperative?: { readonly maxLanes: number; readonly partition: Kernel; readonly partitionPipeline: GPUComputePipeline };
}

/** What `mergePipelines` takes: the tile kernel's options and the config's workgroup cap and partition lanes. */
export type MergePipelineOptions = Omit<MergeTileKernelOptions, 'pipelined'> & { readonly maxWorkgroups?: number; readonly partitionLanes?: number };

/**
 * Compiles a merge's kernels: the partition, the tile kernel that takes a tile a workgroup and,
 * where the config caps the workgroups, the one that loops over tiles (a pass with no more
 * tiles than the cap takes the first: a loop of one tile would load it twice).
 */
export async function mergePipelines(ctx: DeviceContext, o: MergePipelineOptions): Promise<MergePipelines> {
  const { maxWorkgroups = 0, partitionLanes = 1, ...kernel } = o;
  const partition = mergePartitionKernel({ ...kernel, cooperative: false });
  const cooperative = partitionLanes > 1 ? mergePartitionKernel({ ...kernel, cooperative: true }) : undefined;
  const merge = mergeTileKernel({ ...kernel, pipelined: false });
  const looping = maxWorkgroups > 0 ? mergeTileKernel({ ...kernel, pipelined: true }) : undefined;
  const pipeline = (k: Kernel | undefined): Promise<GPUComputePipeline | undefined> => (k ? ctx.pipeline(k) : Promise.resolve(undefined));
  const [partitionPipeline, mergePipeline, loopingPipeline, cooperativePipeline] = await Promise.all([ctx.pipeline(partition), ctx.pipeline(merge), pipeline(looping), pipeline(cooperative)]);
  return {
    tile: o.workgroupSize * o.itemsPerThread, partition, partitionPipeline, merge, mergePipeline,
    ...(looping && loopingPipeline ? { looping: { maxWorkgroups, merge: looping, mergePipeline: loopingPipeline } } : {}),
    ...(cooperative && cooperativePipeline ? { cooperative: { maxLanes: partitionLanes, partition: cooperative, partitionPipeline: cooperativePipeline } } : {}),
  };
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
  const loop = m.looping && tiles > m.looping.maxWorkgroups ? m.looping : undefined;
  const groups = loop ? loop.maxWorkgroups : tiles;
  const merge = loop ?? m;
  const lanesLog2 = m.cooperative ? partitionLanesLog2(tiles, m.cooperative.maxLanes) : 0;
  const search = m.cooperative && lanesLog2 > 0 ? m.cooperative : m;
  const params = { buffer: ctx.uniform(new Uint32Array([p.count, p.run, tilesPerPair, p.mask[0], p.mask[1], p.flip, m.tile, tiles, groups, lanesLog2])) };
  const part = { buffer: p.partition, offset: 0, size: tiles * 4 };
  // The partition reads only the keys: the inputs' key bindings (one buffer for runs, two for two inputs).
  const keyInputs = p.io.slice(0, p.source === 'two' ? 2 : 1);
  ctx.dispatch(encoder, search.partition.label, search.partitionPipeline, ctx.bindGroup(search.partitionPipeline, search.partition.key, [params, ...keyInputs, part]), ceilDiv(tiles, PARTITION_WORKGROUP >> lanesLog2));
  ctx.dispatch(encoder, merge.merge.label, merge.mergePipeline, ctx.bindGroup(merge.mergePipeline, merge.merge.key, [params, ...p.io, part]), groups);
}
