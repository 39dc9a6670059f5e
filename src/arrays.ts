import { WgprimError, fail } from './runtime/errors.js';
import { roundUp } from './runtime/dispatch.js';
import { type Operator, resolveOperator } from './wgsl/operators.js';
import { type ElementType, typeInfo } from './wgsl/types.js';
import { encodeValue, f16Value } from './wgsl/values.js';
import { type ScanConfig } from './device/scan/config.js';
import { type ReduceConfig } from './device/reduce/config.js';
import { type TransformConfig } from './device/transform/config.js';
import { type RadixSortConfig } from './device/radix-sort/config.js';
import { type SegmentedRadixSortConfig } from './device/segmented-radix-sort/config.js';
import { type RadixSortBlockSortConfig } from './device/radix-sort/block-sort-config.js';
import { radixBitRange, radixKeyInfo, type RadixSortKeyType } from './device/radix-sort/radix-sort.js';
import type { Prim } from './prim.js';

/** Typed arrays the array-level API takes; Uint16Array holds f16 bits and needs `{ type: 'f16' }`. */
export type PrimTypedArray = Uint32Array | Int32Array | Float32Array | Uint16Array | BigUint64Array | BigInt64Array;

/** The element type a typed array holds. */
export function typeOfArray(data: unknown, explicit?: ElementType): ElementType {
  let type: ElementType | undefined;
  if (data instanceof Uint32Array) type = 'u32';
  else if (data instanceof Int32Array) type = 'i32';
  else if (data instanceof Float32Array) type = 'f32';
  else if (data instanceof BigUint64Array) type = 'u64';
  else if (data instanceof BigInt64Array) type = 'i64';
  else if (data instanceof Uint16Array) {
    if (explicit !== 'f16') throw new WgprimError('unsupported-type', 'a Uint16Array is read as f16 bits: pass { type: "f16" }');
    type = 'f16';
  }
  if (!type) {
    throw new WgprimError('unsupported-type', 'pass a Uint32Array, Int32Array, Float32Array, BigUint64Array, BigInt64Array, or a Uint16Array of f16 bits with { type: "f16" }');
  }
  if (explicit !== undefined && explicit !== type) {
    throw new WgprimError('unsupported-type', `a ${data!.constructor.name} holds ${type}, not ${explicit}`);
  }
  return type;
}

function arrayOfType(type: ElementType, buffer: ArrayBuffer, count: number): PrimTypedArray {
  switch (type) {
    case 'u32': return new Uint32Array(buffer, 0, count);
    case 'i32': return new Int32Array(buffer, 0, count);
    case 'f32': return new Float32Array(buffer, 0, count);
    case 'f16': return new Uint16Array(buffer, 0, count);
    case 'u64': return new BigUint64Array(buffer, 0, count);
    case 'i64': return new BigInt64Array(buffer, 0, count);
  }
}

export interface ArrayScanOptions {
  readonly op?: Operator;
  /** Needed only for f16 (Uint16Array). */
  readonly type?: ElementType;
  readonly initialValue?: number | bigint;
  readonly config?: Partial<ScanConfig>;
}
export interface ArrayReduceOptions {
  readonly op?: Operator;
  readonly type?: ElementType;
  readonly initialValue?: number | bigint;
  readonly config?: Partial<ReduceConfig>;
}
export interface ArrayTransformOptions {
  /** WGSL expression over `a` (and `b` when `b` is given). */
  readonly expression: string;
  readonly b?: PrimTypedArray;
  readonly type?: ElementType;
  readonly type2?: ElementType;
  readonly outputType?: ElementType;
  readonly config?: Partial<TransformConfig>;
}

export interface ArrayRadixSortOptions {
  /** Needed only for f16 keys (a Uint16Array of f16 bits). */
  readonly type?: 'f16';
  readonly descending?: boolean;
  /** Integer keys only: sort by bits [beginBit, endBit). */
  readonly beginBit?: number;
  readonly endBit?: number;
  /** The onesweep / LSD path's config (counts above the block sort's maxCount). */
  readonly config?: Partial<RadixSortConfig>;
  /** The small-size path's config (block sort + merge; `maxCount: 0` forces onesweep). */
  readonly blockSortConfig?: Partial<RadixSortBlockSortConfig>;
}

