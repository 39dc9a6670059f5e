import { type Kernel, LINEAR_WORKGROUP_ID, paramsStruct } from '../../runtime/kernel.js';
import { type TypeInfo } from '../../wgsl/types.js';
import { keyFunctions, keyLess, rawType } from '../../wgsl/thread/radix-key.js';
import { rawKeyArrayWgsl } from '../../wgsl/device/raw-keys.js';
import { histogramAdd, histogramClear, histogramFlush, type SharedHistogram } from '../../wgsl/workgroup/histogram.js';
import { sharedInclusiveSum } from '../../wgsl/workgroup/shared-scan.js';
import { type TopKConfig } from './config.js';

/**
 * The select's state, in one u32 buffer: the rank still wanted among the keys that share the
 * prefix, the candidates kept and whether they overflowed, the output counters (keys below the
 * prefix, keys equal to the k-th), the prefix (ordered bits chosen so far), then the bins.
 */
export const STATE = { kRem: 0, candCount: 1, overflow: 2, below: 3, equal: 4, prefixLo: 5, prefixHi: 6, bins: 8 } as const;
export const stateWords = (radixBits: number): number => STATE.bins + (1 << radixBits);

/**
 * A pass reads keys from the input (or the candidates where `from_cand` and they fit), and
 * `mask_from(shift + bits)` marks the bits chosen so far, `mask_from(last_top)` those chosen
 * before the last pass.
 */
export const COUNT_PARAMS = ['count', 'k', 'shift', 'bits', 'last_top', 'from_cand', 'write_cand', 'cap'] as const;

/** Ordered bits, complemented for the largest first: the select always takes the smallest. */
function orderFns(t: TypeInfo, largest: boolean): string {
  const K = rawType(t);
  const full = t.bytes === 2 ? '0xffffu' : '0xffffffffu';
  const flip = largest ? (t.bytes === 8 ? `vec2<u32>(${full}, ${full})` : full) : `${K}(0u)`;
  const maskFrom = t.bytes === 8
    ? `fn mask_from(b: u32) -> vec2<u32> {
  let hb = max(b, 32u) - 32u;
  return vec2<u32>(select(0xffffffffu << min(b, 31u), 0u, b >= 32u), select(0xffffffffu << min(hb, 31u), 0u, hb >= 32u));
}`
    : 'fn mask_from(b: u32) -> u32 { return select(0xffffffffu << min(b, 31u), 0u, b >= 32u); }';
  return `${keyFunctions(t, false, { rawIn: true, rawOut: true, descending: false })}
${keyLess(t)}
const FLIP = ${flip};
fn sel_key(raw: ${K}) -> ${K} { return to_ordered(raw) ^ FLIP; }
fn raw_key(y: ${K}) -> ${K} { return from_ordered(y ^ FLIP); }
${maskFrom}`;
}

export interface CountKernelOptions {
  readonly type: TypeInfo;
  readonly largest: boolean;
  /** The last pass: writes the keys below the k-th and as many equal to it as are wanted; no bins. */
  readonly final: boolean;
  readonly config: TopKConfig;
}

/**
 * One counting pass of the radix select (AIR top-k), a grid striding over tiles. Each key still
 * in the running (its chosen bits equal the prefix) is counted into the bin of this pass's digit;
 * a key that the last choice put below the prefix goes to the output (it is among the k); in the
 * second pass the keys in the running are also kept as candidates, read by later passes instead
 * of the input. Outputs are placed with one global atomic per tile and category.
 */
