// The scans of the by-key engine: by key (heads where the key changes) and segmented (heads
// from a u32 flag per element, or from offsets), each inclusive and exclusive.
import { type DeviceContext, checkCount } from '../../runtime/context.js';
import { fail } from '../../runtime/errors.js';
import { type Operator, type ResolvedOperator, resolveOperator } from '../../wgsl/operators.js';
import { type ElementType, type TypeInfo, typeInfo } from '../../wgsl/types.js';
import { encodeValue } from '../../wgsl/values.js';
import { type TunedEntry } from '../../config/types.js';
import { selectFromTable } from '../select.js';
import { type ScanConfig } from '../scan/config.js';
import { scanTable } from '../scan/table.js';
import { type ByKeyConfig } from './config.js';
import { type ByKeyCall, checkDistinct, prepareByKey } from './engine.js';
import { scanByKeyTable } from './table.js';
import { checkArgs } from '../common.js';

/** `inclusiveScanByKey`'s arguments (no initial value: JavaScript callers that pass one get `invalid-argument`). */
export interface InclusiveScanByKeyArgs {
  readonly keys: GPUBuffer;
  readonly values: GPUBuffer;
  /** Receives the scanned values; a buffer of its own (not the keys or values). */
  readonly output: GPUBuffer;
  readonly count: number;
  readonly keyType: ElementType;
  readonly valueType: ElementType;
  /** Defaults to `add`. */
  readonly op?: Operator;
  /** WGSL expression over `a` and `b` (keys): whether neighbours belong to one run (default: bitwise for integers, `==` for floats). */
  readonly equality?: string;
  readonly config?: Partial<ByKeyConfig>;
}

/** `exclusiveScanByKey`'s arguments. */
export interface ScanByKeyArgs extends InclusiveScanByKeyArgs {
  /** Each run's first output (and combined before every other); defaults to the identity. */
  readonly initialValue?: number | bigint;
}

export interface SegmentedScanArgs {
  readonly input: GPUBuffer;
  readonly output: GPUBuffer;
  readonly count: number;
  readonly type: ElementType;
  readonly op?: Operator;
  /** Combined before each segment's values (exclusive: each segment's first output). */
  readonly initialValue?: number | bigint;
  /** A u32 per element: non-zero starts a segment. Or give offsets: */
  readonly headFlags?: GPUBuffer;
  /**
   * u32 first element of each segment: `segments + 1` entries without `endOffsets`, non-decreasing
   * (segment i is [begins[i], begins[i + 1]), read by the scan's tiles themselves), else `segments`
   * in any order.
   */
  readonly beginOffsets?: GPUBuffer;
  /** u32 one past each segment's last element (`segments` entries). Elements outside every segment are left as they are. */
  readonly endOffsets?: GPUBuffer;
  readonly segments?: number;
  readonly config?: Partial<ScanConfig>;
}

export type ScanRows<C> = readonly (readonly TunedEntry<C>[])[];


/** Checks an equality expression (compiled into the kernel: a WGSL error there is reported as `invalid-operator`). */
/**
 * What a keys-and-values call checks first (scan by key, reduce by key): its count, both types
 * (and their features), the operator over the values and the key equality.
 */
export function byKeyOperands(ctx: DeviceContext, what: string, args: { readonly count: number; readonly keyType: ElementType; readonly valueType: ElementType; readonly op?: Operator; readonly equality?: string }):
  { k: TypeInfo; v: TypeInfo; op: ResolvedOperator } {
  checkCount(args.count);
  const k = typeInfo(args.keyType);
  const v = typeInfo(args.valueType);
  ctx.requireTypeFeature(k);
  ctx.requireTypeFeature(v);
  const op = resolveOperator(args.op ?? 'add', v);
  checkEquality(what, args.equality);
  return { k, v, op };
}

export function checkEquality(what: string, equality: unknown): void {
  if (equality !== undefined && (typeof equality !== 'string' || !equality.trim())) fail('invalid-operator', `${what}: \`equality\` must be a WGSL expression over a and b that evaluates to bool`);
}

