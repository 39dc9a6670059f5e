// Host side of the by-key engine: compiles a call's pipelines, then records the marks from
// offsets or the tiles' first begins (segmented scan), and the single pass (look-back) or the
// reduce-then-scan passes.
import { type DeviceContext } from '../../runtime/context.js';
import { ceilDiv } from '../../runtime/dispatch.js';
import { fail } from '../../runtime/errors.js';
import { lookbackStateWords } from '../../wgsl/device/lookback.js';
import { type ResolvedOperator } from '../../wgsl/operators.js';
import { type TypeInfo, typeInfo } from '../../wgsl/types.js';
import { type ByKeyConfig } from './config.js';
import { byKeyKernel, type EngineOutput, type EnginePass, type HeadSource, pairWords } from './kernel.js';
import { marksKernel, MARKS_WG, pairPartialsKernel, TILE_FIRST_WG, tileFirstKernel } from './aux-kernels.js';

/** One call of the engine: checked by the public call that builds it. */
export interface ByKeyCall {
  readonly what: string;
  /** The engine's config; reductions and runs add how a tile writes its runs (`ByKeyReduceConfig.scatter`, default direct). */
  readonly config: ByKeyConfig & { readonly scatter?: 'direct' | 'staged' };
  readonly count: number;
  readonly heads: HeadSource;
  readonly output: EngineOutput;
  readonly key?: TypeInfo;
  readonly value: TypeInfo;
  readonly ones: boolean;
  readonly op: ResolvedOperator;
  readonly equality?: string;
  readonly exclusive: boolean;
  /** The initial value's two words (scans). */
  readonly init?: readonly [number, number];
  readonly keys?: GPUBuffer;
  /** Head flags (`flags`). */
  readonly flags?: GPUBuffer;
  /** Offsets the heads come from (`marks`, `offsets`): `segments` begins, and ends (else begins has segments + 1). */
  readonly offsets?: { readonly begins: GPUBuffer; readonly ends?: GPUBuffer; readonly segments: number };
  readonly values?: GPUBuffer;
  /** `scan`: the scanned values; `reduce`: `first` the unique keys, `second` the aggregates; `runs`: offsets and lengths. */
  readonly out?: GPUBuffer;
  readonly first?: GPUBuffer;
  readonly second?: GPUBuffer;
  readonly runCount?: GPUBuffer;
  /** Elements the scattered outputs have room for (default `count`). */
  readonly scatterCount?: number;
}

/** Throws a typed error when two of the named buffers are one (every output its own, apart from the inputs). */
export function checkDistinct(what: string, named: readonly (readonly [string, GPUBuffer | undefined])[]): void {
  const seen = new Map<GPUBuffer, string>();
  for (const [name, b] of named) {
    if (!b) continue;
    const other = seen.get(b);
    if (other) fail('overlap', `${what}: ${name} and ${other} are the same buffer; the outputs need buffers of their own, apart from the inputs`);
    seen.set(b, name);
  }
}

