import { type DeviceContext } from '../../runtime/context.js';
import { ceilDiv, roundUp } from '../../runtime/dispatch.js';
import { type TypeInfo } from '../../wgsl/types.js';
import { type RadixSortBlockSortConfig } from './block-sort-config.js';
import { mergePartitionScratch, mergePipelines, recordMergePass } from '../merge/pass.js';
import { radixBlockSortKernel, radixMergeOptions } from './block-sort-kernel.js';

/** A radix sort call after its checks (see `recordRadixSort`), for the block sort path. */
export interface RadixBlockSortArgs {
  readonly keys: GPUBuffer;
  /** May be `keys` itself (in place). */
  readonly keysOut: GPUBuffer;
  readonly values?: GPUBuffer;
  /** May be `values` itself (in place). */
  readonly valuesOut?: GPUBuffer;
  readonly count: number;
  readonly key: TypeInfo;
  /** 0: keys only. */
  readonly valueBytes: 0 | 4 | 8;
  readonly beginBit: number;
  readonly endBit: number;
  readonly descending: boolean;
  readonly config: RadixSortBlockSortConfig;
}

/** Words of the mask of bits [b, e) of a key `width` bits wide: [low word, high word]. */
function bitMask(b: number, e: number): [number, number] {
  const word = (lo: number, hi: number): number => {
    const s = Math.max(b, lo);
    const t = Math.min(e, hi);
    if (s >= t) return 0;
    const n = t - s;
    return (n === 32 ? 0xffffffff : ((2 ** n - 1) * 2 ** (s - lo))) >>> 0;
  };
  return [word(0, 32), word(32, 64)];
}

/**
 * Records the small-size path of the radix sort: a block sort of every tile (one workgroup
 * sorts all of a count of at most one tile), then merge passes of runs of tile, 2 tile, ...
 * keys until one run is left. Passes alternate between the output and a scratch buffer so
 * that the last one writes the output; the block sort runs in place (one read-write binding)
 * where its chain starts and ends in the same buffer. Every pipeline is compiled before
 * anything is recorded. `count` > 0.
 */
export async function recordRadixBlockSort(ctx: DeviceContext, encoder: GPUCommandEncoder, a: RadixBlockSortArgs): Promise<void> {
  const c = a.config;
  const { count, key, valueBytes } = a;
  const pairs = valueBytes !== 0;
  const tile = c.workgroupSize * c.itemsPerThread;
  const numTiles = ceilDiv(count, tile);
  const allInPlace = a.keysOut === a.keys && (!pairs || a.valuesOut === a.values);
  const noBits = a.beginBit === a.endBit;
  if (noBits && allInPlace) return;
  // Run lengths of the merge passes; none when there is nothing to compare (a stable copy).
  const runs: number[] = [];
  if (!noBits) for (let run = tile; run < count; run *= 2) runs.push(run);
  const passes = 1 + runs.length;
  const dst = (out: GPUBuffer, scratch: () => GPUBuffer, i: number): GPUBuffer => ((passes - 1 - i) % 2 === 0 ? out : scratch());

  const keyBytes = roundUp(count * key.bytes, 4);
  const valBytes = count * valueBytes;
  const keysScratch = (): GPUBuffer => ctx.scratch('radixSort.keys', keyBytes);
  const valuesScratch = (): GPUBuffer => ctx.scratch('radixSort.values', valBytes);
  const keyDst = Array.from({ length: passes }, (_, i) => dst(a.keysOut, keysScratch, i));
  const valDst = pairs ? Array.from({ length: passes }, (_, i) => dst(a.valuesOut!, valuesScratch, i)) : [];
  const keysInPlace = keyDst[0] === a.keys;
  const valuesInPlace = pairs && valDst[0] === a.values;

  const sub = { subgroupMinSize: ctx.target.subgroupMinSize, subgroupMaxSize: ctx.target.subgroupMaxSize };
  const sortKernel = radixBlockSortKernel({ key, valueBytes, config: c, keysInPlace, valuesInPlace, ...sub });
  // Every pipeline exists before anything is recorded.
  const [sortPipeline, merge] = await Promise.all([ctx.pipeline(sortKernel), runs.length ? mergePipelines(ctx, radixMergeOptions({ key, valueBytes, config: c })) : undefined]);
  const partition = merge ? mergePartitionScratch(ctx, merge, count, runs, 'runs') : undefined;

  const bind = (buffer: GPUBuffer, bytes: number): GPUBufferBinding => ({ buffer, offset: 0, size: bytes });
  const flip = a.descending ? 0xffffffff : 0;
  const io = (src: GPUBuffer, out: GPUBuffer, bytes: number, inPlace: boolean): GPUBufferBinding[] => (inPlace ? [bind(out, bytes)] : [bind(src, bytes), bind(out, bytes)]);

  const sortParams = { buffer: ctx.uniform(new Uint32Array([count, numTiles, a.beginBit, a.endBit, flip])) };
  const sortEntries = [
    sortParams,
    ...io(a.keys, keyDst[0]!, keyBytes, keysInPlace),
    ...(pairs ? io(a.values!, valDst[0]!, valBytes, valuesInPlace) : []),
  ];
  ctx.dispatch(encoder, sortKernel.label, sortPipeline, ctx.bindGroup(sortPipeline, sortKernel.key, sortEntries), numTiles);

  if (!merge) return;
  // Ordered bits compared by the merge: [beginBit, endBit) (f16 keys: their low 16 bits only).
  const mask = bitMask(a.beginBit, a.endBit);
  runs.forEach((run, r) => {
    const i = r + 1;
    const io = [
      bind(keyDst[i - 1]!, keyBytes), bind(keyDst[i]!, keyBytes),
      ...(pairs ? [bind(valDst[i - 1]!, valBytes), bind(valDst[i]!, valBytes)] : []),
    ];
    recordMergePass(ctx, encoder, merge, { count, run, source: 'runs', mask, flip, io, partition: partition! });
  });
}
