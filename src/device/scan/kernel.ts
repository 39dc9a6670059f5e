import { type Kernel, paramsStruct } from '../../runtime/kernel.js';
import { SERIAL_LOOKBACK, SUBGROUP_LOOKBACK, tileStateFns } from '../../wgsl/device/lookback.js';
import { partialsDecl, reduceThenScanPrefix, reduceThenScanTile } from '../../wgsl/device/reduce-then-scan.js';
import { takeTile } from '../../wgsl/device/tile-counter.js';
import { type ResolvedOperator } from '../../wgsl/operators.js';
import { prelude, quadTileConstants } from '../../wgsl/prelude.js';
import { FIRST_LANE_FN } from '../../wgsl/subgroup/ballot.js';
import { SUBGROUP_BUILTINS } from '../../wgsl/subgroup/id.js';
import { subgroupInclusiveFn } from '../../wgsl/subgroup/scan.js';
import { quadReduce, quadScan } from '../../wgsl/thread/reduce.js';
import { unroll } from '../../wgsl/thread/unroll.js';
import { fromWords, type TypeInfo } from '../../wgsl/types.js';
import { type BindingKind, viewBindings, viewWgsl } from '../../wgsl/views.js';
import { quadStore, quadTileLoad } from '../../wgsl/workgroup/tile.js';
import { chunkScanStep, SUBGROUP_TOTALS_SCAN, subgroupIdsOrSelf, subgroupTotalsPrefix, workgroupScanDecls, workgroupScanSlots } from '../../wgsl/workgroup/scan.js';
import { type ScanConfig } from './config.js';

/**
 * Where a tile's prefix (the combination of every element before it) comes from:
 * - `lookback`: single pass; tiles taken in launch order from an atomic counter, prefix by
 *   decoupled look-back over per-tile state (needs forward progress between workgroups);
 * - `partials-out`, `carry`, `partials-in`: the passes of reduce-then-scan
 *   (src/wgsl/device/reduce-then-scan.ts); `carry` alone also scans small inputs.
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

export function scanKernel(o: ScanKernelOptions): Kernel {
  const { type: t, op, mode, config: c } = o;
  const T = t.wgsl;
  const sub = c.workgroupScan === 'subgroup';
  const Q = c.itemsPerThread / 4;
  const WG = c.workgroupSize;
  const writesOutput = mode !== 'partials-out';

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
  } else if (mode !== 'carry') {
    decls.push(partialsDecl(mode, bindings.length, T));
    bindings.push(mode === 'partials-out' ? 'storage' : 'read-only-storage');
  }

  const subgroupIds = subgroupIdsOrSelf(sub);
  const withinSubgroup = chunkScanStep(sub);

  // With look-back the first subgroup goes on from the totals' scan to the look-back, saving a barrier.
  const fusedLookback = sub && mode === 'lookback';
  const acrossSubgroups = fusedLookback ? '' : subgroupTotalsPrefix(sub);

  const tilePrefix = mode !== 'lookback' ? reduceThenScanPrefix(mode) : sub ? `
    if (sgid == 0u) {${SUBGROUP_TOTALS_SCAN}
      var prefix = identity();${SUBGROUP_LOOKBACK}
      if (sg_lane == 0u) { sh_prefix = prefix; }
    }
    workgroupBarrier();
    let tile_prefix = sh_prefix;
    let sg_prefix = sh_sg[sgid];` : SERIAL_LOOKBACK;

  const output = !writesOutput ? '' : `
    var head = op(tile_prefix, sg_prefix);
    if (P.has_init != 0u) { head = op(${fromWords(t, 'vec2<u32>(P.init_lo, P.init_hi)')}, head); }
    // Outputs are formed quad by quad as they are stored: no second array of registers.
${unroll(Q, 'k', `
      var x = op(head, pre[k]);
      var o: array<${T}, 4>;
${quadScan('items[k]', o.exclusive)}
      let q = base + k * sg_size + sg_lane;
${quadStore('out', 'q', 'o', 'fast')}`)}`;

  const code = `${prelude(t, op, sub)}
${paramsStruct(SCAN_PARAMS)}
@group(0) @binding(0) var<uniform> P: Params;
${decls.join('\n')}
${quadTileConstants(WG, c.itemsPerThread)}
${workgroupScanDecls(T, workgroupScanSlots(WG, sub, o.subgroupMinSize))}
var<workgroup> sh_tile: u32;
var<workgroup> sh_prefix: ${T};
var<workgroup> sg_counter: atomic<u32>;
${quadReduce(T)}
${sub ? subgroupInclusiveFn(t, op) : ''}
${mode === 'lookback' ? `${tileStateFns(t)}\n${sub ? FIRST_LANE_FN : ''}` : ''}

@compute @workgroup_size(WG)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>${sub ? `, ${SUBGROUP_BUILTINS}` : ''}) {
  ${subgroupIds}
  let ns = WG / sg_size;
  ${mode === 'carry' ? `var carry = identity();
  for (var tile = 0u; tile < P.num_tiles; tile++) {` : '{'}
    ${mode === 'lookback' ? `${takeTile('state', '0')}
    if (tile >= P.num_tiles) { return; }` : reduceThenScanTile(mode)}
    let base = tile * (TILE / 4u) + sgid * sg_size * Q;
    let fast = (tile + 1u) * TILE <= P.fast_end;
${quadTileLoad({ view: inName, T, quads: Q, fast: 'fast', quad: 'base + k * sg_size + sg_lane', unrolled: true })}
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
