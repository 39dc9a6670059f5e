import { type DeviceContext, checkCount } from '../../runtime/context.js';
import { ceilDiv, roundUp } from '../../runtime/dispatch.js';
import { fail } from '../../runtime/errors.js';
import { typeInfo, type TypeInfo } from '../../wgsl/types.js';
import { type TunedEntry } from '../../config/types.js';
import { type ScanConfig } from '../scan/config.js';
import { prepareScan } from '../scan/scan.js';
import { ONESWEEP_MAX_COUNT, type RadixSortConfig } from './config.js';
import { NO_REGION, ONESWEEP_COUNTER_WORDS, onesweepHistogramKernel, onesweepRowScanKernel, onesweepSortKernel } from './onesweep-kernel.js';
import { ANY_PASS } from '../../wgsl/thread/radix-key.js';
import { f16ClearBytes, type RadixSplit, zeroWordsKernel } from './access.js';
import { lsdPass, lsdPassKey, COUNT_SCAN_MAX_GROUPS, COUNT_TOTAL_COPIES, radixCountScanKernel, radixScatterKernel, radixTileScanKernel, radixUpsweepKernel, TILE_BLOCK, UPSWEEP_TILES } from './kernel.js';
import { type Kernel } from '../../runtime/kernel.js';
import { type RadixSortBlockSortConfig } from './block-sort-config.js';
import { recordRadixBlockSort } from './block-sort.js';
import { selectFromTable } from '../select.js';
import { radixSortBlockSortTable, radixSortTable } from './table.js';
import { radixBitRange, radixKeyInfo, type RadixSortKeyType } from './keys.js';

export { radixBitRange, radixKeyInfo, type RadixSortKeyType } from './keys.js';

export interface RadixSortKeysArgs {
  readonly keys: GPUBuffer;
  /** Sorted keys go here; omitted (or the keys buffer itself): the keys are sorted in place. */
  readonly keysOut?: GPUBuffer;
  readonly count: number;
  readonly type: RadixSortKeyType;
  readonly descending?: boolean;
  /** Integer keys: sort by bits [beginBit, endBit) only (defaults 0 and the key's width). Float keys take the full range only. */
  readonly beginBit?: number;
  readonly endBit?: number;
  /** Overrides the onesweep / LSD path's config (counts above the block sort's `maxCount`). */
  readonly config?: Partial<RadixSortConfig>;
  /**
   * Overrides the small-size path's config: counts up to its `maxCount` are sorted tile by tile
   * and merged (`maxCount: 0` forces the onesweep / LSD path for every count).
   */
  readonly blockSortConfig?: Partial<RadixSortBlockSortConfig>;
}

export interface RadixSortPairsArgs extends RadixSortKeysArgs {
  /** Values of `valueBytes` bytes each (any type), moved with their keys. */
  readonly values: GPUBuffer;
  /** Omitted (or the values buffer itself): the values are permuted in place. */
  readonly valuesOut?: GPUBuffer;
  readonly valueBytes: 4 | 8;
}

/**
 * Reduce-then-scan with the match rank where per-tile counts do not fit (past 4096 blocks of
 * tiles, or a binding): at most this many workgroups per pass, each sorting a run of tiles in
 * order (prefetching the next tile's keys), so that the per-(digit, group) counts stay small.
 * Enough groups that the last wave is short, few enough that the counts' scan is one workgroup
 * a digit (H200, 2^28 u32 keys, 256 x 23, with that scan: 2640 / 3168 /
 * 4096 / 5280 / 8192 / 16384 groups 7.08 / 7.00 / 6.92 / 6.99 / 7.07 / 7.17 ms; f32 and u64
 * within 1% across 2640 .. 5280).
 */
export const SORT_GROUPS = 4096;
if (SORT_GROUPS > COUNT_SCAN_MAX_GROUPS) throw new Error('radix sort: SORT_GROUPS exceeds what the count scan takes');