/** Options of `segmentedRadixSortKeys` / `segmentedRadixSortPairs`. */
export interface ArraySegmentedRadixSortOptions {
  /** Ends of the segments (as many as the offsets); omitted: segment i is [offsets[i], offsets[i + 1]). */
  readonly endOffsets?: Uint32Array;
  /** Needed only for f16 keys (a Uint16Array of f16 bits). */
  readonly type?: 'f16';
  readonly descending?: boolean;
  /** Integer keys only: sort by bits [beginBit, endBit). */
  readonly beginBit?: number;
  readonly endBit?: number;
  readonly config?: Partial<SegmentedRadixSortConfig>;
}

/** Values a pair sort moves: any 4- or 8-byte typed array. */
export type RadixSortValueArray = Uint32Array | Int32Array | Float32Array | BigUint64Array | BigInt64Array | Float64Array;

/**
 * Array-level API: typed arrays in, typed arrays (or a value) out. Each call uploads, runs,
 * reads back and frees its buffers: for scripts, docs and tests, not for hot loops.
 */
export class ArrayApi {
  constructor(private readonly prim: Prim) {}

  inclusiveScan<A extends PrimTypedArray>(data: A, options: ArrayScanOptions = {}): Promise<A> {
    return this.scan(data, options, false);
  }
  exclusiveScan<A extends PrimTypedArray>(data: A, options: ArrayScanOptions = {}): Promise<A> {
    return this.scan(data, options, true);
  }

  async reduce(data: PrimTypedArray, options: ArrayReduceOptions = {}): Promise<number | bigint> {
    const type = typeOfArray(data, options.type);
    this.precheck('reduce', type, options.op, options.initialValue, options.config);
    const input = this.upload(data);
    const output = this.buffer(8);
    try {
      const result = await this.run(output, 8, (enc) => this.prim.reduce(enc, { input, output, count: data.length, type, op: options.op, initialValue: options.initialValue, config: options.config }));
      const value = arrayOfType(type, result, 1)[0]!;
      return type === 'f16' ? f16Value(value as number) : value;
    } finally {
      input.destroy();
      output.destroy();
    }
  }

  async transform(data: PrimTypedArray, options: ArrayTransformOptions): Promise<PrimTypedArray> {
    const type = typeOfArray(data, options.type);
    const type2 = options.b ? typeOfArray(options.b, options.type2 ?? (options.b instanceof Uint16Array ? 'f16' : undefined)) : undefined;
    if (options.b && options.b.length !== data.length) {
      throw new WgprimError('invalid-argument', `transform inputs differ in length (${data.length} and ${options.b.length})`);
    }
    const outputType = options.outputType ?? type;
    this.precheck('transform', type, undefined, undefined, options.config, [type2, outputType]);
    if (typeof options.expression !== 'string' || !options.expression.trim()) fail('invalid-operator', 'transform needs `expression`: a WGSL expression over a (and b)');
    const outBytes = data.length * typeInfo(outputType).bytes;
    const input = this.upload(data);
    const input2 = options.b ? this.upload(options.b) : undefined;
    const output = this.buffer(outBytes);
    try {
      const result = await this.run(output, outBytes, (enc) =>
        this.prim.transform(enc, { input, input2, output, count: data.length, type, type2, outputType, expression: options.expression, config: options.config }));
      return arrayOfType(outputType, result, data.length);
    } finally {
      input.destroy();
      input2?.destroy();
      output.destroy();
    }
  }

  /** A sorted copy of `keys` (u32, i32, f32, u64, i64; f16 bits in a Uint16Array with `{ type: 'f16' }`): stable, ascending unless `descending`. */
  async radixSortKeys<A extends PrimTypedArray>(keys: A, options: ArrayRadixSortOptions = {}): Promise<A> {
    const type = this.radixPrecheck(keys, options, 0);
    const buf = this.upload(keys);
    try {
      const [result] = await this.runAll([[buf, keys.byteLength]], (enc) =>
        this.prim.radixSortKeys(enc, { keys: buf, count: keys.length, type, descending: options.descending, beginBit: options.beginBit, endBit: options.endBit, config: options.config, blockSortConfig: options.blockSortConfig }));
      return arrayOfType(type, result!, keys.length) as A;
    } finally {
      buf.destroy();
    }
  }

