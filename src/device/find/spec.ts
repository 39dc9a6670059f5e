// The find family: adjacent find, find first of, search, find end and search n, on one
// early-exit scanner (./kernel.ts) with a tuned table per rocPRIM-tuned algorithm.
import { fail } from '../../runtime/errors.js';
import { type ElementType } from '../../wgsl/types.js';
import { precheckArrayCall, type PrimTypedArray, typeOfArray } from '../typed-arrays.js';
import { type AlgorithmEnv, type ArrayEnv, defineAlgorithm } from '../spec.js';
import { type FindConfig } from './config.js';
import { checkEquality, type FindCall, recordFind } from './find.js';
import { adjacentFindCall, type AdjacentFindArgs, findFirstOfCall, type FindFirstOfArgs, searchCall, type SearchArgs, searchNCall, type SearchNArgs } from './calls.js';
import { FIND_TABLES } from './table.js';
import { findBenchmarks, findTuning } from './bench.js';
import { adjacentFindReference, findEndReference, findFirstOfReference, searchNReference, searchReference } from './reference.js';

export interface ArrayFindOptions {
  /** WGSL expression over `a` (the data's element) and `b`: whether they are equal. */
  readonly equality?: string;
  /** Needed only for f16 (Uint16Array). */
  readonly type?: ElementType;
  readonly config?: Partial<FindConfig>;
}

function findCalls(env: AlgorithmEnv) {
  const record = async (encoder: GPUCommandEncoder, call: FindCall): Promise<void> => recordFind(env.context, env.rows(call.table), encoder, call);
  return {
    /** Records the first `i` with `input[i]` equal to `input[i + 1]` (or `count`) into `output`, one u32. */
    adjacentFind: (encoder: GPUCommandEncoder, args: AdjacentFindArgs): Promise<void> => Promise.resolve().then(() => record(encoder, adjacentFindCall(args))),
    /** Records the first `i` with `input[i]` equal to one of the targets (or `count`). */
    findFirstOf: (encoder: GPUCommandEncoder, args: FindFirstOfArgs): Promise<void> => Promise.resolve().then(() => record(encoder, findFirstOfCall(args))),
    /** Records where the pattern first occurs (0 for an empty pattern; `count` if nowhere). */
    search: (encoder: GPUCommandEncoder, args: SearchArgs): Promise<void> => Promise.resolve().then(() => record(encoder, searchCall(args))),
    /** Records where the pattern last occurs (`count` for an empty pattern or if nowhere). */
    findEnd: (encoder: GPUCommandEncoder, args: SearchArgs): Promise<void> => Promise.resolve().then(() => record(encoder, searchCall(args, true))),
    /** Records where the first run of `n` copies of `value` begins (0 for n = 0; `count` if nowhere). */
    searchN: (encoder: GPUCommandEncoder, args: SearchNArgs): Promise<void> => Promise.resolve().then(() => record(encoder, searchNCall(args))),
  };
}

/** Uploads the data (and targets or pattern), runs the call `make` builds, reads back the position. */
async function runFind(env: ArrayEnv, data: PrimTypedArray, options: ArrayFindOptions, aux: PrimTypedArray | undefined,
  make: (type: ElementType, input: GPUBuffer, output: GPUBuffer, aux: GPUBuffer) => FindCall): Promise<number> {
  if (!options || typeof options !== 'object') fail('invalid-argument', 'options must be an object { equality?, type?, config? }');
  const type = typeOfArray(data, options.type);
  if (aux !== undefined) typeOfArray(aux, type);
  const probe = make(type, undefined!, undefined!, undefined!);
  precheckArrayCall(env, probe.table, { type, config: options.config });
  checkEquality(probe.what, options.equality);
  const buffers: GPUBuffer[] = [];
  try {
    const input = env.upload(data);
    buffers.push(input);
    const auxBuffer = aux ? env.upload(aux) : input;
    if (aux) buffers.push(auxBuffer);
    const output = env.buffer(4);
    buffers.push(output);
    const call = make(type, input, output, auxBuffer);
    const [result] = await env.runAll([[output, 4]], (enc) => recordFind(env.context, env.rows(call.table), enc, call));
    return new Uint32Array(result!)[0]!;
  } finally {
    for (const b of buffers) b.destroy();
  }
}

