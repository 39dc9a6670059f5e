// `wgprim info`: who the adapter is, what it can do, and which config each algorithm picks.
import { describeTarget } from '../runtime/target.js';
import { ELEMENT_TYPES, typeInfo, type ElementType } from '../wgsl/types.js';
import { type Prim } from '../prim.js';
import { selectedFor } from '../bench/run.js';
import { openDevice } from './device.js';
import { renderTable } from './table.js';

const KEY_LIMITS = [
  'maxBufferSize', 'maxStorageBufferBindingSize', 'minStorageBufferOffsetAlignment', 'maxComputeWorkgroupStorageSize',
  'maxComputeInvocationsPerWorkgroup', 'maxComputeWorkgroupSizeX', 'maxComputeWorkgroupsPerDimension', 'maxStorageBuffersPerShaderStage',
] as const;

// radixSort, segmentedRadixSort: the keys-only selection (pairs may pick a smaller tile where the values do not fit).
export const CONFIG_FAMILIES = ['scan', 'reduce', 'transform', 'radixSort', 'segmentedRadixSort'] as const;

export function supportedTypes(prim: Prim): ElementType[] {
  return ELEMENT_TYPES.filter((t) => {
    const f = typeInfo(t).feature;
    return !f || prim.context.features.has(f);
  });
}

export function selectedConfigs(prim: Prim): { algorithm: string; type: ElementType; source: string; config: unknown }[] {
  return CONFIG_FAMILIES.flatMap((algorithm) => supportedTypes(prim).map((type) => {
    const s = selectedFor(prim, algorithm, type);
    return { algorithm, type, source: s.source, config: s.config };
  }));
}

export async function infoCommand(opts: { json?: boolean }): Promise<number> {
  const { prim, adapterInfo } = await openDevice();
  const info = {
    vendor: adapterInfo.vendor, architecture: adapterInfo.architecture, device: adapterInfo.device, description: adapterInfo.description,
    subgroupMinSize: (adapterInfo as { subgroupMinSize?: number }).subgroupMinSize,
    subgroupMaxSize: (adapterInfo as { subgroupMaxSize?: number }).subgroupMaxSize,
  };
  const limits = Object.fromEntries(KEY_LIMITS.map((k) => [k, prim.context.limits[k]]));
  const features = [...prim.context.features].sort();
  const configs = selectedConfigs(prim);
  if (opts.json) {
    console.log(JSON.stringify({ adapter: info, target: prim.target, features, limits, configs }, null, 2));
    return 0;
  }
  console.log('adapter');
  for (const [k, v] of Object.entries(info)) console.log(`  ${k.padEnd(16)} ${String(v ?? '')}`);
  console.log(`target    ${describeTarget(prim.target)}`);
  console.log(`features  ${features.join(', ')}`);
  console.log('limits');
  for (const [k, v] of Object.entries(limits)) console.log(`  ${k.padEnd(34)} ${String(v)}`);
  console.log('selected configs');
  console.log(renderTable(['algorithm', 'type', 'source', 'config'], configs.map((c) => [c.algorithm, c.type, c.source, JSON.stringify(c.config)])).replace(/^/gm, '  '));
  return 0;
}
