// Stream compaction: select, partition (single output, two-way, three-way), unique and
// unique by key, on one engine (./kernel.ts) with a tuned table per sub-algorithm.
import { fail } from '../../runtime/errors.js';
import { type ElementType, typeInfo } from '../../wgsl/types.js';
import { arrayOfType, precheckArrayCall, type PrimTypedArray, typeOfArray } from '../typed-arrays.js';
import { type AlgorithmEnv, type ArrayEnv, defineAlgorithm } from '../spec.js';
import { scanTable } from '../scan/table.js';
import { compareArrays } from '../reference.js';
import { type SelectConfig } from './config.js';
import { type CompactionCall, type CompactionTables, recordCompaction } from './compaction.js';
import { type FlagBytes } from './kernel.js';
import {
  flaggedChoice, type FlaggedCall, partitionCall, type PartitionArgs, partitionThreeWayCall, type PartitionThreeWayArgs, partitionTwoWayCall, type PartitionTwoWayArgs,
  selectCall, type SelectArgs, uniqueByKeyCall, type UniqueByKeyArgs, uniqueCall, type UniqueArgs,
} from './calls.js';
import { COMPACTION_TABLES } from './table.js';
import { compactionBenchmarks, compactionTuning } from './bench.js';
import { selectTyped, uniqueTyped } from './reference.js';

export interface ArraySelectOptions {
  /** WGSL expression over `a` (with `flags`: over the flag) that evaluates to bool. */
  readonly predicate?: string;
  /** One flag per element: non-zero selects. A `Uint8Array` goes to the GPU as bytes (`flagBytes: 1`), a quarter of the reads of `u32` flags. */
  readonly flags?: Uint32Array | Uint8Array;
  /** Needed only for f16 (Uint16Array). */
  readonly type?: ElementType;
  readonly config?: Partial<SelectConfig>;
}

export interface ArrayThreeWayOptions {
  readonly firstPredicate: string;
  readonly secondPredicate: string;
  readonly type?: ElementType;
  readonly config?: Partial<SelectConfig>;
}

export interface ArrayUniqueOptions {
  /** WGSL expression over `a` and `b`: whether two neighbours are equal. */
  readonly equality?: string;
  readonly type?: ElementType;
  readonly config?: Partial<SelectConfig>;
}

/** Values `uniqueByKey` carries: 4 or 8 bytes each. */
export type ValueArray = Uint32Array | Int32Array | Float32Array | BigUint64Array | BigInt64Array | Float64Array;

function tablesOf(env: AlgorithmEnv, call: CompactionCall): CompactionTables {
  return { rows: env.rows(call.table), scanRows: env.rows(scanTable) };
}

async function record(env: AlgorithmEnv, encoder: GPUCommandEncoder, call: CompactionCall): Promise<void> {
  return recordCompaction(env.context, tablesOf(env, call), encoder, call);
}

function compactionCalls(env: AlgorithmEnv) {
  return {
    /** Records a stable select: the elements a predicate or flag selects, in order, and their count. */
    select: async (encoder: GPUCommandEncoder, args: SelectArgs): Promise<void> => record(env, encoder, selectCall(args)),
    /** Records a stable partition into one output: the selected in order, then the rejected in reverse order. */
    partition: async (encoder: GPUCommandEncoder, args: PartitionArgs): Promise<void> => record(env, encoder, partitionCall(args)),
    /** Records a stable partition into two outputs, both in input order. */
    partitionTwoWay: async (encoder: GPUCommandEncoder, args: PartitionTwoWayArgs): Promise<void> => record(env, encoder, partitionTwoWayCall(args)),
    /** Records a stable three-way partition by two predicates; `counts` receives how many went first and second. */
    partitionThreeWay: async (encoder: GPUCommandEncoder, args: PartitionThreeWayArgs): Promise<void> => record(env, encoder, partitionThreeWayCall(args)),
    /** Records unique: the first of each run of equal consecutive elements. */
    unique: async (encoder: GPUCommandEncoder, args: UniqueArgs): Promise<void> => record(env, encoder, uniqueCall(args)),
    /** Records unique by key: the first key of each run of equal keys, with its value. */
    uniqueByKey: async (encoder: GPUCommandEncoder, args: UniqueByKeyArgs): Promise<void> => record(env, encoder, uniqueByKeyCall(args)),
  };
}

/**
 * Flags as the kernels read them, checked against the data's length first: a `Uint32Array` as
 * `u32` flags, a `Uint8Array` as bytes (the upload pads it to whole words).
 */
function flagBuffer(flags: Uint32Array | Uint8Array | undefined, length: number): { flags?: Uint32Array | Uint8Array; flagBytes?: FlagBytes } {
  if (flags === undefined) return {};
  if (!(flags instanceof Uint32Array) && !(flags instanceof Uint8Array)) fail('invalid-argument', 'flags must be a Uint32Array or a Uint8Array');
  if (flags.length < length) fail('invalid-argument', `flags holds ${flags.length} entries for ${length} elements`);
  return flags instanceof Uint32Array ? { flags } : { flags, flagBytes: 1 };
}

