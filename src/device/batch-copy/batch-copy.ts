// Host side of the batch copy: checks what can be checked without reading the GPU's offsets and
// sizes, selects the config, compiles, and records the ranges pass, the scan of the unit counts
// and the copy pass.
import { type DeviceContext } from '../../runtime/context.js';
import { ceilDiv } from '../../runtime/dispatch.js';
import { fail } from '../../runtime/errors.js';
import { typeInfo } from '../../wgsl/types.js';
import { type TunedEntry } from '../../config/types.js';
import { selectFromTable } from '../select.js';
import { prepareScan } from '../scan/scan.js';
import { type ScanConfig } from '../scan/config.js';
import { type BatchCopyConfig } from './config.js';
import { batchMemcpyTable } from './table.js';
import { copyKernel, RANGES_WG, rangesKernel } from './kernel.js';

export interface BatchCopyArgs {
  /** Bytes are copied from here; its size a multiple of 4. Never `destination`. */
  readonly source: GPUBuffer;
  /** Bytes outside every range keep their values; its size a multiple of 4. */
  readonly destination: GPUBuffer;
  /** `batches` u32 byte offsets into `source`. */
  readonly sourceOffsets: GPUBuffer;
  /** `batches` u32 byte offsets into `destination`: the ranges must not overlap (they may share a word). */
  readonly destinationOffsets: GPUBuffer;
  /** `batches` u32 sizes in bytes. */
  readonly sizes: GPUBuffer;
  /** Number of ranges. */
  readonly batches: number;
  readonly config?: Partial<BatchCopyConfig>;
}

export interface BatchCopyRows {
  readonly rows: readonly (readonly TunedEntry<BatchCopyConfig>[])[];
  readonly scanRows: readonly (readonly TunedEntry<ScanConfig>[])[];
}

/** A whole buffer bound as bytes: STORAGE usage, a multiple of 4 bytes, within one binding. */
function checkByteBuffer(ctx: DeviceContext, what: string, b: GPUBuffer | undefined): asserts b is GPUBuffer {
  ctx.checkBuffer(what, b, 0, typeInfo('u32'));
  if (!b) return;
  if (b.size % 4 !== 0) fail('buffer-size', `${what} holds ${b.size} bytes; a batch copy binds whole buffers of whole 4-byte words`);
  if (b.size > ctx.limits.maxStorageBufferBindingSize) {
    fail('limit-exceeded', `${what} holds ${b.size} bytes, over this device's maxStorageBufferBindingSize of ${ctx.limits.maxStorageBufferBindingSize}: a batch copy binds the whole buffer; ${ctx.limitAdvice('maxStorageBufferBindingSize', b.size, 'copy through smaller buffers')}`);
  }
}

/** Checks the call, selects its config and compiles its pipelines; the result records it. */
export async function prepareBatchCopy(ctx: DeviceContext, rows: BatchCopyRows, args: BatchCopyArgs): Promise<(encoder: GPUCommandEncoder) => void> {
  ctx.assertAlive();
  if (!args || typeof args !== 'object') fail('invalid-argument', 'batchCopy needs an argument object { source, destination, sourceOffsets, destinationOffsets, sizes, batches }');
  const { batches } = args;
  if (typeof batches !== 'number' || !Number.isInteger(batches) || batches < 0 || batches > 0xffffffff) fail('invalid-argument', `batchCopy batches must be a non-negative integer below 2^32, got ${String(batches)}`);
  checkByteBuffer(ctx, 'batchCopy source', args.source);
  checkByteBuffer(ctx, 'batchCopy destination', args.destination);
  const u32 = typeInfo('u32');
  ctx.checkBuffer('batchCopy sourceOffsets', args.sourceOffsets, batches, u32);
  ctx.checkBuffer('batchCopy destinationOffsets', args.destinationOffsets, batches, u32);
  ctx.checkBuffer('batchCopy sizes', args.sizes, batches, u32);
  // A written binding may share its buffer with no other binding of the dispatch.
  if (args.source === args.destination) fail('overlap', 'batchCopy source and destination are the same buffer: copy within a buffer through a second one');
  for (const [name, b] of [['sourceOffsets', args.sourceOffsets], ['destinationOffsets', args.destinationOffsets], ['sizes', args.sizes]] as const) {
    if (b === args.destination) fail('overlap', `batchCopy ${name} is the destination buffer`);
  }
  const { config } = selectFromTable(ctx, batchMemcpyTable, rows.rows, 'u32', 0, args.config);
  if (batches === 0) return () => undefined;

  const ranges = rangesKernel(config);
  const copy = copyKernel(config);
  const units = ctx.scratch('batch-copy.units', batches * 4);
  const [rangesPipeline, copyPipeline, scan] = await Promise.all([
    ctx.pipeline(ranges), ctx.pipeline(copy),
    // Inclusive and in place: units[i] becomes the end of range i's units.
    prepareScan(ctx, rows.scanRows, { input: units, output: units, count: batches, type: 'u32' }, false),
  ]);
  const groups = config.workgroups * (config.workgroupSize / config.lanes);

  return (encoder) => {
    const params = ctx.uniform(new Uint32Array([batches, args.source.size, args.destination.size, groups]));
    // An empty buffer cannot be bound: a placeholder stands in (every range is then outside it).
    const whole = (b: GPUBuffer, role: string): GPUBufferBinding => (b.size > 0 ? { buffer: b } : { buffer: ctx.scratch(role, 4), offset: 0, size: 4 });
    const table = (b: GPUBuffer): GPUBufferBinding => ({ buffer: b, offset: 0, size: batches * 4 });
    const front: GPUBufferBinding[] = [
      { buffer: params }, whole(args.source, 'batch-copy.empty-source'), table(args.sourceOffsets), table(args.destinationOffsets), table(args.sizes), table(units),
    ];
    const dst = whole(args.destination, 'batch-copy.empty-destination');
    ctx.dispatch(encoder, ranges.label, rangesPipeline, ctx.bindGroup(rangesPipeline, ranges.key, [...front, dst]), ceilDiv(batches, RANGES_WG));
    scan(encoder);
    ctx.dispatch(encoder, copy.label, copyPipeline, ctx.bindGroup(copyPipeline, copy.key, [...front, dst]), config.workgroups);
  };
}

/** Records one batch copy into `encoder`. */
export async function recordBatchCopy(ctx: DeviceContext, rows: BatchCopyRows, encoder: GPUCommandEncoder, args: BatchCopyArgs): Promise<void> {
  (await prepareBatchCopy(ctx, rows, args))(encoder);
}
