import { type DeviceContext, checkCount } from '../../runtime/context.js';
import { ceilDiv } from '../../runtime/dispatch.js';
import { fail } from '../../runtime/errors.js';
import { type ElementType, type TypeInfo, typeInfo } from '../../wgsl/types.js';
import { rawKeyBytes } from '../../wgsl/device/raw-keys.js';
import { type TunedEntry } from '../../config/types.js';
import { selectFromTable } from '../select.js';
import { recordRadixSort } from '../radix-sort/radix-sort.js';
import { type RadixSortConfig } from '../radix-sort/config.js';
import { type RadixSortBlockSortConfig } from '../radix-sort/block-sort-config.js';
import { type ScanConfig } from '../scan/config.js';
import { type TopKConfig } from './config.js';
import { chooseKernel, countKernel, emitKernel, stateWords } from './kernel.js';
import { nthElementTable, topKTable } from './table.js';
import { type MergeSortTables } from '../merge-sort/merge-sort.js';
import { mergeSortBlockMergeTable, mergeSortBlockSortTable } from '../merge-sort/table.js';
import { radixSortBlockSortTable, radixSortTable } from '../radix-sort/table.js';
import { scanTable } from '../scan/table.js';
import { type AlgorithmEnv } from '../spec.js';

/** The rows of the tables a select consults: its own, and the radix sort's (with scan's) for sorting the k. */
export interface SelectTables {
  readonly rows: readonly (readonly TunedEntry<TopKConfig>[])[];
  /** nth element's and partial sort's (`rows` are their fallback). */
  readonly nth: readonly (readonly TunedEntry<TopKConfig>[])[];
  readonly sort: readonly (readonly TunedEntry<RadixSortConfig>[])[];
  readonly blockSort: readonly (readonly TunedEntry<RadixSortBlockSortConfig>[])[];
  readonly scan: readonly (readonly TunedEntry<ScanConfig>[])[];
  /** The merge sort's, for nth element and partial sort with a custom `less`. */
  readonly mergeSort: MergeSortTables;
}

/** The tables of a prim's top-k calls. */
export const selectTables = (env: AlgorithmEnv): SelectTables => ({
  rows: env.rows(topKTable), nth: env.rows(nthElementTable), sort: env.rows(radixSortTable), blockSort: env.rows(radixSortBlockSortTable), scan: env.rows(scanTable),
  mergeSort: { blockSort: env.rows(mergeSortBlockSortTable), blockMerge: env.rows(mergeSortBlockMergeTable) },
});

export interface TopKArgs {
  readonly input: GPUBuffer;
  readonly count: number;
  /** How many to select: 0 to `count`. */
  readonly k: number;
  readonly type: ElementType;
  /** The k largest (default), or the k smallest; in the radix sort's total order (floats: NaN is largest, -NaN smallest). */
  readonly largest?: boolean;
  /** The k keys, largest first (smallest first with `largest: false`). */
  readonly valuesOut: GPUBuffer;
  /** Their u32 indices in `input`; among equal keys in no set order. */
  readonly indicesOut: GPUBuffer;
  readonly config?: Partial<TopKConfig>;
}

/** Where the selected keys' ordered bits go (one word a key, two for 8-byte keys) and their indices. */
export interface Selected {
  readonly keys: GPUBuffer;
  readonly indices: GPUBuffer;
}

/** The radix select's passes: digits from the most significant end, `radixBits` each, the last one narrower. */
export function selectPasses(t: TypeInfo, radixBits: number): { shift: number; bits: number }[] {
  const total = t.bytes * 8;
  const out: { shift: number; bits: number }[] = [];
  for (let top = total; top > 0; top -= radixBits) out.push({ shift: Math.max(0, top - radixBits), bits: Math.min(radixBits, top) });
  return out;
}

/**
 * Records the radix select of the k smallest (or largest) keys: their ordered bits (complemented
 * for the largest) into `out.keys`, unsorted, and their indices into `out.indices`. AIR's
 * passes: histogram the digit of the keys still in the running, pick the k-th's bin in one
 * workgroup, repeat; the second pass keeps the keys in the running as candidates.
 */
