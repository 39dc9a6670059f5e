// The benchmarks' inputs: seeded random data as rocPRIM draws it (values, sort keys, runs),
// flags, values and offsets, and the buffers kept between calls so that every config of a sweep
// runs on the same allocations.
import { roundUp } from '../runtime/dispatch.js';
import { type TypeInfo } from '../wgsl/types.js';
import { f16Bits } from '../wgsl/values.js';
import { type BenchResources, type InputKind } from '../device/spec.js';
import { releaseColdCacheBuffer } from './timing.js';

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
 * Input and output buffers of the last benchmarked (type, size, seed), kept for the next call.
 * Every config of a sweep then runs on the same allocations: on the H200, re-allocating 1 GiB
 * buffers between configs made later configs up to 3x slower than the same kernel on the first
 * allocation (2026-11-29), which would rank configs by their place in the sweep.
 */
const benchCache = new WeakMap<GPUDevice, { key: string; input: GPUBuffer; output: GPUBuffer }>();
/**
 * Buffers that benchmarks take beside their input (values, flags, offsets, scratch by role), kept
 * per device by what they hold until `releaseBenchmarkBuffers`. A buffer is never freed to make
 * room for another: the tuner compiles the next group's variants (small calls) while this one is
 * measured, and freeing the buffer a measured call holds made its work invalid.
 */
interface Kept {
  readonly ready: Promise<GPUBuffer[]>;
  /** Set once made. */
  now?: GPUBuffer[];
}
const keptCache = new WeakMap<GPUDevice, Map<string, Kept>>();
function keptEntry(device: GPUDevice, key: string, make: () => Promise<GPUBuffer[]> | GPUBuffer[]): Kept {
  let all = keptCache.get(device);
  if (!all) keptCache.set(device, (all = new Map()));
  let entry = all.get(key);
  if (!entry) {
    const made = make();
    const e: Kept = Array.isArray(made) ? { ready: Promise.resolve(made), now: made } : { ready: made.then((bs) => (e.now = bs)) };
    all.set(key, (entry = e));
  }
  return entry;
}
const kept = (device: GPUDevice, key: string, make: () => Promise<GPUBuffer[]>): Promise<GPUBuffer[]> => keptEntry(device, key, make).ready;

export async function benchBuffers(device: GPUDevice, t: TypeInfo, size: number, seed: number, kind: InputKind): Promise<{ input: GPUBuffer; output: GPUBuffer }> {
  const key = `${kind}:${t.name}:${size}:${seed}`;
  const cached = benchCache.get(device);
  if (cached?.key === key) return cached;
  releaseBenchmarkBuffers(device, true);
  const input = await randomBuffer(device, t, size, seed, 'wgprim.bench.input', kind);
  const output = device.createBuffer({ label: 'wgprim.bench.output', size: roundUp(Math.max(size * t.bytes, 16), 4), usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC });
  const entry = { key, input, output };
  benchCache.set(device, entry);
  return entry;
}

/** u32 values 0..size-1 and a buffer for their sorted order. */
export async function benchValues(device: GPUDevice, size: number, scope = ''): Promise<{ values: GPUBuffer; valuesOut: GPUBuffer }> {
  const [values, valuesOut] = await kept(device, `${scope}values:${size}`, async () => {
    const bytes = Math.max(size * 4, 16);
    const usage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC;
    const v = device.createBuffer({ label: 'wgprim.bench.values', size: bytes, usage });
    const out = device.createBuffer({ label: 'wgprim.bench.valuesOut', size: bytes, usage });
    const chunk = Math.min(size, RANDOM_BLOCK);
    const iota = new Uint32Array(chunk);
    for (let off = 0; off < size; off += chunk) {
      const len = Math.min(chunk, size - off);
      for (let i = 0; i < len; i++) iota[i] = off + i;
      device.queue.writeBuffer(v, off * 4, iota.buffer, 0, len * 4);
      if ((off / chunk) % 64 === 63) await device.queue.onSubmittedWorkDone();
    }
    await device.queue.onSubmittedWorkDone();
    return [v, out];
  });
  return { values: values!, valuesOut: valuesOut! };
}

