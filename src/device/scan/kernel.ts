import { type Kernel, paramsStruct } from '../../runtime/kernel.js';
import { prelude, quadReduce, SUBGROUP_ID, subgroupInclusiveFn, unroll } from '../../wgsl/block.js';
import { type ResolvedOperator } from '../../wgsl/operators.js';
import { fromWords, toWords, type TypeInfo } from '../../wgsl/types.js';
import { type BindingKind, viewBindings, viewWgsl } from '../../wgsl/views.js';
import { type ScanConfig } from './config.js';

/**
 * Where a tile's prefix (the combination of every element before it) comes from:
 * - `lookback`: single pass; tiles taken in launch order from an atomic counter, prefix by
 *   decoupled look-back over per-tile state (needs forward progress between workgroups);
 * - `partials-out`: first pass of reduce-then-scan: write each tile's aggregate, no output;
 * - `partials-in`: last pass of reduce-then-scan: prefix read from the scanned aggregates;
 * - `carry`: one workgroup walks every tile with a running carry (small inputs, and the
 *   middle pass of reduce-then-scan).
 */
export type ScanMode = 'lookback' | 'partials-out' | 'partials-in' | 'carry';

export interface ScanKernelOptions {
  readonly type: TypeInfo;
  readonly op: ResolvedOperator;
  readonly exclusive: boolean;
  readonly mode: ScanMode;
  /** Input and output are one buffer: bind it once, read-write. */
  readonly inPlace: boolean;
  readonly config: ScanConfig;
  /** Smallest subgroup size the adapter may use: sizes the per-subgroup totals array. */
  readonly subgroupMinSize: number;
}

export const SCAN_PARAMS = ['count', 'num_tiles', 'in_tail', 'out_tail', 'fast_end', 'has_init', 'init_lo', 'init_hi'] as const;

/** Look-back state: word 0 is the tile counter; each tile then has 2 words per 32-bit word of value. */
export const FLAG_AGGREGATE = 1;
export const FLAG_INCLUSIVE = 2;
export function lookbackStateWords(numTiles: number, t: TypeInfo): number {
  return 1 + numTiles * 2 * t.words;
}

