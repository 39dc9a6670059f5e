// Benchmarks one device algorithm on seeded random data: browser-safe.
import { WgprimError } from '../runtime/errors.js';
import { roundUp } from '../runtime/dispatch.js';
import { type ElementType, type TypeInfo, typeInfo } from '../wgsl/types.js';
import { f16Bits } from '../wgsl/values.js';
import { type ScanConfig } from '../device/scan/config.js';
import { type ReduceConfig } from '../device/reduce/config.js';
import { type TransformConfig } from '../device/transform/config.js';
import { type RadixSortConfig } from '../device/radix-sort/config.js';
import { type RadixSortKeyType } from '../device/radix-sort/radix-sort.js';
import { type SegmentedRadixSortConfig } from '../device/segmented-radix-sort/config.js';
import { type RadixSortBlockSortConfig } from '../device/radix-sort/block-sort-config.js';
import type { Prim } from '../prim.js';
import { type SelectedConfig } from '../config/types.js';
import { type BenchRecord, formatName, type NameFields } from './gbench.js';
import { type RecordCall, releaseColdCacheBuffer, type RunTimingOptions, timeGpu } from './timing.js';

/** What `bench --algorithm` takes; `scan` means both scans. */
export type BenchAlgorithm = 'scan' | 'inclusive_scan' | 'exclusive_scan' | 'reduce' | 'transform' | 'radix_sort_keys' | 'radix_sort_pairs' | 'segmented_radix_sort';
/** One timed algorithm: the names the CUB anchors use. */
export type SingleAlgorithm = Exclude<BenchAlgorithm, 'scan'>;
export const SINGLE_ALGORITHMS: readonly SingleAlgorithm[] = ['inclusive_scan', 'exclusive_scan', 'reduce', 'transform', 'radix_sort_keys', 'radix_sort_pairs', 'segmented_radix_sort'];

export function expandAlgorithm(a: BenchAlgorithm | 'all'): SingleAlgorithm[] {
  if (a === 'all') return [...SINGLE_ALGORITHMS];
  if (a === 'scan') return ['inclusive_scan', 'exclusive_scan'];
  if (!SINGLE_ALGORITHMS.includes(a)) throw new WgprimError('invalid-argument', `unknown algorithm "${String(a)}": use scan, inclusive_scan, exclusive_scan, reduce, transform, radix_sort_keys, radix_sort_pairs, segmented_radix_sort or all`);
  return [a];
}

export type ConfigFamily = 'scan' | 'reduce' | 'transform' | 'radixSort' | 'segmentedRadixSort';

/** The config family (the tuned table; `Prim.selectedConfig` key or radix sort) of an algorithm. */
export function configFamily(a: SingleAlgorithm): ConfigFamily {
  if (a === 'segmented_radix_sort') return 'segmentedRadixSort';
  if (a === 'radix_sort_keys' || a === 'radix_sort_pairs') return 'radixSort';
  return a === 'reduce' || a === 'transform' ? a : 'scan';
}

/** Bytes of a radix sort benchmark's values: u32 indices for pairs, none for keys only. */
export function radixValueBytes(a: SingleAlgorithm): 0 | 4 {
  return a === 'radix_sort_pairs' ? 4 : 0;
}

export type AnyConfig = ScanConfig | ReduceConfig | TransformConfig | RadixSortConfig | SegmentedRadixSortConfig;

/** `Prim.selectedConfig` for a family named at run time (radix sort: keys only). */
export function selectedFor(prim: Prim, family: ConfigFamily, type: ElementType, valueBytes: 0 | 4 | 8 = 0): SelectedConfig<AnyConfig> {
  switch (family) {
    case 'scan': return prim.selectedConfig('scan', type);
    case 'reduce': return prim.selectedConfig('reduce', type);
    case 'transform': return prim.selectedConfig('transform', type);
    case 'radixSort': return prim.selectedRadixSortConfig(type, valueBytes);
    case 'segmentedRadixSort': return prim.selectedSegmentedRadixSortConfig(type, valueBytes);
  }
}

