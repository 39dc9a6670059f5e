// The batch copy (rocPRIM `batch_memcpy`): many byte ranges of one buffer copied into another
// in one call, at any byte offsets and sizes.
import { fail, WgprimError } from '../../runtime/errors.js';
import { type ElementType, typeInfo } from '../../wgsl/types.js';
import { type AlgorithmEnv, type ArrayEnv, type BenchmarkSpec, defineAlgorithm } from '../spec.js';
import { scanTable } from '../scan/table.js';
import { compareArrays } from '../reference.js';
import { type BatchCopyConfig } from './config.js';
import { type BatchCopyArgs, type BatchCopyRows, prepareBatchCopy, recordBatchCopy } from './batch-copy.js';
import { batchMemcpyTable } from './table.js';
import { batchCopyReference, rangesProblem } from './reference.js';

export interface ArrayBatchCopyRanges {
  readonly sourceOffsets: Uint32Array;
  readonly destinationOffsets: Uint32Array;
  readonly sizes: Uint32Array;
}

const rowsOf = (env: AlgorithmEnv): BatchCopyRows => ({ rows: env.rows(batchMemcpyTable), scanRows: env.rows(scanTable) });

function calls(env: AlgorithmEnv) {
  return {
    /**
     * Records the copy of `batches` byte ranges: `sizes[i]` bytes from `source` at
     * `sourceOffsets[i]` to `destination` at `destinationOffsets[i]`. Destination ranges must not
     * overlap; a range outside either buffer is skipped (that cannot be checked before launch).
     */
    batchCopy: (encoder: GPUCommandEncoder, args: BatchCopyArgs): Promise<void> => recordBatchCopy(env.context, rowsOf(env), encoder, args),
  };
}

/** A copy of `destination` with every range copied from `source`; the ranges are checked on the CPU first. */
async function arrayBatchCopy(env: ArrayEnv, source: Uint8Array, destination: Uint8Array, ranges: ArrayBatchCopyRanges, options: { readonly config?: Partial<BatchCopyConfig> } = {}): Promise<Uint8Array> {
  if (!(source instanceof Uint8Array) || !(destination instanceof Uint8Array)) fail('unsupported-type', 'batchCopy copies between two Uint8Arrays');
  if (!ranges || typeof ranges !== 'object') fail('invalid-argument', 'batchCopy needs ranges { sourceOffsets, destinationOffsets, sizes } (Uint32Arrays)');
  const { sourceOffsets, destinationOffsets, sizes } = ranges;
  for (const [name, a] of [['sourceOffsets', sourceOffsets], ['destinationOffsets', destinationOffsets], ['sizes', sizes]] as const) {
    if (!(a instanceof Uint32Array)) fail('invalid-argument', `batchCopy ranges.${name} must be a Uint32Array`);
  }
  if (sourceOffsets.length !== sizes.length || destinationOffsets.length !== sizes.length) fail('invalid-argument', `batchCopy has ${sourceOffsets.length} source offsets, ${destinationOffsets.length} destination offsets and ${sizes.length} sizes`);
  const problem = rangesProblem(source.length, destination.length, ranges);
  if (problem) fail(problem.code, `batchCopy: ${problem.message}`);
  if (options.config !== undefined) env.select(batchMemcpyTable, 'u32', 0, options.config);
  const buffers = [env.upload(source), env.upload(destination), env.upload(sourceOffsets), env.upload(destinationOffsets), env.upload(sizes)];
  try {
    const [src, dst, soff, doff, size] = buffers as [GPUBuffer, GPUBuffer, GPUBuffer, GPUBuffer, GPUBuffer];
    const record = await prepareBatchCopy(env.context, rowsOf(env), {
      source: src, destination: dst, sourceOffsets: soff, destinationOffsets: doff, sizes: size, batches: sizes.length, config: options.config,
    });
    const [result] = await env.runAll([[dst, destination.length]], async (enc) => record(enc));
    return new Uint8Array(result!, 0, destination.length);
  } finally {
    for (const b of buffers) b.destroy();
  }
}

