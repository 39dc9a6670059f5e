import { type DeviceContext } from '../../runtime/context.js';
import { isSoftwareAdapter } from '../../runtime/target.js';
import { type TypeInfo } from '../../wgsl/types.js';
import { wordElements } from '../../wgsl/views.js';
import { launchShapeProblem } from '../common.js';

/**
 * Launch config of the early-exit scanner behind the find family (rocPRIM's `{block, ipt}` of
 * adjacent_find, find_first_of and search_n, plus the persistent grid CUB's FindIf has).
 */
export interface FindConfig {
  readonly workgroupSize: number;
  /**
   * Candidate positions per invocation per tile, all loaded at once as 16-byte words: a multiple
   * of the elements a word holds (4; 8 of a 2-byte type, 2 of an 8-byte one).
   */
  readonly itemsPerThread: number;
  /**
   * Workgroups launched (at most one per tile): each takes tiles (as `assignment` says) until
   * the tiles run out or a match lies before its next tile. Changes the launch, not the kernel.
   */
  readonly grid: number;
  /**
   * How a workgroup finds its next tile: `ticket`, from an atomic tile counter (tiles in order
   * whatever runs when: early exits stay early on any device); `stride`, tiles w, w + grid, ...
   * (no counter, which every workgroup hits every tile: faster where the whole grid runs at
   * once, but a workgroup that starts late leaves its tiles, early ones among them, to the end).
   */
  readonly assignment: 'ticket' | 'stride';
}

export const findSpace = {
  workgroupSize: [64, 128, 256, 512, 1024],
  itemsPerThread: [4, 8, 16, 32, 64],
  grid: [16, 64, 128, 256, 512, 1024, 2048, 4096],
  assignment: ['ticket', 'stride'],
} as const;

export function findConfigProblem(ctx: DeviceContext, t: TypeInfo, c: FindConfig): string | undefined {
  const shape = launchShapeProblem(ctx, c);
  if (shape) return shape;
  if (c.itemsPerThread % wordElements(t) !== 0) return `itemsPerThread ${c.itemsPerThread} is not a multiple of ${wordElements(t)} (the ${t.name} elements of a 16-byte load)`;
  if (!Number.isInteger(c.grid) || c.grid < 1 || c.grid > ctx.limits.maxComputeWorkgroupsPerDimension) {
    return `grid ${String(c.grid)} is not an integer in [1, ${ctx.limits.maxComputeWorkgroupsPerDimension}]`;
  }
  if (c.assignment !== 'ticket' && c.assignment !== 'stride') return `unknown assignment "${String(c.assignment)}" (ticket or stride)`;
  return undefined;
}

/**
 * 256 invocations with four 16-byte loads each in flight (16 items; 32 of a 2-byte type, 8 of an
 * 8-byte one): 16 KB tiles; 512 workgroups on a GPU, about 4 of 256 per SM of the H200 (132 SMs),
 * 64 KB of loads in flight an SM, several times what its share of the bandwidth needs, while
 * every tile in flight when the match is found is read for nothing (a larger grid reads more
 * past an early match); few on a CPU adapter, whose workgroups run a few at a time. Tiles by
 * ticket: how much of a grid an unknown GPU runs at once is not known, and only the counter keeps
 * early exits early where it runs a part.
 */
export function findHeuristic(ctx: DeviceContext, t: TypeInfo): FindConfig {
  return { workgroupSize: 256, itemsPerThread: 4 * wordElements(t), grid: isSoftwareAdapter(ctx.target) ? 64 : 512, assignment: 'ticket' };
}
