// Reduce by key and run-length encode (runs with their lengths, and the non-trivial runs'
// offsets and lengths) on the by-key engine (src/device/scan-by-key/kernel.ts).
import { fail } from '../../runtime/errors.js';
import { type Operator } from '../../wgsl/operators.js';
import { type ElementType, typeInfo } from '../../wgsl/types.js';
import { arrayOfType, precheckArrayCall, type PrimTypedArray, typeOfArray } from '../typed-arrays.js';
import { type AlgorithmEnv, type ArrayEnv, type BenchmarkSpec, type ConfigTable, defineAlgorithm, type TuningSpec } from '../spec.js';
import { compareArrays } from '../reference.js';
import { type ByKeyReduceConfig } from './config.js';
import { runHeads } from '../scan-by-key/reference.js';
import { type NonTrivialRunsArgs, prepareNonTrivialRuns, prepareReduceByKey, prepareRunLengthEncode, type ReduceByKeyArgs, type RunLengthEncodeArgs } from './calls.js';
import { nonTrivialRunsReference, reduceByKeyReference } from './reference.js';
import { reduceByKeyTable, runLengthEncodeNonTrivialRunsTable, runLengthEncodeTable } from './table.js';

export interface ArrayReduceByKeyOptions {
  readonly op?: Operator;
  readonly equality?: string;
  /** Needed only for f16 (Uint16Array) keys or values. */
  readonly keyType?: ElementType;
  readonly valueType?: ElementType;
  readonly config?: Partial<ByKeyReduceConfig>;
}

export interface ArrayRunLengthOptions {
  readonly equality?: string;
  /** Needed only for f16 (Uint16Array). */
  readonly type?: ElementType;
  readonly config?: Partial<ByKeyReduceConfig>;
}

function calls(env: AlgorithmEnv) {
  const ctx = env.context;
  return {
    /** Records reduce by key: each run of equal keys' first key and its values combined, and the run count. */
    reduceByKey: async (encoder: GPUCommandEncoder, args: ReduceByKeyArgs): Promise<void> => (await prepareReduceByKey(ctx, env.rows(reduceByKeyTable), args))(encoder),
    /** Records run-length encode: each run's value and length, and the run count. */
    runLengthEncode: async (encoder: GPUCommandEncoder, args: RunLengthEncodeArgs): Promise<void> => (await prepareRunLengthEncode(ctx, env.rows(runLengthEncodeTable), args))(encoder),
    /** Records the offset and length of every run longer than one, and their count. */
    runLengthEncodeNonTrivialRuns: async (encoder: GPUCommandEncoder, args: NonTrivialRunsArgs): Promise<void> => (await prepareNonTrivialRuns(ctx, env.rows(runLengthEncodeNonTrivialRunsTable), args))(encoder),
  };
}

/** Uploads the inputs, makes the outputs (bytes each), runs `record`, reads the run count and `count` elements of each output. */
async function runWithCount(env: ArrayEnv, inputs: readonly ArrayBufferView[], outputBytes: readonly number[], elementBytes: readonly number[],
  record: (ins: GPUBuffer[], outs: GPUBuffer[], runCount: GPUBuffer) => (encoder: GPUCommandEncoder) => Promise<void>): Promise<{ runs: number; outs: ArrayBuffer[] }> {
  const made: GPUBuffer[] = [];
  const keep = (b: GPUBuffer): GPUBuffer => { made.push(b); return b; };
  try {
    const ins = inputs.map((d) => keep(env.upload(d)));
    const outs = outputBytes.map((b) => keep(env.buffer(Math.max(4, b))));
    const runCount = keep(env.buffer(4));
    const results = await env.runAll([[runCount, 4], ...outs.map((b, i): [GPUBuffer, number] => [b, outputBytes[i]!])], record(ins, outs, runCount));
    const runs = new Uint32Array(results[0]!)[0]!;
    return { runs, outs: results.slice(1).map((r, i) => r.slice(0, runs * elementBytes[i]!)) };
  } finally {
    for (const b of made) b.destroy();
  }
}

