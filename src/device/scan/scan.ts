import { type DeviceContext, checkCount } from '../../runtime/context.js';
import { ceilDiv } from '../../runtime/dispatch.js';
import { fail } from '../../runtime/errors.js';
import { type Operator, resolveOperator } from '../../wgsl/operators.js';
import { type ElementType, typeInfo } from '../../wgsl/types.js';
import { encodeValue } from '../../wgsl/values.js';
import { type TunedEntry } from '../../config/types.js';
import { selectFromTable } from '../select.js';
import { type ScanConfig } from './config.js';
import { scanTable } from './table.js';
import { scanKernel, type ScanMode } from './kernel.js';
import { lookbackStateWords } from '../../wgsl/device/lookback.js';

export interface ScanArgs {
  readonly input: GPUBuffer;
  /** May be the input buffer itself (in-place scan). */
  readonly output: GPUBuffer;
  readonly count: number;
  readonly type: ElementType;
  /** Defaults to `add`. */
  readonly op?: Operator;
  /** Combined before the first element (exclusive scan: the first output). */
  readonly initialValue?: number | bigint;
  /** Overrides the selected config, field by field. */
  readonly config?: Partial<ScanConfig>;
}

/** Records an inclusive or exclusive device-wide scan into `encoder`. */
export async function recordScan(ctx: DeviceContext, tables: readonly (readonly TunedEntry<ScanConfig>[])[], encoder: GPUCommandEncoder, args: ScanArgs, exclusive: boolean): Promise<void> {
  (await prepareScan(ctx, tables, args, exclusive))(encoder);
}

/**
 * Checks a scan and compiles its pipelines; the returned function records it (synchronously,
 * any number of times). Algorithms that scan inside their own passes prepare the scan first,
 * so nothing is recorded before every pipeline they need exists.
 */
export async function prepareScan(ctx: DeviceContext, tables: readonly (readonly TunedEntry<ScanConfig>[])[], args: ScanArgs, exclusive: boolean): Promise<(encoder: GPUCommandEncoder) => void> {
  ctx.assertAlive();
  if (!args || typeof args !== 'object') fail('invalid-argument', 'scan needs an argument object { input, output, count, type }');
  checkCount(args.count);
  const t = typeInfo(args.type);
  ctx.requireTypeFeature(t);
  const op = resolveOperator(args.op ?? 'add', t);
  ctx.checkBuffer('scan input', args.input, args.count, t);
  ctx.checkBuffer('scan output', args.output, args.count, t);
  const init = args.initialValue === undefined ? undefined : encodeValue(t, args.initialValue, 'initialValue');
  const { config } = selectFromTable(ctx, scanTable, tables, args.type, 0, args.config);
  const { count } = args;
  if (count === 0) return () => {};

  const inPlace = args.input === args.output;
  const tile = config.workgroupSize * config.itemsPerThread;
  const numTiles = ceilDiv(count, tile);
  const base = { type: t, op, config, subgroupMinSize: ctx.target.subgroupMinSize };

  // Every pipeline is compiled before anything is recorded or allocated, so a kernel that
  // does not compile (a custom operator) leaves the caller's encoder untouched.
  type Pass = { mode: ScanMode; exclusive: boolean; inPlace: boolean };
  const passes: Pass[] = numTiles === 1
    ? [{ mode: 'carry', exclusive, inPlace }]
    : config.lookback === 'decoupled'
      ? [{ mode: 'lookback', exclusive, inPlace }]
      : [
        // The first pass only reads the input, so it binds it read-only even for an in-place scan.
        { mode: 'partials-out', exclusive, inPlace: false },
        { mode: 'carry', exclusive: true, inPlace: true },
        { mode: 'partials-in', exclusive, inPlace },
      ];
  const kernels = passes.map((p) => scanKernel({ ...base, ...p }));
  const pipelines = await Promise.all(kernels.map((k) => ctx.pipeline(k)));
  return (encoder) => {
    const dispatch = (i: number, entries: GPUBufferBinding[], workgroups: number): void => {
      const kernel = kernels[i]!;
      const pipeline = pipelines[i]!;
      ctx.dispatch(encoder, kernel.label, pipeline, ctx.bindGroup(pipeline, kernel.key, entries), workgroups);
    };

    const input = inPlace ? undefined : ctx.view(args.input, count, t, 1);
    const output = ctx.view(args.output, count, t, inPlace ? 1 : 3);
    const inTail = (input ?? output).tailStart;
    const params = (n: number, tiles: number, inT: number, outT: number, withInit: [number, number] | undefined): GPUBufferBinding => ({
      buffer: ctx.uniform(new Uint32Array([n, tiles, inT, outT, Math.min(inT, outT), withInit ? 1 : 0, withInit?.[0] ?? 0, withInit?.[1] ?? 0])),
    });
    const userViews = [...(input?.entries ?? []), ...output.entries];

    if (numTiles === 1) {
      // One tile: a single workgroup needs no look-back state.
      dispatch(0, [params(count, 1, inTail, output.tailStart, init), ...userViews], 1);
      return;
    }
    if (config.lookback === 'decoupled') {
      const words = lookbackStateWords(numTiles, t);
      const state = ctx.scratch('scan.lookback', words * 4);
      encoder.clearBuffer(state, 0, words * 4);
      dispatch(0, [params(count, numTiles, inTail, output.tailStart, init), ...userViews, { buffer: state, offset: 0, size: words * 4 }], numTiles);
      return;
    }
    // Reduce-then-scan: tile aggregates, an exclusive scan of them in one workgroup, then the tiles.
    const partialBytes = numTiles * t.bytes;
    const partials = ctx.scratch('scan.partials', partialBytes + 256);
    const partialsBinding: GPUBufferBinding = { buffer: partials, offset: 0, size: Math.ceil(partialBytes / 4) * 4 };
    const readView = input ?? ctx.view(args.input, count, t, 1);
    dispatch(0, [params(count, numTiles, readView.tailStart, readView.tailStart, undefined), ...readView.entries, partialsBinding], numTiles);
    const pv = ctx.view(partials, numTiles, t, 1);
    dispatch(1, [params(numTiles, ceilDiv(numTiles, tile), pv.tailStart, pv.tailStart, undefined), ...pv.entries], 1);
    dispatch(2, [params(count, numTiles, inTail, output.tailStart, init), ...userViews, partialsBinding], numTiles);
  };
}
