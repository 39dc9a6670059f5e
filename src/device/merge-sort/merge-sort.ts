// Host side of the merge sort: checks a call, selects both stages' configs, compiles every
// pipeline, then records the block sort and the merge passes.
import { type DeviceContext, checkCount } from '../../runtime/context.js';
import { ceilDiv, roundUp } from '../../runtime/dispatch.js';
import { fail } from '../../runtime/errors.js';
import { type ElementType, type TypeInfo, typeInfo } from '../../wgsl/types.js';
import { type TunedEntry } from '../../config/types.js';
import { selectFromTable } from '../select.js';
import { mergePartitionScratch, mergePipelines, recordMergePass, wholeKeyMask } from '../merge/pass.js';
import { checkLess } from '../merge/order.js';
import { type MergeSortBlockMergeConfig, type MergeSortBlockSortConfig } from './config.js';
import { mergeBlockSortKernel } from './kernel.js';
import { mergeSortBlockMergeTable, mergeSortBlockSortTable } from './table.js';

export interface MergeSortKeysArgs {
  readonly keys: GPUBuffer;
  /** Sorted keys go here; omitted (or the keys buffer itself): sorted in place. */
  readonly keysOut?: GPUBuffer;
  readonly count: number;
  readonly type: ElementType;
  /**
   * WGSL expression over `a` and `b` (the key type; 64-bit keys as vec2<u32>, x the low word)
   * that holds when a sorts strictly before b: a strict weak order. Default: ascending, floats
   * in the radix sort's total order (-NaN, -inf, ..., -0, +0, ..., +inf, NaN).
   */
  readonly less?: string;
  /** Overrides the merge passes' config (`merge_sort_block_merge`). */
  readonly config?: Partial<MergeSortBlockMergeConfig>;
  /** Overrides the block sort's config (`merge_sort_block_sort`). */
  readonly blockSortConfig?: Partial<MergeSortBlockSortConfig>;
}

export interface MergeSortPairsArgs extends MergeSortKeysArgs {
  /** Values of `valueBytes` bytes each (any type), moved with their keys. */
  readonly values: GPUBuffer;
  /** Omitted (or the values buffer itself): the values are permuted in place. */
  readonly valuesOut?: GPUBuffer;
  readonly valueBytes: 4 | 8;
}

export interface MergeSortTables {
  readonly blockSort: readonly (readonly TunedEntry<MergeSortBlockSortConfig>[])[];
  readonly blockMerge: readonly (readonly TunedEntry<MergeSortBlockMergeConfig>[])[];
}

/** The most keys one call sorts: merge positions (2 x run) stay within u32. */
export const MERGE_SORT_MAX_COUNT = 2 ** 30;

const VALUE_INFO: Record<4 | 8, TypeInfo> = { 4: typeInfo('u32'), 8: typeInfo('u64') };

/**
 * Checks a call (before anything is launched) and compiles its pipelines; the result records
 * it. `blockOnly`: the block sort alone (its benchmark), each tile sorted, no merge passes.
 */
