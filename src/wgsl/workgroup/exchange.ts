import { unroll } from '../thread/unroll.js';

/**
 * `x_store_<what>(i, x)` / `x_load_<what>(i)`: an exchange through the workgroup atomic<u32>
 * array `array` (memory a rank's counters share, hence atomics), one word per element and, for
 * two-word types, a second plane `plane` words on: planes keep consecutive elements in
 * consecutive banks.
 */
export function planeExchangeFns(what: string, T: string, array = 'rk_hist', plane = 'TILE'): string {
  return T === 'u32'
    ? `fn x_store_${what}(i: u32, x: u32) { atomicStore(&${array}[i], x); }
fn x_load_${what}(i: u32) -> u32 { return atomicLoad(&${array}[i]); }`
    : `fn x_store_${what}(i: u32, x: vec2<u32>) { atomicStore(&${array}[i], x.x); atomicStore(&${array}[${plane} + i], x.y); }
fn x_load_${what}(i: u32) -> vec2<u32> { return vec2<u32>(atomicLoad(&${array}[i]), atomicLoad(&${array}[${plane} + i])); }`;
}

/** Reloads `ks` (and `vs`) subgroup-striped from a tile in `s_keys` (`s_vals`), e.g. after scattering it by rank. */
export function stripedFromShared(items: number, pairs: boolean, pad = '    '): string {
  return unroll(items, 'j', `${pad}let p = striped_pos(j, sgid, sg_lane, sg_size);
${pad}ks[j] = s_keys[p];
${pad}${pairs ? 'vs[j] = s_vals[p];' : ''}`);
}
