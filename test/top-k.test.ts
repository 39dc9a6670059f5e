import { beforeAll, describe, expect, it } from 'vitest';
import { type ElementType, type Prim, type PrimTypedArray, type TopKConfig, f16Bits, WgprimError } from '../src/index.js';
import { orderedKeys } from '../src/device/binary-search/reference.js';
import { topKReference } from '../src/device/top-k/reference.js';
import { testPrim, typesOn } from './support/gpu.js';
import { rng, SEED } from './support/data.js';

let prim: Prim;
beforeAll(async () => {
  prim = await testPrim();
});

const SMALL: Partial<TopKConfig> = { workgroupSize: 64, itemsPerThread: 4, gridSize: 3, radixBits: 8, candidateDivisor: 4 };

describe('top-k smoke', () => {
  it('u32', async () => {
    const r = rng(SEED);
    const data = Uint32Array.from({ length: 5000 }, () => (r() * 2 ** 32) >>> 0);
    const got = await prim.arrays.topK(data, 10, { config: SMALL });
    expect(orderedKeys('u32', got.values)).toEqual(topKReference('u32', data, 10));
  });
});
