import { type DeviceContext, checkCount } from '../../runtime/context.js';
import { ceilDiv, roundUp } from '../../runtime/dispatch.js';
import { fail } from '../../runtime/errors.js';
import { type ElementType, typeClassOf, typeInfo, type TypeInfo } from '../../wgsl/types.js';
import { selectWithOverride } from '../../config/select.js';
import { type SelectedConfig, type TunedEntry } from '../../config/types.js';
import { radixBitRange, radixKeyInfo, type RadixSortKeyType } from '../radix-sort/radix-sort.js';
import { type SegmentedRadixSortConfig, segmentedRadixSortConfigProblem, segmentedRadixSortHeuristic } from './config.js';
import { segmentedCopyKernel, segmentedRadixSortKernel } from './kernel.js';

export interface SegmentedRadixSortKeysArgs {
  readonly keys: GPUBuffer;
  /** Sorted keys go here: a buffer other than `keys`. */
  readonly keysOut: GPUBuffer;
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
   */
  readonly maxSegmentLength?: number;
}

export interface SegmentedRadixSortPairsArgs extends SegmentedRadixSortKeysArgs {
  readonly values: GPUBuffer;
  /** A buffer other than `values`, `keys` and `keysOut`. */
  readonly valuesOut: GPUBuffer;
  readonly valueBytes: 4 | 8;
}

export function selectSegmentedRadixSortConfig(
  ctx: DeviceContext,
  tables: readonly (readonly TunedEntry<SegmentedRadixSortConfig>[])[],
  type: ElementType,
  valueBytes: 0 | 4 | 8,
  override?: Partial<SegmentedRadixSortConfig>,
): SelectedConfig<SegmentedRadixSortConfig> {
  const t = radixKeyInfo(type);
  return selectWithOverride('segmentedRadixSort', tables, ctx.target, { ...typeClassOf(type), valueBytes }, (c) => segmentedRadixSortConfigProblem(ctx, t, valueBytes, c), () => segmentedRadixSortHeuristic(ctx, t, valueBytes), override);
}

const VALUE_INFO: Record<4 | 8, TypeInfo> = { 4: typeInfo('u32'), 8: typeInfo('u64') };
const U32 = typeInfo('u32');

/**
 * Records a stable radix sort of each segment [begin[i], end[i]) of the keys (and values) into
 * `encoder`. Segments are independent (CUB's DeviceSegmentedRadixSort): they may be empty, lie
 * in any order and leave gaps; they must not overlap. An end before its begin is an empty
 * segment; bounds past `count` are clamped to it. Elements that no segment covers are copied
 * unchanged to the output (CUB leaves them undefined).
 */
