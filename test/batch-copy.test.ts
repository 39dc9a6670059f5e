import { beforeAll, describe, expect, it } from 'vitest';
import { type BatchCopyConfig, type Prim, WgprimError } from '../src/index.js';
import { batchCopyReference, type ByteRanges } from '../src/device/batch-copy/reference.js';
import { benchRanges } from '../src/device/batch-copy/spec.js';
import { testPrim } from './support/gpu.js';
import { rng, SEED } from './support/data.js';

let prim: Prim;
beforeAll(async () => {
  prim = await testPrim();
});

// Small units and grids, so that one group walks through many ranges and a large range spreads over many groups.
const CONFIGS: readonly (readonly [string, Partial<BatchCopyConfig>])[] = [
  ['4 lanes x 1 word, 3 workgroups of 32', { workgroupSize: 32, lanes: 4, wordsPerLane: 1, workgroups: 3 }],
  ['32 lanes x 8 words, 16 workgroups of 64', { workgroupSize: 64, lanes: 32, wordsPerLane: 8, workgroups: 16 }],
];

const bytes = (n: number, seed: number): Uint8Array => {
  const r = rng(seed);
  return Uint8Array.from({ length: n }, () => (r() * 256) >>> 0);
};

/** Ranges of the given sizes packed in the destination with gaps of 0..gap bytes, from random source offsets. */
function packed(sizes: readonly number[], sourceBytes: number, gap: number, seed: number): ByteRanges & { destinationBytes: number } {
  const r = rng(seed);
  const destinationOffsets: number[] = [];
  let at = (r() * 4) >>> 0;
  for (const s of sizes) {
    destinationOffsets.push(at);
    at += s + Math.floor(r() * (gap + 1));
  }
  const sourceOffsets = sizes.map((s) => Math.floor(r() * (sourceBytes - s + 1)));
  return { sourceOffsets: Uint32Array.from(sourceOffsets), destinationOffsets: Uint32Array.from(destinationOffsets), sizes: Uint32Array.from(sizes), destinationBytes: at + 3 };
}

async function check(sizes: readonly number[], gap: number, config: Partial<BatchCopyConfig>, seed: number, what: string): Promise<void> {
  const source = bytes(Math.max(...sizes, 0) + 37, seed);
  const ranges = packed(sizes, source.length, gap, seed + 1);
  const destination = bytes(ranges.destinationBytes, seed + 2);
  const r = { sourceOffsets: Uint32Array.from(ranges.sourceOffsets), destinationOffsets: Uint32Array.from(ranges.destinationOffsets), sizes: Uint32Array.from(ranges.sizes) };
  const got = await prim.arrays.batchCopy(source, destination, r, { config });
  const want = batchCopyReference(source, destination, ranges);
  const bad = got.findIndex((x, i) => x !== want[i]);
  expect(got.length, `${what}: length`).toBe(want.length);
  expect(bad, `${what}: first wrong byte ${bad} (${got[bad]} vs ${want[bad]}), seed ${seed}`).toBe(-1);
}

describe('batch copy: any byte offsets and sizes', () => {
  for (const [name, config] of CONFIGS) {
    it(`sub-word ranges sharing words, every alignment, empty ranges: ${name}`, async () => {
      const r = rng(SEED);
      // Sizes 0..9 packed with gaps of 0 or 1 byte: neighbours share edge words in every arrangement.
      await check(Array.from({ length: 700 }, () => (r() * 10) >>> 0), 1, config, SEED, 'tiny');
      await check([1], 0, config, SEED + 10, 'one byte');
      await check([0, 0, 0], 0, config, SEED + 11, 'only empty ranges');
      await check([3, 4, 5, 1, 2, 8, 7, 6, 0, 12, 13], 0, config, SEED + 12, 'packed without gaps');
    });

    it(`small, medium and large ranges together, unaligned and aligned: ${name}`, async () => {
      const r = rng(SEED + 20);
      const sizes = Array.from({ length: 300 }, () => Math.floor(16 * 256 ** r()));
      sizes.push(5003, 20_000, 1, 65_537);
      await check(sizes, 5, config, SEED + 21, 'mixed');
      // Every offset a multiple of 4: the aligned path (no funnel shift, no edge words).
      const source = bytes(40_000, SEED + 22);
      const aligned = benchRanges('u32', 50);
      const destination = bytes(aligned.total, SEED + 23);
      const ranges = { sourceOffsets: aligned.offsets.map((o) => o % 20_000 & ~3), destinationOffsets: aligned.offsets, sizes: aligned.sizes };
      const got = await prim.arrays.batchCopy(source, destination, ranges, { config });
      expect(Array.from(got)).toEqual(Array.from(batchCopyReference(source, destination, ranges)));
    });
  }

  it('the default config, 5000 ranges', async () => {
    const r = rng(SEED + 30);
    await check(Array.from({ length: 5000 }, () => Math.floor(16 * 16 ** r())), 3, {}, SEED + 30, 'default config');
  });
});