/** `warmupMs` applies after inputs that took over IDLE_WARMUP_AFTER_MS to make. */
export interface BenchmarkOptions extends RunTimingOptions {
  readonly algorithm: BenchAlgorithm;
  readonly type: ElementType;
  /** Elements per call. */
  readonly size: number;
  readonly seed: number;
  /** Overrides the selected config, field by field. */
  readonly config?: Partial<ScanConfig> | Partial<ReduceConfig> | Partial<TransformConfig> | Partial<RadixSortConfig> | Partial<SegmentedRadixSortConfig>;
}

// ---------------------------------------------------------------------------------------------
// Names in rocPRIM's grammar; the grammar allows no '-', so reduce-then-scan becomes reduce_then_scan.

export function scanName(exclusive: boolean, type: string, c: ScanConfig): string {
  return formatName({ lvl: 'device', algo: 'scan', exclusive, value_type: type, cfg: { bs: c.workgroupSize, ipt: c.itemsPerThread, lookback: c.lookback.replace(/-/g, '_'), method: c.workgroupScan } });
}
export function reduceName(type: string, c: ReduceConfig): string {
  return formatName({ lvl: 'device', algo: 'reduce', key_type: type, cfg: { bs: c.workgroupSize, ipt: c.itemsPerThread, max_wg: c.maxWorkgroups, method: c.workgroupReduce } });
}
export function transformName(type: string, c: TransformConfig): string {
  return formatName({ lvl: 'device', algo: 'transform', value_type: type, cfg: { bs: c.workgroupSize, ipt: c.itemsPerThread } });
}
/** The LSD radix sort's passes (rocPRIM's `radix_sort_onesweep`); `valueType` is `empty` for keys only (rocPRIM's `empty_type`). */
export function radixSortName(keyType: string, valueType: string, c: RadixSortConfig): string {
  return formatName({
    lvl: 'device', algo: 'radix_sort_onesweep', key_type: keyType, value_type: valueType,
    cfg: {
      bs: c.workgroupSize, ipt: c.itemsPerThread, bits: c.radixBits, rank: c.rank, method: c.workgroupScan, lookback: c.lookback.replace(/-/g, '_'), hist_bs: c.histogramWorkgroupSize, hist_ipt: c.histogramItemsPerThread,
      // Only where set, so names of configs without the threshold read as they did before it.
      ...(c.decoupledMaxCount ? { dec_max: c.decoupledMaxCount } : {}),
      ...(c.passKernels === 'shared' ? { pk: 'shared' } : {}),
    },
  });
}

/** The radix sort's small-size path (block sort + merge passes; rocPRIM's `radix_sort_block_sort`). */
export function radixSortBlockSortName(keyType: string, valueType: string, c: RadixSortBlockSortConfig): string {
  return formatName({
    lvl: 'device', algo: 'radix_sort_block_sort', key_type: keyType, value_type: valueType,
    cfg: { bs: c.workgroupSize, ipt: c.itemsPerThread, bits: c.radixBits, rank: c.rank, merge_bs: c.mergeWorkgroupSize, merge_ipt: c.mergeItemsPerThread, max: c.maxCount },
  });
}
/**
 * The segmented radix sort (rocPRIM's `segmented_radix_sort`); `segmentLength` is the fixed
 * length of the benchmark's segments (the CUB anchors' `seg1024`).
 */
export function segmentedRadixSortName(keyType: string, valueType: string, segmentLength: number, c: SegmentedRadixSortConfig): string {
  return formatName({
    lvl: 'device', algo: 'segmented_radix_sort', key_type: keyType, value_type: valueType, segment_length: segmentLength,
    cfg: { bs: c.workgroupSize, ipt: c.itemsPerThread, bits: c.radixBits, rank: c.rank, spw: c.segmentsPerWorkgroup },
  });
}
/** Fixed segment length of the `segmented_radix_sort` benchmark (CUB's anchor: 1024). */
export const BENCH_SEGMENT_LENGTH = 1024;

