// What a limit-exceeded error advises (runtime/context.ts): ask for a larger limit only where the
// adapter allows enough, otherwise split the work. A stand-in device; one real one from
// wgprim/node to see that it tells the context its adapter's limits.
import { describe, expect, it } from 'vitest';
import { DeviceContext, registerAdapterLimits, targetFromAdapterInfo, WgprimError } from '../src/index.js';
import { requestDevice } from '../src/node/index.js';
import { typeInfo } from '../src/wgsl/types.js';

const MiB = 1 << 20;

function fakeDevice(maxStorageBufferBindingSize: number): GPUDevice {
  const limits = { maxStorageBufferBindingSize, maxBufferSize: 4 * maxStorageBufferBindingSize } as GPUSupportedLimits;
  return { features: new Set<string>(), limits, lost: new Promise(() => undefined) } as unknown as GPUDevice;
}

function context(device: GPUDevice): DeviceContext {
  return new DeviceContext(device, targetFromAdapterInfo({ vendor: 'test' }));
}

/** The message checkBuffer throws for `count` u32 elements. */
function overLimit(ctx: DeviceContext, count: number): string {
  const buffer = { usage: 0x80 /* STORAGE */, size: count * 4 } as GPUBuffer;
  (globalThis as { GPUBufferUsage?: unknown }).GPUBufferUsage ??= { STORAGE: 0x80 };
  try {
    ctx.checkBuffer('input', buffer, count, typeInfo('u32'));
  } catch (err) {
    expect(err).toBeInstanceOf(WgprimError);
    expect((err as WgprimError).code).toBe('limit-exceeded');
    return (err as Error).message;
  }
  throw new Error('checkBuffer did not throw');
}

describe('limit-exceeded advice', () => {
  it('the adapter allows more: request it', () => {
    const device = fakeDevice(128 * MiB);
    registerAdapterLimits(device, { maxStorageBufferBindingSize: 1024 * MiB } as GPUSupportedLimits);
    const msg = overLimit(context(device), 64 * MiB);
    expect(msg).toContain(`the adapter allows up to ${1024 * MiB}`);
    expect(msg).toContain(`requiredLimits: { maxStorageBufferBindingSize: ${1024 * MiB} }`);
  });

  it("the device has the adapter's maximum: split, and say how far", () => {
    const device = fakeDevice(128 * MiB);
    registerAdapterLimits(device, { maxStorageBufferBindingSize: 128 * MiB } as GPUSupportedLimits);
    const msg = overLimit(context(device), 64 * MiB);
    expect(msg).toContain(`${128 * MiB} is the adapter's maximum, so split the work into calls of at most ${32 * MiB} elements`);
    expect(msg).not.toContain('request');
  });

  it("more than even the adapter's maximum: split", () => {
    const device = fakeDevice(128 * MiB);
    registerAdapterLimits(device, { maxStorageBufferBindingSize: 192 * MiB } as GPUSupportedLimits);
    const msg = overLimit(context(device), 64 * MiB);
    expect(msg).toContain(`the adapter's maximum, ${192 * MiB}, is not enough either: split the work`);
  });

  it('adapter unknown: both, conditionally', () => {
    const msg = overLimit(context(fakeDevice(128 * MiB)), 64 * MiB);
    expect(msg).toContain('if the adapter allows more (adapter.limits.maxStorageBufferBindingSize)');
    expect(msg).toContain('otherwise split the work');
  });

  it("wgprim/node's requestDevice tells the context its adapter's limits", async () => {
    const nd = await requestDevice();
    const ctx = context(nd.device);
    expect(ctx.adapterLimit('maxStorageBufferBindingSize')).toBe(nd.adapter.limits.maxStorageBufferBindingSize);
    expect(ctx.limitAdvice('maxStorageBufferBindingSize', Infinity, 'split')).toMatch(/adapter's maximum/);
    nd.device.destroy();
  });
});
