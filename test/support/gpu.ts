import { requestDevice } from '../../src/node/index.js';
import { logCompiles } from './compile-log.js';
import { createPrim, type BuiltinOperator, BUILTIN_OPERATORS, type ElementType, type Prim, type PrimOptions } from '../../src/index.js';

/** One Dawn device per test file (lavapipe here and in CI). */
export async function testPrim(options?: PrimOptions): Promise<Prim> {
  const { device, adapterInfo } = await requestDevice();
  logCompiles(device);
  device.addEventListener('uncapturederror', (e) => {
    // A validation error that reaches here would mean a check we do not make before launch.
    throw new Error(`uncaptured WebGPU error: ${(e as GPUUncapturedErrorEvent).error.message}`);
  });
  return createPrim(device, { adapterInfo, ...options });
}

export function hasF16(prim: Prim): boolean {
  return prim.context.features.has('shader-f16');
}

const ALL_TYPES: ElementType[] = ['u32', 'i32', 'f32', 'f16', 'u64', 'i64'];
const isFloat = (t: ElementType): boolean => t === 'f32' || t === 'f16';

/** Every element type this device can run (f16 only with shader-f16). */
export function typesOn(prim: Prim): ElementType[] {
  return ALL_TYPES.filter((t) => t !== 'f16' || hasF16(prim));
}

/** The built-in operators a type supports (no bitwise ones on floats). */
export function operatorsFor(t: ElementType): BuiltinOperator[] {
  return BUILTIN_OPERATORS.filter((op) => !isFloat(t) || !['and', 'or', 'xor'].includes(op));
}
