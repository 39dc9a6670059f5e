// The device-wide transform: `output[i] = f(a[i])` or `f(a[i], b[i])` for a WGSL expression.
import { fail } from '../../runtime/errors.js';
import { type ElementType, typeInfo } from '../../wgsl/types.js';
import { arrayOfType, precheckArrayCall, type PrimTypedArray, typeOfArray } from '../typed-arrays.js';
import { type AlgorithmEnv, type ArrayEnv, defineAlgorithm } from '../spec.js';
import { compareArrays } from '../reference.js';
import { type TransformConfig } from './config.js';
import { recordTransform, type TransformArgs } from './transform.js';
import { transformTable } from './table.js';

export interface ArrayTransformOptions {
  /** WGSL expression over `a` (and `b` when `b` is given). */
  readonly expression: string;
  readonly b?: PrimTypedArray;
  readonly type?: ElementType;
  readonly type2?: ElementType;
  readonly outputType?: ElementType;
  readonly config?: Partial<TransformConfig>;
}

/** The benchmark's expression: one ALU op, no helper functions. */
export function transformExpression(type: ElementType): string {
  switch (type) {
    case 'u32': return 'a + 1u';
    case 'i32': return 'a + 1i';
    case 'f32': return 'a + 1.0f';
    case 'f16': return 'a + 1.0h';
    case 'u64': case 'i64': return 'a ^ vec2<u32>(1u, 0u)';
  }
}

function transformCalls(env: AlgorithmEnv) {
  return {
    /** Records `output[i] = f(a[i])` or `f(a[i], b[i])` for a WGSL expression. */
    transform(encoder: GPUCommandEncoder, args: TransformArgs): Promise<void> {
      return recordTransform(env.context, env.rows(transformTable), encoder, args);
    },
  };
}

async function arrayTransform(env: ArrayEnv, data: PrimTypedArray, options: ArrayTransformOptions): Promise<PrimTypedArray> {
  if (!options || typeof options !== 'object') fail('invalid-operator', 'transform needs options { expression }: a WGSL expression over a (and b)');
  const type = typeOfArray(data, options.type);
  const type2 = options.b ? typeOfArray(options.b, options.type2 ?? (options.b instanceof Uint16Array ? 'f16' : undefined)) : undefined;
  if (options.b && options.b.length !== data.length) fail('invalid-argument', `transform inputs differ in length (${data.length} and ${options.b.length})`);
  const outputType = options.outputType ?? type;
  precheckArrayCall(env, transformTable, { type, config: options.config, moreTypes: [type2, outputType] });
  if (typeof options.expression !== 'string' || !options.expression.trim()) fail('invalid-operator', 'transform needs `expression`: a WGSL expression over a (and b)');
  const outBytes = data.length * typeInfo(outputType).bytes;
  const input = env.upload(data);
  const input2 = options.b ? env.upload(options.b) : undefined;
  const output = env.buffer(outBytes);
  try {
    const args = { input, input2, output, count: data.length, type, type2, outputType, expression: options.expression, config: options.config };
    const [result] = await env.runAll([[output, outBytes]], (enc) => recordTransform(env.context, env.rows(transformTable), enc, args));
    return arrayOfType(outputType, result!, data.length);
  } finally {
    input.destroy();
    input2?.destroy();
    output.destroy();
  }
}

export const transformAlgorithm = defineAlgorithm({
  name: 'transform',
  summary: 'element-wise map of one or two arrays by a WGSL expression',
  tables: [transformTable],
  benchmarks: [{
    name: 'transform',
    table: transformTable,
    input: 'values',
    valueBytes: 0,
    needsTypeFeature: true,
    nameFields: (type) => ({ lvl: 'device', algo: 'transform', value_type: type }),
    bytesPerCall: (type, n) => 2 * n * transformTable.keyInfo(type).bytes,
    prepare: async (env, c) => {
      const args = { input: c.input, output: c.output, count: c.count, type: c.type, expression: transformExpression(c.type), config: c.config as unknown as TransformConfig };
      return (encoder) => recordTransform(env.context, env.rows(transformTable), encoder, args);
    },
  }],
  tuning: [{
    stage: 'transform', table: transformTable, benchmarks: ['transform'], defaultBenchmarks: ['transform'],
    defaultSpace: { workgroupSize: [128, 256, 512], itemsPerThread: [4, 8, 16] },
    smallSpace: { workgroupSize: [128, 256], itemsPerThread: [4, 8, 16] },
    cost: { pipelines: () => 1, passes: () => 1 },
    fullCoverageCount: (c) => Number(c.workgroupSize) * Number(c.itemsPerThread) + 1,
  }],
  calls: transformCalls,
  arrays: (env: ArrayEnv) => ({
    /** `f(a[i])` (or `f(a[i], b[i])`) for every element: a new array of the output type. */
    transform: (data: PrimTypedArray, options: ArrayTransformOptions): Promise<PrimTypedArray> => arrayTransform(env, data, options),
  }),
  demo: (arrays, { u32, f32 }) => [
    { name: 'transform u32 (a * 3u + 1u)', run: () => arrays.transform(u32, { expression: 'a * 3u + 1u' }), verify: (g: unknown) => compareArrays(g, u32.map((x) => Math.imul(x, 3) + 1)) },
    { name: 'transform f32 (a * 2.0 + 1.0)', run: () => arrays.transform(f32, { expression: 'a * 2.0 + 1.0' }), verify: (g: unknown) => compareArrays(g, f32.map((x) => x * 2 + 1), (w) => 1e-6 * Math.abs(w)) },
  ],
});
