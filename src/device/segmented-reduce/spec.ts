// Segmented reduce: one result per segment (offsets as segmentedRadixSortKeys takes them), on
// reduce's tuned table as rocPRIM runs it.
import { type DeviceContext, checkCount } from '../../runtime/context.js';
import { fail } from '../../runtime/errors.js';
import { isSoftwareAdapter } from '../../runtime/target.js';
import { type Operator, resolveOperator } from '../../wgsl/operators.js';
import { type ElementType, typeInfo } from '../../wgsl/types.js';
import { encodeValue } from '../../wgsl/values.js';
import { arrayOfType, precheckArrayCall, type PrimTypedArray, typeOfArray } from '../typed-arrays.js';
import { type AlgorithmEnv, type ArrayEnv, type BenchmarkSpec, defineAlgorithm } from '../spec.js';
import { compareArrays, cpuIdentity, cpuOp } from '../reference.js';
import { segmentedReduceReference } from './reference.js';
import { selectFromTable } from '../select.js';
import { type ReduceConfig } from '../reduce/config.js';
import { reduceTable } from '../reduce/table.js';
import { checkOffsets } from '../scan-by-key/spec.js';
import { checkDistinct } from '../scan-by-key/engine.js';
import { type ScanRows } from '../scan-by-key/calls.js';
import { PARTS_WORKGROUP, type SegmentedReducePath, segmentedReduceKernel, segmentedReducePartsKernel, segmentsPerWorkgroup } from './kernel.js';

export interface SegmentedReduceArgs {
  readonly input: GPUBuffer;
  /** Receives one value per segment. */
  readonly output: GPUBuffer;
  /** u32 first element of each segment: `segments + 1` entries without `endOffsets`, else `segments`. */
  readonly beginOffsets: GPUBuffer;
  /** u32 one past each segment's last element. */
  readonly endOffsets?: GPUBuffer;
  readonly segments: number;
  readonly type: ElementType;
  /** Elements of `input` the offsets index (default: as many as the buffer holds). */
  readonly count?: number;
  /** Defaults to `add`; assumed commutative, as the device reduce assumes. */
  readonly op?: Operator;
  /** Combined into every segment's result; an empty segment's result (default the identity). */
  readonly initialValue?: number | bigint;
  readonly config?: Partial<ReduceConfig>;
  /**
   * Who reduces a segment. By default chosen from the mean segment length, count / segments:
   * up to two of the config's tiles (workgroupSize x itemsPerThread elements) a group of
   * invocations (a subgroup) a segment with several segments a workgroup (no workgroup barrier,
   * one launch for several segments); longer, a workgroup a segment while the segments fill the
   * config's `maxWorkgroups`, else (`split`, on GPUs) several workgroups a segment, each folding
   * an equal share of it, and a second pass folding the shares.
   */
  readonly path?: SegmentedReducePath;
}

/**
 * The path a call takes: its own, else by the mean segment length and the segments' count
 * (SegmentedReduceArgs.path). A CPU adapter (`software`) runs a few workgroups at a time, so
 * splitting gains it nothing: on lavapipe (2 cores) one segment of 2^22 u32 took 7.4-8.1 ms split
 * and 4.4 ms a workgroup, four segments 8.4-9.7 against 5.5-5.7.
 */
export function segmentedReducePath(c: ReduceConfig, count: number, segments: number, path?: SegmentedReducePath, software = false): SegmentedReducePath {
  if (path !== undefined) {
    if (path !== 'group' && path !== 'workgroup' && path !== 'split') fail('invalid-argument', `segmentedReduce: path must be 'group', 'workgroup' or 'split', got ${String(path)}`);
    return path;
  }
  if (count <= 2 * c.workgroupSize * c.itemsPerThread * segments) return 'group';
  return !software && 2 * segments <= c.maxWorkgroups ? 'split' : 'workgroup';
}

