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
 * The flags for Dawn's `create()`: wgprim's own (timestamp quantization off) and the caller's, with
 * every `enable-dawn-features=` and `disable-dawn-features=` joined into one flag each, since Dawn
 * keeps only the last of a repeated key (a caller's toggle would otherwise switch quantization on).
 */
export function dawnCreateFlags(extra: readonly string[]): string[] {
  const lists = new Map<string, string[]>([['disable-dawn-features', ['timestamp_quantization']]]);
  const others: string[] = [];
  for (const flag of extra) {
    const m = /^(enable-dawn-features|disable-dawn-features)=(.*)$/.exec(flag);
    if (!m) {
      others.push(flag);
      continue;
    }
    const list = lists.get(m[1]!) ?? [];
    for (const toggle of m[2]!.split(',')) if (toggle !== '' && !list.includes(toggle)) list.push(toggle);
    lists.set(m[1]!, list);
  }
  return [...[...lists].map(([key, list]) => `${key}=${list.join(',')}`), ...others];
}

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
  const gpu = mod.create(dawnCreateFlags(options.dawnFlags ?? []));
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
export { throttleDawnPolling } from './poll.js';
export { DawnWarningFilter, filterNativeStderr, isDawnLimitWarning, withoutDawnLimitWarnings } from './stderr.js';
export { fileTuneCache, defaultTuneCacheDir, tuneCacheFileName, type FileTuneCache } from './cache.js';
