// nth element and partial sort on the radix select: the smallest `k` keys are selected and sorted
// (top-k's machinery), then the keys are rearranged in place: a selected key at or past `k`
// trades places with an unselected one before `k`, and the first `k` places take the sorted keys.
// A custom `less` orders keys by no bits the radix select could read: those calls sort every key
// with the merge sort in place, which meets both contracts.
import { type DeviceContext, checkCount } from '../../runtime/context.js';
import { ceilDiv } from '../../runtime/dispatch.js';
import { fail } from '../../runtime/errors.js';
import { type Kernel, paramsStruct } from '../../runtime/kernel.js';
import { type ElementType, type TypeInfo, typeInfo } from '../../wgsl/types.js';
import { rawType } from '../../wgsl/thread/radix-key.js';
import { rawKeyBytes } from '../../wgsl/device/raw-keys.js';
import { selectFromTable } from '../select.js';
import { type TopKConfig } from './config.js';
import { recordSelect, recordSortSelected, type SelectTables } from './top-k.js';
import { nthElementTable } from './table.js';
import { checkArgs } from '../common.js';
import { checkLess } from '../merge/order.js';
import { prepareMergeSort } from '../merge-sort/merge-sort.js';

export interface NthElementArgs {
  /** Rearranged in place. */
  readonly keys: GPUBuffer;
  readonly count: number;
  /** 0 to count - 1: afterwards this position holds what a full sort would put there. */
  readonly nth: number;
  readonly type: ElementType;
  /**
   * WGSL expression over `a` and `b` (as the merge sort's `less`): a strict weak order. Default:
   * ascending, floats in the radix sort's total order. With it the keys are fully sorted by the
   * merge sort (O(n log n), against the radix select's few passes).
   */
  readonly less?: string;
  readonly config?: Partial<TopKConfig>;
}

export interface PartialSortArgs {
  readonly keys: GPUBuffer;
  readonly count: number;
  /** 0 to count: afterwards the first `middle` positions hold the smallest `middle` keys in order. */
  readonly middle: number;
  readonly type: ElementType;
  /**
   * WGSL expression over `a` and `b` (as the merge sort's `less`): a strict weak order. Default:
   * ascending, floats in the radix sort's total order. With it the keys are fully sorted by the
   * merge sort (O(n log n), against the radix select's few passes).
   */
  readonly less?: string;
  readonly config?: Partial<TopKConfig>;
}

/** Steps of the rearrangement, one dispatch each: mark selected places before k, list the trades, make them. */
const ARRANGE_PARAMS = ['k', 'step'] as const;

function arrangeKernel(t: TypeInfo): Kernel {
  const K = rawType(t);
  const half = t.bytes === 2;
  // 16-bit keys share words: moved with atomic and / or on their own half.
  const keysDecl = half ? 'array<atomic<u32>>' : `array<${K}>`;
  const move = half
    ? `let w = (atomicLoad(&keys[b >> 1u]) >> ((b & 1u) * 16u)) & 0xffffu;
      let sh = (a & 1u) * 16u;
      atomicAnd(&keys[a >> 1u], ~(0xffffu << sh));
      atomicOr(&keys[a >> 1u], w << sh);`
    : 'keys[a] = keys[b];';
  const code = `${paramsStruct(ARRANGE_PARAMS)}
@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read_write> keys: ${keysDecl};
@group(0) @binding(2) var<storage, read> sel: array<u32>;
// [0] trades from past k, [1] free places before k, then a flag per place before k, the places past k, the free places.
@group(0) @binding(3) var<storage, read_write> arr: array<atomic<u32>>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let j = gid.x + gid.y * nwg.x * 256u;
  if (j >= P.k) { return; }
  if (P.step == 0u) {
    if (sel[j] < P.k) { atomicStore(&arr[2u + sel[j]], 1u); }
  } else if (P.step == 1u) {
    if (sel[j] >= P.k) { atomicStore(&arr[2u + P.k + atomicAdd(&arr[0], 1u)], sel[j]); }
    if (atomicLoad(&arr[2u + j]) == 0u) { atomicStore(&arr[2u + 2u * P.k + atomicAdd(&arr[1], 1u)], j); }
  } else if (j < atomicLoad(&arr[0])) {
    let a = atomicLoad(&arr[2u + P.k + j]);
    let b = atomicLoad(&arr[2u + 2u * P.k + j]);
    ${move}
  }
}
`;
  return { key: ['topk-arrange', half ? 'half' : K].join(':'), label: `wgprim.top-k.arrange.${t.name}`, code, bindings: ['uniform', 'storage', 'read-only-storage', 'storage'], workgroupSize: 256 };
}

