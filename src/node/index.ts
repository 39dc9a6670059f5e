// Node entry: the only place (with the CLI) that imports Node modules or Dawn (npm `webgpu`).
import { WgprimError } from '../runtime/errors.js';
import { registerAdapterLimits } from '../runtime/context.js';
import { filterNativeStderr } from './stderr.js';

export interface NodeDeviceOptions {
  /** Dawn toggles/flags passed to `create()`; timestamp quantization is always disabled. */
  readonly dawnFlags?: readonly string[];
  /** Ask for the low-power or high-performance adapter. */
  readonly powerPreference?: GPUPowerPreference;
  /** Extra features to require (fails if the adapter lacks one). */
  readonly requiredFeatures?: readonly GPUFeatureName[];
}

export interface NodeDevice {
  readonly device: GPUDevice;
  readonly adapter: GPUAdapter;
  readonly adapterInfo: GPUAdapterInfo;
  /** The Dawn instance: it must outlive the device (dawn.node crashes if it is collected mid-run). */
  readonly gpu: GPU;
}

// Every instance ever created stays referenced here: collecting one while its device lives crashes dawn.node.
const liveInstances: unknown[] = [];

const OPTIONAL_FEATURES: GPUFeatureName[] = ['subgroups', 'timestamp-query', 'shader-f16'];

/**
 * A Dawn GPUDevice with the adapter's largest limits and the useful optional features
 * (`subgroups`, `timestamp-query`, `shader-f16` where present). On a machine without a GPU
 * Dawn finds a software Vulkan driver (lavapipe) if one is installed.
 */
export async function requestDevice(options: NodeDeviceOptions = {}): Promise<NodeDevice> {
  if (!process.env.XDG_RUNTIME_DIR) process.env.XDG_RUNTIME_DIR = '/tmp';
  let mod: { create: (flags: string[]) => GPU; globals: Record<string, unknown> };
  try {
    mod = (await import('webgpu')) as unknown as typeof mod;
  } catch (err) {
    throw new WgprimError('no-adapter', 'the npm package "webgpu" (Dawn for Node) is not installed: npm install webgpu', { cause: err });
  }
  Object.assign(globalThis, mod.globals);
  const gpu = mod.create(['disable-dawn-features=timestamp_quantization', ...(options.dawnFlags ?? [])]);
  liveInstances.push(gpu);
  // Dawn prints its dynamic-limit warnings during this call (set WGPRIM_DAWN_WARNINGS=1 to see them).
  const adapter = await filterNativeStderr(() => gpu.requestAdapter({ powerPreference: options.powerPreference }));
  if (!adapter) {
    throw new WgprimError(
      'no-adapter',
      'no WebGPU adapter: no Vulkan driver was found. On Debian/Ubuntu without a GPU install the software driver: ' +
        'apt-get install mesa-vulkan-drivers libvulkan1 (Mesa 25 or newer; on Debian 12 take it from bookworm-backports).',
    );
  }
  const requiredFeatures = [...new Set([...OPTIONAL_FEATURES.filter((f) => adapter.features.has(f)), ...(options.requiredFeatures ?? [])])];
  const requiredLimits: Record<string, number> = {};
  for (const key of LIMIT_NAMES) {
    const v = (adapter.limits as unknown as Record<string, number>)[key];
    if (typeof v === 'number') requiredLimits[key] = v;
  }
  const device = await adapter.requestDevice({ requiredFeatures, requiredLimits });
  registerAdapterLimits(device, adapter.limits);
  return { device, adapter, adapterInfo: adapter.info, gpu };
}

const LIMIT_NAMES = [
  'maxStorageBufferBindingSize', 'maxBufferSize', 'maxComputeWorkgroupStorageSize', 'maxComputeInvocationsPerWorkgroup',
  'maxComputeWorkgroupSizeX', 'maxComputeWorkgroupsPerDimension', 'maxStorageBuffersPerShaderStage', 'maxBindGroups',
];

export { loadTunedDir } from './tables.js';
export { DawnWarningFilter, filterNativeStderr, isDawnLimitWarning, withoutDawnLimitWarnings } from './stderr.js';
export { fileTuneCache, defaultTuneCacheDir, tuneCacheFileName, type FileTuneCache } from './cache.js';
