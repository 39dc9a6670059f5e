import { type ResolvedOperator } from '../operators.js';
import { SUBGROUP_ID } from '../subgroup/id.js';
import { subgroupInclusiveFn, SUBGROUP_TOTAL, subgroupScanStep } from '../subgroup/scan.js';
import { type TypeInfo } from '../types.js';
import { sharedInclusiveScan } from './shared-scan.js';

/**
 * The workgroup scan in two levels: each subgroup (`sgid`, `sg_lane`, `sg_size`; without
 * subgroup operations every invocation is a subgroup of one, sgid = lid) scans its own values,
 * its total goes to `sh_sg[sgid]`, and the totals are scanned across the workgroup. The scan
 * kernel splices these pieces (fusing the look-back into the totals' scan); `workgroupScanFn`
 * puts them together as a function.
 */

/**
 * `sgid`, `sg_lane` and `sg_size`: from the subgroup ticket with subgroup operations, else every
 * invocation a subgroup of one (sgid = lid).
 */
export const subgroupIdsOrSelf = (sub: boolean): string => (sub ? SUBGROUP_ID : '\n  let sgid = lid; let sg_lane = 0u; let sg_size = 1u;');

/**
 * One step of a running scan over a lane's quads, each a subgroup-wide slice of the chunk in
 * order: from the quad's total `t`, `pre[k]` gets this lane's exclusive prefix in the chunk and
 * `run` the chunk's total so far (every lane holds it).
 */
export function chunkScanStep(sub: boolean): string {
  return sub
    ? `
${subgroupScanStep('t', '      ')}
      pre[k] = op(run, ex);
      run = op(run, ${SUBGROUP_TOTAL});`
    : `
      pre[k] = run;
      run = op(run, t);`;
}

/**
 * Exclusive scan of the `ns` subgroup totals in `sh_sg`, in place, by the first subgroup (the
 * caller's `if (sgid == 0u)`), a subgroup-sized chunk at a time; declares `agg`, the workgroup
 * aggregate, in that subgroup.
 */
export const SUBGROUP_TOTALS_SCAN = `
      var acc = identity();
      for (var c = 0u; c < ns; c += sg_size) {
        let i = c + sg_lane;
        var x = identity();
        if (i < ns) { x = sh_sg[i]; }
${subgroupScanStep('x', '        ')}
        if (i < ns) { sh_sg[i] = op(acc, ex); }
        acc = op(acc, ${SUBGROUP_TOTAL});
      }
      let agg = acc;`;

/**
 * After each subgroup's total is in `sh_sg[sgid]` and a barrier: declares `agg` (the workgroup
 * aggregate) and `sg_prefix` (the combination of the subgroups before this one), with subgroup
 * operations (`sub`, through the workgroup `sh_agg`) or in workgroup memory (`sh_sg` of WG).
 */
export function subgroupTotalsPrefix(sub: boolean): string {
  return sub
    ? `
    if (sgid == 0u) {${SUBGROUP_TOTALS_SCAN}
      if (sg_lane == 0u) { sh_agg = agg; }
    }
    workgroupBarrier();
    let agg = sh_agg;
    let sg_prefix = sh_sg[sgid];`
    : `
${sharedInclusiveScan({ array: 'sh_sg', index: 'lid', size: 'WG', zero: 'identity()', combine: (y, x) => `${x} = op(${y}, ${x});`, pad: '    ' })}
    let agg = sh_sg[WG - 1u];
    var sg_prefix = identity();
    if (lid > 0u) { sg_prefix = sh_sg[lid - 1u]; }`;
}

/** Workgroup arrays the scan pieces use: `sh_sg` (a total per subgroup, `slots` of them) and `sh_agg`. */
export function workgroupScanDecls(T: string, slots: number): string {
  return `var<workgroup> sh_sg: array<${T}, ${slots}>;
var<workgroup> sh_agg: ${T};`;
}

/**
 * Slots of `sh_sg` a workgroup of `workgroupSize` needs: a subgroup of the smallest size each, or
 * one per invocation without subgroup operations.
 */
export const workgroupScanSlots = (workgroupSize: number, sub: boolean, subgroupMinSize: number): number =>
  (sub ? Math.max(1, workgroupSize / subgroupMinSize) : workgroupSize);

export interface WorkgroupScanOptions {
  readonly type: TypeInfo;
  readonly op: ResolvedOperator;
  /** Subgroup operations, or workgroup memory only. */
  readonly method: 'subgroup' | 'shared';
  readonly workgroupSize: number;
  readonly subgroupMinSize: number;
}

/**
 * `wg_scan(x, lid[, sgid, sg_lane, sg_size]) -> WgScan { exclusive, inclusive, aggregate }`: the
 * scan of one value per invocation, any associative operator. Order: invocation order without
 * subgroups; with them subgroup by subgroup in `sgid` order (the caller takes sgid from the
 * SUBGROUP_ID ticket and loads by sgid * sg_size + sg_lane, as the kernels do). Every invocation
 * calls it; needs `op` and `identity` (the prelude). Declares its workgroup arrays.
 */
export function workgroupScanFn(o: WorkgroupScanOptions): string {
  const T = o.type.wgsl;
  const sub = o.method === 'subgroup';
  const slots = workgroupScanSlots(o.workgroupSize, sub, o.subgroupMinSize);
  const own = sub
    ? `${subgroupScanStep('x', '  ')}
  let own_ex = ex;
  if (sg_lane == sg_size - 1u) { sh_sg[sgid] = op(ex, x); }`
    : `  let own_ex = identity();
  sh_sg[lid] = x;`;
  return `${workgroupScanDecls(T, slots)}
const WG = ${o.workgroupSize}u;
${sub ? subgroupInclusiveFn(o.type, o.op) : ''}
struct WgScan { exclusive: ${T}, inclusive: ${T}, aggregate: ${T} }
fn wg_scan(x: ${T}, lid: u32${sub ? ', sgid: u32, sg_lane: u32, sg_size: u32' : ''}) -> WgScan {
  ${sub ? '' : 'let sgid = lid; let sg_lane = 0u; let sg_size = 1u;'}
  let ns = WG / sg_size;
  workgroupBarrier();
${own}
  workgroupBarrier();
${subgroupTotalsPrefix(sub)}
  let e = op(sg_prefix, own_ex);
  return WgScan(e, op(e, x), agg);
}`;
}
