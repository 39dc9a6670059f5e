import { beforeAll, describe, expect, it } from 'vitest';
import { createPrim, type Prim, type RadixSortBlockSortConfig, type RadixSortConfig, type RadixSortKeyType, typeInfo, WgprimError } from '../src/index.js';
import { radixSortBlockSortHeuristic, radixSortBlockSortProblem } from '../src/device/radix-sort/block-sort-config.js';
import { type Kernel } from '../src/runtime/kernel.js';
import { testPrim } from './support/gpu.js';
import { SEED } from './support/data.js';
import { sweepOr, sweepTimeout } from './support/sweep.js';
import { bufferIo, firstBad, KEY_TYPES, type KeyArray, randomKeys, referenceOrder, widthOf } from './support/radix.js';

// The radix sort's small-size paths (one workgroup; block sort + merge passes) forced by config,
// and the switch to onesweep at maxCount, against a CPU stable reference (values = index check
// stability; keys are compared bit for bit). Tiles are small so lavapipe compiles fast.

let prim: Prim;
/** Labels of the kernels whose pipelines the last calls asked for (the path taken). */
let kernels: string[] = [];
/** Pipeline keys of the same (which variant of a kernel). */
let kernelKeys: string[] = [];
beforeAll(async () => {
  prim = await testPrim();
  const ctx = prim.context;
  const pipeline = ctx.pipeline.bind(ctx);
  ctx.pipeline = (k: Kernel): Promise<GPUComputePipeline> => {
    kernels.push(k.label);
    kernelKeys.push(k.key);
    return pipeline(k);
  };
});

interface SortCase {
  readonly descending?: boolean;
  readonly beginBit?: number;
  readonly endBit?: number;
  readonly blockSortConfig?: Partial<RadixSortBlockSortConfig>;
  readonly config?: Partial<RadixSortConfig>;
}

/** Sorts pairs (values = index) and, where asked, keys alone through the array API (both in place). */
async function check(type: RadixSortKeyType, keys: KeyArray, c: SortCase, what: string, keysOnly = true): Promise<void> {
  const order = referenceOrder(type, keys, c.descending ?? false, c.beginBit ?? 0, c.endBit ?? widthOf(type));
  const label = `${type} n=${keys.length} ${JSON.stringify(c)} ${what}`;
  const values = Uint32Array.from({ length: keys.length }, (_, i) => i);
  const options = type === 'f16' ? { ...c, type: 'f16' as const } : c;
  const pairs = await prim.arrays.radixSortPairs(keys, values, options);
  expect(firstBad(keys, pairs.keys, order, pairs.values), `pairs ${label}`).toBeUndefined();
  if (keysOnly) {
    const sorted = await prim.arrays.radixSortKeys(keys, options);
    expect(firstBad(keys, sorted, order), `keys ${label}`).toBeUndefined();
  }
}

const FORCE = 2 ** 30;
/** 64 x 4 tiles; merge tiles of 32 x 4 (two per run pair of the first pass) or 64 x 8 (one, part empty). */
const small = (rank: 'match' | 'split', merge: 'narrow' | 'wide' = 'narrow'): Partial<RadixSortBlockSortConfig> => ({
  workgroupSize: 64, itemsPerThread: 4, radixBits: 4, rank, maxCount: FORCE,
  ...(merge === 'narrow' ? { mergeWorkgroupSize: 32, mergeItemsPerThread: 4 } : { mergeWorkgroupSize: 64, mergeItemsPerThread: 8 }),
});
const TILE = 256;
const ranks = (): ('match' | 'split')[] => (prim.context.hasSubgroups ? ['match', 'split'] : ['split']);