/** The config a parsed name's `cfg` describes (the inverse of the names above). */
export function configFromName(algo: string, cfg: NameFields): AnyConfig | RadixSortBlockSortConfig {
  const num = (k: string): number => {
    const v = cfg[k];
    if (typeof v !== 'number') throw new WgprimError('invalid-argument', `benchmark name cfg lacks numeric "${k}"`);
    return v;
  };
  const str = (k: string): string => String(cfg[k] ?? '');
  switch (algo) {
    case 'scan':
      return { workgroupSize: num('bs'), itemsPerThread: num('ipt'), lookback: str('lookback').replace(/_/g, '-') as ScanConfig['lookback'], workgroupScan: str('method') as ScanConfig['workgroupScan'] };
    case 'reduce':
      return { workgroupSize: num('bs'), itemsPerThread: num('ipt'), maxWorkgroups: num('max_wg'), workgroupReduce: str('method') as ReduceConfig['workgroupReduce'] };
    case 'transform':
      return { workgroupSize: num('bs'), itemsPerThread: num('ipt') };
    case 'radix_sort_onesweep':
      return {
        workgroupSize: num('bs'), itemsPerThread: num('ipt'), radixBits: num('bits'), rank: str('rank') as RadixSortConfig['rank'],
        workgroupScan: str('method') as RadixSortConfig['workgroupScan'], lookback: str('lookback').replace(/_/g, '-') as RadixSortConfig['lookback'],
        histogramWorkgroupSize: num('hist_bs'), histogramItemsPerThread: num('hist_ipt'), decoupledMaxCount: cfg.dec_max === undefined ? 0 : num('dec_max'),
        passKernels: cfg.pk === undefined ? 'specialized' : str('pk') as RadixSortConfig['passKernels'],
      };
    case 'radix_sort_block_sort':
      return {
        workgroupSize: num('bs'), itemsPerThread: num('ipt'), radixBits: num('bits'), rank: str('rank') as RadixSortBlockSortConfig['rank'],
        mergeWorkgroupSize: num('merge_bs'), mergeItemsPerThread: num('merge_ipt'), maxCount: num('max'),
      };
    case 'segmented_radix_sort':
      return { workgroupSize: num('bs'), itemsPerThread: num('ipt'), radixBits: num('bits'), rank: str('rank') as SegmentedRadixSortConfig['rank'], segmentsPerWorkgroup: num('spw') };
    default:
      throw new WgprimError('invalid-argument', `no config mapping for benchmark algo "${algo}"`);
  }
}

// ---------------------------------------------------------------------------------------------
// Inputs

/** Elements generated at random; the rest of a buffer repeats this block (as rocPRIM does). */
export const RANDOM_BLOCK = 1 << 20;
// Writes between queue drains, so staging memory for a 1 GiB upload stays bounded.
const DRAIN_BYTES = 256 << 20;

/** std::minstd_rand (Park-Miller, multiplier 48271), seeded through a splitmix32 scramble. */
export function minstd(seed: number): () => number {
  let z = (seed >>> 0) + 0x9e3779b9;
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
  let state = ((z ^ (z >>> 16)) >>> 0) % 2147483647 || 1;
  return () => (state = (state * 48271) % 2147483647);
}

/** `count` random values of `t` in [0, 1000] (rocPRIM's scan/reduce range) as raw bytes. */
export function randomBlock(t: TypeInfo, count: number, seed: number): Uint8Array {
  const next = minstd(seed);
  const value = (): number => next() % 1001;
  // Whole words, so every chunk of it is a valid writeBuffer size.
  const bytes = new Uint8Array(roundUp(count * t.bytes, 4));
  const words = new Uint32Array(bytes.buffer, 0, (count * t.bytes) >> 2);
  switch (t.name) {
    case 'u32': case 'i32':
      for (let i = 0; i < count; i++) words[i] = value();
      break;
    case 'f32': {
      const f = new Float32Array(bytes.buffer);
      for (let i = 0; i < count; i++) f[i] = value();
      break;
    }
    case 'f16': {
      const h = new Uint16Array(bytes.buffer);
      for (let i = 0; i < count; i++) h[i] = f16Bits(value());
      break;
    }
    case 'u64': case 'i64':
      for (let i = 0; i < count; i++) words[2 * i] = value(); // high word stays 0
      break;
  }
  return bytes;
}