/**
 * Onesweep's histogram pass: at most this many workgroups, each walking tiles grid-stride and
 * adding its counts to the rows once (more groups: more adds to the same row words).
 */
export const HISTOGRAM_GROUPS = 4096;

/** Counts above this always take the onesweep / LSD path (the merge's u32 positions stay in range). */
export const BLOCK_SORT_MAX_COUNT = 2 ** 30;

function checkValueBytes(v: unknown): 4 | 8 {
  if (v !== 4 && v !== 8) fail('invalid-argument', `valueBytes must be 4 or 8, got ${String(v)}`);
  return v;
}

const VALUE_INFO: Record<4 | 8, TypeInfo> = { 4: typeInfo('u32'), 8: typeInfo('u64') };

/**
 * Where the LSD paths split an array past one storage binding into two bindings: the largest
 * multiple of minStorageBufferOffsetAlignment within maxStorageBufferBindingSize (bytes; a
 * multiple of 8, so of every key and value size). Arrays up to this plus one binding fit.
 */
export function radixSplitBytes(limits: Pick<GPUSupportedLimits, 'maxStorageBufferBindingSize' | 'minStorageBufferOffsetAlignment'>): number {
  const align = Math.max(limits.minStorageBufferOffsetAlignment, 8);
  return Math.floor(limits.maxStorageBufferBindingSize / align) * align;
}

/** The most bytes of keys (or values) the LSD paths take: two bindings. */
export const radixMaxArrayBytes = (limits: Pick<GPUSupportedLimits, 'maxStorageBufferBindingSize' | 'minStorageBufferOffsetAlignment'>): number =>
  radixSplitBytes(limits) + limits.maxStorageBufferBindingSize;

/** ctx.checkBuffer, except that an array past one storage binding is fine up to two (the LSD paths split it). */
function checkSortBuffer(ctx: DeviceContext, what: string, buffer: GPUBuffer, count: number, t: TypeInfo): void {
  const need = roundUp(count * t.bytes, 4);
  if (need <= ctx.limits.maxStorageBufferBindingSize) return ctx.checkBuffer(what, buffer, count, t);
  ctx.checkBuffer(what, buffer, 0, t);
  const max = radixMaxArrayBytes(ctx.limits);
  if (need > max) {
    fail('limit-exceeded', `${what}: ${count} elements of ${t.name} (${need} bytes) exceed what the radix sort binds as two storage ranges, ${max} bytes (twice this device's maxStorageBufferBindingSize of ${ctx.limits.maxStorageBufferBindingSize} bytes, less alignment)`);
  }
  if (buffer.size < need) fail('buffer-size', `${what} holds ${buffer.size} bytes but ${count} elements of ${t.name} need ${need}`);
}

/** Fails with 'limit-exceeded' where a kernel binds more storage buffers than the device allows. */
function checkStorageBindings(ctx: DeviceContext, name: string, kernels: readonly (Kernel | undefined)[]): void {
  for (const k of kernels) {
    if (!k) continue;
    const n = k.bindings.filter((b) => b === 'storage' || b === 'read-only-storage').length;
    if (n > ctx.limits.maxStorageBuffersPerShaderStage) {
      fail('limit-exceeded', `${name}: keys or values past one storage binding are bound as two ranges, so ${k.label} needs ${n} storage buffers, over this device's maxStorageBuffersPerShaderStage of ${ctx.limits.maxStorageBuffersPerShaderStage}; ${ctx.limitAdvice('maxStorageBuffersPerShaderStage', n, 'sort fewer keys at once')}`);
    }
  }
}

/**
 * Records a stable radix sort of keys (and values when `pairs`) into `encoder`. The path goes
 * by count, as rocPRIM's: up to the block sort config's `maxCount`, a block sort of each tile
 * (one workgroup when the count fits one tile) and merge passes; above it the onesweep / LSD
 * passes.
 */
