// The compaction benchmarks, named as rocPRIM's (`select_flag`, ..., `partition_three_way`),
// on 50% selected inputs (predicate: the value is odd; flags: random bits, `u32` or, for
// `select_flag_u8`, bytes) and, for unique, runs of random length 1..7; and a tuning stage per
// table.
import { type ElementType, typeInfo } from '../../wgsl/types.js';
import { type AlgorithmEnv, type BenchCall, type BenchmarkSpec, type BenchResources, type ConfigTable, type InputKind, type TuningSpec } from '../spec.js';
import { scanTable } from '../scan/table.js';
import { type SelectConfig } from './config.js';
import { type CompactionCall, prepareCompaction } from './compaction.js';
import { type FlagSource, type OutputLayout } from './kernel.js';
import * as tables from './table.js';

/** The element as a u32 for the benchmarks' predicates (their values are integers in [0, 1000]). */
function asWord(type: ElementType): string {
  return { u32: 'a', i32: 'u32(a)', f32: 'u32(a)', f16: 'u32(a)', u64: 'a.x', i64: 'a.x' }[type];
}
/** Selects half of the benchmark's values: the odd ones. */
export const benchPredicate = (type: ElementType): string => `(${asWord(type)} & 1u) == 1u`;

interface CompactionBench {
  readonly name: string;
  readonly table: ConfigTable<SelectConfig>;
  readonly source: FlagSource;
  readonly layout: OutputLayout;
  readonly input?: InputKind;
  readonly values?: boolean;
  /** The CUB anchor's algo (null: none). */
  readonly anchor?: string | null;
  /** Byte flags (CUB's `select_flagged` reads `u8` flags): a benchmark only, timed on its `u32` twin's table, not a tuning stage. */
  readonly flagBytes?: 1;
}

const BENCHES: readonly CompactionBench[] = [
  { name: 'select_flag', table: tables.selectFlagTable, source: 'flags', layout: 'select', anchor: 'select_flagged' },
  { name: 'select_flag_u8', table: tables.selectFlagTable, source: 'flags', layout: 'select', anchor: 'select_flagged', flagBytes: 1 },
  { name: 'select_predicate', table: tables.selectPredicateTable, source: 'predicate', layout: 'select', anchor: 'select_if' },
  { name: 'select_predicated_flag', table: tables.selectPredicatedFlagTable, source: 'predicated-flags', layout: 'select', anchor: null },
  { name: 'select_unique', table: tables.selectUniqueTable, source: 'unique', layout: 'select', input: 'runs', anchor: 'unique' },
  { name: 'select_unique_by_key', table: tables.selectUniqueByKeyTable, source: 'unique', layout: 'select', input: 'runs', values: true, anchor: 'unique_by_key' },
  { name: 'partition_flag', table: tables.partitionFlagTable, source: 'flags', layout: 'partition', anchor: null },
  { name: 'partition_predicate', table: tables.partitionPredicateTable, source: 'predicate', layout: 'partition', anchor: 'partition_if' },
  { name: 'partition_two_way_flag', table: tables.partitionTwoWayFlagTable, source: 'flags', layout: 'two-way', anchor: null },
  { name: 'partition_two_way_predicate', table: tables.partitionTwoWayPredicateTable, source: 'predicate', layout: 'two-way', anchor: null },
  { name: 'partition_three_way', table: tables.partitionThreeWayTable, source: 'three-way', layout: 'three-way', anchor: 'partition_three_way' },
];

async function benchCall(env: AlgorithmEnv, b: CompactionBench, c: BenchCall, r: BenchResources): Promise<CompactionCall> {
  const t = typeInfo(c.type);
  const bytes = c.count * t.bytes;
  const outputs: [string, GPUBuffer][] = [['output', c.output]];
  if (b.layout === 'three-way') outputs.push(['second', r.buffer('second', bytes)]);
  if (b.layout === 'two-way' || b.layout === 'three-way') outputs.push(['rejected', r.buffer('rejected', bytes)]);
  const w = asWord(c.type);
  const predicate = b.source === 'predicated-flags' ? 'a != 0u' : b.layout === 'three-way' ? `${w} % 3u == 0u` : b.source === 'predicate' ? benchPredicate(c.type) : undefined;
  const values = b.values ? await r.values(c.count) : undefined;
  return {
    what: b.name, table: b.table, input: c.input, count: c.count, type: c.type, source: b.source, layout: b.layout,
    predicate, second: b.layout === 'three-way' ? `${w} % 3u == 1u` : undefined,
    flags: b.source === 'flags' || b.source === 'predicated-flags' ? await r.flags(c.count, b.flagBytes) : undefined, flagBytes: b.flagBytes,
    values: values?.values, valuesOut: values?.valuesOut, valueBytes: values ? 4 : undefined,
    outputs, counts: r.buffer('counts', 8), countsName: 'counts', config: c.config as unknown as SelectConfig,
  };
}

/** Bytes a call moves at 50% selected: input (and flags, values) read once, what is written once. */
function bytesPerCall(b: CompactionBench, type: ElementType, n: number): number {
  const s = typeInfo(type).bytes;
  const flags = b.source === 'flags' || b.source === 'predicated-flags' ? (b.flagBytes ?? 4) * n : 0;
  // unique on runs of mean length 4 keeps a quarter.
  const kept = b.source === 'unique' ? n / 4 : b.layout === 'select' ? n / 2 : n;
  return n * s + flags + kept * s + (b.values ? 4 * n + 4 * kept : 0);
}

export const compactionBenchmarks: readonly BenchmarkSpec[] = BENCHES.map((b) => ({
  name: b.name,
  anchor: b.anchor,
  table: b.table,
  input: b.input ?? 'values',
  valueBytes: 0,
  needsTypeFeature: true,
  nameFields: (type: ElementType) => ({ lvl: 'device', algo: b.name, key_type: type }),
  bytesPerCall: (type: ElementType, n: number) => bytesPerCall(b, type, n),
  prepare: async (env, c, r) => {
    const record = await prepareCompaction(env.context, { rows: env.rows(b.table), scanRows: env.rows(scanTable) }, await benchCall(env, b, c, r));
    return async (encoder) => record(encoder);
  },
}));

export const compactionTuning: readonly TuningSpec[] = BENCHES.filter((b) => !b.flagBytes).map((b) => ({
  stage: b.name, table: b.table, benchmarks: [b.name], defaultBenchmarks: [b.name],
  defaultSpace: { workgroupSize: [256, 512], itemsPerThread: [8, 12, 16], scatter: ['direct', 'rounds'] },
  smallSpace: { workgroupSize: [128, 256], itemsPerThread: [8, 16], lookback: ['decoupled'], workgroupScan: ['subgroup'] },
  // The scatters part at 2^28 (H100: rounds 1.0-1.7x direct, tile-wide staging 1.3-1.6x slower than direct on the H200): time where the targets are.
  gpuSizes: [2 ** 24, 2 ** 28],
  // Reduce-then-scan adds its first pass and the scan of the tile counts.
  cost: { pipelines: (c) => (c.lookback === 'reduce-then-scan' ? 4 : 1), passes: (c) => (c.lookback === 'reduce-then-scan' ? 2 : 1) },
  fullCoverageCount: (c) => 2 * Number(c.workgroupSize) * Number(c.itemsPerThread) + 1,
}));
