import { beforeAll, describe, expect, it } from 'vitest';
import { createPrim, type Prim, type RadixSortKeyType, type SegmentedRadixSortConfig, typeInfo } from '../src/index.js';
import { segmentedRadixSortConfigProblem, segmentedRadixSortHeuristic } from '../src/device/segmented-radix-sort/config.js';
import { powerLawOffsets } from '../src/device/segmented-radix-sort/spec.js';
import { benchmarkAlgorithm, benchmarkName, configFromName, expandAlgorithm } from '../src/bench/run.js';
import { parseName } from '../src/bench/gbench.js';
import { anchorType } from '../src/cli/table.js';
import { testPrim } from './support/gpu.js';
import { rng, SEED } from './support/data.js';
import { bufferIo, firstBad, is64, KEY_TYPES, type KeyArray, randomKeys, widthOf } from './support/radix.js';
import { SWEEP, sweepTimeout } from './support/sweep.js';
import { radixSortOrder } from '../src/device/radix-sort/reference.js';

// The segmented radix sort against a CPU reference: each segment's indices stably sorted by
// the order-preserving transform of the keys (within the bit range); elements outside every
// segment stay where they are. Values = index check stability and the permutation.

let prim: Prim;
beforeAll(async () => {
  prim = await testPrim();
});

// Small tiles keep lavapipe fast: 64 x 4 = 256 keys.
const TILE_WG = 64;
const TILE_IPT = 4;
const TILE = TILE_WG * TILE_IPT;

/** The source index of each output element: each segment's stable order by the radix sort's reference. */
function referenceOrder(type: RadixSortKeyType, keys: KeyArray, begins: number[], ends: number[], descending: boolean, b: number, e: number): Uint32Array {
  const n = keys.length;
  const order = Uint32Array.from({ length: n }, (_, i) => i);
  for (let s = 0; s < begins.length; s++) {
    const end = Math.min(ends[s]!, n);
    const begin = Math.min(begins[s]!, end);
    const within = radixSortOrder(type, keys.subarray(begin, end), descending, b, e);
    for (let i = 0; i < within.length; i++) order[begin + i] = begin + within[i]!;
  }
  return order;
}

interface Case {
  readonly descending?: boolean;
  readonly beginBit?: number;
  readonly endBit?: number;
  readonly config?: Partial<SegmentedRadixSortConfig>;
  /** Pass begins only (segment i ends where i + 1 begins). */
  readonly contiguous?: boolean;
}

const RANKS = (): ('match' | 'split')[] => (prim.context.hasSubgroups && TILE_WG % prim.target.subgroupMaxSize === 0 ? ['match', 'split'] : ['split']);

async function check(type: RadixSortKeyType, keys: KeyArray, begins: number[], ends: number[], c: Case, what: string, keysOnly = false): Promise<void> {
  const order = referenceOrder(type, keys, begins, ends, c.descending ?? false, c.beginBit ?? 0, c.endBit ?? widthOf(type));
  const label = `${type} n=${keys.length} segments=${begins.length} ${JSON.stringify(c)} ${what}`;
  const values = Uint32Array.from({ length: keys.length }, (_, i) => i);
  const options = {
    descending: c.descending, beginBit: c.beginBit, endBit: c.endBit, config: c.config,
    ...(type === 'f16' ? { type: 'f16' as const } : {}),
    ...(c.contiguous ? {} : { endOffsets: Uint32Array.from(ends) }),
  };
  const offsets = Uint32Array.from(c.contiguous ? [...begins, ends[ends.length - 1] ?? 0] : begins);
  const pairs = await prim.arrays.segmentedRadixSortPairs(keys, values, offsets, options);
  expect(firstBad(keys, pairs.keys, order, pairs.values), `pairs ${label}`).toBeUndefined();
  if (keysOnly) {
    const sorted = await prim.arrays.segmentedRadixSortKeys(keys, offsets, options);
    expect(firstBad(keys, sorted, order), `keys ${label}`).toBeUndefined();
  }
}

/** Segments of the given sizes laid out in shuffled positions with gaps between some of them. */
function layout(sizes: number[], seed: number): { n: number; begins: number[]; ends: number[] } {
  const r = rng(seed);
  const perm = sizes.map((_, i) => i).sort(() => r() - 0.5);
  const begins = new Array<number>(sizes.length);
  const ends = new Array<number>(sizes.length);
  let at = 0;
  for (const i of perm) {
    if (r() < 0.3) at += 1 + Math.floor(r() * 5); // a gap no segment covers
    begins[i] = at;
    at += sizes[i]!;
    ends[i] = at;
  }
  return { n: at + 3, begins, ends };
}

const SIZES = [0, 1, 2, 17, TILE - 1, TILE, TILE + 1, 3 * TILE + 5, 0, 100];

