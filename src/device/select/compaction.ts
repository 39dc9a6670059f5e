// Host side of the compaction engine: checks a call, selects its config, compiles its
// pipelines, then records the single-pass (look-back) or the reduce-then-scan passes.
import { type DeviceContext, checkCount } from '../../runtime/context.js';
import { ceilDiv } from '../../runtime/dispatch.js';
import { fail } from '../../runtime/errors.js';
import { type ElementType, type TypeInfo, typeInfo } from '../../wgsl/types.js';
import { lookbackStateWords } from '../../wgsl/device/lookback.js';
import { type TunedEntry } from '../../config/types.js';
import { type ConfigTable } from '../spec.js';
import { selectFromTable } from '../select.js';
import { prepareScan } from '../scan/scan.js';
import { type ScanConfig } from '../scan/config.js';
import { type SelectConfig } from './config.js';
import { compactionKernel, countType, type CompactionPass, type FlagBytes, type FlagSource, type OutputLayout } from './kernel.js';

/** One call of the engine, as the public calls describe it. */
export interface CompactionCall {
  /** The public call's name, for messages. */
  readonly what: string;
  readonly table: ConfigTable<SelectConfig>;
  readonly input: GPUBuffer;
  readonly count: number;
  readonly type: ElementType;
  readonly source: FlagSource;
  readonly layout: OutputLayout;
  readonly predicate?: string;
  readonly second?: string;
  readonly equality?: string;
  readonly flags?: GPUBuffer;
  /** Bytes a flag: 4 (`u32`, the default) or 1 (packed four to a word). */
  readonly flagBytes?: FlagBytes;
  readonly values?: GPUBuffer;
  readonly valuesOut?: GPUBuffer;
  readonly valueBytes?: 4 | 8;
  /** Named outputs in binding order: `out`, then `second`, then `rejected` as the layout has them. */
  readonly outputs: readonly (readonly [name: string, buffer: GPUBuffer | undefined])[];
  /** Receives the selected count (one u32), or two for three-way. */
  readonly counts: GPUBuffer;
  readonly countsName: string;
  readonly config?: Partial<SelectConfig>;
}

export interface CompactionTables {
  readonly rows: readonly (readonly TunedEntry<SelectConfig>[])[];
  readonly scanRows: readonly (readonly TunedEntry<ScanConfig>[])[];
}

/** Throws a typed error unless `expr` is a non-empty WGSL expression string. */
export function checkExpression(what: string, name: string, expr: unknown, over: string): asserts expr is string {
  if (typeof expr !== 'string' || !expr.trim()) fail('invalid-operator', `${what} needs \`${name}\`: a WGSL expression over ${over} that evaluates to bool`);
}

function checkU32Buffer(ctx: DeviceContext, what: string, buffer: GPUBuffer | undefined, words: number): void {
  ctx.checkBuffer(what, buffer, words, typeInfo('u32'));
}

function checkDistinct(what: string, named: readonly (readonly [string, GPUBuffer | undefined])[]): void {
  const seen = new Map<GPUBuffer, string>();
  for (const [name, b] of named) {
    if (!b) continue;
    const other = seen.get(b);
    if (other) fail('overlap', `${what}: ${name} and ${other} are the same buffer; every output needs its own, apart from the inputs (out of place only)`);
    seen.set(b, name);
  }
}