export async function recordRadixSort(
  ctx: DeviceContext,
  tables: readonly (readonly TunedEntry<RadixSortConfig>[])[],
  blockSortTables: readonly (readonly TunedEntry<RadixSortBlockSortConfig>[])[],
  scanTables: readonly (readonly TunedEntry<ScanConfig>[])[],
  encoder: GPUCommandEncoder,
  args: RadixSortKeysArgs | RadixSortPairsArgs,
  pairs: boolean,
): Promise<void> {
  ctx.assertAlive();
  const name = pairs ? 'radixSortPairs' : 'radixSortKeys';
  if (!args || typeof args !== 'object') fail('invalid-argument', `${name} needs an argument object { keys, count, type${pairs ? ', values, valueBytes' : ''} }`);
  checkCount(args.count);
  const t = radixKeyInfo(args.type);
  const [beginBit, endBit] = radixBitRange(t, args.beginBit, args.endBit);
  const p = args as RadixSortPairsArgs;
  const valueBytes: 0 | 4 | 8 = pairs ? checkValueBytes(p.valueBytes) : 0;
  const { count } = args;
  const keysOut = args.keysOut ?? args.keys;
  checkSortBuffer(ctx, `${name} keys`, args.keys, count, t);
  if (args.keysOut !== undefined) checkSortBuffer(ctx, `${name} keysOut`, args.keysOut, count, t);
  const valuesOut = pairs ? (p.valuesOut ?? p.values) : undefined;
  if (pairs) {
    const vt = VALUE_INFO[valueBytes as 4 | 8];
    checkSortBuffer(ctx, `${name} values`, p.values, count, vt);
    if (p.valuesOut !== undefined) checkSortBuffer(ctx, `${name} valuesOut`, p.valuesOut, count, vt);
    const keyBuffers = new Set([args.keys, keysOut]);
    if (keyBuffers.has(p.values) || keyBuffers.has(valuesOut!)) fail('overlap', `${name}: keys and values must be in different buffers`);
  }
  if (args.descending !== undefined && typeof args.descending !== 'boolean') fail('invalid-argument', `descending must be a boolean, got ${String(args.descending)}`);
  const descending = args.descending ?? false;
  const { config: selected } = selectFromTable(ctx, radixSortTable, tables, args.type, valueBytes, args.config);
  // Up to decoupledMaxCount, decoupled look-back (onesweep) with the same tile.
  const config: RadixSortConfig = selected.lookback !== 'decoupled' && count <= Math.min(selected.decoupledMaxCount, ONESWEEP_MAX_COUNT)
    ? { ...selected, lookback: 'decoupled' }
    : selected;
  const { config: blockConfig } = selectFromTable(ctx, radixSortBlockSortTable, blockSortTables, args.type, valueBytes, args.blockSortConfig);
  if (count === 0) return;
  const keyBytes = roundUp(count * t.bytes, 4);
  const valBytes = count * valueBytes;
  const bindingLimit = ctx.limits.maxStorageBufferBindingSize;
  if (count <= blockConfig.maxCount && count <= BLOCK_SORT_MAX_COUNT) {
    if (keyBytes > bindingLimit || valBytes > bindingLimit) {
      fail('limit-exceeded', `${name}: the block sort path binds keys and values as one storage range each: ${count} ${keyBytes > bindingLimit ? 'keys' : 'values'} (${Math.max(keyBytes, valBytes)} bytes) exceed this device's maxStorageBufferBindingSize of ${bindingLimit} bytes; a blockSortConfig maxCount below ${count} takes the onesweep / LSD path, which binds them as two`);
    }
    return recordRadixBlockSort(ctx, encoder, {
      keys: args.keys, keysOut, values: pairs ? p.values : undefined, valuesOut, count, key: t, valueBytes, beginBit, endBit, descending, config: blockConfig,
    });
  }

  const keysInPlace = keysOut === args.keys;
  const valuesInPlace = pairs && valuesOut === p.values;
  const inPlace = keysInPlace || valuesInPlace;
  // Digit passes, low bits first; each pass writes to the other buffer of a pair, and the last
  // to the output. A pass of width 0 is a stable copy: it makes a result land in the caller's
  // output buffer, or the pass count even so an in-place sort never reads and writes one buffer.
  const digitPasses: { shift: number; bits: number }[] = [];
  for (let s = beginBit; s < endBit; s += config.radixBits) digitPasses.push({ shift: s, bits: Math.min(config.radixBits, endBit - s) });
  const allInPlace = keysInPlace && (!pairs || valuesInPlace);
  let copyPasses = digitPasses.length === 0 && !allInPlace ? 1 : 0;
  if (inPlace && (digitPasses.length + copyPasses) % 2 === 1) copyPasses += 1;
  const passes = [...Array.from({ length: copyPasses }, () => ({ shift: 0, bits: 0 })), ...digitPasses];
  if (passes.length === 0) return;

  const tile = config.workgroupSize * config.itemsPerThread;
  const numTiles = ceilDiv(count, tile);
  const radix = 1 << config.radixBits;
  const onesweep = config.lookback === 'decoupled';
  if (onesweep && count > ONESWEEP_MAX_COUNT) {
    fail('limit-exceeded', `${name}: onesweep counts keys in 30 bits: ${count} keys exceed ${ONESWEEP_MAX_COUNT}; use lookback "reduce-then-scan"`);
  }
  // Reduce-then-scan: per-group digit counts (the split rank: a group per tile; the match rank
  // per tile, or runs of tiles where those do not fit); onesweep: two look-back regions of one
  // word per (tile, digit).
  // The match rank's upsweep adds each pass's digit totals past the counts (COUNT_TOTAL_COPIES
  // rows of radix words a pass), and one kernel scans the counts from them; the split rank's
  // many groups (one a tile) would queue up on the totals' words: a device-wide scan does it.
  const countTotals = !onesweep && config.rank === 'match';
  // The counts buffer: the counts (onesweep: the look-back state), then per pass its block totals
  // (with tile counts) and its digit totals.
  const numBlocks = ceilDiv(numTiles, TILE_BLOCK);
  const layout = (tiles: boolean) => {
    const tilesPerGroup = config.rank === 'split' || onesweep || tiles ? 1 : ceilDiv(numTiles, Math.min(numTiles, SORT_GROUPS));
    const numGroups = ceilDiv(numTiles, tilesPerGroup);
    const countsWords = onesweep ? ONESWEEP_COUNTER_WORDS + 2 * radix * numTiles : radix * numGroups;
    const blockWords = tiles ? radix * numBlocks : 0;
    const totalsWords = countTotals ? blockWords + COUNT_TOTAL_COPIES * radix : 0;
    return { tilesPerGroup, numGroups, countsWords, blockWords, totalsWords, countsLength: countsWords + passes.length * totalsWords };
  };
  // The match rank: a workgroup a tile, from counts per tile (tile-major), where their blocks'
  // totals fit a row of the count scan and all of it one binding (else a group sorts a run of
  // tiles). A tile a group carries nothing from tile to tile (fewer registers: u64 keys 72
  // against 86, pairs 121 against 160) and ranks with late counts (H200, 2^28: u32 keys 7.26 ->
  // 7.02 ms, u64 keys 23.45 -> 21.13, u32 pairs 11.15 -> 8.08 before those; docs/performance.md).
  const tiled = layout(true);
  const tileCounts = countTotals && numBlocks <= COUNT_SCAN_MAX_GROUPS && tiled.countsLength * 4 <= ctx.limits.maxStorageBufferBindingSize;
  const { tilesPerGroup, numGroups, countsWords, blockWords, totalsWords, countsLength } = tileCounts ? tiled : layout(false);
  // The upsweep's groups: with tile counts UPSWEEP_TILES tiles each (the sort's one), else the sort's.
  const [upsweepTiles, upsweepGroups] = tileCounts ? [UPSWEEP_TILES, ceilDiv(numTiles, UPSWEEP_TILES)] : [tilesPerGroup, numGroups];
  if (countsLength * 4 > ctx.limits.maxStorageBufferBindingSize) {
    fail('limit-exceeded', `${name}: ${numTiles} tiles of ${radix} digit counters need ${countsLength * 4} bytes, over maxStorageBufferBindingSize; use a larger itemsPerThread or fewer radixBits`);
  }
  const sub = { subgroupMinSize: ctx.target.subgroupMinSize, subgroupMaxSize: ctx.target.subgroupMaxSize };
  // Keys or values past one storage binding: bound as two ranges, [0, splitBytes) and the rest.
  const splitBytes = radixSplitBytes(ctx.limits);
  const keySplitBytes = keyBytes > bindingLimit ? splitBytes : undefined;
  const valSplitBytes = valBytes > bindingLimit ? splitBytes : undefined;
  const split: RadixSplit | undefined = keySplitBytes === undefined && valSplitBytes === undefined
    ? undefined
    : { keys: keySplitBytes === undefined ? undefined : keySplitBytes / t.bytes, values: valSplitBytes === undefined ? undefined : valSplitBytes / valueBytes };
  const kernelOptions = { key: t, valueBytes, config, split };
  // Specialized: kernels by the pass's place (the first loads raw keys and the last stores
  // them; between, keys stay ordered), for 8-byte keys by the word that holds the digit, and
  // by direction (a constant: the first pass of an ascending u32 sort loads keys untransformed).
  // Passes of one place share their kernels: each distinct one is generated once.
  const byPlace = new Map<string, { sort: Kernel; upsweep?: Kernel }>();
  const passKernels = passes.map((pass, i) => {
    const place = config.passKernels === 'specialized' ? lsdPass(t, i, passes.length, pass.shift, pass.bits, descending) : ANY_PASS;
    let kernels = byPlace.get(lsdPassKey(place));
    if (!kernels) {
      const o = { ...kernelOptions, pass: place };
      kernels = {
        sort: config.rank === 'split' ? radixScatterKernel(o) : onesweepSortKernel({ ...o, ...sub, offsets: onesweep ? 'lookback' : 'scanned', tileCounts }),
        upsweep: onesweep ? undefined : radixUpsweepKernel({ ...o, totals: countTotals, tileCounts }),
      };
      byPlace.set(lsdPassKey(place), kernels);
    }
    return kernels;
  });
  const histogram = onesweep ? onesweepHistogramKernel(kernelOptions) : undefined;
  checkStorageBindings(ctx, name, [...[...byPlace.values()].flatMap((k) => [k.sort, k.upsweep]), histogram]);
  const rowScan = onesweep ? onesweepRowScanKernel(config.radixBits) : undefined;
  const countScan = countTotals ? radixCountScanKernel(config.radixBits) : undefined;
  const tileScan = tileCounts ? radixTileScanKernel(config.radixBits) : undefined;
  // 16-bit keys: each pass's destination has its whole words cleared before the pass (its
  // stores are one atomicOr); clearBuffer where the buffer allows copies, else a zeroing kernel.
  const clearBytes = t.bytes === 2 ? f16ClearBytes(count) : 0;
  const zeroWords = clearBytes > 0 && !(keysOut.usage & GPUBufferUsage.COPY_DST) ? zeroWordsKernel() : undefined;
  // Every pipeline exists before anything is recorded.
  const pipelineOf = (k: Kernel | undefined): Promise<GPUComputePipeline | undefined> => (k ? ctx.pipeline(k) : Promise.resolve(undefined));
  const [passPipelines, [histPipeline, rowScanPipeline, zeroPipeline, countScanPipeline, tileScanPipeline]] = await Promise.all([
    Promise.all(passKernels.map(async (k) => ({ sort: (await pipelineOf(k.sort))!, upsweep: await pipelineOf(k.upsweep) }))),
    Promise.all([histogram, rowScan, zeroWords, countScan, tileScan].map(pipelineOf)),
  ]);
  const counts = ctx.scratch(onesweep ? 'radixSort.lookback' : 'radixSort.counts', countsLength * 4);
  const recordCountScan = onesweep || countTotals
    ? undefined
    : await prepareScan(ctx, scanTables, { input: counts, output: counts, count: countsLength, type: 'u32', config: { lookback: 'reduce-then-scan' } }, true);
  if (countTotals) encoder.clearBuffer(counts, countsWords * 4, passes.length * totalsWords * 4);

  const keysScratch = ctx.scratch('radixSort.keys', keyBytes);
  const valuesScratch = pairs ? ctx.scratch('radixSort.values', valBytes) : undefined;
  // Destination of each pass, from the last back: the output, then the scratch buffer and the
  // output in turn. An in-place chain has an even length, so the first pass writes the scratch.
  const chain = (out: GPUBuffer, scratch: GPUBuffer): GPUBuffer[] =>
    passes.map((_, i) => ((passes.length - 1 - i) % 2 === 0 ? out : scratch));
  const keyDst = chain(keysOut, keysScratch);
  const valDst = pairs ? chain(valuesOut!, valuesScratch!) : [];
  const bind = (buffer: GPUBuffer, bytes: number): GPUBufferBinding => ({ buffer, offset: 0, size: bytes });
  // A key or value array's first binding (all of it, or [0, split)) and its second ([split, end), if split).
  const lo = (buffer: GPUBuffer, bytes: number, at: number | undefined): GPUBufferBinding => bind(buffer, at ?? bytes);
  const hi = (buffer: GPUBuffer, bytes: number, at: number | undefined): GPUBufferBinding[] => (at === undefined ? [] : [{ buffer, offset: at, size: bytes - at }]);
  const countsBinding = bind(counts, countsLength * 4);
  const flip = descending ? 0xffffffff : 0;

  let rowsBinding: GPUBufferBinding | undefined;
  if (onesweep) {
    // Histogram rows, one per pass (copy passes keep a zero row: every key has digit 0), turned
    // into the digits' exclusive starts; look-back region 0 and the tickets start cleared.
    const rowBytes = passes.length * radix * 4;
    const rows = ctx.scratch('radixSort.histogram', rowBytes);
    rowsBinding = bind(rows, rowBytes);
    encoder.clearBuffer(rows, 0, rowBytes);
    encoder.clearBuffer(counts, 0, (ONESWEEP_COUNTER_WORDS + radix * numTiles) * 4);
    if (digitPasses.length > 0) {
      const hTile = config.histogramWorkgroupSize * config.histogramItemsPerThread;
      const hTiles = ceilDiv(count, hTile);
      // Enough workgroups to fill a large GPU, few enough that their adds to the rows (one per counter each) do not queue up on the same addresses.
      const hGroups = Math.min(hTiles, HISTOGRAM_GROUPS);
      const hParams = { buffer: ctx.uniform(new Uint32Array([count, hTiles, beginBit, endBit, flip, copyPasses])) };
      ctx.dispatch(encoder, histogram!.label, histPipeline!, ctx.bindGroup(histPipeline!, histogram!.key, [hParams, lo(args.keys, keyBytes, keySplitBytes), rowsBinding, ...hi(args.keys, keyBytes, keySplitBytes)]), hGroups);
    }
    ctx.dispatch(encoder, rowScan!.label, rowScanPipeline!, ctx.bindGroup(rowScanPipeline!, rowScan!.key, [rowsBinding]), passes.length);
  }

  // Onesweep's look-back region r (two, used by the passes in turn), as a word offset.
  const region = (r: number): number => ONESWEEP_COUNTER_WORDS + r * radix * numTiles;
  for (let i = 0; i < passes.length; i++) {
    const pass = passes[i]!;
    const { sort: sortKernel, upsweep } = passKernels[i]!;
    const { sort: sortPipeline, upsweep: upPipeline } = passPipelines[i]!;
    const keySrc = i === 0 ? args.keys : keyDst[i - 1]!;
    const valSrc = i === 0 ? p.values : valDst[i - 1];
    const values = pairs ? [lo(valSrc!, valBytes, valSplitBytes), lo(valDst[i]!, valBytes, valSplitBytes)] : [];
    const keyIo = [lo(keySrc, keyBytes, keySplitBytes), lo(keyDst[i]!, keyBytes, keySplitBytes)];
    // The second ranges, after every other binding: keys (in, out), then values (in, out).
    const highs = [...hi(keySrc, keyBytes, keySplitBytes), ...hi(keyDst[i]!, keyBytes, keySplitBytes), ...(pairs ? [...hi(valSrc!, valBytes, valSplitBytes), ...hi(valDst[i]!, valBytes, valSplitBytes)] : [])];
    if (clearBytes > 0) {
      // After every pass that read this buffer (the one before last), before this one writes it.
      const dst = keyDst[i]!;
      if (dst.usage & GPUBufferUsage.COPY_DST) encoder.clearBuffer(dst, 0, clearBytes);
      else {
        for (let at = 0; at < clearBytes; at += splitBytes) {
          const size = Math.min(splitBytes, clearBytes - at);
          ctx.dispatch(encoder, zeroWords!.label, zeroPipeline!, ctx.bindGroup(zeroPipeline!, zeroWords!.key, [{ buffer: dst, offset: at, size }]), ceilDiv(size / 4, 256));
        }
      }
    }
    let entries: GPUBufferBinding[];
    if (onesweep) {
      const params = { buffer: ctx.uniform(new Uint32Array([count, numTiles, pass.shift, pass.bits, flip, i, region(i % 2), i + 1 < passes.length ? region((i + 1) % 2) : NO_REGION, 1, numTiles])) };
      entries = [params, ...keyIo, rowsBinding!, countsBinding, ...values, ...highs];
    } else {
      // This pass's block totals (tile counts) and digit totals.
      const passBase = countsWords + i * totalsWords;
      const passParams = (tiles: number, groups: number): GPUBufferBinding => ({
        buffer: ctx.uniform(new Uint32Array([count, numTiles, pass.shift, pass.bits, flip, tiles, groups, passBase + blockWords, tileCounts ? passBase : 0])),
      });
      const params = passParams(upsweepTiles, upsweepGroups);
      ctx.dispatch(encoder, upsweep!.label, upPipeline!, ctx.bindGroup(upPipeline!, upsweep!.key, [params, lo(keySrc, keyBytes, keySplitBytes), countsBinding, ...hi(keySrc, keyBytes, keySplitBytes)]), upsweepGroups);
      // Tile counts: the blocks' totals scanned (rows of numBlocks), then each block's tiles from its start.
      const scanParams = tileCounts ? passParams(TILE_BLOCK, numBlocks) : params;
      if (countScan) ctx.dispatch(encoder, countScan.label, countScanPipeline!, ctx.bindGroup(countScanPipeline!, countScan.key, [scanParams, countsBinding]), radix);
      else recordCountScan!(encoder);
      if (tileScan) ctx.dispatch(encoder, tileScan.label, tileScanPipeline!, ctx.bindGroup(tileScanPipeline!, tileScan.key, [scanParams, countsBinding]), numBlocks);
      entries = config.rank === 'split'
        ? [params, ...keyIo, countsBinding, ...values, ...highs]
        : [{ buffer: ctx.uniform(new Uint32Array([count, numTiles, pass.shift, pass.bits, flip, 0, 0, NO_REGION, tilesPerGroup, numGroups])) }, ...keyIo, countsBinding, ...values, ...highs];
    }
    ctx.dispatch(encoder, sortKernel.label, sortPipeline, ctx.bindGroup(sortPipeline, sortKernel.key, entries), onesweep ? numTiles : numGroups);
  }
}