/**
 * `count` random sort keys of `t` as raw bytes, as CUB's radix sort anchors take them: integer
 * keys uniform over all their bits, float keys uniform in [-1, 1).
 */
export function randomSortKeys(t: TypeInfo, count: number, seed: number): Uint8Array {
  return sortKeysFrom(t, count, minstd(seed));
}

/** `count` sort keys of `t` drawn from `next`, which goes on where the last call left it. */
function sortKeysFrom(t: TypeInfo, count: number, next: () => number): Uint8Array {
  const word = (): number => (((next() & 0xffff) << 16) | (next() & 0xffff)) >>> 0;
  const unit = (): number => (next() / 2147483647) * 2 - 1;
  const bytes = new Uint8Array(roundUp(count * t.bytes, 4));
  switch (t.name) {
    case 'u32': case 'i32': case 'u64': case 'i64': {
      const words = new Uint32Array(bytes.buffer, 0, (count * t.bytes) >> 2);
      for (let i = 0; i < words.length; i++) words[i] = word();
      break;
    }
    case 'f32': {
      const f = new Float32Array(bytes.buffer, 0, count);
      for (let i = 0; i < count; i++) f[i] = unit();
      break;
    }
    case 'f16': {
      const h = new Uint16Array(bytes.buffer, 0, count);
      for (let i = 0; i < count; i++) h[i] = f16Bits(unit());
      break;
    }
  }
  return bytes;
}

/** What a benchmark's input holds: values in [0, 1000] (scan, reduce, transform) or sort keys. */
export type InputKind = 'values' | 'sort-keys';

/**
 * A STORAGE buffer of `count` elements, seeded: values repeat one random block of RANDOM_BLOCK
 * (as rocPRIM's inputs); sort keys are drawn fresh to the end, one block after another. Repeated
 * keys would not be random keys: at 2^28 each u32 key would come 256 times, and once the low
 * digits are sorted equal keys lie together, which made the LSD sort's last passes ~17% faster
 * than on keys all drawn at random (H200, 2^28 u32, the fourth pass 1.28 against 1.52 ms), as
 * CUB's anchors take them.
 */
export async function randomBuffer(device: GPUDevice, t: TypeInfo, count: number, seed: number, label = 'wgprim.bench.input', kind: InputKind = 'values'): Promise<GPUBuffer> {
  const byteLength = count * t.bytes;
  const buffer = device.createBuffer({ label, size: roundUp(Math.max(byteLength, 4), 4), usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC });
  const blockCount = Math.min(count, RANDOM_BLOCK);
  const keys = kind === 'sort-keys' ? minstd(seed) : undefined;
  let block = keys ? sortKeysFrom(t, blockCount, keys) : randomBlock(t, blockCount, seed);
  let pending = 0;
  for (let off = 0; off < byteLength; off += block.byteLength) {
    if (keys && off > 0) block = sortKeysFrom(t, blockCount, keys);
    const len = Math.min(block.byteLength, buffer.size - off);
    device.queue.writeBuffer(buffer, off, block.buffer, 0, len);
    pending += len;
    if (pending >= DRAIN_BYTES) {
      await device.queue.onSubmittedWorkDone();
      pending = 0;
    }
  }
  await device.queue.onSubmittedWorkDone();
  return buffer;
}

/** A transform expression that costs one ALU op and needs no helper functions. */
export function transformExpression(type: ElementType): string {
  switch (type) {
    case 'u32': return 'a + 1u';
    case 'i32': return 'a + 1i';
    case 'f32': return 'a + 1.0f';
    case 'f16': return 'a + 1.0h';
    case 'u64': case 'i64': return 'a ^ vec2<u32>(1u, 0u)';
  }
}

