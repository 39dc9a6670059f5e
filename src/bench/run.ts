// Benchmarks one device algorithm on seeded random data, from the algorithms' benchmark specs
// (src/device/<algorithm>/spec.ts): names in rocPRIM's grammar, inputs, bytes per call. Names
// no algorithm. Browser-safe.
import { WgprimError } from '../runtime/errors.js';
import { roundUp } from '../runtime/dispatch.js';
import { type ElementType, type TypeInfo, typeInfo } from '../wgsl/types.js';
import { f16Bits } from '../wgsl/values.js';
import { type BenchmarkSpec, type BenchResources, type ConfigObject, type ConfigTable, type InputKind, type ParamValue } from '../device/spec.js';
import { BENCHMARKS, TUNING_STAGES } from '../algorithms.js';
import type { Prim } from '../prim.js';
import { type BenchRecord, formatName, type NameFields, type NameInput } from './gbench.js';
import { type RecordCall, releaseColdCacheBuffer, type RunTimingOptions, timeGpu } from './timing.js';

export { type InputKind } from '../device/spec.js';

/** `warmupMs` applies after inputs that took over IDLE_WARMUP_AFTER_MS to make. */
export interface BenchmarkOptions extends RunTimingOptions {
  /** A benchmark (`inclusive_scan`), a tuning stage (`scan`: its benchmarks) or `all`. */
  readonly algorithm: string;
  readonly type: ElementType;
  /** Elements per call. */
  readonly size: number;
  readonly seed: number;
  /** Overrides the selected config, field by field. */
  readonly config?: Readonly<Record<string, ParamValue>>;
}

/** The benchmark of this name (throws `invalid-argument` naming the known ones). */
export function benchmarkSpec(name: string): BenchmarkSpec {
  const b = BENCHMARKS.find((x) => x.name === name);
  if (!b) throw new WgprimError('invalid-argument', `unknown benchmark "${name}" (known: ${BENCHMARKS.map((x) => x.name).join(', ')})`);
  return b;
}

/** Benchmarks of stages tuned only when named (the radix sort's block sort path): left out of `all`. */
const optInBenchmarks = (): Set<string> => new Set(TUNING_STAGES.filter((s) => s.optIn).flatMap((s) => s.benchmarks));

/**
 * What `bench --algorithm` takes, as benchmark names: a benchmark, a tuning stage (its
 * benchmarks: `scan` is both scans, `radix_sort_onesweep` keys and pairs) or `all` (every
 * benchmark but those of opt-in stages).
 */
export function expandAlgorithm(a: string): string[] {
  if (a === 'all') {
    const optIn = optInBenchmarks();
    return BENCHMARKS.map((b) => b.name).filter((n) => !optIn.has(n));
  }
  if (BENCHMARKS.some((b) => b.name === a)) return [a];
  const stage = TUNING_STAGES.find((s) => s.stage === a);
  if (stage) return [...stage.benchmarks];
  throw new WgprimError('invalid-argument', `unknown algorithm "${String(a)}": use ${[...BENCHMARKS.map((b) => b.name), ...TUNING_STAGES.map((s) => s.stage).filter((n) => !BENCHMARKS.some((b) => b.name === n))].join(', ')} or all`);
}

// ---------------------------------------------------------------------------------------------
// Names in rocPRIM's grammar; the grammar allows no '-', so reduce-then-scan becomes reduce_then_scan.

/** A config as a name's `cfg` fields: the table's abbreviations, in its order; omitted fields left out. */
export function configNameFields(table: ConfigTable, config: ConfigObject): NameInput {
  const out: Record<string, string | number | boolean> = {};
  for (const [field, abbr] of Object.entries(table.nameFields)) {
    const v = config[field];
    if (v === undefined || (table.nameOmits && table.nameOmits[field] === v)) continue;
    out[abbr] = typeof v === 'string' ? v.replace(/-/g, '_') : v;
  }
  return out;
}

/** The rocPRIM-grammar name (without `/manual_time`) of `benchmark` on `type` with `config`. */
export function benchmarkName(benchmark: string, type: string, config: ConfigObject): string {
  const b = benchmarkSpec(benchmark);
  return formatName({ ...b.nameFields(type as ElementType), cfg: configNameFields(b.table, config) });
}

/** The table a name's `algo` belongs to. */
function tableOfAlgo(algo: string): ConfigTable | undefined {
  return BENCHMARKS.find((b) => b.nameFields('u32').algo === algo)?.table;
}

