import { type DeviceContext, checkCount } from '../../runtime/context.js';
import { ceilDiv } from '../../runtime/dispatch.js';
import { fail } from '../../runtime/errors.js';
import { type Operator, resolveOperator } from '../../wgsl/operators.js';
import { type ElementType, typeInfo } from '../../wgsl/types.js';
import { encodeValue } from '../../wgsl/values.js';
import { type TunedEntry } from '../../config/types.js';
import { selectFromTable } from '../select.js';
import { type ReduceConfig } from './config.js';
import { reduceTable } from './table.js';
import { reduceKernel } from './kernel.js';

export interface ReduceArgs {
  readonly input: GPUBuffer;
  /** Receives the result in its element 0; must not be the input buffer. */
  readonly output: GPUBuffer;
  readonly count: number;
  readonly type: ElementType;
  /** Defaults to `add`; a custom operator must be associative and commutative. */
  readonly op?: Operator;
  /** Combined with the result (and the result of an empty input). */
  readonly initialValue?: number | bigint;
  readonly config?: Partial<ReduceConfig>;
}

export async function recordReduce(ctx: DeviceContext, tables: readonly (readonly TunedEntry<ReduceConfig>[])[], encoder: GPUCommandEncoder, args: ReduceArgs): Promise<void> {
  ctx.assertAlive();
  if (!args || typeof args !== 'object') fail('invalid-argument', 'reduce needs an argument object { input, output, count, type }');
  checkCount(args.count);
  const t = typeInfo(args.type);
  ctx.requireTypeFeature(t);
  const op = resolveOperator(args.op ?? 'add', t);
  ctx.checkBuffer('reduce input', args.input, args.count, t);
  ctx.checkBuffer('reduce output', args.output, 1, t);
  if (args.input === args.output) fail('overlap', 'reduce output must be a different buffer from its input');
  const init = args.initialValue === undefined ? undefined : encodeValue(t, args.initialValue, 'initialValue');
  const { config } = selectFromTable(ctx, reduceTable, tables, args.type, 0, args.config);

  const tile = config.workgroupSize * config.itemsPerThread;
  const numTiles = ceilDiv(args.count, tile);
  const kernel = reduceKernel(t, op, config);
  const pipeline = await ctx.pipeline(kernel);
  const pass = (input: GPUBuffer, count: number, tiles: number, workgroups: number, output: GPUBuffer, outCount: number, withInit: [number, number] | undefined): void => {
    const iv = ctx.view(input, count, t, 1);
    const ov = ctx.view(output, outCount, t, 3);
    const params = ctx.uniform(new Uint32Array([count, tiles, workgroups, iv.tailStart, ov.tailStart, iv.tailStart, withInit ? 1 : 0, withInit?.[0] ?? 0, withInit?.[1] ?? 0]));
    const group = ctx.bindGroup(pipeline, kernel.key, [{ buffer: params }, ...iv.entries, ...ov.entries]);
    ctx.dispatch(encoder, kernel.label, pipeline, group, workgroups);
  };
  if (numTiles <= 1) {
    pass(args.input, args.count, numTiles, 1, args.output, 1, init);
    return;
  }
  // Pass 1: a resident grid folds the input into one partial per workgroup; pass 2 folds those.
  const workgroups = Math.min(numTiles, config.maxWorkgroups);
  const partials = ctx.scratch('reduce.partials', workgroups * t.bytes + 256);
  pass(args.input, args.count, numTiles, workgroups, partials, workgroups, undefined);
  pass(partials, workgroups, ceilDiv(workgroups, tile), 1, args.output, 1, init);
}
