import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createPrim, type Prim, type RadixSortConfig, type RadixSortKeyType, typeInfo, WgprimError } from '../src/index.js';
import { ONESWEEP_MAX_COUNT, RADIX_SORT_BYTES_PER_INVOCATION, RADIX_SORT_DECOUPLED_DEFAULT_MAX_COUNT, radixSortConfigProblem, radixSortHeuristic, radixSortWorkgroupBytes } from '../src/device/radix-sort/config.js';
import { onesweepSortKernel } from '../src/device/radix-sort/onesweep-kernel.js';
import { SORT_GROUPS } from '../src/device/radix-sort/radix-sort.js';
import { TILE_BLOCK, UPSWEEP_TILES } from '../src/device/radix-sort/kernel.js';
import { requestDevice } from '../src/node/index.js';
import { testPrim } from './support/gpu.js';
import { rng, SEED } from './support/data.js';
import { SWEEP, sweepOr, sweepTimeout } from './support/sweep.js';
import { bufferIo, firstBad, KEY_TYPES, type KeyArray, randomKeys, referenceOrder, widthOf } from './support/radix.js';

// The portable LSD radix sort against a CPU reference: a stable sort of indices by the
// order-preserving transform of each key (restricted to the bit range), so that values = index
// checks stability and every result is compared bit for bit (NaN payloads included).

let prim: Prim;
beforeAll(async () => {
  prim = await testPrim();
});

interface SortCase {
  readonly descending?: boolean;
  readonly beginBit?: number;
  readonly endBit?: number;
  readonly config?: Partial<RadixSortConfig>;
  readonly blockSortConfig?: { readonly maxCount?: number };
}

/** The small-size path off: every count takes the onesweep / LSD path of `config`. */
const LSD_ONLY = { maxCount: 0 } as const;

/** Sorts pairs (values = index) and keys alone through the array API and checks both. */
async function check(type: RadixSortKeyType, keys: KeyArray, c: SortCase, what: string, keysOnly = true): Promise<void> {
  const order = referenceOrder(type, keys, c.descending ?? false, c.beginBit ?? 0, c.endBit ?? widthOf(type));
  const label = `${type} n=${keys.length} ${JSON.stringify(c)} ${what}`;
  const values = Uint32Array.from({ length: keys.length }, (_, i) => i);
  // A forced config means the onesweep / LSD path at every size (not the block sort below its maxCount).
  const forced = c.config !== undefined && c.blockSortConfig === undefined ? { ...c, blockSortConfig: LSD_ONLY } : c;
  const options = type === 'f16' ? { ...forced, type: 'f16' as const } : forced;
  const pairs = await prim.arrays.radixSortPairs(keys, values, options);
  expect(firstBad(keys, pairs.keys, order, pairs.values), `pairs ${label}`).toBeUndefined();
  if (keysOnly) {
    const sorted = await prim.arrays.radixSortKeys(keys, options);
    expect(firstBad(keys, sorted, order), `keys ${label}`).toBeUndefined();
  }
}

function tileOf(type: RadixSortKeyType, valueBytes: 0 | 4 | 8 = 4): number {
  const { config } = prim.selectedRadixSortConfig(type, valueBytes);
  return config.workgroupSize * config.itemsPerThread;
}

describe('radix sort: every key type, both directions, sizes around tiles', () => {
  // A test per key type: each compiles its own pipelines (cold, on lavapipe, most of the time).
  for (const type of KEY_TYPES) {
    it(`${type}: random keys, values = index, ascending and descending`, async () => {
      // Below the block sort's maxCount: its tile (one workgroup) and its merge passes. The
      // direction is a flag of the same kernels: sizes take turns, so both paths see both.
      const block = prim.selectedRadixSortBlockSortConfig(type, 4).config;
      const tile = block.workgroupSize * block.itemsPerThread;
      const sizes = [0, 1, 2, 3, tile - 1, tile, tile + 1, 2 * tile + 1, 7919, 20011];
      for (const [i, n] of sizes.entries()) {
        await check(type, randomKeys(type, n, SEED + n), { descending: i % 2 === 1 }, `seed=${SEED + n}`, n < 10000);
      }
    });
  }

  it('the default LSD config just past the block sort\'s maxCount (u32, f32 descending, i64)', async () => {
    for (const [type, descending] of [['u32', false], ['f32', true], ['i64', false]] as const) {
      const n = Math.max(prim.selectedRadixSortBlockSortConfig(type, 4).config.maxCount, 2 * tileOf(type)) + 3;
      await check(type, randomKeys(type, n, SEED + n), { descending }, 'past maxCount', false);
    }
  });

  it('duplicates-heavy inputs keep equal keys in input order', async () => {
    for (const type of KEY_TYPES) {
      for (const distinct of [1, 3, 17]) {
        const n = 3 * tileOf(type) + 101;
        await check(type, randomKeys(type, n, SEED + distinct, distinct), { descending: distinct === 3 }, `distinct=${distinct}`, false);
      }
    }
  });

  it('8-byte values move with their keys', async () => {
    for (const type of ['u32', 'u64'] as const) {
      const n = 3 * tileOf(type, 8) + 5;
      const keys = randomKeys(type, n, SEED + 8, 50);
      const values = BigUint64Array.from({ length: n }, (_, i) => (BigInt(i) << 32n) | BigInt(n - i));
      const order = referenceOrder(type, keys, false, 0, type === 'u64' ? 64 : 32);
      const got = await prim.arrays.radixSortPairs(keys, values);
      expect(got.values).toBeInstanceOf(BigUint64Array);
      expect(firstBad(keys, got.keys, order, got.values, (j) => values[j]!), `${type} n=${n}`).toBeUndefined();
    }
  });
});

describe('radix sort: floats', () => {
  const specials = [
    0x7fc00000, 0xffc00000, 0x7f800001, 0xff800001, 0x7fffffff, 0xffffffff, // NaNs of both signs (quiet, signalling)
    0x7f800000, 0xff800000, // +inf, -inf
    0x00000000, 0x80000000, // +0, -0
    0x00000001, 0x80000001, 0x007fffff, 0x807fffff, // denormals
    0x00800000, 0x80800000, 0x7f7fffff, 0xff7fffff, // smallest and largest normals
    0x3f800000, 0xbf800000, 0x3f800001, 0xbf7fffff, // around ±1
  ];
  it('total order: -NaN < -inf < ... < -0 < +0 < ... < +inf < +NaN, stable among equal bits', async () => {
    const r = rng(SEED + 5);
    for (const n of [specials.length, 4099, 30011]) {
      const bits = Uint32Array.from({ length: n }, (_, i) => (i < specials.length ? specials[i]! : specials[Math.floor(r() * specials.length)]!));
      const keys = new Float32Array(bits.buffer);
      await check('f32', keys, {}, 'specials');
      await check('f32', keys, { descending: true }, 'specials');
    }
    // The order itself, spelled out (so a wrong reference cannot hide a wrong sort).
    const sorted = new Uint32Array((await prim.arrays.radixSortKeys(new Float32Array(Uint32Array.from([0x3f800000, 0x7fc00000, 0x80000000, 0xff800000, 0x00000000, 0xffc00000, 0x7f800000, 0xbf800000, 0x80000001, 0x00000001]).buffer))).buffer);
    expect(Array.from(sorted, (b) => b.toString(16))).toEqual(['ffc00000', 'ff800000', 'bf800000', '80000001', '80000000', '0', '1', '3f800000', '7f800000', '7fc00000']);
  });

  it('f16 keys (bits in a Uint16Array): the same total order, odd counts share words', async () => {
    const sp16 = [0x7e00, 0xfe00, 0x7c01, 0xfc01, 0x7c00, 0xfc00, 0x0000, 0x8000, 0x0001, 0x8001, 0x03ff, 0x83ff, 0x3c00, 0xbc00, 0x7bff, 0xfbff];
    const r = rng(SEED + 16);
    for (const n of [sp16.length + 1, 4099, 30011]) {
      const keys = Uint16Array.from({ length: n }, (_, i) => (i < sp16.length ? sp16[i]! : sp16[Math.floor(r() * sp16.length)]!));
      await check('f16', keys, {}, 'specials');
      await check('f16', keys, { descending: true }, 'specials');
    }
    const sorted = await prim.arrays.radixSortKeys(Uint16Array.from([0x3c00, 0x7e00, 0x8000, 0xfc00, 0x0000, 0xfe00, 0x7c00, 0xbc00, 0x8001]), { type: 'f16' });
    expect(Array.from(sorted, (b) => b.toString(16))).toEqual(['fe00', 'fc00', 'bc00', '8001', '8000', '0', '3c00', '7c00', '7e00']);
  });

  it('random reals in [-1, 1) sort as numbers', async () => {
    const r = rng(SEED + 6);
    const keys = Float32Array.from({ length: 50021 }, () => r() * 2 - 1);
    const got = await prim.arrays.radixSortKeys(keys);
    const want = Float32Array.from(keys).sort();
    expect(Array.from(got)).toEqual(Array.from(want));
  });
});