/**
 * Workgroups a segment of the split path: enough for the config's `maxWorkgroups` in all, and no
 * more than the mean segment has tiles; at most 65,535 (so segments x parts stays below
 * maxWorkgroups + segments, within a u32).
 */
export function splitParts(c: ReduceConfig, count: number, segments: number): number {
  const tile = c.workgroupSize * c.itemsPerThread;
  return Math.max(1, Math.min(Math.ceil(c.maxWorkgroups / Math.max(segments, 1)), Math.ceil(count / Math.max(segments, 1) / tile), 65535));
}

export interface ArraySegmentedReduceOptions {
  readonly op?: Operator;
  readonly initialValue?: number | bigint;
  /** With end offsets, `offsets` holds one begin per segment. */
  readonly endOffsets?: Uint32Array;
  readonly type?: ElementType;
  readonly config?: Partial<ReduceConfig>;
  /** As the call's `path`. */
  readonly path?: SegmentedReducePath;
}

export async function prepareSegmentedReduce(ctx: DeviceContext, rows: ScanRows<ReduceConfig>, args: SegmentedReduceArgs): Promise<(encoder: GPUCommandEncoder) => void> {
  const what = 'segmentedReduce';
  ctx.assertAlive();
  if (!args || typeof args !== 'object') fail('invalid-argument', `${what} needs an argument object { input, output, beginOffsets, endOffsets?, segments, type }`);
  const t = typeInfo(args.type);
  ctx.requireTypeFeature(t);
  const op = resolveOperator(args.op ?? 'add', t);
  const init = encodeValue(t, args.initialValue ?? 0, 'initialValue');
  const { segments } = args;
  if (typeof segments !== 'number' || !Number.isInteger(segments) || segments < 0 || segments > 0xfffffffe) fail('invalid-argument', `${what}: segments must be a non-negative integer below 2^32 - 1, got ${String(segments)}`);
  ctx.checkBuffer(`${what} input`, args.input, 0, t);
  const count = args.count ?? Math.floor(args.input.size / t.bytes);
  checkCount(count);
  ctx.checkBuffer(`${what} input`, args.input, count, t);
  ctx.checkBuffer(`${what} output`, args.output, segments, t);
  const U32 = typeInfo('u32');
  const shift = args.endOffsets ? 0 : 1;
  ctx.checkBuffer(`${what} beginOffsets`, args.beginOffsets, segments + shift, U32);
  if (args.endOffsets) ctx.checkBuffer(`${what} endOffsets`, args.endOffsets, segments, U32);
  checkDistinct(what, [['output', args.output], ['input', args.input]]);
  checkDistinct(what, [['output', args.output], ['beginOffsets', args.beginOffsets]]);
  checkDistinct(what, [['output', args.output], ['endOffsets', args.endOffsets]]);
  const { config } = selectFromTable(ctx, reduceTable, rows, args.type, 0, args.config);
  const path = segmentedReducePath(config, count, segments, args.path, isSoftwareAdapter(ctx.target));
  const parts = path === 'split' ? splitParts(config, count, segments) : 1;
  const kernel = segmentedReduceKernel(t, op, config, path);
  const partsKernel = path === 'split' ? segmentedReducePartsKernel(t, op) : undefined;
  const workgroups = path === 'group' ? Math.ceil(segments / segmentsPerWorkgroup(config)) : segments * parts;
  const [pipeline, partsPipeline] = await Promise.all([ctx.pipeline(kernel), partsKernel ? ctx.pipeline(partsKernel) : undefined]);
  const initWords: readonly [number, number] = args.initialValue === undefined ? [0, 0] : init;
  const hasInit = args.initialValue === undefined ? 0 : 1;
  /** An output of `n` elements from binding `slot`: a view's two bindings for 2-byte types, else one. */
  const outputEntries = (buffer: GPUBuffer, n: number, slot: number): { tailStart: number; entries: GPUBufferBinding[] } => {
    const view = ctx.view(buffer, n, t, slot);
    return { tailStart: view.tailStart, entries: t.bytes === 2 ? view.entries : [{ buffer, offset: 0, size: n * t.bytes }] };
  };
  return (encoder) => {
    if (segments === 0) return;
    const input = ctx.view(args.input, count, t, 1);
    const begins = { buffer: args.beginOffsets, offset: 0, size: (segments + shift) * 4 };
    const ends = args.endOffsets ? { buffer: args.endOffsets, offset: 0, size: segments * 4 } : begins;
    // The split path's first pass writes segments x parts partials into scratch, the second the output.
    const partials = partsKernel ? ctx.scratch('segmented-reduce.partials', segments * parts * t.bytes + 16) : args.output;
    const out = outputEntries(partials, segments * parts, 5);
    const params = ctx.uniform(new Uint32Array([segments, count, shift, input.tailStart, out.tailStart, hasInit, ...initWords, parts]));
    ctx.dispatch(encoder, kernel.label, pipeline, ctx.bindGroup(pipeline, kernel.key, [{ buffer: params }, ...input.entries, begins, ends, ...out.entries]), workgroups);
    if (!partsKernel || !partsPipeline) return;
    const partsIn = ctx.view(partials, segments * parts, t, 1);
    const result = outputEntries(args.output, segments, 3);
    const partsParams = ctx.uniform(new Uint32Array([segments, segments * parts, 0, partsIn.tailStart, result.tailStart, hasInit, ...initWords, parts]));
    ctx.dispatch(encoder, partsKernel.label, partsPipeline, ctx.bindGroup(partsPipeline, partsKernel.key, [{ buffer: partsParams }, ...partsIn.entries, ...result.entries]), Math.ceil(segments / PARTS_WORKGROUP));
  };
}

