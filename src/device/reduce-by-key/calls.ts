// Reduce by key and run-length encode (both forms) on the by-key engine: checks, config
// selection and the engine call each maps to.
import { type DeviceContext, checkCount } from '../../runtime/context.js';
import { type Operator, resolveOperator } from '../../wgsl/operators.js';
import { type ElementType, typeInfo } from '../../wgsl/types.js';
import { selectFromTable } from '../select.js';
import { type ByKeyReduceConfig } from './config.js';
import { byKeyOperands, checkEquality, type ScanRows } from '../scan-by-key/calls.js';
import { type ByKeyCall, checkDistinct, prepareByKey } from '../scan-by-key/engine.js';
import { reduceByKeyTable, runLengthEncodeNonTrivialRunsTable, runLengthEncodeTable } from './table.js';
import { checkArgs } from '../common.js';

export interface ReduceByKeyArgs {
  readonly keys: GPUBuffer;
  readonly values: GPUBuffer;
  /** Receives the first key of each run (room for `count`). */
  readonly uniqueKeysOut: GPUBuffer;
  /** Receives each run's values combined by `op` (room for `count`). */
  readonly aggregatesOut: GPUBuffer;
  /** Receives the number of runs, one u32. */
  readonly runCount: GPUBuffer;
  readonly count: number;
  readonly keyType: ElementType;
  readonly valueType: ElementType;
  /** Defaults to `add`. */
  readonly op?: Operator;
  /** WGSL expression over `a` and `b` (keys): whether neighbours belong to one run. */
  readonly equality?: string;
  readonly config?: Partial<ByKeyReduceConfig>;
}

export interface RunLengthEncodeArgs {
  readonly input: GPUBuffer;
  /** Receives the value of each run (room for `count`). */
  readonly uniqueOut: GPUBuffer;
  /** Receives each run's length, a u32 (room for `count`). */
  readonly countsOut: GPUBuffer;
  readonly runCount: GPUBuffer;
  readonly count: number;
  readonly type: ElementType;
  readonly equality?: string;
  readonly config?: Partial<ByKeyReduceConfig>;
}

export interface NonTrivialRunsArgs {
  readonly input: GPUBuffer;
  /** Receives the offset of each run longer than one, a u32 (room for `count / 2`). */
  readonly offsetsOut: GPUBuffer;
  /** Receives its length, a u32 (room for `count / 2`). */
  readonly lengthsOut: GPUBuffer;
  readonly runCount: GPUBuffer;
  readonly count: number;
  readonly type: ElementType;
  readonly equality?: string;
  readonly config?: Partial<ByKeyReduceConfig>;
}

const U32 = typeInfo('u32');


export async function prepareReduceByKey(ctx: DeviceContext, rows: ScanRows<ByKeyReduceConfig>, args: ReduceByKeyArgs): Promise<(encoder: GPUCommandEncoder) => void> {
  const what = 'reduceByKey';
  ctx.assertAlive();
  checkArgs(what, args, 'keys, values, uniqueKeysOut, aggregatesOut, runCount, count, keyType, valueType');
  const { k, v, op } = byKeyOperands(ctx, what, args);
  ctx.checkBuffer(`${what} keys`, args.keys, args.count, k);
  ctx.checkBuffer(`${what} values`, args.values, args.count, v);
  ctx.checkBuffer(`${what} uniqueKeysOut`, args.uniqueKeysOut, args.count, k);
  ctx.checkBuffer(`${what} aggregatesOut`, args.aggregatesOut, args.count, v);
  ctx.checkBuffer(`${what} runCount`, args.runCount, 1, U32);
  checkDistinct(what, [['keys', args.keys], ['values', args.values], ['uniqueKeysOut', args.uniqueKeysOut], ['aggregatesOut', args.aggregatesOut], ['runCount', args.runCount]]);
  const { config } = selectFromTable(ctx, reduceByKeyTable, rows, args.keyType, v.bytes > 4 ? 8 : 4, args.config);
  const call: ByKeyCall = {
    what, config, count: args.count, heads: 'keys', output: 'reduce', key: k, value: v, ones: false, op, equality: args.equality, exclusive: false,
    keys: args.keys, values: args.values, first: args.uniqueKeysOut, second: args.aggregatesOut, runCount: args.runCount,
  };
  return prepareByKey(ctx, call);
}

