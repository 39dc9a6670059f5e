import { type Kernel, paramsStruct } from '../../runtime/kernel.js';
import { SERIAL_LOOKBACK, SUBGROUP_LOOKBACK, tileStateFns } from '../../wgsl/device/lookback.js';
import { partialsDecl, reduceThenScanPrefix, reduceThenScanTile } from '../../wgsl/device/reduce-then-scan.js';
import { takeTile } from '../../wgsl/device/tile-counter.js';
import { type ResolvedOperator, resolveOperator } from '../../wgsl/operators.js';
import { prelude } from '../../wgsl/prelude.js';
import { FIRST_LANE_FN } from '../../wgsl/subgroup/ballot.js';
import { SUBGROUP_BUILTINS } from '../../wgsl/subgroup/id.js';
import { quadNeighbours } from '../../wgsl/subgroup/quad-neighbours.js';
import { subgroupInclusiveFn } from '../../wgsl/subgroup/scan.js';
import { type OrderedStores, orderedStoresDecl, orderedStoresFlush, orderedStoresGather } from '../../wgsl/thread/ordered-stores.js';
import { unroll } from '../../wgsl/thread/unroll.js';
import { INT64_HELPERS, type TypeInfo, typeEnables, typeInfo } from '../../wgsl/types.js';
import { type BindingKind, scatterOutputWgsl, viewBindings, viewWgsl } from '../../wgsl/views.js';
import { quadTileLoad } from '../../wgsl/workgroup/tile.js';
import { stagedCopyOut, type StagedRun, stageOrStore, stagingDecl, twoPhaseRule } from '../../wgsl/workgroup/two-phase-scatter.js';
import { chunkScanStep, SUBGROUP_TOTALS_SCAN, subgroupIdsOrSelf, subgroupTotalsPrefix, workgroupScanDecls, workgroupScanSlots } from '../../wgsl/workgroup/scan.js';
import { type SelectConfig } from './config.js';
import { roundsDecls, type RoundsScatter, roundsScatter } from './rounds.js';
import { stripedDecls, stripedFlags, stripedScatter, type StripedTile } from './striped.js';

/**
 * The compaction engine behind select, the partitions and unique (rocPRIM's one partition
 * kernel for nine sub-algorithms): each tile flags its elements, scans the flags' counts across
 * the tile and, through decoupled look-back or reduce-then-scan, across the tiles before it,
 * then writes each element to the place its counts give it. Stable: input order is kept among
 * the elements that land in one output.
 */

/** Where an element's flag comes from. */
export type FlagSource =
  /** `pred(a)` over the element. */
  | 'predicate'
  /** `flags[e] != 0`. */
  | 'flags'
  /** `pred(a)` over the flag `flags[e]` (a `u32`): rocPRIM's predicated flags. */
  | 'predicated-flags'
  /** The element differs from the one before it (`!eq(prev, a)`), and the first element. */
  | 'unique'
  /** `first(a)`, else `second(a)`: two counts. */
  | 'three-way';

/** Where the elements go. */
export type OutputLayout =
  /** Only the selected, in order, to `out`. */
  | 'select'
  /** Selected in order at the front of `out`, rejected at its back in reverse order (CUB's). */
  | 'partition'
  /** Selected to `out`, rejected to `rejected`, both in order. */
  | 'two-way'
  /** First to `out`, second to `second`, the rest to `rejected`, all in order. */
  | 'three-way';

/** Bytes of one flag in a flags buffer: `u32` flags, or bytes packed four to a word (a `Uint8Array`'s layout). */
export type FlagBytes = 1 | 4;

/** WGSL for the flag of element e as a `u32`: a word of its own, or its byte of word e / 4. */
const flagValue = (bytes: FlagBytes): string => (bytes === 1 ? '((flags[e >> 2u] >> ((e & 3u) << 3u)) & 0xffu)' : 'flags[e]');

/** Which pass: single-pass look-back, or the first or last pass of reduce-then-scan. */
export type CompactionPass = 'lookback' | 'partials-out' | 'partials-in';