export function countKernel(o: CountKernelOptions): Kernel {
  const { type: t, config: c } = o;
  const K = rawType(t);
  const WG = c.workgroupSize;
  const IPT = c.itemsPerThread;
  const bins = 1 << c.radixBits;
  const h: SharedHistogram = { array: 'wg_hist', bins: `${bins}u`, index: 'lid', stride: 'WG' };
  const code = `${paramsStruct(COUNT_PARAMS)}
@group(0) @binding(0) var<uniform> P: Params;
${rawKeyArrayWgsl('input', t, 'read', 1, false)}
@group(0) @binding(2) var<storage, read_write> state: array<atomic<u32>>;
@group(0) @binding(3) var<storage, read_write> cand_keys: array<${K}>;
@group(0) @binding(4) var<storage, read_write> cand_idx: array<u32>;
@group(0) @binding(5) var<storage, read_write> out_keys: array<${K}>;
@group(0) @binding(6) var<storage, read_write> out_idx: array<u32>;
${orderFns(t, o.largest)}
const WG = ${WG}u;
const IPT = ${IPT}u;
const TILE = WG * IPT;
fn load_key(from_cand: bool, e: u32) -> ${K} {
  if (from_cand) { return cand_keys[e]; }
  return sel_key(input_raw(e));
}
var<workgroup> wg_hist: array<atomic<u32>, ${bins}>;
// Keys of the tile going below / kept, and the tile's first global slot of each.
var<workgroup> wg_n: array<atomic<u32>, 2>;
var<workgroup> wg_base: array<u32, 2>;
var<workgroup> wg_src: u32;

@compute @workgroup_size(WG)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let group = ${LINEAR_WORKGROUP_ID};
  let groups = nwg.x * nwg.y;
  if (lid == 0u) {
    let cands = P.from_cand == 1u && atomicLoad(&state[${STATE.overflow}]) == 0u;
    wg_src = select(P.count, atomicLoad(&state[${STATE.candCount}]), cands) | select(0u, 0x80000000u, cands);
    atomicStore(&wg_n[0], 0u);
    atomicStore(&wg_n[1], 0u);
  }
  ${o.final ? '' : histogramClear(h)}
  let src = workgroupUniformLoad(&wg_src);
  let from_cand = (src & 0x80000000u) != 0u;
  let n = src & 0x7fffffffu;
  let prefix = ${t.bytes === 8 ? `vec2<u32>(atomicLoad(&state[${STATE.prefixLo}]), atomicLoad(&state[${STATE.prefixHi}]))` : `atomicLoad(&state[${STATE.prefixLo}])`};
  let known = mask_from(P.shift + P.bits);
  let before = mask_from(P.last_top);
${o.final ? `  let k_rem = atomicLoad(&state[${STATE.kRem}]);\n` : ''}  let tiles = (n + TILE - 1u) / TILE;
  for (var tile = group; tile < tiles; tile += groups) {
    // Per key: its slot among the tile's keys going below (bit 31 clear) or kept (set); none: 0xffffffff.
    var slots: array<u32, IPT>;
    for (var j = 0u; j < IPT; j++) {
      let e = tile * TILE + j * WG + lid;
      slots[j] = 0xffffffffu;
      if (e >= n) { continue; }
      let y = load_key(from_cand, e);
      if (!all(((y ^ prefix) & known) == ${K}(0u))) {
        // Out of the running: below the prefix if the last choice put it there.
        if (all(((y ^ prefix) & before) == ${K}(0u)) && key_less(y & known, prefix & known)) { slots[j] = atomicAdd(&wg_n[0], 1u); }
        continue;
      }
${o.final
    ? '      if (all(y == prefix)) { slots[j] = atomicAdd(&wg_n[1], 1u) | 0x80000000u; }'
    : `      ${histogramAdd(h, 'digit_at(y, P.shift, P.bits)')}
      if (P.write_cand == 1u) { slots[j] = atomicAdd(&wg_n[1], 1u) | 0x80000000u; }`}
    }
    workgroupBarrier();
    if (lid == 0u) {
      let nb = atomicExchange(&wg_n[0], 0u);
      let nk = atomicExchange(&wg_n[1], 0u);
      // Most tiles have neither: no global atomic then (select() would evaluate both).
      if (nb > 0u) { wg_base[0] = atomicAdd(&state[${STATE.below}], nb); }
      if (nk > 0u) { wg_base[1] = atomicAdd(&state[${o.final ? STATE.equal : STATE.candCount}], nk); }
    }
    workgroupBarrier();
    for (var j = 0u; j < IPT; j++) {
      let s = slots[j];
      if (s == 0xffffffffu) { continue; }
      // Few keys have a slot: they are read again (cached) rather than held in registers.
      let e = tile * TILE + j * WG + lid;
      let y = load_key(from_cand, e);
      let id = select(e, cand_idx[min(e, P.cap - 1u)], from_cand);
      if ((s & 0x80000000u) == 0u) {
        let at = wg_base[0] + s;
        out_keys[at] = y;
        out_idx[at] = id;
        continue;
      }
      let at = wg_base[1] + (s & 0x7fffffffu);
${o.final
    ? `      // The keys equal to the k-th fill the last k_rem places.
      if (at < k_rem) { out_keys[P.k - k_rem + at] = y; out_idx[P.k - k_rem + at] = id; }`
    : `      if (at < P.cap) { cand_keys[at] = y; cand_idx[at] = id; } else { atomicStore(&state[${STATE.overflow}], 1u); }`}
    }
    workgroupBarrier();
  }
${o.final ? '' : `  workgroupBarrier();
${histogramFlush(h, (d, cnt) => `if (${cnt} > 0u) { atomicAdd(&state[${STATE.bins}u + ${d}], ${cnt}); }`)}`}
}
`;
  const key = ['topk-count', t.name, o.largest ? 'largest' : 'smallest', o.final ? 'final' : 'pass', WG, IPT, c.radixBits].join(':');
  return { key, label: `wgprim.top-k.${o.final ? 'final' : 'count'}.${t.name}`, code, bindings: ['uniform', 'read-only-storage', 'storage', 'storage', 'storage', 'storage', 'storage'], workgroupSize: WG };
}

