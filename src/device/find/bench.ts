// The find benchmarks, named as rocPRIM's (`adjacent_find`, `find_first_of`, `search`,
// `find_end`, `search_n`; CUB has none of them, so no anchor), each timed with its match at the
// end of the input and at one half and one hundredth of the way in (from the end for find_end),
// so that early exit shows: `bytesPerCall` counts the part read, up to the match.
import { type ElementType, typeInfo } from '../../wgsl/types.js';
import { f16Bits } from '../../wgsl/values.js';
import { transformTable } from '../transform/table.js';
import { recordTransform } from '../transform/transform.js';
import { type AlgorithmEnv, type BenchCall, type BenchmarkSpec, type BenchResources, type ConfigTable, type TuningSpec } from '../spec.js';
import { type FindConfig } from './config.js';
import { type FindCall, prepareFind } from './find.js';
import { adjacentFindCall, findFirstOfCall, searchCall, searchNCall } from './calls.js';
import { adjacentFindTable, findFirstOfTable, searchNTable, searchTable } from './table.js';

type Algo = 'adjacent_find' | 'find_first_of' | 'search' | 'find_end' | 'search_n';
/** The part of the input read before the match: all of it, half, a hundredth. */
const READS = [[1, ''], [0.5, '_at_half'], [0.01, '_at_1pct']] as const;
/** Elements planted (pattern length, run length, target count): even, so f16 plants are whole words. */
const PLANT = 16;

const TABLES: Record<Algo, ConfigTable<FindConfig>> = {
  adjacent_find: adjacentFindTable, find_first_of: findFirstOfTable, search: searchTable, find_end: searchTable, search_n: searchNTable,
};

/**
 * Input of distinct neighbours from the runner's u32 indices, in a range that holds no marker:
 * integers stay below 2^30, floats are small non-negative integers, 64-bit values have a zero
 * high word.
 */
const GENERATOR: Record<ElementType, string> = {
  u32: 'a & 0x3fffffffu', i32: 'i32(a & 0x3fffffffu)', f32: 'f32(a & 0xfffffu)', f16: 'f16(a & 1023u)', u64: 'vec2<u32>(a, 0u)', i64: 'vec2<u32>(a, 0u)',
};

/** `k` distinct markers (values the generator never makes), as the type's bytes. */
function markers(type: ElementType, values: readonly number[]): ArrayBuffer {
  switch (type) {
    case 'u32': return Uint32Array.from(values, (k) => 0x80000000 + k).buffer;
    case 'i32': return Int32Array.from(values, (k) => -1 - k).buffer;
    case 'f32': return Float32Array.from(values, (k) => -1 - k).buffer;
    case 'f16': return Uint16Array.from(values, (k) => f16Bits(-1 - k)).buffer;
    case 'u64': case 'i64': return BigUint64Array.from(values, (k) => (0xffffffffn << 32n) | BigInt(k)).buffer;
  }
}

const range = (n: number, from = 0): number[] => Array.from({ length: n }, (_, i) => from + i);

/** What is planted at the match and what the call looks for. */
function plan(algo: Algo): { plant: number[]; aux?: number[] } {
  switch (algo) {
    case 'adjacent_find': return { plant: [0, 0] };
    case 'find_first_of': return { plant: [3, 3], aux: range(PLANT) };
    case 'search': case 'find_end': return { plant: range(PLANT), aux: range(PLANT) };
    case 'search_n': return { plant: Array<number>(PLANT).fill(0) };
  }
}

/** Where the match goes so that `read` of the input is scanned (even, for f16's whole words). */
export function matchPosition(algo: Algo, count: number, read: number, planted: number): number {
  const span = Math.max(planted, Math.floor(read * count));
  const p = algo === 'find_end' ? count - span : span - planted;
  return Math.max(0, Math.min(p, count - planted)) & ~1;
}

