// Benchmarks one device algorithm on seeded random data, from the algorithms' benchmark specs
// (src/device/<algorithm>/spec.ts): names in rocPRIM's grammar, inputs, bytes per call. Names
// no algorithm. Browser-safe.
import { WgprimError } from '../runtime/errors.js';
import { type ElementType, typeInfo } from '../wgsl/types.js';
import { type BenchmarkSpec, type ConfigObject, type ConfigTable, type InputKind, type ParamValue } from '../device/spec.js';
import { BENCHMARKS, TUNING_STAGES } from '../algorithms.js';
import type { Prim } from '../prim.js';
import { type BenchRecord, formatName, type NameFields, type NameInput } from './gbench.js';
import { type RecordCall, type RunTimingOptions, timeGpu } from './timing.js';
import { benchBuffers, benchResources } from './inputs.js';
export { benchFlags, benchResources, BUILD_SCOPE, benchSegmentOffsets, benchValues, minstd, RANDOM_BLOCK, randomBlock, randomBuffer, randomRuns, randomSortKeys, releaseBenchmarkBuffers } from './inputs.js';

export { type InputKind } from '../device/spec.js';

/** `warmupMs` applies after inputs that took over IDLE_WARMUP_AFTER_MS to make. */
export interface BenchmarkOptions extends RunTimingOptions {
  /** A benchmark (`inclusive_scan`), a tuning stage (`scan`: its benchmarks) or `all`. */
  readonly algorithm: string;
  readonly type: ElementType;
  /** Elements per call. */
  readonly size: number;
  readonly seed: number;
  /** Overrides the selected config, field by field. */
  readonly config?: Readonly<Record<string, ParamValue>>;
}

/** The benchmark of this name (throws `invalid-argument` naming the known ones). */
export function benchmarkSpec(name: string): BenchmarkSpec {
  const b = BENCHMARKS.find((x) => x.name === name);
  if (!b) throw new WgprimError('invalid-argument', `unknown benchmark "${name}" (known: ${BENCHMARKS.map((x) => x.name).join(', ')})`);
  return b;
}

/** Benchmarks of stages tuned only when named (the radix sort's block sort path): left out of `all`. */
const optInBenchmarks = (): Set<string> => new Set([...TUNING_STAGES.filter((s) => s.optIn).flatMap((s) => s.benchmarks), ...BENCHMARKS.filter((b) => b.optIn).map((b) => b.name)]);

/**
 * What `bench --algorithm` takes, as benchmark names: a benchmark, a tuning stage (its
 * benchmarks: `scan` is both scans, `radix_sort_onesweep` keys and pairs) or `all` (every
 * benchmark but the opt-in ones and those of opt-in stages).
 */
export function expandAlgorithm(a: string): string[] {
  if (a === 'all') {
    const optIn = optInBenchmarks();
    return BENCHMARKS.map((b) => b.name).filter((n) => !optIn.has(n));
  }
  if (BENCHMARKS.some((b) => b.name === a)) return [a];
  const stage = TUNING_STAGES.find((s) => s.stage === a);
  if (stage) return [...stage.benchmarks];
  throw new WgprimError('invalid-argument', `unknown algorithm "${String(a)}": use ${[...BENCHMARKS.map((b) => b.name), ...TUNING_STAGES.map((s) => s.stage).filter((n) => !BENCHMARKS.some((b) => b.name === n))].join(', ')} or all`);
}

// ---------------------------------------------------------------------------------------------
// Names in rocPRIM's grammar; the grammar allows no '-', so reduce-then-scan becomes reduce_then_scan.

/** A config as a name's `cfg` fields: the table's abbreviations, in its order; omitted fields left out. */
export function configNameFields(table: ConfigTable, config: ConfigObject): NameInput {
  const out: Record<string, string | number | boolean> = {};
  for (const [field, abbr] of Object.entries(table.nameFields)) {
    const v = config[field];
    if (v === undefined || (table.nameOmits && table.nameOmits[field] === v)) continue;
    out[abbr] = typeof v === 'string' ? v.replace(/-/g, '_') : v;
  }
  return out;
}

/** The rocPRIM-grammar name (without `/manual_time`) of `benchmark` on `type` with `config`. */
export function benchmarkName(benchmark: string, type: string, config: ConfigObject): string {
  const b = benchmarkSpec(benchmark);
  return formatName({ ...b.nameFields(type as ElementType), cfg: configNameFields(b.table, config) });
}

/** The table a name's `algo` belongs to. */
function tableOfAlgo(algo: string): ConfigTable | undefined {
  return BENCHMARKS.find((b) => b.nameFields('u32').algo === algo)?.table;
}

/** The config a parsed name's `cfg` describes (the inverse of `configNameFields`; omitted fields read as their omitted value). */
export function configFromName(algo: string, cfg: NameFields): ConfigObject {
  const table = tableOfAlgo(algo);
  if (!table) throw new WgprimError('invalid-argument', `no config mapping for benchmark algo "${algo}"`);
  const out: Record<string, ParamValue> = {};
  for (const [field, abbr] of Object.entries(table.nameFields)) {
    const v = cfg[abbr];
    if (v === undefined) {
      const omitted = table.nameOmits?.[field];
      if (omitted === undefined) throw new WgprimError('invalid-argument', `benchmark name cfg lacks "${abbr}" (${field})`);
      out[field] = omitted;
      continue;
    }
    if (typeof v === 'object') throw new WgprimError('invalid-argument', `benchmark name cfg "${abbr}" is not a value`);
    const space = table.space[field] ?? table.untimedSpace?.[field] ?? [];
    if (typeof space[0] === 'number' && typeof v !== 'number') throw new WgprimError('invalid-argument', `benchmark name cfg lacks numeric "${abbr}"`);
    out[field] = typeof v === 'string' ? v.replace(/_/g, '-') : v;
  }
  return out;
}