/** Begin offsets (segments + 1) of segments of random length in [1, 1999] (mean 1000, CUB's variable anchor), seeded. */
function variableOffsets(count: number): Uint32Array<ArrayBuffer> {
  let x = 20261202;
  const next = (): number => { x = (Math.imul(x, 1664525) + 1013904223) >>> 0; return x / 2 ** 32; };
  const out = [0];
  while (out[out.length - 1]! < count) out.push(Math.min(count, out[out.length - 1]! + 1 + Math.floor(next() * 1999)));
  return Uint32Array.from(out);
}

/** Segments of a benchmark: a fixed length, random lengths of a mean (1..1999 for 1000), or a few equal ones over the input. */
type SegmentShape = { readonly length: number } | { readonly mean: 1000 } | { readonly count: number };

const segmentsOf = (shape: SegmentShape, n: number): number =>
  'length' in shape ? Math.ceil(n / shape.length) : 'count' in shape ? shape.count : Math.ceil(n / shape.mean);

const benchmark = (name: string, shape: SegmentShape): BenchmarkSpec => ({
  name,
  // CUB's anchors time fixed and variable lengths only.
  anchor: 'count' in shape ? null : 'segmented_reduce',
  table: reduceTable,
  input: 'values',
  valueBytes: 0,
  needsTypeFeature: true,
  // The anchors' type names the segments: `u32/seg1024`, `u32/segvar_avg1000` (src/cli/table.ts).
  nameFields: (type) => ({
    lvl: 'device', algo: 'segmented_reduce', value_type: type,
    ...('length' in shape ? { segment_length: shape.length } : 'count' in shape ? { segments: shape.count } : { segment_mean: shape.mean }),
  }),
  bytesPerCall: (type, n) => n * typeInfo(type).bytes + segmentsOf(shape, n) * (4 + typeInfo(type).bytes),
  prepare: async (env, c, r) => {
    let beginOffsets: GPUBuffer;
    let segments: number;
    if ('length' in shape) {
      beginOffsets = await r.segmentOffsets(c.count, shape.length);
      segments = segmentsOf(shape, c.count);
    } else {
      const offsets = 'count' in shape
        ? Uint32Array.from({ length: shape.count + 1 }, (_, i) => Math.floor((i * c.count) / shape.count))
        : variableOffsets(c.count);
      beginOffsets = r.buffer(`segmented-reduce.offsets.${name}.${c.count}`, offsets.byteLength);
      r.device.queue.writeBuffer(beginOffsets, 0, offsets);
      segments = offsets.length - 1;
    }
    const record = await prepareSegmentedReduce(env.context, env.rows(reduceTable), {
      input: c.input, output: c.output, count: c.count, type: c.type, beginOffsets, segments, config: c.config as unknown as ReduceConfig,
    });
    return async (encoder) => record(encoder);
  },
});