describe('radix sort: bit ranges and configs', () => {
  it('integer keys sort by bits [beginBit, endBit) only', async () => {
    const cases: [RadixSortKeyType, number, number][] = [
      ['u32', 0, 32], ['u32', 4, 20], ['u32', 8, 9], ['u32', 31, 32], ['u32', 7, 7], ['u32', 0, 5],
      ['i32', 0, 32], ['i32', 16, 32], ['i32', 3, 30],
      ['u64', 20, 44], ['u64', 32, 64], ['u64', 0, 33], ['i64', 0, 64], ['i64', 30, 63], ['i64', 60, 64],
    ];
    for (const [type, beginBit, endBit] of cases) {
      const keys = randomKeys(type, 7919, SEED + beginBit * 100 + endBit);
      await check(type, keys, { beginBit, endBit }, 'bit range', false);
      await check(type, keys, { beginBit, endBit, descending: true }, 'bit range', false);
    }
  });

  it('u64 keys across the 2^32 boundary', async () => {
    const r = rng(SEED + 64);
    const keys = BigUint64Array.from({ length: 20011 }, () => (1n << 32n) + BigInt(Math.floor(r() * 2000)) - 1000n);
    await check('u64', keys, {}, 'around 2^32');
    const signed = BigInt64Array.from({ length: 20011 }, () => BigInt(Math.floor(r() * 2000)) - 1000n + (r() < 0.5 ? (1n << 32n) : -(1n << 32n)));
    await check('i64', signed, { descending: true }, 'around ±2^32');
  });
});

// ---------------------------------------------------------------------------------------------
// Every option on its own, forced by a full config (nothing from the heuristic or a tuned row).
// Small tiles: lavapipe compiles and runs them fastest.

/** Onesweep: match rank, decoupled look-back per digit, a histogram pass. */
const ONESWEEP: RadixSortConfig = {
  workgroupSize: 32, itemsPerThread: 4, radixBits: 8, rank: 'match', workgroupScan: 'subgroup', lookback: 'decoupled',
  // One kernel for every pass, as lavapipe's heuristic (a third of the pipelines to compile);
  // kernels by pass are tested in radix-sort-paths.test.ts and past one binding below.
  histogramWorkgroupSize: 32, histogramItemsPerThread: 4, decoupledMaxCount: 0, passKernels: 'shared',
};
/** The match rank with an upsweep and a scan of per-tile counts. */
const MATCH_RTS: RadixSortConfig = { ...ONESWEEP, lookback: 'reduce-then-scan' };
/** The split rank (one stable split per bit), workgroup-memory scans. */
const SPLIT: RadixSortConfig = { ...ONESWEEP, rank: 'split', workgroupScan: 'shared', lookback: 'reduce-then-scan' };
/** The split rank with subgroup scans. */
const SPLIT_SUB: RadixSortConfig = { ...SPLIT, workgroupScan: 'subgroup' };
const METHODS: readonly [string, RadixSortConfig][] = [['onesweep', ONESWEEP], ['match+reduce-then-scan', MATCH_RTS], ['split/shared', SPLIT], ['split/subgroup', SPLIT_SUB]];
const tileSize = (c: RadixSortConfig): number => c.workgroupSize * c.itemsPerThread;

