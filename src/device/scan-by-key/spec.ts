// Scan by key and segmented scan (head flags or offsets), inclusive and exclusive, on the
// by-key engine (./kernel.ts).
import { fail } from '../../runtime/errors.js';
import { type Operator } from '../../wgsl/operators.js';
import { type ElementType, typeInfo } from '../../wgsl/types.js';
import { arrayOfType, precheckArrayCall, type PrimTypedArray, typeOfArray } from '../typed-arrays.js';
import { type AlgorithmEnv, type ArrayEnv, type BenchmarkSpec, defineAlgorithm } from '../spec.js';
import { compareArrays, cpuIdentity, cpuOp } from '../reference.js';
import { type ScanConfig } from '../scan/config.js';
import { scanTable } from '../scan/table.js';
import { type ByKeyConfig } from './config.js';
import { type InclusiveScanByKeyArgs, prepareScanByKey, prepareSegmentedScan, type ScanByKeyArgs, type SegmentedScanArgs } from './calls.js';
import { offsetHeads, runHeads, segmentedScanReference } from './reference.js';
import { scanByKeyTable } from './table.js';

/** `arrays.inclusiveScanByKey`'s options (no initial value: JavaScript callers that pass one get `invalid-argument`). */
export interface ArrayInclusiveScanByKeyOptions {
  readonly op?: Operator;
  readonly equality?: string;
  /** Needed only for f16 (Uint16Array) keys or values. */
  readonly keyType?: ElementType;
  readonly valueType?: ElementType;
  readonly config?: Partial<ByKeyConfig>;
}

/** `arrays.exclusiveScanByKey`'s options. */
export interface ArrayScanByKeyOptions extends ArrayInclusiveScanByKeyOptions {
  readonly initialValue?: number | bigint;
}

export interface ArraySegmentedScanOptions {
  readonly op?: Operator;
  readonly initialValue?: number | bigint;
  /** Needed only for f16 (Uint16Array). */
  readonly type?: ElementType;
  readonly config?: Partial<ScanConfig>;
}

/** Segments of an array-level segmented call: offsets (segments + 1 entries), or a u32 head flag per element. */
export type ArraySegments = Uint32Array | { readonly headFlags: Uint32Array };

function calls(env: AlgorithmEnv) {
  const byKey = async (encoder: GPUCommandEncoder, args: ScanByKeyArgs, exclusive: boolean): Promise<void> => (await prepareScanByKey(env.context, env.rows(scanByKeyTable), args, exclusive))(encoder);
  const segmented = async (encoder: GPUCommandEncoder, args: SegmentedScanArgs, exclusive: boolean): Promise<void> => (await prepareSegmentedScan(env.context, env.rows(scanTable), args, exclusive))(encoder);
  return {
    /** Records an inclusive scan of `values` that restarts where the key changes. */
    inclusiveScanByKey: (encoder: GPUCommandEncoder, args: InclusiveScanByKeyArgs): Promise<void> => byKey(encoder, args, false),
    /** Records an exclusive scan by key: each run's first output is the initial value (or the identity). */
    exclusiveScanByKey: (encoder: GPUCommandEncoder, args: ScanByKeyArgs): Promise<void> => byKey(encoder, args, true),
    /** Records an inclusive scan restarting at each segment (head flags or offsets). */
    segmentedInclusiveScan: (encoder: GPUCommandEncoder, args: SegmentedScanArgs): Promise<void> => segmented(encoder, args, false),
    /** Records an exclusive scan restarting at each segment (head flags or offsets). */
    segmentedExclusiveScan: (encoder: GPUCommandEncoder, args: SegmentedScanArgs): Promise<void> => segmented(encoder, args, true),
  };
}

/** Checks array-level offsets: at least one entry, non-decreasing, none past `n`. */
export function checkOffsets(what: string, offsets: Uint32Array, n: number, ends?: Uint32Array): void {
  if (!(offsets instanceof Uint32Array)) fail('invalid-argument', `${what}: offsets must be a Uint32Array`);
  if (ends !== undefined) {
    if (!(ends instanceof Uint32Array) || ends.length !== offsets.length) fail('invalid-argument', `${what}: endOffsets must be a Uint32Array as long as the offsets (${offsets.length})`);
    for (let i = 0; i < offsets.length; i++) {
      if (ends[i]! > n || offsets[i]! > n) fail('invalid-argument', `${what}: segment ${i} [${offsets[i]}, ${ends[i]}) reaches past the ${n} elements`);
      if (ends[i]! < offsets[i]!) fail('invalid-argument', `${what}: segment ${i} ends at ${ends[i]}, before its begin ${offsets[i]}`);
    }
    return;
  }
  if (offsets.length < 1) fail('invalid-argument', `${what}: offsets need at least one entry (segments + 1)`);
  for (let i = 0; i < offsets.length; i++) {
    if (offsets[i]! > n) fail('invalid-argument', `${what}: offset ${i} is ${offsets[i]}, past the ${n} elements`);
    if (i > 0 && offsets[i]! < offsets[i - 1]!) fail('invalid-argument', `${what}: offsets decrease at ${i} (${offsets[i - 1]} then ${offsets[i]})`);
  }
}

