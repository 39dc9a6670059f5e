import { type Kernel, paramsStruct } from '../../runtime/kernel.js';
import { type LookbackNames, subgroupLookback, tileStateFns, vectorPayload } from '../../wgsl/device/lookback.js';
import { partialsDecl, reduceThenScanTile } from '../../wgsl/device/reduce-then-scan.js';
import { takeTile } from '../../wgsl/device/tile-counter.js';
import { type FusedLookback, fusedLookback, tilePrefixBlock } from '../../wgsl/device/tile-prefix.js';
import { FLOAT_LIMIT_BITS, type ResolvedOperator } from '../../wgsl/operators.js';
import { typesHeader } from '../../wgsl/prelude.js';
import { FIRST_LANE_FN } from '../../wgsl/subgroup/ballot.js';
import { SUBGROUP_BUILTINS } from '../../wgsl/subgroup/id.js';
import { quadNeighbours } from '../../wgsl/subgroup/quad-neighbours.js';
import { subgroupInclusiveFn } from '../../wgsl/subgroup/scan.js';
import { unroll } from '../../wgsl/thread/unroll.js';
import { fromWords, toWords, type TypeInfo, typeInfo } from '../../wgsl/types.js';
import { type BindingKind, scatterOutputWgsl, viewBindings, viewWgsl } from '../../wgsl/views.js';
import { quadStore, quadTileLoad } from '../../wgsl/workgroup/tile.js';
import { stagedCopyOut, stageOrStore, stagingDecl, twoPhaseRule } from '../../wgsl/workgroup/two-phase-scatter.js';
import { chunkScanStep, subgroupIdsOrSelf, workgroupScanDecls, workgroupScanSlots } from '../../wgsl/workgroup/scan.js';
import { type ByKeyConfig } from './config.js';

/**
 * The by-key engine behind scan by key, segmented scan, reduce by key and both run-length
 * encodes: every element becomes a pair (heads: the segments that start at it, 0 or 1; value),
 * and the pairs are scanned with the segmented operator
 *   (a, b) -> (a.heads + b.heads, b.heads != 0 ? b.value : op(a.value, b.value))
 * across the tile and, through decoupled look-back or reduce-then-scan, across the tiles
 * before it. The pair's inclusive scan at an element holds how many segments have started up
 * to it and the combination of its segment so far: a scan writes that, a reduction writes a
 * segment's value at its last element (its tail) at the segment's number.
 * The pair lives in a `vecN<u32>` (the head count, then the value's words), so subgroup
 * shuffles and the look-back's split words carry it as they carry any value.
 */

/**
 * Where the heads come from: neighbouring keys that differ, a u32 flag per element, offsets' marks
 * (begin and end offsets: segments in any order, gaps between them), or non-decreasing begin
 * offsets read by the tile itself (`offsets`, see offsetHeads).
 */
export type HeadSource = 'keys' | 'flags' | 'marks' | 'offsets';
/** What is written: a scanned value per element, one (key, value) per run, or non-trivial runs' (offset, length). */
export type EngineOutput = 'scan' | 'reduce' | 'runs';
export type EnginePass = 'lookback' | 'partials-out' | 'partials-in';

export interface ByKeyKernelOptions {
  readonly heads: HeadSource;
  readonly output: EngineOutput;
  /** Key type (heads from keys, and the keys a reduction writes). */
  readonly key?: TypeInfo;
  /** Value type; with `ones` a u32 count of 1 per element (run-length encode), no values buffer. */
  readonly value: TypeInfo;
  readonly ones: boolean;
  readonly op: ResolvedOperator;
  readonly equality?: string;
  readonly exclusive: boolean;
  readonly pass: EnginePass;
  readonly config: ByKeyConfig;
  readonly subgroupMinSize: number;
  /** Reductions and runs: their two outputs through a two-phase scatter (`byKeyStagedBytes` of workgroup memory). */
  readonly staged?: boolean;
}

export const BYKEY_PARAMS = ['count', 'num_tiles', 'keys_tail', 'vals_tail', 'out_tail', 'aux_tail', 'fast_end', 'has_init', 'init_lo', 'init_hi'] as const;