function arrays(env: ArrayEnv) {
  const ctx = env.context;
  const U32 = typeInfo('u32');
  return {
    /** Each run of equal keys: `{ keys, values }`, its first key and its values combined by `op`. */
    async reduceByKey<K extends PrimTypedArray, V extends PrimTypedArray>(keys: K, values: V, options: ArrayReduceByKeyOptions = {}): Promise<{ keys: K; values: V }> {
      if (!options || typeof options !== 'object') fail('invalid-argument', 'reduceByKey options must be an object');
      const keyType = typeOfArray(keys, options.keyType);
      const valueType = typeOfArray(values, options.valueType);
      if (keys.length !== values.length) fail('invalid-argument', `reduceByKey has ${keys.length} keys and ${values.length} values`);
      precheckArrayCall(env, reduceByKeyTable, { type: keyType, moreTypes: [valueType], config: options.config, valueBytes: typeInfo(valueType).bytes > 4 ? 8 : 4 });
      const n = keys.length;
      const [k, v] = [typeInfo(keyType), typeInfo(valueType)];
      const r = await runWithCount(env, [keys, values], [n * k.bytes, n * v.bytes], [k.bytes, v.bytes], ([kb, vb], [ko, vo], runCount) => async (enc) => (await prepareReduceByKey(ctx, env.rows(reduceByKeyTable), {
        keys: kb!, values: vb!, uniqueKeysOut: ko!, aggregatesOut: vo!, runCount, count: n, keyType, valueType, op: options.op, equality: options.equality, config: options.config,
      }))(enc));
      return { keys: arrayOfType(keyType, r.outs[0]!, r.runs) as K, values: arrayOfType(valueType, r.outs[1]!, r.runs) as V };
    },
    /** Each run of equal elements: `{ values, counts }`, its value and length. */
    async runLengthEncode<A extends PrimTypedArray>(data: A, options: ArrayRunLengthOptions = {}): Promise<{ values: A; counts: Uint32Array }> {
      if (!options || typeof options !== 'object') fail('invalid-argument', 'runLengthEncode options must be an object');
      const type = typeOfArray(data, options.type);
      precheckArrayCall(env, runLengthEncodeTable, { type, config: options.config });
      const n = data.length;
      const t = typeInfo(type);
      const r = await runWithCount(env, [data], [n * t.bytes, n * 4], [t.bytes, 4], ([input], [uniqueOut, countsOut], runCount) => async (enc) => (await prepareRunLengthEncode(ctx, env.rows(runLengthEncodeTable), {
        input: input!, uniqueOut: uniqueOut!, countsOut: countsOut!, runCount, count: n, type, equality: options.equality, config: options.config,
      }))(enc));
      return { values: arrayOfType(type, r.outs[0]!, r.runs) as A, counts: new Uint32Array(r.outs[1]!, 0, r.runs) };
    },
    /** The runs longer than one: `{ offsets, lengths }`. */
    async runLengthEncodeNonTrivialRuns(data: PrimTypedArray, options: ArrayRunLengthOptions = {}): Promise<{ offsets: Uint32Array; lengths: Uint32Array }> {
      if (!options || typeof options !== 'object') fail('invalid-argument', 'runLengthEncodeNonTrivialRuns options must be an object');
      const type = typeOfArray(data, options.type);
      precheckArrayCall(env, runLengthEncodeNonTrivialRunsTable, { type, config: options.config });
      const n = data.length;
      const most = Math.floor(n / 2) * U32.bytes;
      const r = await runWithCount(env, [data], [most, most], [4, 4], ([input], [offsetsOut, lengthsOut], runCount) => async (enc) => (await prepareNonTrivialRuns(ctx, env.rows(runLengthEncodeNonTrivialRunsTable), {
        input: input!, offsetsOut: offsetsOut!, lengthsOut: lengthsOut!, runCount, count: n, type, equality: options.equality, config: options.config,
      }))(enc));
      return { offsets: new Uint32Array(r.outs[0]!, 0, r.runs), lengths: new Uint32Array(r.outs[1]!, 0, r.runs) };
    },
  };
}

type Form = 'reduce_by_key' | 'run_length_encode' | 'run_length_encode_non_trivial_runs';
const TABLE: Record<Form, ConfigTable<ByKeyReduceConfig>> = { reduce_by_key: reduceByKeyTable, run_length_encode: runLengthEncodeTable, run_length_encode_non_trivial_runs: runLengthEncodeNonTrivialRunsTable };
const ANCHOR: Record<Form, string> = { reduce_by_key: 'reduce_by_key', run_length_encode: 'rle_encode', run_length_encode_non_trivial_runs: 'rle_non_trivial_runs' };