function arrays(env: ArrayEnv) {
  const byKey = async <A extends PrimTypedArray>(keys: PrimTypedArray, values: A, options: ArrayScanByKeyOptions, exclusive: boolean): Promise<A> => {
    const what = exclusive ? 'exclusiveScanByKey' : 'inclusiveScanByKey';
    if (!options || typeof options !== 'object') fail('invalid-argument', `${what} options must be an object`);
    const keyType = typeOfArray(keys, options.keyType);
    const valueType = typeOfArray(values, options.valueType);
    if (keys.length !== values.length) fail('invalid-argument', `${what} has ${keys.length} keys and ${values.length} values`);
    precheckArrayCall(env, scanByKeyTable, { type: keyType, moreTypes: [valueType], config: options.config, valueBytes: typeInfo(valueType).bytes > 4 ? 8 : 4 });
    const bufs = [env.upload(keys), env.upload(values), env.buffer(values.byteLength)];
    try {
      const args: ScanByKeyArgs = { keys: bufs[0]!, values: bufs[1]!, output: bufs[2]!, count: values.length, keyType, valueType, op: options.op, equality: options.equality, initialValue: options.initialValue, config: options.config };
      const [r] = await env.runAll([[bufs[2]!, values.byteLength]], async (enc) => (await prepareScanByKey(env.context, env.rows(scanByKeyTable), args, exclusive))(enc));
      return arrayOfType(valueType, r!, values.length) as A;
    } finally {
      for (const b of bufs) b.destroy();
    }
  };
  const segmented = async <A extends PrimTypedArray>(values: A, segments: ArraySegments, options: ArraySegmentedScanOptions, exclusive: boolean): Promise<A> => {
    const what = exclusive ? 'segmentedExclusiveScan' : 'segmentedInclusiveScan';
    if (!options || typeof options !== 'object') fail('invalid-argument', `${what} options must be an object`);
    const type = typeOfArray(values, options.type);
    const n = values.length;
    const flags = segments instanceof Uint32Array ? undefined : segments?.headFlags;
    if (segments instanceof Uint32Array) checkOffsets(what, segments, n);
    else if (!(flags instanceof Uint32Array)) fail('invalid-argument', `${what}: segments must be a Uint32Array of offsets or { headFlags: Uint32Array }`);
    else if (flags.length < n) fail('invalid-argument', `${what}: headFlags holds ${flags.length} entries for ${n} elements`);
    precheckArrayCall(env, scanTable, { type, op: options.op, useOp: true, initialValue: options.initialValue, config: options.config });
    // Elements outside every segment keep their input values: the output starts as a copy.
    const bufs = [env.upload(values), env.upload(values), env.upload(segments instanceof Uint32Array ? segments : flags!)];
    try {
      const args: SegmentedScanArgs = {
        input: bufs[0]!, output: bufs[1]!, count: n, type, op: options.op, initialValue: options.initialValue, config: options.config,
        ...(segments instanceof Uint32Array ? { beginOffsets: bufs[2]!, segments: segments.length - 1 } : { headFlags: bufs[2]! }),
      };
      const [r] = await env.runAll([[bufs[1]!, values.byteLength]], async (enc) => (await prepareSegmentedScan(env.context, env.rows(scanTable), args, exclusive))(enc));
      return arrayOfType(type, r!, n) as A;
    } finally {
      for (const b of bufs) b.destroy();
    }
  };
  return {
    /** Inclusive scan of `values` restarting where `keys` change: a new array. */
    inclusiveScanByKey: <A extends PrimTypedArray>(keys: PrimTypedArray, values: A, options: ArrayInclusiveScanByKeyOptions = {}): Promise<A> => byKey(keys, values, options, false),
    /** Exclusive scan by key: a new array. */
    exclusiveScanByKey: <A extends PrimTypedArray>(keys: PrimTypedArray, values: A, options: ArrayScanByKeyOptions = {}): Promise<A> => byKey(keys, values, options, true),
    /** Inclusive scan within segments (offsets, or `{ headFlags }`): a new array. */
    segmentedInclusiveScan: <A extends PrimTypedArray>(values: A, segments: ArraySegments, options: ArraySegmentedScanOptions = {}): Promise<A> => segmented(values, segments, options, false),
    /** Exclusive scan within segments: a new array. */
    segmentedExclusiveScan: <A extends PrimTypedArray>(values: A, segments: ArraySegments, options: ArraySegmentedScanOptions = {}): Promise<A> => segmented(values, segments, options, true),
  };
}