describe('radix sort paths: one workgroup and block sort + merge, forced by config', () => {
  // One test per rank and key type (each runs in seconds; a loaded machine must not time them out).
  const cases = (['match', 'split'] as const).flatMap((rank) => KEY_TYPES.map((type) => [rank, type] as const));
  it.each(cases)('rank %s, %s keys: both directions; sizes 0, 1, tile ± 1, a prime, a few tiles', async (rank, type) => {
    if (!ranks().includes(rank)) return;
    for (const n of [0, 1, TILE - 1, TILE, TILE + 1, 1031, 3 * TILE + 5]) {
      for (const descending of [false, true]) {
        kernels = [];
        const blockSortConfig = small(rank, n === 1031 ? 'wide' : 'narrow');
        await check(type, randomKeys(type, n, SEED + n), { descending, blockSortConfig }, `rank=${rank}`, n !== 1031);
        if (n === 0) continue;
        expect(kernels.some((k) => k.includes('onesweep') || k.includes('upsweep') || k.includes('scatter')), `n=${n} took the LSD path`).toBe(false);
        if (kernels.length) expect(kernels.some((k) => k.includes('.merge.')), `n=${n}: merge kernels ${kernels.join(', ')}`).toBe(n > TILE);
      }
    }
  });

  it('many merge passes, duplicates-heavy inputs (stability across runs), 8-byte values', async () => {
    for (const rank of ranks()) {
      // 40 tiles: 6 merge passes, the last pair short.
      await check('u32', randomKeys('u32', 40 * TILE - 77, SEED + 40), { blockSortConfig: small(rank) }, 'many passes', false);
      for (const distinct of [1, 3, 17]) {
        await check('i32', randomKeys('i32', 9 * TILE + 3, SEED + distinct, distinct), { descending: distinct === 3, blockSortConfig: small(rank) }, `distinct=${distinct}`, false);
        await check('u64', randomKeys('u64', 5 * TILE + 1, SEED + distinct, distinct), { blockSortConfig: small(rank, 'wide') }, `distinct=${distinct}`, false);
      }
      const n = 4 * TILE + 9;
      const keys = randomKeys('f32', n, SEED + 8, 50);
      const values = BigUint64Array.from({ length: n }, (_, i) => (BigInt(i) << 32n) | BigInt(n - i));
      const got = await prim.arrays.radixSortPairs(keys, values, { blockSortConfig: small(rank) });
      expect(firstBad(keys, got.keys, referenceOrder('f32', keys, false, 0, 32), got.values, (j) => values[j]!), `8-byte values, ${rank}`).toBeUndefined();
    }
  });

  it('bit ranges of integer keys, including an empty one', async () => {
    const cases: [RadixSortKeyType, number, number][] = [['u32', 4, 20], ['u32', 31, 32], ['u32', 7, 7], ['i32', 3, 30], ['u64', 20, 44], ['i64', 30, 63], ['u64', 0, 33]];
    for (const rank of ranks()) {
      for (const [type, beginBit, endBit] of cases) {
        const keys = randomKeys(type, 5 * TILE + 17, SEED + beginBit * 100 + endBit, 300);
        await check(type, keys, { beginBit, endBit, blockSortConfig: small(rank) }, 'bit range', false);
        await check(type, keys, { beginBit, endBit, descending: true, blockSortConfig: small(rank) }, 'bit range', false);
      }
    }
  });

  it('other shapes: more items per thread, 8-bit digits, odd items per thread', async () => {
    const shapes: Partial<RadixSortBlockSortConfig>[] = [
      { workgroupSize: 32, itemsPerThread: 7, radixBits: 8, mergeWorkgroupSize: 32, mergeItemsPerThread: 3 },
      { workgroupSize: 96, itemsPerThread: 2, radixBits: 5, mergeWorkgroupSize: 64, mergeItemsPerThread: 1 },
    ];
    for (const rank of ranks()) {
      for (const shape of shapes) {
        for (const type of ['u32', 'i64', 'f16'] as const) {
          await check(type, randomKeys(type, 2711, SEED + 2711), { descending: type === 'i64', blockSortConfig: { ...shape, rank, maxCount: FORCE } }, 'shape', false);
        }
      }
    }
  });
});