async function benchCall(env: AlgorithmEnv, algo: Algo, name: string, read: number, c: BenchCall, r: BenchResources): Promise<FindCall> {
  const t = typeInfo(c.type);
  const bytes = c.count * t.bytes;
  const input = r.buffer(`find.${name}`, bytes);
  const { values } = await r.values(c.count);
  const encoder = r.device.createCommandEncoder();
  await recordTransform(env.context, env.rows(transformTable), encoder, { input: values, output: input, count: c.count, type: 'u32', outputType: c.type, expression: GENERATOR[c.type] });
  r.device.queue.submit([encoder.finish()]);
  const { plant, aux } = plan(algo);
  if (c.count >= plant.length) r.device.queue.writeBuffer(input, matchPosition(algo, c.count, read, plant.length) * t.bytes, markers(c.type, plant));
  const auxBuffer = aux ? r.buffer('find.aux', aux.length * t.bytes) : undefined;
  if (aux) r.device.queue.writeBuffer(auxBuffer!, 0, markers(c.type, aux));
  await r.device.queue.onSubmittedWorkDone();
  const args = { input, count: c.count, type: c.type, output: r.buffer('find.output', 4), config: c.config as unknown as FindConfig };
  switch (algo) {
    case 'adjacent_find': return adjacentFindCall(args);
    case 'find_first_of': return findFirstOfCall({ ...args, targets: auxBuffer!, targetCount: aux!.length });
    case 'search': case 'find_end': return searchCall({ ...args, pattern: auxBuffer!, patternCount: aux!.length }, algo === 'find_end');
    case 'search_n': return searchNCall({ ...args, n: PLANT, value: c.type === 'u64' ? 0xffffffffn << 32n : c.type === 'i64' ? BigInt.asIntN(64, 0xffffffffn << 32n) : c.type === 'u32' ? 0x80000000 : -1 });
  }
}

const ALGOS: readonly Algo[] = ['adjacent_find', 'find_first_of', 'search', 'find_end', 'search_n'];

export const findBenchmarks: readonly BenchmarkSpec[] = ALGOS.flatMap((algo) => READS.map(([read, suffix]): BenchmarkSpec => ({
  name: algo + suffix,
  anchor: null,
  table: TABLES[algo],
  input: 'values',
  valueBytes: 0,
  needsTypeFeature: true,
  nameFields: (type: ElementType) => ({ lvl: 'device', algo, key_type: type, read }),
  // The part scanned, up to the match (early exit), read once.
  bytesPerCall: (type: ElementType, n: number) => Math.max(PLANT, Math.floor(read * n)) * typeInfo(type).bytes,
  prepare: async (env, c, r) => {
    const call = await benchCall(env, algo, algo + suffix, read, c, r);
    const record = await prepareFind(env.context, env.rows(call.table), call);
    return async (encoder) => record(encoder);
  },
})));

const stage = (name: string, table: ConfigTable<FindConfig>, algos: readonly Algo[], items: readonly number[] = [8]): TuningSpec => ({
  stage: name, table,
  benchmarks: algos.flatMap((a) => READS.map(([, s]) => a + s)),
  // Streaming (match at the end) and early exit (a hundredth in): the grid matters to both.
  defaultBenchmarks: algos.flatMap((a) => [a, `${a}_at_1pct`]),
  // Items: 2 (or 4, find_first_of's, whose every element meets every target) words of 16 bytes
  // an invocation for 4-byte types; of the H200's 12 rows only find_first_of's u32 row took 16.
  // 32 items won no H200 stage at 2^24 or 2^28 and are left to settings files, as are grids of
  // 256 and 2048 (every H200 row took 512 or 1024).
  defaultSpace: { workgroupSize: [256, 512], itemsPerThread: items, grid: [512, 1024], assignment: ['ticket', 'stride'] },
  // A CPU adapter runs a few workgroups at a time: tiles by stride would leave early ones to the end.
  smallSpace: { workgroupSize: [128, 256], itemsPerThread: [8, 16], grid: [16, 64], assignment: ['ticket'] },
  cost: { pipelines: () => 2, passes: () => 1, launchOnly: ['grid'] },
  fullCoverageCount: (c) => Number(c.workgroupSize) * Number(c.itemsPerThread) + 1,
});

export const findTuning: readonly TuningSpec[] = [
  stage('adjacent_find', adjacentFindTable, ['adjacent_find']),
  stage('find_first_of', findFirstOfTable, ['find_first_of'], [8, 16]),
  stage('search', searchTable, ['search', 'find_end']),
  stage('search_n', searchNTable, ['search_n']),
];