function findArrays(env: ArrayEnv) {
  const common = (o: ArrayFindOptions, type: ElementType) => ({ type, equality: o?.equality, config: o?.config });
  return {
    /** The first `i` with `data[i]` equal to `data[i + 1]`, or `data.length`. */
    adjacentFind: (data: PrimTypedArray, options: ArrayFindOptions = {}): Promise<number> =>
      runFind(env, data, options, undefined, (type, input, output) => adjacentFindCall({ input, output, count: data.length, ...common(options, type) })),
    /** The first `i` with `data[i]` equal to one of `targets`, or `data.length`. */
    findFirstOf: (data: PrimTypedArray, targets: PrimTypedArray, options: ArrayFindOptions = {}): Promise<number> =>
      runFind(env, data, options, targets, (type, input, output, aux) => findFirstOfCall({ input, output, count: data.length, targets: aux, targetCount: targets.length, ...common(options, type) })),
    /** Where `pattern` first occurs in `data` (0 when it is empty), or `data.length`. */
    search: (data: PrimTypedArray, pattern: PrimTypedArray, options: ArrayFindOptions = {}): Promise<number> =>
      runFind(env, data, options, pattern, (type, input, output, aux) => searchCall({ input, output, count: data.length, pattern: aux, patternCount: pattern.length, ...common(options, type) })),
    /** Where `pattern` last occurs in `data`, or `data.length` (also when it is empty). */
    findEnd: (data: PrimTypedArray, pattern: PrimTypedArray, options: ArrayFindOptions = {}): Promise<number> =>
      runFind(env, data, options, pattern, (type, input, output, aux) => searchCall({ input, output, count: data.length, pattern: aux, patternCount: pattern.length, ...common(options, type) }, true)),
    /** Where the first run of `n` copies of `value` begins (0 when n is 0), or `data.length`. */
    searchN: (data: PrimTypedArray, n: number, value: number | bigint, options: ArrayFindOptions = {}): Promise<number> =>
      runFind(env, data, options, undefined, (type, input, output) => searchNCall({ input, output, count: data.length, n, value, ...common(options, type) })),
  };
}

const expectPosition = (want: number) => (got: unknown): string | undefined => (got === want ? undefined : `got ${String(got)}, want ${want}`);

export const findAlgorithm = defineAlgorithm({
  name: 'find',
  summary: 'adjacent find, find first of, search, find end and search n: one early-exit scanner',
  tables: FIND_TABLES,
  benchmarks: findBenchmarks,
  tuning: findTuning,
  calls: findCalls,
  arrays: findArrays,
  demo: (arrays, { u32 }) => {
    // Distinct neighbours (i * 2 + 1 never repeats next to itself), with planted matches at 3/4.
    const n = u32.length;
    const data = u32.map((x, i) => (x & ~1) | (i & 1));
    const at = Math.floor((3 * n) / 4);
    const marks = [0xfffffff1, 0xfffffff3, 0xfffffff5];
    if (n >= 8) {
      for (let k = 0; k < marks.length; k++) data[at + k] = marks[k]!;
      data[at - 4] = data[at - 3] = 0xfffffff9;
    }
    const pattern = Uint32Array.from(marks);
    return [
      { name: 'adjacentFind u32', run: () => arrays.adjacentFind(data), verify: expectPosition(adjacentFindReference(data)) },
      { name: 'findFirstOf u32', run: () => arrays.findFirstOf(data, Uint32Array.of(0xfffffff5, 0xfffffff3)), verify: expectPosition(findFirstOfReference(data, [0xfffffff5, 0xfffffff3])) },
      { name: 'search u32', run: () => arrays.search(data, pattern), verify: expectPosition(searchReference(data, pattern)) },
      { name: 'findEnd u32', run: () => arrays.findEnd(data, pattern.subarray(0, 1)), verify: expectPosition(findEndReference(data, pattern.subarray(0, 1))) },
      { name: 'searchN u32', run: () => arrays.searchN(data, 2, 0xfffffff9), verify: expectPosition(searchNReference(data, 2, 0xfffffff9)) },
    ];
  },
});