// ---------------------------------------------------------------------------------------------

/**
 * Times one algorithm on `size` seeded random elements. `scan` runs both scans, so the result
 * is a list: one record per timed algorithm. Its buffers are kept for the next call with the
 * same type, size and seed (see `releaseBenchmarkBuffers`).
 */
/** The radix sort benchmarks named `radix_sort_onesweep` time that path at every size (no block sort below its maxCount). */
export const ONESWEEP_ONLY: Partial<RadixSortBlockSortConfig> = { maxCount: 0 };

/** What `benchmarkRadixSortBlockSort` takes: `config` overrides the selected block sort config. */
export interface RadixBlockSortBenchOptions extends Omit<BenchmarkOptions, 'algorithm' | 'config'> {
  readonly pairs: boolean;
  readonly config?: Partial<RadixSortBlockSortConfig>;
}

/**
 * Times the radix sort's small-size path (block sort + merge) on seeded random keys, from
 * `input` to `output` as the radix sort benchmarks do (pairs: u32 indices). The path is taken
 * at every size: the config's maxCount is raised to the size where it is below (the name
 * keeps the config's own maxCount).
 */
export async function benchmarkRadixSortBlockSort(prim: Prim, options: RadixBlockSortBenchOptions): Promise<BenchRecord> {
  return timeCall(prim, await prepareRadixSortBlockSortCall(prim, options), options);
}

/** Times a prepared call: the benchmark record of `options`' type and size. */
async function timeCall(prim: Prim, call: PreparedCall, options: Parameters<typeof timeGpu>[2] & { readonly type: ElementType; readonly size: number }): Promise<BenchRecord> {
  const timing = await timeGpu(prim, call.record, { ...options, warmupMs: idleWarmupMs(call, options.warmupMs) });
  return {
    name: call.name, algorithm: call.algorithm, type: options.type, size: options.size, bytesPerCall: call.bytesPerCall,
    times: timing.times, stats: timing.stats, calls: timing.calls, hostMs: timing.hostMs, method: timing.method,
    configSource: call.configSource, config: call.config,
  };
}

/**
 * One benchmark call, prepared on its seeded random inputs: what `benchmarkAlgorithm` and
 * `benchmarkRadixSortBlockSort` time, and what `wgprim profile` profiles.
 */
export interface PreparedCall {
  /** The benchmark's algorithm name (`inclusive_scan`, `radix_sort_block_sort_keys`, ...). */
  readonly algorithm: string;
  /** Records one call into an encoder. */
  readonly record: RecordCall;
  /** The rocPRIM-grammar benchmark name. */
  readonly name: string;
  readonly bytesPerCall: number;
  readonly config: AnyConfig | RadixSortBlockSortConfig;
  readonly configSource: string;
  /** Host ms preparing took (inputs generated and uploaded; near 0 where kept from the last call), the GPU idle meanwhile. */
  readonly inputMs: number;
}

/**
 * Inputs that took longer than this to make get the time-based warmup (`warmupMs`): the GPU sat
 * idle meanwhile. Not after quick ones: on the H200 a 500 ms warmup before small sorts (2^16)
 * left them 2-4x slower than 5 warmup calls, in three runs of three (the cause not found).
 */
const IDLE_WARMUP_AFTER_MS = 100;

/** The time-based warmup `call` gets: `warmupMs` after an input slow to make, else none. */
export const idleWarmupMs = (call: PreparedCall, warmupMs = 0): number => (call.inputMs > IDLE_WARMUP_AFTER_MS ? warmupMs : 0);

