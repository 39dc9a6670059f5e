// Grouping the segments by length before the sort (rocPRIM's and CUB's partition of segments):
// each segment's clamped bounds, partitioned by the compaction engine into those longer than
// the subgroup sorts take (a workgroup each, first) and the tiny ones (several a workgroup),
// and the sort's grid computed on the GPU from the partition's count.
import { type DeviceContext } from '../../runtime/context.js';
import { ceilDiv } from '../../runtime/dispatch.js';
import { fail } from '../../runtime/errors.js';
import { type Kernel, LINEAR_WORKGROUP_ID, paramsStruct } from '../../runtime/kernel.js';
import { prepareCompaction, type CompactionTables } from '../select/compaction.js';
import { partitionPredicateTable, selectPredicateTable } from '../select/table.js';
import { SEGMENT_BOUNDS_FN } from './access.js';

/** WGSL \`grid_for(n, max_dim)\`: the (x, y) grid of n workgroups, as \`gridFor\` splits it. */
export const GRID_FOR_FN = `fn grid_for(n: u32, max_dim: u32) -> vec2<u32> {
  if (n <= max_dim) { return vec2<u32>(n, 1u); }
  let y = (n + max_dim - 1u) / max_dim;
  return vec2<u32>((n + y - 1u) / y, y);
}`;

/** Byte of the grouping's grid buffer where the longer segments' launch finds its grid. */
export const LONGER_GRID = 256;

export const SEGMENT_BOUNDS_PARAMS = ['count', 'num_segments', 'end_shift'] as const;
export const GROUPED_GRID_PARAMS = ['num_segments', 'spw', 'max_dim'] as const;

/** One invocation a segment: `bounds[s]` = [begin, end) of segment s clamped to [0, count) (an end before its begin: empty). */
export function segmentBoundsKernel(): Kernel {
  const code = `${paramsStruct(SEGMENT_BOUNDS_PARAMS)}
@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read> begins: array<u32>;
@group(0) @binding(2) var<storage, read> ends: array<u32>;
@group(0) @binding(3) var<storage, read_write> bounds: array<vec2<u32>>;
${SEGMENT_BOUNDS_FN}

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let s = (${LINEAR_WORKGROUP_ID}) * 256u + lid;
  if (s >= P.num_segments) { return; }
  bounds[s] = segment_bounds(s);
}
`;
  return { key: 'segmented-radix-sort.bounds', label: 'wgprim.segmentedRadixSort.bounds', code, bindings: ['uniform', 'read-only-storage', 'read-only-storage', 'storage'], workgroupSize: 256 };
}

/**
 * One invocation: the sort's grid (x, y, 1) for `counts[0]` longer segments, a workgroup each,
 * and the rest `spw` a workgroup, 2-D past `max_dim` as `gridFor` splits it.
 */
export function groupedGridKernel(): Kernel {
  const code = `${paramsStruct(GROUPED_GRID_PARAMS)}
@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read> counts: array<u32>;
@group(0) @binding(2) var<storage, read_write> grid: array<u32>;
${GRID_FOR_FN}

@compute @workgroup_size(1)
fn main() {
  let wide = counts[0];
  // spw 0: the longer segments' own launch, a workgroup each and nothing more.
  var n = wide;
  if (P.spw > 0u) { n += (P.num_segments - wide + P.spw - 1u) / P.spw; }
  let g = grid_for(n, P.max_dim);
  grid[0] = g.x;
  grid[1] = g.y;
  grid[2] = 1u;
}
`;
  return { key: 'segmented-radix-sort.grid', label: 'wgprim.segmentedRadixSort.grid', code, bindings: ['uniform', 'read-only-storage', 'storage'], workgroupSize: 1 };
}

export interface SegmentGroups {
  /** Records the bounds, their partition and the grid. */
  readonly record: (encoder: GPUCommandEncoder) => void;
  /** Every segment's [begin, end): the longer ones first, then the tiny ones. */
  readonly list: GPUBufferBinding;
  /** One u32: how many come first. */
  readonly counts: GPUBufferBinding;
  /** The sort's indirect grid. */
  readonly grid: GPUBuffer;
  /** With `huge`: the bounds of the segments longer than it, and their number (one u32). */
  readonly huge?: GPUBufferBinding;
  readonly found?: GPUBufferBinding;
  /** With `short`: the bounds of the segments longer than it, their number, and their launch's grid at byte LONGER_GRID of `grid`. */
  readonly longer?: GPUBufferBinding;
  readonly longerCount?: GPUBufferBinding;
}

export interface GroupingArgs {
  readonly count: number;
  readonly segments: number;
  readonly begins: GPUBufferBinding;
  readonly ends: GPUBufferBinding;
  /** The ends are the begins shifted by one. */
  readonly endsOmitted: boolean;
  /** Segments of at most this many keys are tiny. */
  readonly tiny: number;
  /** Tiny segments a workgroup. */
  readonly segmentsPerWorkgroup: number;
  /** Also select the segments longer than this many keys (the huge ones), or undefined. */
  readonly huge?: number;
  /**
   * A second tile of this many keys: the partition's front holds the segments longer than
   * `tiny` up to this, and those longer are selected into a list of their own; or undefined.
   */
  readonly short?: number;
}

