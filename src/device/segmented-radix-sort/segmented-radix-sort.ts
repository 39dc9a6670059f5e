import { type DeviceContext, checkCount } from '../../runtime/context.js';
import { selectFromTable } from '../select.js';
import { segmentedRadixSortTable } from './table.js';
import { ceilDiv, roundUp } from '../../runtime/dispatch.js';
import { fail } from '../../runtime/errors.js';
import { typeInfo, type TypeInfo } from '../../wgsl/types.js';
import { type TunedEntry } from '../../config/types.js';
import { radixBitRange, radixKeyInfo, type RadixSortKeyType } from '../radix-sort/radix-sort.js';
import { type SegmentedRadixSortConfig } from './config.js';
import { type CompactionTables } from '../select/compaction.js';
import { LONGER_GRID, prepareGrouping } from './grouping.js';
import { HUGE_TILES, hugeScratchWords, prepareHugeSort } from './huge.js';
import { segmentedCopyBindingRoles, segmentedCopyKernel, segmentedRadixSortKernel, segmentedSortBindingRoles, segmentedSortMarks } from './kernel.js';

export interface SegmentedRadixSortKeysArgs {
  readonly keys: GPUBuffer;
  /**
   * Sorted keys go here. Omitted, or the keys buffer itself: the keys are sorted in place (each
   * segment in its own range; elements outside every segment stay as they are). Otherwise a
   * buffer that shares nothing with the keys.
   */
  readonly keysOut?: GPUBuffer;
  /** Elements in the keys buffer (segments index into [0, count)). */
  readonly count: number;
  /** Number of segments. */
  readonly segments: number;
  /**
   * u32 first element of each segment. With `endOffsets`: `segments` entries; without:
   * `segments + 1` entries, segment i being [beginOffsets[i], beginOffsets[i + 1]).
   */
  readonly beginOffsets: GPUBuffer;
  /** u32 one past the last element of each segment (`segments` entries); may be omitted (see beginOffsets). */
  readonly endOffsets?: GPUBuffer;
  readonly type: RadixSortKeyType;
  readonly descending?: boolean;
  /** Integer keys: sort by bits [beginBit, endBit) only. Float keys take the full range only. */
  readonly beginBit?: number;
  readonly endBit?: number;
  readonly config?: Partial<SegmentedRadixSortConfig>;
  /**
   * A bound the caller guarantees on every segment's length. At most one tile
   * (workgroupSize * itemsPerThread of the config): no scratch buffer is allocated (segments
   * that long never leave workgroup memory). A longer segment then is not sorted correctly
   * (never out of bounds). Omitted: any length, with a scratch buffer of the keys' (and values') size.
   * In place needs no scratch of its own: a segment of at most a tile is read whole into
   * workgroup memory and written back over itself, so this bound skips the scratch in place
   * too; longer segments ping-pong through the same scratch as out of place (with an odd
   * digit-pass count a segment is first copied into it, so the last pass lands in the buffer).
   */
  readonly maxSegmentLength?: number;
}

export interface SegmentedRadixSortPairsArgs extends SegmentedRadixSortKeysArgs {
  readonly values: GPUBuffer;
  /**
   * The permuted values go here. Omitted, or the values buffer itself: in place (independently
   * of the keys). Otherwise a buffer other than `values`, `keys` and `keysOut`.
   */
  readonly valuesOut?: GPUBuffer;
  readonly valueBytes: 4 | 8;
}

const VALUE_INFO: Record<4 | 8, TypeInfo> = { 4: typeInfo('u32'), 8: typeInfo('u64') };
const U32 = typeInfo('u32');

/** The sort's tuned rows, and for grouping segments by length the partition's and the select's (with their scan's). */
export interface SegmentedRadixSortTables {
  readonly rows: readonly (readonly TunedEntry<SegmentedRadixSortConfig>[])[];
  readonly partition: CompactionTables;
  readonly select: CompactionTables;
}

/**
 * Records a stable radix sort of each segment [begin[i], end[i]) of the keys (and values) into
 * `encoder`. Segments are independent (CUB's DeviceSegmentedRadixSort): they may be empty, lie
 * in any order and leave gaps; they must not overlap. An end before its begin is an empty
 * segment; bounds past `count` are clamped to it. Elements that no segment covers are copied
 * unchanged to the output (CUB leaves them undefined); in place they are left as they are.
 * `keysOut` (`valuesOut`) omitted or equal to `keys` (`values`) sorts in place; any other
 * sharing of a buffer between the keys, the values, their outputs and (written) offsets is an
 * `overlap` error.
 */