/**
 * Uploads `data` (and flags or values), runs the call `make` builds on fresh outputs, reads back
 * the counts and outputs, and frees every buffer.
 */
async function runCompaction(env: ArrayEnv, data: PrimTypedArray, type: ElementType, outputs: number, countWords: 1 | 2,
  make: (input: GPUBuffer, outs: GPUBuffer[], counts: GPUBuffer, extra: { flags?: GPUBuffer; values?: GPUBuffer; valuesOut?: GPUBuffer }) => CompactionCall,
  extras: { flags?: Uint32Array | Uint8Array; values?: ArrayBufferView } = {}): Promise<{ counts: Uint32Array; outs: ArrayBuffer[]; valuesOut?: ArrayBuffer }> {
  const buffers: GPUBuffer[] = [];
  const keep = (b: GPUBuffer): GPUBuffer => { buffers.push(b); return b; };
  try {
    const input = keep(env.upload(data));
    const outs = Array.from({ length: outputs }, () => keep(env.buffer(data.byteLength)));
    const counts = keep(env.buffer(4 * countWords));
    const flags = extras.flags ? keep(env.upload(extras.flags)) : undefined;
    const values = extras.values ? keep(env.upload(extras.values)) : undefined;
    const valuesOut = extras.values ? keep(env.buffer(extras.values.byteLength)) : undefined;
    const call = make(input, outs, counts, { flags, values, valuesOut });
    const reads: [GPUBuffer, number][] = [[counts, 4 * countWords], ...outs.map((b): [GPUBuffer, number] => [b, data.byteLength])];
    if (valuesOut) reads.push([valuesOut, extras.values!.byteLength]);
    const results = await env.runAll(reads, (enc) => record(env, enc, call));
    return { counts: new Uint32Array(results[0]!), outs: results.slice(1, 1 + outputs), valuesOut: valuesOut ? results[1 + outputs] : undefined };
  } finally {
    for (const b of buffers) b.destroy();
  }
}

/** An array-level flagged call's checks before anything is uploaded; its type and flag words. */
function prepareFlagged(env: ArrayEnv, data: PrimTypedArray, options: ArraySelectOptions, what: FlaggedCall): { type: ElementType; flags?: Uint32Array | Uint8Array; flagBytes?: FlagBytes } {
  if (!options || typeof options !== 'object') fail('invalid-argument', `${what} needs options { predicate } or { flags }`);
  const type = typeOfArray(data, options.type);
  precheckArrayCall(env, flaggedChoice(what, options.predicate, options.flags !== undefined).table, { type, config: options.config });
  return { type, ...flagBuffer(options.flags, data.length) };
}