/** Compiles the grouping's pipelines (and the partition's); the result records it. `segments` > 0. */
export async function prepareGrouping(ctx: DeviceContext, partitionTables: CompactionTables, selectTables: CompactionTables, a: GroupingArgs): Promise<SegmentGroups> {
  const maxDim = ctx.limits.maxComputeWorkgroupsPerDimension;
  const boundsGroups = ceilDiv(a.segments, 256);
  if (a.segments > maxDim * maxDim) {
    fail('limit-exceeded', `segmented radix sort: ${a.segments} segments grouped by length need up to ${a.segments} workgroups, over this device's ${maxDim}^2 workgroups per dispatch`);
  }
  // The caller groups only where a list of bounds fits one binding.
  const listBytes = a.segments * 8;
  const bounds = ctx.scratch('segmentedRadixSort.bounds', listBytes);
  const list = ctx.scratch('segmentedRadixSort.groups', listBytes);
  const counts = ctx.scratch('segmentedRadixSort.groupCounts', 4);
  // The longer segments' grid at byte 256: storage bindings start at multiples of 256.
  const grid = ctx.scratch('segmentedRadixSort.grid', LONGER_GRID + 12, GPUBufferUsage.INDIRECT);
  const longer = a.short === undefined ? undefined : ctx.scratch('segmentedRadixSort.longer', listBytes);
  const longerCount = a.short === undefined ? undefined : ctx.scratch('segmentedRadixSort.longerCount', 4);
  const length = '(a.y - a.x)';
  const boundsKernel = segmentBoundsKernel();
  const gridKernel = groupedGridKernel();
  const hugeList = a.huge === undefined ? undefined : ctx.scratch('segmentedRadixSort.huge', listBytes);
  const found = a.huge === undefined ? undefined : ctx.scratch('segmentedRadixSort.hugeFound', 4);
  const [boundsPipeline, gridPipeline, partition, selectHuge, selectLonger] = await Promise.all([
    ctx.pipeline(boundsKernel),
    ctx.pipeline(gridKernel),
    prepareCompaction(ctx, partitionTables, {
      what: 'segmented radix sort (grouping segments by length)', table: partitionPredicateTable, input: bounds, count: a.segments, type: 'u64',
      source: 'predicate', layout: 'partition', predicate: `${length} > ${a.tiny}u${a.short === undefined ? '' : ` && ${length} <= ${a.short}u`}`,
      outputs: [['groups', list]], counts, countsName: 'group counts',
    }),
    hugeList && found
      ? prepareCompaction(ctx, selectTables, {
        what: 'segmented radix sort (selecting huge segments)', table: selectPredicateTable, input: bounds, count: a.segments, type: 'u64',
        source: 'predicate', layout: 'select', predicate: `${length} > ${a.huge}u`, outputs: [['huge', hugeList]], counts: found, countsName: 'huge count',
      })
      : undefined,
    longer && longerCount
      ? prepareCompaction(ctx, selectTables, {
        what: 'segmented radix sort (selecting segments past the short tile)', table: selectPredicateTable, input: bounds, count: a.segments, type: 'u64',
        source: 'predicate', layout: 'select', predicate: `${length} > ${a.short}u`, outputs: [['longer', longer]], counts: longerCount, countsName: 'longer count',
      })
      : undefined,
  ]);
  const bind = (buffer: GPUBuffer, size: number): GPUBufferBinding => ({ buffer, offset: 0, size });
  return {
    list: bind(list, listBytes),
    counts: bind(counts, 4),
    grid,
    ...(hugeList && found ? { huge: bind(hugeList, listBytes), found: bind(found, 4) } : {}),
    ...(longer && longerCount ? { longer: bind(longer, listBytes), longerCount: bind(longerCount, 4) } : {}),
    record: (encoder) => {
      const boundsParams = { buffer: ctx.uniform(new Uint32Array([a.count, a.segments, a.endsOmitted ? 1 : 0])) };
      ctx.dispatch(encoder, boundsKernel.label, boundsPipeline, ctx.bindGroup(boundsPipeline, boundsKernel.key, [boundsParams, a.begins, a.ends, bind(bounds, listBytes)]), boundsGroups);
      partition(encoder);
      selectHuge?.(encoder);
      selectLonger?.(encoder);
      const gridParams = { buffer: ctx.uniform(new Uint32Array([a.segments, a.segmentsPerWorkgroup, maxDim])) };
      ctx.dispatch(encoder, gridKernel.label, gridPipeline, ctx.bindGroup(gridPipeline, gridKernel.key, [gridParams, bind(counts, 4), { buffer: grid, offset: 0, size: 12 }]), 1);
      if (longerCount) {
        const longerParams = { buffer: ctx.uniform(new Uint32Array([a.segments, 0, maxDim])) };
        ctx.dispatch(encoder, gridKernel.label, gridPipeline, ctx.bindGroup(gridPipeline, gridKernel.key, [longerParams, bind(longerCount, 4), { buffer: grid, offset: LONGER_GRID, size: 12 }]), 1);
      }
    },
  };
}