describe('radix sort paths: the threshold', () => {
  it('counts up to maxCount take block sort + merge, larger ones onesweep; maxCount 0 forces onesweep', async () => {
    const onesweep: Partial<RadixSortConfig> = { workgroupSize: 64, itemsPerThread: 4, radixBits: 8 };
    for (const rank of ranks()) {
      const maxCount = 3 * TILE + 10;
      for (const n of [TILE, maxCount - 1, maxCount, maxCount + 1, 2 * maxCount]) {
        kernels = [];
        await check('u32', randomKeys('u32', n, SEED + n), { config: onesweep, blockSortConfig: { ...small(rank), maxCount } }, 'threshold', false);
        const block = kernels.some((k) => k.includes('blockSort'));
        const lsd = kernels.some((k) => !k.includes('blockSort') && !k.includes('.merge.'));
        expect([block, lsd], `n=${n} maxCount=${maxCount}: ${kernels.join(', ')}`).toEqual([n <= maxCount, n > maxCount]);
      }
      for (const n of [1, TILE + 1]) {
        kernels = [];
        await check('f32', randomKeys('f32', n, SEED + n), { config: onesweep, blockSortConfig: { ...small(rank), maxCount: 0 } }, 'onesweep forced');
        expect(kernels.some((k) => k.includes('blockSort') || k.includes('.merge.')), `n=${n}: ${kernels.join(', ')}`).toBe(false);
      }
    }
  });

  it('a reduce-then-scan config runs with decoupled look-back (onesweep) up to decoupledMaxCount, reduce-then-scan above', async () => {
    // lavapipe has subgroups (the match rank) and forward progress.
    expect(prim.context.hasSubgroups).toBe(true);
    const decoupledMaxCount = 3 * TILE + 10;
    const config: Partial<RadixSortConfig> = { workgroupSize: 64, itemsPerThread: 4, radixBits: 8, rank: 'match', lookback: 'reduce-then-scan', decoupledMaxCount };
    for (const type of ['u32', 'i64'] as const) {
      for (const n of [decoupledMaxCount - 1, decoupledMaxCount, decoupledMaxCount + 1, 2 * decoupledMaxCount + 3]) {
        kernels = [];
        await check(type, randomKeys(type, n, SEED + n), { config, blockSortConfig: { maxCount: 0 }, descending: type === 'i64' }, 'lookback threshold');
        const decoupled = kernels.some((k) => k.includes('.onesweep.') || k.includes('.histogram.'));
        const scanned = kernels.some((k) => k.includes('.sort.') || k.includes('.upsweep.'));
        expect([decoupled, scanned], `${type} n=${n} decoupledMaxCount=${decoupledMaxCount}: ${kernels.join(', ')}`).toEqual([n <= decoupledMaxCount, n > decoupledMaxCount]);
      }
    }
    await expect(prim.arrays.radixSortKeys(randomKeys('u32', 10, SEED), { config: { ...config, rank: 'split', itemsPerThread: 8, decoupledMaxCount: 100 }, blockSortConfig: { maxCount: 0 } }))
      .rejects.toMatchObject({ code: 'invalid-config', message: expect.stringMatching(/decoupledMaxCount 100 \(onesweep\) needs rank "match"/) });
  });

  // One test per offset method (each compiles its specialized kernels for six key types, the
  // shared kernel for two). The split rank's scatter takes its pass the same way (its kernels'
  // keys start radix-scatter).
  for (const method of ['decoupled', 'reduce-then-scan', 'split'] as const) {
    it(`passKernels, ${method === 'split' ? 'the split rank' : method}: specialized passes by place (raw keys in first, out last), 8-byte keys by digit word; shared: one kernel; both right`, async () => {
      // Distinct sort and upsweep kernels by their keys' pass part (raw in, raw out; the digit's word).
      const variants = (): string[] => [...new Set(kernelKeys.filter((k) => /^radix-(onesweep|scatter|upsweep):/.test(k)).map((k) => `${k.split(':')[0]}${k.match(/(:e\d\d)?(:w\d)?(:[ad])?$/)![0]}`))];
      const cases: [RadixSortKeyType, number?, number?][] = [['u32'], ['f32'], ['i64'], ['u64', 20, 50], ['f16'], ['i32', 4, 20]];
      const sortName = method === 'split' ? 'radix-scatter' : 'radix-onesweep';
      const names = (kernel: string, parts: string[]): string[] => parts.map((x) => `${kernel}${x}`);
      for (const passKernels of ['specialized', 'shared'] as const) {
        const config: Partial<RadixSortConfig> = method === 'split'
          ? { workgroupSize: 64, itemsPerThread: 4, radixBits: 8, rank: 'split', workgroupScan: 'shared', lookback: 'reduce-then-scan', decoupledMaxCount: 0, passKernels }
          : { workgroupSize: 64, itemsPerThread: 4, radixBits: 8, rank: 'match', lookback: method, decoupledMaxCount: 0, passKernels };
        // The shared kernel takes the pass as data, so the types differ only in key handling the
        // specialized runs check: by default u32 and u64 over a bit range; the sweep takes all.
        for (const [type, beginBit, endBit] of passKernels === 'shared' ? sweepOr(cases, [cases[0]!, cases[3]!]) : cases) {
          const n = 2 * 256 + 3;
          kernelKeys = [];
          const descending = type === 'f32' || type === 'i64';
          await check(type, randomKeys(type, n, SEED + n + (beginBit ?? 0)), { config, blockSortConfig: { maxCount: 0 }, beginBit, endBit, descending }, `passKernels ${passKernels}`, false);
          // Specialized: first (:e10), between (:e00; f16 and i32 [4, 20) have two passes), last (:e01).
          // u64 [20, 50): digits [20, 28) low word, [28, 36) across both, [36, 44) and [44, 50) high; i64: 8 passes, 4 low then 4 high.
          // The upsweep only loads: it is compiled as storing raw keys (its first pass: raw at both ends).
          const [sort, up] = passKernels === 'shared'
            ? [[''], ['']]
            : type === 'u64'
              ? [[':e00', ':e00:w1', ':e01:w1', ':e10:w0'], [':e01', ':e01:w1', ':w0']]
              : type === 'i64'
                ? [[':e00:w0', ':e00:w1', ':e01:w1', ':e10:w0'], [':e01:w0', ':e01:w1', ':w0']]
                : [[...(type === 'f16' || type === 'i32' ? [] : [':e00']), ':e01', ':e10'], ['', ':e01']];
          // Specialized kernels also take the direction as a constant (:a ascending, :d descending).
          const dir = passKernels === 'shared' ? '' : descending ? ':d' : ':a';
          const want = [...names(sortName, sort), ...(method === 'decoupled' ? [] : names('radix-upsweep', up))].map((k) => k + dir).sort();
          expect(variants().sort(), `${type} [${beginBit ?? 0}, ${endBit ?? 'all'}) ${method} ${passKernels}`).toEqual(want);
        }
        // The other direction on the same prim: its own kernels, not the cached ascending ones.
        kernelKeys = [];
        await check('u32', randomKeys('u32', 515, SEED + 1), { config, blockSortConfig: { maxCount: 0 }, descending: true }, `passKernels ${passKernels} descending`, false);
        const seen = variants();
        if (passKernels === 'specialized') expect(seen.length > 0 && seen.every((k) => k.endsWith(':d')), `u32 descending ${method}: ${seen.join(' ')}`).toBe(true);
      }
    }, sweepTimeout);
  }

  it('the default config: small counts sort by block sort, and the selection reports it', async () => {
    // Keys and pairs select separately: built-in rows are keys-only (valueBytes 0), so pairs take
    // a pairs row or the heuristic; a tuned row whose tile does not fit with values is skipped.
    const keys = randomKeys('u32', 3001, SEED + 3001);
    for (const valueBytes of [0, 4] as const) {
      const s = prim.selectedRadixSortBlockSortConfig('u32', valueBytes);
      expect(radixSortBlockSortProblem(prim.context, typeInfo('u32'), valueBytes, s.config)).toBeUndefined();
      kernels = [];
      if (valueBytes === 0) await prim.arrays.radixSortKeys(keys as Uint32Array);
      else await prim.arrays.radixSortPairs(keys as Uint32Array, Uint32Array.from({ length: keys.length }, (_, i) => i));
      expect(kernels.some((k) => k.includes('blockSort')), `values ${valueBytes}: ${kernels.join(', ')}`).toBe(3001 <= s.config.maxCount);
    }
    await check('u32', keys, {}, 'default', false);
  });

  it('the heuristic is valid for every key type and value size', () => {
    for (const type of KEY_TYPES) {
      for (const vb of [0, 4, 8] as const) {
        const t = typeInfo(type);
        const h = radixSortBlockSortHeuristic(prim.context, t, vb);
        expect(radixSortBlockSortProblem(prim.context, t, vb, h), `${type} values ${vb}`).toBeUndefined();
        expect(h.rank).toBe(prim.context.hasSubgroups ? 'match' : 'split');
        const bare = createPrim(prim.device, { adapterInfo: { vendor: 'nobody', architecture: '', device: '', description: '' } });
        expect(bare.selectedRadixSortBlockSortConfig(type, vb)).toEqual({ config: h, source: 'heuristic' });
      }
    }
  });
});