export const CHOOSE_PARAMS = ['k', 'first', 'shift', 'bits'] as const;
const CHOOSE_WG = 256;

/**
 * One workgroup picks the bin holding the k-th key still in the running: scans the bins, takes
 * the one where the running count passes the rank still wanted, appends its digit to the prefix,
 * lowers the rank by the keys in the bins before it, and clears the bins for the next pass.
 */
export function chooseKernel(t: TypeInfo, radixBits: number): Kernel {
  const per = Math.max(1, (1 << radixBits) / CHOOSE_WG);
  const code = `${paramsStruct(CHOOSE_PARAMS)}
@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read_write> state: array<u32>;
const PER = ${per}u;
var<workgroup> sums: array<u32, ${CHOOSE_WG}>;

@compute @workgroup_size(${CHOOSE_WG})
fn main(@builtin(local_invocation_index) lid: u32) {
  let k_rem = select(state[${STATE.kRem}], P.k, P.first == 1u);
  let bins = 1u << P.bits;
  var counts: array<u32, PER>;
  var total = 0u;
  for (var j = 0u; j < PER; j++) {
    let b = lid * PER + j;
    counts[j] = select(0u, state[${STATE.bins}u + b], b < bins);
    total += counts[j];
  }
  sums[lid] = total;
  workgroupBarrier();
${sharedInclusiveSum('sums', 'lid', `${CHOOSE_WG}u`)}
  var run = sums[lid] - total;
  for (var j = 0u; j < PER; j++) {
    let b = lid * PER + j;
    if (b < bins) { state[${STATE.bins}u + b] = 0u; }
    if (run < k_rem && k_rem <= run + counts[j]) {
      state[${STATE.kRem}] = k_rem - run;
      if (P.shift < 32u) { state[${STATE.prefixLo}] |= b << P.shift; }
${t.bytes === 8 ? `      if (P.shift >= 32u) { state[${STATE.prefixHi}] |= b << (P.shift - 32u); } else if (P.shift > 0u) { state[${STATE.prefixHi}] |= b >> (32u - P.shift); }\n` : ''}    }
    run += counts[j];
  }
}
`;
  return { key: ['topk-choose', t.bytes === 8 ? 'wide' : 'word', per].join(':'), label: 'wgprim.top-k.choose', code, bindings: ['uniform', 'storage'], workgroupSize: CHOOSE_WG };
}

export const EMIT_PARAMS = ['k'] as const;

/** The selected keys back from ordered bits to the caller's type (16-bit keys two to a word). */
export function emitKernel(t: TypeInfo, largest: boolean): Kernel {
  const K = rawType(t);
  const half = t.bytes === 2;
  const code = `${paramsStruct(EMIT_PARAMS)}
@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read> ys: array<${K}>;
@group(0) @binding(2) var<storage, read_write> values: array<${K}>;
${orderFns(t, largest)}

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = gid.x + gid.y * nwg.x * 256u;
${half
    ? `  let e = 2u * i;
  if (e >= P.k) { return; }
  var w = raw_key(ys[e]);
  // The last word's other half, past the k keys, is kept.
  if (e + 1u < P.k) { w |= raw_key(ys[e + 1u]) << 16u; } else { w |= values[i] & 0xffff0000u; }
  values[i] = w;`
    : `  if (i >= P.k) { return; }
  values[i] = raw_key(ys[i]);`}
}
`;
  return { key: ['topk-emit', t.name, largest ? 'largest' : 'smallest'].join(':'), label: `wgprim.top-k.emit.${t.name}`, code, bindings: ['uniform', 'read-only-storage', 'storage'], workgroupSize: 256 };
}