/** The inputs and recorder of `benchmarkRadixSortBlockSort` (its `timing` fields are not used). */
export async function prepareRadixSortBlockSortCall(prim: Prim, options: Pick<RadixBlockSortBenchOptions, 'type' | 'size' | 'seed' | 'pairs' | 'config'>): Promise<PreparedCall> {
  const start = performance.now();
  const { type, size, seed } = options;
  if (!Number.isInteger(size) || size < 1) throw new WgprimError('invalid-argument', `size must be a positive integer, got ${size}`);
  const t = typeInfo(type);
  const valueBytes = options.pairs ? 4 : 0;
  const selected = prim.selectedRadixSortBlockSortConfig(type, valueBytes, options.config);
  const config = selected.config;
  const dataBytes = size * t.bytes;
  const maxBinding = prim.context.limits.maxStorageBufferBindingSize;
  if (dataBytes > maxBinding) {
    throw new WgprimError('limit-exceeded', `${size} elements of ${type} (${dataBytes} bytes) exceed this device's maxStorageBufferBindingSize (${maxBinding} bytes)`);
  }
  const { input, output } = await benchBuffers(prim.device, t, size, seed, 'sort-keys');
  const keyType = type as RadixSortKeyType;
  const blockSortConfig = { ...config, maxCount: Math.max(config.maxCount, size) };
  let record: RecordCall;
  if (options.pairs) {
    const { values, valuesOut } = await benchValues(prim.device, size);
    record = (enc) => prim.radixSortPairs(enc, { keys: input, keysOut: output, values, valuesOut, valueBytes: 4, count: size, type: keyType, blockSortConfig });
  } else {
    record = (enc) => prim.radixSortKeys(enc, { keys: input, keysOut: output, count: size, type: keyType, blockSortConfig });
  }
  return {
    name: radixSortBlockSortName(type, options.pairs ? 'u32' : 'empty', config),
    algorithm: options.pairs ? 'radix_sort_block_sort_pairs' : 'radix_sort_block_sort_keys',
    record, bytesPerCall: 2 * (dataBytes + size * valueBytes), configSource: selected.source, config, inputMs: performance.now() - start,
  };
}

export async function benchmarkAlgorithm(prim: Prim, options: BenchmarkOptions): Promise<BenchRecord[]> {
  const records: BenchRecord[] = [];
  for (const algorithm of expandAlgorithm(options.algorithm)) records.push(await benchmarkOne(prim, algorithm, options));
  return records;
}

async function benchmarkOne(prim: Prim, algorithm: SingleAlgorithm, options: BenchmarkOptions): Promise<BenchRecord> {
  return timeCall(prim, await prepareAlgorithmCall(prim, algorithm, options), options);
}