export async function recordSegmentedRadixSort(
  ctx: DeviceContext,
  tables: readonly (readonly TunedEntry<SegmentedRadixSortConfig>[])[],
  encoder: GPUCommandEncoder,
  args: SegmentedRadixSortKeysArgs | SegmentedRadixSortPairsArgs,
  pairs: boolean,
): Promise<void> {
  ctx.assertAlive();
  const name = pairs ? 'segmentedRadixSortPairs' : 'segmentedRadixSortKeys';
  if (!args || typeof args !== 'object') {
    fail('invalid-argument', `${name} needs an argument object { keys, keysOut, count, segments, beginOffsets, endOffsets?, type${pairs ? ', values, valuesOut, valueBytes' : ''} }`);
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
  ctx.checkBuffer(`${name} keys`, args.keys, count, t);
  if (args.keysOut === undefined) fail('invalid-argument', `${name} needs keysOut: the segmented sort does not sort in place`);
  ctx.checkBuffer(`${name} keysOut`, args.keysOut, count, t);
  if (args.keysOut === args.keys) fail('overlap', `${name}: keysOut must be a buffer other than keys`);
  const omitted = args.endOffsets === undefined;
  ctx.checkBuffer(`${name} beginOffsets`, args.beginOffsets, omitted ? segments + 1 : segments, U32);
  if (!omitted) ctx.checkBuffer(`${name} endOffsets`, args.endOffsets, segments, U32);
  const offsetBuffers = new Set([args.beginOffsets, args.endOffsets]);
  if (offsetBuffers.has(args.keysOut)) fail('overlap', `${name}: keysOut must not be an offsets buffer`);
  if (pairs) {
    const vt = VALUE_INFO[valueBytes as 4 | 8];
    ctx.checkBuffer(`${name} values`, p.values, count, vt);
    if (p.valuesOut === undefined) fail('invalid-argument', `${name} needs valuesOut: the segmented sort does not sort in place`);
    ctx.checkBuffer(`${name} valuesOut`, p.valuesOut, count, vt);
    if (p.valuesOut === p.values) fail('overlap', `${name}: valuesOut must be a buffer other than values`);
    const keyBuffers = new Set([args.keys, args.keysOut]);
    if (keyBuffers.has(p.values) || keyBuffers.has(p.valuesOut)) fail('overlap', `${name}: keys and values must be in different buffers`);
    if (offsetBuffers.has(p.valuesOut)) fail('overlap', `${name}: valuesOut must not be an offsets buffer`);
  }
  if (args.descending !== undefined && typeof args.descending !== 'boolean') fail('invalid-argument', `descending must be a boolean, got ${String(args.descending)}`);
  const descending = args.descending ?? false;
  const { config } = selectSegmentedRadixSortConfig(ctx, tables, args.type, valueBytes, args.config);
  const groups = ceilDiv(segments, config.segmentsPerWorkgroup);
  if (groups > maxDim * maxDim) {
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
  const copyGroups = ceilDiv(count, 256);
  if (copyGroups > maxDim * maxDim) fail('limit-exceeded', `${name}: ${count} elements need ${copyGroups} workgroups for the copy of uncovered elements, over ${maxDim}^2`);
  const kernelOptions = { key: t, valueBytes, config, subgroupMinSize: ctx.target.subgroupMinSize, subgroupMaxSize: ctx.target.subgroupMaxSize };
  const sortKernel = segmentedRadixSortKernel(kernelOptions);
  const copyKernel = segmentedCopyKernel({ key: t, valueBytes });
  // Every pipeline exists before anything is recorded.
  const [sortPipeline, copyPipeline] = await Promise.all([ctx.pipeline(sortKernel), ctx.pipeline(copyKernel)]);
  if (count === 0) return;

  const keyBytes = roundUp(count * t.bytes, 4);
  const valBytes = count * valueBytes;
  const bitmapBytes = ceilDiv(count, 32) * 4;
  const covered = ctx.scratch('segmentedRadixSort.covered', bitmapBytes);
  const tmp = segments > 0 ? ctx.scratch('segmentedRadixSort.tmp', tmpBytes) : undefined;
  const bind = (buffer: GPUBuffer, bytes: number): GPUBufferBinding => ({ buffer, offset: 0, size: bytes });
  const coveredBinding = bind(covered, bitmapBytes);
  const keyIo = [bind(args.keys, keyBytes), bind(args.keysOut, keyBytes)];
  const valueIo = pairs ? [bind(p.values, valBytes), bind(p.valuesOut, valBytes)] : [];
  encoder.clearBuffer(covered, 0, bitmapBytes);
  if (segments > 0) {
    const passes = Math.ceil((endBit - beginBit) / config.radixBits);
    const params = { buffer: ctx.uniform(new Uint32Array([count, segments, beginBit, endBit, descending ? 0xffffffff : 0, omitted ? 1 : 0, tmpValsWord, passes])) };
    const begins = bind(args.beginOffsets, (omitted ? segments + 1 : segments) * 4);
    const ends = omitted ? begins : bind(args.endOffsets!, segments * 4);
    const entries = [params, ...keyIo, bind(tmp!, roundUp(Math.max(tmpBytes, 4), 4)), begins, ends, coveredBinding, ...valueIo];
    ctx.dispatch(encoder, sortKernel.label, sortPipeline, ctx.bindGroup(sortPipeline, sortKernel.key, entries), groups);
  }
  const copyParams = { buffer: ctx.uniform(new Uint32Array([count])) };
  ctx.dispatch(encoder, copyKernel.label, copyPipeline, ctx.bindGroup(copyPipeline, copyKernel.key, [copyParams, ...keyIo, coveredBinding, ...valueIo]), copyGroups);
}