/** Checks the call, selects its config and compiles every pipeline; the result records it. */
export async function prepareCompaction(ctx: DeviceContext, tables: CompactionTables, call: CompactionCall): Promise<(encoder: GPUCommandEncoder) => void> {
  ctx.assertAlive();
  const { what, count } = call;
  checkCount(count);
  const t = typeInfo(call.type);
  ctx.requireTypeFeature(t);
  ctx.checkBuffer(`${what} input`, call.input, count, t);
  for (const [name, b] of call.outputs) ctx.checkBuffer(`${what} ${name}`, b, count, t);
  const flagBytes = call.flagBytes ?? 4;
  if (call.flagBytes !== undefined && call.flags === undefined) fail('invalid-argument', `${what}: flagBytes describes flags, and no flags were given`);
  if (flagBytes !== 1 && flagBytes !== 4) fail('invalid-argument', `${what} flagBytes must be 1 or 4, got ${String(flagBytes)}`);
  // Byte flags are read a word at a time: the buffer holds whole words (count rounded up to 4 bytes).
  const flagWords = flagBytes === 1 ? ceilDiv(count, 4) : count;
  if (call.flags !== undefined || call.source === 'flags' || call.source === 'predicated-flags') checkU32Buffer(ctx, `${what} flags${flagBytes === 1 ? ' (bytes, four a word)' : ''}`, call.flags, flagWords);
  if (call.valueBytes) {
    const vt: TypeInfo = typeInfo(call.valueBytes === 8 ? 'u64' : 'u32');
    ctx.checkBuffer(`${what} values`, call.values, count, vt);
    ctx.checkBuffer(`${what} valuesOut`, call.valuesOut, count, vt);
  }
  const C = countType(call.layout);
  checkU32Buffer(ctx, `${what} ${call.countsName}`, call.counts, C.words);
  checkDistinct(what, [['input', call.input], ['flags', call.flags], ['values', call.values], ...call.outputs, ['valuesOut', call.valuesOut], [call.countsName, call.counts]]);
  const { config } = selectFromTable(ctx, call.table, tables.rows, call.type, 0, call.config);

  const tile = config.workgroupSize * config.itemsPerThread;
  const numTiles = Math.max(1, ceilDiv(count, tile));
  // One tile needs no waiting, so its single pass is safe on any GPU.
  const decoupled = config.lookback === 'decoupled' || numTiles === 1;
  const passes: CompactionPass[] = decoupled ? ['lookback'] : ['partials-out', 'partials-in'];
  const kernels = passes.map((pass) => compactionKernel({
    type: t, source: call.source, layout: call.layout, predicate: call.predicate, second: call.second, equality: call.equality,
    valueBytes: call.valueBytes, flagBytes, pass, config, subgroupMinSize: ctx.target.subgroupMinSize, subgroupMaxSize: ctx.target.subgroupMaxSize,
  }));
  const storage = kernels[kernels.length - 1]!.bindings.filter((b) => b !== 'uniform').length;
  if (storage > ctx.limits.maxStorageBuffersPerShaderStage) {
    fail('limit-exceeded', `${what} of ${t.name} binds ${storage} storage buffers, over this device's maxStorageBuffersPerShaderStage of ${ctx.limits.maxStorageBuffersPerShaderStage}; create the device with the adapter's limit (wgprim/node's requestDevice does)`);
  }
  const pipelines = await Promise.all(kernels.map((k) => ctx.pipeline(k)));
  const scanPartials = decoupled ? undefined : await prepareScan(ctx, tables.scanRows, {
    input: ctx.scratch('compaction.partials', numTiles * C.bytes),
    output: ctx.scratch('compaction.partials', numTiles * C.bytes),
    count: numTiles, type: C.name, config: { lookback: 'reduce-then-scan' },
  }, true);

  return (encoder) => {
    if (count === 0) {
      encoder.clearBuffer(call.counts, 0, 4 * C.words);
      return;
    }
    const input = ctx.view(call.input, count, t, 1);
    let slot = 3;
    const outViews = call.outputs.map(([, b]) => {
      const v = ctx.view(b!, count, t, slot);
      slot += 2;
      return v;
    });
    const tails = [0, 0, 0];
    // Tail slots by role: out, second, rejected (two-way's second output is its rejected).
    outViews.forEach((v, i) => { tails[call.layout === 'two-way' && i === 1 ? 2 : i] = v.tailStart; });
    const params = ctx.uniform(new Uint32Array([count, numTiles, input.tailStart, input.tailStart, ...tails]));
    const front: GPUBufferBinding[] = [{ buffer: params }, ...input.entries];
    if (call.flags) front.push({ buffer: call.flags, offset: 0, size: flagWords * 4 });
    const outputs: GPUBufferBinding[] = [];
    if (call.values) outputs.push({ buffer: call.values, offset: 0, size: count * call.valueBytes! });
    outViews.forEach((v, i) => {
      if (t.bytes === 2) outputs.push(...v.entries);
      else outputs.push({ buffer: call.outputs[i]![1]!, offset: 0, size: count * t.bytes });
    });
    if (call.valuesOut) outputs.push({ buffer: call.valuesOut, offset: 0, size: count * call.valueBytes! });
    outputs.push({ buffer: call.counts, offset: 0, size: 4 * C.words });
    const dispatch = (i: number, entries: GPUBufferBinding[]): void => {
      const kernel = kernels[i]!;
      const pipeline = pipelines[i]!;
      ctx.dispatch(encoder, kernel.label, pipeline, ctx.bindGroup(pipeline, kernel.key, entries), numTiles);
    };
    if (decoupled) {
      const words = lookbackStateWords(numTiles, C);
      const state = ctx.scratch('compaction.lookback', words * 4);
      encoder.clearBuffer(state, 0, words * 4);
      dispatch(0, [...front, ...outputs, { buffer: state, offset: 0, size: words * 4 }]);
      return;
    }
    const partialBytes = Math.ceil((numTiles * C.bytes) / 4) * 4;
    const partials: GPUBufferBinding = { buffer: ctx.scratch('compaction.partials', numTiles * C.bytes), offset: 0, size: partialBytes };
    dispatch(0, [...front, partials]);
    scanPartials!(encoder);
    dispatch(1, [...front, ...outputs, partials]);
  };
}

/** Records one call of the engine into `encoder`. */
export async function recordCompaction(ctx: DeviceContext, tables: CompactionTables, encoder: GPUCommandEncoder, call: CompactionCall): Promise<void> {
  (await prepareCompaction(ctx, tables, call))(encoder);
}

export { type FlagSource, type OutputLayout };
