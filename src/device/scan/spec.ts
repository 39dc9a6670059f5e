// The device-wide scans: inclusive and exclusive, any associative operator, every element type.
import { type Operator } from '../../wgsl/operators.js';
import { type ElementType } from '../../wgsl/types.js';
import { arrayOfType, precheckArrayCall, type PrimTypedArray, typeOfArray } from '../typed-arrays.js';
import { type AlgorithmEnv, type ArrayEnv, type BenchmarkSpec, defineAlgorithm } from '../spec.js';
import { compareArrays, cpuIdentity, cpuOp, looseSum } from '../reference.js';
import { scanReference } from './reference.js';
import { type ScanConfig } from './config.js';
import { recordScan, type ScanArgs } from './scan.js';
import { scanTable } from './table.js';

export interface ArrayScanOptions {
  readonly op?: Operator;
  /** Needed only for f16 (Uint16Array). */
  readonly type?: ElementType;
  readonly initialValue?: number | bigint;
  readonly config?: Partial<ScanConfig>;
}

function scanCalls(env: AlgorithmEnv) {
  return {
    /** Records an inclusive scan of `count` elements from `input` to `output` into `encoder`. */
    inclusiveScan(encoder: GPUCommandEncoder, args: ScanArgs): Promise<void> {
      return recordScan(env.context, env.rows(scanTable), encoder, args, false);
    },
    /** Records an exclusive scan (output[0] is the initial value, or the identity). */
    exclusiveScan(encoder: GPUCommandEncoder, args: ScanArgs): Promise<void> {
      return recordScan(env.context, env.rows(scanTable), encoder, args, true);
    },
  };
}

async function arrayScan<A extends PrimTypedArray>(env: ArrayEnv, data: A, options: ArrayScanOptions, exclusive: boolean): Promise<A> {
  const type = typeOfArray(data, options.type);
  precheckArrayCall(env, scanTable, { type, op: options.op, useOp: true, initialValue: options.initialValue, config: options.config });
  const input = env.upload(data);
  const output = env.buffer(data.byteLength);
  try {
    const args = { input, output, count: data.length, type, op: options.op, initialValue: options.initialValue, config: options.config };
    const [result] = await env.runAll([[output, data.byteLength]], (enc) => recordScan(env.context, env.rows(scanTable), enc, args, exclusive));
    return arrayOfType(type, result!, data.length) as A;
  } finally {
    input.destroy();
    output.destroy();
  }
}

const scanBenchmark = (exclusive: boolean): BenchmarkSpec => ({
  name: exclusive ? 'exclusive_scan' : 'inclusive_scan',
  table: scanTable,
  input: 'values',
  valueBytes: 0,
  needsTypeFeature: true,
  nameFields: (type) => ({ lvl: 'device', algo: 'scan', exclusive, value_type: type }),
  bytesPerCall: (type, n) => 2 * n * scanTable.keyInfo(type).bytes,
  prepare: async (env, c) => {
    const args = { input: c.input, output: c.output, count: c.count, type: c.type, config: c.config as unknown as ScanConfig };
    return (encoder) => recordScan(env.context, env.rows(scanTable), encoder, args, exclusive);
  },
});

export const scanAlgorithm = defineAlgorithm({
  name: 'scan',
  summary: 'inclusive and exclusive scan (decoupled look-back, or reduce-then-scan without forward progress)',
  tables: [scanTable],
  benchmarks: [scanBenchmark(false), scanBenchmark(true)],
  tuning: [{
    stage: 'scan', table: scanTable, benchmarks: ['inclusive_scan', 'exclusive_scan'], defaultBenchmarks: ['inclusive_scan'],
    // The tile shape; the look-back and the workgroup scan stay the heuristic's (per vendor and features).
    defaultSpace: { workgroupSize: [128, 256, 512], itemsPerThread: [8, 12, 16, 24] },
    smallSpace: { workgroupSize: [128, 256], itemsPerThread: [8, 16], lookback: ['decoupled'], workgroupScan: ['subgroup'] },
    // One scan kernel per variant (and the tile-state reset); one read, one write.
    cost: { pipelines: () => 2, passes: (c) => (c.lookback === 'reduce-then-scan' ? 2 : 1) },
    fullCoverageCount: (c) => 2 * Number(c.workgroupSize) * Number(c.itemsPerThread) + 1,
  }],
  calls: scanCalls,
  arrays: (env: ArrayEnv) => ({
    /** An inclusive scan of `data` (a new array of the same type). */
    inclusiveScan: <A extends PrimTypedArray>(data: A, options: ArrayScanOptions = {}): Promise<A> => arrayScan(env, data, options, false),
    /** An exclusive scan of `data` (a new array of the same type). */
    exclusiveScan: <A extends PrimTypedArray>(data: A, options: ArrayScanOptions = {}): Promise<A> => arrayScan(env, data, options, true),
  }),
  demo: (arrays, { u32, f32 }) => [false, true].flatMap((exclusive) => {
    const name = exclusive ? 'exclusive_scan' : 'inclusive_scan';
    const run = exclusive ? arrays.exclusiveScan : arrays.inclusiveScan;
    // f32 against an fp64 scan (the add in f64 is exact enough for a loose check).
    const fRef = scanReference('f32', (a, b) => Number(a) + Number(b), f32, exclusive, undefined, 0) as Float64Array;
    return [
      { name: `${name} u32`, run: () => run(u32), verify: (g: unknown) => compareArrays(g, scanReference('u32', cpuOp('u32', 'add'), u32, exclusive, undefined, cpuIdentity('u32', 'add')) as Uint32Array) },
      { name: `${name} f32`, run: () => run(f32), verify: (g: unknown) => compareArrays(g, fRef, looseSum) },
    ];
  }),
});
