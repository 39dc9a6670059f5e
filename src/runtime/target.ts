/** Who the GPU is, as far as WebGPU tells: what tuned tables are keyed by. */
export interface Target {
  readonly vendor: string;
  readonly architecture: string;
  readonly device: string;
  readonly description: string;
  readonly subgroupMinSize: number;
  readonly subgroupMaxSize: number;
}

/** The part of GPUAdapterInfo we read; every field may be blank (browsers hide them). */
export type AdapterInfoLike = Partial<Pick<GPUAdapterInfo, 'vendor' | 'architecture' | 'device' | 'description'>> & {
  subgroupMinSize?: number;
  subgroupMaxSize?: number;
};

const norm = (s: string | undefined): string => (s ?? '').trim().toLowerCase();

export function targetFromAdapterInfo(info: AdapterInfoLike | undefined): Target {
  // Some adapters report 0 or absurd sizes (seen: min 0, max 128 on D3D12); clamp to what WGSL allows.
  const rawMin = Number(info?.subgroupMinSize ?? 0);
  const rawMax = Number(info?.subgroupMaxSize ?? 0);
  const subgroupMinSize = rawMin >= 4 && rawMin <= 128 ? rawMin : 4;
  const subgroupMaxSize = rawMax >= subgroupMinSize && rawMax <= 128 ? rawMax : 128;
  return {
    vendor: norm(info?.vendor),
    architecture: norm(info?.architecture),
    device: norm(info?.device),
    description: (info?.description ?? '').trim(),
    subgroupMinSize,
    subgroupMaxSize,
  };
}

/**
 * Vendors whose GPUs are known to give forward progress between workgroups, so a spinning
 * look-back cannot starve. Apple, ARM, Qualcomm, Imagination and software rasterizers
 * with fibers (SwiftShader) are not on the list. lavapipe (mesa) runs each workgroup to
 * completion on one thread, so a look-back waits only on workgroups already running.
 */
const FORWARD_PROGRESS_VENDORS = new Set(['nvidia', 'amd', 'intel', 'mesa']);

export function hasForwardProgress(t: Target): boolean {
  return FORWARD_PROGRESS_VENDORS.has(t.vendor);
}

/** CPU adapters (lavapipe, SwiftShader, WARP): compiling a pipeline can cost more than running it. */
export function isSoftwareAdapter(t: Target): boolean {
  return t.architecture === 'software' || t.architecture === 'swiftshader' ||
    /llvmpipe|lavapipe|swiftshader|warp/i.test(`${t.device} ${t.description}`);
}

export function describeTarget(t: Target): string {
  return [t.vendor || '?', t.architecture || '-', t.device || '-'].join('/') + ` (subgroups ${t.subgroupMinSize}..${t.subgroupMaxSize})`;
}
