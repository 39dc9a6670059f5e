import { SERIAL_LOOKBACK, subgroupLookback } from './lookback.js';
import { type ReduceThenScanPass, reduceThenScanPrefix } from './reduce-then-scan.js';
import { SUBGROUP_TOTALS_SCAN, subgroupTotalsPrefix } from '../workgroup/scan.js';

/** Where a tile's prefix comes from: single-pass look-back, or a pass of reduce-then-scan. */
export type TilePrefixMode = 'lookback' | ReduceThenScanPass;

/**
 * What the first subgroup runs after the totals' scan in the fused look-back: `body` declares
 * what it needs and looks back from `agg`; `prefix` is the tile's exclusive prefix after it.
 */
export interface FusedLookback {
  readonly body: string;
  readonly prefix: string;
}

/** The subgroup look-back into `prefix` (`selfInclusive`: as `subgroupLookback`'s). */
export const fusedLookback = (selfInclusive?: string): FusedLookback => ({
  body: `
      var prefix = identity();${subgroupLookback(selfInclusive)}`,
  prefix: 'prefix',
});

/**
 * The splice every single-pass tile scan makes (scan, the by-key engine): after each subgroup's
 * total is in `sh_sg[sgid]` and a barrier, scans the totals across the workgroup and takes the
 * tile's prefix, declaring `tile_prefix` (but for partials-out) and `sg_prefix`, and `agg`
 * (the tile's aggregate) where the caller sees it. With subgroup operations and look-back the
 * first subgroup goes on from the totals' scan to the look-back, saving a barrier. Needs what
 * the look-back (src/wgsl/device/lookback.ts) or the reduce-then-scan pass needs, and
 * `sh_prefix`. `aggregate`: also declares `tile_agg`, the tile's aggregate, in every invocation.
 * `look`: what the first subgroup looks back with (the subgroup look-back only).
 */
export function tilePrefixBlock(mode: TilePrefixMode, sub: boolean, aggregate = false, look: FusedLookback = fusedLookback()): string {
  const fused = sub && mode === 'lookback';
  const acrossSubgroups = fused ? '' : subgroupTotalsPrefix(sub);
  const tilePrefix = mode !== 'lookback' ? reduceThenScanPrefix(mode) : sub ? `
    if (sgid == 0u) {${SUBGROUP_TOTALS_SCAN}${look.body}
      if (sg_lane == 0u) { sh_prefix = ${look.prefix};${aggregate ? ' sh_agg = agg;' : ''} }
    }
    workgroupBarrier();
    let tile_prefix = sh_prefix;
    let sg_prefix = sh_sg[sgid];${aggregate ? '\n    let tile_agg = sh_agg;' : ''}` : SERIAL_LOOKBACK;
  return `${acrossSubgroups}
    ${tilePrefix}${aggregate && !fused ? '\n    let tile_agg = agg;' : ''}`;
}
