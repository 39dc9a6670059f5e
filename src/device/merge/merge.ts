// Host side of the device merge: checks a call, selects its config, compiles its pipelines and
// records one merge pass (partition, merge tiles) over the two inputs.
import { type DeviceContext, checkCount } from '../../runtime/context.js';
import { roundUp } from '../../runtime/dispatch.js';
import { fail } from '../../runtime/errors.js';
import { type ElementType, type TypeInfo, typeInfo } from '../../wgsl/types.js';
import { type TunedEntry } from '../../config/types.js';
import { selectFromTable } from '../select.js';
import { type MergeConfig } from './config.js';
import { mergePartitionScratch, mergePipelines, recordMergePass, wholeKeyMask } from './pass.js';
import { checkLess } from './order.js';
import { mergeTable } from './table.js';

export interface MergeArgs {
  /** Sorted by `less`: `countA` keys. */
  readonly a: GPUBuffer;
  /** Sorted by `less`: `countB` keys. */
  readonly b: GPUBuffer;
  /** Receives the countA + countB merged keys; a buffer of its own. */
  readonly output: GPUBuffer;
  readonly countA: number;
  readonly countB: number;
  readonly type: ElementType;
  /** WGSL over `a` and `b`: a strictly before b (the order the inputs are sorted by). Default: the radix sort's total order. */
  readonly less?: string;
  readonly config?: Partial<MergeConfig>;
}

export interface MergePairsArgs extends Omit<MergeArgs, 'output'> {
  readonly aValues: GPUBuffer;
  readonly bValues: GPUBuffer;
  readonly output: GPUBuffer;
  readonly valuesOut: GPUBuffer;
  readonly valueBytes: 4 | 8;
}

/** The most elements one merge writes (positions stay within u32 with room to spare). */
export const MERGE_MAX_COUNT = 2 ** 31;

const VALUE_INFO: Record<4 | 8, TypeInfo> = { 4: typeInfo('u32'), 8: typeInfo('u64') };

/** Checks a call before anything is launched and compiles its pipeline; the result records it. */
export async function prepareMerge(ctx: DeviceContext, rows: readonly (readonly TunedEntry<MergeConfig>[])[], args: MergeArgs | MergePairsArgs, pairs: boolean): Promise<(encoder: GPUCommandEncoder) => void> {
  ctx.assertAlive();
  const name = pairs ? 'mergePairs' : 'merge';
  if (!args || typeof args !== 'object') fail('invalid-argument', `${name} needs an argument object { a, b, output, countA, countB, type${pairs ? ', aValues, bValues, valuesOut, valueBytes' : ''} }`);
  checkCount(args.countA);
  checkCount(args.countB);
  const count = args.countA + args.countB;
  if (count > MERGE_MAX_COUNT) fail('limit-exceeded', `${name}: ${count} merged elements exceed the ${MERGE_MAX_COUNT} one call writes`);
  const t = typeInfo(args.type);
  checkLess(name, args.less);
  if (args.less !== undefined) ctx.requireTypeFeature(t);
  const p = args as MergePairsArgs;
  if (pairs && p.valueBytes !== 4 && p.valueBytes !== 8) fail('invalid-argument', `${name}: valueBytes must be 4 or 8, got ${String(p.valueBytes)}`);
  const valueBytes: 0 | 4 | 8 = pairs ? p.valueBytes : 0;
  ctx.checkBuffer(`${name} a`, args.a, args.countA, t);
  ctx.checkBuffer(`${name} b`, args.b, args.countB, t);
  ctx.checkBuffer(`${name} output`, args.output, count, t);
  const inputs: [string, GPUBuffer][] = [['a', args.a], ['b', args.b]];
  const outputs: [string, GPUBuffer][] = [['output', args.output]];
  if (pairs) {
    const vt = VALUE_INFO[valueBytes as 4 | 8];
    ctx.checkBuffer(`${name} aValues`, p.aValues, args.countA, vt);
    ctx.checkBuffer(`${name} bValues`, p.bValues, args.countB, vt);
    ctx.checkBuffer(`${name} valuesOut`, p.valuesOut, count, vt);
    inputs.push(['aValues', p.aValues], ['bValues', p.bValues]);
    outputs.push(['valuesOut', p.valuesOut]);
  }
  // Inputs may share buffers (a merge of a run with itself); each output is written alone.
  for (const [on, ob] of outputs) {
    for (const [n2, b2] of [...inputs, ...outputs]) {
      if (b2 === ob && n2 !== on) fail('overlap', `${name}: ${on} and ${n2} are the same buffer; the outputs need buffers of their own (out of place only)`);
    }
  }
  const { config } = selectFromTable(ctx, mergeTable, rows, args.type, valueBytes, args.config);
  if (count === 0) return () => undefined;
  const merge = await mergePipelines(ctx, {
    ...config, key: t, valueBytes, source: 'two',
    order: args.less === undefined ? 'bits' : { less: args.less }, label: 'wgprim.merge', keyPrefix: 'merge',
  });
  const partition = mergePartitionScratch(ctx, merge, count, [args.countA], 'two');
  // An empty input (never read) is bound as a word of scratch: a binding cannot be empty.
  const bind = (buffer: GPUBuffer, n: number, bytes: number): GPUBufferBinding => (n === 0
    ? { buffer: ctx.scratch('merge.empty', 8), offset: 0, size: 8 }
    : { buffer, offset: 0, size: roundUp(n * bytes, 4) });
  return (encoder) => {
    const io: GPUBufferBinding[] = [
      bind(args.a, args.countA, t.bytes), bind(args.b, args.countB, t.bytes), bind(args.output, count, t.bytes),
      ...(pairs ? [bind(p.aValues, args.countA, valueBytes), bind(p.bValues, args.countB, valueBytes), bind(p.valuesOut, count, valueBytes)] : []),
    ];
    recordMergePass(ctx, encoder, merge, { count, run: args.countA, source: 'two', mask: wholeKeyMask(t), flip: 0, io, partition });
  };
}

/** Records a stable merge (ties take a first) into `encoder`. */
export async function recordMerge(ctx: DeviceContext, rows: readonly (readonly TunedEntry<MergeConfig>[])[], encoder: GPUCommandEncoder, args: MergeArgs | MergePairsArgs, pairs: boolean): Promise<void> {
  (await prepareMerge(ctx, rows, args, pairs))(encoder);
}