/** The config a parsed name's `cfg` describes (the inverse of `configNameFields`; omitted fields read as their omitted value). */
export function configFromName(algo: string, cfg: NameFields): ConfigObject {
  const table = tableOfAlgo(algo);
  if (!table) throw new WgprimError('invalid-argument', `no config mapping for benchmark algo "${algo}"`);
  const out: Record<string, ParamValue> = {};
  for (const [field, abbr] of Object.entries(table.nameFields)) {
    const v = cfg[abbr];
    if (v === undefined) {
      const omitted = table.nameOmits?.[field];
      if (omitted === undefined) throw new WgprimError('invalid-argument', `benchmark name cfg lacks "${abbr}" (${field})`);
      out[field] = omitted;
      continue;
    }
    if (typeof v === 'object') throw new WgprimError('invalid-argument', `benchmark name cfg "${abbr}" is not a value`);
    const space = table.space[field] ?? table.untimedSpace?.[field] ?? [];
    if (typeof space[0] === 'number' && typeof v !== 'number') throw new WgprimError('invalid-argument', `benchmark name cfg lacks numeric "${abbr}"`);
    out[field] = typeof v === 'string' ? v.replace(/_/g, '-') : v;
  }
  return out;
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
/** `randomBlock`'s values in runs of equal values, each of a random length in 1..7. */
export function randomRuns(t: TypeInfo, count: number, seed: number): Uint8Array {
  const values = randomBlock(t, count, seed);
  const next = minstd(seed ^ 0x5bd1e995);
  const bytes = t.bytes;
  for (let i = 0; i < count;) {
    const run = Math.min(1 + (next() % 7), count - i);
    for (let j = 1; j < run; j++) values.copyWithin((i + j) * bytes, i * bytes, (i + 1) * bytes);
    i += run;
  }
  return values;
}

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
  let block = keys ? sortKeysFrom(t, blockCount, keys) : kind === 'runs' ? randomRuns(t, blockCount, seed) : randomBlock(t, blockCount, seed);
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

/**
 * One benchmark call, prepared on its seeded random inputs: what `benchmarkAlgorithm` times and
 * `wgprim profile` profiles.
 */
export interface PreparedCall {
  /** The benchmark's algorithm name (`inclusive_scan`, `radix_sort_block_sort_keys`, ...). */
  readonly algorithm: string;
  /** Records one call into an encoder. */
  readonly record: RecordCall;
  /** The rocPRIM-grammar benchmark name. */
  readonly name: string;
  readonly bytesPerCall: number;
  readonly config: ConfigObject;
  readonly configSource: string;
  /** Host ms preparing took (inputs generated and uploaded; near 0 where kept from the last call), the GPU idle meanwhile. */
  readonly inputMs: number;
}


/**
 * Times each benchmark of `options.algorithm` on `size` seeded random elements: one record per
 * benchmark. Buffers are kept for the next call with the same type, size and seed (see
 * `releaseBenchmarkBuffers`).
 */
export async function benchmarkAlgorithm(prim: Prim, options: BenchmarkOptions): Promise<BenchRecord[]> {
  const records: BenchRecord[] = [];
  for (const algorithm of expandAlgorithm(options.algorithm)) records.push(await timeCall(prim, await prepareAlgorithmCall(prim, algorithm, options), options));
  return records;
}

/** Times a prepared call: the benchmark record of `options`' type and size. */
async function timeCall(prim: Prim, call: PreparedCall, options: Parameters<typeof timeGpu>[2] & { readonly type: ElementType; readonly size: number }): Promise<BenchRecord> {
  const timing = await timeGpu(prim, call.record, { ...options, warmupMs: idleWarmupMs(call, options.warmupMs) });
  return {
    name: call.name, algorithm: call.algorithm, type: options.type, size: options.size, bytesPerCall: call.bytesPerCall,
    times: timing.times, stats: timing.stats, calls: timing.calls, hostMs: timing.hostMs, method: timing.method,
    configSource: call.configSource, config: call.config, stability: timing.stability,
  };
}

/**
 * Inputs that took longer than this to make get the time-based warmup (`warmupMs`): the GPU sat
 * idle meanwhile. Not after quick ones: on the H200 a 500 ms warmup before small sorts (2^16)
 * left them 2-4x slower than 5 warmup calls (the cause not found).
 */
const IDLE_WARMUP_AFTER_MS = 100;

/** The time-based warmup `call` gets: `warmupMs` after an input slow to make, else none. */
export const idleWarmupMs = (call: PreparedCall, warmupMs = 0): number => (call.inputMs > IDLE_WARMUP_AFTER_MS ? warmupMs : 0);

/** The inputs and recorder of one benchmark call (buffers kept as `benchmarkAlgorithm` keeps them). */
export async function prepareAlgorithmCall(prim: Prim, algorithm: string, options: Pick<BenchmarkOptions, 'type' | 'size' | 'seed' | 'config'>): Promise<PreparedCall> {
  const start = performance.now();
  const { type, size, seed } = options;
  if (!Number.isInteger(size) || size < 1) throw new WgprimError('invalid-argument', `size must be a positive integer, got ${size}`);
  const bench = benchmarkSpec(algorithm);
  const t = typeInfo(type);
  if (bench.needsTypeFeature) prim.context.requireTypeFeature(t);
  const selected = prim.selectedConfig(bench.table.name as never, type, undefined, bench.valueBytes) as { config: ConfigObject; source: string };
  const config: ConfigObject = options.config ? { ...selected.config, ...options.config } : selected.config;
  const source = options.config ? 'user' : selected.source;
  const dataBytes = size * t.bytes;
  // Checked before allocating: an oversized createBuffer is only a deferred device error.
  const limits = prim.context.limits;
  const max = bench.maxArrayBytes ? Math.min(bench.maxArrayBytes(limits), limits.maxBufferSize) : limits.maxStorageBufferBindingSize;
  if (dataBytes > max) {
    const limit = bench.maxArrayBytes ? 'largest array its calls take' : 'maxStorageBufferBindingSize';
    throw new WgprimError('limit-exceeded', `${size} elements of ${type} (${dataBytes} bytes) exceed this device's ${limit} (${max} bytes)`);
  }
  const device = prim.device;
  const { input, output } = await benchBuffers(device, t, size, seed, bench.input);
  const record = await bench.prepare(prim.algorithmEnv, { input, output, count: size, type, config }, benchResources(device, seed));
  return {
    algorithm, record, name: benchmarkName(algorithm, type, config), bytesPerCall: bench.bytesPerCall(type, size), configSource: source, config, inputMs: performance.now() - start,
  };
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

/** The buffers a benchmark's `prepare` may ask for, kept between calls on `device`. */
export function benchResources(device: GPUDevice, seed: number): BenchResources {
  return {
    device, values: (n) => benchValues(device, n), segmentOffsets: (n, length) => benchSegmentOffsets(device, n, length),
    flags: (n) => benchFlags(device, n, seed), buffer: (role, bytes) => benchScratch(device, role, bytes),
  };
}

/** Random 0/1 flags (kept per device for the same size). */
const flagsCache = new WeakMap<GPUDevice, { size: number; buffer: GPUBuffer }>();
export async function benchFlags(device: GPUDevice, size: number, seed: number): Promise<GPUBuffer> {
  const cached = flagsCache.get(device);
  if (cached?.size === size) return cached.buffer;
  cached?.buffer.destroy();
  const buffer = device.createBuffer({ label: 'wgprim.bench.flags', size: Math.max(size * 4, 16), usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
  const next = minstd(seed ^ 0x2545f491);
  const chunk = Math.min(size, RANDOM_BLOCK);
  const bits = Uint32Array.from({ length: chunk }, () => (next() >>> 7) & 1);
  for (let off = 0; off < size; off += chunk) {
    device.queue.writeBuffer(buffer, off * 4, bits.buffer, 0, Math.min(chunk, size - off) * 4);
    if ((off / chunk) % 64 === 63) await device.queue.onSubmittedWorkDone();
  }
  await device.queue.onSubmittedWorkDone();
  flagsCache.set(device, { size, buffer });
  return buffer;
}

/** Buffers benchmarks ask for by role (second outputs, counts), kept per device while large enough. */
const scratchCache = new WeakMap<GPUDevice, Map<string, GPUBuffer>>();
function benchScratch(device: GPUDevice, role: string, bytes: number): GPUBuffer {
  let roles = scratchCache.get(device);
  if (!roles) scratchCache.set(device, (roles = new Map()));
  const have = roles.get(role);
  if (have && have.size >= bytes) return have;
  have?.destroy();
  const buffer = device.createBuffer({ label: `wgprim.bench.${role}`, size: roundUp(Math.max(bytes, 16), 4), usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC });
  roles.set(role, buffer);
  return buffer;
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
  flagsCache.get(device)?.buffer.destroy();
  flagsCache.delete(device);
  for (const b of scratchCache.get(device)?.values() ?? []) b.destroy();
  scratchCache.delete(device);

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
