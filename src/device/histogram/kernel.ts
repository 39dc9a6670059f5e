// The histogram kernels: one sweep over the samples as 32-bit words (16-byte loads in full
// tiles), binning each sample by its u32 key, counted into privatized workgroup histograms
// (flushed once per workgroup) or straight onto the output; and the clear pass. Privatized u8
// samples are counted by value and binned once per workgroup at the flush, as CUB does.
import { type Kernel, LINEAR_WORKGROUP_ID, paramsStruct } from '../../runtime/kernel.js';
import { quadTileConstants } from '../../wgsl/prelude.js';
import { indent, unroll } from '../../wgsl/thread/unroll.js';
import { typeInfo } from '../../wgsl/types.js';
import { type BindingKind, viewBindings, viewWgsl } from '../../wgsl/views.js';
import { histogramClear, histogramFlush, type SharedHistogram } from '../../wgsl/workgroup/histogram.js';
import { type SampleInfo } from './samples.js';

/**
 * `even-float`: f32 arithmetic on the sample; `even-shift`: integer bins a power of two wide
 * (RGBA8 in 256 bins: the sample itself); `even-int`: an f32 estimate corrected against
 * the table of bin edges (exact); `range`: a binary search over the levels.
 */
export type Binning = 'even-float' | 'even-shift' | 'even-int' | 'range';

export interface HistogramKernelOptions {
  readonly sample: SampleInfo;
  readonly binning: Binning;
  readonly channels: number;
  readonly activeChannels: number;
  /**
   * Bins the kernel has room for (its size class, `binCapacity`): bin and level counts are
   * uniforms, so calls of many bin counts share a pipeline.
   */
  readonly capacity: number;
  /** Whether it reads a table of levels (or edges): all but `even-float`. */
  readonly hasLevels: boolean;
  /** Where the table is read: copied into workgroup memory, or from the buffer. */
  readonly levelsIn: 'workgroup' | 'global';
  /** The path the call takes (a shared config whose bins do not fit runs `global`). */
  readonly privatization: 'shared' | 'global';
  readonly copies: number;
  /**
   * u8 samples on the shared path: 256 counters a channel indexed by the sample itself (no
   * binning per sample, no range check), binned at the flush into a second workgroup array of
   * the output's bins, which is then added to the output.
   */
  readonly byValue: boolean;
  readonly workgroupSize: number;
  readonly itemsPerThread: number;
}

export const HISTOGRAM_PARAMS = ['elements', 'words', 'tail_start', 'num_tiles', 'full_tiles', 'grid', 'lo_key', 'hi_key', 'lower', 'scale', 'bins', 'levels', 'top'] as const;

/** The size class of a bin count: powers of two to 256 (at least 16), then multiples of 1024. */
export const binCapacity = (bins: number): number => (bins <= 256 ? Math.max(16, 2 ** Math.ceil(Math.log2(bins))) : Math.ceil(bins / 1024) * 1024);

/** Bins a channel takes in workgroup memory: powers of two past 16 padded by one against bank conflicts (as rocPRIM). */
export const paddedBins = (bins: number): number => (bins >= 32 && (bins & (bins - 1)) === 0 ? bins + 1 : bins);

/** Counters a channel of a privatized histogram takes: 256 sample values of u8 counted by value, else the bins. */
const privatizedBins = (o: Pick<HistogramKernelOptions, 'capacity' | 'byValue'>): number => paddedBins(o.byValue ? 256 : o.capacity);

/** Bytes of workgroup memory a kernel takes. */
export function histogramWorkgroupBytes(o: Pick<HistogramKernelOptions, 'activeChannels' | 'capacity' | 'hasLevels' | 'levelsIn' | 'privatization' | 'copies' | 'byValue'>): number {
  const shared = o.privatization === 'shared';
  const counters = shared ? o.copies * o.activeChannels * privatizedBins(o) : 0;
  const fold = shared && o.byValue ? o.activeChannels * o.capacity : 0;
  return 4 * (counters + fold + (o.hasLevels && o.levelsIn === 'workgroup' ? o.capacity + 1 : 0));
}

/**
 * The sample `j` of word `w` as its u32 key; under `even-float` a float sample stays raw f32 bits
 * (its bin needs the value, and `bin_of` makes the key only for the range test).
 */
function sampleKey(s: SampleInfo, w: string, j: number, binning: Binning): string {
  const floatKey = (bits: string): string => (binning === 'even-float' ? bits : `fkey(${bits})`);
  switch (s.name) {
    case 'u8': return j === 0 ? `(${w} & 0xffu)` : `extractBits(${w}, ${8 * j}u, 8u)`;
    case 'u16': return j === 0 ? `(${w} & 0xffffu)` : `(${w} >> 16u)`;
    case 'u32': return w;
    case 'i32': return `(${w} ^ 0x80000000u)`;
    case 'f32': return floatKey(w);
    // Widened exactly to f32 (no shader-f16 needed).
    case 'f16': return floatKey(`bitcast<u32>(unpack2x16float(${w})[${j}])`);
  }
}