function compactionArrays(env: ArrayEnv) {
  const slice = (type: ElementType, buf: ArrayBuffer, from: number, to: number): PrimTypedArray => {
    const bytes = typeInfo(type).bytes;
    return arrayOfType(type, buf.slice(from * bytes, to * bytes), to - from);
  };
  return {
    /** The elements `predicate` or `flags` selects, in order: a new typed array. */
    async select<A extends PrimTypedArray>(data: A, options: ArraySelectOptions): Promise<A> {
      const { type, flags, flagBytes } = prepareFlagged(env, data, options, 'select');
      const r = await runCompaction(env, data, type, 1, 1, (input, [output], selectedCount, x) => selectCall({ input, output: output!, count: data.length, type, selectedCount, predicate: options.predicate, flags: x.flags, flagBytes, config: options.config }), { flags });
      return slice(type, r.outs[0]!, 0, r.counts[0]!) as A;
    },
    /** CUB's single-output partition: `{ output, selectedCount }`, the rejected reversed at the back. */
    async partition<A extends PrimTypedArray>(data: A, options: ArraySelectOptions): Promise<{ output: A; selectedCount: number }> {
      const { type, flags, flagBytes } = prepareFlagged(env, data, options, 'partition');
      const r = await runCompaction(env, data, type, 1, 1, (input, [output], selectedCount, x) => partitionCall({ input, output: output!, count: data.length, type, selectedCount, predicate: options.predicate, flags: x.flags, flagBytes, config: options.config }), { flags });
      return { output: slice(type, r.outs[0]!, 0, data.length) as A, selectedCount: r.counts[0]! };
    },
    /** `{ selected, rejected }`, both in input order. */
    async partitionTwoWay<A extends PrimTypedArray>(data: A, options: ArraySelectOptions): Promise<{ selected: A; rejected: A }> {
      const { type, flags, flagBytes } = prepareFlagged(env, data, options, 'partitionTwoWay');
      const r = await runCompaction(env, data, type, 2, 1, (input, [selected, rejected], selectedCount, x) => partitionTwoWayCall({ input, selected: selected!, rejected: rejected!, count: data.length, type, selectedCount, predicate: options.predicate, flags: x.flags, flagBytes, config: options.config }), { flags });
      const n = r.counts[0]!;
      return { selected: slice(type, r.outs[0]!, 0, n) as A, rejected: slice(type, r.outs[1]!, 0, data.length - n) as A };
    },
    /** `{ first, second, unselected }` by two predicates, each in input order. */
    async partitionThreeWay<A extends PrimTypedArray>(data: A, options: ArrayThreeWayOptions): Promise<{ first: A; second: A; unselected: A }> {
      if (!options || typeof options !== 'object') fail('invalid-argument', 'partitionThreeWay needs options { firstPredicate, secondPredicate }');
      const type = typeOfArray(data, options.type);
      const call = (input: GPUBuffer, outs: GPUBuffer[], counts: GPUBuffer): CompactionCall => partitionThreeWayCall({ input, first: outs[0]!, second: outs[1]!, unselected: outs[2]!, count: data.length, type, counts, firstPredicate: options.firstPredicate, secondPredicate: options.secondPredicate, config: options.config });
      precheckArrayCall(env, call(undefined!, [], undefined!).table, { type, config: options.config });
      const r = await runCompaction(env, data, type, 3, 2, call);
      const [a, b] = [r.counts[0]!, r.counts[1]!];
      return { first: slice(type, r.outs[0]!, 0, a) as A, second: slice(type, r.outs[1]!, 0, b) as A, unselected: slice(type, r.outs[2]!, 0, data.length - a - b) as A };
    },
    /** The first of each run of equal consecutive elements: a new typed array. */
    async unique<A extends PrimTypedArray>(data: A, options: ArrayUniqueOptions = {}): Promise<A> {
      const type = typeOfArray(data, options.type);
      const call = (input: GPUBuffer, outs: GPUBuffer[], selectedCount: GPUBuffer): CompactionCall => uniqueCall({ input, output: outs[0]!, count: data.length, type, selectedCount, equality: options.equality, config: options.config });
      precheckArrayCall(env, call(undefined!, [], undefined!).table, { type, config: options.config });
      const r = await runCompaction(env, data, type, 1, 1, call);
      return slice(type, r.outs[0]!, 0, r.counts[0]!) as A;
    },
    /** The first key of each run of equal keys and its value: `{ keys, values }`. */
    async uniqueByKey<A extends PrimTypedArray, V extends ValueArray>(keys: A, values: V, options: ArrayUniqueOptions = {}): Promise<{ keys: A; values: V }> {
      const type = typeOfArray(keys, options.type);
      if (!ArrayBuffer.isView(values) || (values.BYTES_PER_ELEMENT !== 4 && values.BYTES_PER_ELEMENT !== 8)) fail('invalid-argument', 'uniqueByKey values must be a typed array of 4- or 8-byte elements');
      if (values.length !== keys.length) fail('invalid-argument', `uniqueByKey has ${keys.length} keys and ${values.length} values`);
      const valueBytes = values.BYTES_PER_ELEMENT as 4 | 8;
      const call = (input: GPUBuffer, outs: GPUBuffer[], selectedCount: GPUBuffer, x: { values?: GPUBuffer; valuesOut?: GPUBuffer }): CompactionCall => uniqueByKeyCall({ keys: input, values: x.values!, keysOut: outs[0]!, valuesOut: x.valuesOut!, count: keys.length, type, valueBytes, selectedCount, equality: options.equality, config: options.config });
      precheckArrayCall(env, call(undefined!, [], undefined!, {}).table, { type, config: options.config });
      const r = await runCompaction(env, keys, type, 1, 1, call, { values });
      const n = r.counts[0]!;
      const Ctor = values.constructor as new (b: ArrayBuffer, o: number, n: number) => V;
      return { keys: slice(type, r.outs[0]!, 0, n) as A, values: new Ctor(r.valuesOut!.slice(0, n * valueBytes), 0, n) };
    },
  };
}


export const selectAlgorithm = defineAlgorithm({
  name: 'select',
  summary: 'select, partition (one output, two-way, three-way), unique and unique by key: one stable compaction engine',
  tables: COMPACTION_TABLES,
  benchmarks: compactionBenchmarks,
  tuning: compactionTuning,
  calls: compactionCalls,
  arrays: compactionArrays,
  demo: (arrays, { u32 }) => {
    const runs = u32.map((x) => x >>> 29);
    return [
      { name: 'select u32 (odd)', run: () => arrays.select(u32, { predicate: '(a & 1u) == 1u' }), verify: (g: unknown) => compareArrays(g, selectTyped(u32, (x) => (x & 1) === 1)) },
      { name: 'unique u32 (runs)', run: () => arrays.unique(runs), verify: (g: unknown) => compareArrays(g, uniqueTyped(runs, (a, b) => a === b)) },
    ];
  },
});