/** Marks built from offsets (src/device/scan-by-key/marks.ts): a segment begins here, or a gap (no segment) does. */
export const MARK_BEGIN = 1;
export const MARK_GAP = 2;

/** The default key equality: bitwise for integers, `==` for floats (so -0 equals +0, NaN nothing). */
export function defaultKeyEquality(t: TypeInfo): string {
  return t.is64 ? 'all(a == b)' : 'a == b';
}

/** The pair's WGSL type for a value type: the head count and the value's words. */
export const pairWords = (v: TypeInfo): 2 | 3 => (v.words === 2 ? 3 : 2);

/**
 * Declarations of the pair: `P`, `mk(c, v)`, `pval(p)`, `cnt(p)`, `op`, `identity` over pairs (the
 * value's are `vop`, `videntity`). `headFlag`: the pair keeps whether a head was seen, not how many
 * (a scan needs no count): then op(anything, p) is p for any p that holds a head, which lets a tile
 * with a head publish its aggregate as its inclusive prefix at once (subgroupLookback).
 */
export function pairFns(v: TypeInfo, op: ResolvedOperator, gaps: boolean, headFlag = false): string {
  const V = v.wgsl;
  const P = `vec${pairWords(v)}<u32>`;
  const mk = v.words === 2 ? `${P}(c, x)` : `${P}(c, ${toWords(v, 'x')}.x)`;
  const val = v.words === 2 ? 'p.yz' : fromWords(v, 'vec2<u32>(p.y, 0u)');
  // With gaps the top bit of the count says the open segment is a gap (offsets' elements outside every segment).
  const combine = gaps
    ? `if ((b.x & CNT) != 0u) { return mk(((a.x + b.x) & CNT) | (b.x & GAP), pval(b)); }
  return mk(a.x, vop(pval(a), pval(b)));`
    : `if (b.x != 0u) { return mk(${headFlag ? '1u' : 'a.x + b.x'}, pval(b)); }
  return mk(a.x, vop(pval(a), pval(b)));`;
  return `fn vop(a: ${V}, b: ${V}) -> ${V} { ${op.combine} }
fn videntity() -> ${V} { return ${op.identity}; }
const CNT = ${gaps ? '0x7fffffffu' : '0xffffffffu'};
const GAP = 0x80000000u;
fn mk(c: u32, x: ${V}) -> ${P} { return ${mk}; }
fn pval(p: ${P}) -> ${V} { return ${val}; }
fn cnt(p: ${P}) -> u32 { return p.x & CNT; }
fn op(a: ${P}, b: ${P}) -> ${P} {
  ${combine}
}
fn identity() -> ${P} { return mk(0u, videntity()); }`;
}


/**
 * Heads from non-decreasing begin offsets, with the tile's values already in flight: the begins in
 * the tile, begins[tile_first[tile] .. tile_first[tile + 1]) (found by the tile-first pass), each
 * set a bit of the tile's `head_bits`, the workgroup taking as many as there are; a begin at or
 * past the covered range's end, min(begins[segments], count), starts no segment. `seg_lo` and
 * `seg_hi` bound the elements written (those before the first begin and past the covered range are
 * left as they were); tile_first holds them after its num_tiles + 1 entries.
 */
const OFFSET_HEADS = `
    let seg_lo = tile_first[P.num_tiles + 1u];
    let seg_hi = tile_first[P.num_tiles + 2u];
    for (var i = lid; i < TILE / 32u; i += WG) { atomicStore(&head_bits[i], 0u); }
    workgroupBarrier();
    let t0 = tile * TILE;
    for (var i = tile_first[tile] + lid; i < tile_first[tile + 1u]; i += WG) {
      let h = begins[i];
      if (h < seg_hi) { atomicOr(&head_bits[(h - t0) >> 5u], 1u << ((h - t0) & 31u)); }
    }
    workgroupBarrier();`;