export interface CompactionKernelOptions {
  readonly type: TypeInfo;
  readonly source: FlagSource;
  readonly layout: OutputLayout;
  /** WGSL expressions: `predicate` over `a`; `second` (three-way) over `a`; `equality` over `a`, `b`. */
  readonly predicate?: string;
  readonly second?: string;
  readonly equality?: string;
  /** Values carried with the selected keys (unique by key): their size in bytes. */
  readonly valueBytes?: 4 | 8;
  /** Bytes a flag (sources `flags`, `predicated-flags`): 4, a `u32` each (the default), or 1, four to a word. */
  readonly flagBytes?: FlagBytes;
  readonly pass: CompactionPass;
  readonly config: SelectConfig;
  readonly subgroupMinSize: number;
  readonly subgroupMaxSize: number;
}

export const COMPACTION_PARAMS = ['count', 'num_tiles', 'in_tail', 'fast_end', 'out_tail', 'second_tail', 'rejected_tail'] as const;

/** The count a tile scans: one `u32` (selected), or a pair (first, second) for three-way. */
export function countType(layout: OutputLayout): TypeInfo {
  return typeInfo(layout === 'three-way' ? 'u64' : 'u32');
}

/** Addition of counts, componentwise for pairs (no carry: each count stays below 2^32). */
function countOperator(layout: OutputLayout): ResolvedOperator {
  if (layout !== 'three-way') return resolveOperator('add', typeInfo('u32'));
  return { key: 'pair-add', combine: 'return a + b;', identity: 'vec2<u32>(0u, 0u)', subgroupReduce: 'subgroupAdd', subgroupInclusive: 'subgroupInclusiveAdd' };
}

/** The default equality of `unique`: bitwise for integers, `==` for floats (so -0 equals +0, NaN nothing). */
export function defaultEquality(t: TypeInfo): string {
  return t.is64 ? 'all(a == b)' : 'a == b';
}