export async function recordSegmentedRadixSort(
  ctx: DeviceContext,
  tables: SegmentedRadixSortTables,
  encoder: GPUCommandEncoder,
  args: SegmentedRadixSortKeysArgs | SegmentedRadixSortPairsArgs,
  pairs: boolean,
): Promise<void> {
  ctx.assertAlive();
  const name = pairs ? 'segmentedRadixSortPairs' : 'segmentedRadixSortKeys';
  if (!args || typeof args !== 'object') {
    fail('invalid-argument', `${name} needs an argument object { keys, keysOut?, count, segments, beginOffsets, endOffsets?, type${pairs ? ', values, valuesOut?, valueBytes' : ''} }`);
  }
  checkCount(args.count);
  const { count } = args;
  const segments = args.segments;
  if (typeof segments !== 'number' || !Number.isInteger(segments) || segments < 0 || segments > 0xfffffffe) {
    fail('invalid-argument', `${name}: segments must be a non-negative integer below 2^32 - 1, got ${String(segments)}`);
  }
  const maxDim = ctx.limits.maxComputeWorkgroupsPerDimension;
  const t = radixKeyInfo(args.type);
  const [beginBit, endBit] = radixBitRange(t, args.beginBit, args.endBit);
  const p = args as SegmentedRadixSortPairsArgs;
  let valueBytes: 0 | 4 | 8 = 0;
  if (pairs) {
    if (p.valueBytes !== 4 && p.valueBytes !== 8) fail('invalid-argument', `valueBytes must be 4 or 8, got ${String(p.valueBytes)}`);
    valueBytes = p.valueBytes;
  }
  // In place: the output is the input buffer itself (the whole buffer either way, so the same
  // byte range); any other sharing would overlap ranges of different roles and is refused.
  ctx.checkBuffer(`${name} keys`, args.keys, count, t);
  const keysOut = args.keysOut ?? args.keys;
  if (args.keysOut !== undefined) ctx.checkBuffer(`${name} keysOut`, args.keysOut, count, t);
  const keysInPlace = keysOut === args.keys;
  const omitted = args.endOffsets === undefined;
  ctx.checkBuffer(`${name} beginOffsets`, args.beginOffsets, omitted ? segments + 1 : segments, U32);
  if (!omitted) ctx.checkBuffer(`${name} endOffsets`, args.endOffsets, segments, U32);
  const offsetBuffers = new Set([args.beginOffsets, args.endOffsets]);
  if (offsetBuffers.has(keysOut)) fail('overlap', `${name}: ${keysInPlace ? 'keys sorted in place' : 'keysOut'} must not be an offsets buffer`);
  let valuesOut: GPUBuffer | undefined;
  let valuesInPlace = false;
  if (pairs) {
    const vt = VALUE_INFO[valueBytes as 4 | 8];
    ctx.checkBuffer(`${name} values`, p.values, count, vt);
    valuesOut = p.valuesOut ?? p.values;
    if (p.valuesOut !== undefined) ctx.checkBuffer(`${name} valuesOut`, p.valuesOut, count, vt);
    valuesInPlace = valuesOut === p.values;
    const keyBuffers = new Set([args.keys, keysOut]);
    if (keyBuffers.has(p.values) || keyBuffers.has(valuesOut)) fail('overlap', `${name}: keys and values must be in different buffers (the keys or keysOut share a buffer with the values or valuesOut)`);
    if (offsetBuffers.has(valuesOut)) fail('overlap', `${name}: ${valuesInPlace ? 'values permuted in place' : 'valuesOut'} must not be an offsets buffer`);
  }
  if (args.descending !== undefined && typeof args.descending !== 'boolean') fail('invalid-argument', `descending must be a boolean, got ${String(args.descending)}`);
  const descending = args.descending ?? false;
  const { config } = selectFromTable(ctx, segmentedRadixSortTable, tables.rows, args.type, valueBytes, args.config);
  // Grouping sets the tiny segments apart for the subgroup sorts: none without them, nor where
  // its lists of bounds (8 bytes a segment) exceed one binding (the results are the same).
  const bindable = Math.min(ctx.limits.maxStorageBufferBindingSize, ctx.limits.maxBufferSize);
  const grouped = config.grouping === 'by-length' && config.segmentsPerWorkgroup > 1 && segments * 8 <= bindable;
  const groups = ceilDiv(segments, config.segmentsPerWorkgroup);
  if (!grouped && groups > maxDim * maxDim) {
    fail('limit-exceeded', `${name}: ${segments} segments need ${groups} workgroups (${config.segmentsPerWorkgroup} segments each), over this device's ${maxDim}^2 workgroups per dispatch`);
  }
  // Scratch: keys one word each (two for 64-bit keys), then the values.
  const keyWords = t.bytes === 8 ? 2 : 1;
  const maxLength = args.maxSegmentLength;
  if (maxLength !== undefined && (typeof maxLength !== 'number' || !Number.isInteger(maxLength) || maxLength < 0)) {
    fail('invalid-argument', `${name}: maxSegmentLength must be a non-negative integer, got ${String(maxLength)}`);
  }
  const shortOnly = maxLength !== undefined && maxLength <= config.workgroupSize * config.itemsPerThread;
  const tmpValsWord = shortOnly ? 0 : count * keyWords;
  const tmpBytes = shortOnly ? 4 : (tmpValsWord + count * (valueBytes / 4)) * 4;
  if (tmpBytes > ctx.limits.maxStorageBufferBindingSize) {
    fail('limit-exceeded', `${name}: the scratch buffer of ${count} keys${pairs ? ' and values' : ''} needs ${tmpBytes} bytes, over maxStorageBufferBindingSize ${ctx.limits.maxStorageBufferBindingSize}`);
  }
  const placement = { valueBytes, keysInPlace, valuesInPlace, grouped };
  const passes = Math.ceil((endBit - beginBit) / config.radixBits);
  // Grouped, segments of more than HUGE_TILES tiles are sorted by every workgroup at once.
  const hugeLength = HUGE_TILES * config.workgroupSize * config.itemsPerThread;
  const hugeWords = hugeScratchWords(count, config.workgroupSize * config.itemsPerThread, 1 << config.radixBits);
  // Where their tile counts do not fit one binding, huge segments stay a workgroup's each.
  const huge = grouped && segments > 0 && passes > 0 && !(maxLength !== undefined && maxLength <= hugeLength)
    && Math.max(hugeWords.countWords, hugeWords.metaWords) * 4 <= bindable;
  // Some output is a separate buffer: the elements outside every segment are copied into it.
  const copy = segmentedSortMarks(placement);
  const copyGroups = ceilDiv(count, 256);
  if (copy && copyGroups > maxDim * maxDim) fail('limit-exceeded', `${name}: ${count} elements need ${copyGroups} workgroups for the copy of uncovered elements, over ${maxDim}^2`);
  // Grouped with a second, smaller tile: the segments it holds and the tiny ones in one launch,
  // the longer ones in a launch of their own.
  const short = grouped && config.shortItemsPerThread > 0 ? config.workgroupSize * config.shortItemsPerThread : undefined;
  const kernelOptions = { key: t, config, subgroupMinSize: ctx.target.subgroupMinSize, subgroupMaxSize: ctx.target.subgroupMaxSize, ...placement, hugeLength: huge ? hugeLength : undefined };
  const sortKernel = segmentedRadixSortKernel({ ...kernelOptions, tinySorts: short === undefined });
  const shortKernel = short === undefined ? undefined : segmentedRadixSortKernel({ ...kernelOptions, config: { ...config, itemsPerThread: config.shortItemsPerThread }, hugeLength: undefined });
  const copyKernel = copy ? segmentedCopyKernel({ key: t, ...placement }) : undefined;
  const begins = { buffer: args.beginOffsets, offset: 0, size: (omitted ? segments + 1 : segments) * 4 };
  const ends = omitted ? begins : { buffer: args.endOffsets!, offset: 0, size: segments * 4 };
  // Every pipeline exists before anything is recorded.
  const [sortPipeline, copyPipeline, grouping, hugeSort, shortPipeline] = await Promise.all([
    ctx.pipeline(sortKernel),
    copyKernel ? ctx.pipeline(copyKernel) : undefined,
    grouped && segments > 0
      ? prepareGrouping(ctx, tables.partition, tables.select, {
        count, segments, begins, ends, endsOmitted: omitted, tiny: ctx.target.subgroupMinSize * config.subgroupKeysPerLane, segmentsPerWorkgroup: config.segmentsPerWorkgroup,
        huge: huge ? hugeLength : undefined, short,
      })
      : undefined,
    huge
      ? prepareHugeSort(ctx, { shape: kernelOptions, count, beginBit, endBit, passes, descending, tmpVals: tmpValsWord, words: hugeWords })
      : undefined,
    shortKernel ? ctx.pipeline(shortKernel) : undefined,
  ]);
  // Nothing to move: no elements, or everything in place and no digit to sort by.
  if (count === 0 || (!copy && passes === 0)) return;

  const keyBytes = roundUp(count * t.bytes, 4);
  const valBytes = count * valueBytes;
  const bitmapBytes = ceilDiv(count, 32) * 4;
  const covered = copy ? ctx.scratch('segmentedRadixSort.covered', bitmapBytes) : undefined;
  const tmp = segments > 0 ? ctx.scratch('segmentedRadixSort.tmp', tmpBytes) : undefined;
  const bind = (buffer: GPUBuffer, bytes: number): GPUBufferBinding => ({ buffer, offset: 0, size: bytes });
  // Bindings by role; the kernels say which roles they take, in which order.
  const io: Record<string, GPUBufferBinding | undefined> = {
    keys_in: bind(args.keys, keyBytes),
    keys_out: bind(keysOut, keyBytes),
    vals_in: pairs ? bind(p.values, valBytes) : undefined,
    vals_out: pairs ? bind(valuesOut!, valBytes) : undefined,
    covered: covered ? bind(covered, bitmapBytes) : undefined,
  };
  const entriesFor = (roles: readonly string[], extra: Record<string, GPUBufferBinding>): GPUBufferBinding[] => roles.map((r) => (extra[r] ?? io[r])!);
  if (covered) encoder.clearBuffer(covered, 0, bitmapBytes);
  if (segments > 0) {
    const params = { buffer: ctx.uniform(new Uint32Array([count, segments, beginBit, endBit, descending ? 0xffffffff : 0, omitted ? 1 : 0, tmpValsWord, passes])) };
    const scratch = bind(tmp!, roundUp(Math.max(tmpBytes, 4), 4));
    if (grouping) {
      // Longer segments first, a workgroup each, then the tiny ones: the grid comes from the partition's count.
      grouping.record(encoder);
      const entries = (list: GPUBufferBinding, counts: GPUBufferBinding): GPUBufferBinding[] => entriesFor(segmentedSortBindingRoles(placement), { params, tmp: scratch, list, counts });
      if (shortKernel && shortPipeline) {
        ctx.dispatchIndirect(encoder, shortKernel.label, shortPipeline, ctx.bindGroup(shortPipeline, shortKernel.key, entries(grouping.list, grouping.counts)), grouping.grid);
        ctx.dispatchIndirect(encoder, sortKernel.label, sortPipeline, ctx.bindGroup(sortPipeline, sortKernel.key, entries(grouping.longer!, grouping.longerCount!)), grouping.grid, LONGER_GRID);
      } else {
        ctx.dispatchIndirect(encoder, sortKernel.label, sortPipeline, ctx.bindGroup(sortPipeline, sortKernel.key, entries(grouping.list, grouping.counts)), grouping.grid);
      }
      if (hugeSort) hugeSort(encoder, { huge: grouping.huge!, found: grouping.found!, io: { ...io, tmp: scratch } });
    } else {
      const entries = entriesFor(segmentedSortBindingRoles(placement), { params, tmp: scratch, begins, ends });
      ctx.dispatch(encoder, sortKernel.label, sortPipeline, ctx.bindGroup(sortPipeline, sortKernel.key, entries), groups);
    }
  }
  if (copyKernel && copyPipeline) {
    const params = { buffer: ctx.uniform(new Uint32Array([count])) };
    const entries = entriesFor(segmentedCopyBindingRoles(placement), { params });
    ctx.dispatch(encoder, copyKernel.label, copyPipeline, ctx.bindGroup(copyPipeline, copyKernel.key, entries), copyGroups);
  }
}