/**
 * The reductions' look-back in two (with subgroups): the value as a flagged pair (its count cut
 * to 0 or 1: op(anything, p) keeps p's value when p holds a head, so a tile with a head publishes
 * its value at once, as the scans' tiles do), and the head count, which a reduction's places need
 * and which no early publication can give, in a u32 look-back of its own beside it (words 8 and 9
 * of the tile's line: the pair takes at most 6), scanned with native subgroup adds.
 */
const COUNT_NAMES: LookbackNames = { prefix: 'count_', identity: 'count_identity', op: 'count_op', scan: 'count_sg_inclusive', into: 'heads' };
const COUNT_STATE_FNS = `fn count_identity() -> u32 { return 0u; }
fn count_op(a: u32, b: u32) -> u32 { return a + b; }
fn count_sg_inclusive(x: u32, lane: u32, size: u32) -> u32 { return subgroupInclusiveAdd(x); }
${tileStateFns(typeInfo('u32'), 'state', '9u', COUNT_NAMES, false)}`;

/** The first subgroup's look-back in two (COUNT_NAMES), from the tile's pair `agg`. */
const SPLIT_COUNTS_LOOKBACK: FusedLookback = {
  body: `
      let tile_total = agg;
      var prefix = identity();
      {
        let agg = mk(min(cnt(tile_total), 1u), pval(tile_total));${subgroupLookback('agg.x != 0u')}
      }
      var heads = 0u;
      {
        let agg = cnt(tile_total);${subgroupLookback(undefined, COUNT_NAMES)}
      }`,
  prefix: 'mk(heads, pval(prefix))',
};

/** The pair operator as the subgroup scan sees it: no native scan, so shuffles over `op`. */
export const PAIR_OPERATOR: ResolvedOperator = { key: 'pair', combine: '', identity: '' };