/** Run-length encode: reduce by key of implicit ones (no values read). */
export async function prepareRunLengthEncode(ctx: DeviceContext, rows: ScanRows<ByKeyReduceConfig>, args: RunLengthEncodeArgs): Promise<(encoder: GPUCommandEncoder) => void> {
  const what = 'runLengthEncode';
  ctx.assertAlive();
  checkArgs(what, args, 'input, uniqueOut, countsOut, runCount, count, type');
  checkCount(args.count);
  const k = typeInfo(args.type);
  ctx.requireTypeFeature(k);
  checkEquality(what, args.equality);
  ctx.checkBuffer(`${what} input`, args.input, args.count, k);
  ctx.checkBuffer(`${what} uniqueOut`, args.uniqueOut, args.count, k);
  ctx.checkBuffer(`${what} countsOut`, args.countsOut, args.count, U32);
  ctx.checkBuffer(`${what} runCount`, args.runCount, 1, U32);
  checkDistinct(what, [['input', args.input], ['uniqueOut', args.uniqueOut], ['countsOut', args.countsOut], ['runCount', args.runCount]]);
  const { config } = selectFromTable(ctx, runLengthEncodeTable, rows, args.type, 0, args.config);
  const call: ByKeyCall = {
    what, config, count: args.count, heads: 'keys', output: 'reduce', key: k, value: U32, ones: true, op: resolveOperator('add', U32), equality: args.equality, exclusive: false,
    keys: args.input, first: args.uniqueOut, second: args.countsOut, runCount: args.runCount,
  };
  return prepareByKey(ctx, call);
}

/** Non-trivial runs: CUB's head-and-tail form on the engine (a run longer than one starts where a head is no tail). */
export async function prepareNonTrivialRuns(ctx: DeviceContext, rows: ScanRows<ByKeyReduceConfig>, args: NonTrivialRunsArgs): Promise<(encoder: GPUCommandEncoder) => void> {
  const what = 'runLengthEncodeNonTrivialRuns';
  ctx.assertAlive();
  checkArgs(what, args, 'input, offsetsOut, lengthsOut, runCount, count, type');
  checkCount(args.count);
  const k = typeInfo(args.type);
  ctx.requireTypeFeature(k);
  checkEquality(what, args.equality);
  ctx.checkBuffer(`${what} input`, args.input, args.count, k);
  // At most count / 2 runs are longer than one.
  const most = Math.floor(args.count / 2);
  ctx.checkBuffer(`${what} offsetsOut`, args.offsetsOut, most, U32);
  ctx.checkBuffer(`${what} lengthsOut`, args.lengthsOut, most, U32);
  ctx.checkBuffer(`${what} runCount`, args.runCount, 1, U32);
  checkDistinct(what, [['input', args.input], ['offsetsOut', args.offsetsOut], ['lengthsOut', args.lengthsOut], ['runCount', args.runCount]]);
  const { config } = selectFromTable(ctx, runLengthEncodeNonTrivialRunsTable, rows, args.type, 0, args.config);
  const call: ByKeyCall = {
    what, config, count: args.count, heads: 'keys', output: 'runs', key: k, value: U32, ones: true, op: resolveOperator('add', U32), equality: args.equality, exclusive: false,
    keys: args.input, first: args.offsetsOut, second: args.lengthsOut, runCount: args.runCount, scatterCount: Math.max(1, most),
  };
  return prepareByKey(ctx, call);
}