function binFunction(o: HistogramKernelOptions): string {
  switch (o.binning) {
    case 'even-float':
      // x: f32 bits. The range test on the key (exact, and NaN fails it whatever a compiler
      // assumes of float compares: WGSL lets it assume no NaN); the bin from x itself (-0 and +0
      // give the same bin). One unsigned compare: k in [lo, hi] iff k - lo <= hi - lo.
      return `fn bin_of(x: u32) -> u32 {
  let k = fkey(x);
  if (k - P.lo_key > P.hi_key - P.lo_key) { return P.bins; }
  return min(u32((bitcast<f32>(x) - bitcast<f32>(P.lower)) * bitcast<f32>(P.scale)), P.bins - 1u);
}`;
    case 'even-shift':
      return `fn bin_of(k: u32) -> u32 {
  if (k < P.lo_key || k > P.hi_key) { return P.bins; }
  return (k - P.lo_key) >> P.scale;
}`;
    case 'even-int':
      // The estimate is off by at most one bin but for huge bin counts: the loops settle it.
      return `fn bin_of(k: u32) -> u32 {
  if (k < P.lo_key || k > P.hi_key) { return P.bins; }
  var b = min(u32(f32(k - P.lo_key) * bitcast<f32>(P.scale)), P.bins - 1u);
  loop { if (b == 0u || k > level(b)) { break; } b -= 1u; }
  loop { if (b + 1u >= P.bins || k <= level(b + 1u)) { break; } b += 1u; }
  return b;
}`;
    case 'range':
      // Levels between the first and the last by decreasing powers of two (top: the largest below the last level).
      return `fn bin_of(k: u32) -> u32 {
  if (k < level(0u) || k >= level(P.levels - 1u)) { return P.bins; }
  var b = 0u;
  for (var step = P.top; step > 0u; step >>= 1u) {
    let j = b + step;
    if (j < P.levels - 1u) { if (level(j) <= k) { b = j; } }
  }
  return b;
}`;
  }
}