export async function prepareScanByKey(ctx: DeviceContext, rows: ScanRows<ByKeyConfig>, args: ScanByKeyArgs, exclusive: boolean): Promise<(encoder: GPUCommandEncoder) => void> {
  const what = exclusive ? 'exclusiveScanByKey' : 'inclusiveScanByKey';
  ctx.assertAlive();
  checkArgs(what, args, 'keys, values, output, count, keyType, valueType');
  const { k, v, op } = byKeyOperands(ctx, what, args);
  if (!exclusive && args.initialValue !== undefined) fail('invalid-argument', `${what} takes no initialValue (exclusiveScanByKey does)`);
  const init = args.initialValue === undefined ? undefined : encodeValue(v, args.initialValue, 'initialValue');
  ctx.checkBuffer(`${what} keys`, args.keys, args.count, k);
  ctx.checkBuffer(`${what} values`, args.values, args.count, v);
  ctx.checkBuffer(`${what} output`, args.output, args.count, v);
  checkDistinct(what, [['keys', args.keys], ['values', args.values], ['output', args.output]]);
  const { config } = selectFromTable(ctx, scanByKeyTable, rows, args.keyType, v.bytes > 4 ? 8 : 4, args.config);
  const call: ByKeyCall = {
    what, config, count: args.count, heads: 'keys', output: 'scan', key: k, value: v, ones: false, op, equality: args.equality, exclusive, init,
    keys: args.keys, values: args.values, out: args.output,
  };
  return prepareByKey(ctx, call);
}

export async function prepareSegmentedScan(ctx: DeviceContext, rows: ScanRows<ScanConfig>, args: SegmentedScanArgs, exclusive: boolean): Promise<(encoder: GPUCommandEncoder) => void> {
  const what = exclusive ? 'segmentedExclusiveScan' : 'segmentedInclusiveScan';
  ctx.assertAlive();
  checkArgs(what, args, 'input, output, count, type, headFlags | beginOffsets, endOffsets?, segments');
  checkCount(args.count);
  const v = typeInfo(args.type);
  ctx.requireTypeFeature(v);
  const op = resolveOperator(args.op ?? 'add', v);
  const init = args.initialValue === undefined ? undefined : encodeValue(v, args.initialValue, 'initialValue');
  ctx.checkBuffer(`${what} input`, args.input, args.count, v);
  ctx.checkBuffer(`${what} output`, args.output, args.count, v);
  const U32 = typeInfo('u32');
  const byFlags = args.headFlags !== undefined;
  if (byFlags === (args.beginOffsets !== undefined)) fail('invalid-argument', `${what} takes \`headFlags\` (a u32 per element) or \`beginOffsets\` (with \`segments\`), one of them`);
  let offsets: ByKeyCall['offsets'];
  if (byFlags) {
    ctx.checkBuffer(`${what} headFlags`, args.headFlags, args.count, U32);
  } else {
    const segments = args.segments;
    if (typeof segments !== 'number' || !Number.isInteger(segments) || segments < 0 || segments > 0xfffffffe) {
      fail('invalid-argument', `${what}: segments must be a non-negative integer below 2^32 - 1, got ${String(segments)}`);
    }
    ctx.checkBuffer(`${what} beginOffsets`, args.beginOffsets, args.endOffsets ? segments : segments + 1, U32);
    if (args.endOffsets) ctx.checkBuffer(`${what} endOffsets`, args.endOffsets, segments, U32);
    offsets = { begins: args.beginOffsets!, ends: args.endOffsets, segments };
  }
  checkDistinct(what, [['input', args.input], ['output', args.output], ['headFlags', args.headFlags], ['beginOffsets', args.beginOffsets]]);
  checkDistinct(what, [['output', args.output], ['endOffsets', args.endOffsets]]);
  // rocPRIM's segmented scans run on the scan's tuned configs: the engine takes the scan's vocabulary.
  const { config } = selectFromTable(ctx, scanTable, rows, args.type, 0, args.config);
  const call: ByKeyCall = {
    what, config, count: args.count, heads: byFlags ? 'flags' : args.endOffsets ? 'marks' : 'offsets', output: 'scan', value: v, ones: false, op, exclusive, init,
    flags: args.headFlags, offsets, values: args.input, out: args.output,
  };
  return prepareByKey(ctx, call);
}
