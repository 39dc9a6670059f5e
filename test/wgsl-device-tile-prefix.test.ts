// The look-back's state over any payload, and the tile-prefix splice the scans share
// (src/wgsl/device/lookback.ts, src/wgsl/device/tile-prefix.ts). Run on the device through the
// scan, select and by-key tests; here what each generates.
import { describe, expect, it } from 'vitest';
import { elementPayload, lookbackWordsPerTile, SERIAL_LOOKBACK, SUBGROUP_LOOKBACK, tileStateFns, vectorPayload } from '../src/wgsl/device/lookback.js';
import { tilePrefixBlock } from '../src/wgsl/device/tile-prefix.js';
import { reduceThenScanPrefix } from '../src/wgsl/device/reduce-then-scan.js';
import { typeInfo } from '../src/wgsl/types.js';

describe('tile state over a payload', () => {
  it('an element type reads as before: its words through a vec2<u32>', () => {
    for (const t of ['u32', 'f16', 'u64'] as const) {
      expect(tileStateFns(typeInfo(t))).toBe(tileStateFns(elementPayload(typeInfo(t))));
    }
    expect(tileStateFns(typeInfo('f32'))).toContain('return TileState(f, bitcast<f32>((w).x));');
  });
  it('a vec3<u32> payload travels as six 16-bit halves, all checked, within one line of state', () => {
    const fns = tileStateFns(vectorPayload(3));
    expect(fns.match(/atomicStore/g)).toHaveLength(6);
    expect(fns).toContain('fn publish(p: u32, f: u32, v: vec3<u32>)');
    expect(fns).toContain('(s5 & LB_STATUS) == f');
    expect(fns).toContain('let w = vec3<u32>((s0 & 0xffffu) | (s1 << 16u), (s2 & 0xffffu) | (s3 << 16u), (s4 & 0xffffu) | (s5 << 16u));');
    expect(lookbackWordsPerTile(vectorPayload(3))).toBe(32);
  });
});

describe('tile prefix', () => {
  it('look-back with subgroups is fused into the totals scan; without, after the workgroup scan', () => {
    const fused = tilePrefixBlock('lookback', true);
    expect(fused).toContain(SUBGROUP_LOOKBACK);
    expect(fused).not.toContain('sh_agg = agg');
    const serial = tilePrefixBlock('lookback', false);
    expect(serial).toContain(SERIAL_LOOKBACK);
    expect(serial).toContain('let agg = sh_sg[WG - 1u];');
  });
  it('reduce-then-scan passes take the prefix from the partials', () => {
    for (const pass of ['partials-out', 'partials-in', 'carry'] as const) {
      const block = tilePrefixBlock(pass, true);
      expect(block).toContain(reduceThenScanPrefix(pass));
      expect(block).toContain('let sg_prefix = sh_sg[sgid];');
    }
  });
});