export function histogramKernel(o: HistogramKernelOptions): Kernel {
  const s = o.sample;
  const WG = o.workgroupSize;
  const Q = o.itemsPerThread / 4;
  const SPW = 4 / s.bytes;
  const CH = o.channels;
  const shared = o.privatization === 'shared';
  const byValue = shared && o.byValue;
  const pad = privatizedBins({ capacity: o.capacity, byValue });
  const stride = o.activeChannels * pad;
  const bindings: BindingKind[] = ['uniform', ...viewBindings({ access: 'read' }), 'read-only-storage', 'storage'];
  const h: SharedHistogram = { array: 'sh', bins: 'COUNTERS', index: 'lid', stride: 'WG' };
  const fold: SharedHistogram = { array: 'fold', bins: 'ACTIVE * P.bins', index: 'lid', stride: 'WG' };
  const add = shared ? 'atomicAdd(&sh[copy_base + c * BINS_PAD + b], 1u);' : 'atomicAdd(&hist[c * P.bins + b], 1u);';
  const count = byValue
    ? 'fn count(c: u32, k: u32, copy_base: u32) { atomicAdd(&sh[copy_base + c * BINS_PAD + k], 1u); }'
    : `fn count(c: u32, k: u32, copy_base: u32) {
  let b = bin_of(k);
  if (b < P.bins) { ${add} }
}`;
  /** Flush of privatized counter d: its copies summed into `total`, then `then` with channel c and bin (or value) b. */
  const flushEach = (then: string) => (d: string, n: string): string => `var total = ${n};${Array.from({ length: o.copies - 1 }, (_, i) => ` total += atomicLoad(&sh[${d} + ${i + 1}u * STRIDE]);`).join('')}
    let c = ${d} / BINS_PAD;
    let b = ${d} - c * BINS_PAD;
    ${then}`;
  const flush = byValue
    ? `${histogramFlush({ ...h, bins: 'STRIDE' }, flushEach('if (total > 0u && b < 256u) { let bin = bin_of(b); if (bin < P.bins) { atomicAdd(&fold[c * P.bins + bin], total); } }'), 'd', '  ')}
  workgroupBarrier();
${histogramFlush(fold, (d, n) => `if (${n} > 0u) { atomicAdd(&hist[${d}], ${n}); }`, 'd', '  ')}`
    : histogramFlush({ ...h, bins: 'STRIDE' }, flushEach('if (total > 0u && b < P.bins) { atomicAdd(&hist[c * P.bins + b], total); }'), 'd', '  ');
  // Range levels arrive as the caller's values; the even edge table is keys already.
  const rawKey = o.binning === 'range' ? { u32: 'x', i32: 'x ^ 0x80000000u', f32: 'fkey(x)' }[s.levelType] : 'x';
  const wgLevels = o.hasLevels && o.levelsIn === 'workgroup';

  /** Counts sample j of word expression `w` of channel `c` (a number, or a WGSL expression). */
  const countOne = (w: string, j: number, c: number | string): string => {
    const call = (ch: string): string => `count(${ch}, ${sampleKey(s, w, j, o.binning)}, copy_base);`;
    if (typeof c === 'number') return c >= o.activeChannels ? '' : call(`${c}u`);
    return o.activeChannels < CH ? `{ let c = ${c}; if (c < ACTIVE) { ${call('c')} } }` : `{ let c = ${c}; ${call('c')} }`;
  };
  const perVector = 4 * SPW;
  const constChannels = perVector % CH === 0;
  const fastBody: string[] = [];
  for (let i = 0; i < 4; i++) {
    for (let j = 0; j < SPW; j++) {
      const c = constChannels ? (i * SPW + j) % CH : `(cbase + ${i * SPW + j}u) % CH`;
      fastBody.push(countOne(`x[${i}]`, j, c));
    }
  }
  const slowBody: string[] = [];
  for (let j = 0; j < SPW; j++) {
    slowBody.push(`if (w * ${SPW}u + ${j}u < P.elements) { ${countOne('x', j, CH === 1 ? 0 : `(w * ${SPW}u + ${j}u) % CH`)} }`);
  }

  const code = `${paramsStruct(HISTOGRAM_PARAMS)}
@group(0) @binding(0) var<uniform> P: Params;
${viewWgsl({ name: 's', type: typeInfo('u32'), access: 'read', tailStart: 'P.tail_start' }, 1)}
@group(0) @binding(3) var<storage, read> levels_g: array<u32>;
@group(0) @binding(4) var<storage, read_write> hist: array<atomic<u32>>;
${quadTileConstants(WG, o.itemsPerThread)}
const CH = ${CH}u;
const ACTIVE = ${o.activeChannels}u;
const BINS_PAD = ${pad}u;
const STRIDE = ${stride}u;
const COUNTERS = ${o.copies * stride}u;
const LV_CAP = ${o.capacity + 1}u;
${shared ? 'var<workgroup> sh: array<atomic<u32>, COUNTERS>;' : ''}
${byValue ? `var<workgroup> fold: array<atomic<u32>, ${o.activeChannels * o.capacity}>;` : ''}
${wgLevels ? 'var<workgroup> lv: array<u32, LV_CAP>;' : ''}

// Order-preserving key of f32 bits, -0 as +0.
fn fkey(x: u32) -> u32 {
  let y = select(x, 0u, x == 0x80000000u);
  return y ^ (u32(i32(y) >> 31u) | 0x80000000u);
}
fn level_key(x: u32) -> u32 { return ${rawKey}; }
fn level(i: u32) -> u32 { return ${wgLevels ? 'lv[i]' : 'level_key(levels_g[i])'}; }
${binFunction(o)}
${count}

@compute @workgroup_size(WG)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
${shared ? `  ${histogramClear(h)}\n` : ''}${byValue ? `  ${histogramClear(fold)}\n` : ''}${wgLevels ? '  for (var i = lid; i < P.levels; i += WG) { lv[i] = level_key(levels_g[i]); }\n' : ''}  workgroupBarrier();
  let copy_base = ${shared && o.copies > 1 ? '(lid % ' + o.copies + 'u) * STRIDE' : '0u'};
  for (var tile = ${LINEAR_WORKGROUP_ID}; tile < P.num_tiles; tile += P.grid) {
    let q0 = tile * (TILE / 4u) + lid;
    if (tile < P.full_tiles) {
      // Unrolled: the Q loads in flight together, and the words in registers.
      var v: array<vec4<u32>, Q>;
${indent(unroll(Q, 'k', 'v[k] = s_v[q0 + k * WG];'), '      ')}
${indent(unroll(Q, 'k', `let x = v[k];
${constChannels ? '' : `let cbase = ((q0 + k * WG) * ${perVector}u) % CH;\n`}${fastBody.filter(Boolean).join('\n')}`), '      ')}
    } else {
      for (var k = 0u; k < Q; k++) {
        for (var i = 0u; i < 4u; i++) {
          let w = (q0 + k * WG) * 4u + i;
          if (w < P.words) {
            let x = s_at(w);
            ${slowBody.join('\n            ')}
          }
        }
      }
    }
  }
${shared ? `  workgroupBarrier();
${flush}` : ''}
}
`;
  const key = ['histogram', s.name, o.binning, CH, o.activeChannels, o.capacity, o.hasLevels, o.levelsIn, o.privatization, o.copies, byValue, WG, o.itemsPerThread].join(':');
  return { key, label: `wgprim.histogram.${o.binning}.${s.name}`, code, bindings, workgroupSize: WG };
}

/** Zeroes the first `n` counters of the output (`clear: true`). */
export function clearKernel(): Kernel {
  const code = `struct Params { n: u32, }
@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read_write> hist: array<u32>;
@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = (${LINEAR_WORKGROUP_ID}) * 256u + lid;
  if (i < P.n) { hist[i] = 0u; }
}
`;
  return { key: 'histogram-clear', label: 'wgprim.histogram.clear', code, bindings: ['uniform', 'storage'], workgroupSize: 256 };
}