describe('segmented radix sort: sizes, positions, gaps', () => {
  it('every key type, both directions, both ranks: empty, 1, tile±1, several tiles, unsorted, gaps', async () => {
    for (const rank of RANKS()) {
      const config = { workgroupSize: TILE_WG, itemsPerThread: TILE_IPT, rank, segmentsPerWorkgroup: 1 };
      // The split rank (the fallback without subgroups) on fewer types: each pipeline compiles slowly on lavapipe.
      for (const type of rank === 'match' ? KEY_TYPES : (['u32', 'i64'] as const)) {
        for (const descending of [false, true]) {
          const { n, begins, ends } = layout(SIZES, SEED + type.length);
          await check(type, randomKeys(type, n, SEED + n, descending ? 7 : undefined), begins, ends, { descending, config }, rank, type === 'u32');
        }
      }
    }
  });

  it('contiguous segments with the end offsets omitted (begin buffer of segments + 1)', async () => {
    const sizes = [5, 0, TILE, 1, 2 * TILE + 3, 0, 64];
    const begins: number[] = [];
    const ends: number[] = [];
    let at = 7; // elements before the first segment are copied through
    for (const s of sizes) {
      begins.push(at);
      at += s;
      ends.push(at);
    }
    for (const rank of RANKS()) {
      const config = { workgroupSize: TILE_WG, itemsPerThread: TILE_IPT, rank, segmentsPerWorkgroup: 1 };
      await check('u32', randomKeys('u32', at + 9, SEED + 3), begins, ends, { contiguous: true, config }, 'omitted ends', true);
      await check('i64', randomKeys('i64', at + 9, SEED + 4, 5), begins, ends, { contiguous: true, config, descending: true }, 'omitted ends');
    }
  });

  it('several segments per workgroup: tiny ones sorted by a subgroup each, the others by the workgroup', async () => {
    if (!RANKS().includes('match')) return;
    const tiny = prim.target.subgroupMinSize;
    const sizes = [1, 2, tiny - 1, tiny, tiny + 1, 0, 3, TILE + 7, tiny, 2, 40, 3 * TILE, 1, tiny, 5];
    const config = { workgroupSize: TILE_WG, itemsPerThread: TILE_IPT, rank: 'match' as const, segmentsPerWorkgroup: 4 };
    for (const [type, descending, beginBit, endBit] of [['u32', false, 0, 32], ['i64', true, 0, 64], ['u64', false, 20, 44], ['f16', true, 0, 16]] as const) {
      const { n, begins, ends } = layout(sizes, SEED + endBit);
      await check(type, randomKeys(type, n, SEED + 77, descending ? 5 : undefined), begins, ends, { descending, beginBit, endBit, config }, 'tiny');
    }
  });

  it('bit ranges (integer keys), radixBits and an empty range', async () => {
    const { n, begins, ends } = layout([TILE + 9, 40, 3 * TILE], SEED + 9);
    for (const rank of RANKS()) {
      // Mostly 8-bit digits (the pipelines of the first test); one narrower digit.
      const cases: [RadixSortKeyType, number, number, number][] = [['u32', 4, 20, 8], ['u32', 3, 3, 8], ['i64', 60, 64, 8], ['u64', 20, 44, 8], ['u32', 0, 32, 5]];
      for (const [type, beginBit, endBit, radixBits] of rank === 'match' ? cases : cases.slice(0, 3)) {
        const config = { workgroupSize: TILE_WG, itemsPerThread: TILE_IPT, rank, radixBits, segmentsPerWorkgroup: 1 };
        await check(type, randomKeys(type, n, SEED + beginBit), begins, ends, { beginBit, endBit, config }, `bits [${beginBit}, ${endBit})`);
      }
    }
  });

  it('8-byte values, segments with ends before begins or past the buffer', async () => {
    const keys = randomKeys('u32', 3000, SEED + 11, 20);
    const values = BigUint64Array.from({ length: 3000 }, (_, i) => (BigInt(i) << 32n) | 7n);
    const begins = [0, 2000, 1500, 2900];
    const ends = [1000, 1990, 1700, 5000];
    const order = referenceOrder('u32', keys, begins, ends, false, 0, 32);
    const configs: Partial<SegmentedRadixSortConfig>[] = [{ workgroupSize: TILE_WG, itemsPerThread: TILE_IPT }];
    // Grouped by length, the bounds are clamped before the partition sees them.
    if (RANKS().includes('match')) configs.push({ workgroupSize: TILE_WG, itemsPerThread: TILE_IPT, rank: 'match', segmentsPerWorkgroup: 2, grouping: 'by-length' });
    for (const config of configs) {
      const got = await prim.arrays.segmentedRadixSortPairs(keys, values, Uint32Array.from(begins), { endOffsets: Uint32Array.from(ends), config });
      expect(firstBad(keys, got.keys, order), JSON.stringify(config)).toBeUndefined();
      expect(Array.from(got.values, (v) => Number(v >> 32n))).toEqual(Array.from(order));
    }
  });
});

// In place: `keysOut` (`valuesOut`) omitted or the input buffer itself. Every placement of the
// outputs against the same CPU reference; uncovered elements stay (in place) or are copied
// (separate outputs), and separate outputs leave the inputs untouched. Paths forced by config:
// short segments (workgroup memory, both ranks), long ones with odd and even digit-pass counts
// (odd: the segment goes through the scratch first), tiny ones (a subgroup each), no digits.
type Placement = 'separate' | 'omitted' | 'same-buffer' | 'keys-in-place' | 'values-in-place';
const PLACEMENTS: readonly Placement[] = ['separate', 'omitted', 'same-buffer', 'keys-in-place', 'values-in-place'];

interface InPlaceCase extends Case {
  readonly valueBytes?: 0 | 4 | 8;
  readonly maxSegmentLength?: number;
}