/**
 * Kept buffers of the tuner's build calls (small, compiling the next group's pipelines while
 * this group is measured): a scope of their own, which a timed benchmark's change of input does
 * not free, or a build call of the next group would submit buffers freed under it.
 */
export const BUILD_SCOPE = 'build:';

export function benchResources(device: GPUDevice, seed: number, scope = ''): BenchResources {
  return {
    device, values: (n) => benchValues(device, n, scope), segmentOffsets: (n, length) => benchSegmentOffsets(device, n, length, scope),
    flags: (n, bytes) => benchFlags(device, n, seed, scope, bytes), buffer: (role, bytes) => benchScratch(device, role, bytes, scope),
  };
}

/** Random 0/1 flags: `u32` words, or (`bytes` 1) bytes packed four to a word. */
export async function benchFlags(device: GPUDevice, size: number, seed: number, scope = '', bytes: 1 | 4 = 4): Promise<GPUBuffer> {
  const [buffer] = await kept(device, `${scope}flags:${bytes}:${size}:${seed}`, async () => {
    const b = device.createBuffer({ label: 'wgprim.bench.flags', size: Math.max(roundUp(size * bytes, 4), 16), usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
    const next = minstd(seed ^ 0x2545f491);
    const chunk = Math.min(size, RANDOM_BLOCK);
    // Whole words: writes are multiples of 4 bytes, so the last one may carry up to 3 spare flags.
    const bits = bytes === 1 ? new Uint8Array(roundUp(chunk, 4)) : new Uint32Array(chunk);
    for (let i = 0; i < bits.length; i++) bits[i] = (next() >>> 7) & 1;
    for (let off = 0; off < size; off += chunk) {
      device.queue.writeBuffer(b, off * bytes, bits.buffer, 0, roundUp(Math.min(chunk, size - off) * bytes, 4));
      if ((off / chunk) % 64 === 63) await device.queue.onSubmittedWorkDone();
    }
    await device.queue.onSubmittedWorkDone();
    return [b];
  });
  return buffer!;
}

/** Buffers benchmarks ask for by role (second outputs, counts) and size. */
function benchScratch(device: GPUDevice, role: string, bytes: number, scope: string): GPUBuffer {
  const size = roundUp(Math.max(bytes, 16), 4);
  return keptEntry(device, `${scope}scratch:${role}:${size}`, () => [
    device.createBuffer({ label: `wgprim.bench.${role}`, size, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC }),
  ]).now![0]!;
}

/** Offsets of the segmented benchmarks: segments of `length` elements. */
export async function benchSegmentOffsets(device: GPUDevice, size: number, length: number, scope = ''): Promise<GPUBuffer> {
  const [buffer] = await kept(device, `${scope}offsets:${size}:${length}`, async () => {
    const segments = Math.ceil(size / length);
    const offsets = Uint32Array.from({ length: segments + 1 }, (_, i) => Math.min(i * length, size));
    const b = device.createBuffer({ label: 'wgprim.bench.offsets', size: Math.max(offsets.byteLength, 16), usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
    device.queue.writeBuffer(b, 0, offsets);
    await device.queue.onSubmittedWorkDone();
    return [b];
  });
  return buffer!;
}

/**
 * Frees the buffers `benchmarkAlgorithm` keeps between calls on this device (and the cold-cache
 * scratch buffer); `keepBuild`: not those of `BUILD_SCOPE`.
 */
export function releaseBenchmarkBuffers(device: GPUDevice, keepBuild = false): void {
  releaseColdCacheBuffer(device);
  const all = keptCache.get(device) ?? new Map<string, Kept>();
  const freed = [...all].filter(([key]) => !(keepBuild && key.startsWith(BUILD_SCOPE)));
  for (const [key] of freed) all.delete(key);
  // Each entry settles to its buffers; one still being made is freed when it is done.
  for (const [, entry] of freed) void entry.ready.then((bs) => bs.forEach((b) => b.destroy()), () => undefined);
  const cached = benchCache.get(device);
  if (!cached) return;
  cached.input.destroy();
  cached.output.destroy();
  benchCache.delete(device);
}
