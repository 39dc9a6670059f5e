// Host side of the find family: checks a call, selects its config, compiles its pipeline, then
// records one dispatch: the early-exit scan, whose last workgroup writes the result and leaves
// the state zero for the next call (a call answered without a scan writes its answer alone).
import { type DeviceContext, checkCount } from '../../runtime/context.js';
import { ceilDiv } from '../../runtime/dispatch.js';
import { fail } from '../../runtime/errors.js';
import { type ElementType, typeInfo } from '../../wgsl/types.js';
import { encodeValue } from '../../wgsl/values.js';
import { type SearchOrder } from '../../wgsl/device/early-exit.js';
import { type TunedEntry } from '../../config/types.js';
import { type ConfigTable } from '../spec.js';
import { selectFromTable } from '../select.js';
import { type FindConfig } from './config.js';
import { defaultFindEquality, findAnswerKernel, findKernel, type FindKind, firstOfLookup } from './kernel.js';

/** One call of the scanner, as the public calls describe it. */
export interface FindCall {
  /** The public call's name, for messages. */
  readonly what: string;
  readonly table: ConfigTable<FindConfig>;
  readonly kind: FindKind;
  readonly order: SearchOrder;
  readonly input: GPUBuffer;
  readonly count: number;
  readonly type: ElementType;
  readonly output: GPUBuffer;
  /** Targets (first-of) or pattern (search), and how many; for a run, n. */
  readonly aux?: GPUBuffer;
  readonly auxName?: string;
  readonly auxCount?: number;
  /** The value a run repeats (search_n). */
  readonly value?: number | bigint;
  readonly equality?: string;
  readonly config?: Partial<FindConfig>;
}

/** Throws a typed error unless `expr` is a non-empty WGSL expression string. */
export function checkEquality(what: string, expr: unknown): void {
  if (expr !== undefined && (typeof expr !== 'string' || !expr.trim())) fail('invalid-operator', `${what} \`equality\` must be a WGSL expression over a and b that evaluates to bool`);
}

/**
 * Candidate positions, or the answer without a scan: the C++ standard library's for empty
 * patterns (search: 0, find_end: count) and n = 0 (search_n: 0), and `count` where nothing fits.
 */
function candidates(call: FindCall): { num: number } | { answer: number } {
  const { count, kind } = call;
  const m = call.auxCount ?? 0;
  switch (kind) {
    case 'adjacent': return count < 2 ? { answer: count } : { num: count - 1 };
    case 'first-of': return count === 0 || m === 0 ? { answer: count } : { num: count };
    case 'search':
    case 'run':
      if (m === 0) return { answer: call.order === 'first' ? 0 : count };
      return m > count ? { answer: count } : { num: count - m + 1 };
  }
}

/** Bytes of the scan's state: the best match, the tile counter and the count of workgroups out. */
export const FIND_STATE_BYTES = 12;

/** Checks the call, selects its config and compiles its pipelines; the result records it. */
export async function prepareFind(ctx: DeviceContext, rows: readonly (readonly TunedEntry<FindConfig>[])[], call: FindCall): Promise<(encoder: GPUCommandEncoder) => void> {
  ctx.assertAlive();
  const { what, count } = call;
  checkCount(count);
  const t = typeInfo(call.type);
  ctx.requireTypeFeature(t);
  ctx.checkBuffer(`${what} input`, call.input, count, t);
  ctx.checkBuffer(`${what} output`, call.output, 1, typeInfo('u32'));
  if (call.output === call.input) fail('overlap', `${what} output must not be the input buffer`);
  if (call.kind === 'first-of' || call.kind === 'search' || call.kind === 'run') {
    const m = call.auxCount;
    if (typeof m !== 'number' || !Number.isInteger(m) || m < 0 || m > 0xffffffff) fail('invalid-argument', `${what} ${call.auxName} must be a non-negative integer below 2^32, got ${String(m)}`);
  }
  if (call.kind === 'first-of' || call.kind === 'search') {
    ctx.checkBuffer(`${what} ${call.auxName === 'targetCount' ? 'targets' : 'pattern'}`, call.aux, call.auxCount!, t);
    if (call.aux === call.output) fail('overlap', `${what} output must not be the ${call.auxName === 'targetCount' ? 'targets' : 'pattern'} buffer`);
  }
  const value = call.kind === 'run' ? encodeValue(t, call.value as number | bigint, `${what} value`) : [0, 0];
  checkEquality(what, call.equality);
  const { config } = selectFromTable(ctx, call.table, rows, call.type, 0, call.config);

  const c = candidates(call);
  const tile = config.workgroupSize * config.itemsPerThread;
  const numTiles = 'num' in c ? ceilDiv(c.num, tile) : 0;
  // Tile ends are u32 in the kernel.
  if (numTiles * tile > 0xffffffff) fail('limit-exceeded', `${what} of ${count} elements needs tile ends past 2^32 with tiles of ${tile}; split the input`);
  const custom = call.equality !== undefined;
  const lookup = call.kind === 'first-of' ? firstOfLookup(call.auxCount!, custom) : undefined;
  if ('answer' in c) {
    const kernel = findAnswerKernel();
    const pipeline = await ctx.pipeline(kernel);
    return (encoder) => {
      const entries: GPUBufferBinding[] = [{ buffer: ctx.uniform(new Uint32Array([c.answer])) }, { buffer: call.output, offset: 0, size: 4 }];
      ctx.dispatch(encoder, kernel.label, pipeline, ctx.bindGroup(pipeline, kernel.key, entries), 1);
    };
  }
  const kernel = findKernel({ kind: call.kind, order: call.order, type: t, equality: call.equality ?? defaultFindEquality(t), custom, lookup, config });
  const pipeline = await ctx.pipeline(kernel);
  return (encoder) => {
    // Zero when created, and every scan leaves it zero (FIND_STATE_BYTES).
    const state = ctx.scratch('find.state', FIND_STATE_BYTES);
    const input = ctx.view(call.input, count, t, 1);
    const aux = call.kind === 'first-of' || call.kind === 'search' ? ctx.view(call.aux!, call.auxCount!, t, 3) : undefined;
    const params = ctx.uniform(new Uint32Array([
      c.num, numTiles, input.tailStart, Math.min(input.tailStart, c.num), call.auxCount ?? 0, aux?.tailStart ?? 0, value[0], value[1], count, 0,
    ]));
    const entries: GPUBufferBinding[] = [
      { buffer: params }, ...input.entries, ...(aux?.entries ?? []),
      { buffer: state, offset: 0, size: FIND_STATE_BYTES }, { buffer: call.output, offset: 0, size: 4 },
    ];
    ctx.dispatch(encoder, kernel.label, pipeline, ctx.bindGroup(pipeline, kernel.key, entries), Math.min(numTiles, config.grid));
  };
}

/** Records one call of the scanner into `encoder`. */
export async function recordFind(ctx: DeviceContext, rows: readonly (readonly TunedEntry<FindConfig>[])[], encoder: GPUCommandEncoder, call: FindCall): Promise<void> {
  (await prepareFind(ctx, rows, call))(encoder);
}