describe('radix sort: each rank and look-back forced by config', () => {
  beforeAll(() => {
    // Every forced config is valid here: a test below that fails is a wrong sort, not a config the device refuses.
    for (const [, c] of METHODS) expect(radixSortConfigProblem(prim.context, typeInfo('u64'), 8, c)).toBeUndefined();
  });

  // Each method with u32 keys and one more key type (both through pairs and keys only).
  const extra: Record<string, RadixSortKeyType> = { onesweep: 'i64', 'match+reduce-then-scan': 'f32', 'split/shared': 'u64', 'split/subgroup': 'f16' };
  // The kernels each method dispatches (so a config that is silently replaced cannot pass);
  // reduce-then-scan scans counts per tile (tileScan).
  const kernels: Record<string, string[]> = {
    onesweep: ['histogram', 'rowScan', 'onesweep'], 'match+reduce-then-scan': ['upsweep', 'countScan', 'tileScan', 'sort'], 'split/shared': ['upsweep', 'scatter'], 'split/subgroup': ['upsweep', 'scatter'],
  };
  for (const [name, config] of METHODS) {
    it(`${name}: sizes 0, 1, tile - 1, tile, tile + 1, 2 tiles + 1, a prime; both directions`, async () => {
      const dispatch = vi.spyOn(prim.context, 'dispatch');
      const tile = tileSize(config);
      for (const type of ['u32', extra[name]!] as const) {
        for (const n of [0, 1, tile - 1, tile, tile + 1, 2 * tile + 1, 7919]) {
          for (const descending of [false, true]) await check(type, randomKeys(type, n, SEED + n), { descending, config }, name, type === 'u32');
        }
      }
      const labels = new Set(dispatch.mock.calls.map((c) => c[1].replace(/^wgprim\.radixSort\.([^.]+).*$/, '$1')).filter((l) => !l.startsWith('wgprim.')));
      dispatch.mockRestore();
      expect([...labels].sort()).toEqual([...kernels[name]!].sort());
    });
  }

  it('radixBits 4..8 (pass counts odd and even, a short last pass): onesweep and the other methods', async () => {
    // Onesweep with every width and the other methods with one each (8 is the default above).
    const cases: [string, RadixSortConfig, RadixSortKeyType][] = [
      ...[4, 5, 6, 7].map((radixBits): [string, RadixSortConfig, RadixSortKeyType] => ['onesweep', { ...ONESWEEP, radixBits }, radixBits === 5 ? 'i64' : 'u32']),
      ['match+reduce-then-scan', { ...MATCH_RTS, radixBits: 6 }, 'f32'],
      ['split/shared', { ...SPLIT, radixBits: 5 }, 'u32'],
      ['split/subgroup', { ...SPLIT_SUB, radixBits: 7 }, 'i32'],
    ];
    // By default: an even pass count (4 bits), an odd one with a short last pass (5 bits of
    // i64), and each other method with one width; the sweep runs every row.
    for (const [name, config, type] of sweepOr(cases, [cases[0]!, cases[1]!, cases[4]!, cases[6]!])) {
      for (const descending of [false, true]) {
        for (const n of [1, tileSize(config) + 1, 3001]) await check(type, randomKeys(type, n, SEED + config.radixBits + n, 700), { descending, config }, `${name} bits ${config.radixBits}`, false);
      }
    }
  }, sweepTimeout);

  it('odd itemsPerThread with the match rank (onesweep and reduce-then-scan)', async () => {
    const cases: [RadixSortConfig, RadixSortKeyType][] = [
      [{ ...ONESWEEP, itemsPerThread: 1 }, 'u32'], [{ ...ONESWEEP, itemsPerThread: 3 }, 'f32'], [{ ...ONESWEEP, itemsPerThread: 7 }, 'u32'],
      [{ ...MATCH_RTS, itemsPerThread: 5 }, 'u32'],
    ];
    for (const [config, type] of sweepOr(cases, [cases[1]!, cases[3]!])) {
      const tile = tileSize(config);
      for (const n of [1, tile - 1, tile + 1, 5 * tile + 3, 7919]) await check(type, randomKeys(type, n, SEED + n), { descending: n % 2 === 0, config }, `ipt ${config.itemsPerThread}`, false);
    }
  }, sweepTimeout);

  it('workgroupSize 32, 64 and 96 (a multiple of 32, not a power of two) with each method', async () => {
    // By default 96 (the shape least like the others) with each method; the sweep adds 32 and 64.
    for (const workgroupSize of sweepOr([32, 64, 96], [96])) {
      for (const [name, base] of METHODS) {
        if (workgroupSize === 32 && name.startsWith('split')) continue; // the default shape of SPLIT above
        const config = { ...base, workgroupSize, histogramWorkgroupSize: workgroupSize };
        const type: RadixSortKeyType = workgroupSize === 96 ? 'u64' : 'u32';
        for (const n of [1, tileSize(config) + 1, 3 * tileSize(config) + 1, 7919]) await check(type, randomKeys(type, n, SEED + workgroupSize + n), { descending: n === 7919, config }, `${name} wg ${workgroupSize}`, false);
      }
    }
  }, sweepTimeout);

  it('320 and 384 invocations (the H200 u64 keys row is 320 x 9): more invocations than digits, u64 keys and pairs, both offset methods', async () => {
    // The widest digits whose counters fit: a counter row per subgroup, so lavapipe's 8-lane
    // subgroups take 40 rows at 320 invocations (7-bit digits fit its 32 KiB, 8-bit ones do not)
    // and 4-lane ones 80 (6-bit digits).
    // Pairs by default (keys only as well under the sweep, and 384 x 7).
    const cases: [number, number, RadixSortConfig, boolean][] = [[320, 9, MATCH_RTS, true], [320, 9, ONESWEEP, true], [384, 7, MATCH_RTS, false]];
    for (const [workgroupSize, itemsPerThread, base, keysOnly] of sweepOr(cases, [[320, 9, MATCH_RTS, false], [320, 9, ONESWEEP, false]])) {
      const shaped = (radixBits: number): RadixSortConfig => ({ ...base, workgroupSize, itemsPerThread, radixBits, histogramWorkgroupSize: 256 });
      const radixBits = [7, 6, 5].find((bits) => radixSortConfigProblem(prim.context, typeInfo('u64'), 4, shaped(bits)) === undefined);
      expect(radixBits, `${workgroupSize} x ${itemsPerThread}: no digit width from 5 to 7 bits fits`).toBeDefined();
      const config = shaped(radixBits!);
      const tile = tileSize(config);
      for (const n of [tile - 1, 2 * tile + 1]) await check('u64', randomKeys('u64', n, SEED + n), { descending: n === tile - 1, config }, `${base.lookback} ${workgroupSize} x ${itemsPerThread}`, keysOnly);
    }
  }, sweepTimeout);

  it('histogram shapes: small tiles (over 512 histogram tiles), 96 invocations, odd and large itemsPerThread', async () => {
    const shapes: [number, number][] = [[32, 1], [96, 3], [128, 16], [64, 7], [256, 4]];
    for (const [histogramWorkgroupSize, histogramItemsPerThread] of sweepOr(shapes, [[32, 1], [96, 3], [64, 7]])) {
      const config = { ...ONESWEEP, histogramWorkgroupSize, histogramItemsPerThread };
      // One key type a shape by default (its own histogram kernel), both under the sweep.
      for (const type of sweepOr(['u32', 'u64'] as const, [histogramItemsPerThread % 2 === 1 ? 'u32' : 'u64'] as const)) {
        await check(type, randomKeys(type, 20011, SEED + histogramItemsPerThread), { descending: type === 'u64', config }, `histogram ${histogramWorkgroupSize}x${histogramItemsPerThread}`, false);
      }
    }
    // A bit range with a copy pass in place of a digit (the histogram's row offset): an odd pass count in place.
    const n = 4099;
    const keys = randomKeys('u32', n, SEED + 41) as Uint32Array;
    const got = await prim.arrays.radixSortKeys(keys, { config: { ...ONESWEEP, histogramWorkgroupSize: 96, histogramItemsPerThread: 3 }, blockSortConfig: LSD_ONLY, beginBit: 8, endBit: 24 });
    expect(firstBad(keys, got, referenceOrder('u32', keys, false, 8, 24))).toBeUndefined();
  });

  /** Sorts n random keys of `type` (with 4- or 8-byte values: index values, checked for stability) through the LSD path. */
  const sortOne = async (type: RadixSortKeyType, vb: 0 | 4 | 8, n: number, config: Partial<RadixSortConfig>, descending: boolean): Promise<void> => {
    const keys = randomKeys(type, n, SEED + n + vb, descending ? 300 : undefined);
    const order = referenceOrder(type, keys, descending, 0, widthOf(type));
    const label = `${type} n=${n} values ${vb} ${JSON.stringify(config)}`;
    const opts = { config, blockSortConfig: LSD_ONLY, descending, ...(type === 'f16' ? { type: 'f16' as const } : {}) };
    if (vb === 0) {
      expect(firstBad(keys, await prim.arrays.radixSortKeys(keys, opts), order), label).toBeUndefined();
    } else if (vb === 4) {
      const values = Uint32Array.from({ length: n }, (_, i) => i);
      const got = await prim.arrays.radixSortPairs(keys, values, opts);
      expect(firstBad(keys, got.keys, order, got.values), label).toBeUndefined();
    } else {
      const values = BigUint64Array.from({ length: n }, (_, i) => (BigInt(n - i) << 32n) | BigInt(i));
      const got = await prim.arrays.radixSortPairs(keys, values, opts);
      expect(firstBad(keys, got.keys, order, got.values, (j) => values[j]!), label).toBeUndefined();
    }
  };

  it('every key type with keys only, 4-byte and 8-byte values under onesweep (small tile)', async () => {
    // By default every type with one value size and every value size with 32- and 64-bit keys
    // (each pair its own sort kernel); the sweep takes every pair.
    const some: Record<RadixSortKeyType, readonly (0 | 4 | 8)[]> = { u32: [0, 8], i32: [4], f32: [8], f16: [0], u64: [4, 8], i64: [0] };
    for (const type of KEY_TYPES) {
      for (const vb of sweepOr([0, 4, 8] as const, some[type])) {
        for (const n of [1, 127, 129, 3001]) await sortOne(type, vb, n, ONESWEEP, vb === 4);
      }
    }
  }, sweepTimeout);

  it('a tile whose exchange outgrows the rank\'s counters (their totals and the subgroup ticket kept inside it): both offset methods, keys and values', async () => {
    // 6-bit digits keep the counters small (64 a subgroup), so a modest tile has room past them.
    const nsg = 32 / prim.target.subgroupMinSize;
    const itemsPerThread = Math.ceil((nsg * 64 + nsg + 1) / 32);
    for (const base of [ONESWEEP, MATCH_RTS]) {
      const config: RadixSortConfig = { ...base, radixBits: 6, itemsPerThread };
      const { code } = onesweepSortKernel({ key: typeInfo('u32'), valueBytes: 0, config, offsets: base === ONESWEEP ? 'lookback' : 'scanned', subgroupMinSize: prim.target.subgroupMinSize, subgroupMaxSize: prim.target.subgroupMaxSize });
      // The compact layout is what runs: no workgroup arrays of its own for the totals, the ticket or the starts.
      expect(code).not.toMatch(/var<workgroup> (rk_sums|sg_counter|rk_start)\b/);
      const tile = tileSize(config);
      const all = [['u32', 0, tile - 1], ['u32', 4, 3 * tile + 1], ['i64', 8, tile + 1], ['f32', 0, 7919]] as const;
      // Each case compiles its own kernels: by default each method sorts keys alone once and
      // with values once (4-byte under one, 8-byte under the other); the sweep takes all four.
      for (const [type, vb, n] of sweepOr(all, base === ONESWEEP ? [all[0], all[2]] : [all[1], all[3]])) {
        await sortOne(type, vb, n, config, n % 2 === 1);
      }
    }
  }, sweepTimeout);

  it('the default shape forced to onesweep: u32 keys, f32 with 4-byte values, u64 with 8-byte values', async () => {
    // Large tiles compile slowly here: three of them, a test of their own.
    const forced: Partial<RadixSortConfig> = { rank: 'match', lookback: 'decoupled' };
    for (const [type, vb] of [['u32', 0], ['f32', 4], ['u64', 8]] as const) {
      const full = { ...prim.selectedRadixSortConfig(type, vb).config, ...forced };
      expect(radixSortConfigProblem(prim.context, typeInfo(type), vb, full), `${type} values ${vb}`).toBeUndefined();
      await sortOne(type, vb, 2 * tileSize(full) + 1, forced, type === 'f32');
    }
  });

  it('bit ranges with each method: u64 across bit 32, narrow ranges with a partial last pass', async () => {
    // 8-bit digits (the configs above, so no new kernels): [20, 44) three passes across bit 32,
    // [28, 37) a 1-bit last pass, [3, 14) a 3-bit last pass, [5, 6) one 1-bit pass.
    const cases: [RadixSortKeyType, number, number][] = [['u64', 20, 44], ['u64', 28, 37], ['u32', 3, 14], ['u32', 5, 6]];
    for (const [name, base] of METHODS.slice(0, 3)) {
      for (const [type, beginBit, endBit] of cases) {
        const keys = randomKeys(type, 4099, SEED + beginBit * 100 + endBit);
        for (const descending of [false, true]) await check(type, keys, { beginBit, endBit, descending, config: base }, name, false);
      }
    }
    // Keys that differ only around bit 32: a range that straddles it decides everything.
    const r = rng(SEED + 65);
    const keys = BigUint64Array.from({ length: 5003 }, () => (1n << 32n) + BigInt(Math.floor(r() * 512)) - 256n);
    for (const [name, base] of METHODS.slice(0, 3)) await check('u64', keys, { beginBit: 24, endBit: 40, config: base }, name, false);
  });

  it('more than 65,535 tiles (a 2-D dispatch), one 4-bit digit pass, with each method (reduce-then-scan pairs too)', async () => {
    // Tiles of 32 keys (match, 1 item per invocation) and 128 (split, 4 items per invocation).
    const cases: [string, RadixSortConfig][] = [
      ['onesweep', { ...ONESWEEP, itemsPerThread: 1, radixBits: 4, histogramWorkgroupSize: 256, histogramItemsPerThread: 16 }],
      ['match+reduce-then-scan', { ...MATCH_RTS, itemsPerThread: 1, radixBits: 4 }],
      ['split', { ...SPLIT, radixBits: 4 }],
    ];
    for (const [name, config] of cases) {
      const n = 65536 * tileSize(config) + 7;
      expect(Math.ceil(n / tileSize(config))).toBeGreaterThan(prim.context.limits.maxComputeWorkgroupsPerDimension);
      const keys = randomKeys('u32', n, SEED + 65536);
      const order = referenceOrder('u32', keys, false, 4, 8);
      const got = await prim.arrays.radixSortKeys(keys, { config, blockSortConfig: LSD_ONLY, beginBit: 4, endBit: 8 });
      expect(firstBad(keys, got, order), `${name} n=${n}`).toBeUndefined();
      if (name === 'match+reduce-then-scan') {
        // Pairs: a workgroup a tile from per-tile counts (2,049 blocks of them), the sort 2-D.
        const index = Uint32Array.from({ length: n }, (_, i) => i);
        const pairs = await prim.arrays.radixSortPairs(keys, index, { config, blockSortConfig: LSD_ONLY, beginBit: 4, endBit: 8 });
        expect(firstBad(keys, pairs.keys, order, pairs.values), `${name} pairs n=${n}`).toBeUndefined();
      }
    }
  });
});

