// Adapters a campaign can be planned for without their GPU (`wgprim tune --dry-run --target`):
// what the variants' validity checks and the heuristics read (identity, features, limits), on a
// stand-in device that refuses any GPU work. Browser-safe.
import { WgprimError } from '../runtime/errors.js';
import { createPrim, type Prim } from '../prim.js';

export interface TargetProfile {
  readonly adapterInfo: { readonly vendor: string; readonly architecture: string; readonly device: string; readonly description: string; readonly subgroupMinSize: number; readonly subgroupMaxSize: number };
  readonly features: readonly string[];
  readonly limits: Readonly<Record<string, number>>;
}

// Dawn's limits as it reports them on both adapters; they differ in the lines below.
const DAWN_LIMITS = {
  maxBindGroups: 4, maxBindingsPerBindGroup: 1000, maxDynamicUniformBuffersPerPipelineLayout: 8, maxDynamicStorageBuffersPerPipelineLayout: 4,
  maxStorageBuffersPerShaderStage: 16, maxUniformBuffersPerShaderStage: 12, maxUniformBufferBindingSize: 65536,
  minUniformBufferOffsetAlignment: 256, minStorageBufferOffsetAlignment: 256, maxBufferSize: 4294967295,
  maxComputeInvocationsPerWorkgroup: 1024, maxComputeWorkgroupSizeX: 1024, maxComputeWorkgroupSizeY: 256, maxComputeWorkgroupSizeZ: 64,
  maxComputeWorkgroupsPerDimension: 65535,
};

export const TARGET_PROFILES: Readonly<Record<string, TargetProfile>> = {
  // NVIDIA H200 through Dawn/Vulkan: 2 GiB - 4 per storage binding, 48 KiB of workgroup memory, no shader-f16.
  'nvidia-h200': {
    adapterInfo: { vendor: 'nvidia', architecture: '', device: 'nvidia-h200', description: 'NVIDIA H200 (profile)', subgroupMinSize: 32, subgroupMaxSize: 32 },
    features: ['subgroups', 'timestamp-query', 'subgroup-size-control'],
    limits: { ...DAWN_LIMITS, maxStorageBufferBindingSize: 2147483644, maxComputeWorkgroupStorageSize: 49152 },
  },
  // lavapipe (Mesa 25, LLVM 15, 256-bit): the CPU adapter of CI and of `npm run main`.
  lavapipe: {
    adapterInfo: { vendor: 'mesa', architecture: 'software', device: 'llvmpipe-llvm-15-0-6-256-bits-', description: 'llvmpipe (profile)', subgroupMinSize: 8, subgroupMaxSize: 8 },
    features: ['subgroups', 'shader-f16', 'timestamp-query'],
    limits: { ...DAWN_LIMITS, maxStorageBufferBindingSize: 134217728, maxComputeWorkgroupStorageSize: 32768 },
  },
};

export function targetProfile(name: string): TargetProfile {
  const p = TARGET_PROFILES[name];
  if (!p) throw new WgprimError('invalid-argument', `no adapter profile "${name}" (profiles: ${Object.keys(TARGET_PROFILES).join(', ')})`);
  return p;
}

/** A Prim over a stand-in device of the profile: enough to enumerate and plan a campaign, never to run one. */
export function profilePrim(profile: TargetProfile): Prim {
  const refuse = (): never => {
    throw new WgprimError('invalid-argument', 'a profile device cannot run GPU work (wgprim tune --dry-run plans only)');
  };
  const device = {
    features: new Set(profile.features), limits: profile.limits, lost: new Promise<never>(() => undefined), adapterInfo: profile.adapterInfo,
    createBuffer: refuse, createShaderModule: refuse, createComputePipelineAsync: refuse, createCommandEncoder: refuse,
  } as unknown as GPUDevice;
  return createPrim(device, { adapterInfo: profile.adapterInfo as unknown as GPUAdapterInfo });
}