describe('buffer level', () => {
  const buffer = (size: number, usage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST): GPUBuffer => prim.device.createBuffer({ size, usage });
  const upload = (data: Uint8Array | Uint32Array): GPUBuffer => {
    const b = buffer(Math.max(4, Math.ceil(data.byteLength / 4) * 4));
    prim.device.queue.writeBuffer(b, 0, data as Uint8Array<ArrayBuffer>);
    return b;
  };
  const read = async (b: GPUBuffer): Promise<Uint8Array> => {
    const r = buffer(b.size, GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST);
    const enc = prim.device.createCommandEncoder();
    enc.copyBufferToBuffer(b, 0, r, 0, b.size);
    prim.device.queue.submit([enc.finish()]);
    await r.mapAsync(GPUMapMode.READ);
    const out = new Uint8Array(r.getMappedRange().slice(0));
    r.destroy();
    return out;
  };

  it('skips a range outside either buffer whole (offsets and sizes near 2^32 included), copies the rest; 0 batches records nothing', async () => {
    const source = bytes(64, SEED + 40);
    const destination = bytes(64, SEED + 41);
    const r = {
      sourceOffsets: Uint32Array.from([0, 60, 0, 0xfffffffc, 8, 1]),
      destinationOffsets: Uint32Array.from([0, 10, 0xfffffff0, 20, 62, 40]),
      sizes: Uint32Array.from([5, 5, 16, 4, 3, 0xffffffff]),
    };
    const [src, dst] = [upload(source), upload(destination)];
    const enc = prim.device.createCommandEncoder();
    const args = { source: src, destination: dst, sourceOffsets: upload(r.sourceOffsets), destinationOffsets: upload(r.destinationOffsets), sizes: upload(r.sizes), batches: 6 };
    await prim.batchCopy(enc, args);
    await prim.batchCopy(enc, { ...args, batches: 0 });
    prim.device.queue.submit([enc.finish()]);
    const want = destination.slice();
    want.set(source.subarray(0, 5), 0);
    expect(Array.from(await read(dst))).toEqual(Array.from(want));
  });

  it('rejects what it can check before launch, with the reason', async () => {
    const b = (): GPUBuffer => buffer(64);
    const table = buffer(16);
    const base = { source: b(), destination: b(), sourceOffsets: table, destinationOffsets: table, sizes: table, batches: 4 };
    const enc = (): GPUCommandEncoder => prim.device.createCommandEncoder();
    const code = async (p: Promise<unknown>): Promise<string> => p.then(() => 'resolved', (e: unknown) => (e instanceof WgprimError ? e.code : `untyped: ${String(e)}`));
    expect(await code(prim.batchCopy(enc(), base))).toBe('resolved');
    expect(await code(prim.batchCopy(enc(), undefined as never))).toBe('invalid-argument');
    expect(await code(prim.batchCopy(enc(), { ...base, batches: -1 }))).toBe('invalid-argument');
    expect(await code(prim.batchCopy(enc(), { ...base, batches: 1.5 }))).toBe('invalid-argument');
    expect(await code(prim.batchCopy(enc(), { ...base, batches: 5 }))).toBe('buffer-size');
    expect(await code(prim.batchCopy(enc(), { ...base, batches: 2 ** 30 }))).toMatch(/buffer-size|limit-exceeded/);
    expect(await code(prim.batchCopy(enc(), { ...base, destination: base.source }))).toBe('overlap');
    expect(await code(prim.batchCopy(enc(), { ...base, destination: table }))).toBe('overlap');
    expect(await code(prim.batchCopy(enc(), { ...base, source: buffer(62) }))).toBe('buffer-size');
    expect(await code(prim.batchCopy(enc(), { ...base, destination: buffer(64, GPUBufferUsage.COPY_DST) }))).toBe('buffer-usage');
    expect(await code(prim.batchCopy(enc(), { ...base, source: undefined as never }))).toBe('invalid-argument');
    expect(await code(prim.batchCopy(enc(), { ...base, config: { lanes: 3 } }))).toBe('invalid-config');
    const u8 = new Uint8Array(16);
    const ranges = (s: number[], d: number[], n: number[]): { sourceOffsets: Uint32Array; destinationOffsets: Uint32Array; sizes: Uint32Array } => ({ sourceOffsets: Uint32Array.from(s), destinationOffsets: Uint32Array.from(d), sizes: Uint32Array.from(n) });
    expect(await code(prim.arrays.batchCopy(u8, u8, ranges([12], [0], [5])))).toBe('buffer-size');
    expect(await code(prim.arrays.batchCopy(u8, u8, ranges([0], [14], [3])))).toBe('buffer-size');
    expect(await code(prim.arrays.batchCopy(u8, u8, ranges([0, 0], [0, 3], [4, 2])))).toBe('overlap');
    expect(await code(prim.arrays.batchCopy(u8, u8, ranges([0, 0], [0, 4], [4, 2])))).toBe('resolved');
    expect(await code(prim.arrays.batchCopy(u8, u8, ranges([0, 0], [0], [4, 2])))).toBe('invalid-argument');
    expect(await code(prim.arrays.batchCopy(new Uint16Array(8) as never, u8, ranges([0], [0], [1])))).toBe('unsupported-type');
  });
});