/**
 * One benchmark call, prepared on its seeded random inputs: what `benchmarkAlgorithm` times and
 * `wgprim profile` profiles.
 */
export interface PreparedCall {
  /** The benchmark's algorithm name (`inclusive_scan`, `radix_sort_block_sort_keys`, ...). */
  readonly algorithm: string;
  /** Records one call into an encoder. */
  readonly record: RecordCall;
  /** The rocPRIM-grammar benchmark name. */
  readonly name: string;
  readonly bytesPerCall: number;
  readonly config: ConfigObject;
  readonly configSource: string;
  /** Host ms preparing took (inputs generated and uploaded; near 0 where kept from the last call), the GPU idle meanwhile. */
  readonly inputMs: number;
}


/**
 * Times each benchmark of `options.algorithm` on `size` seeded random elements: one record per
 * benchmark. Buffers are kept for the next call with the same type, size and seed (see
 * `releaseBenchmarkBuffers`).
 */
export async function benchmarkAlgorithm(prim: Prim, options: BenchmarkOptions): Promise<BenchRecord[]> {
  const records: BenchRecord[] = [];
  for (const algorithm of expandAlgorithm(options.algorithm)) records.push(await timeCall(prim, await prepareAlgorithmCall(prim, algorithm, options), options));
  return records;
}

/** Times a prepared call: the benchmark record of `options`' type and size. */
async function timeCall(prim: Prim, call: PreparedCall, options: Parameters<typeof timeGpu>[2] & { readonly type: ElementType; readonly size: number }): Promise<BenchRecord> {
  const timing = await timeGpu(prim, call.record, { ...options, warmupMs: idleWarmupMs(call, options.warmupMs) });
  return {
    name: call.name, algorithm: call.algorithm, type: options.type, size: options.size, bytesPerCall: call.bytesPerCall,
    times: timing.times, stats: timing.stats, calls: timing.calls, hostMs: timing.hostMs, method: timing.method,
    configSource: call.configSource, config: call.config, stability: timing.stability,
  };
}

/**
 * Inputs that took longer than this to make get the time-based warmup (`warmupMs`): the GPU sat
 * idle meanwhile. Not after quick ones: on the H200 a 500 ms warmup before small sorts (2^16)
 * left them 2-4x slower than 5 warmup calls (the cause not found).
 */
const IDLE_WARMUP_AFTER_MS = 100;

/** The time-based warmup `call` gets: `warmupMs` after an input slow to make, else none. */
export const idleWarmupMs = (call: PreparedCall, warmupMs = 0): number => (call.inputMs > IDLE_WARMUP_AFTER_MS ? warmupMs : 0);

/** The most bytes of elements one call of a benchmark takes on a device with these limits. */
export function benchmarkMaxBytes(limits: GPUSupportedLimits, algorithm: string): number {
  const bench = benchmarkSpec(algorithm);
  return bench.maxArrayBytes ? Math.min(bench.maxArrayBytes(limits), limits.maxBufferSize) : limits.maxStorageBufferBindingSize;
}

/** The inputs and recorder of one benchmark call (buffers kept as `benchmarkAlgorithm` keeps them). */
export async function prepareAlgorithmCall(prim: Prim, algorithm: string, options: Pick<BenchmarkOptions, 'type' | 'size' | 'seed' | 'config'>): Promise<PreparedCall> {
  const start = performance.now();
  const { type, size, seed } = options;
  if (!Number.isInteger(size) || size < 1) throw new WgprimError('invalid-argument', `size must be a positive integer, got ${size}`);
  const bench = benchmarkSpec(algorithm);
  const t = typeInfo(type);
  if (bench.needsTypeFeature) prim.context.requireTypeFeature(t);
  const selected = prim.selectedConfig(bench.table.name as never, type, undefined, bench.valueBytes) as { config: ConfigObject; source: string };
  const config: ConfigObject = options.config ? { ...selected.config, ...options.config } : selected.config;
  const source = options.config ? 'user' : selected.source;
  const dataBytes = size * t.bytes;
  // Checked before allocating: an oversized createBuffer is only a deferred device error.
  const max = benchmarkMaxBytes(prim.context.limits, algorithm);
  if (dataBytes > max) {
    const limit = bench.maxArrayBytes ? 'largest array its calls take' : 'maxStorageBufferBindingSize';
    throw new WgprimError('limit-exceeded', `${size} elements of ${type} (${dataBytes} bytes) exceed this device's ${limit} (${max} bytes)`);
  }
  const device = prim.device;
  const { input, output } = await benchBuffers(device, t, size, seed, bench.input);
  const record = await bench.prepare(prim.algorithmEnv, { input, output, count: size, type, config }, benchResources(device, seed));
  return {
    algorithm, record, name: benchmarkName(algorithm, type, config), bytesPerCall: bench.bytesPerCall(type, size), configSource: source, config, inputMs: performance.now() - start,
  };
}