/** Records partial sort of the smallest `k` keys into the first `k` places, in place. */
async function recordPartial(ctx: DeviceContext, tables: SelectTables, encoder: GPUCommandEncoder, name: string, keys: GPUBuffer, count: number, k: number, type: ElementType, less: unknown, override: Partial<TopKConfig> | undefined): Promise<void> {
  const t = typeInfo(type);
  ctx.checkBuffer(`${name} keys`, keys, count, t);
  if (count >= 2 ** 31) fail('limit-exceeded', `${name} takes at most 2^31 - 1 keys, got ${count}`);
  checkLess(name, less);
  const { config } = selectFromTable(ctx, nthElementTable, tables.nth, type, 0, override, tables.rows);
  if (less !== undefined) {
    const sort = await prepareMergeSort(ctx, tables.mergeSort, { keys, count, type, less }, false);
    sort(encoder);
    return;
  }
  if (k === 0) return;
  const kb = t.bytes === 8 ? 8 : 4;
  const sel = { keys: ctx.scratch('top-k-selected-keys', k * kb), indices: ctx.scratch('top-k-selected-indices', k * 4) };
  await recordSelect(ctx, config, encoder, { input: keys, count, k, type: t, largest: false }, sel);
  const kernel = arrangeKernel(t);
  const pipeline = await ctx.pipeline(kernel);
  const arr = ctx.scratch('top-k-arrange', (2 + 3 * k) * 4);
  encoder.clearBuffer(arr, 0, (2 + k) * 4);
  for (let step = 0; step < 3; step++) {
    const group = ctx.bindGroup(pipeline, kernel.key, [
      { buffer: ctx.uniform(new Uint32Array([k, step])) }, { buffer: keys, offset: 0, size: rawKeyBytes(t, count) }, { buffer: sel.indices, offset: 0, size: 4 * k }, { buffer: arr },
    ]);
    ctx.dispatch(encoder, kernel.label, pipeline, group, ceilDiv(k, 256));
  }
  // The sort permutes the selected indices too: done after the trades, which read them.
  await recordSortSelected(ctx, tables, encoder, t, false, k, sel, keys);
}


/** Records nth element: in place, position `nth` gets the key a full sort puts there, nothing before it greater, nothing after it less. */
export async function recordNthElement(ctx: DeviceContext, tables: SelectTables, encoder: GPUCommandEncoder, args: NthElementArgs): Promise<void> {
  ctx.assertAlive();
  checkArgs('nthElement', args, 'keys, count, nth, type');
  checkCount(args.count);
  if (typeof args.nth !== 'number' || !Number.isInteger(args.nth) || args.nth < 0 || args.nth >= args.count) fail('invalid-argument', `nthElement: nth must be an integer in [0, count = ${args.count}), got ${String(args.nth)}`);
  await recordPartial(ctx, tables, encoder, 'nthElement', args.keys, args.count, args.nth + 1, args.type, args.less, args.config);
}

/** Records partial sort: in place, the first `middle` positions get the smallest `middle` keys in order; the rest, the others. */
export async function recordPartialSort(ctx: DeviceContext, tables: SelectTables, encoder: GPUCommandEncoder, args: PartialSortArgs): Promise<void> {
  ctx.assertAlive();
  checkArgs('partialSort', args, 'keys, count, middle, type');
  checkCount(args.count);
  if (typeof args.middle !== 'number' || !Number.isInteger(args.middle) || args.middle < 0 || args.middle > args.count) fail('invalid-argument', `partialSort: middle must be an integer in [0, count = ${args.count}], got ${String(args.middle)}`);
  await recordPartial(ctx, tables, encoder, 'partialSort', args.keys, args.count, args.middle, args.type, args.less, args.config);
}