  /** Keys sorted as `radixSortKeys` does, and the values permuted with them. */
  async radixSortPairs<A extends PrimTypedArray, V extends RadixSortValueArray>(keys: A, values: V, options: ArrayRadixSortOptions = {}): Promise<{ keys: A; values: V }> {
    const valueBytes = values?.BYTES_PER_ELEMENT;
    if (!ArrayBuffer.isView(values) || (valueBytes !== 4 && valueBytes !== 8)) fail('invalid-argument', 'radixSortPairs values must be a typed array of 4- or 8-byte elements');
    if (values.length !== keys.length) fail('invalid-argument', `radixSortPairs: ${keys.length} keys but ${values.length} values`);
    const type = this.radixPrecheck(keys, options, valueBytes);
    const kb = this.upload(keys);
    const vb = this.upload(values as unknown as PrimTypedArray);
    try {
      const [k, v] = await this.runAll([[kb, keys.byteLength], [vb, values.byteLength]], (enc) =>
        this.prim.radixSortPairs(enc, { keys: kb, values: vb, valueBytes, count: keys.length, type, descending: options.descending, beginBit: options.beginBit, endBit: options.endBit, config: options.config, blockSortConfig: options.blockSortConfig }));
      const Ctor = values.constructor as new (b: ArrayBuffer, o: number, n: number) => V;
      return { keys: arrayOfType(type, k!, keys.length) as A, values: new Ctor(v!, 0, values.length) };
    } finally {
      kb.destroy();
      vb.destroy();
    }
  }

  /**
   * A copy of `keys` with each segment sorted stably on its own: segment i is
   * [offsets[i], options.endOffsets[i]), or without endOffsets [offsets[i], offsets[i + 1]).
   * Elements outside every segment keep their place.
   */
  async segmentedRadixSortKeys<A extends PrimTypedArray>(keys: A, offsets: Uint32Array, options: ArraySegmentedRadixSortOptions = {}): Promise<A> {
    const { type, segments, maxSegmentLength } = this.segmentedPrecheck(keys, offsets, options, 0);
    const kb = this.upload(keys);
    const ko = this.buffer(keys.byteLength);
    const ob = this.upload(offsets.length ? offsets : new Uint32Array(1));
    const eb = options.endOffsets ? this.upload(options.endOffsets.length ? options.endOffsets : new Uint32Array(1)) : undefined;
    try {
      const [result] = await this.runAll([[ko, keys.byteLength]], (enc) =>
        this.prim.segmentedRadixSortKeys(enc, { keys: kb, keysOut: ko, count: keys.length, segments, beginOffsets: ob, endOffsets: eb, type, descending: options.descending, beginBit: options.beginBit, endBit: options.endBit, config: options.config, maxSegmentLength }));
      return arrayOfType(type, result!, keys.length) as A;
    } finally {
      for (const b of [kb, ko, ob, eb]) b?.destroy();
    }
  }