describe('segmented radix sort: in place', () => {
  let usage = 0;
  let upload: (data: ArrayBufferView) => GPUBuffer;
  let read: (b: GPUBuffer, bytes: number) => Promise<ArrayBuffer>;
  beforeAll(() => {
    ({ usage, upload, read } = bufferIo(prim.device));
  });

  /** One buffer-level call per placement (keys only: the first three), each checked against the reference. */
  async function checkPlacements(type: RadixSortKeyType, keys: KeyArray, begins: number[], ends: number[], c: InPlaceCase, what: string, placements: readonly Placement[] = PLACEMENTS): Promise<void> {
    const n = keys.length;
    const valueBytes = c.valueBytes ?? 4;
    const order = referenceOrder(type, keys, begins, ends, c.descending ?? false, c.beginBit ?? 0, c.endBit ?? widthOf(type));
    const valueOf = (i: number): number | bigint => (valueBytes === 8 ? (BigInt(i) << 32n) | 0x5an : i);
    const values = valueBytes === 8 ? BigUint64Array.from({ length: n }, (_, i) => valueOf(i) as bigint) : Uint32Array.from({ length: n }, (_, i) => i);
    const keyBytes = Math.ceil(keys.byteLength / 4) * 4;
    const KeyCtor = keys.constructor as new (b: ArrayBuffer, o: number, n: number) => KeyArray;
    const ValCtor = values.constructor as new (b: ArrayBuffer) => Uint32Array | BigUint64Array;
    const offsets = upload(Uint32Array.from(c.contiguous ? [...begins, ends[ends.length - 1] ?? 0] : begins));
    const endOffsets = c.contiguous ? undefined : upload(Uint32Array.from(ends));
    const range = c.beginBit === undefined && c.endBit === undefined ? {} : { beginBit: c.beginBit, endBit: c.endBit };
    for (const placement of placements) {
      const keysOnly = valueBytes === 0;
      const padded = new Uint8Array(keyBytes);
      padded.set(new Uint8Array(keys.buffer, keys.byteOffset, keys.byteLength));
      const kb = upload(padded);
      const vb = keysOnly ? undefined : upload(values);
      const separateKeys = placement === 'separate' || placement === 'values-in-place';
      const separateValues = placement === 'separate' || placement === 'keys-in-place';
      const ko = separateKeys ? prim.device.createBuffer({ size: keyBytes, usage }) : placement === 'same-buffer' ? kb : undefined;
      const vo = keysOnly ? undefined : separateValues ? prim.device.createBuffer({ size: values.byteLength, usage }) : placement === 'same-buffer' ? vb : undefined;
      const label = `${type} n=${n} segments=${begins.length} ${JSON.stringify(c)} ${what} ${placement}`;
      const common = { keys: kb, keysOut: ko, count: n, segments: begins.length, beginOffsets: offsets, endOffsets, type, descending: c.descending, ...range, config: c.config, maxSegmentLength: c.maxSegmentLength };
      prim.device.pushErrorScope('validation');
      const enc = prim.device.createCommandEncoder();
      if (keysOnly) await prim.segmentedRadixSortKeys(enc, common);
      else await prim.segmentedRadixSortPairs(enc, { ...common, values: vb!, valuesOut: vo, valueBytes: valueBytes as 4 | 8 });
      prim.device.queue.submit([enc.finish()]);
      expect(await prim.device.popErrorScope(), `validation ${label}`).toBeNull();
      const gotKeys = new KeyCtor(await read(ko ?? kb, keyBytes), 0, n);
      const gotValues = vb ? new ValCtor(await read(vo ?? vb, values.byteLength)) : undefined;
      expect(firstBad(keys, gotKeys, order, gotValues, valueOf), label).toBeUndefined();
      if (ko !== undefined && ko !== kb) expect(new Uint8Array(await read(kb, keyBytes), 0, keys.byteLength), `keys input kept, ${label}`).toEqual(new Uint8Array(keys.buffer, keys.byteOffset, keys.byteLength));
      if (vb && vo !== undefined && vo !== vb) expect(new Uint8Array(await read(vb, values.byteLength)), `values input kept, ${label}`).toEqual(new Uint8Array(values.buffer));
      for (const b of new Set([kb, vb, ko, vo])) b?.destroy();
    }
    offsets.destroy();
    endOffsets?.destroy();
  }
  const KEY_PLACEMENTS: readonly Placement[] = ['separate', 'omitted', 'same-buffer'];

  it('every key type, keys and pairs: short and long segments, odd and even pass counts, gaps', async () => {
    // 8-bit digits: full ranges take 2 (f16), 4 or 8 passes; the integer bit ranges 3 ([0, 24),
    // [40, 64)) or 1 ([3, 11)): the same pipelines with an odd count. One narrower digit on f16 (3 passes).
    for (const rank of RANKS()) {
      const config = { workgroupSize: TILE_WG, itemsPerThread: TILE_IPT, rank, segmentsPerWorkgroup: 1 };
      const types = rank === 'match' ? KEY_TYPES : (['u32', 'i64'] as const);
      for (const type of types) {
        const { n, begins, ends } = layout(SIZES, SEED + 31 + type.length);
        const descending = type === 'i32' || type === 'f16' || type === 'i64';
        const keys = randomKeys(type, n, SEED + n, descending ? 9 : undefined);
        const ranges: [number | undefined, number | undefined][] = [[undefined, undefined]];
        if (type === 'u32' || type === 'i32') ranges.push([0, 24], [3, 11]);
        if (is64(type)) ranges.push([40, 64]);
        for (const [beginBit, endBit] of ranges) {
          const c = { descending, beginBit, endBit, config, valueBytes: is64(type) ? 8 : 4 } as const;
          await checkPlacements(type, keys, begins, ends, c, rank, type === 'u32' && rank === 'match' ? PLACEMENTS : ['omitted']);
          // Keys alone compile kernels of their own: by default for one key of each width (and
          // under the split rank); the sweep takes every type.
          if (SWEEP || rank !== 'match' || type === 'u32' || type === 'f16' || type === 'i64') {
            await checkPlacements(type, keys, begins, ends, { ...c, valueBytes: 0 }, `${rank} keys`, ['same-buffer']);
          }
        }
      }
    }
    if (RANKS().includes('match')) {
      const { n, begins, ends } = layout(SIZES, SEED + 33);
      const config = { workgroupSize: TILE_WG, itemsPerThread: TILE_IPT, rank: 'match' as const, radixBits: 6 };
      await checkPlacements('f16', randomKeys('f16', n, SEED + 34), begins, ends, { config, valueBytes: 0 }, 'odd f16', ['omitted']);
    }
  }, sweepTimeout);

  it('an empty bit range (nothing moves in place; separate outputs get a copy); 8-byte values with 32-bit keys', async () => {
    const { n, begins, ends } = layout([TILE + 9, 40, 3 * TILE, 0, 7], SEED + 41);
    const config = { workgroupSize: TILE_WG, itemsPerThread: TILE_IPT, rank: RANKS()[0] };
    const keys = randomKeys('u32', n, SEED + 42, 50);
    await checkPlacements('u32', keys, begins, ends, { beginBit: 5, endBit: 5, config }, 'no digits', PLACEMENTS);
    await checkPlacements('u32', keys, begins, ends, { beginBit: 5, endBit: 5, config, valueBytes: 0 }, 'no digits keys', ['same-buffer']);
    await checkPlacements('u32', keys, begins, ends, { beginBit: 4, endBit: 28, config, valueBytes: 8 }, '8-byte values', ['omitted']);
  });

  it('tiny segments sorted by a subgroup each, next to short and long ones (16-bit keys share words across segments)', async () => {
    if (!RANKS().includes('match')) return;
    const tiny = prim.target.subgroupMinSize;
    const sizes = [1, 2, tiny - 1, tiny, tiny + 1, 0, 3, TILE + 7, tiny, 2, 40, 3 * TILE, 1, tiny, 5];
    const config = { workgroupSize: TILE_WG, itemsPerThread: TILE_IPT, rank: 'match' as const, segmentsPerWorkgroup: 4 };
    for (const [type, descending, valueBytes] of [['u32', false, 4], ['f16', true, 0], ['i64', true, 8]] as const) {
      const { n, begins, ends } = layout(sizes, SEED + 51 + type.length);
      const keys = randomKeys(type, n, SEED + 52, descending ? 5 : undefined);
      await checkPlacements(type, keys, begins, ends, { descending, config, valueBytes }, 'tiny', ['omitted']);
      if (type !== 'f16') await checkPlacements(type, keys, begins, ends, { descending, config, valueBytes, beginBit: 8, endBit: 32 }, 'tiny, odd passes', ['omitted']);
    }
  });

  it('subgroup sorts of several keys a lane: segments up to subgroupKeysPerLane subgroups long, ties in order', async () => {
    if (!RANKS().includes('match')) return;
    const tiny = prim.target.subgroupMinSize;
    for (const kpl of [2, 4, 8]) {
      const most = kpl * tiny;
      const sizes = [most - 1, most, most + 1, tiny + 1, 2 * tiny - 1, 1, 0, 2 * tiny + 3, most, 3, TILE + 5, most - 2];
      const config = { workgroupSize: TILE_WG, itemsPerThread: TILE_IPT, rank: 'match' as const, segmentsPerWorkgroup: 4, subgroupKeysPerLane: kpl };
      for (const [type, descending, valueBytes] of [['u32', false, 4], ['i64', true, 8], ['f16', false, 0]] as const) {
        const { n, begins, ends } = layout(sizes, SEED + 71 + kpl);
        // Few distinct keys (5 bits), so ties are common and the values show their order.
        const keys = randomKeys(type, n, SEED + 72 + kpl, 5);
        await checkPlacements(type, keys, begins, ends, { descending, config, valueBytes }, `${kpl} keys a lane`, ['omitted']);
      }
    }
    // Only where the subgroup sorts run, in 1, 2, 4 or 8 keys a lane.
    const code = async (c: Partial<SegmentedRadixSortConfig>): Promise<unknown> =>
      prim.arrays.segmentedRadixSortKeys(new Uint32Array(8), Uint32Array.from([0, 8]), { config: { rank: 'match', ...c } }).then(() => 'resolved', (e: { code?: string }) => e.code);
    // One segment a workgroup has no subgroup sorts: their keys a lane change nothing.
    expect(await code({ segmentsPerWorkgroup: 1, subgroupKeysPerLane: 2 })).toBe('resolved');
    expect(await code({ segmentsPerWorkgroup: 4, subgroupKeysPerLane: 3 })).toBe('invalid-config');
    expect(await code({ segmentsPerWorkgroup: 4, subgroupKeysPerLane: 8 })).toBe('resolved');
  });

  it("segments grouped by length: huge ones by every workgroup, longer ones a workgroup each, then the tiny ones; every placement", async () => {
    if (!RANKS().includes('match')) return;
    const tiny = prim.target.subgroupMinSize;
    const config = { workgroupSize: TILE_WG, itemsPerThread: TILE_IPT, rank: 'match' as const, segmentsPerWorkgroup: 4, subgroupKeysPerLane: 2, grouping: 'by-length' as const };
    const most = 2 * tiny;
    // Tiny ones around the subgroup sorts' limit, short and long ones, huge ones (over 4 tiles)
    // around their limit, empty ones; 11 tiny (not a multiple of 4).
    const sizes = [1, most, most + 1, 0, TILE + 7, 3, most - 1, TILE, 2, 4 * TILE, 4 * TILE + 1, 9 * TILE + 5, tiny, 1, 0, 40, 5, most, tiny + 1, 7, 3 * TILE + 1];
    for (const [type, descending, valueBytes, placements] of [['u32', false, 4, PLACEMENTS], ['i64', true, 8, ['omitted', 'values-in-place']], ['f16', false, 0, ['separate', 'same-buffer']]] as const) {
      const { n, begins, ends } = layout(sizes, SEED + 81 + type.length);
      const keys = randomKeys(type, n, SEED + 82, 6);
      await checkPlacements(type, keys, begins, ends, { descending, config, valueBytes }, 'grouped', placements);
      // An odd digit-pass count: in place, the huge segments go through the scratch first.
      if (type !== 'f16') await checkPlacements(type, keys, begins, ends, { descending, config, valueBytes, beginBit: 8, endBit: 32 }, 'grouped, odd passes', ['omitted', 'keys-in-place', 'separate']);
    }
    // An empty bit range: huge segments are copied (or left in place) with the rest.
    const noDigits = layout(sizes, SEED + 88);
    await checkPlacements('u32', randomKeys('u32', noDigits.n, SEED + 89), noDigits.begins, noDigits.ends, { config, beginBit: 4, endBit: 4 }, 'grouped, no digits', ['separate', 'omitted']);
    // Only tiny segments (no workgroup takes a longer one), only longer ones, and the ends omitted.
    const onlyTiny = layout(Array.from({ length: 9 }, (_, i) => 1 + ((i * 7) % most)), SEED + 83);
    await checkPlacements('u32', randomKeys('u32', onlyTiny.n, SEED + 84), onlyTiny.begins, onlyTiny.ends, { config }, 'grouped, tiny only', ['separate']);
    const onlyLonger = layout([most + 1, TILE, 2 * TILE + 3], SEED + 85);
    await checkPlacements('u32', randomKeys('u32', onlyLonger.n, SEED + 86), onlyLonger.begins, onlyLonger.ends, { config }, 'grouped, longer only', ['separate']);
    const begins = [0, 3, 3 + most, 4 + most + TILE, 5 + most + TILE];
    await checkPlacements('u32', randomKeys('u32', 9 + most + TILE, SEED + 87), begins, [...begins.slice(1), 9 + most + TILE], { config, contiguous: true }, 'grouped, ends omitted', ['omitted']);
    // Grouping sets tiny segments apart for the subgroup sorts: without them (one segment a workgroup) it does nothing.
    const alone = { ...config, segmentsPerWorkgroup: 1 };
    await checkPlacements('u32', randomKeys('u32', onlyLonger.n, SEED + 90), onlyLonger.begins, onlyLonger.ends, { config: alone }, 'grouping, one segment a workgroup', ['separate']);
    await expect(prim.arrays.segmentedRadixSortKeys(new Uint32Array(8), Uint32Array.from([0, 8]), { config: { rank: 'match', grouping: 'sorted' as never } }))
      .rejects.toMatchObject({ code: 'invalid-config' });
  });

  it('grouped with a second, smaller tile: segments it holds and tiny ones in one launch, longer ones in another', async () => {
    if (!RANKS().includes('match')) return;
    const tiny = prim.target.subgroupMinSize * 2;
    for (const sipt of [1, 2]) {
      const config = { workgroupSize: TILE_WG, itemsPerThread: TILE_IPT, rank: 'match' as const, segmentsPerWorkgroup: 4, subgroupKeysPerLane: 2, grouping: 'by-length' as const, shortItemsPerThread: sipt };
      const short = TILE_WG * sipt;
      const sizes = [tiny, tiny + 1, short - 1, short, short + 1, 1, TILE, TILE + 1, 0, 4 * TILE + 1, 3, short, tiny + 2, 7, 2 * TILE];
      const { n, begins, ends } = layout(sizes, SEED + 91 + sipt);
      await checkPlacements('u32', randomKeys('u32', n, SEED + 92, 6), begins, ends, { config }, `short tile ${short}`, ['separate', 'omitted', 'keys-in-place']);
      await checkPlacements('i64', randomKeys('i64', n, SEED + 93, 6), begins, ends, { config, descending: true, valueBytes: 8, beginBit: 8, endBit: 64 }, `short tile ${short}, odd passes`, ['omitted']);
    }
    const code = async (c: Partial<SegmentedRadixSortConfig>): Promise<unknown> =>
      prim.arrays.segmentedRadixSortKeys(new Uint32Array(8), Uint32Array.from([0, 8]), { config: { rank: 'match', itemsPerThread: 4, ...c } }).then(() => 'resolved', (e: { code?: string }) => e.code);
    expect(await code({ shortItemsPerThread: 4 })).toBe('invalid-config');
    expect(await code({ shortItemsPerThread: 1.5 })).toBe('invalid-config');
  });

  it('maxSegmentLength within a tile: in place without scratch; contiguous segments with the ends omitted', async () => {
    const { n, begins, ends } = layout([TILE, 1, 0, 100, TILE - 3, 17], SEED + 61);
    for (const rank of RANKS()) {
      const config = { workgroupSize: TILE_WG, itemsPerThread: TILE_IPT, rank, segmentsPerWorkgroup: 1 };
      await checkPlacements('u32', randomKeys('u32', n, SEED + 62), begins, ends, { config, maxSegmentLength: TILE }, `${rank} maxSegmentLength`, ['omitted']);
      await checkPlacements('u32', randomKeys('u32', n, SEED + 63), begins, ends, { config, maxSegmentLength: TILE, valueBytes: 0 }, `${rank} maxSegmentLength keys`, ['same-buffer']);
    }
    const sizes = [5, 0, TILE, 1, 2 * TILE + 3, 0, 64];
    const cb: number[] = [];
    const ce: number[] = [];
    let at = 7;
    for (const s of sizes) {
      cb.push(at);
      at += s;
      ce.push(at);
    }
    const config = { workgroupSize: TILE_WG, itemsPerThread: TILE_IPT, rank: RANKS()[0] };
    await checkPlacements('u32', randomKeys('u32', at + 9, SEED + 64), cb, ce, { contiguous: true, config, beginBit: 0, endBit: 24 }, 'omitted ends', ['omitted']);
  });

  it('partial overlaps stay typed errors: an output that is another role\'s buffer, an offsets buffer sorted in place', async () => {
    const n = 1000;
    const kb = prim.device.createBuffer({ size: n * 8, usage });
    const ko = prim.device.createBuffer({ size: n * 4, usage });
    const vb = prim.device.createBuffer({ size: n * 4, usage });
    const offs = prim.device.createBuffer({ size: 16, usage });
    const base = { keys: kb, count: n, segments: 3, beginOffsets: offs, type: 'u32' as const };
    const encoders: GPUCommandEncoder[] = [];
    const enc = (): GPUCommandEncoder => {
      const e = prim.device.createCommandEncoder();
      encoders.push(e);
      return e;
    };
    const cases: [string, () => Promise<void>][] = [
      ['keys in place and values in the keys buffer', () => prim.segmentedRadixSortPairs(enc(), { ...base, values: kb, valueBytes: 4 })],
      ['values in place in the keys output', () => prim.segmentedRadixSortPairs(enc(), { ...base, keysOut: ko, values: ko, valueBytes: 4 })],
      ['valuesOut is keys (keys in place)', () => prim.segmentedRadixSortPairs(enc(), { ...base, values: vb, valuesOut: kb, valueBytes: 4 })],
      ['keysOut is values (values in place)', () => prim.segmentedRadixSortPairs(enc(), { ...base, keysOut: vb, values: vb, valueBytes: 4 })],
      ['keys in place are the begin offsets', () => prim.segmentedRadixSortKeys(enc(), { ...base, keys: offs, count: 3, segments: 2 })],
      ['keys in place are the end offsets', () => prim.segmentedRadixSortKeys(enc(), { ...base, segments: 2, endOffsets: kb })],
      ['values in place are the begin offsets', () => prim.segmentedRadixSortPairs(enc(), { ...base, count: 3, segments: 2, values: offs, valueBytes: 4 })],
      ['keysOut is valuesOut', () => prim.segmentedRadixSortPairs(enc(), { ...base, keysOut: ko, values: vb, valuesOut: ko, valueBytes: 4 })],
    ];
    for (const [what, call] of cases) {
      await expect(call(), what).rejects.toMatchObject({ code: 'overlap' });
    }
    prim.device.pushErrorScope('validation');
    prim.device.queue.submit(encoders.map((e) => e.finish()));
    expect(await prim.device.popErrorScope()).toBeNull();
    for (const b of [kb, ko, vb, offs]) b.destroy();
  });
});