export async function recordSelect(ctx: DeviceContext, config: TopKConfig, encoder: GPUCommandEncoder, o: { input: GPUBuffer; count: number; k: number; type: TypeInfo; largest: boolean }, out: Selected): Promise<void> {
  const t = o.type;
  const kb = t.bytes === 8 ? 8 : 4;
  const passes = selectPasses(t, config.radixBits);
  const countK = countKernel({ type: t, largest: o.largest, final: false, config });
  const finalK = countKernel({ type: t, largest: o.largest, final: true, config });
  const chooseK = chooseKernel(t, config.radixBits);
  const [count, choose, final] = await Promise.all([ctx.pipeline(countK), ctx.pipeline(chooseK), ctx.pipeline(finalK)]);
  const cap = Math.max(1, Math.ceil(o.count / config.candidateDivisor));
  const state = ctx.scratch('top-k-state', 4 * stateWords(config.radixBits));
  const candKeys = ctx.scratch('top-k-candidate-keys', cap * kb);
  const candIdx = ctx.scratch('top-k-candidate-indices', cap * 4);
  const grid = Math.min(config.gridSize, ceilDiv(o.count, config.workgroupSize * config.itemsPerThread));
  const buffers = [
    { buffer: o.input, offset: 0, size: rawKeyBytes(t, o.count) }, { buffer: state }, { buffer: candKeys }, { buffer: candIdx },
    { buffer: out.keys, offset: 0, size: o.k * kb }, { buffer: out.indices, offset: 0, size: o.k * 4 },
  ];
  encoder.clearBuffer(state);
  let lastTop = t.bytes * 8;
  passes.forEach((pass, p) => {
    const params = ctx.uniform(new Uint32Array([o.count, o.k, pass.shift, pass.bits, lastTop, p >= 2 ? 1 : 0, p === 1 ? 1 : 0, cap]));
    ctx.dispatch(encoder, countK.label, count, ctx.bindGroup(count, countK.key, [{ buffer: params }, ...buffers]), grid);
    const cp = ctx.uniform(new Uint32Array([o.k, p === 0 ? 1 : 0, pass.shift, pass.bits]));
    ctx.dispatch(encoder, chooseK.label, choose, ctx.bindGroup(choose, chooseK.key, [{ buffer: cp }, { buffer: state }]), 1);
    lastTop = pass.shift + pass.bits;
  });
  const fp = ctx.uniform(new Uint32Array([o.count, o.k, 0, 0, lastTop, 1, 0, cap]));
  ctx.dispatch(encoder, finalK.label, final, ctx.bindGroup(final, finalK.key, [{ buffer: fp }, ...buffers]), grid);
}

/** Records the stable radix sort of the selected (ordered bits, indices) pairs, then writes the keys back in the caller's type. */
export async function recordSortSelected(ctx: DeviceContext, tables: SelectTables, encoder: GPUCommandEncoder, t: TypeInfo, largest: boolean, k: number, sel: Selected, valuesOut: GPUBuffer): Promise<void> {
  await recordRadixSort(ctx, tables.sort, tables.blockSort, tables.scan, encoder, {
    keys: sel.keys, values: sel.indices, valueBytes: 4, count: k, type: t.bytes === 8 ? 'u64' : 'u32', endBit: t.bytes * 8,
  }, true);
  const emitK = emitKernel(t, largest);
  const emit = await ctx.pipeline(emitK);
  const params = ctx.uniform(new Uint32Array([k]));
  const group = ctx.bindGroup(emit, emitK.key, [{ buffer: params }, { buffer: sel.keys, offset: 0, size: k * (t.bytes === 8 ? 8 : 4) }, { buffer: valuesOut, offset: 0, size: rawKeyBytes(t, k) }]);
  ctx.dispatch(encoder, emitK.label, emit, group, ceilDiv(t.bytes === 2 ? ceilDiv(k, 2) : k, 256));
}

export function checkInput(ctx: DeviceContext, name: string, input: GPUBuffer, count: number, type: ElementType): TypeInfo {
  checkCount(count);
  const t = typeInfo(type);
  ctx.checkBuffer(`${name} input`, input, count, t);
  if (count >= 2 ** 31) fail('limit-exceeded', `${name} takes at most 2^31 - 1 keys, got ${count}`);
  return t;
}

/** Records top-k: the k largest (or smallest) keys, ordered, and their indices. */
export async function recordTopK(ctx: DeviceContext, tables: SelectTables, encoder: GPUCommandEncoder, args: TopKArgs): Promise<void> {
  ctx.assertAlive();
  if (!args || typeof args !== 'object') fail('invalid-argument', 'topK needs an argument object { input, count, k, type, valuesOut, indicesOut }');
  const t = checkInput(ctx, 'topK', args.input, args.count, args.type);
  if (typeof args.k !== 'number' || !Number.isInteger(args.k) || args.k < 0 || args.k > args.count) fail('invalid-argument', `topK: k must be an integer in [0, count = ${args.count}], got ${String(args.k)}`);
  if (args.largest !== undefined && typeof args.largest !== 'boolean') fail('invalid-argument', `topK: largest must be a boolean, got ${String(args.largest)}`);
  ctx.checkBuffer('topK valuesOut', args.valuesOut, args.k, t);
  ctx.checkBuffer('topK indicesOut', args.indicesOut, args.k, typeInfo('u32'));
  if (args.valuesOut === args.input || args.indicesOut === args.input || args.valuesOut === args.indicesOut) fail('overlap', 'topK: input, valuesOut and indicesOut must be three different buffers');
  const { config } = selectFromTable(ctx, topKTable, tables.rows, args.type, 0, args.config);
  if (args.k === 0) return;
  const largest = args.largest ?? true;
  const sel = { keys: ctx.scratch('top-k-selected-keys', args.k * (t.bytes === 8 ? 8 : 4)), indices: args.indicesOut };
  await recordSelect(ctx, config, encoder, { input: args.input, count: args.count, k: args.k, type: t, largest }, sel);
  await recordSortSelected(ctx, tables, encoder, t, largest, args.k, sel, args.valuesOut);
}