export const segmentedReduceAlgorithm = defineAlgorithm({
  name: 'segmented-reduce',
  summary: 'segmented reduce: one result per segment given by offsets (a subgroup, a workgroup or several workgroups a segment), on reduce\'s tuned table',
  tables: [],
  // Four segments over the whole input: the few long segments the split path serves.
  benchmarks: [benchmark('segmented_reduce', { length: 1024 }), benchmark('segmented_reduce_variable', { mean: 1000 }), benchmark('segmented_reduce_few', { count: 4 })],
  tuning: [],
  calls: (env: AlgorithmEnv) => ({
    /** Records one reduction per segment into `output` (an empty segment gets the initial value). */
    segmentedReduce: async (encoder: GPUCommandEncoder, args: SegmentedReduceArgs): Promise<void> => (await prepareSegmentedReduce(env.context, env.rows(reduceTable), args))(encoder),
  }),
  arrays: (env: ArrayEnv) => ({
    /** One value per segment: `offsets.length - 1` segments, or `offsets.length` with `endOffsets`. */
    async segmentedReduce<A extends PrimTypedArray>(values: A, offsets: Uint32Array, options: ArraySegmentedReduceOptions = {}): Promise<A> {
      if (!options || typeof options !== 'object') fail('invalid-argument', 'segmentedReduce options must be an object');
      const type = typeOfArray(values, options.type);
      checkOffsets('segmentedReduce', offsets, values.length, options.endOffsets);
      precheckArrayCall(env, reduceTable, { type, op: options.op, useOp: true, initialValue: options.initialValue, config: options.config });
      const segments = options.endOffsets ? offsets.length : offsets.length - 1;
      const bytes = typeInfo(type).bytes;
      const bufs = [env.upload(values.length ? values : new Uint32Array(2)), env.buffer(Math.max(4, segments * bytes)), env.upload(offsets), ...(options.endOffsets ? [env.upload(options.endOffsets)] : [])];
      try {
        const args: SegmentedReduceArgs = { input: bufs[0]!, output: bufs[1]!, beginOffsets: bufs[2]!, endOffsets: bufs[3], segments, count: values.length, type, op: options.op, initialValue: options.initialValue, config: options.config, path: options.path };
        const [r] = await env.runAll([[bufs[1]!, Math.ceil((segments * bytes) / 4) * 4]], async (enc) => (await prepareSegmentedReduce(env.context, env.rows(reduceTable), args))(enc));
        return arrayOfType(type, r!, segments) as A;
      } finally {
        for (const b of bufs) b.destroy();
      }
    },
  }),
  demo: (a, { u32 }) => {
    const offsets = Uint32Array.from({ length: Math.floor(u32.length / 1024) + 1 }, (_, i) => i * 1024);
    return [{
      name: 'segmented_reduce u32 (1024-element segments)', run: () => a.segmentedReduce(u32, offsets),
      verify: (g: unknown) => compareArrays(g, segmentedReduceReference('u32', cpuOp('u32', 'add'), u32, offsets, undefined, cpuIdentity('u32', 'add')) as Uint32Array),
    }];
  },
});