describe('radix sort: adapters whose subgroup size varies', () => {
  it('declared sizes 4..8 on an adapter that runs 8: counts for subgroups that do not exist are skipped (unrolled and looped count scans)', async () => {
    if (prim.target.subgroupMaxSize !== 8) return; // lavapipe (CI) runs 8-wide subgroups
    const { device, adapterInfo } = await requestDevice();
    const ranged = createPrim(device, { adapterInfo: { ...adapterInfo, subgroupMinSize: 4, subgroupMaxSize: 8 } as GPUAdapterInfo });
    expect(ranged.target).toMatchObject({ subgroupMinSize: 4, subgroupMaxSize: 8 });
    const saved = prim;
    prim = ranged;
    try {
      // 4-bit digits in 32 invocations: 8 subgroups at most, one digit each (the unrolled scan);
      // 8-bit digits in 64: 16 subgroups, 4 digits each (the looped scan). Runs of tiles too.
      for (const config of [{ workgroupSize: 32, itemsPerThread: 3, radixBits: 4 }, { workgroupSize: 64, itemsPerThread: 5, radixBits: 8 }]) {
        for (const lookback of ['reduce-then-scan', 'decoupled'] as const) {
          // Pairs (keys only too under the sweep): a new device compiles every kernel again.
          for (const n of [1, 1000, 20011]) {
            await check('u32', randomKeys('u32', n, SEED + n), { config: { ...config, rank: 'match', lookback } }, `ranged ${lookback}`, SWEEP);
          }
        }
      }
      const n = SORT_GROUPS * 32 * 3 + 5;
      await check('u32', randomKeys('u32', n, SEED), { config: { workgroupSize: 32, itemsPerThread: 1, radixBits: 8, rank: 'match', lookback: 'reduce-then-scan' }, beginBit: 8, endBit: 24 }, 'ranged, runs of tiles', false);
    } finally {
      prim = saved;
      device.destroy();
    }
  });
});

describe('radix sort: reduce-then-scan groups sort runs of tiles', () => {
  it('more tiles than SORT_GROUPS: each group sorts several tiles in order (the last partial), keys and pairs, two passes, both directions', async () => {
    // Tiles of 32 keys: more than SORT_GROUPS tiles, so groups take 3 tiles each and prefetch
    // the next tile's keys while writing out the current one.
    const config = { ...MATCH_RTS, workgroupSize: 32, itemsPerThread: 1, radixBits: 4 };
    const n = SORT_GROUPS * 32 * 2 + 77;
    expect(Math.ceil(Math.ceil(n / 32) / SORT_GROUPS)).toBe(3);
    const keys = randomKeys('u32', n, SEED + 77);
    await check('u32', keys, { config, beginBit: 0, endBit: 8 }, 'runs of tiles');
    await check('u32', keys, { config, beginBit: 4, endBit: 12, descending: true }, 'runs of tiles');
  });

  it('the counts\' scan (one workgroup a digit, from the digit totals the upsweep adds in copies): exactly SORT_GROUPS groups of one tile, the last partial or full, and one tile more (groups of two)', async () => {
    for (const radixBits of [8, 4]) {
      const config = { ...MATCH_RTS, workgroupSize: 32, itemsPerThread: 1, radixBits };
      for (const n of [SORT_GROUPS * 32 - 1, SORT_GROUPS * 32, SORT_GROUPS * 32 + 1]) {
        const keys = randomKeys('u32', n, SEED + n + radixBits);
        await check('u32', keys, { config, descending: radixBits === 4 }, `count scan, ${radixBits}-bit digits`);
      }
    }
  });

  it('runs of tiles where the exchange that the rank counters share holds two planes: 8-byte values with u32 keys, u64 keys with 4-byte values', async () => {
    // Each tile's counters are cleared in the memory the previous tile's values were read from.
    const config = { ...MATCH_RTS, workgroupSize: 32, itemsPerThread: 1, radixBits: 4 };
    const n = SORT_GROUPS * 32 * 2 + 77;
    const opts = { config, blockSortConfig: LSD_ONLY, beginBit: 28, endBit: 36 };
    const keys32 = randomKeys('u32', n, SEED + 78);
    const order32 = referenceOrder('u32', keys32, false, 28, 32);
    const wide = BigUint64Array.from({ length: n }, (_, i) => (BigInt(n - i) << 32n) | BigInt(i));
    const got32 = await prim.arrays.radixSortPairs(keys32, wide, { ...opts, endBit: 32 });
    expect(firstBad(keys32, got32.keys, order32, got32.values, (j) => wide[j]!), 'u32 keys, 8-byte values').toBeUndefined();
    const keys64 = randomKeys('u64', n, SEED + 79);
    const order64 = referenceOrder('u64', keys64, false, 28, 36);
    const index = Uint32Array.from({ length: n }, (_, i) => i);
    const got64 = await prim.arrays.radixSortPairs(keys64, index, opts);
    expect(firstBad(keys64, got64.keys, order64, got64.values), 'u64 keys, 4-byte values').toBeUndefined();
  });
});

describe('radix sort: reduce-then-scan sorts a tile a workgroup from counts per tile', () => {
  it('tile counts in blocks of TILE_BLOCK tiles: counts that end a block early, on its edge and one tile past it; more digits than invocations; whole tiles of one digit; 8-byte values', async () => {
    const config = { ...MATCH_RTS, workgroupSize: 32, itemsPerThread: 1, radixBits: 4 };
    for (const tiles of [1, TILE_BLOCK - 1, TILE_BLOCK, TILE_BLOCK + 1, 3 * TILE_BLOCK + 5]) {
      const n = tiles * 32 - (tiles % 2);
      await check('u32', randomKeys('u32', n, SEED + 90 + tiles), { config, beginBit: 0, endBit: 8, descending: tiles % 2 === 1 }, `${tiles} tiles`, false);
    }
    // More digits than the upsweep's invocations (its digits in turns: 64 and 256 digits, 32
    // invocations), and a group's tiles (UPSWEEP_TILES) cut short by the last tile.
    const n6 = (2 * TILE_BLOCK + UPSWEEP_TILES + 1) * 32 - 7;
    await check('u32', randomKeys('u32', n6, SEED + 93), { config: { ...config, radixBits: 6 }, beginBit: 4, endBit: 16 }, '6-bit digits', false);
    await check('u32', randomKeys('u32', n6, SEED + 94), { config: { ...config, radixBits: 8 }, beginBit: 0, endBit: 16 }, '8-bit digits', false);
    // Every key of a tile with one digit (a whole tile's count in one counter), odd and even digits.
    const one = Uint32Array.from({ length: 5 * 32 + 3 }, (_, i) => (Math.floor(i / 32) % 2 === 0 ? 0x13 : 0x24));
    await check('u32', one, { config, beginBit: 0, endBit: 8 }, 'tiles of one digit', false);
    const wide = BigUint64Array.from({ length: 100003 }, (_, i) => (BigInt(i) << 32n) | BigInt(100003 - i));
    const keys2 = randomKeys('u32', 100003, SEED + 92);
    const order = referenceOrder('u32', keys2, false, 24, 32);
    const got = await prim.arrays.radixSortPairs(keys2, wide, { config, blockSortConfig: LSD_ONLY, beginBit: 24, endBit: 32 });
    expect(firstBad(keys2, got.keys, order, got.values, (j) => wide[j]!), '8-byte values').toBeUndefined();
  });
});