/** Scan by key on runs of random length 1..7 (the keys, as rocPRIM's benchmark draws them) with u32 values. */
const byKeyBenchmark = (exclusive: boolean): BenchmarkSpec => ({
  name: exclusive ? 'exclusive_scan_by_key' : 'inclusive_scan_by_key',
  table: scanByKeyTable,
  input: 'runs',
  valueBytes: 4,
  needsTypeFeature: true,
  nameFields: (type) => ({ lvl: 'device', algo: 'scan_by_key', exclusive, key_type: type, value_type: 'u32' }),
  bytesPerCall: (type, n) => n * (typeInfo(type).bytes + 8),
  prepare: async (env, c, r) => {
    const { values } = await r.values(c.count);
    const out = r.buffer('scan-by-key.out', c.count * 4);
    const record = await prepareScanByKey(env.context, env.rows(scanByKeyTable), {
      keys: c.input, values, output: out, count: c.count, keyType: c.type, valueType: 'u32', config: c.config as unknown as ByKeyConfig,
    }, exclusive);
    return async (encoder) => record(encoder);
  },
});

/** Segmented inclusive scan over fixed 1024-element segments given by offsets (rocPRIM has no such benchmark; compared with scan's GB/s). */
const segmentedBenchmark: BenchmarkSpec = {
  name: 'segmented_inclusive_scan',
  anchor: null,
  table: scanTable,
  input: 'values',
  valueBytes: 0,
  needsTypeFeature: true,
  nameFields: (type) => ({ lvl: 'device', algo: 'segmented_scan', exclusive: false, value_type: type, segment: 1024 }),
  bytesPerCall: (type, n) => 2 * n * typeInfo(type).bytes,
  prepare: async (env, c, r) => {
    const begins = await r.segmentOffsets(c.count, 1024);
    const record = await prepareSegmentedScan(env.context, env.rows(scanTable), {
      input: c.input, output: c.output, count: c.count, type: c.type, beginOffsets: begins, segments: Math.ceil(c.count / 1024), config: c.config as unknown as ScanConfig,
    }, false);
    return async (encoder) => record(encoder);
  },
};

export const scanByKeyAlgorithm = defineAlgorithm({
  name: 'scan-by-key',
  summary: 'scan by key and segmented scan (head flags or offsets), inclusive and exclusive: one segmented look-back engine',
  tables: [scanByKeyTable],
  benchmarks: [byKeyBenchmark(false), byKeyBenchmark(true), segmentedBenchmark],
  tuning: [{
    stage: 'scan_by_key', table: scanByKeyTable, benchmarks: ['inclusive_scan_by_key', 'exclusive_scan_by_key'], defaultBenchmarks: ['inclusive_scan_by_key'],
    defaultSpace: { workgroupSize: [128, 256, 512], itemsPerThread: [8, 12, 16] },
    smallSpace: { workgroupSize: [128, 256], itemsPerThread: [8, 16], lookback: ['decoupled'], workgroupScan: ['subgroup'] },
    // The kernel and the look-back state's clear; reduce-then-scan adds its first pass and the partials' scan.
    cost: { pipelines: (c) => (c.lookback === 'reduce-then-scan' ? 3 : 1), passes: (c) => (c.lookback === 'reduce-then-scan' ? 2 : 1) },
    fullCoverageCount: (c) => 2 * Number(c.workgroupSize) * Number(c.itemsPerThread) + 1,
  }],
  calls,
  arrays,
  demo: (a, { u32 }) => {
    const keys = u32.map((x) => x >>> 30);
    const heads = runHeads(keys, (x, y) => x === y);
    const ref = (exclusive: boolean): Uint32Array => segmentedScanReference('u32', cpuOp('u32', 'add'), u32, heads, exclusive, undefined, cpuIdentity('u32', 'add')) as Uint32Array;
    const offsets = Uint32Array.from({ length: Math.floor(u32.length / 1000) + 1 }, (_, i) => Math.min(i * 1000, u32.length));
    const seg = offsetHeads(u32.length, offsets);
    return [
      { name: 'inclusive_scan_by_key u32 (4 keys)', run: () => a.inclusiveScanByKey(keys, u32), verify: (g: unknown) => compareArrays(g, ref(false)) },
      { name: 'exclusive_scan_by_key u32 (4 keys)', run: () => a.exclusiveScanByKey(keys, u32), verify: (g: unknown) => compareArrays(g, ref(true)) },
      {
        name: 'segmented_inclusive_scan u32 (1000-element segments)', run: () => a.segmentedInclusiveScan(u32, offsets),
        verify: (g: unknown) => compareArrays(g, segmentedScanReference('u32', cpuOp('u32', 'add'), u32, seg.heads, false, undefined, 0, seg.inside, u32) as Uint32Array),
      },
    ];
  },
});