/** The inputs and recorder of one `benchmarkAlgorithm` call (buffers kept as `benchmarkAlgorithm` keeps them). */
export async function prepareAlgorithmCall(prim: Prim, algorithm: SingleAlgorithm, options: Pick<BenchmarkOptions, 'type' | 'size' | 'seed' | 'config'>): Promise<PreparedCall> {
  const start = performance.now();
  const { type, size, seed } = options;
  if (!Number.isInteger(size) || size < 1) throw new WgprimError('invalid-argument', `size must be a positive integer, got ${size}`);
  const t = typeInfo(type);
  const family = configFamily(algorithm);
  // The sort only moves a key's bits: f16 keys need no shader-f16.
  if (family !== 'radixSort' && family !== 'segmentedRadixSort') prim.context.requireTypeFeature(t);
  const valueBytes = radixValueBytes(algorithm);
  const selected = selectedFor(prim, family, type, valueBytes);
  const config: AnyConfig = options.config ? { ...selected.config, ...options.config } as AnyConfig : selected.config;
  const source = options.config ? 'user' : selected.source;
  const device = prim.device;
  const dataBytes = size * t.bytes;
  // Checked before allocating: an oversized createBuffer is only a deferred device error. The
  // radix sort's LSD paths bind a larger array as two ranges (the sort checks its own limit).
  const maxBinding = prim.context.limits.maxStorageBufferBindingSize;
  if (family === 'radixSort' ? dataBytes > prim.context.limits.maxBufferSize : dataBytes > maxBinding) {
    const [limit, bytes] = family === 'radixSort' ? ['maxBufferSize', prim.context.limits.maxBufferSize] : ['maxStorageBufferBindingSize', maxBinding];
    throw new WgprimError('limit-exceeded', `${size} elements of ${type} (${dataBytes} bytes) exceed this device's ${limit} (${bytes} bytes)`);
  }

  const { input, output } = await benchBuffers(device, t, size, seed, family === 'radixSort' || family === 'segmentedRadixSort' ? 'sort-keys' : 'values');
  let record: RecordCall;
  let name: string;
  let bytesPerCall: number;
  switch (algorithm) {
    case 'inclusive_scan':
    case 'exclusive_scan': {
      const exclusive = algorithm === 'exclusive_scan';
      const args = { input, output, count: size, type, config: config as Partial<ScanConfig> };
      record = (enc) => (exclusive ? prim.exclusiveScan(enc, args) : prim.inclusiveScan(enc, args));
      name = scanName(exclusive, type, config as ScanConfig);
      bytesPerCall = 2 * dataBytes;
      break;
    }
    case 'reduce': {
      const args = { input, output, count: size, type, config: config as Partial<ReduceConfig> };
      record = (enc) => prim.reduce(enc, args);
      name = reduceName(type, config as ReduceConfig);
      bytesPerCall = dataBytes;
      break;
    }
    case 'transform': {
      const args = { input, output, count: size, type, expression: transformExpression(type), config: config as Partial<TransformConfig> };
      record = (enc) => prim.transform(enc, args);
      name = transformName(type, config as TransformConfig);
      bytesPerCall = 2 * dataBytes;
      break;
    }
    case 'segmented_radix_sort': {
      // Keys from `input` to `output` in fixed segments of BENCH_SEGMENT_LENGTH (the last may be
      // shorter), the ends omitted (begin offsets of segments + 1 entries), as CUB's anchor.
      const segments = Math.ceil(size / BENCH_SEGMENT_LENGTH);
      const beginOffsets = await benchSegmentOffsets(device, size, BENCH_SEGMENT_LENGTH);
      const c = config as Partial<SegmentedRadixSortConfig>;
      record = (enc) => prim.segmentedRadixSortKeys(enc, { keys: input, keysOut: output, count: size, segments, beginOffsets, type: type as RadixSortKeyType, config: c });
      name = segmentedRadixSortName(type, 'empty', BENCH_SEGMENT_LENGTH, config as SegmentedRadixSortConfig);
      bytesPerCall = 2 * dataBytes;
      break;
    }
    case 'radix_sort_keys':
    case 'radix_sort_pairs': {
      // Keys from `input` to `output` (the input is never written, so every call sorts the same
      // random keys); pairs move u32 indices (an argsort, as CUB's anchor). Bytes per call count
      // the keys (and values) read once and written once, as the CUB anchors do, not per pass.
      const keyType = type as RadixSortKeyType;
      const c = config as Partial<RadixSortConfig>;
      if (algorithm === 'radix_sort_pairs') {
        const { values, valuesOut } = await benchValues(device, size);
        record = (enc) => prim.radixSortPairs(enc, { keys: input, keysOut: output, values, valuesOut, valueBytes: 4, count: size, type: keyType, config: c, blockSortConfig: ONESWEEP_ONLY });
        name = radixSortName(type, 'u32', config as RadixSortConfig);
        bytesPerCall = 2 * (dataBytes + size * 4);
      } else {
        record = (enc) => prim.radixSortKeys(enc, { keys: input, keysOut: output, count: size, type: keyType, config: c, blockSortConfig: ONESWEEP_ONLY });
        name = radixSortName(type, 'empty', config as RadixSortConfig);
        bytesPerCall = 2 * dataBytes;
      }
      break;
    }
  }
  return { algorithm, record, name, bytesPerCall, configSource: source, config, inputMs: performance.now() - start };
}

/**
 * Input and output buffers of the last benchmarked (type, size, seed), kept for the next call.
 * Every config of a sweep then runs on the same allocations: on the H200, re-allocating 1 GiB
 * buffers between configs made later configs up to 3x slower than the same kernel on the first
 * allocation (2026-11-29), which would rank configs by their place in the sweep.
 */
