import { type DeviceContext, checkCount } from '../../runtime/context.js';
import { ceilDiv } from '../../runtime/dispatch.js';
import { fail } from '../../runtime/errors.js';
import { type ElementType, typeInfo } from '../../wgsl/types.js';
import { type TunedEntry } from '../../config/types.js';
import { selectFromTable } from '../select.js';
import { type TransformConfig } from './config.js';
import { transformTable } from './table.js';
import { transformKernel } from './kernel.js';

export interface TransformArgs {
  readonly input: GPUBuffer;
  /** Second input, for a binary transform (`b` in the expression). */
  readonly input2?: GPUBuffer;
  /**
   * May be `input` itself (in place) when the output type has the input type's size; the
   * expression still sees `a` as the input type.
   */
  readonly output: GPUBuffer;
  readonly count: number;
  /** Element type of `input` (`a`). */
  readonly type: ElementType;
  /** Element type of `input2` (`b`); defaults to `type`. */
  readonly type2?: ElementType;
  /** Element type of `output`; defaults to `type`. */
  readonly outputType?: ElementType;
  /** WGSL expression over `a` (and `b`) of the output type, e.g. `a * 2u` or `f32(a) + b`. */
  readonly expression: string;
  readonly config?: Partial<TransformConfig>;
}

export async function recordTransform(ctx: DeviceContext, tables: readonly (readonly TunedEntry<TransformConfig>[])[], encoder: GPUCommandEncoder, args: TransformArgs): Promise<void> {
  ctx.assertAlive();
  if (!args || typeof args !== 'object') fail('invalid-argument', 'transform needs an argument object { input, output, count, type, expression }');
  checkCount(args.count);
  if (typeof args.expression !== 'string' || !args.expression.trim()) fail('invalid-operator', 'transform needs `expression`: a WGSL expression over a (and b)');
  const a = typeInfo(args.type);
  const b = args.input2 !== undefined ? typeInfo(args.type2 ?? args.type) : undefined;
  const out = typeInfo(args.outputType ?? args.type);
  for (const t of [a, b, out]) if (t) ctx.requireTypeFeature(t);
  ctx.checkBuffer('transform input', args.input, args.count, a);
  if (b) ctx.checkBuffer('transform input2', args.input2, args.count, b);
  ctx.checkBuffer('transform output', args.output, args.count, out);
  const inPlace = args.input === args.output;
  if (inPlace && a.bytes !== out.bytes) fail('overlap', `an in-place transform needs the output type to have the input's size (${a.name} -> ${out.name})`);
  if (b && args.input2 === args.output) fail('overlap', 'transform output must not be input2; only `input` may be transformed in place');
  const { config } = selectFromTable(ctx, transformTable, tables, args.type, 0, args.config);
  if (args.count === 0) return;

  const kernel = transformKernel({ a, b, out, expression: args.expression, inPlace, config });
  const pipeline = await ctx.pipeline(kernel);
  const tile = config.workgroupSize * config.itemsPerThread;
  const numTiles = ceilDiv(args.count, tile);
  let slot = 1;
  const av = inPlace ? undefined : ctx.view(args.input, args.count, a, slot);
  if (av) slot += 2;
  const bv = b ? ctx.view(args.input2!, args.count, b, slot) : undefined;
  if (bv) slot += 2;
  const ov = ctx.view(args.output, args.count, out, slot);
  const aTail = (av ?? ov).tailStart;
  const bTail = bv?.tailStart ?? args.count;
  const params = ctx.uniform(new Uint32Array([args.count, numTiles, aTail, bTail, ov.tailStart, Math.min(aTail, bTail, ov.tailStart)]));
  const group = ctx.bindGroup(pipeline, kernel.key, [{ buffer: params }, ...(av?.entries ?? []), ...(bv?.entries ?? []), ...ov.entries]);
  ctx.dispatch(encoder, kernel.label, pipeline, group, numTiles);
}
