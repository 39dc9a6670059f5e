// The batch copy's kernels. WGSL has no byte stores, so a range's bytes split into the
// destination words it covers whole (the copy pass: plain stores, source words funnel-shifted
// when the source and destination offsets differ mod 4) and at most two partial edge words,
// which another range may share: the ranges pass writes those with atomicAnd / atomicOr on the
// range's bytes only, so ranges that share a word (but no byte) never lose each other's bytes.
import { type Kernel, LINEAR_WORKGROUP_ID, paramsStruct } from '../../runtime/kernel.js';
import { type BatchCopyConfig } from './config.js';

export const BATCH_COPY_PARAMS = ['batches', 'src_bytes', 'dst_bytes', 'groups'] as const;
/** Invocations of the ranges pass's workgroups (one per range). */
export const RANGES_WG = 64;

const unitWords = (c: BatchCopyConfig): number => c.lanes * c.wordsPerLane;

function header(dstAtomic: boolean, fifth: string): string {
  return `${paramsStruct(BATCH_COPY_PARAMS)}
@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read> soff: array<u32>;
@group(0) @binding(3) var<storage, read> doff: array<u32>;
@group(0) @binding(4) var<storage, read> sizes: array<u32>;
${fifth}
@group(0) @binding(6) var<storage, read_write> dst: array<${dstAtomic ? 'atomic<u32>' : 'u32'}>;`;
}

/**
 * One invocation per range: checks it lies inside both buffers (a range that does not is
 * skipped whole), writes its partial edge words, and counts the units of its whole words
 * (`units[i]`; 0 for a skipped range), which the host then scans in place.
 */
export function rangesKernel(c: BatchCopyConfig): Kernel {
  const code = `${header(true, '@group(0) @binding(5) var<storage, read_write> units: array<u32>;')}
const UNIT = ${unitWords(c)}u;

fn src_byte(b: u32) -> u32 { return (src[b >> 2u] >> ((b & 3u) * 8u)) & 0xffu; }

/** Destination bytes [b0, b1) of one word, from the source at s + (b - d). */
fn partial(s: u32, d: u32, b0: u32, b1: u32) {
  var mask = 0u;
  var val = 0u;
  for (var b = b0; b < b1; b++) {
    let k = (b & 3u) * 8u;
    mask |= 0xffu << k;
    val |= src_byte(s + (b - d)) << k;
  }
  let w = b0 >> 2u;
  _ = atomicAnd(&dst[w], ~mask);
  _ = atomicOr(&dst[w], val);
}

@compute @workgroup_size(${RANGES_WG})
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = (${LINEAR_WORKGROUP_ID}) * ${RANGES_WG}u + lid;
  if (i >= P.batches) { return; }
  let s = soff[i];
  let d = doff[i];
  let n = sizes[i];
  // Written so that nothing overflows: offsets and sizes are any u32.
  let inside = n <= P.src_bytes && s <= P.src_bytes - n && n <= P.dst_bytes && d <= P.dst_bytes - n;
  var words = 0u;
  if (inside && n > 0u) {
    let e = d + n;
    let wf = (d + 3u) / 4u;
    let we = e / 4u;
    if (we > wf) { words = we - wf; }
    if (wf > we) {
      partial(s, d, d, e);
    } else {
      if ((d & 3u) != 0u) { partial(s, d, d, wf * 4u); }
      if ((e & 3u) != 0u) { partial(s, d, we * 4u, e); }
    }
  }
  units[i] = (words + UNIT - 1u) / UNIT;
}
`;
  return { key: `batch-copy-ranges:${unitWords(c)}`, label: 'wgprim.batchCopy.ranges', code, bindings: ['uniform', 'read-only-storage', 'read-only-storage', 'read-only-storage', 'read-only-storage', 'storage', 'storage'], workgroupSize: RANGES_WG };
}

/**
 * Copies the whole destination words. `ends` is the inclusive scan of the units: group g of
 * `lanes` invocations takes units [g * per, (g + 1) * per), finds the range of its first unit
 * by a binary search over `ends`, then walks on through the ranges in order. A unit is
 * `lanes * wordsPerLane` words, each lane taking every `lanes`-th (coalesced).
 */
export function copyKernel(c: BatchCopyConfig): Kernel {
  const code = `${header(false, '@group(0) @binding(5) var<storage, read> ends: array<u32>;')}
const WG = ${c.workgroupSize}u;
const L = ${c.lanes}u;
const K = ${c.wordsPerLane}u;
const UNIT = L * K;
const GROUPS = WG / L;

/** The source word at byte sb, which may be unaligned (the bytes of two words, shifted). */
fn src_word(sb: u32) -> u32 {
  let i = sb >> 2u;
  let sh = (sb & 3u) * 8u;
  if (sh == 0u) { return src[i]; }
  return (src[i] >> sh) | (src[i + 1u] << (32u - sh));
}

@compute @workgroup_size(WG)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let group = (${LINEAR_WORKGROUP_ID}) * GROUPS + lid / L;
  let lane = lid % L;
  let total = ends[P.batches - 1u];
  let per = (total + P.groups - 1u) / P.groups;
  var u = group * per;
  let stop = min(u + per, total);
  if (u >= stop) { return; }
  // The range of unit u: the first with ends[r] > u (one exists, as u < total).
  var lo = 0u;
  var hi = P.batches - 1u;
  while (lo < hi) {
    let mid = (lo + hi) / 2u;
    if (ends[mid] > u) { hi = mid; } else { lo = mid + 1u; }
  }
  var r = lo;
  loop {
    var first = 0u;
    if (r > 0u) { first = ends[r - 1u]; }
    let last = min(ends[r], stop);
    if (u < last) {
      let d = doff[r];
      let wf = (d + 3u) / 4u;
      let we = (d + sizes[r]) / 4u;
      // Source byte of destination byte b: b + (s - d), wrapping.
      let delta = soff[r] - d;
      for (; u < last; u++) {
        let w0 = wf + (u - first) * UNIT + lane;
        for (var j = 0u; j < K; j++) {
          let w = w0 + j * L;
          if (w < we) { dst[w] = src_word(w * 4u + delta); }
        }
      }
    }
    if (u >= stop) { break; }
    r++;
  }
}
`;
  return {
    key: ['batch-copy', c.workgroupSize, c.lanes, c.wordsPerLane].join(':'), label: 'wgprim.batchCopy.copy', code,
    bindings: ['uniform', 'read-only-storage', 'read-only-storage', 'read-only-storage', 'read-only-storage', 'read-only-storage', 'storage'], workgroupSize: c.workgroupSize,
  };
}