export function scanKernel(o: ScanKernelOptions): Kernel {
  const { type: t, op, mode, config: c } = o;
  const T = t.wgsl;
  const sub = c.workgroupScan === 'subgroup';
  const Q = c.itemsPerThread / 4;
  const WG = c.workgroupSize;
  const NS_MAX = sub ? Math.max(1, WG / o.subgroupMinSize) : WG;
  const writesOutput = mode !== 'partials-out';
  const parts = 2 * t.words;

  const bindings: BindingKind[] = ['uniform'];
  const decls: string[] = [];
  const inName = o.inPlace ? 'out' : 'in';
  if (!o.inPlace) {
    decls.push(viewWgsl({ name: 'in', type: t, access: 'read', tailStart: 'P.in_tail' }, bindings.length));
    bindings.push(...viewBindings({ access: 'read' }));
  }
  if (writesOutput) {
    decls.push(viewWgsl({ name: 'out', type: t, access: 'read_write', tailStart: 'P.out_tail' }, bindings.length));
    bindings.push(...viewBindings({ access: 'read_write' }));
  }
  if (mode === 'lookback') {
    decls.push(`@group(0) @binding(${bindings.length}) var<storage, read_write> state: array<atomic<u32>>;`);
    bindings.push('storage');
  }
  if (mode === 'partials-out' || mode === 'partials-in') {
    const access = mode === 'partials-out' ? 'read_write' : 'read';
    decls.push(`@group(0) @binding(${bindings.length}) var<storage, ${access}> partials: array<${T}>;`);
    bindings.push(mode === 'partials-out' ? 'storage' : 'read-only-storage');
  }

  const builtins = sub
    ? '@builtin(subgroup_invocation_id) sg_lane: u32, @builtin(subgroup_size) sg_size: u32'
    : '';
  const subgroupIds = sub ? SUBGROUP_ID : '\n  let sgid = lid; let sg_lane = 0u; let sg_size = 1u;';

  // Per-quad scan within the subgroup's chunk: pre[k] is this lane's exclusive prefix.
  const withinSubgroup = sub
    ? `
      let incl = sg_inclusive(t, sg_lane, sg_size);
      var ex = subgroupShuffleUp(incl, 1u);
      if (sg_lane == 0u) { ex = identity(); }
      pre[k] = op(run, ex);
      run = op(run, subgroupShuffle(incl, sg_size - 1u));`
    : `
      pre[k] = run;
      run = op(run, t);`;

  // Exclusive scan of the per-subgroup totals in sh_sg by the first subgroup; `acc` ends as
  // the tile aggregate. With look-back the same subgroup goes on to the look-back, saving a barrier.
  const scanTotals = `
      var acc = identity();
      for (var c = 0u; c < ns; c += sg_size) {
        let i = c + sg_lane;
        var x = identity();
        if (i < ns) { x = sh_sg[i]; }
        let incl = sg_inclusive(x, sg_lane, sg_size);
        var ex = subgroupShuffleUp(incl, 1u);
        if (sg_lane == 0u) { ex = identity(); }
        if (i < ns) { sh_sg[i] = op(acc, ex); }
        acc = op(acc, subgroupShuffle(incl, sg_size - 1u));
      }
      let agg = acc;`;
  const fusedLookback = sub && mode === 'lookback';
  const acrossSubgroups = fusedLookback
    ? '' // done inside the look-back block below
    : sub
      ? `
    if (sgid == 0u) {${scanTotals}
      if (sg_lane == 0u) { sh_agg = agg; }
    }
    workgroupBarrier();
    let agg = sh_agg;
    let sg_prefix = sh_sg[sgid];`
      : `
    for (var d = 1u; d < WG; d <<= 1u) {
      var y = identity();
      if (lid >= d) { y = sh_sg[lid - d]; }
      workgroupBarrier();
      if (lid >= d) { sh_sg[lid] = op(y, sh_sg[lid]); }
      workgroupBarrier();
    }
    let agg = sh_sg[WG - 1u];
    var sg_prefix = identity();
    if (lid > 0u) { sg_prefix = sh_sg[lid - 1u]; }`;

  const words = (i: number): string => `state[1u + p * ${parts}u + ${i}u]`;
  const lookbackFns = mode !== 'lookback' ? '' : `
// Each 32-bit word of a value travels as two 16-bit halves, each with the flag in its top
// bits, so a reader can check every half is from the same publication without fences.
fn publish(p: u32, flag: u32, v: ${T}) {
  let w = ${toWords(t, 'v')};
  let f = flag << 30u;
${Array.from({ length: t.words }, (_, i) => `  atomicStore(&${words(2 * i)}, f | (w[${i}] & 0xffffu));
  atomicStore(&${words(2 * i + 1)}, f | (w[${i}] >> 16u));`).join('\n')}
}
struct TileState { flag: u32, value: ${T} }
// One look at tile p's state: flag 0 while it is unpublished or its halves disagree.
fn peek_state(p: u32) -> TileState {
${Array.from({ length: parts }, (_, i) => `  let s${i} = atomicLoad(&${words(i)});`).join('\n')}
  let f = s0 >> 30u;
  if (f != 0u${Array.from({ length: parts - 1 }, (_, i) => ` && (s${i + 1} >> 30u) == f`).join('')}) {
    let w = vec2<u32>(${Array.from({ length: 2 }, (_, i) => (i < t.words ? `(s${2 * i} & 0xffffu) | (s${2 * i + 1} << 16u)` : '0u')).join(', ')});
    return TileState(f, ${fromWords(t, 'w')});
  }
  return TileState(0u, identity());
}
fn read_state(p: u32) -> TileState {
  loop {
    let s = peek_state(p);
    if (s.flag != 0u) { return s; }
  }
}
${sub ? `fn first_lane(b: vec4<u32>) -> u32 {
  if (b.x != 0u) { return countTrailingZeros(b.x); }
  if (b.y != 0u) { return 32u + countTrailingZeros(b.y); }
  if (b.z != 0u) { return 64u + countTrailingZeros(b.z); }
  if (b.w != 0u) { return 96u + countTrailingZeros(b.w); }
  return 128u;
}` : ''}`;

  const tileHead = {
    lookback: `
    if (lid == 0u) { sh_tile = atomicAdd(&state[0], 1u); }
    let tile = workgroupUniformLoad(&sh_tile);
    if (tile >= P.num_tiles) { return; }`,
    'partials-out': `
    let tile = wid.x + wid.y * nwg.x;
    if (tile >= P.num_tiles) { return; }`,
    'partials-in': `
    let tile = wid.x + wid.y * nwg.x;
    if (tile >= P.num_tiles) { return; }`,
    carry: '',
  }[mode];

  // Look-back by the first subgroup: each lane inspects one predecessor (lane 0 the nearest),
  // so a window of sg_size tiles costs one round trip; stops at the nearest inclusive prefix.
  const subgroupLookback = `
    if (sgid == 0u) {${scanTotals}
      var prefix = identity();
      if (tile == 0u) {
        if (sg_lane == 0u) { publish(0u, ${FLAG_INCLUSIVE}u, agg); }
      } else {
        if (sg_lane == 0u) { publish(tile, ${FLAG_AGGREGATE}u, agg); }
        // Poll only the nearest predecessor until it has published: it is usually the last of
        // the window to do so, and one polling lane keeps the spin's memory traffic low.
        var nearest = TileState(0u, identity());
        loop {
          if (sg_lane == 0u) { nearest = peek_state(tile - 1u); }
          if (subgroupBroadcastFirst(nearest.flag) != 0u) { break; }
        }
        // When the nearest predecessor already holds its inclusive prefix, that is the answer.
        // (Reading 2, 4 or 8 predecessors per lane instead of 1 was slower on the H200: 0.77x,
        // 0.69x and 0.50x CUB against 0.79x at 256 x 16, 2026-11-29.)
        let nearest_inclusive = subgroupBroadcastFirst(nearest.flag) == ${FLAG_INCLUSIVE}u;
        if (nearest_inclusive) { prefix = subgroupBroadcastFirst(nearest.value); }
        var end = tile;
        loop {
          if (nearest_inclusive) { break; }
          let back = sg_lane + 1u;
          let has = back <= end;
          var s = TileState(${FLAG_INCLUSIVE}u, identity());
          if (has) { s.flag = 0u; }
          loop {
            if (s.flag == 0u) { s = peek_state(end - back); }
            if (subgroupAll(s.flag != 0u)) { break; }
          }
          let k = first_lane(subgroupBallot(s.flag == ${FLAG_INCLUSIVE}u));
          var v = s.value;
          if (sg_lane > k) { v = identity(); }
          // Combine in tile order: reverse the lanes, scan, take the last lane.
          let rev = subgroupShuffle(v, sg_size - 1u - sg_lane);
          let window = subgroupShuffle(sg_inclusive(rev, sg_lane, sg_size), sg_size - 1u);
          prefix = op(window, prefix);
          if (k < sg_size) { break; }
          end -= sg_size;
        }
        if (sg_lane == 0u) { publish(tile, ${FLAG_INCLUSIVE}u, op(prefix, agg)); }
      }
      if (sg_lane == 0u) { sh_prefix = prefix; }
    }
    workgroupBarrier();
    let tile_prefix = sh_prefix;
    let sg_prefix = sh_sg[sgid];`;

  const tilePrefix = {
    lookback: sub ? subgroupLookback : `
    if (lid == 0u) {
      var prefix = identity();
      if (tile == 0u) {
        publish(0u, ${FLAG_INCLUSIVE}u, agg);
      } else {
        publish(tile, ${FLAG_AGGREGATE}u, agg);
        var p = tile - 1u;
        loop {
          let s = read_state(p);
          prefix = op(s.value, prefix);
          if (s.flag == ${FLAG_INCLUSIVE}u) { break; }
          p -= 1u;
        }
        publish(tile, ${FLAG_INCLUSIVE}u, op(prefix, agg));
      }
      sh_prefix = prefix;
    }
    workgroupBarrier();
    let tile_prefix = sh_prefix;`,
    'partials-out': `
    if (lid == 0u) { partials[tile] = agg; }`,
    'partials-in': `
    let tile_prefix = partials[tile];`,
    carry: `
    let tile_prefix = carry;
    carry = op(carry, agg);`,
  }[mode];

  const output = !writesOutput ? '' : `
    var head = op(tile_prefix, sg_prefix);
    if (P.has_init != 0u) { head = op(${fromWords(t, 'vec2<u32>(P.init_lo, P.init_hi)')}, head); }
    // Outputs are formed quad by quad as they are stored: no second array of registers.
${unroll(Q, 'k', `
      var x = op(head, pre[k]);
      var o: array<${T}, 4>;
${unroll(4, 'j', o.exclusive ? '        o[j] = x;\n        x = op(x, items[k][j]);' : '        x = op(x, items[k][j]);\n        o[j] = x;')}
      let q = base + k * sg_size + sg_lane;
      if (fast) {
        out_store_quad(q, o);
      } else {
        for (var j = 0u; j < 4u; j++) {
          let e = q * 4u + j;
          if (e < P.count) { out_store(e, o[j]); }
        }
      }`)}`;

  const code = `${prelude(t, op, sub)}
${paramsStruct(SCAN_PARAMS)}
@group(0) @binding(0) var<uniform> P: Params;
${decls.join('\n')}
const WG = ${WG}u;
const Q = ${Q}u;
const TILE = ${WG * c.itemsPerThread}u;
var<workgroup> sh_sg: array<${T}, ${NS_MAX}>;
var<workgroup> sh_tile: u32;
var<workgroup> sh_prefix: ${T};
var<workgroup> sh_agg: ${T};
var<workgroup> sg_counter: atomic<u32>;
${quadReduce(T)}
${sub ? subgroupInclusiveFn(t, op) : ''}
${lookbackFns}

@compute @workgroup_size(WG)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>${builtins ? ', ' + builtins : ''}) {
  ${subgroupIds}
  let ns = WG / sg_size;
  ${mode === 'carry' ? `var carry = identity();
  for (var tile = 0u; tile < P.num_tiles; tile++) {` : '{'}
    ${tileHead}
    let base = tile * (TILE / 4u) + sgid * sg_size * Q;
    let fast = (tile + 1u) * TILE <= P.fast_end;
    var items: array<array<${T}, 4>, Q>;
    if (fast) {
${unroll(Q, 'k', `      items[k] = ${inName}_quad(base + k * sg_size + sg_lane);`)}
    } else {
      for (var k = 0u; k < Q; k++) {
        let q = base + k * sg_size + sg_lane;
        for (var j = 0u; j < 4u; j++) {
          let e = q * 4u + j;
          if (e < P.count) { items[k][j] = ${inName}_at(e); } else { items[k][j] = identity(); }
        }
      }
    }
    var pre: array<${T}, Q>;
    var run = identity();
${unroll(Q, 'k', `      let t = quad_reduce(items[k]);${withinSubgroup}`)}
    if (sg_lane == 0u) { sh_sg[sgid] = run; }
    workgroupBarrier();
    ${acrossSubgroups}
    ${tilePrefix}
    ${output}${mode === 'carry' ? '\n    workgroupBarrier(); // the next tile reuses the workgroup arrays' : ''}
  }
}
`;
  const key = ['scan', mode, t.name, op.key, o.exclusive ? 'ex' : 'in', o.inPlace ? 'inplace' : 'copy', WG, c.itemsPerThread, c.workgroupScan, sub ? o.subgroupMinSize : 0].join(':');
  return { key, label: `wgprim.scan.${mode}.${t.name}`, code, bindings, workgroupSize: WG, userCode: op.custom };
}
