// Host side of the adjacent difference: checks a call, selects its config (the in-place table
// when `output` is omitted), compiles its pipelines and records one pass (two in place).
import { type DeviceContext, checkCount } from '../../runtime/context.js';
import { ceilDiv } from '../../runtime/dispatch.js';
import { fail } from '../../runtime/errors.js';
import { type ElementType, typeInfo } from '../../wgsl/types.js';
import { type TunedEntry } from '../../config/types.js';
import { selectFromTable } from '../select.js';
import { type AdjacentDifferenceConfig } from './config.js';
import { adjacentDifferenceInplaceTable, adjacentDifferenceTable } from './table.js';
import { adjacentDifferenceKernel, BOUNDARY_WG, boundaryKernel, defaultDifference } from './kernel.js';

export interface AdjacentDifferenceArgs {
  readonly input: GPUBuffer;
  /** Receives the differences; omitted: they replace `input` (in place). Never `input` itself. */
  readonly output?: GPUBuffer;
  readonly count: number;
  readonly type: ElementType;
  /**
   * WGSL expression over `a` (the element) and `b` (its left neighbour, or with `right` its right
   * one) giving a value of the type. Default `a - b`, wrapping for integers.
   */
  readonly op?: string;
  /** `out[i] = op(in[i], in[i+1])`, the last element kept (default: left, `op(in[i], in[i-1])`, the first kept). */
  readonly right?: boolean;
  readonly config?: Partial<AdjacentDifferenceConfig>;
}

export interface AdjacentDifferenceRows {
  readonly copy: readonly (readonly TunedEntry<AdjacentDifferenceConfig>[])[];
  readonly inPlace: readonly (readonly TunedEntry<AdjacentDifferenceConfig>[])[];
}

/** Checks the call, selects its config and compiles its pipelines; the result records it. */
export async function prepareAdjacentDifference(ctx: DeviceContext, rows: AdjacentDifferenceRows, args: AdjacentDifferenceArgs): Promise<(encoder: GPUCommandEncoder) => void> {
  ctx.assertAlive();
  if (!args || typeof args !== 'object') fail('invalid-argument', 'adjacentDifference needs an argument object { input, output?, count, type, op?, right? }');
  checkCount(args.count);
  const t = typeInfo(args.type);
  ctx.requireTypeFeature(t);
  if (args.op !== undefined && (typeof args.op !== 'string' || !args.op.trim())) fail('invalid-operator', 'adjacentDifference `op` must be a WGSL expression over a and b (default a - b)');
  if (args.right !== undefined && typeof args.right !== 'boolean') fail('invalid-argument', `adjacentDifference \`right\` must be a boolean, got ${String(args.right)}`);
  ctx.checkBuffer('adjacentDifference input', args.input, args.count, t);
  const inPlace = args.output === undefined;
  if (!inPlace) {
    ctx.checkBuffer('adjacentDifference output', args.output, args.count, t);
    if (args.output === args.input) fail('overlap', 'adjacentDifference output is the input buffer: omit `output` to compute in place');
  }
  const table = inPlace ? adjacentDifferenceInplaceTable : adjacentDifferenceTable;
  const { config } = selectFromTable(ctx, table, inPlace ? rows.inPlace : rows.copy, args.type, 0, args.config);
  const count = args.count;
  if (count === 0) return () => undefined;

  const right = args.right === true;
  const op = args.op ?? defaultDifference(t);
  const tile = config.workgroupSize * config.itemsPerThread;
  const numTiles = ceilDiv(count, tile);
  const main = adjacentDifferenceKernel({ type: t, op, right, inPlace, config });
  const boundary = inPlace && numTiles > 1 ? boundaryKernel(t, right, tile) : undefined;
  const [mainPipeline, boundaryPipeline] = await Promise.all([ctx.pipeline(main), boundary ? ctx.pipeline(boundary) : undefined]);

  return (encoder) => {
    const data = ctx.view(args.input, count, t, 1);
    const out = inPlace ? data : ctx.view(args.output!, count, t, 3);
    const params = ctx.uniform(new Uint32Array([count, numTiles, data.tailStart, out.tailStart, Math.min(data.tailStart, out.tailStart)]));
    if (!inPlace) {
      ctx.dispatch(encoder, main.label, mainPipeline, ctx.bindGroup(mainPipeline, main.key, [{ buffer: params }, ...data.entries, ...out.entries]), numTiles);
      return;
    }
    // One element per tile; a binding's size is a multiple of 4 bytes.
    const edgeBytes = Math.ceil((numTiles * t.bytes) / 4) * 4;
    const edges: GPUBufferBinding = { buffer: ctx.scratch('adjacent-difference.edges', edgeBytes), offset: 0, size: edgeBytes };
    if (boundary) {
      const group = ctx.bindGroup(boundaryPipeline!, boundary.key, [{ buffer: params }, ...data.entries, edges]);
      ctx.dispatch(encoder, boundary.label, boundaryPipeline!, group, ceilDiv(numTiles, BOUNDARY_WG));
    }
    ctx.dispatch(encoder, main.label, mainPipeline, ctx.bindGroup(mainPipeline, main.key, [{ buffer: params }, ...data.entries, edges]), numTiles);
  };
}

/** Records one adjacent difference into `encoder`. */
export async function recordAdjacentDifference(ctx: DeviceContext, rows: AdjacentDifferenceRows, encoder: GPUCommandEncoder, args: AdjacentDifferenceArgs): Promise<void> {
  (await prepareAdjacentDifference(ctx, rows, args))(encoder);
}
