import { type DeviceContext, checkCount } from '../../runtime/context.js';
import { ceilDiv } from '../../runtime/dispatch.js';
import { fail } from '../../runtime/errors.js';
import { type ElementType, typeInfo } from '../../wgsl/types.js';
import { rawKeyBytes } from '../../wgsl/device/raw-keys.js';
import { type TunedEntry } from '../../config/types.js';
import { type ConfigTable } from '../spec.js';
import { selectFromTable } from '../select.js';
import { type BinarySearchConfig } from './config.js';
import { cachedLevels, globalSteps, type SearchKind, searchKernel } from './kernel.js';
import { binarySearchTable, lowerBoundTable, upperBoundTable } from './table.js';

export interface BinarySearchArgs {
  /** Keys sorted ascending by `less` (the caller's contract: not checked). */
  readonly haystack: GPUBuffer;
  readonly haystackCount: number;
  /** Keys to look up, in any order. */
  readonly needles: GPUBuffer;
  readonly needlesCount: number;
  /** One u32 per needle; must not be the haystack or the needles. */
  readonly output: GPUBuffer;
  readonly type: ElementType;
  /**
   * WGSL `bool` expression over `a` and `b` (of the key type; 64-bit keys are vec2<u32>, low
   * word first) saying a comes before b. Default: the radix sort's order (floats: -NaN < -inf <
   * ... < -0 < +0 < ... < +inf < +NaN, compared as bits).
   */
  readonly less?: string;
  readonly config?: Partial<BinarySearchConfig>;
}

export const SEARCH_CALLS: Readonly<Record<SearchKind, { readonly name: string; readonly table: ConfigTable<BinarySearchConfig> }>> = {
  'lower-bound': { name: 'lowerBound', table: lowerBoundTable },
  'upper-bound': { name: 'upperBound', table: upperBoundTable },
  'binary-search': { name: 'binarySearch', table: binarySearchTable },
};

/** A custom `less` must be a non-empty string: a type error before anything compiles. */
export function checkLess(what: string, less: unknown): void {
  if (less !== undefined && (typeof less !== 'string' || !less.trim())) fail('invalid-operator', `${what}: less must be a WGSL bool expression over a and b, got ${String(less)}`);
}

/** Checks a call, compiles its kernel and returns what records it (nothing for no needles). */
export async function prepareSearch(ctx: DeviceContext, tables: readonly (readonly TunedEntry<BinarySearchConfig>[])[], kind: SearchKind, args: BinarySearchArgs): Promise<(encoder: GPUCommandEncoder) => void> {
  ctx.assertAlive();
  const { name, table } = SEARCH_CALLS[kind];
  if (!args || typeof args !== 'object') fail('invalid-argument', `${name} needs an argument object { haystack, haystackCount, needles, needlesCount, output, type }`);
  checkCount(args.haystackCount);
  checkCount(args.needlesCount);
  const t = typeInfo(args.type);
  // The default order compares bits: only a custom `less`, which sees the keys' values, needs f16's feature.
  checkLess(name, args.less);
  if (args.less !== undefined) ctx.requireTypeFeature(t);
  ctx.checkBuffer(`${name} haystack`, args.haystack, args.haystackCount, t);
  ctx.checkBuffer(`${name} needles`, args.needles, args.needlesCount, t);
  ctx.checkBuffer(`${name} output`, args.output, args.needlesCount, typeInfo('u32'));
  if (args.output === args.haystack || args.output === args.needles) fail('overlap', `${name} output must not be the haystack or the needles buffer`);
  const { config } = selectFromTable(ctx, table, tables, args.type, 0, args.config);
  const kernel = searchKernel({ kind, type: t, less: args.less, config });
  const pipeline = await ctx.pipeline(kernel);
  if (args.needlesCount === 0) return () => {};
  const cached = cachedLevels(args.haystackCount, config.cacheLevels);
  const numTiles = ceilDiv(args.needlesCount, config.workgroupSize * config.needlesPerThread);
  const params = ctx.uniform(new Uint32Array([args.haystackCount, args.needlesCount, globalSteps(args.haystackCount, cached), cached, numTiles]));
  const hay = args.haystackCount > 0
    ? { buffer: args.haystack, offset: 0, size: rawKeyBytes(t, args.haystackCount) }
    : { buffer: ctx.scratch('search-empty-haystack', 16), offset: 0, size: 16 };
  const group = ctx.bindGroup(pipeline, kernel.key, [
    { buffer: params }, hay, { buffer: args.needles, offset: 0, size: rawKeyBytes(t, args.needlesCount) }, { buffer: args.output, offset: 0, size: 4 * args.needlesCount },
  ]);
  return (encoder) => ctx.dispatch(encoder, kernel.label, pipeline, group, numTiles);
}

/** Records a search: per needle its lower bound, upper bound, or whether the haystack holds it (1 or 0). */
export async function recordSearch(ctx: DeviceContext, tables: readonly (readonly TunedEntry<BinarySearchConfig>[])[], kind: SearchKind, encoder: GPUCommandEncoder, args: BinarySearchArgs): Promise<void> {
  (await prepareSearch(ctx, tables, kind, args))(encoder);
}
