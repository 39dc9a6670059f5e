// The device-wide reduction: any associative and commutative operator, every element type.
import { type Operator } from '../../wgsl/operators.js';
import { type ElementType } from '../../wgsl/types.js';
import { f16Value } from '../../wgsl/values.js';
import { arrayOfType, precheckArrayCall, type PrimTypedArray, typeOfArray } from '../typed-arrays.js';
import { type AlgorithmEnv, type ArrayEnv, defineAlgorithm } from '../spec.js';
import { compareArrays, looseSum } from '../reference.js';
import { type ReduceConfig } from './config.js';
import { recordReduce, type ReduceArgs } from './reduce.js';
import { reduceTable } from './table.js';

export interface ArrayReduceOptions {
  readonly op?: Operator;
  readonly type?: ElementType;
  readonly initialValue?: number | bigint;
  readonly config?: Partial<ReduceConfig>;
}

function reduceCalls(env: AlgorithmEnv) {
  return {
    /** Records a reduction of `count` elements of `input` into element 0 of `output`. */
    reduce(encoder: GPUCommandEncoder, args: ReduceArgs): Promise<void> {
      return recordReduce(env.context, env.rows(reduceTable), encoder, args);
    },
  };
}

async function arrayReduce(env: ArrayEnv, data: PrimTypedArray, options: ArrayReduceOptions = {}): Promise<number | bigint> {
  const type = typeOfArray(data, options.type);
  precheckArrayCall(env, reduceTable, { type, op: options.op, useOp: true, initialValue: options.initialValue, config: options.config });
  const input = env.upload(data);
  const output = env.buffer(8);
  try {
    const args = { input, output, count: data.length, type, op: options.op, initialValue: options.initialValue, config: options.config };
    const [result] = await env.runAll([[output, 8]], (enc) => recordReduce(env.context, env.rows(reduceTable), enc, args));
    const value = arrayOfType(type, result!, 1)[0]!;
    return type === 'f16' ? f16Value(value as number) : value;
  } finally {
    input.destroy();
    output.destroy();
  }
}

export const reduceAlgorithm = defineAlgorithm({
  name: 'reduce',
  summary: 'reduction to one value (a resident grid, then one workgroup)',
  tables: [reduceTable],
  benchmarks: [{
    name: 'reduce',
    table: reduceTable,
    input: 'values',
    valueBytes: 0,
    needsTypeFeature: true,
    nameFields: (type) => ({ lvl: 'device', algo: 'reduce', key_type: type }),
    bytesPerCall: (type, n) => n * reduceTable.keyInfo(type).bytes,
    prepare: async (env, c) => {
      const args = { input: c.input, output: c.output, count: c.count, type: c.type, config: c.config as unknown as ReduceConfig };
      return (encoder) => recordReduce(env.context, env.rows(reduceTable), encoder, args);
    },
  }],
  tuning: [{
    stage: 'reduce', table: reduceTable, benchmarks: ['reduce'], defaultBenchmarks: ['reduce'],
    // maxWorkgroups is a launch parameter, not part of the kernel: it costs no compile.
    defaultSpace: { workgroupSize: [64, 128, 256], itemsPerThread: [8, 16], maxWorkgroups: [1024, 2048, 4096] },
    smallSpace: { workgroupSize: [128, 256], itemsPerThread: [8, 16], maxWorkgroups: [256, 2048], workgroupReduce: ['subgroup'] },
    cost: { pipelines: () => 2, passes: () => 1, launchOnly: ['maxWorkgroups'] },
    fullCoverageCount: (c) => 2 * Number(c.workgroupSize) * Number(c.itemsPerThread) + 1,
  }],
  calls: reduceCalls,
  arrays: (env: ArrayEnv) => ({
    /** The reduction of `data`: a number (a bigint for 64-bit integers). */
    reduce: (data: PrimTypedArray, options: ArrayReduceOptions = {}): Promise<number | bigint> => arrayReduce(env, data, options),
  }),
  demo: (arrays, { u32, f32 }) => {
    const uSum = u32.reduce((s, x) => (s + x) >>> 0, 0);
    const fSum = f32.reduce((s, x) => s + x, 0);
    return [
      { name: 'reduce u32', run: () => arrays.reduce(u32), verify: (g: unknown) => (g === uSum ? undefined : `got ${String(g)}, expected ${uSum}`) },
      { name: 'reduce f32', run: () => arrays.reduce(f32), verify: (g: unknown) => compareArrays([Number(g)], [fSum], looseSum) },
    ];
  },
});
