// The adjacent difference (rocPRIM `adjacent_difference` and `adjacent_difference_inplace`):
// out[i] = op(in[i], in[i-1]) or op(in[i], in[i+1]), out of place or in place, one table each.
import { fail } from '../../runtime/errors.js';
import { type ElementType } from '../../wgsl/types.js';
import { arrayOfType, precheckArrayCall, type PrimTypedArray, typeOfArray } from '../typed-arrays.js';
import { type AlgorithmEnv, type ArrayEnv, type BenchmarkSpec, defineAlgorithm, type TuningSpec } from '../spec.js';
import { compareArrays } from '../reference.js';
import { type AdjacentDifferenceConfig } from './config.js';
import { type AdjacentDifferenceArgs, type AdjacentDifferenceRows, prepareAdjacentDifference, recordAdjacentDifference } from './adjacent-difference.js';
import { adjacentDifferenceInplaceTable, adjacentDifferenceTable } from './table.js';
import { adjacentDifferenceTyped, cpuDifference } from './reference.js';

export interface ArrayAdjacentDifferenceOptions {
  /** WGSL expression over `a` and `b` (default `a - b`). */
  readonly op?: string;
  /** Differences with the right neighbour (the last element kept). */
  readonly right?: boolean;
  /** Run the in-place path on the uploaded copy (its own table): the result is the same. */
  readonly inPlace?: boolean;
  /** Needed only for f16 (Uint16Array). */
  readonly type?: ElementType;
  readonly config?: Partial<AdjacentDifferenceConfig>;
}

const rowsOf = (env: AlgorithmEnv): AdjacentDifferenceRows => ({ copy: env.rows(adjacentDifferenceTable), inPlace: env.rows(adjacentDifferenceInplaceTable) });

function calls(env: AlgorithmEnv) {
  return {
    /**
     * Records `output[i] = op(input[i], input[i-1])` (`output[0] = input[0]`), or with `right`
     * `op(input[i], input[i+1])` (the last kept); in place when `output` is omitted.
     */
    adjacentDifference: (encoder: GPUCommandEncoder, args: AdjacentDifferenceArgs): Promise<void> => recordAdjacentDifference(env.context, rowsOf(env), encoder, args),
  };
}

async function arrayAdjacentDifference<A extends PrimTypedArray>(env: ArrayEnv, data: A, options: ArrayAdjacentDifferenceOptions = {}): Promise<A> {
  if (!options || typeof options !== 'object') fail('invalid-argument', 'adjacentDifference options must be an object { op?, right?, inPlace? }');
  const type = typeOfArray(data, options.type);
  const inPlace = options.inPlace === true;
  precheckArrayCall(env, inPlace ? adjacentDifferenceInplaceTable : adjacentDifferenceTable, { type, config: options.config });
  const bytes = data.byteLength;
  const input = env.upload(data);
  const output = inPlace ? undefined : env.buffer(bytes);
  try {
    const args: AdjacentDifferenceArgs = { input, output, count: data.length, type, op: options.op, right: options.right, config: options.config };
    const record = await prepareAdjacentDifference(env.context, rowsOf(env), args);
    const [result] = await env.runAll([[output ?? input, bytes]], async (enc) => record(enc));
    return arrayOfType(type, result!, data.length) as A;
  } finally {
    input.destroy();
    output?.destroy();
  }
}

const BENCHES = [
  { name: 'adjacent_difference', right: false, inPlace: false },
  { name: 'adjacent_difference_right', right: true, inPlace: false },
  { name: 'adjacent_difference_inplace', right: false, inPlace: true },
  { name: 'adjacent_difference_right_inplace', right: true, inPlace: true },
] as const;

const benchmarks: readonly BenchmarkSpec[] = BENCHES.map((b) => ({
  name: b.name,
  // CUB's SubtractLeftCopy: the same traffic (each element read once and written once) in every variant.
  anchor: 'adjacent_difference',
  table: b.inPlace ? adjacentDifferenceInplaceTable : adjacentDifferenceTable,
  input: 'values',
  valueBytes: 0,
  needsTypeFeature: true,
  nameFields: (type: ElementType) => ({ lvl: 'device', algo: b.name, value_type: type }),
  bytesPerCall: (type: ElementType, n: number) => 2 * n * adjacentDifferenceTable.keyInfo(type).bytes,
  prepare: async (env, c) => {
    // In place on the runner's output, so the shared input stays as other benchmarks expect it.
    const args: AdjacentDifferenceArgs = b.inPlace
      ? { input: c.output, count: c.count, type: c.type, right: b.right, config: c.config as unknown as AdjacentDifferenceConfig }
      : { input: c.input, output: c.output, count: c.count, type: c.type, right: b.right, config: c.config as unknown as AdjacentDifferenceConfig };
    const record = await prepareAdjacentDifference(env.context, rowsOf(env), args);
    return async (encoder) => record(encoder);
  },
}));

const tuning: readonly TuningSpec[] = [false, true].map((inPlace) => ({
  stage: inPlace ? 'adjacent_difference_inplace' : 'adjacent_difference',
  table: inPlace ? adjacentDifferenceInplaceTable : adjacentDifferenceTable,
  benchmarks: BENCHES.filter((b) => b.inPlace === inPlace).map((b) => b.name),
  defaultBenchmarks: BENCHES.filter((b) => b.inPlace === inPlace).map((b) => b.name),
  // Every shape came within 0.97x of the best on the H200; 16 items never won.
  defaultSpace: { workgroupSize: [128, 256, 512], itemsPerThread: [4, 8] },
  smallSpace: { workgroupSize: [128, 256], itemsPerThread: [4, 8, 16] },
  // Bandwidth-bound, and its target is CUB at 2^28.
  gpuSizes: [1 << 24, 1 << 28],
  // In place adds the boundary pre-pass (one element a tile).
  cost: { pipelines: () => (inPlace ? 2 : 1), passes: () => 1 },
  fullCoverageCount: (c) => 2 * Number(c.workgroupSize) * Number(c.itemsPerThread) + 1,
}));

export const adjacentDifferenceAlgorithm = defineAlgorithm({
  name: 'adjacent-difference',
  summary: 'adjacent difference (left or right, out of place or in place) by a WGSL expression',
  tables: [adjacentDifferenceTable, adjacentDifferenceInplaceTable],
  benchmarks,
  tuning,
  calls,
  arrays: (env: ArrayEnv) => ({
    /** `op(x[i], x[i-1])` (the first kept), or with `right` `op(x[i], x[i+1])` (the last kept): a new array. */
    adjacentDifference: <A extends PrimTypedArray>(data: A, options?: ArrayAdjacentDifferenceOptions): Promise<A> => arrayAdjacentDifference(env, data, options),
  }),
  demo: (arrays, { u32, f32 }) => [
    {
      name: 'adjacentDifference u32 (left, a - b)', run: () => arrays.adjacentDifference(u32),
      verify: (g: unknown) => compareArrays(g, adjacentDifferenceTyped(u32, cpuDifference('u32') as (a: number, b: number) => number)),
    },
    {
      name: 'adjacentDifference f32 (right, in place)', run: () => arrays.adjacentDifference(f32, { right: true, inPlace: true }),
      verify: (g: unknown) => compareArrays(g, adjacentDifferenceTyped(f32, cpuDifference('f32') as (a: number, b: number) => number, true)),
    },
  ],
});