/**
 * The benchmark's ranges: `count` sizes in [16, 4096] bytes, log-uniform (as many of each
 * octave: every size class gets its share), multiples of the element type's size (u32: the
 * aligned case, f16: 2-byte granularity), packed one after another in both buffers.
 */
export function benchRanges(type: ElementType, count: number): { readonly sizes: Uint32Array<ArrayBuffer>; readonly offsets: Uint32Array<ArrayBuffer>; readonly total: number } {
  const g = typeInfo(type).bytes;
  let x = 0x9e3779b9;
  const sizes = new Uint32Array(count);
  const offsets = new Uint32Array(count);
  let total = 0;
  for (let i = 0; i < count; i++) {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    const bytes = Math.floor((16 * 256 ** (x / 2 ** 32)) / g) * g;
    offsets[i] = total;
    sizes[i] = bytes;
    total += bytes;
  }
  return { offsets, sizes, total };
}

let lastRanges: { key: string; ranges: ReturnType<typeof benchRanges> } | undefined;
function cachedRanges(type: ElementType, count: number): ReturnType<typeof benchRanges> {
  const key = `${type}:${count}`;
  if (lastRanges?.key !== key) lastRanges = { key, ranges: benchRanges(type, count) };
  return lastRanges.ranges;
}

/**
 * A size's "array" is its `size` u32 range entries; the ranges' bytes (about 740 a range, 185
 * times the entries' bytes) must fit one binding: so the runner and the tuner skip sizes past it.
 */
const RANGE_BYTES_LIMIT = (limits: GPUSupportedLimits): number => Math.floor(limits.maxStorageBufferBindingSize / 185);

const benchmarks: readonly BenchmarkSpec[] = [{
  name: 'batch_memcpy',
  anchor: null,
  table: batchMemcpyTable,
  input: 'values',
  valueBytes: 0,
  needsTypeFeature: false,
  nameFields: (type: ElementType) => ({ lvl: 'device', algo: 'batch_memcpy', value_type: type }),
  // The bytes copied, read and written, and each range's three words.
  bytesPerCall: (type, n) => 2 * cachedRanges(type, n).total + 12 * n,
  maxArrayBytes: RANGE_BYTES_LIMIT,
  prepare: async (env, c, r) => {
    const ranges = cachedRanges(c.type, c.count);
    const max = env.context.limits.maxStorageBufferBindingSize;
    if (ranges.total > max) throw new WgprimError('limit-exceeded', `${c.count} ranges of 16..4096 bytes take ${ranges.total} bytes, over this device's maxStorageBufferBindingSize of ${max}`);
    const bytes = Math.ceil(ranges.total / 4) * 4;
    const offsets = r.buffer('batch.offsets', 4 * c.count);
    const sizes = r.buffer('batch.sizes', 4 * c.count);
    r.device.queue.writeBuffer(offsets, 0, ranges.offsets);
    r.device.queue.writeBuffer(sizes, 0, ranges.sizes);
    await r.device.queue.onSubmittedWorkDone();
    const args: BatchCopyArgs = {
      source: r.buffer('batch.source', bytes), destination: r.buffer('batch.destination', bytes), sourceOffsets: offsets, destinationOffsets: offsets, sizes, batches: c.count,
      config: c.config as unknown as BatchCopyConfig,
    };
    const record = await prepareBatchCopy(env.context, rowsOf(env), args);
    return async (encoder) => record(encoder);
  },
}, {
  // The baseline of the goal: the same ranges as one copyBufferToBuffer each (4-byte
  // granularity only: u32, u64). Recording 2^20 commands takes the host a while; the GPU's time is what is timed.
  name: 'batch_memcpy_copy_buffer',
  anchor: null,
  table: batchMemcpyTable,
  input: 'values',
  valueBytes: 0,
  needsTypeFeature: false,
  nameFields: (type: ElementType) => ({ lvl: 'device', algo: 'batch_memcpy_copy_buffer', value_type: type }),
  bytesPerCall: (type, n) => 2 * cachedRanges(type, n).total,
  maxArrayBytes: RANGE_BYTES_LIMIT,
  prepare: async (_env, c, r) => {
    if (typeInfo(c.type).bytes % 4 !== 0) throw new WgprimError('invalid-argument', 'batch_memcpy_copy_buffer needs ranges of whole words (copyBufferToBuffer): use --type u32 or u64');
    const { offsets, sizes, total } = cachedRanges(c.type, c.count);
    const source = r.buffer('batch.source', total);
    const destination = r.buffer('batch.destination', total);
    return async (encoder) => {
      for (let i = 0; i < c.count; i++) encoder.copyBufferToBuffer(source, offsets[i]!, destination, offsets[i]!, sizes[i]!);
    };
  },
}];

