import { unroll } from '../thread/unroll.js';

/**
 * Lane masks from `subgroupBallot` sized for subgroups of at most `maxSize` lanes: one word (u32)
 * up to 32 lanes, else vec2 or vec4. `fns`: the WGSL helpers the expressions below rely on
 * (lane_mask_below(lane): lanes below this one; for wider masks also lane_mask_count and
 * lane_mask_lowest); `part`: the swizzle that cuts a ballot to the mask type; `count(x)`:
 * lanes set; `lowest(x)`: the lowest lane set.
 */
export interface LaneMask {
  readonly type: string;
  readonly part: string;
  readonly fns: string;
  count(x: string): string;
  lowest(x: string): string;
}

export function laneMask(maxSize: number): LaneMask {
  const words = Math.ceil(maxSize / 32);
  if (words === 1) {
    return {
      type: 'u32', part: '.x',
      fns: 'fn lane_mask_below(lane: u32) -> u32 { return select((1u << lane) - 1u, 0xffffffffu, lane >= 32u); }',
      count: (x) => `countOneBits(${x})`, lowest: (x) => `countTrailingZeros(${x})`,
    };
  }
  const M = `vec${words === 2 ? 2 : 4}<u32>`;
  return {
    type: M, part: words === 2 ? '.xy' : '',
    fns: `fn lane_mask_count(v: ${M}) -> u32 { var s = 0u; for (var w = 0u; w < ${words}u; w++) { s += v[w]; } return s; }
fn lane_mask_lowest(v: ${M}) -> u32 {
  for (var w = 0u; w < ${words}u; w++) { if (v[w] != 0u) { return w * 32u + countTrailingZeros(v[w]); } }
  return 0u;
}
fn lane_mask_below(lane: u32) -> ${M} {
  var m = ${M}(0u);
  for (var w = 0u; w < ${words}u; w++) {
    let lo = w * 32u;
    if (lane >= lo + 32u) { m[w] = 0xffffffffu; } else if (lane > lo) { m[w] = (1u << (lane - lo)) - 1u; }
  }
  return m;
}`,
    count: (x) => `lane_mask_count(countOneBits(${x}))`, lowest: (x) => `lane_mask_lowest(${x})`,
  };
}

/**
 * Statements narrowing `peers` (a `var` mask, the lanes taking part) to the lanes whose `value`
 * (a u32 below 2^bits) equals this lane's: one ballot per bit (subgroup match).
 */
export function subgroupMatch(value: string, bits: number, mask: LaneMask): string {
  return unroll(bits, 'b', `  { let on = ((${value} >> b) & 1u) == 1u; let bal = subgroupBallot(on)${mask.part}; peers &= select(~bal, bal, on); }`);
}

/** `first_lane(b)`: the lowest lane set in a full ballot, 128 for none. */
export const FIRST_LANE_FN = `fn first_lane(b: vec4<u32>) -> u32 {
  if (b.x != 0u) { return countTrailingZeros(b.x); }
  if (b.y != 0u) { return 32u + countTrailingZeros(b.y); }
  if (b.z != 0u) { return 64u + countTrailingZeros(b.z); }
  if (b.w != 0u) { return 96u + countTrailingZeros(b.w); }
  return 128u;
}`;