/** On runs of random length 1..7 (mean 4, as rocPRIM's benchmarks draw them); reduce by key with u32 values. */
const benchmark = (form: Form): BenchmarkSpec => ({
  name: form,
  anchor: ANCHOR[form],
  table: TABLE[form],
  input: 'runs',
  valueBytes: form === 'reduce_by_key' ? 4 : 0,
  needsTypeFeature: true,
  nameFields: (type): Readonly<Record<string, string>> => (form === 'reduce_by_key' ? { lvl: 'device', algo: form, key_type: type, value_type: 'u32' } : { lvl: 'device', algo: form, key_type: type }),
  bytesPerCall: (type, n) => {
    const s = typeInfo(type).bytes;
    const runs = n / 4;
    return form === 'reduce_by_key' ? n * (s + 4) + runs * (s + 4) : form === 'run_length_encode' ? n * s + runs * (s + 4) : n * s + runs * (6 / 7) * 8;
  },
  prepare: async (env, c, r) => {
    const config = c.config as unknown as ByKeyReduceConfig;
    const runCount = r.buffer('bykey.runCount', 4);
    const second = r.buffer('bykey.second', c.count * 4);
    const rows = env.rows(TABLE[form]);
    const record = form === 'reduce_by_key'
      ? await prepareReduceByKey(env.context, rows, { keys: c.input, values: (await r.values(c.count)).values, uniqueKeysOut: c.output, aggregatesOut: second, runCount, count: c.count, keyType: c.type, valueType: 'u32', config })
      : form === 'run_length_encode'
        ? await prepareRunLengthEncode(env.context, rows, { input: c.input, uniqueOut: c.output, countsOut: second, runCount, count: c.count, type: c.type, config })
        : await prepareNonTrivialRuns(env.context, rows, { input: c.input, offsetsOut: c.output, lengthsOut: second, runCount, count: c.count, type: c.type, config });
    return async (encoder) => record(encoder);
  },
});

const FORMS: readonly Form[] = ['reduce_by_key', 'run_length_encode', 'run_length_encode_non_trivial_runs'];
const tuning = (form: Form): TuningSpec => ({
  stage: form, table: TABLE[form], benchmarks: [form], defaultBenchmarks: [form],
  // 128 invocations came within 0.93x of the best on the H200 (every form).
  defaultSpace: { workgroupSize: [256, 512], itemsPerThread: [8, 12, 16], scatter: ['direct', 'staged'] },
  smallSpace: { workgroupSize: [128, 256], itemsPerThread: [8, 16], lookback: ['decoupled'], workgroupScan: ['subgroup'], scatter: ['direct'] },
  cost: { pipelines: (c) => (c.lookback === 'reduce-then-scan' ? 3 : 1), passes: (c) => (c.lookback === 'reduce-then-scan' ? 2 : 1) },
  fullCoverageCount: (c) => 2 * Number(c.workgroupSize) * Number(c.itemsPerThread) + 1,
});

export const reduceByKeyAlgorithm = defineAlgorithm({
  name: 'reduce-by-key',
  summary: 'reduce by key and run-length encode (runs and lengths, non-trivial runs): the by-key engine with a count look-back',
  tables: [reduceByKeyTable, runLengthEncodeTable, runLengthEncodeNonTrivialRunsTable],
  benchmarks: FORMS.map(benchmark),
  tuning: FORMS.map(tuning),
  calls,
  arrays,
  demo: (a, { u32 }) => {
    const keys = u32.map((x) => x >>> 30);
    const heads = runHeads(keys, (x, y) => x === y);
    const want = reduceByKeyReference('u32', 'u32', keys, u32, heads, (x, y) => ((x as number) + (y as number)) >>> 0);
    const runs = nonTrivialRunsReference(heads);
    return [
      { name: 'reduce_by_key u32 (4 keys)', run: async () => (await a.reduceByKey(keys, u32)).values, verify: (g: unknown) => compareArrays(g, want.values as Uint32Array) },
      { name: 'run_length_encode u32 (4 keys)', run: async () => (await a.runLengthEncode(keys)).values, verify: (g: unknown) => compareArrays(g, want.keys as Uint32Array) },
      { name: 'run_length_encode_non_trivial_runs u32', run: async () => (await a.runLengthEncodeNonTrivialRuns(keys)).lengths, verify: (g: unknown) => compareArrays(g, runs.lengths) },
    ];
  },
});