export function byKeyKernel(o: ByKeyKernelOptions): Kernel {
  const { config: c, value: v, pass } = o;
  const k = o.key ?? typeInfo('u32');
  const V = v.wgsl;
  const K = k.wgsl;
  const P = `vec${pairWords(v)}<u32>`;
  const sub = c.workgroupScan === 'subgroup';
  const Q = c.itemsPerThread / 4;
  const WG = c.workgroupSize;
  const gaps = o.heads === 'marks';
  const tails = o.output !== 'scan';
  const writes = pass !== 'partials-out';
  // A scan (without gaps) counts no heads: a flag, so a tile with a head publishes early.
  const headFlag = o.output === 'scan' && !gaps;
  // A reduction keeps the count, looked back at on its own (COUNT_NAMES).
  const splitCounts = pass === 'lookback' && sub && tails;

  const bindings: BindingKind[] = ['uniform'];
  const decls: string[] = [];
  if (o.heads === 'keys') {
    decls.push(viewWgsl({ name: 'keys', type: k, access: 'read', tailStart: 'P.keys_tail' }, bindings.length));
    bindings.push(...viewBindings({ access: 'read' }));
  } else if (o.heads === 'offsets') {
    decls.push(`@group(0) @binding(${bindings.length}) var<storage, read> begins: array<u32>;
@group(0) @binding(${bindings.length + 1}) var<storage, read> tile_first: array<u32>;
var<workgroup> head_bits: array<atomic<u32>, TILE / 32u>;`);
    bindings.push('read-only-storage', 'read-only-storage');
  } else {
    // A flag (or mark) per element, loaded as quads as the values are (its tail in keys_tail).
    decls.push(viewWgsl({ name: 'flags', type: typeInfo('u32'), access: 'read', tailStart: 'P.keys_tail' }, bindings.length));
    bindings.push(...viewBindings({ access: 'read' }));
  }
  if (!o.ones) {
    decls.push(viewWgsl({ name: 'vals', type: v, access: 'read', tailStart: 'P.vals_tail' }, bindings.length));
    bindings.push(...viewBindings({ access: 'read' }));
  }
  if (writes) {
    if (o.output === 'scan') {
      decls.push(viewWgsl({ name: 'out', type: v, access: 'read_write', tailStart: 'P.out_tail' }, bindings.length));
      bindings.push(...viewBindings({ access: 'read_write' }));
    } else if (o.output === 'reduce') {
      decls.push(scatterOutputWgsl('uniq', k, 'P.aux_tail', bindings.length, bindings));
      decls.push(scatterOutputWgsl('aggs', v, 'P.out_tail', bindings.length, bindings));
    } else {
      decls.push(scatterOutputWgsl('offs', typeInfo('u32'), '0u', bindings.length, bindings));
      decls.push(scatterOutputWgsl('lens', typeInfo('u32'), '0u', bindings.length, bindings));
    }
    if (o.output !== 'scan') {
      decls.push(`@group(0) @binding(${bindings.length}) var<storage, read_write> run_count: array<u32>;`);
      bindings.push('storage');
    }
  }
  if (pass === 'lookback') {
    decls.push(`@group(0) @binding(${bindings.length}) var<storage, read_write> state: array<atomic<u32>>;`);
    bindings.push('storage');
  } else {
    decls.push(partialsDecl(pass, bindings.length, P));
    bindings.push(pass === 'partials-out' ? 'storage' : 'read-only-storage');
  }

  // Per element e of quad slot j: bit j its head, bit 4 + j its tail, bit 8 + j a gap's head.
  const flagOf = {
    keys: `var prev = keys_items[k][max(j, 1u) - 1u];
          if (j == 0u) { prev = key_before[k]; }
          if (e == 0u || !eq(prev, keys_items[k][j])) { m |= 1u << j; }${tails ? `
          if (e + 1u == P.count) { m |= 16u << j; } else {
            var next = keys_items[k][min(j + 1u, 3u)];
            if (j == 3u) { next = key_after[k]; }
            if (!eq(keys_items[k][j], next)) { m |= 16u << j; }
          }` : ''}`,
    flags: 'if (e == 0u || flag_items[k][j] != 0u) { m |= 1u << j; }',
    offsets: `let at = e - tile * TILE;
          if (((atomicLoad(&head_bits[at >> 5u]) >> (at & 31u)) & 1u) != 0u) { m |= 1u << j; }`,
    marks: `let mark = flag_items[k][j];
          if (e == 0u || mark != 0u) { m |= 1u << j; if ((mark & ${MARK_BEGIN}u) == 0u) { m |= 256u << j; } }`,
  }[o.heads];
  const valueOf = (kk: string, j: string): string => (o.ones ? '1u' : `vs[${kk}][${j}]`);
  // The pair element j of quad kk scans, from its flags in `m`.
  const pairOf = (kk: string, j: string, m: string): string => {
    if (o.output === 'runs') {
      // CUB's non-trivial runs: a run longer than one starts where a head is not a tail; its elements count 1.
      return `mk(select(0u, 1u, ((${m} >> ${j}) & 17u) == 1u), select(1u, 0u, ((${m} >> ${j}) & 17u) == 17u))`;
    }
    return `mk(((${m} >> ${j}) & 1u)${gaps ? ` | select(0u, GAP, ((${m} >> (8u + ${j})) & 1u) != 0u)` : ''}, ${valueOf(kk, j)})`;
  };

  const init = fromWords(v, 'vec2<u32>(P.init_lo, P.init_hi)');
  // What element e (quad slot j, flags m) writes from `ex` and `incl`, its exclusive and inclusive pairs.
  // Reductions and runs write two runs of outputs: at each head (a unique key, a run's offset)
  // the place `cnt(incl) - 1`, and at each tail (an aggregate, a run's length) the same place for
  // the segment it ends. Staged (src/wgsl/workgroup/two-phase-scatter.ts), a tile's heads fill
  // `sh_heads` [0, its head count h) and its tails `sh_tails` [0, h]: slot 0 for a segment open
  // from an earlier tile that ends here, slot h for the tile's last segment if it ends here
  // (`sh_end_first`, `sh_end_last` say whether they were written: separate words, written by
  // different invocations).
  const staged = o.staged === true && o.output !== 'scan';
  const [headOut, tailOut] = o.output === 'reduce' ? ['uniq', 'aggs'] : ['offs', 'lens'];
  const twoRuns = (isHead: string, isTail: string, headValue: string, tailValue: string): string => !staged
    ? `if (${isHead}) { ${headOut}_store(cnt(incl) - 1u, ${headValue}); }
          if (${isTail}) { ${tailOut}_store(cnt(incl) - 1u, ${tailValue}); }`
    : `if (${isHead}) {
            ${stageOrStore(`sh_heads[cnt(incl) - 1u - heads_before] = ${headValue};`, `${headOut}_store(cnt(incl) - 1u, ${headValue});`)}
          }
          if (${isTail}) {
            ${stageOrStore(`let l = cnt(incl) - heads_before;
              sh_tails[l] = ${tailValue};
              if (l == 0u) { sh_end_first = 1u; }
              if (l == tile_heads) { sh_end_last = 1u; }`, `${tailOut}_store(cnt(incl) - 1u, ${tailValue});`)}
          }`;
  const emit: Record<EngineOutput, string> = {
    scan: o.exclusive
      ? `var r = init;
          if (((m >> j) & 1u) == 0u) { r = select(pval(ex), vop(init, pval(ex)), P.has_init != 0u); }`
      : 'var r = select(pval(incl), vop(init, pval(incl)), P.has_init != 0u);',
    reduce: `${twoRuns('((m >> j) & 1u) != 0u', '((m >> j) & 16u) != 0u', 'keys_items[k][j]', 'pval(incl)')}
          if (e + 1u == P.count) { run_count[0] = cnt(incl); }`,
    runs: `let hf = (m >> j) & 17u;
          ${twoRuns('hf == 1u', 'hf == 16u', 'e', 'pval(incl)')}
          if (e + 1u == P.count) { run_count[0] = cnt(incl); }`,
  };
  const copyOut = !staged ? '' : `
${stagedCopyOut([
    { from: '0u', to: 'tile_heads', store: (i) => `${headOut}_store(heads_before + ${i}, sh_heads[${i}]);` },
    { from: 'select(1u, 0u, sh_end_first != 0u)', to: 'tile_heads + sh_end_last', store: (i) => `${tailOut}_store(heads_before + ${i} - 1u, sh_tails[${i}]);` },
  ])}`;
  const scanStore = o.output === 'scan';
  const output = !writes ? '' : `
    let head = op(tile_prefix, sg_prefix);${scanStore ? `
    let init = select(videntity(), ${init}, P.has_init != 0u);` : ''}${staged ? `
    let heads_before = cnt(tile_prefix);
    let tile_heads = cnt(tile_agg);
    ${twoPhaseRule('tile_heads')}` : ''}
${unroll(Q, 'k', `
      var x = op(head, pre[k]);
      let m = masks[k];
      let q = base + k * sg_size + sg_lane;${scanStore ? `\n      var o: array<${V}, 4>;` : ''}
${unroll(4, 'j', `        let e = q * 4u + j;
        if (e < P.count) {
          let ex = x;
          x = op(x, ${pairOf('k', 'j', 'm')});
          let incl = x;
          ${emit[o.output]}${scanStore ? (gaps ? `
          if ((incl.x & GAP) == 0u) { out_store(e, r); }` : `
          o[j] = r;`) : ''}
        }`)}${scanStore && !gaps ? `
${o.heads === 'offsets'
    ? quadStore('out', 'q', 'o', 'fast && q * 4u >= seg_lo && q * 4u + 4u <= seg_hi', 'seg_hi', 'seg_lo')
    : quadStore('out', 'q', 'o', 'fast')}` : ''}`)}${copyOut}`;

  const flagLoads = o.heads === 'flags' || o.heads === 'marks'
    ? quadTileLoad({ view: 'flags', T: 'u32', quads: Q, fast: 'fast', quad: 'base + k * sg_size + sg_lane', unrolled: true, pad: '0u' }).replace(/\bitems\b/g, 'flag_items')
    : '';
  const loads = `${flagLoads}${o.heads === 'keys' ? quadTileLoad({ view: 'keys', T: K, quads: Q, fast: 'fast', quad: 'base + k * sg_size + sg_lane', unrolled: true, pad: `${K}()` }).replace(/\bitems\b/g, 'keys_items') : ''}
${o.ones ? '' : quadTileLoad({ view: 'vals', T: V, quads: Q, fast: 'fast', quad: 'base + k * sg_size + sg_lane', unrolled: true, pad: 'videntity()' }).replace(/\bitems\b/g, 'vs')}
${o.heads === 'keys' ? quadNeighbours({ name: 'key', T: K, quads: Q, items: 'keys_items', sub, load: (e) => `keys_at(${e})`, after: tails }) : ''}`;

  const code = `${typesHeader([k, v], sub)}
${v.isFloat ? FLOAT_LIMIT_BITS : ''}
${pairFns(v, o.op, gaps, headFlag)}
${o.heads === 'keys' ? `fn eq(a: ${K}, b: ${K}) -> bool { return ${o.equality ?? defaultKeyEquality(k)}; }` : ''}
${paramsStruct(BYKEY_PARAMS)}
@group(0) @binding(0) var<uniform> P: Params;
${decls.join('\n')}
const WG = ${WG}u;
const Q = ${Q}u;
const TILE = ${WG * c.itemsPerThread}u;
${workgroupScanDecls(P, workgroupScanSlots(WG, sub, o.subgroupMinSize))}
var<workgroup> sh_tile: u32;
var<workgroup> sh_prefix: ${P};
var<workgroup> sg_counter: atomic<u32>;${staged && writes ? `
${stagingDecl('sh_heads', o.output === 'reduce' ? K : 'u32', 'TILE')}
${stagingDecl('sh_tails', o.output === 'reduce' ? V : 'u32', 'TILE + 1u')}
var<workgroup> sh_end_first: u32;
var<workgroup> sh_end_last: u32;` : ''}
${sub ? subgroupInclusiveFn({ ...typeInfo('u64'), wgsl: P }, PAIR_OPERATOR) : ''}
${pass === 'lookback' ? `${tileStateFns(vectorPayload(pairWords(v)))}\n${sub ? FIRST_LANE_FN : ''}` : ''}
${splitCounts ? COUNT_STATE_FNS : ''}

@compute @workgroup_size(WG)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>${sub ? `, ${SUBGROUP_BUILTINS}` : ''}) {
  ${subgroupIdsOrSelf(sub)}
  let ns = WG / sg_size;
  {
    ${pass === 'lookback' ? `${takeTile('state', '0')}
    if (tile >= P.num_tiles) { return; }` : reduceThenScanTile(pass)}
    let base = tile * (TILE / 4u) + sgid * sg_size * Q;
    let fast = (tile + 1u) * TILE <= P.fast_end;${staged && writes ? `
    // Cleared before the scan's barriers, set while staging.
    if (lid == 0u) { sh_end_first = 0u; sh_end_last = 0u; }` : ''}
${loads}${o.heads === 'offsets' ? OFFSET_HEADS : ''}
    var pre: array<${P}, Q>;
    var masks: array<u32, Q>;
    var run = identity();
${unroll(Q, 'k', `      let q = base + k * sg_size + sg_lane;
      var m = 0u;
      var t = identity();
${unroll(4, 'j', `        let e = q * 4u + j;
        if (e < P.count) {
          ${flagOf}
          t = op(t, ${pairOf('k', 'j', 'm')});
        }`)}
      masks[k] = m;${chunkScanStep(sub)}`)}
    if (sg_lane == 0u) { sh_sg[sgid] = run; }
    workgroupBarrier();
    ${tilePrefixBlock(pass, sub, staged && writes, splitCounts ? SPLIT_COUNTS_LOOKBACK : fusedLookback(headFlag ? 'agg.x != 0u' : undefined))}
    ${output}
  }
}
`;
  const key = ['bykey', pass, o.heads, o.output, k.name, v.name, o.ones ? 'ones' : 'vals', o.op.key, o.equality ?? '', o.exclusive ? 'ex' : 'in',
    WG, c.itemsPerThread, c.workgroupScan, sub ? o.subgroupMinSize : 0, staged ? 'staged' : 'direct'].join(':');
  return { key, label: `wgprim.bykey.${o.output}.${o.heads}.${pass}.${k.name}.${v.name}`, code, bindings, workgroupSize: WG, userCode: o.op.custom || o.equality !== undefined };
}