export function compactionKernel(o: CompactionKernelOptions): Kernel {
  const { type: t, config: c, layout, source, pass } = o;
  const flagBytes = o.flagBytes ?? 4;
  const T = t.wgsl;
  const C = countType(layout);
  const sub = c.workgroupScan === 'subgroup';
  const Q = c.itemsPerThread / 4;
  const WG = c.workgroupSize;
  const pair = layout === 'three-way';
  const scatters = pass !== 'partials-out';
  const V = o.valueBytes === 8 ? 'vec2<u32>' : 'u32';

  const bindings: BindingKind[] = ['uniform'];
  const decls: string[] = [];
  decls.push(viewWgsl({ name: 'in', type: t, access: 'read', tailStart: 'P.in_tail' }, bindings.length));
  bindings.push(...viewBindings({ access: 'read' }));
  const usesFlags = source === 'flags' || source === 'predicated-flags';
  if (usesFlags) {
    decls.push(`@group(0) @binding(${bindings.length}) var<storage, read> flags: array<u32>;`);
    bindings.push('read-only-storage');
  }
  if (scatters) {
    if (o.valueBytes) {
      decls.push(`@group(0) @binding(${bindings.length}) var<storage, read> vals: array<${V}>;`);
      bindings.push('read-only-storage');
    }
    decls.push(scatterOutputWgsl('out', t, 'P.out_tail', bindings.length, bindings));
    if (layout === 'three-way') decls.push(scatterOutputWgsl('second', t, 'P.second_tail', bindings.length, bindings));
    if (layout === 'two-way' || layout === 'three-way') decls.push(scatterOutputWgsl('rejected', t, 'P.rejected_tail', bindings.length, bindings));
    if (o.valueBytes) {
      decls.push(`@group(0) @binding(${bindings.length}) var<storage, read_write> vals_out: array<${V}>;`);
      bindings.push('storage');
    }
    // The selected count(s), written by the last tile.
    decls.push(`@group(0) @binding(${bindings.length}) var<storage, read_write> counts: array<u32>;`);
    bindings.push('storage');
  }
  if (pass === 'lookback') {
    decls.push(`@group(0) @binding(${bindings.length}) var<storage, read_write> state: array<atomic<u32>>;`);
    bindings.push('storage');
  } else {
    decls.push(partialsDecl(pass, bindings.length, C.wgsl));
    bindings.push(pass === 'partials-out' ? 'storage' : 'read-only-storage');
  }

  // The flag (count) of element e holding x; `prev` is the element before it (unique).
  const flagFns: Record<FlagSource, string> = {
    predicate: `fn pred(a: ${T}) -> bool { return ${o.predicate}; }
fn flag_of(x: ${T}, e: u32, prev: ${T}) -> u32 { return select(0u, 1u, pred(x)); }`,
    flags: `fn flag_of(x: ${T}, e: u32, prev: ${T}) -> u32 { return select(0u, 1u, ${flagValue(flagBytes)} != 0u); }`,
    'predicated-flags': `fn pred(a: u32) -> bool { return ${o.predicate}; }
fn flag_of(x: ${T}, e: u32, prev: ${T}) -> u32 { return select(0u, 1u, pred(${flagValue(flagBytes)})); }`,
    unique: `fn eq(a: ${T}, b: ${T}) -> bool { return ${o.equality ?? defaultEquality(t)}; }
fn flag_of(x: ${T}, e: u32, prev: ${T}) -> u32 { return select(0u, 1u, e == 0u || !eq(prev, x)); }`,
    'three-way': `fn pred(a: ${T}) -> bool { return ${o.predicate}; }
fn pred2(a: ${T}) -> bool { return ${o.second}; }
fn flag_of(x: ${T}, e: u32, prev: ${T}) -> vec2<u32> {
  if (pred(x)) { return vec2<u32>(1u, 0u); }
  return vec2<u32>(0u, select(0u, 1u, pred2(x)));
}`,
  };

  const subgroupIds = subgroupIdsOrSelf(sub);
  const withinSubgroup = chunkScanStep(sub);

  // The last tile writes the total(s): the first subgroup has them (`agg`, its prefix).
  const writeCounts = (prefix: string): string => !scatters ? '' : `
      if (tile == P.num_tiles - 1u) {
        let total = op(${prefix}, agg);
        ${pair ? 'counts[0] = total.x; counts[1] = total.y;' : 'counts[0] = total;'}
      }`;
  const fused = sub && pass === 'lookback';
  const acrossSubgroups = fused ? '' : `${subgroupTotalsPrefix(sub)}
    let tile_agg = agg;`;
  const tilePrefix = pass !== 'lookback'
    ? `${reduceThenScanPrefix(pass)}${pass === 'partials-in' ? `
    if (lid == 0u) {${writeCounts('tile_prefix')}
    }` : ''}`
    : sub
      ? `
    if (sgid == 0u) {${SUBGROUP_TOTALS_SCAN}
      var prefix = identity();${SUBGROUP_LOOKBACK}
      if (sg_lane == 0u) {
        sh_prefix = prefix;
        sh_agg = agg;${writeCounts('prefix')}
      }
    }
    workgroupBarrier();
    let tile_prefix = sh_prefix;
    let tile_agg = sh_agg;
    let sg_prefix = sh_sg[sgid];`
      : `${SERIAL_LOOKBACK}
    if (lid == 0u) {${writeCounts('tile_prefix')}
    }`;

  // Direct: each element goes from its invocation to its place. Staged: CUB's two-phase scatter
  // (src/wgsl/workgroup/two-phase-scatter.ts) through the tile's runs in workgroup memory (the
  // selected, then the second or rejected), copied out by consecutive invocations.
  const direct: Record<OutputLayout, string> = {
    select: `if (f != 0u) { out_store(s, x);${o.valueBytes ? ' vals_out[s] = vals[e];' : ''} }`,
    partition: 'if (f != 0u) { out_store(s, x); } else { out_store(P.count - 1u - (e - s), x); }',
    'two-way': 'if (f != 0u) { out_store(s, x); } else { rejected_store(e - s, x); }',
    'three-way': 'if (f.x != 0u) { out_store(s.x, x); } else if (f.y != 0u) { second_store(s.y, x); } else { rejected_store(e - s.x - s.y, x); }',
  };
  const staged = c.scatter === 'staged';
  const striped: StripedTile | undefined = c.scatter === 'striped'
    ? { T, itemsPerThread: c.itemsPerThread, pair, prev: source === 'unique', subgroupMaxSize: o.subgroupMaxSize }
    : undefined;
  const stage: Record<OutputLayout, string> = {
    select: `if (f != 0u) { sh_items[s - tile_prefix] = x;${o.valueBytes ? ' sh_index[s - tile_prefix] = e;' : ''} }`,
    partition: 'let ls = s - tile_prefix; if (f != 0u) { sh_items[ls] = x; } else { sh_items[tile_agg + (e - tile_start) - ls] = x; }',
    'two-way': 'let ls = s - tile_prefix; if (f != 0u) { sh_items[ls] = x; } else { sh_items[tile_agg + (e - tile_start) - ls] = x; }',
    'three-way': `let ls = s - tile_prefix;
            if (f.x != 0u) { sh_items[ls.x] = x; } else if (f.y != 0u) { sh_items[tile_agg.x + ls.y] = x; } else { sh_items[tile_agg.x + tile_agg.y + (e - tile_start) - ls.x - ls.y] = x; }`,
  };
  // One run a layout: [0, selected) for select, else the whole tile with the outputs in turn
  // (one loop, so only the subgroup that straddles a boundary diverges).
  const copyOut: Record<OutputLayout, StagedRun> = {
    select: { from: '0u', to: 'tile_agg', store: (i) => `out_store(tile_prefix + ${i}, sh_items[${i}]);${o.valueBytes ? ` vals_out[tile_prefix + ${i}] = vals[sh_index[${i}]];` : ''}` },
    partition: {
      from: '0u', to: 'tile_valid',
      store: (i) => `if (${i} < tile_agg) { out_store(tile_prefix + ${i}, sh_items[${i}]); } else { out_store(P.count - 1u - (tile_start - tile_prefix + ${i} - tile_agg), sh_items[${i}]); }`,
    },
    'two-way': {
      from: '0u', to: 'tile_valid',
      store: (i) => `if (${i} < tile_agg) { out_store(tile_prefix + ${i}, sh_items[${i}]); } else { rejected_store(tile_start - tile_prefix + ${i} - tile_agg, sh_items[${i}]); }`,
    },
    'three-way': {
      from: '0u', to: 'tile_valid',
      store: (i) => `let x = sh_items[${i}];
      if (${i} < tile_agg.x) { out_store(tile_prefix.x + ${i}, x); }
      else if (${i} < tile_agg.x + tile_agg.y) { second_store(tile_prefix.y + ${i} - tile_agg.x, x); }
      else { rejected_store(tile_start - tile_prefix.x - tile_prefix.y + ${i} - tile_agg.x - tile_agg.y, x); }`,
    },
  };
  // Direct select: a quad's selected take consecutive places, so ordered stores
  // (src/wgsl/thread/ordered-stores.ts) write them in fewer sectors. The two-output layouts
  // store as they go.
  const rounds: RoundsScatter | undefined = c.scatter === 'rounds' ? { layout, T, values: o.valueBytes !== undefined } : undefined;
  const ordered: OrderedStores | undefined = !staged && !striped && !rounds && layout === 'select'
    ? { name: 'sel', T, T2: o.valueBytes ? 'u32' : undefined, most: 4 }
    : undefined;
  const place = ordered
    ? orderedStoresGather(ordered, 'f != 0u', 's', 'x', o.valueBytes ? 'e' : undefined)
    : staged ? stageOrStore(stage[layout], direct[layout]) : direct[layout];
  const scatter = !scatters ? '' : rounds ? roundsScatter(rounds, Q) : striped ? `
    let head = op(tile_prefix, sg_prefix);${stripedScatter(striped, direct[layout])}` : `
    let head = op(tile_prefix, sg_prefix);
    let tile_start = tile * TILE;
    let tile_valid = min(TILE, P.count - tile_start);${staged ? `
    ${twoPhaseRule(layout === 'select' ? 'tile_agg' : 'tile_valid')}` : ''}
${unroll(Q, 'k', `
      var s = op(head, pre[k]);
      let q = base + k * sg_size + sg_lane;${ordered ? `
${orderedStoresDecl(ordered)}` : ''}
${unroll(4, 'j', `        let e = q * 4u + j;
        if (e < P.count) {
          let x = items[k][j];
          let f = unpack_flag(masks[k], j);
          ${place}
          s = op(s, f);
        }`)}${ordered ? `
${orderedStoresFlush(ordered, (at, x, e) => `out_store(${at}, ${x});${o.valueBytes ? ` vals_out[${at}] = vals[${e}];` : ''}`)}` : ''}`)}${staged ? `
${stagedCopyOut([copyOut[layout]])}` : ''}`;

  const quadFlags = `    let base = tile * (TILE / 4u) + sgid * sg_size * Q;
    let fast = (tile + 1u) * TILE <= P.fast_end;
${quadTileLoad({ view: 'in', T, quads: Q, fast: 'fast', quad: 'base + k * sg_size + sg_lane', unrolled: true, pad: `${T}()` })}
${source === 'unique' ? quadNeighbours({ name: 'in', T, quads: Q, items: 'items', sub, load: (e) => `in_at(${e})` }) : ''}
    var pre: array<${C.wgsl}, Q>;${rounds ? `
    var seg: array<${C.wgsl}, ${Q + 1}>;` : ''}
    var masks: array<u32, Q>;
    var run = identity();
${unroll(Q, 'k', `      let q = base + k * sg_size + sg_lane;
      var t = identity();
      var m = 0u;
${unroll(4, 'j', `        let e = q * 4u + j;
        if (e < P.count) {${source === 'unique' ? `
          // The element before: in this quad, or (its first) the quad before's last.
          var prev = items[k][max(j, 1u) - 1u];
          if (j == 0u) { prev = in_before[k]; }` : `
          let prev = items[k][j];`}
          let f = flag_of(items[k][j], e, prev);
          t = op(t, f);
          m |= pack_flag(f) << (2u * j);
        }`)}
      masks[k] = m;${rounds ? `
      seg[k] = run;` : ''}${withinSubgroup}`)}${rounds ? `
    seg[Q] = run;` : ''}`;
  // The element type's `enable`s and 64-bit helpers beside the count type's prelude.
  const countPrelude = prelude(C, countOperator(layout), sub);
  const head = [...typeEnables(t).filter((line) => !countPrelude.includes(line)), countPrelude, t.is64 && !C.is64 ? INT64_HELPERS : ''].join('\n');

  const code = `${head}
${paramsStruct(COMPACTION_PARAMS)}
@group(0) @binding(0) var<uniform> P: Params;
${decls.join('\n')}
const WG = ${WG}u;
const Q = ${Q}u;
const TILE = ${WG * c.itemsPerThread}u;
${workgroupScanDecls(C.wgsl, workgroupScanSlots(WG, sub, o.subgroupMinSize))}
var<workgroup> sh_tile: u32;
var<workgroup> sh_prefix: ${C.wgsl};
var<workgroup> sg_counter: atomic<u32>;
${scatters && staged ? `${stagingDecl('sh_items', T, 'TILE')}${o.valueBytes ? `\n${stagingDecl('sh_index', 'u32', 'TILE')}` : ''}` : ''}${scatters && rounds ? roundsDecls(rounds, WG) : ''}
${flagFns[source]}
// Flags kept two bits an element between the count and the scatter, not evaluated twice.
${pair ? `fn pack_flag(f: vec2<u32>) -> u32 { return f.x | (f.y << 1u); }
fn unpack_flag(m: u32, j: u32) -> vec2<u32> { return vec2<u32>((m >> (2u * j)) & 1u, (m >> (2u * j + 1u)) & 1u); }`
    : `fn pack_flag(f: u32) -> u32 { return f; }
fn unpack_flag(m: u32, j: u32) -> u32 { return (m >> (2u * j)) & 1u; }`}
${sub ? subgroupInclusiveFn(C, countOperator(layout)) : ''}
${pass === 'lookback' ? `${tileStateFns(C)}\n${sub ? FIRST_LANE_FN : ''}` : ''}
${striped ? stripedDecls(striped) : ''}

@compute @workgroup_size(WG)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>${sub ? `, ${SUBGROUP_BUILTINS}` : ''}) {
  ${subgroupIds}
  let ns = WG / sg_size;
  {
    ${pass === 'lookback' ? `${takeTile('state', '0')}
    if (tile >= P.num_tiles) { return; }` : reduceThenScanTile(pass)}
${striped ? stripedFlags(striped) : quadFlags}
    if (sg_lane == 0u) { sh_sg[sgid] = run; }
    workgroupBarrier();
    ${acrossSubgroups}
    ${tilePrefix}
    ${scatter}
  }
}
`;
  const key = ['compaction', pass, source, layout, t.name, o.predicate ?? '', o.second ?? '', o.equality ?? '', o.valueBytes ?? 0,
    WG, c.itemsPerThread, c.workgroupScan, c.scatter, sub ? o.subgroupMinSize : 0, striped ? o.subgroupMaxSize : 0, usesFlags ? flagBytes : 0].join(':');
  const userCode = o.predicate !== undefined || o.second !== undefined || o.equality !== undefined;
  return { key, label: `wgprim.${layout}.${source}.${pass}.${t.name}`, code, bindings, workgroupSize: WG, userCode };
}