const benchCache = new WeakMap<GPUDevice, { key: string; input: GPUBuffer; output: GPUBuffer }>();
/** The radix sort pairs benchmark's values (indices 0..size-1) and their output, kept the same way. */
const valuesCache = new WeakMap<GPUDevice, { size: number; values: GPUBuffer; valuesOut: GPUBuffer }>();

async function benchBuffers(device: GPUDevice, t: TypeInfo, size: number, seed: number, kind: InputKind): Promise<{ input: GPUBuffer; output: GPUBuffer }> {
  const key = `${kind}:${t.name}:${size}:${seed}`;
  const cached = benchCache.get(device);
  if (cached?.key === key) return cached;
  releaseBenchmarkBuffers(device);
  const input = await randomBuffer(device, t, size, seed, 'wgprim.bench.input', kind);
  const output = device.createBuffer({ label: 'wgprim.bench.output', size: roundUp(Math.max(size * t.bytes, 16), 4), usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC });
  const entry = { key, input, output };
  benchCache.set(device, entry);
  return entry;
}

/** u32 values 0..size-1 and a buffer for their sorted order. */
export async function benchValues(device: GPUDevice, size: number): Promise<{ values: GPUBuffer; valuesOut: GPUBuffer }> {
  const cached = valuesCache.get(device);
  if (cached?.size === size) return cached;
  if (cached) {
    cached.values.destroy();
    cached.valuesOut.destroy();
    valuesCache.delete(device);
  }
  const bytes = Math.max(size * 4, 16);
  const usage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC;
  const values = device.createBuffer({ label: 'wgprim.bench.values', size: bytes, usage });
  const valuesOut = device.createBuffer({ label: 'wgprim.bench.valuesOut', size: bytes, usage });
  const chunk = Math.min(size, RANDOM_BLOCK);
  const iota = new Uint32Array(chunk);
  for (let off = 0; off < size; off += chunk) {
    const len = Math.min(chunk, size - off);
    for (let i = 0; i < len; i++) iota[i] = off + i;
    device.queue.writeBuffer(values, off * 4, iota.buffer, 0, len * 4);
    if ((off / chunk) % 64 === 63) await device.queue.onSubmittedWorkDone();
  }
  await device.queue.onSubmittedWorkDone();
  const entry = { size, values, valuesOut };
  valuesCache.set(device, entry);
  return entry;
}

/** Offsets of the segmented sort benchmark (kept per device for the same size and length). */
const offsetsCache = new WeakMap<GPUDevice, { key: string; buffer: GPUBuffer }>();
export async function benchSegmentOffsets(device: GPUDevice, size: number, length: number): Promise<GPUBuffer> {
  const key = `${size}:${length}`;
  const cached = offsetsCache.get(device);
  if (cached?.key === key) return cached.buffer;
  cached?.buffer.destroy();
  const segments = Math.ceil(size / length);
  const offsets = Uint32Array.from({ length: segments + 1 }, (_, i) => Math.min(i * length, size));
  const buffer = device.createBuffer({ label: 'wgprim.bench.offsets', size: Math.max(offsets.byteLength, 16), usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
  device.queue.writeBuffer(buffer, 0, offsets);
  await device.queue.onSubmittedWorkDone();
  offsetsCache.set(device, { key, buffer });
  return buffer;
}

/** Frees the buffers `benchmarkAlgorithm` keeps between calls on this device (and the cold-cache scratch buffer). */
export function releaseBenchmarkBuffers(device: GPUDevice): void {
  releaseColdCacheBuffer(device);

  const offsets = offsetsCache.get(device);
  offsets?.buffer.destroy();
  offsetsCache.delete(device);
  const values = valuesCache.get(device);
  if (values) {
    values.values.destroy();
    values.valuesOut.destroy();
    valuesCache.delete(device);
  }
  const cached = benchCache.get(device);
  if (!cached) return;
  cached.input.destroy();
  cached.output.destroy();
  benchCache.delete(device);
}