export const batchCopyAlgorithm = defineAlgorithm({
  name: 'batch-copy',
  summary: 'many byte ranges copied in one call, at any byte offsets and sizes',
  tables: [batchMemcpyTable],
  benchmarks,
  tuning: [{
    stage: 'batch_memcpy', table: batchMemcpyTable, benchmarks: ['batch_memcpy'], defaultBenchmarks: ['batch_memcpy'],
    // 8 lanes a range came within 0.67x of the best on the H200.
    defaultSpace: { workgroupSize: [256], lanes: [16, 32], wordsPerLane: [2, 4, 8], workgroups: [1024, 2048, 4096] },
    smallSpace: { workgroupSize: [64, 256], lanes: [8, 32], wordsPerLane: [4], workgroups: [16, 64] },
    smallSizes: [1 << 12, 1 << 14],
    // Ranges, not elements: 2^20 ranges move about 0.77 GB each way; 2^24 would not fit one binding.
    gpuSizes: [1 << 16, 1 << 20],
    // A call takes the u32 row (4-byte granularity); other types time other granularities.
    smallTypes: ['u32'],
    gpuTypes: ['u32'],
    // The ranges pass, the copy pass, and the scan of the unit counts (up to three passes).
    cost: { pipelines: () => 5, passes: () => 1, launchOnly: ['workgroups'] },
    fullCoverageCount: () => 1 << 16,
  }],
  calls,
  arrays: (env: ArrayEnv) => ({
    /** A copy of `destination` with `sizes[i]` bytes of `source` from `sourceOffsets[i]` at `destinationOffsets[i]`, for every i. */
    batchCopy: (source: Uint8Array, destination: Uint8Array, ranges: ArrayBatchCopyRanges, options?: { readonly config?: Partial<BatchCopyConfig> }): Promise<Uint8Array> =>
      arrayBatchCopy(env, source, destination, ranges, options),
  }),
  demo: (arrays, { u32 }) => {
    // Ranges of 0..300 bytes at odd offsets, packed with gaps of 0..2 bytes: every alignment, shared edge words.
    const source = new Uint8Array(u32.buffer, u32.byteOffset, u32.byteLength);
    const n = Math.min(4096, Math.floor(source.length / 160));
    const sizes = Uint32Array.from({ length: n }, (_, i) => u32[i]! % 301);
    const sourceOffsets = Uint32Array.from(sizes, (s, i) => (u32[n + i]! % Math.max(1, source.length - s)));
    const destinationOffsets = new Uint32Array(n);
    let at = 0;
    for (let i = 0; i < n; i++) { destinationOffsets[i] = at; at += sizes[i]! + (u32[2 * n + i]! % 3); }
    const destination = new Uint8Array(at);
    const ranges = { sourceOffsets, destinationOffsets, sizes };
    return [{
      name: `batchCopy (${n} ranges of 0..300 bytes, unaligned)`,
      run: () => arrays.batchCopy(source, destination, ranges),
      verify: (g: unknown) => compareArrays(g, batchCopyReference(source, destination, ranges)),
    }];
  },
});
