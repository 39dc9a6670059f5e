import { requestDevice } from '../../src/node/index.js';
import { createPrim, type Prim, type PrimOptions } from '../../src/index.js';

/** One Dawn device per test file (lavapipe here and in CI). */
export async function testPrim(options?: PrimOptions): Promise<Prim> {
  const { device, adapterInfo } = await requestDevice();
  device.addEventListener('uncapturederror', (e) => {
    // A validation error that reaches here would mean a check we do not make before launch.
    throw new Error(`uncaptured WebGPU error: ${(e as GPUUncapturedErrorEvent).error.message}`);
  });
  return createPrim(device, { adapterInfo, ...options });
}

export function hasF16(prim: Prim): boolean {
  return prim.context.features.has('shader-f16');
}