export async function prepareMergeSort(ctx: DeviceContext, tables: MergeSortTables, args: MergeSortKeysArgs | MergeSortPairsArgs, pairs: boolean, blockOnly = false): Promise<(encoder: GPUCommandEncoder) => void> {
  ctx.assertAlive();
  const name = pairs ? 'mergeSortPairs' : 'mergeSortKeys';
  if (!args || typeof args !== 'object') fail('invalid-argument', `${name} needs an argument object { keys, count, type${pairs ? ', values, valueBytes' : ''} }`);
  checkCount(args.count);
  const { count } = args;
  if (count > MERGE_SORT_MAX_COUNT) fail('limit-exceeded', `${name}: ${count} keys exceed the ${MERGE_SORT_MAX_COUNT} one call sorts`);
  const t = typeInfo(args.type);
  checkLess(name, args.less);
  // Keys are moved as bits; only a caller's comparison over f16 needs the type in WGSL.
  if (args.less !== undefined) ctx.requireTypeFeature(t);
  const p = args as MergeSortPairsArgs;
  if (pairs && p.valueBytes !== 4 && p.valueBytes !== 8) fail('invalid-argument', `${name}: valueBytes must be 4 or 8, got ${String(p.valueBytes)}`);
  const valueBytes: 0 | 4 | 8 = pairs ? p.valueBytes : 0;
  const keysOut = args.keysOut ?? args.keys;
  ctx.checkBuffer(`${name} keys`, args.keys, count, t);
  if (args.keysOut !== undefined) ctx.checkBuffer(`${name} keysOut`, args.keysOut, count, t);
  const valuesOut = pairs ? (p.valuesOut ?? p.values) : undefined;
  if (pairs) {
    ctx.checkBuffer(`${name} values`, p.values, count, VALUE_INFO[valueBytes as 4 | 8]);
    if (p.valuesOut !== undefined) ctx.checkBuffer(`${name} valuesOut`, p.valuesOut, count, VALUE_INFO[valueBytes as 4 | 8]);
    const keyBuffers = new Set([args.keys, keysOut]);
    if (keyBuffers.has(p.values) || keyBuffers.has(valuesOut!)) fail('overlap', `${name}: keys and values must be in different buffers`);
  }
  const { config: sortConfig } = selectFromTable(ctx, mergeSortBlockSortTable, tables.blockSort, args.type, valueBytes, args.blockSortConfig);
  const { config: mergeConfig } = selectFromTable(ctx, mergeSortBlockMergeTable, tables.blockMerge, args.type, valueBytes, args.config);
  if (count === 0) return () => undefined;

  const tile = sortConfig.workgroupSize * sortConfig.itemsPerThread;
  const numTiles = ceilDiv(count, tile);
  // Merge passes over runs of tile, 2 tile, ... keys until one run is left; they alternate
  // between the output and a scratch buffer so that the last writes the output. The block sort
  // runs in place (one read-write binding) where its chain starts and ends in the same buffer.
  const runs: number[] = [];
  if (!blockOnly) for (let run = tile; run < count; run *= 2) runs.push(run);
  const passes = 1 + runs.length;
  const keyBytes = roundUp(count * t.bytes, 4);
  const valBytes = count * valueBytes;
  const dst = (out: GPUBuffer, role: string, bytes: number, i: number): GPUBuffer => ((passes - 1 - i) % 2 === 0 ? out : ctx.scratch(role, bytes));
  const keyDst = Array.from({ length: passes }, (_, i) => dst(keysOut, 'mergeSort.keys', keyBytes, i));
  const valDst = pairs ? Array.from({ length: passes }, (_, i) => dst(valuesOut!, 'mergeSort.values', valBytes, i)) : [];
  const keysInPlace = keyDst[0] === args.keys;
  const valuesInPlace = pairs && valDst[0] === p.values;

  const sortKernel = mergeBlockSortKernel({ key: t, valueBytes, config: sortConfig, less: args.less, keysInPlace, valuesInPlace });
  // Every pipeline exists (or a `less` that does not compile has failed) before anything is recorded.
  const [sortPipeline, merge] = await Promise.all([ctx.pipeline(sortKernel), runs.length ? mergePipelines(ctx, {
    ...mergeConfig, key: t, valueBytes, source: 'runs',
    // The default order is the radix sort's (every bit, ascending): the same kernels as its merge passes.
    order: args.less === undefined ? 'bits' : { less: args.less }, label: 'wgprim.mergeSort.merge', keyPrefix: 'radix-merge',
  }) : undefined]);
  const partition = merge ? mergePartitionScratch(ctx, merge, count, runs, 'runs') : undefined;
  const bind = (buffer: GPUBuffer, bytes: number): GPUBufferBinding => ({ buffer, offset: 0, size: bytes });
  const io = (src: GPUBuffer, out: GPUBuffer, bytes: number, inPlace: boolean): GPUBufferBinding[] => (inPlace ? [bind(out, bytes)] : [bind(src, bytes), bind(out, bytes)]);

  return (encoder) => {
    const sortEntries = [
      { buffer: ctx.uniform(new Uint32Array([count, numTiles])) },
      ...io(args.keys, keyDst[0]!, keyBytes, keysInPlace),
      ...(pairs ? io(p.values, valDst[0]!, valBytes, valuesInPlace) : []),
    ];
    ctx.dispatch(encoder, sortKernel.label, sortPipeline, ctx.bindGroup(sortPipeline, sortKernel.key, sortEntries), numTiles);
    runs.forEach((run, r) => {
      const i = r + 1;
      const passIo = [
        bind(keyDst[i - 1]!, keyBytes), bind(keyDst[i]!, keyBytes),
        ...(pairs ? [bind(valDst[i - 1]!, valBytes), bind(valDst[i]!, valBytes)] : []),
      ];
      recordMergePass(ctx, encoder, merge!, { count, run, source: 'runs', mask: wholeKeyMask(t), flip: 0, io: passIo, partition: partition! });
    });
  };
}

/** Records a stable merge sort of keys (and values when `pairs`) into `encoder`. */
export async function recordMergeSort(ctx: DeviceContext, tables: MergeSortTables, encoder: GPUCommandEncoder, args: MergeSortKeysArgs | MergeSortPairsArgs, pairs: boolean): Promise<void> {
  (await prepareMergeSort(ctx, tables, args, pairs))(encoder);
}