/** Compiles every pipeline of the call; the result records it (any number of times). */
export async function prepareByKey(ctx: DeviceContext, call: ByKeyCall): Promise<(encoder: GPUCommandEncoder) => void> {
  const { config, count } = call;
  const tile = config.workgroupSize * config.itemsPerThread;
  const numTiles = Math.max(1, ceilDiv(count, tile));
  // One tile waits on nobody, so its single pass is safe on any GPU.
  const decoupled = config.lookback === 'decoupled' || numTiles === 1;
  const passes: EnginePass[] = decoupled ? ['lookback'] : ['partials-out', 'partials-in'];
  // The config's check (its table's) made sure a staged tile's runs fit workgroup memory.
  const staged = call.output !== 'scan' && config.scatter === 'staged';
  const base = {
    heads: call.heads, output: call.output, key: call.key, value: call.value, ones: call.ones, op: call.op, equality: call.equality,
    exclusive: call.exclusive, config, subgroupMinSize: ctx.target.subgroupMinSize, staged,
  };
  const kernels = passes.map((pass) => byKeyKernel({ ...base, pass }));
  const storage = kernels[kernels.length - 1]!.bindings.filter((b) => b !== 'uniform').length;
  if (storage > ctx.limits.maxStorageBuffersPerShaderStage) {
    fail('limit-exceeded', `${call.what} binds ${storage} storage buffers, over this device's maxStorageBuffersPerShaderStage of ${ctx.limits.maxStorageBuffersPerShaderStage}; create the device with the adapter's limit (wgprim/node's requestDevice does)`);
  }
  const gaps = call.heads === 'marks';
  const partialsKernel = decoupled ? undefined : pairPartialsKernel(call.value, call.op, gaps);
  // The pass that turns offsets into what the kernel reads: marks, or each tile's first begin.
  const headsKernel = gaps ? marksKernel() : call.heads === 'offsets' ? tileFirstKernel(tile) : undefined;
  const all = [...kernels, ...(partialsKernel ? [partialsKernel] : []), ...(headsKernel ? [headsKernel] : [])];
  const pipelines = await Promise.all(all.map((k) => ctx.pipeline(k)));

  return (encoder) => {
    const dispatch = (i: number, entries: GPUBufferBinding[], workgroups: number): void => {
      const kernel = all[i]!;
      const pipeline = pipelines[i]!;
      ctx.dispatch(encoder, kernel.label, pipeline, ctx.bindGroup(pipeline, kernel.key, entries), workgroups);
    };
    if (call.runCount) encoder.clearBuffer(call.runCount, 0, 4);
    // Fewer than two elements hold no run longer than one.
    if (count === 0 || (call.output === 'runs' && count < 2)) return;

    let flagsBinding: GPUBufferBinding | undefined = call.flags ? { buffer: call.flags, offset: 0, size: count * 4 } : undefined;
    let tileFirst: GPUBufferBinding[] = [];
    if (call.heads === 'offsets') {
      const { begins, segments } = call.offsets!;
      // No segment: nothing is written.
      if (segments === 0) return;
      const bytes = (numTiles + 3) * 4;
      const buf = ctx.scratch('bykey.tile-first', bytes);
      const params = ctx.uniform(new Uint32Array([segments, count, numTiles]));
      tileFirst = [{ buffer: begins, offset: 0, size: (segments + 1) * 4 }, { buffer: buf, offset: 0, size: bytes }];
      dispatch(all.length - 1, [{ buffer: params }, ...tileFirst], ceilDiv(numTiles + 3, TILE_FIRST_WG));
    }
    if (gaps && call.offsets) {
      const bytes = count * 4;
      const buf = ctx.scratch('bykey.marks', bytes);
      encoder.clearBuffer(buf, 0, Math.ceil(bytes / 4) * 4);
      const { begins, ends, segments } = call.offsets;
      if (segments > 0) {
        const shift = ends ? 0 : 1;
        const params = ctx.uniform(new Uint32Array([segments, count, shift]));
        const endsBinding = ends ? { buffer: ends, offset: 0, size: segments * 4 } : { buffer: begins, offset: 0, size: (segments + 1) * 4 };
        dispatch(all.length - 1, [{ buffer: params }, { buffer: begins, offset: 0, size: (segments + shift) * 4 }, endsBinding, { buffer: buf, offset: 0, size: bytes }], ceilDiv(segments, MARKS_WG));
      }
      flagsBinding = { buffer: buf, offset: 0, size: bytes };
    }

    let slot = 1;
    const front: GPUBufferBinding[] = [];
    let keysTail = count;
    if (call.heads === 'keys') {
      const kv = ctx.view(call.keys!, count, call.key!, slot);
      front.push(...kv.entries);
      keysTail = kv.tailStart;
      slot += 2;
    } else if (call.heads === 'offsets') {
      front.push(...tileFirst);
      slot += 2;
    } else {
      // The flags' view: its tail start goes where the keys' would.
      const fv = ctx.view(flagsBinding!.buffer, count, typeInfo('u32'), slot);
      front.push(...fv.entries);
      keysTail = fv.tailStart;
      slot += 2;
    }
    let valsTail = count;
    if (!call.ones) {
      const vv = ctx.view(call.values!, count, call.value, slot);
      front.push(...vv.entries);
      valsTail = vv.tailStart;
      slot += 2;
    }
    const outputs: GPUBufferBinding[] = [];
    let outTail = count;
    let auxTail = 0;
    const scatter = (b: GPUBuffer, t: TypeInfo): number => {
      if (t.bytes === 2) {
        const v = ctx.view(b, count, t, slot);
        outputs.push(...v.entries);
        slot += 2;
        return v.tailStart;
      }
      outputs.push({ buffer: b, offset: 0, size: (call.scatterCount ?? count) * t.bytes });
      slot += 1;
      return 0;
    };
    if (call.output === 'scan') {
      const ov = ctx.view(call.out!, count, call.value, slot);
      outputs.push(...ov.entries);
      outTail = ov.tailStart;
      slot += 2;
    } else if (call.output === 'reduce') {
      auxTail = scatter(call.first!, call.key!);
      outTail = scatter(call.second!, call.value);
    } else {
      scatter(call.first!, typeInfo('u32'));
      scatter(call.second!, typeInfo('u32'));
    }
    if (call.runCount) outputs.push({ buffer: call.runCount, offset: 0, size: 4 });
    const fastEnd = Math.min(keysTail, valsTail, call.output === 'scan' ? outTail : count);
    const init = call.init ?? [0, 0];
    const params = ctx.uniform(new Uint32Array([count, numTiles, keysTail, valsTail, outTail, auxTail, fastEnd, call.init ? 1 : 0, init[0], init[1]]));
    const head = [{ buffer: params }, ...front];

    if (decoupled) {
      const words = lookbackStateWords(numTiles, { words: pairWords(call.value) });
      const state = ctx.scratch('bykey.lookback', words * 4);
      encoder.clearBuffer(state, 0, words * 4);
      dispatch(0, [...head, ...outputs, { buffer: state, offset: 0, size: words * 4 }], numTiles);
      return;
    }
    const partialBytes = numTiles * 4 * (pairWords(call.value) === 3 ? 4 : 2);
    const partials: GPUBufferBinding = { buffer: ctx.scratch('bykey.partials', partialBytes), offset: 0, size: partialBytes };
    dispatch(0, [...head, partials], numTiles);
    dispatch(2, [{ buffer: ctx.uniform(new Uint32Array([numTiles])) }, partials], 1);
    dispatch(1, [...head, ...outputs, partials], numTiles);
  };
}