describe('radix sort paths: buffer level', () => {
  let usage = 0;
  let upload: (data: ArrayBufferView) => GPUBuffer;
  let read: (b: GPUBuffer, bytes: number) => Promise<ArrayBuffer>;
  beforeAll(() => {
    ({ usage, upload, read } = bufferIo(prim.device));
  });

  it('separate outputs leave the inputs untouched; in place and mixed, with odd and even pass counts', async () => {
    // 200: one workgroup; 700: 3 tiles, 2 merges; 1500: 6 tiles, 3 merges; [5, 5): a copy.
    for (const rank of ranks()) {
      for (const [n, beginBit, endBit] of [[200, 0, 32], [700, 0, 32], [1500, 0, 32], [1500, 5, 5], [700, 3, 11]] as const) {
        for (const type of ['u32', 'f16'] as const) {
          const keys = randomKeys(type, n, SEED + n, 100);
          const keyBytes = Math.ceil(keys.byteLength / 4) * 4;
          const values = Uint32Array.from({ length: n }, (_, i) => i);
          const order = referenceOrder(type, keys, false, beginBit, endBit);
          for (const mode of ['separate', 'in-place', 'keys-in-place', 'values-in-place'] as const) {
            if (type === 'f16' && beginBit !== 0) continue;
            const kb = upload(keys);
            const vb = upload(values);
            const ko = mode === 'separate' || mode === 'values-in-place' ? prim.device.createBuffer({ size: keyBytes, usage }) : undefined;
            const vo = mode === 'separate' || mode === 'keys-in-place' ? prim.device.createBuffer({ size: n * 4, usage }) : undefined;
            const enc = prim.device.createCommandEncoder();
            const range = type === 'f16' ? {} : { beginBit, endBit };
            await prim.radixSortPairs(enc, { keys: kb, values: vb, keysOut: ko, valuesOut: vo, valueBytes: 4, count: n, type, ...range, blockSortConfig: small(rank) });
            prim.device.queue.submit([enc.finish()]);
            const gotKeys = type === 'f16' ? new Uint16Array(await read(ko ?? kb, keyBytes), 0, n) : new Uint32Array(await read(ko ?? kb, n * 4));
            const gotValues = new Uint32Array(await read(vo ?? vb, n * 4));
            const label = `${rank} ${type} ${mode} n=${n} [${beginBit}, ${endBit})`;
            expect(firstBad(keys, gotKeys, order, gotValues), label).toBeUndefined();
            if (ko) expect(new Uint8Array(await read(kb, keys.byteLength)), `keys input kept, ${label}`).toEqual(new Uint8Array(keys.buffer));
            if (vo) expect(new Uint32Array(await read(vb, n * 4)), `values input kept, ${label}`).toEqual(values);
            for (const b of [kb, vb, ko, vo]) b?.destroy();
          }
        }
      }
    }
  });

  it('f16 keys, odd and even counts, in place and not, both ranks: halves past count and words past the keys stay as they were', async () => {
    // Guard halves after the keys (a whole guard word after an odd count's half). 201: one
    // workgroup; 701 and 1501: block sort + merges (a half word at the end of the last tile and merge tile).
    const GUARD = 0xa5c3;
    const make = (keys: Uint16Array, halves: number): GPUBuffer => {
      const b = prim.device.createBuffer({ size: halves * 2, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC, mappedAtCreation: true });
      const h = new Uint16Array(b.getMappedRange());
      h.fill(GUARD);
      h.set(keys);
      b.unmap();
      return b;
    };
    for (const rank of ranks()) {
      for (const n of [201, 700, 701, 1501]) {
        const keys = randomKeys('f16', n, SEED + n, 300) as Uint16Array;
        const values = Uint32Array.from({ length: n }, (_, i) => i);
        const halves = n % 2 === 1 ? n + 3 : n + 2;
        for (const descending of [false, true]) {
          const order = referenceOrder('f16', keys, descending, 0, 16);
          for (const mode of ['separate', 'in-place', 'keys-in-place', 'values-in-place'] as const) {
            for (const keysOnly of [false, true]) {
              const kb = make(keys, halves);
              const vb = upload(values);
              const ko = mode === 'separate' || mode === 'values-in-place' ? make(new Uint16Array(0), halves) : undefined;
              const vo = mode === 'separate' || mode === 'keys-in-place' ? prim.device.createBuffer({ size: n * 4, usage }) : undefined;
              const enc = prim.device.createCommandEncoder();
              const common = { keys: kb, keysOut: ko, count: n, type: 'f16' as const, descending, blockSortConfig: small(rank, n === 1501 ? 'wide' : 'narrow') };
              if (keysOnly) await prim.radixSortKeys(enc, common);
              else await prim.radixSortPairs(enc, { ...common, values: vb, valuesOut: vo, valueBytes: 4 });
              prim.device.queue.submit([enc.finish()]);
              const got = new Uint16Array(await read(ko ?? kb, halves * 2));
              const label = `${rank} n=${n} ${descending ? 'descending' : 'ascending'} ${mode} ${keysOnly ? 'keys' : 'pairs'}`;
              expect(firstBad(keys, got.subarray(0, n), order, keysOnly ? undefined : new Uint32Array(await read(vo ?? vb, n * 4))), label).toBeUndefined();
              expect([...got.subarray(n)], `guard halves, ${label}`).toEqual(new Array(halves - n).fill(GUARD));
              if (ko) expect(new Uint16Array(await read(kb, halves * 2)).subarray(0, n), `keys input kept, ${label}`).toEqual(keys);
              for (const b of [kb, vb, ko, vo]) b?.destroy();
            }
          }
        }
      }
    }
  });

  it('invalid block sort configs fail with invalid-config before anything is recorded', async () => {
    const kb = upload(new Uint32Array(100));
    const base = { keys: kb, count: 100, type: 'u32' as const };
    const bad: [string, Partial<RadixSortBlockSortConfig>][] = [
      ['workgroupSize 48', { workgroupSize: 48 }],
      ['itemsPerThread 0', { itemsPerThread: 0 }],
      ['itemsPerThread 65', { itemsPerThread: 65 }],
      ['radixBits 9', { radixBits: 9 }],
      ['rank', { rank: 'bogus' as never }],
      ['mergeWorkgroupSize 40', { mergeWorkgroupSize: 40 }],
      ['mergeItemsPerThread 1.5', { mergeItemsPerThread: 1.5 }],
      ['maxCount -1', { maxCount: -1 }],
      ['maxCount NaN', { maxCount: Number.NaN }],
      ['workgroupSize over the device limit', { workgroupSize: 4096 }],
      ['tile over workgroup memory', { workgroupSize: 256, itemsPerThread: 64, rank: 'split' }],
      ['merge tile over workgroup memory', { mergeWorkgroupSize: 256, mergeItemsPerThread: 64 }],
    ];
    if (!prim.context.hasSubgroups) bad.push(['match without subgroups', { rank: 'match' }]);
    const encoders: GPUCommandEncoder[] = [];
    for (const [what, blockSortConfig] of bad) {
      const e = prim.device.createCommandEncoder();
      encoders.push(e);
      const err = await prim.radixSortKeys(e, { ...base, blockSortConfig }).then(() => undefined, (x: unknown) => x);
      expect(err, what).toBeInstanceOf(WgprimError);
      expect((err as WgprimError).code, what).toBe('invalid-config');
      // Also for a count the config's path would not take (an empty sort is checked too).
      await expect(prim.radixSortKeys(e, { ...base, count: 0, blockSortConfig }), what).rejects.toMatchObject({ code: 'invalid-config' });
    }
    prim.device.pushErrorScope('validation');
    prim.device.queue.submit(encoders.map((e) => e.finish()));
    expect(await prim.device.popErrorScope()).toBeNull();
    await expect(prim.arrays.radixSortKeys(new Uint32Array(4), { blockSortConfig: { workgroupSize: 33 } })).rejects.toMatchObject({ code: 'invalid-config' });
    expect(() => prim.selectedRadixSortBlockSortConfig('u32', 0, { itemsPerThread: -1 })).toThrow(WgprimError);
    kb.destroy();
  });
});