  /** Keys sorted as `segmentedRadixSortKeys` does, and the values permuted with them. */
  async segmentedRadixSortPairs<A extends PrimTypedArray, V extends RadixSortValueArray>(keys: A, values: V, offsets: Uint32Array, options: ArraySegmentedRadixSortOptions = {}): Promise<{ keys: A; values: V }> {
    const valueBytes = values?.BYTES_PER_ELEMENT;
    if (!ArrayBuffer.isView(values) || (valueBytes !== 4 && valueBytes !== 8)) fail('invalid-argument', 'segmentedRadixSortPairs values must be a typed array of 4- or 8-byte elements');
    if (values.length !== keys.length) fail('invalid-argument', `segmentedRadixSortPairs: ${keys.length} keys but ${values.length} values`);
    const { type, segments, maxSegmentLength } = this.segmentedPrecheck(keys, offsets, options, valueBytes);
    const kb = this.upload(keys);
    const ko = this.buffer(keys.byteLength);
    const vb = this.upload(values as unknown as PrimTypedArray);
    const vo = this.buffer(values.byteLength);
    const ob = this.upload(offsets.length ? offsets : new Uint32Array(1));
    const eb = options.endOffsets ? this.upload(options.endOffsets.length ? options.endOffsets : new Uint32Array(1)) : undefined;
    try {
      const [k, v] = await this.runAll([[ko, keys.byteLength], [vo, values.byteLength]], (enc) =>
        this.prim.segmentedRadixSortPairs(enc, { keys: kb, keysOut: ko, values: vb, valuesOut: vo, valueBytes, count: keys.length, segments, beginOffsets: ob, endOffsets: eb, type, descending: options.descending, beginBit: options.beginBit, endBit: options.endBit, config: options.config, maxSegmentLength }));
      const Ctor = values.constructor as new (b: ArrayBuffer, o: number, n: number) => V;
      return { keys: arrayOfType(type, k!, keys.length) as A, values: new Ctor(v!, 0, values.length) };
    } finally {
      for (const b of [kb, ko, vb, vo, ob, eb]) b?.destroy();
    }
  }

  private segmentedPrecheck(keys: PrimTypedArray, offsets: Uint32Array, options: ArraySegmentedRadixSortOptions, valueBytes: 0 | 4 | 8): { type: RadixSortKeyType; segments: number; maxSegmentLength: number } {
    this.prim.context.assertAlive();
    if (!options || typeof options !== 'object') fail('invalid-argument', 'segmented radix sort options must be an object');
    if (!(offsets instanceof Uint32Array)) fail('invalid-argument', 'segmented radix sort offsets must be a Uint32Array');
    const ends = options.endOffsets;
    if (ends !== undefined && !(ends instanceof Uint32Array)) fail('invalid-argument', 'segmented radix sort endOffsets must be a Uint32Array');
    if (ends !== undefined && ends.length !== offsets.length) fail('invalid-argument', `segmented radix sort: ${offsets.length} begin offsets but ${ends.length} end offsets`);
    const segments = ends !== undefined ? offsets.length : Math.max(0, offsets.length - 1);
    const type = typeOfArray(keys, options.type);
    const t = radixKeyInfo(type);
    radixBitRange(t, options.beginBit, options.endBit);
    if (options.descending !== undefined && typeof options.descending !== 'boolean') fail('invalid-argument', `descending must be a boolean, got ${String(options.descending)}`);
    if (options.config !== undefined) this.prim.selectedSegmentedRadixSortConfig(type, valueBytes, options.config);
    // The longest segment, as the sort clamps it: within a tile, no scratch buffer is needed.
    let maxSegmentLength = 0;
    for (let i = 0; i < segments; i++) {
      const end = Math.min(ends ? ends[i]! : offsets[i + 1]!, keys.length);
      maxSegmentLength = Math.max(maxSegmentLength, end - Math.min(offsets[i]!, end));
    }
    return { type: type as RadixSortKeyType, segments, maxSegmentLength };
  }

  private radixPrecheck(keys: PrimTypedArray, options: ArrayRadixSortOptions, valueBytes: 0 | 4 | 8): RadixSortKeyType {
    this.prim.context.assertAlive();
    if (!options || typeof options !== 'object') fail('invalid-argument', 'radix sort options must be an object');
    const type = typeOfArray(keys, options.type);
    const t = radixKeyInfo(type);
    radixBitRange(t, options.beginBit, options.endBit);
    if (options.descending !== undefined && typeof options.descending !== 'boolean') fail('invalid-argument', `descending must be a boolean, got ${String(options.descending)}`);
    if (options.config !== undefined) this.prim.selectedRadixSortConfig(type, valueBytes, options.config);
    if (options.blockSortConfig !== undefined) this.prim.selectedRadixSortBlockSortConfig(type, valueBytes, options.blockSortConfig);
    return type as RadixSortKeyType;
  }