describe('radix sort: config errors', () => {
  const base = (): { keys: GPUBuffer; count: number; type: 'u32' } => ({ keys, count: 1000, type: 'u32' });
  let keys: GPUBuffer;
  beforeAll(() => {
    keys = prim.device.createBuffer({ size: 4000, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("invalid combinations and values: 'invalid-config' before any pipeline", async () => {
    const pipeline = vi.spyOn(prim.context, 'pipeline');
    const cases: [string, Partial<RadixSortConfig>, RegExp][] = [
      // Over the selected config (a split rank's itemsPerThread given, which the selected one may not have).
      ['decoupled with split', { rank: 'split', lookback: 'decoupled', itemsPerThread: 8 }, /decoupled.*needs rank "match"/],
      ['decoupled with split (full config)', { ...ONESWEEP, rank: 'split', workgroupScan: 'shared' }, /needs rank "match"/],
      ['unknown rank', { rank: 'warp' as never }, /unknown rank "warp"/],
      ['unknown lookback', { lookback: 'magic' as never }, /unknown lookback "magic"/],
      ['unknown workgroupScan', { ...SPLIT, workgroupScan: 'warp' as never }, /unknown workgroupScan/],
      ['histogramWorkgroupSize 48', { ...ONESWEEP, histogramWorkgroupSize: 48 }, /histogram workgroupSize 48 is not a multiple of 32/],
      ['histogramWorkgroupSize 0', { ...ONESWEEP, histogramWorkgroupSize: 0 }, /histogram workgroupSize/],
      ['histogramWorkgroupSize over the device', { ...ONESWEEP, histogramWorkgroupSize: 32 * prim.context.limits.maxComputeInvocationsPerWorkgroup }, /histogram workgroupSize/],
      ['histogramItemsPerThread 0', { ...ONESWEEP, histogramItemsPerThread: 0 }, /histogram itemsPerThread 0/],
      ['histogramItemsPerThread 65', { ...ONESWEEP, histogramItemsPerThread: 65 }, /histogram itemsPerThread 65/],
      ['itemsPerThread 6 with split', { ...SPLIT, itemsPerThread: 6 }, /multiple of 4/],
      ['itemsPerThread 0 with match', { ...ONESWEEP, itemsPerThread: 0 }, /itemsPerThread 0/],
      ['itemsPerThread 65 with match', { ...MATCH_RTS, itemsPerThread: 65 }, /itemsPerThread 65/],
      ['itemsPerThread 2.5 with match', { ...ONESWEEP, itemsPerThread: 2.5 }, /itemsPerThread 2.5/],
      ['workgroupSize 48', { ...ONESWEEP, workgroupSize: 48 }, /workgroupSize 48/],
      ['radixBits 3', { ...ONESWEEP, radixBits: 3 }, /radixBits 3/],
      ['radixBits 9 (split)', { ...SPLIT, radixBits: 9 }, /radixBits 9/],
    ];
    for (const [what, config, message] of cases) {
      const enc = prim.device.createCommandEncoder();
      const err = await prim.radixSortKeys(enc, { ...base(), config, blockSortConfig: LSD_ONLY }).then(() => undefined, (e: unknown) => e);
      expect(err, what).toBeInstanceOf(WgprimError);
      expect((err as WgprimError).code, what).toBe('invalid-config');
      expect((err as WgprimError).message, what).toMatch(message);
      enc.finish();
    }
    // A valid odd itemsPerThread and a split rank with a multiple of 4 are accepted (sanity of the cases above).
    expect(radixSortConfigProblem(prim.context, typeInfo('u32'), 0, { ...ONESWEEP, itemsPerThread: 6 })).toBeUndefined();
    expect(pipeline).not.toHaveBeenCalled();
    await expect(prim.arrays.radixSortKeys(new Uint32Array(4), { config: { rank: 'split', lookback: 'decoupled', itemsPerThread: 8 }, blockSortConfig: LSD_ONLY })).rejects.toMatchObject({ code: 'invalid-config' });
  });

  it("the match rank and subgroup scans on a device without subgroups: 'invalid-config'; the split rank runs there", async () => {
    const nd = await requestDevice();
    const adapter = await nd.gpu.requestAdapter();
    const device = await adapter!.requestDevice(); // no optional features
    try {
      const bare = createPrim(device, { adapterInfo: adapter!.info });
      expect(bare.context.hasSubgroups).toBe(false);
      const h = bare.selectedRadixSortConfig('u32', 4).config;
      expect(h).toMatchObject({ rank: 'split', workgroupScan: 'shared', lookback: 'reduce-then-scan' });
      const kb = device.createBuffer({ size: 4000, usage: GPUBufferUsage.STORAGE });
      for (const [what, config] of [['onesweep', ONESWEEP], ['match', MATCH_RTS], ['match (partial)', { rank: 'match' }], ['subgroup scan', SPLIT_SUB]] as const) {
        const err = await bare.radixSortKeys(device.createCommandEncoder(), { keys: kb, count: 1000, type: 'u32', config, blockSortConfig: LSD_ONLY }).then(() => undefined, (e: unknown) => e);
        expect(err, what).toMatchObject({ code: 'invalid-config' });
        expect((err as Error).message, what).toMatch(/subgroups/);
      }
      // The split rank, by default and forced, sorts right without subgroups.
      const k = randomKeys('u32', 3001, SEED + 3) as Uint32Array;
      const values = Uint32Array.from({ length: k.length }, (_, i) => i);
      for (const config of [undefined, SPLIT, { ...SPLIT, radixBits: 5, workgroupSize: 96 }]) {
        const got = await bare.arrays.radixSortPairs(k, values, { config, blockSortConfig: LSD_ONLY, descending: true });
        expect(firstBad(k, got.keys, referenceOrder('u32', k, true, 0, 32), got.values), JSON.stringify(config)).toBeUndefined();
      }
    } finally {
      device.destroy();
      nd.device.destroy();
    }
  });

  it("more than 2^30 - 1 keys with onesweep: 'limit-exceeded' (checked before any buffer or pipeline; no giant buffer made)", async () => {
    // A context whose binding limits pass 2^30 keys, and buffers that only claim their size:
    // the onesweep count check comes after the argument checks and before anything is made.
    const p = createPrim(prim.device, { adapterInfo: { vendor: prim.target.vendor, architecture: prim.target.architecture, device: prim.target.device, description: '', subgroupMinSize: prim.target.subgroupMinSize, subgroupMaxSize: prim.target.subgroupMaxSize } as GPUAdapterInfo });
    const real = p.context.limits;
    const limits = new Proxy(real, { get: (t, k) => (k === 'maxStorageBufferBindingSize' || k === 'maxBufferSize' ? 2 ** 40 : Reflect.get(t, k)) });
    Object.defineProperty(p.context, 'limits', { value: limits });
    const fake = (size: number): GPUBuffer => ({ size, usage: GPUBufferUsage.STORAGE } as GPUBuffer);
    const spies = [vi.spyOn(p.context, 'pipeline'), vi.spyOn(p.context, 'scratch'), vi.spyOn(prim.device, 'createBuffer')];
    const count = ONESWEEP_MAX_COUNT + 1;
    expect(count).toBe(2 ** 30);
    const enc = prim.device.createCommandEncoder();
    const args = { keys: fake(4 * count), keysOut: fake(4 * count), count, type: 'u32' as const, blockSortConfig: LSD_ONLY };
    for (const config of [ONESWEEP, { lookback: 'decoupled' as const }]) {
      await expect(p.radixSortKeys(enc, { ...args, config }), JSON.stringify(config)).rejects.toMatchObject({ code: 'limit-exceeded', message: expect.stringMatching(/onesweep counts keys in 30 bits.*reduce-then-scan/) });
      await expect(p.radixSortPairs(enc, { ...args, values: fake(8 * count), valueBytes: 8, config })).rejects.toMatchObject({ code: 'limit-exceeded' });
    }
    for (const s of spies) expect(s).not.toHaveBeenCalled();
    enc.finish();
  });
});

describe('radix sort: keys and values past one storage binding (bound as two ranges)', () => {
  // A context whose maxStorageBufferBindingSize reads 1.5 MiB (a device cannot be given a limit
  // below the default 128 MiB; every range bound is then within the real one): 2^18 + 1001 u64
  // keys (or 8-byte values), 2.1 MB, take two bindings each, split at 1.5 MiB; 4-byte values one.
  const LIMIT = 3 << 19;
  const N = 2 ** 18 + 1001;
  /**
   * Tiles of 512 keys keep the look-back state (2 x 256 words a tile) under the lowered limit; 64
   * invocations keep the match rank's counters (a row per subgroup) within 32 KiB at 4 lanes too.
   */
  const shape = { workgroupSize: 64, itemsPerThread: 8, histogramWorkgroupSize: 128, histogramItemsPerThread: 8 } as const;
  function lowered(extra: Record<string, number> = {}): { p: Prim; device: GPUDevice; kernels: string[] } {
    const device = prim.device;
    const p = createPrim(device, { adapterInfo: { vendor: prim.target.vendor, architecture: prim.target.architecture, device: prim.target.device, description: '', subgroupMinSize: prim.target.subgroupMinSize, subgroupMaxSize: prim.target.subgroupMaxSize } as GPUAdapterInfo });
    const over: Record<string, number> = { maxStorageBufferBindingSize: LIMIT, ...extra };
    const limits = new Proxy(p.context.limits, { get: (t, k) => (typeof k === 'string' && k in over ? over[k] : Reflect.get(t, k)) });
    Object.defineProperty(p.context, 'limits', { value: limits });
    const kernels: string[] = [];
    const pipeline = p.context.pipeline.bind(p.context);
    p.context.pipeline = (k) => {
      kernels.push(k.key);
      return pipeline(k);
    };
    return { p, device, kernels };
  }

  it('u64 keys with 8-byte values, 4-byte values and none: onesweep, reduce-then-scan with the match rank, the split rank; in place and not', async () => {
    const { p, device, kernels } = lowered();
    {
      expect(p.context.limits.maxStorageBufferBindingSize).toBe(LIMIT);
      const { usage, upload, read } = bufferIo(device);
      const keys = randomKeys('u64', N, SEED + 77) as BigUint64Array;
      expect(keys.byteLength).toBeGreaterThan(LIMIT);
      const v8 = BigUint64Array.from({ length: N }, (_, i) => BigInt(i) | (BigInt(i ^ 0x5a5a5) << 32n));
      const v4 = Uint32Array.from({ length: N }, (_, i) => i);
      const methods = [['onesweep', ONESWEEP], ['match+reduce-then-scan', MATCH_RTS], ['split', SPLIT]] as const;
      for (const [name, base] of methods) {
        // Onesweep with kernels by pass (8-byte keys by digit word: the H200's 2^28 u64 sort).
        const config = { ...base, ...shape, ...(name === 'onesweep' ? { passKernels: 'specialized' as const } : {}) };
        const cases: [0 | 4 | 8, 'separate' | 'in-place', boolean][] = [[8, 'separate', false], [8, 'in-place', true]];
        if (name === 'onesweep') cases.push([0, 'in-place', false], [4, 'separate', true]);
        if (name === 'split') cases.push([4, 'in-place', false]);
        // Every context here compiles its kernels anew (onesweep's by pass and direction): by
        // default each method once with 8-byte values, in place and not over the methods, and
        // 4-byte values once (keys alone split: the last test here); the sweep runs every case.
        const some: Record<string, [0 | 4 | 8, 'separate' | 'in-place', boolean][]> = {
          onesweep: [[8, 'separate', false]], 'match+reduce-then-scan': [[8, 'in-place', true]], split: [[8, 'separate', false], [4, 'in-place', false]],
        };
        for (const [valueBytes, mode, descending] of sweepOr(cases, some[name]!)) {
          const label = `${name} valueBytes ${valueBytes} ${mode}${descending ? ' descending' : ''}`;
          const order = referenceOrder('u64', keys, descending, 0, 64);
          const vals = valueBytes === 8 ? v8 : v4;
          const kb = upload(keys);
          const vb = valueBytes ? upload(vals) : undefined;
          const ko = mode === 'separate' ? device.createBuffer({ size: keys.byteLength, usage }) : undefined;
          const vo = mode === 'separate' && valueBytes ? device.createBuffer({ size: vals.byteLength, usage }) : undefined;
          kernels.length = 0;
          const enc = device.createCommandEncoder();
          const common = { keys: kb, keysOut: ko, count: N, type: 'u64' as const, descending, config, blockSortConfig: LSD_ONLY };
          if (valueBytes) await p.radixSortPairs(enc, { ...common, values: vb!, valuesOut: vo, valueBytes });
          else await p.radixSortKeys(enc, common);
          device.queue.submit([enc.finish()]);
          expect(kernels.some((k) => k.includes(':sk')), `keys split, ${label}`).toBe(true);
          expect(kernels.some((k) => k.includes(':sv')), `values split, ${label}`).toBe(valueBytes === 8);
          const got = new BigUint64Array(await read(ko ?? kb, keys.byteLength));
          const gotValues = valueBytes === 8 ? new BigUint64Array(await read(vo ?? vb!, vals.byteLength)) : valueBytes === 4 ? new Uint32Array(await read(vo ?? vb!, vals.byteLength)) : undefined;
          expect(firstBad(keys, got, order, gotValues, (i) => vals[i]!), label).toBeUndefined();
          if (ko) expect(new BigUint64Array(await read(kb, keys.byteLength)), `keys input kept, ${label}`).toEqual(keys);
          for (const b of [kb, vb, ko, vo]) b?.destroy();
        }
      }
    }
  }, sweepTimeout);

  it('f16 keys past one binding (words split; the cleared words and the odd tail in the second range), each method, in place and not', async () => {
    const { p, device, kernels } = lowered();
    const { usage, upload, read } = bufferIo(device);
    const n = 800001;
    const keys = randomKeys('f16', n, SEED + 79, 5000) as Uint16Array;
    const bytes = Math.ceil(n / 2) * 4;
    expect(bytes).toBeGreaterThan(LIMIT);
    const order = referenceOrder('f16', keys, false, 0, 16);
    for (const [name, base] of [['onesweep', ONESWEEP], ['match+reduce-then-scan', MATCH_RTS], ['split', SPLIT]] as const) {
      for (const mode of ['separate', 'in-place'] as const) {
        const padded = new Uint16Array(bytes / 2).fill(0xa5c3);
        padded.set(keys);
        const kb = upload(padded);
        // The tail half (past the keys) must stay as it was.
        const ko = mode === 'separate' ? device.createBuffer({ size: bytes, usage }) : undefined;
        if (ko) device.queue.writeBuffer(ko, 0, new Uint16Array(bytes / 2).fill(0xa5c3));
        kernels.length = 0;
        const enc = device.createCommandEncoder();
        await p.radixSortKeys(enc, { keys: kb, keysOut: ko, count: n, type: 'f16', config: { ...base, ...shape, radixBits: 4 }, blockSortConfig: LSD_ONLY });
        device.queue.submit([enc.finish()]);
        expect(kernels.some((k) => k.includes(':sk')), `${name} ${mode}`).toBe(true);
        const got = new Uint16Array(await read(ko ?? kb, bytes));
        expect(firstBad(keys, got.subarray(0, n), order), `${name} ${mode}`).toBeUndefined();
        expect(got[n], `tail half, ${name} ${mode}`).toBe(0xa5c3);
        for (const b of [kb, ko]) b?.destroy();
      }
    }
  });

  it("over two bindings, too few storage buffers per stage, or on the block sort path: typed errors before anything is recorded", async () => {
    const { p, device, kernels } = lowered({ maxStorageBuffersPerShaderStage: 8 });
    {
      const big = (bytes: number): GPUBuffer => device.createBuffer({ size: bytes, usage: GPUBufferUsage.STORAGE });
      const kb = big(N * 8);
      const vb = big(N * 8);
      const enc = device.createCommandEncoder();
      const base = { keys: kb, count: N, type: 'u64' as const, config: { ...ONESWEEP, ...shape }, blockSortConfig: LSD_ONLY };
      // Split keys and values under onesweep: 10 storage buffers in its sort kernel.
      await expect(p.radixSortPairs(enc, { ...base, values: vb, valueBytes: 8 })).rejects.toMatchObject({ code: 'limit-exceeded', message: expect.stringMatching(/maxStorageBuffersPerShaderStage of 8/) });
      // Past two bindings.
      const over = Math.floor((2 * LIMIT) / 8) + 64;
      await expect(p.radixSortKeys(enc, { ...base, keys: big(over * 8), count: over })).rejects.toMatchObject({ code: 'limit-exceeded', message: expect.stringMatching(/two storage ranges/) });
      // The block sort path keeps one binding.
      await expect(p.radixSortKeys(enc, { ...base, blockSortConfig: { maxCount: 2 ** 30 } })).rejects.toMatchObject({ code: 'limit-exceeded', message: expect.stringMatching(/block sort path/) });
      expect(kernels).toEqual([]);
      enc.finish();
      // Keys only split: 6 storage buffers, within 8.
      const keys = randomKeys('u64', N, SEED + 78) as BigUint64Array;
      const { upload, read } = bufferIo(device);
      const kb2 = upload(keys);
      const enc2 = device.createCommandEncoder();
      await p.radixSortKeys(enc2, { ...base, keys: kb2 });
      device.queue.submit([enc2.finish()]);
      expect(firstBad(keys, new BigUint64Array(await read(kb2, keys.byteLength)), referenceOrder('u64', keys, false, 0, 64))).toBeUndefined();
      for (const b of [kb, vb, kb2]) b.destroy();
    }
  });
});

describe('radix sort: buffer level', () => {
  // GPUBufferUsage exists once the device is created (beforeAll).
  let usage = 0;
  let upload: (data: ArrayBufferView) => GPUBuffer;
  let read: (b: GPUBuffer, bytes: number) => Promise<ArrayBuffer>;
  beforeAll(() => {
    ({ usage, upload, read } = bufferIo(prim.device));
  });

  it('separate outputs leave the inputs untouched; in place and mixed outputs; empty bit ranges copy', async () => {
    const n = 5003;
    const keys = randomKeys('u32', n, SEED + 20, 1000) as Uint32Array;
    const values = Uint32Array.from({ length: n }, (_, i) => i);
    // radixBits 5 gives 7 passes (odd: a copy pass comes first in place); 8 gives 4; [3, 3) none; [0, 4) with 4 bits one.
    // Each with onesweep, the match rank with reduce-then-scan and the split rank; the default once.
    const cases: [Partial<RadixSortConfig>, number, number][] = [[{}, 0, 32]];
    for (const base of [ONESWEEP, MATCH_RTS, SPLIT]) {
      cases.push([{ ...base, radixBits: 5 }, 0, 32], [base, 0, 32], [base, 3, 3]);
      // One 4-bit pass: onesweep's kernels are compiled above; the others' under the sweep.
      if (base === ONESWEEP || SWEEP) cases.push([{ ...base, radixBits: 4 }, 0, 4]);
    }
    for (const [config, beginBit, endBit] of cases) {
      const order = referenceOrder('u32', keys, false, beginBit, endBit);
      for (const mode of ['separate', 'in-place', 'keys-in-place', 'values-in-place'] as const) {
        const kb = upload(keys);
        const vb = upload(values);
        const ko = mode === 'separate' || mode === 'values-in-place' ? prim.device.createBuffer({ size: n * 4, usage }) : undefined;
        const vo = mode === 'separate' || mode === 'keys-in-place' ? prim.device.createBuffer({ size: n * 4, usage }) : undefined;
        const enc = prim.device.createCommandEncoder();
        await prim.radixSortPairs(enc, { keys: kb, values: vb, keysOut: ko, valuesOut: vo, valueBytes: 4, count: n, type: 'u32', beginBit, endBit, config, blockSortConfig: LSD_ONLY });
        prim.device.queue.submit([enc.finish()]);
        const gotKeys = new Uint32Array(await read(ko ?? kb, n * 4));
        const gotValues = new Uint32Array(await read(vo ?? vb, n * 4));
        const label = `${mode} ${JSON.stringify(config)} [${beginBit}, ${endBit})`;
        expect(firstBad(keys, gotKeys, order, gotValues), label).toBeUndefined();
        if (ko) expect(new Uint32Array(await read(kb, n * 4)), `keys input kept, ${label}`).toEqual(keys);
        if (vo) expect(new Uint32Array(await read(vb, n * 4)), `values input kept, ${label}`).toEqual(values);
        for (const b of [kb, vb, ko, vo]) b?.destroy();
      }
    }
  });

  it('f16 keys: in place and not, odd and even counts, each method; halves past count and words past the keys stay as they were', async () => {
    // A key buffer holds the keys, then guard halves (a whole guard word after an odd count's
    // half): the sort must write exactly the keys. Outputs are made without COPY_DST (the
    // scratch-free clear takes a kernel there) and with it (clearBuffer).
    const GUARD = 0xa5c3;
    const make = (keys: Uint16Array | Uint32Array, halves: number, copyDst: boolean): GPUBuffer => {
      const b = prim.device.createBuffer({ size: Math.ceil(halves / 2) * 4, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | (copyDst ? GPUBufferUsage.COPY_DST : 0), mappedAtCreation: true });
      const h = new Uint16Array(b.getMappedRange());
      h.fill(GUARD);
      h.set(new Uint16Array(keys.buffer, keys.byteOffset, keys.byteLength / 2));
      b.unmap();
      return b;
    };
    for (const [name, base] of [['onesweep', ONESWEEP], ['match+reduce-then-scan', MATCH_RTS], ['split', SPLIT]] as const) {
      // radixBits 8: two passes; 6: three (in place: a copy pass first). One of them a method
      // by default (each a kernel of its own), both under the sweep.
      for (const radixBits of sweepOr([8, 6], [name === 'match+reduce-then-scan' ? 8 : 6])) {
        for (const n of [5003, 5004]) {
          const keys = randomKeys('f16', n, SEED + n + radixBits, 3000) as Uint16Array;
          const values = Uint32Array.from({ length: n }, (_, i) => i);
          const order = referenceOrder('f16', keys, false, 0, 16);
          const halves = n % 2 === 1 ? n + 3 : n + 2;
          for (const mode of ['separate', 'in-place', 'keys-in-place', 'values-in-place'] as const) {
            for (const copyDst of [false, true]) {
              const kb = make(keys, halves, copyDst);
              const vb = upload(values);
              const ko = mode === 'separate' || mode === 'values-in-place' ? make(new Uint16Array(0), halves, copyDst) : undefined;
              const vo = mode === 'separate' || mode === 'keys-in-place' ? prim.device.createBuffer({ size: n * 4, usage }) : undefined;
              const enc = prim.device.createCommandEncoder();
              await prim.radixSortPairs(enc, { keys: kb, values: vb, keysOut: ko, valuesOut: vo, valueBytes: 4, count: n, type: 'f16', config: { ...base, radixBits }, blockSortConfig: LSD_ONLY });
              prim.device.queue.submit([enc.finish()]);
              const got = new Uint16Array(await read(ko ?? kb, Math.ceil(halves / 2) * 4));
              const label = `${name} radixBits ${radixBits} n=${n} ${mode}${copyDst ? ' COPY_DST' : ''}`;
              expect(firstBad(keys, got.subarray(0, n), order, new Uint32Array(await read(vo ?? vb, n * 4))), label).toBeUndefined();
              expect([...got.subarray(n)], `guard halves, ${label}`).toEqual(new Array(halves - n).fill(GUARD));
              if (ko) expect(new Uint16Array(await read(kb, Math.ceil(halves / 2) * 4)).subarray(0, n), `keys input kept, ${label}`).toEqual(keys);
              for (const b of [kb, vb, ko, vo]) b?.destroy();
            }
          }
        }
      }
    }
  });

  it('two sorts recorded into one encoder (shared scratch) are both right', async () => {
    const a = randomKeys('u32', 30011, SEED + 30) as Uint32Array;
    const b = randomKeys('u32', 9001, SEED + 31) as Uint32Array;
    const ab = upload(a);
    const bb = upload(b);
    const enc = prim.device.createCommandEncoder();
    await prim.radixSortKeys(enc, { keys: ab, count: a.length, type: 'u32' });
    await prim.radixSortKeys(enc, { keys: bb, count: b.length, type: 'u32', descending: true });
    prim.device.queue.submit([enc.finish()]);
    expect(firstBad(a, new Uint32Array(await read(ab, a.byteLength)), referenceOrder('u32', a, false, 0, 32))).toBeUndefined();
    expect(firstBad(b, new Uint32Array(await read(bb, b.byteLength)), referenceOrder('u32', b, true, 0, 32))).toBeUndefined();
    ab.destroy();
    bb.destroy();
  });

  it('rejects bad calls with typed errors before recording anything', async () => {
    const n = 1000;
    const kb = upload(new Uint32Array(n));
    const vb = upload(new Uint32Array(n));
    const small = prim.device.createBuffer({ size: 64, usage });
    const noStorage = prim.device.createBuffer({ size: n * 4, usage: GPUBufferUsage.COPY_DST });
    const base = { keys: kb, count: n, type: 'u32' as const };
    const cases: [string, () => Promise<void>, string][] = [
      ['float partial range', () => prim.radixSortKeys(enc(), { ...base, type: 'f32', beginBit: 0, endBit: 16 }), 'invalid-argument'],
      ['float begin bit', () => prim.radixSortKeys(enc(), { ...base, type: 'f32', beginBit: 1 }), 'invalid-argument'],
      ['f16 partial range', () => prim.radixSortKeys(enc(), { ...base, type: 'f16', endBit: 15 }), 'invalid-argument'],
      ['f16 end past 16', () => prim.radixSortKeys(enc(), { ...base, type: 'f16', endBit: 32 }), 'invalid-argument'],
      ['endBit past the key', () => prim.radixSortKeys(enc(), { ...base, endBit: 33 }), 'invalid-argument'],
      ['begin after end', () => prim.radixSortKeys(enc(), { ...base, beginBit: 9, endBit: 8 }), 'invalid-argument'],
      ['fractional bit', () => prim.radixSortKeys(enc(), { ...base, endBit: 8.5 }), 'invalid-argument'],
      ['i16 keys', () => prim.radixSortKeys(enc(), { ...base, type: 'i16' as never }), 'unsupported-type'],
      ['unknown type', () => prim.radixSortKeys(enc(), { ...base, type: 'u8' as never }), 'unsupported-type'],
      ['negative count', () => prim.radixSortKeys(enc(), { ...base, count: -1 }), 'invalid-argument'],
      ['keys too small', () => prim.radixSortKeys(enc(), { ...base, keys: small }), 'buffer-size'],
      ['keysOut too small', () => prim.radixSortKeys(enc(), { ...base, keysOut: small }), 'buffer-size'],
      ['keys without STORAGE', () => prim.radixSortKeys(enc(), { ...base, keys: noStorage }), 'buffer-usage'],
      ['valueBytes 2', () => prim.radixSortPairs(enc(), { ...base, values: vb, valueBytes: 2 as never }), 'invalid-argument'],
      ['8-byte values too small', () => prim.radixSortPairs(enc(), { ...base, values: vb, valueBytes: 8 }), 'buffer-size'],
      ['values are the keys', () => prim.radixSortPairs(enc(), { ...base, values: kb, valueBytes: 4 }), 'overlap'],
      ['valuesOut is the keys', () => prim.radixSortPairs(enc(), { ...base, values: vb, valuesOut: kb, valueBytes: 4 }), 'overlap'],
      ['keysOut is the values', () => prim.radixSortPairs(enc(), { ...base, keysOut: vb, values: vb, valueBytes: 4 }), 'overlap'],
      ['descending not boolean', () => prim.radixSortKeys(enc(), { ...base, descending: 1 as never }), 'invalid-argument'],
      ['radixBits 3', () => prim.radixSortKeys(enc(), { ...base, config: { radixBits: 3 } }), 'invalid-config'],
      ['unknown workgroupScan', () => prim.radixSortKeys(enc(), { ...base, config: { workgroupScan: 'warp' as never } }), 'invalid-config'],
      ['radixBits 9', () => prim.radixSortKeys(enc(), { ...base, config: { radixBits: 9 } }), 'invalid-config'],
      ['itemsPerThread 6 (split)', () => prim.radixSortKeys(enc(), { ...base, config: { rank: 'split', lookback: 'reduce-then-scan', itemsPerThread: 6 } }), 'invalid-config'],
      ['itemsPerThread 65 (match)', () => prim.radixSortKeys(enc(), { ...base, config: { rank: 'match', itemsPerThread: 65 } }), 'invalid-config'],
      ['decoupled with split', () => prim.radixSortKeys(enc(), { ...base, config: { rank: 'split', lookback: 'decoupled' } }), 'invalid-config'],
      ['unknown rank', () => prim.radixSortKeys(enc(), { ...base, config: { rank: 'ballot' as never } }), 'invalid-config'],
      ['unknown lookback', () => prim.radixSortKeys(enc(), { ...base, config: { lookback: 'single-pass' as never } }), 'invalid-config'],
      ['histogramWorkgroupSize 100', () => prim.radixSortKeys(enc(), { ...base, config: { lookback: 'decoupled', histogramWorkgroupSize: 100 } }), 'invalid-config'],
      ['tile over workgroup memory', () => prim.radixSortKeys(enc(), { ...base, config: { workgroupSize: 1024, itemsPerThread: 64 } }), 'invalid-config'],
    ];
    const encoders: GPUCommandEncoder[] = [];
    function enc(): GPUCommandEncoder {
      const e = prim.device.createCommandEncoder();
      encoders.push(e);
      return e;
    }
    for (const [what, call, code] of cases) {
      await expect(call(), what).rejects.toMatchObject({ code });
    }
    // Every rejected call left its encoder empty and valid.
    prim.device.pushErrorScope('validation');
    prim.device.queue.submit(encoders.map((e) => e.finish()));
    expect(await prim.device.popErrorScope()).toBeNull();
    // The array level checks the same before uploading anything.
    await expect(prim.arrays.radixSortKeys(new Float32Array(4), { endBit: 31 })).rejects.toMatchObject({ code: 'invalid-argument' });
    await expect(prim.arrays.radixSortKeys(new Uint16Array(4))).rejects.toMatchObject({ code: 'unsupported-type' }); // f16 needs { type: 'f16' }
    await expect(prim.arrays.radixSortPairs(new Uint32Array(4), new Uint32Array(3))).rejects.toMatchObject({ code: 'invalid-argument' });
    await expect(prim.arrays.radixSortPairs(new Uint32Array(4), new Uint16Array(4) as never)).rejects.toMatchObject({ code: 'invalid-argument' });
    await expect(prim.arrays.radixSortKeys(new Uint32Array(4), { config: { radixBits: 12 } })).rejects.toMatchObject({ code: 'invalid-config' });
    for (const b of [kb, vb, small, noStorage]) b.destroy();
  });

  it('the heuristic config is valid and fits workgroup memory for every value size', () => {
    for (const type of KEY_TYPES) {
      for (const vb of [0, 4, 8] as const) {
        // The heuristic itself (the selection may be a tuned row on this device).
        const t = typeInfo(type);
        const h = radixSortHeuristic(prim.context, t, vb);
        expect(radixSortConfigProblem(prim.context, t, vb, h), `${type} values ${vb}`).toBeUndefined();
        expect(h.radixBits).toBeGreaterThanOrEqual(4);
        // With no tuned row for the adapter, selection gives exactly the heuristic (of that
        // adapter: an unknown vendor gets no forward progress, so reduce-then-scan).
        const { subgroupMinSize, subgroupMaxSize } = prim.target;
        const bare = createPrim(prim.device, { adapterInfo: { vendor: 'nobody', architecture: '', device: '', description: '', subgroupMinSize, subgroupMaxSize } as GPUAdapterInfo });
        const hb = radixSortHeuristic(bare.context, t, vb);
        expect(bare.selectedRadixSortConfig(type, vb)).toEqual({ config: hb, source: 'heuristic' });
        expect(radixSortConfigProblem(bare.context, t, vb, hb), `${type} values ${vb} (nobody)`).toBeUndefined();
        if (prim.context.hasSubgroups) expect(hb).toMatchObject({ rank: 'match', lookback: 'reduce-then-scan' });
        // Decoupled look-back below RADIX_SORT_DECOUPLED_DEFAULT_MAX_COUNT only where the vendor gives forward progress.
        expect(hb.decoupledMaxCount, `${type} values ${vb} (nobody)`).toBe(0);
        const nv = createPrim(prim.device, { adapterInfo: { vendor: 'nvidia', architecture: '', device: 'none-such', description: '', subgroupMinSize, subgroupMaxSize } as GPUAdapterInfo });
        expect(radixSortHeuristic(nv.context, t, vb).decoupledMaxCount).toBe(prim.context.hasSubgroups ? RADIX_SORT_DECOUPLED_DEFAULT_MAX_COUNT : 0);
        // Kernels by pass on GPUs; one for every pass on CPU adapters (this one: lavapipe), where compiling costs more.
        expect([hb.passKernels, radixSortHeuristic(nv.context, t, vb).passKernels, h.passKernels], `${type} values ${vb}`).toEqual(['specialized', 'specialized', 'shared']);
      }
    }
  });

  it('decoupledMaxCount: a non-negative integer, above 0 only with the match rank and a valid histogram shape', () => {
    const t = typeInfo('u32');
    const h = radixSortHeuristic(prim.context, t, 0);
    const base: RadixSortConfig = { ...h, rank: 'match', lookback: 'reduce-then-scan', decoupledMaxCount: 0 };
    expect(radixSortConfigProblem(prim.context, t, 0, { ...base, decoupledMaxCount: 2 ** 20 })).toBeUndefined();
    expect(radixSortConfigProblem(prim.context, t, 0, { ...base, decoupledMaxCount: -1 })).toBe('decoupledMaxCount -1 is not a non-negative integer');
    expect(radixSortConfigProblem(prim.context, t, 0, { ...base, decoupledMaxCount: 1.5 })).toBe('decoupledMaxCount 1.5 is not a non-negative integer');
    expect(radixSortConfigProblem(prim.context, t, 0, { ...base, rank: 'split', itemsPerThread: 8, decoupledMaxCount: 100 })).toBe('decoupledMaxCount 100 (onesweep) needs rank "match"');
    expect(radixSortConfigProblem(prim.context, t, 0, { ...base, rank: 'split', itemsPerThread: 8 })).toBeUndefined();
    expect(radixSortConfigProblem(prim.context, t, 0, { ...base, decoupledMaxCount: 100, histogramWorkgroupSize: 48 })).toMatch(/^histogram workgroupSize 48 is not a multiple of 32/);
  });

  it("passKernels: 'specialized' or 'shared', else 'invalid-config' before anything is recorded", async () => {
    const t = typeInfo('u32');
    const h = radixSortHeuristic(prim.context, t, 0);
    for (const passKernels of ['specialized', 'shared'] as const) expect(radixSortConfigProblem(prim.context, t, 0, { ...h, passKernels })).toBeUndefined();
    expect(radixSortConfigProblem(prim.context, t, 0, { ...h, passKernels: 'per-pass' as never })).toBe('unknown passKernels "per-pass" (specialized or shared)');
    await expect(prim.arrays.radixSortKeys(randomKeys('u32', 10, SEED), { config: { passKernels: 'bogus' as never }, blockSortConfig: LSD_ONLY }))
      .rejects.toMatchObject({ code: 'invalid-config', message: expect.stringMatching(/unknown passKernels "bogus"/) });
  });

  it('with 32-wide subgroups the heuristic takes 22 words of keys an invocation within 96 bytes of workgroup memory an invocation (u32 keys 256 x 22, u64 256 x 11)', () => {
    if (!prim.context.hasSubgroups) return;
    const wide = createPrim(prim.device, { adapterInfo: { vendor: 'nobody', architecture: '', device: '', description: '', subgroupMinSize: 32, subgroupMaxSize: 32 } as GPUAdapterInfo });
    const expected: Record<string, number> = { u32: 22, f32: 22, f16: 22, u64: 11, i64: 11 };
    for (const [type, items] of Object.entries(expected)) {
      for (const vb of [0, 4] as const) {
        const t = typeInfo(type as RadixSortKeyType);
        const h = radixSortHeuristic(wide.context, t, vb);
        expect(h, `${type} values ${vb}`).toMatchObject({ workgroupSize: 256, itemsPerThread: items });
        expect(radixSortWorkgroupBytes(wide.context, t, vb, h)).toBeLessThanOrEqual(RADIX_SORT_BYTES_PER_INVOCATION * 256);
      }
    }
  });

  it('radixSortWorkgroupBytes is what the sort kernel declares (counters and exchange in one array: keys, 4- and 8-byte values; both offset methods)', () => {
    const sizes: Record<string, number> = { 'u32': 4, 'atomic<u32>': 4, 'vec2<u32>': 8 };
    for (const type of ['u32', 'f16', 'u64'] as const) {
      for (const vb of [0, 4, 8] as const) {
        for (const offsets of ['scanned', 'lookback'] as const) {
          // 256 x 13 and x 23 (24 KiB): the counters' totals and the subgroup ticket inside the
          // exchange; 256 x 8 and 128 x 7 (16 subgroups): no room there, their own arrays.
          for (const [workgroupSize, itemsPerThread, subgroupMinSize, subgroupMaxSize] of [[256, 13, 32, 32], [256, 23, 32, 32], [256, 8, 32, 32], [128, 7, 8, 64]]) {
            const config: RadixSortConfig = { workgroupSize, itemsPerThread, radixBits: 8, rank: 'match', workgroupScan: 'subgroup', lookback: offsets === 'lookback' ? 'decoupled' : 'reduce-then-scan', histogramWorkgroupSize: 256, histogramItemsPerThread: 16, decoupledMaxCount: 0, passKernels: 'specialized' };
            const t = typeInfo(type);
            const { code } = onesweepSortKernel({ key: t, valueBytes: vb, config, offsets, subgroupMinSize, subgroupMaxSize });
            const consts = Object.fromEntries([...code.matchAll(/const (\w+) = (\d+)u;/g)].map((m) => [m[1], Number(m[2])]));
            let declared = 0;
            for (const m of code.matchAll(/var<workgroup> \w+: (?:array<([\w<>]+), (\w+)>|([\w<>]+));/g)) {
              declared += m[3] ? sizes[m[3]]! : sizes[m[1]!]! * (Number(m[2]) || consts[m[2]!]!);
            }
            const ctx = { ...prim.context, target: { ...prim.target, subgroupMinSize, subgroupMaxSize } } as typeof prim.context;
            expect(radixSortWorkgroupBytes(ctx, t, vb, config), `${type} values ${vb} ${offsets} ${workgroupSize}x${itemsPerThread}`).toBe(declared);
          }
        }
      }
    }
  });
});
