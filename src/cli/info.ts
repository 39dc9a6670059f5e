// `wgprim info`: who the adapter is, what it can do, and which config each algorithm picks.
import { describeTarget } from '../runtime/target.js';
import { ELEMENT_TYPES, typeInfo, type ElementType } from '../wgsl/types.js';
import { type Prim } from '../prim.js';
import { BENCHMARKS, TABLES } from '../algorithms.js';
import { openDevice } from './device.js';
import { renderTable } from './table.js';
import { typeClassLabel, valueClassLabel } from '../tune/measurements.js';
import { configNameFields } from '../bench/run.js';
import { formatName } from '../bench/gbench.js';
import { type ConfigObject } from '../device/spec.js';

const KEY_LIMITS = [
  'maxBufferSize', 'maxStorageBufferBindingSize', 'minStorageBufferOffsetAlignment', 'maxComputeWorkgroupStorageSize',
  'maxComputeInvocationsPerWorkgroup', 'maxComputeWorkgroupSizeX', 'maxComputeWorkgroupsPerDimension', 'maxStorageBuffersPerShaderStage',
] as const;


export function supportedTypes(prim: Prim): ElementType[] {
  return ELEMENT_TYPES.filter((t) => {
    const f = typeInfo(t).feature;
    return !f || prim.context.features.has(f);
  });
}

export interface SelectedConfigRow {
  readonly algorithm: string;
  readonly type: ElementType;
  /** Sorts: the values' byte size (0 keys only). */
  readonly valueBytes?: 0 | 4;
  /**
   * Histograms: a class a benchmark calls with besides the one a type alone names (RGBA8 pixels
   * of u32 words: `int8/4ch`), selected for that class.
   */
  readonly callClass?: string;
  readonly source: string;
  /** The tuned row's type class (`int32`, `int32/empty`, `int32/u32`), where a tuned row was selected. */
  readonly rowClass?: string;
  readonly config: unknown;
}

/**
 * The config each table selects here for each supported type. Tables with value classes (the
 * sorts'): keys only (`u32/empty`) and pairs with u32 values (`u32/u32`); tuned rows carry the
 * value class they were tuned with (a row without one serves both).
 */
export function selectedConfigs(prim: Prim): SelectedConfigRow[] {
  return TABLES.flatMap((table) => supportedTypes(prim).filter((type) => {
    try {
      table.keyInfo(type);
      return true;
    } catch {
      return false;
    }
  }).flatMap((type) => {
    const algorithm = table.name;
    const values: readonly (0 | 4 | undefined)[] = table.valueClasses ? [0, 4] : [undefined];
    const rows: SelectedConfigRow[] = values.map((valueBytes) => {
      const s = prim.selectedConfig(algorithm, type, undefined, valueBytes ?? 0);
      return {
        algorithm, type, ...(valueBytes !== undefined ? { valueBytes } : {}), source: s.source,
        ...(s.entry ? { rowClass: typeClassLabel(s.entry.typeClass) } : {}), config: s.config,
      };
    });
    // Classes the table's benchmarks call with that the type alone does not name (histograms' pixels).
    const own = table.callClass ? typeClassLabel(table.callClass(type, 0)) : undefined;
    const classes = new Map(BENCHMARKS.filter((b) => b.table === table && b.typeClass).map((b) => b.typeClass!(type)).map((c) => [typeClassLabel(c), c]));
    for (const [label, c] of classes) {
      if (label === own) continue;
      const s = prim.selectedConfig(algorithm, type, undefined, 0, c);
      rows.push({ algorithm, type, callClass: label, source: s.source, ...(s.entry ? { rowClass: typeClassLabel(s.entry.typeClass) } : {}), config: s.config });
    }
    return rows;
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
  console.log('selected configs (as benchmark names abbreviate them; --json: whole)');
  console.log(renderTable(['algorithm', 'type', 'source', 'row class', 'config'], configs.map((c) => [
    c.algorithm, c.valueBytes !== undefined ? `${c.type}/${valueClassLabel(c.valueBytes)}` : c.callClass ? `${c.type} as ${c.callClass}` : c.type, c.source, c.rowClass ?? '-', formatName(configNameFields(TABLES.find((t) => t.name === c.algorithm)!, c.config as ConfigObject)),
  ])).replace(/^/gm, '  '));
  return 0;
}
