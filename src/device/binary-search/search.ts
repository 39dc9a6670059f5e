import { type DeviceContext, checkCount } from '../../runtime/context.js';
import { ceilDiv } from '../../runtime/dispatch.js';
import { fail } from '../../runtime/errors.js';
import { type ElementType, type TypeInfo, typeInfo } from '../../wgsl/types.js';
import { rawKeyBytes } from '../../wgsl/device/raw-keys.js';
import { type TunedEntry } from '../../config/types.js';
import { type ConfigTable } from '../spec.js';
import { selectFromTable } from '../select.js';
import { type BinarySearchConfig } from './config.js';
import { BUCKET_STATE_WORDS, cachedLevels, globalSteps, MAX_BUCKET_LEVELS, type SearchKind, searchKernel } from './kernel.js';
import { bucketGrid, bucketKernel, bucketNeedlesPerThread, bucketWorkgroupBytes } from './buckets.js';
import { pivotBytes } from './config.js';
import { isSoftwareAdapter } from '../../runtime/target.js';
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
  /**
   * Bucket the needles by where they land in the haystack first, and search them in that order
   * (two more passes over the needles and 4 bytes of scratch a needle, for loads that stay near
   * each other). Default: on GPUs, for 2^18 needles or more into 2^21 keys or more
   * (BUCKET_MIN_NEEDLES, BUCKET_MIN_KEYS); CPU adapters never.
   */
  readonly bucketNeedles?: boolean;
}

/** Below these the buckets' two passes cost more than the scattered loads they save. */
export const BUCKET_MIN_NEEDLES = 2 ** 18;
export const BUCKET_MIN_KEYS = 2 ** 21;

/**
 * Whether a call buckets its needles: its own choice, else by its size (BinarySearchArgs.bucketNeedles),
 * and only where the permutation (a u32 a needle) fits one binding (`maxBinding` bytes).
 */
export function bucketsNeedles(name: string, haystackCount: number, needlesCount: number, software: boolean, choice?: boolean, maxBinding = Infinity): boolean {
  if (choice !== undefined) {
    if (typeof choice !== 'boolean') fail('invalid-argument', `${name}: bucketNeedles must be a boolean, got ${String(choice)}`);
    return choice;
  }
  return !software && needlesCount >= BUCKET_MIN_NEEDLES && haystackCount >= BUCKET_MIN_KEYS && 4 * needlesCount <= maxBinding;
}

/** Levels of the buckets' tree: at most 2^10 buckets, fewer where workgroup memory is short, and no more than the haystack's keys (at least 1). */
function bucketLevels(ctx: DeviceContext, t: TypeInfo, haystackCount: number): number {
  let levels = MAX_BUCKET_LEVELS;
  while (levels > 1 && bucketWorkgroupBytes(levels, pivotBytes(t)) > ctx.limits.maxComputeWorkgroupStorageSize) levels--;
  return Math.max(1, cachedLevels(haystackCount, levels));
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
  const software = isSoftwareAdapter(ctx.target);
  const bucketed = bucketsNeedles(name, args.haystackCount, args.needlesCount, software, args.bucketNeedles, ctx.limits.maxStorageBufferBindingSize);
  const order = { kind, type: t, less: args.less };
  const kernel = searchKernel({ ...order, config, gather: bucketed });
  const pipeline = await ctx.pipeline(kernel);
  const needlesPerThread = bucketNeedlesPerThread(software);
  const [countKernel, scatterKernel] = bucketed
    ? (['count', 'scatter'] as const).map((phase) => bucketKernel({ ...order, levels: bucketLevels(ctx, t, args.haystackCount), needlesPerThread, phase }))
    : [];
  const [countPipeline, scatterPipeline] = bucketed ? await Promise.all([ctx.pipeline(countKernel!), ctx.pipeline(scatterKernel!)]) : [];
  if (args.needlesCount === 0) return () => {};
  const cached = cachedLevels(args.haystackCount, config.cacheLevels);
  const numTiles = ceilDiv(args.needlesCount, config.workgroupSize * config.needlesPerThread);
  const params = ctx.uniform(new Uint32Array([args.haystackCount, args.needlesCount, globalSteps(args.haystackCount, cached), cached, numTiles]));
  const hay = args.haystackCount > 0
    ? { buffer: args.haystack, offset: 0, size: rawKeyBytes(t, args.haystackCount) }
    : { buffer: ctx.scratch('search-empty-haystack', 16), offset: 0, size: 16 };
  const needles = { buffer: args.needles, offset: 0, size: rawKeyBytes(t, args.needlesCount) };
  const output = { buffer: args.output, offset: 0, size: 4 * args.needlesCount };
  if (!bucketed) {
    const group = ctx.bindGroup(pipeline, kernel.key, [{ buffer: params }, hay, needles, output]);
    return (encoder) => ctx.dispatch(encoder, kernel.label, pipeline, group, numTiles);
  }
  const grid = bucketGrid(args.needlesCount, needlesPerThread);
  const bucketParams = { buffer: ctx.uniform(new Uint32Array([args.haystackCount, args.needlesCount, grid.workgroups, grid.subTiles])) };
  // Per bucket its count, then its cursor (zero between calls: a new scratch buffer is, and each
  // search leaves it so); the permutation: a needle's index per place.
  const state = { buffer: ctx.scratch('search-buckets', 4 * BUCKET_STATE_WORDS), offset: 0, size: 4 * BUCKET_STATE_WORDS };
  const perm = { buffer: ctx.scratch('search-permutation', 4 * args.needlesCount), offset: 0, size: 4 * args.needlesCount };
  const countGroup = ctx.bindGroup(countPipeline!, countKernel!.key, [bucketParams, hay, needles, state]);
  const scatterGroup = ctx.bindGroup(scatterPipeline!, scatterKernel!.key, [bucketParams, hay, needles, state, perm]);
  const group = ctx.bindGroup(pipeline, kernel.key, [{ buffer: params }, hay, needles, output, perm, state]);
  return (encoder) => {
    ctx.dispatch(encoder, countKernel!.label, countPipeline!, countGroup, grid.workgroups);
    ctx.dispatch(encoder, scatterKernel!.label, scatterPipeline!, scatterGroup, grid.workgroups);
    ctx.dispatch(encoder, kernel.label, pipeline, group, numTiles);
  };
}

/** Records a search: per needle its lower bound, upper bound, or whether the haystack holds it (1 or 0). */
export async function recordSearch(ctx: DeviceContext, tables: readonly (readonly TunedEntry<BinarySearchConfig>[])[], kind: SearchKind, encoder: GPUCommandEncoder, args: BinarySearchArgs): Promise<void> {
  (await prepareSearch(ctx, tables, kind, args))(encoder);
}