describe('segmented radix sort: buffer level and errors', () => {
  it('no segments: everything copied through; maxSegmentLength within a tile needs no scratch', async () => {
    const keys = randomKeys('u32', 1000, SEED + 12) as Uint32Array;
    const config = { workgroupSize: TILE_WG, itemsPerThread: TILE_IPT };
    expect(await prim.arrays.segmentedRadixSortKeys(keys, new Uint32Array(0), { config })).toEqual(keys);
    expect(await prim.arrays.segmentedRadixSortKeys(keys, new Uint32Array(1), { config })).toEqual(keys);
    const usage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST;
    const n = 1000;
    const begins = [0, 300, 600];
    const ends = [250, 556, 800];
    const mk = (data: Uint32Array): GPUBuffer => {
      const b = prim.device.createBuffer({ size: Math.max(16, data.byteLength), usage });
      prim.device.queue.writeBuffer(b, 0, data as Uint32Array<ArrayBuffer>);
      return b;
    };
    const kb = mk(keys);
    const ko = prim.device.createBuffer({ size: n * 4, usage });
    const bb = mk(Uint32Array.from(begins));
    const eb = mk(Uint32Array.from(ends));
    const read = prim.device.createBuffer({ size: n * 4, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
    const enc = prim.device.createCommandEncoder();
    await prim.segmentedRadixSortKeys(enc, { keys: kb, keysOut: ko, count: n, segments: 3, beginOffsets: bb, endOffsets: eb, type: 'u32', maxSegmentLength: TILE, config });
    enc.copyBufferToBuffer(ko, 0, read, 0, n * 4);
    prim.device.queue.submit([enc.finish()]);
    await read.mapAsync(GPUMapMode.READ);
    const got = new Uint32Array(read.getMappedRange().slice(0));
    expect(firstBad(keys, got, referenceOrder('u32', keys, begins, ends, false, 0, 32))).toBeUndefined();
    await expect(prim.segmentedRadixSortKeys(prim.device.createCommandEncoder(), { keys: kb, keysOut: ko, count: n, segments: 3, beginOffsets: bb, endOffsets: eb, type: 'u32', maxSegmentLength: -1 })).rejects.toMatchObject({ code: 'invalid-argument' });
    for (const b of [kb, ko, bb, eb, read]) b.destroy();
  });

  it('more than 65,535 segments (a 2-D dispatch)', async () => {
    const segments = 70000;
    const n = segments * 3;
    const keys = randomKeys('u32', n, SEED + 70);
    const begins = Array.from({ length: segments }, (_, i) => 3 * i);
    const ends = begins.map((b) => b + 3);
    // One digit pass (bits [8, 16)) keeps lavapipe quick over 70,000 workgroups.
    const order = referenceOrder('u32', keys, begins, ends, false, 8, 16);
    const got = await prim.arrays.segmentedRadixSortKeys(keys, Uint32Array.from([...begins, n]), { beginBit: 8, endBit: 16, config: { workgroupSize: TILE_WG, itemsPerThread: TILE_IPT, rank: RANKS()[0] } });
    expect(firstBad(keys, got, order), '2-D').toBeUndefined();
  });

  it('rejects bad calls with typed errors before recording anything', async () => {
    const usage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST;
    const n = 1000;
    const kb = prim.device.createBuffer({ size: n * 4, usage });
    const ko = prim.device.createBuffer({ size: n * 4, usage });
    const vb = prim.device.createBuffer({ size: n * 4, usage });
    const vo = prim.device.createBuffer({ size: n * 4, usage });
    const offs = prim.device.createBuffer({ size: 16, usage });
    const offsNoStorage = prim.device.createBuffer({ size: 16, usage: GPUBufferUsage.COPY_DST });
    const base = { keys: kb, keysOut: ko, count: n, segments: 3, beginOffsets: offs, type: 'u32' as const };
    const encoders: GPUCommandEncoder[] = [];
    const enc = (): GPUCommandEncoder => {
      const e = prim.device.createCommandEncoder();
      encoders.push(e);
      return e;
    };
    const maxDim = prim.context.limits.maxComputeWorkgroupsPerDimension;
    const cases: [string, () => Promise<void>, string][] = [
      ['offsets without STORAGE', () => prim.segmentedRadixSortKeys(enc(), { ...base, beginOffsets: offsNoStorage }), 'buffer-usage'],
      ['begin offsets too small (ends omitted: segments + 1)', () => prim.segmentedRadixSortKeys(enc(), { ...base, segments: 4 }), 'buffer-size'],
      ['end offsets too small', () => prim.segmentedRadixSortKeys(enc(), { ...base, segments: 5, beginOffsets: kb, endOffsets: offs, keysOut: vo }), 'buffer-size'],
      ['end offsets without STORAGE', () => prim.segmentedRadixSortKeys(enc(), { ...base, endOffsets: offsNoStorage }), 'buffer-usage'],
      ['segments over the grid', () => prim.segmentedRadixSortKeys(enc(), { ...base, segments: maxDim * maxDim + 1 }), 'limit-exceeded'],
      ['negative segments', () => prim.segmentedRadixSortKeys(enc(), { ...base, segments: -1 }), 'invalid-argument'],
      ['keysOut is values', () => prim.segmentedRadixSortPairs(enc(), { ...base, values: vb, valuesOut: ko, keysOut: vb, valueBytes: 4 }), 'overlap'],
      ['keys too small', () => prim.segmentedRadixSortKeys(enc(), { ...base, count: n + 1 }), 'buffer-size'],
      ['float bit range', () => prim.segmentedRadixSortKeys(enc(), { ...base, type: 'f32', endBit: 16 }), 'invalid-argument'],
      ['unknown type', () => prim.segmentedRadixSortKeys(enc(), { ...base, type: 'u8' as never }), 'unsupported-type'],
      ['valueBytes 2', () => prim.segmentedRadixSortPairs(enc(), { ...base, values: vb, valuesOut: vo, valueBytes: 2 as never }), 'invalid-argument'],
      ['values are keysOut', () => prim.segmentedRadixSortPairs(enc(), { ...base, values: ko, valuesOut: vo, valueBytes: 4 }), 'overlap'],
      ['radixBits 9', () => prim.segmentedRadixSortKeys(enc(), { ...base, config: { radixBits: 9 } }), 'invalid-config'],
      ['tile over workgroup memory', () => prim.segmentedRadixSortKeys(enc(), { ...base, config: { workgroupSize: 256, itemsPerThread: 32 } }), 'invalid-config'],
      ['unknown rank', () => prim.segmentedRadixSortKeys(enc(), { ...base, config: { rank: 'warp' as never } }), 'invalid-config'],
    ];
    for (const [what, call, code] of cases) {
      await expect(call(), what).rejects.toMatchObject({ code });
    }
    prim.device.pushErrorScope('validation');
    prim.device.queue.submit(encoders.map((e) => e.finish()));
    expect(await prim.device.popErrorScope()).toBeNull();
    await expect(prim.arrays.segmentedRadixSortKeys(new Uint32Array(4), Uint32Array.from([0, 2]), { endOffsets: new Uint32Array(1) })).rejects.toMatchObject({ code: 'invalid-argument' });
    await expect(prim.arrays.segmentedRadixSortKeys(new Uint32Array(4), [0, 4] as never)).rejects.toMatchObject({ code: 'invalid-argument' });
    for (const b of [kb, ko, vb, vo, offs, offsNoStorage]) b.destroy();
  });

  it('bench: segmented_radix_sort in rocPRIM name grammar, with the CUB anchor type u32/seg1024', async () => {
    const config = { workgroupSize: TILE_WG, itemsPerThread: TILE_IPT, rank: RANKS()[0], segmentsPerWorkgroup: 1, subgroupKeysPerLane: 1, grouping: 'none' as const, shortItemsPerThread: 0 };
    const [r] = await benchmarkAlgorithm(prim, { algorithm: 'segmented_radix_sort', type: 'u32', size: 5000, seed: 5, warmup: 1, batches: 1, batchSize: 1, config });
    expect(r!.name).toBe(`{lvl:device,algo:segmented_radix_sort,key_type:u32,value_type:empty,segment_length:1024,cfg:{bs:${TILE_WG},ipt:${TILE_IPT},bits:8,rank:${config.rank},spw:1}}`);
    expect(anchorType(r!)).toBe('u32/seg1024');
    expect(configFromName('segmented_radix_sort', parseName(r!.name).cfg as never)).toEqual({ ...config, radixBits: 8 });
    // One key a lane is left out of names (as names before the field had it); more is named.
    const four = { ...config, radixBits: 8, segmentsPerWorkgroup: 4, subgroupKeysPerLane: 4, grouping: 'none' };
    const name = benchmarkName('segmented_radix_sort', 'u32', four);
    expect(name).toContain('spw:4,kpl:4}');
    expect(configFromName('segmented_radix_sort', parseName(name).cfg as never)).toEqual(four);
    // Ungrouped is left out too; grouped by length is named.
    const grouped = { ...four, grouping: 'by-length' };
    expect(benchmarkName('segmented_radix_sort', 'u32', grouped)).toContain('spw:4,kpl:4,grp:by_length}');
    expect(configFromName('segmented_radix_sort', parseName(benchmarkName('segmented_radix_sort', 'u32', grouped)).cfg as never)).toEqual(grouped);
    // A second tile is named; none is left out.
    const shortTile = { ...grouped, shortItemsPerThread: 2 };
    expect(benchmarkName('segmented_radix_sort', 'u32', shortTile)).toContain('grp:by_length,sipt:2}');
    expect(configFromName('segmented_radix_sort', parseName(benchmarkName('segmented_radix_sort', 'u32', shortTile)).cfg as never)).toEqual(shortTile);
  });

  it('bench: segmented_radix_sort_pow on power-law segments, against CUB anchor type u32/segpow1.5_min8', async () => {
    const [r] = await benchmarkAlgorithm(prim, { algorithm: 'segmented_radix_sort_pow', type: 'u32', size: 5000, seed: 5, warmup: 1, batches: 1, batchSize: 1 });
    expect(r!.name).toMatch(/^\{lvl:device,algo:segmented_radix_sort_pow,key_type:u32,value_type:empty,segment_lengths:pow1\.5_min8,cfg:\{/);
    expect(anchorType(r!)).toBe('u32/segpow1.5_min8');
    // Opt-in: slow on CPU adapters, so `all` (and the demo) leave it out.
    expect(expandAlgorithm('all')).not.toContain('segmented_radix_sort_pow');
    expect(expandAlgorithm('all')).toContain('segmented_radix_sort');
    // The draw: Pareto from 8 with alpha 1.5, capped at 2^20, the last cut at the count.
    const offsets = powerLawOffsets(1 << 22);
    const lengths = Array.from(offsets.subarray(1), (e, i) => e - offsets[i]!);
    expect(offsets[0]).toBe(0);
    expect(offsets[offsets.length - 1]).toBe(1 << 22);
    expect(lengths.slice(0, -1).reduce((m, l) => Math.min(m, l), Infinity)).toBe(8);
    expect(lengths.reduce((m, l) => Math.max(m, l), 0)).toBeLessThanOrEqual(2 ** 20);
    const mean = (1 << 22) / lengths.length;
    expect(mean).toBeGreaterThan(18);
    expect(mean).toBeLessThan(30);
    // P(length >= 64) = (8 / 64)^1.5 = 4.4%.
    const long = lengths.filter((l) => l >= 64).length / lengths.length;
    expect(long).toBeGreaterThan(0.035);
    expect(long).toBeLessThan(0.055);
  });

  it('the heuristic config is valid for every key type and value size', () => {
    for (const type of KEY_TYPES) {
      for (const vb of [0, 4, 8] as const) {
        const t = typeInfo(type);
        const h = segmentedRadixSortHeuristic(prim.context, t, vb);
        expect(segmentedRadixSortConfigProblem(prim.context, t, vb, h), `${type} values ${vb}`).toBeUndefined();
        // Several segments a workgroup (tiny ones by a subgroup each) with the match rank only.
        expect(h.segmentsPerWorkgroup, `${type} values ${vb}`).toBe(h.rank === 'match' ? 8 : 1);
        // With them: 2 keys a lane, and the segments grouped by length (huge ones by every workgroup).
        expect([h.subgroupKeysPerLane, h.grouping], `${type} values ${vb}`).toEqual(h.rank === 'match' ? [2, 'by-length'] : [1, 'none']);
        const bare = createPrim(prim.device, { adapterInfo: { vendor: 'nobody', architecture: '', device: '', description: '' } });
        expect(bare.selectedSegmentedRadixSortConfig(type, vb)).toEqual({ config: segmentedRadixSortHeuristic(bare.context, t, vb), source: 'heuristic' });
      }
    }
  });
});