  private async scan<A extends PrimTypedArray>(data: A, options: ArrayScanOptions, exclusive: boolean): Promise<A> {
    const type = typeOfArray(data, options.type);
    this.precheck('scan', type, options.op, options.initialValue, options.config);
    const input = this.upload(data);
    const output = this.buffer(data.byteLength);
    try {
      const args = { input, output, count: data.length, type, op: options.op, initialValue: options.initialValue, config: options.config };
      const result = await this.run(output, data.byteLength, (enc) => (exclusive ? this.prim.exclusiveScan(enc, args) : this.prim.inclusiveScan(enc, args)));
      return arrayOfType(type, result, data.length) as A;
    } finally {
      input.destroy();
      output.destroy();
    }
  }

  /**
   * The checks the buffer-level call makes before any GPU work, made here before anything is
   * uploaded, so that a rejected call costs no allocation or copy. The buffer-level call
   * repeats them (they are cheap); only the compile of caller-written WGSL comes later.
   */
  private precheck(algorithm: 'scan' | 'reduce' | 'transform', type: ElementType, op: Operator | undefined, initialValue: number | bigint | undefined, config: object | undefined, moreTypes: (ElementType | undefined)[] = []): void {
    const ctx = this.prim.context;
    ctx.assertAlive();
    const t = typeInfo(type);
    for (const x of [type, ...moreTypes]) if (x !== undefined) ctx.requireTypeFeature(typeInfo(x));
    if (algorithm !== 'transform') resolveOperator(op ?? 'add', t);
    if (initialValue !== undefined) encodeValue(t, initialValue, 'initialValue');
    // With an override, selection merges and checks it (an `invalid-config` error if it cannot run).
    if (config !== undefined) this.prim.selectedConfig(algorithm, type, config);
  }

  private buffer(bytes: number): GPUBuffer {
    return this.prim.device.createBuffer({ label: 'wgprim.arrays', size: roundUp(Math.max(bytes, 4), 4), usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST });
  }

  private upload(data: PrimTypedArray): GPUBuffer {
    const buf = this.prim.device.createBuffer({ label: 'wgprim.arrays', size: roundUp(Math.max(data.byteLength, 4), 4), usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST, mappedAtCreation: true });
    new Uint8Array(buf.getMappedRange()).set(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
    buf.unmap();
    return buf;
  }

  /** Records `record` into a fresh encoder, submits it, and reads back `bytes` of `output`. */
  private async run(output: GPUBuffer, bytes: number, record: (enc: GPUCommandEncoder) => Promise<void>): Promise<ArrayBuffer> {
    return (await this.runAll([[output, bytes]], record))[0]!;
  }

  /** `run` with several outputs read back. */
  private async runAll(outputs: readonly (readonly [GPUBuffer, number])[], record: (enc: GPUCommandEncoder) => Promise<void>): Promise<ArrayBuffer[]> {
    const device = this.prim.device;
    const sizes = outputs.map(([, bytes]) => roundUp(Math.max(bytes, 4), 4));
    const stagings = sizes.map((size) => device.createBuffer({ label: 'wgprim.readback', size, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST }));
    try {
      device.pushErrorScope('validation');
      const enc = device.createCommandEncoder({ label: 'wgprim.arrays' });
      let recordError: unknown;
      try {
        await record(enc);
        outputs.forEach(([output], i) => enc.copyBufferToBuffer(output, 0, stagings[i]!, 0, sizes[i]!));
        device.queue.submit([enc.finish()]);
      } catch (err) {
        recordError = err;
      }
      const gpuError = await device.popErrorScope();
      if (recordError) throw recordError;
      if (gpuError) throw new WgprimError('invalid-argument', `WebGPU rejected the work: ${gpuError.message}`);
      await Promise.all(stagings.map((s) => s.mapAsync(GPUMapMode.READ)));
      return stagings.map((s) => s.getMappedRange().slice(0));
    } finally {
      for (const s of stagings) s.destroy();
    }
  }
}
