// The WGSL building blocks (src/wgsl/*), each run in a tiny harness kernel and checked against a
// CPU reference. Shared by the Node tests (test/wgsl-*.test.ts, on lavapipe) and the browser page
// (Chromium): each side passes an importer for the library's modules (src/ in Node, dist/ in the
// page), so the harnesses and checks are written once. A case returns its failures (strings).

const MODULES = {
  types: 'wgsl/types.js', operators: 'wgsl/operators.js', prelude: 'wgsl/prelude.js', values: 'wgsl/values.js', views: 'wgsl/views.js',
  unroll: 'wgsl/thread/unroll.js', radixKey: 'wgsl/thread/radix-key.js', orderedStores: 'wgsl/thread/ordered-stores.js',
  sgId: 'wgsl/subgroup/id.js', sgScan: 'wgsl/subgroup/scan.js', sgReduce: 'wgsl/subgroup/reduce.js', ballot: 'wgsl/subgroup/ballot.js', quadNeighbours: 'wgsl/subgroup/quad-neighbours.js',
  wgScan: 'wgsl/workgroup/scan.js', wgReduce: 'wgsl/workgroup/reduce.js', tile: 'wgsl/workgroup/tile.js', exchange: 'wgsl/workgroup/exchange.js',
  discontinuity: 'wgsl/workgroup/discontinuity.js', rank: 'wgsl/workgroup/radix-rank.js', split: 'wgsl/workgroup/radix-split.js',
  mergePath: 'wgsl/workgroup/merge-path.js', histogram: 'wgsl/workgroup/histogram.js', twoPhase: 'wgsl/workgroup/two-phase-scatter.js',
  lookback: 'wgsl/device/lookback.js', tileCounter: 'wgsl/device/tile-counter.js', rts: 'wgsl/device/reduce-then-scan.js',
  strategy: 'tune/strategy.js', ref: 'device/reference.js', scanRef: 'device/scan/reference.js', sortRef: 'device/radix-sort/reference.js',
};

/** The library's modules as one object of namespaces; `importer(path)` imports a path relative to the source root. */
export async function loadBlocks(importer) {
  const lib = {};
  for (const [name, path] of Object.entries(MODULES)) lib[name] = await importer(path);
  rng = lib.strategy.rng;
  return lib;
}

// ------------------------------------------------------------------ running a harness kernel

/**
 * Compiles `code` and dispatches `groups` workgroups with `buffers` bound in order at 0, 1, ...:
 * { data } (read-only, u32 words), { words } (read-write, zeroed), either bound from word 0 to
 * `to` (default: whole), or { view: i, from, to } (words [from, to) of binding i's buffer: the
 * second binding of an array view). Returns the read-write buffers' words in order.
 */
async function dispatch(device, code, buffers, groups = 1) {
  device.pushErrorScope('validation');
  const module = device.createShaderModule({ code });
  const info = await module.getCompilationInfo();
  const errors = info.messages.filter((m) => m.type === 'error');
  if (errors.length) {
    await device.popErrorScope();
    throw new Error(`WGSL: ${errors.map((m) => `${m.lineNum}:${m.linePos} ${m.message}`).join('; ')}\n${code}`);
  }
  const pipeline = await device.createComputePipelineAsync({ layout: 'auto', compute: { module, entryPoint: 'main' } });
  const made = buffers.map((b) => {
    if (b.view !== undefined) return undefined;
    const words = b.data ? b.data.length : b.words;
    const buf = device.createBuffer({ size: Math.max(16, Math.ceil(words / 4) * 16), usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST });
    if (b.data) device.queue.writeBuffer(buf, 0, b.data);
    return buf;
  });
  const entries = buffers.map((b, i) => (b.view !== undefined
    ? { binding: i, resource: { buffer: made[b.view], offset: b.from * 4, size: Math.max(4, (b.to - b.from) * 4) } }
    : { binding: i, resource: { buffer: made[i], ...(b.to !== undefined ? { size: Math.max(16, b.to * 4) } : {}) } }));
  const bindGroup = device.createBindGroup({ layout: pipeline.getBindGroupLayout(0), entries });
  const enc = device.createCommandEncoder();
  const pass = enc.beginComputePass();
  pass.setPipeline(pipeline);
  pass.setBindGroup(0, bindGroup);
  pass.dispatchWorkgroups(groups);
  pass.end();
  const outs = [];
  for (const [i, b] of buffers.entries()) {
    if (b.words === undefined) continue;
    const rb = device.createBuffer({ size: made[i].size, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
    enc.copyBufferToBuffer(made[i], 0, rb, 0, made[i].size);
    outs.push({ rb, words: b.words });
  }
  device.queue.submit([enc.finish()]);
  const err = await device.popErrorScope();
  if (err) throw new Error(`WebGPU: ${err.message}`);
  const result = [];
  for (const { rb, words } of outs) {
    await rb.mapAsync(GPUMapMode.READ);
    result.push(new Uint32Array(rb.getMappedRange().slice(0, words * 4)));
    rb.unmap();
    rb.destroy();
  }
  for (const b of made) b?.destroy();
  return result;
}

// ------------------------------------------------------------------ values as words

/** Deterministic values in [0, 1): the tuner's generator (tune/strategy.js), set by loadBlocks. */
let rng;

/** `n` values of `type` for `op` that the CPU reference computes exactly (small integers for float sums, ±1 for products). */
function values(type, op, n, seed) {
  const r = rng(seed);
  const int = (lo, hi) => lo + Math.floor(r() * (hi - lo + 1));
  const word = () => (r() * 4294967296) >>> 0;
  return Array.from({ length: n }, () => {
    switch (type) {
      case 'u32': return op === 'mul' ? (word() | 1) >>> 0 : word();
      case 'i32': return word() | 0;
      // f16 sums of a few hundred halves stay exact (below 1024).
      case 'f32': return op === 'mul' ? (r() < 0.5 ? 1 : -1) : int(-8, 8);
      case 'f16': return op === 'mul' ? (r() < 0.5 ? 1 : -1) : int(-2, 2) / 2;
      case 'u64': return (BigInt(word()) << 32n) | BigInt(op === 'mul' ? word() | 1 : word());
      case 'i64': return BigInt.asIntN(64, (BigInt(word()) << 32n) | BigInt(word()));
      default: throw new Error(`no values for ${type}`);
    }
  });
}

const words = (t) => (t.is64 ? 2 : 1);
const f32w = new Float32Array(1);
const u32w = new Uint32Array(f32w.buffer);

function encode(lib, t, xs) {
  const out = new Uint32Array(Math.max(1, xs.length * words(t)));
  xs.forEach((v, i) => {
    switch (t.name) {
      case 'u32': case 'i32': out[i] = Number(v) >>> 0; break;
      case 'f32': f32w[0] = v; out[i] = u32w[0]; break;
      case 'f16': out[i] = lib.values.f16Bits(v); break;
      default: { const b = BigInt.asUintN(64, v); out[2 * i] = Number(b & 0xffffffffn); out[2 * i + 1] = Number(b >> 32n); }
    }
  });
  return out;
}

function decode(lib, t, w, at) {
  switch (t.name) {
    case 'u32': return w[at];
    case 'i32': return w[at] | 0;
    case 'f32': u32w[0] = w[at]; return f32w[0];
    case 'f16': return lib.values.f16Value(w[at] & 0xffff);
    case 'u64': return (BigInt(w[2 * at + 1]) << 32n) | BigInt(w[2 * at]);
    default: return BigInt.asIntN(64, (BigInt(w[2 * at + 1]) << 32n) | BigInt(w[2 * at]));
  }
}

/** WGSL `ld(i)` from the read-only words `in0` and `st(i, v)` to the read-write words `out`, for type t. */
function io(t) {
  const T = t.wgsl;
  if (t.is64) {
    return `fn ld(i: u32) -> ${T} { return vec2<u32>(in0[2u * i], in0[2u * i + 1u]); }
fn st(i: u32, v: ${T}) { out[2u * i] = v.x; out[2u * i + 1u] = v.y; }`;
  }
  if (t.name === 'f16') {
    return `fn ld(i: u32) -> f16 { return bitcast<vec2<f16>>(in0[i]).x; }
fn st(i: u32, v: f16) { out[i] = bitcast<u32>(vec2<f16>(v, 0.0h)); }`;
  }
  const cast = t.name === 'u32' ? (x) => x : (x) => `bitcast<${T}>(${x})`;
  return `fn ld(i: u32) -> ${T} { return ${cast('in0[i]')}; }
fn st(i: u32, v: ${T}) { out[i] = ${t.name === 'u32' ? 'v' : 'bitcast<u32>(v)'}; }`;
}
const IO_BINDINGS = `@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@group(0) @binding(1) var<storage, read> in0: array<u32>;`;

/**
 * SUBGROUP_ID after resetting its counter: the blocks assume zero-initialized workgroup memory,
 * which Chromium's SwiftShader did not give a kernel whose only workgroup variable is the counter.
 */
const sgId = (lib) => `if (lid == 0u) { atomicStore(&sg_counter, 0u); }
  workgroupBarrier();
  ${lib.sgId.SUBGROUP_ID}`;

const same = (a, b) => (typeof a === 'number' && typeof b === 'number' ? Object.is(a, b) || a === b || (Number.isNaN(a) && Number.isNaN(b)) : a === b);

/** Compares `count` decoded values from word offset `at` (in elements) against `want`; one failure line at most. */
function expectValues(lib, t, w, at, want, what, fails) {
  for (let i = 0; i < want.length; i++) {
    const got = decode(lib, t, w, at + i);
    if (!same(got, want[i])) {
      fails.push(`${what}: at ${i} got ${got}, want ${want[i]}`);
      return;
    }
  }
}

/**
 * Quad neighbours: in the striped quad layout of the tile kernels (two quads a lane, two tiles,
 * the last partial), the element before each quad's first and after its last, from shuffles
 * (`sub`) or the lane's own quads, against the input.
 */
async function quadNeighboursCase(lib, device, sub) {
  const WG = 64; const Q = 2; const TILE = WG * Q * 4; const N = 2 * TILE - 3;
  const xs = values('u32', 'add', N, 41).map((x) => (x | 1) >>> 0);
  const code = `${sub ? 'enable subgroups;' : ''}
${IO_BINDINGS}
const N = ${N}u;
const Q = ${Q}u;
const TILE = ${TILE}u;
${sub ? 'var<workgroup> sg_counter: atomic<u32>;' : ''}
@compute @workgroup_size(${WG})
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>${sub ? `, ${lib.sgId.SUBGROUP_BUILTINS}` : ''}) {
  ${sub ? sgId(lib) : 'let sgid = lid; let sg_lane = 0u; let sg_size = 1u;'}
  let base = wid.x * (TILE / 4u) + sgid * sg_size * Q;
  var items: array<array<u32, 4>, Q>;
  for (var k = 0u; k < Q; k++) {
    for (var j = 0u; j < 4u; j++) {
      let e = (base + k * sg_size + sg_lane) * 4u + j;
      if (e < N) { items[k][j] = in0[e]; }
    }
  }
${lib.quadNeighbours.quadNeighbours({ name: 'nb', T: 'u32', quads: Q, items: 'items', sub, load: (e) => `in0[${e}]`, count: 'N', after: true })}
  for (var k = 0u; k < Q; k++) {
    let e = (base + k * sg_size + sg_lane) * 4u;
    if (e < N) { out[e] = nb_before[k]; }
    if (e + 3u < N) { out[N + e + 3u] = nb_after[k]; }
  }
}`;
  const [w] = await dispatch(device, code, [{ words: 2 * N }, { data: Uint32Array.from(xs) }], 2);
  for (let e = 0; e < N; e += 4) {
    const before = e > 0 ? xs[e - 1] : 0;
    if (w[e] !== before) return [`quad neighbours (${sub ? 'subgroup' : 'no subgroups'}): before element ${e} got ${w[e]}, want ${before}`];
    if (e + 3 < N) {
      const after = e + 4 < N ? xs[e + 4] : 0;
      if (w[N + e + 3] !== after) return [`quad neighbours (${sub ? 'subgroup' : 'no subgroups'}): after element ${e + 3} got ${w[N + e + 3]}, want ${after}`];
    }
  }
  return [];
}

/** A built-in operator on the CPU, or the non-commutative affine composition on u64 (low word a, high word b: x -> a x + b). */
function cpuOperator(lib, type, op) {
  if (op === 'affine') {
    return (p, q) => {
      const pa = p & 0xffffffffn; const pb = p >> 32n; const qa = q & 0xffffffffn; const qb = q >> 32n;
      return ((((pb * qa) + qb) & 0xffffffffn) << 32n) | ((pa * qa) & 0xffffffffn);
    };
  }
  return lib.ref.cpuOp(type, op);
}
const AFFINE = { wgsl: 'vec2<u32>(a.x * b.x, a.y * b.x + b.y)', identity: 'vec2<u32>(1u, 0u)', name: 'affine' };
function operator(lib, t, op) {
  return lib.operators.resolveOperator(op === 'affine' ? AFFINE : op, t);
}
const identityOf = (lib, type, op) => (op === 'affine' ? 1n : lib.ref.cpuIdentity(type, op));

// ------------------------------------------------------------------ subgroup

async function subgroupScanCase(lib, device, type, op) {
  const t = lib.types.typeInfo(type);
  const o = operator(lib, t, op);
  const WG = 64;
  const N = 61;
  const xs = values(type, op, N, 11);
  const code = `${lib.prelude.prelude(t, o, true)}
${IO_BINDINGS}
${io(t)}
var<workgroup> sg_counter: atomic<u32>;
${lib.sgScan.subgroupInclusiveFn(t, o)}
${lib.sgReduce.subgroupReduceFn(t, o)}
@compute @workgroup_size(${WG})
fn main(@builtin(local_invocation_index) lid: u32, ${lib.sgId.SUBGROUP_BUILTINS}) {
  ${sgId(lib)}
  let i = sgid * sg_size + sg_lane;
  var x = identity();
  if (i < ${N}u) { x = ld(i); }
${lib.sgScan.subgroupScanStep('x', '  ')}
  st(i, ex);
  st(${WG}u + i, incl);
  st(${2 * WG}u + i, ${lib.sgScan.SUBGROUP_TOTAL});
  st(${3 * WG}u + i, sg_reduce(x, sg_size));
  if (i == 0u) { out[${4 * WG * words(t)}u] = sg_size; }
}`;
  const [w] = await dispatch(device, code, [{ words: 4 * WG * words(t) + 1 }, { data: encode(lib, t, xs) }]);
  const size = w[4 * WG * words(t)];
  const f = cpuOperator(lib, type, op);
  const id = identityOf(lib, type, op);
  const fails = [];
  const ex = []; const inc = []; const tot = [];
  for (let g = 0; g < WG; g += size) {
    const seg = Array.from({ length: size }, (_, k) => (g + k < N ? xs[g + k] : id));
    const i1 = lib.scanRef.scanReference(type === 'f16' ? 'f32' : type, f, seg, false, undefined, id);
    ex.push(...lib.scanRef.scanReference(type === 'f16' ? 'f32' : type, f, seg, true, undefined, id));
    inc.push(...i1);
    tot.push(...seg.map(() => i1[size - 1]));
  }
  expectValues(lib, t, w, 0, ex, `${type} ${op} subgroup exclusive (size ${size})`, fails);
  expectValues(lib, t, w, WG, inc, `${type} ${op} subgroup inclusive`, fails);
  expectValues(lib, t, w, 2 * WG, tot, `${type} ${op} subgroup total`, fails);
  if (op !== 'affine') expectValues(lib, t, w, 3 * WG, tot, `${type} ${op} subgroup reduce`, fails);
  return fails;
}

/** Without subgroup operations: logical subgroups of 8 in workgroup memory, 72 invocations (9 of them), 67 values. */
async function subgroupSharedCase(lib, device, type, op) {
  const t = lib.types.typeInfo(type);
  const o = operator(lib, t, op);
  const WG = 72; const WIDTH = 8; const N = 67;
  const xs = values(type, op, N, 12);
  const code = `${lib.prelude.prelude(t, o, false)}
${IO_BINDINGS}
${io(t)}
${lib.sgScan.subgroupInclusiveSharedFn(t, WIDTH, WG)}
${lib.sgReduce.subgroupReduceSharedFn(t, WIDTH, WG)}
@compute @workgroup_size(${WG})
fn main(@builtin(local_invocation_index) lid: u32) {
  var x = identity();
  if (lid < ${N}u) { x = ld(lid); }
  let incl = sgw_inclusive(x, lid);
  let red = sgw_reduce(x, lid);
  st(lid, incl);
  st(${WG}u + lid, red);
}`;
  const [w] = await dispatch(device, code, [{ words: 2 * WG * words(t) }, { data: encode(lib, t, xs) }]);
  const f = cpuOperator(lib, type, op);
  const id = identityOf(lib, type, op);
  const inc = []; const red = [];
  for (let g = 0; g < WG; g += WIDTH) {
    const seg = Array.from({ length: WIDTH }, (_, k) => (g + k < N ? xs[g + k] : id));
    const i1 = lib.scanRef.scanReference(type === 'f16' ? 'f32' : type, f, seg, false, undefined, id);
    inc.push(...i1);
    red.push(...seg.map(() => i1[WIDTH - 1]));
  }
  const fails = [];
  expectValues(lib, t, w, 0, inc, `${type} ${op} shared subgroup inclusive`, fails);
  expectValues(lib, t, w, WG, red, `${type} ${op} shared subgroup reduce`, fails);
  return fails;
}

async function ballotCase(lib, device, maxSize) {
  const WG = 64;
  const mask = lib.ballot.laneMask(maxSize);
  const ds = values('u32', 'add', WG, 13).map((v) => v & 7);
  const code = `enable subgroups;
${IO_BINDINGS}
var<workgroup> sg_counter: atomic<u32>;
${mask.fns}
${lib.ballot.FIRST_LANE_FN}
@compute @workgroup_size(${WG})
fn main(@builtin(local_invocation_index) lid: u32, ${lib.sgId.SUBGROUP_BUILTINS}) {
  ${sgId(lib)}
  let i = sgid * sg_size + sg_lane;
  let d = in0[i];
  var peers = subgroupBallot(true)${mask.part};
${lib.ballot.subgroupMatch('d', 3, mask)}
  out[i] = ${mask.count('peers & lane_mask_below(sg_lane)')};
  out[${WG}u + i] = ${mask.count('peers')};
  out[${2 * WG}u + i] = ${mask.lowest('peers')};
  out[${3 * WG}u + i] = first_lane(subgroupBallot(d == 3u));
  if (i == 0u) { out[${4 * WG}u] = sg_size; }
}`;
  const [w] = await dispatch(device, code, [{ words: 4 * WG + 1 }, { data: Uint32Array.from(ds) }]);
  const size = w[4 * WG];
  for (let i = 0; i < WG; i++) {
    const g = i - (i % size);
    const lane = i - g;
    const seg = ds.slice(g, g + size);
    const want = [
      seg.slice(0, lane).filter((d) => d === ds[i]).length,
      seg.filter((d) => d === ds[i]).length,
      seg.indexOf(ds[i]),
      seg.includes(3) ? seg.indexOf(3) : 128,
    ];
    for (const [k, v] of want.entries()) {
      if (w[k * WG + i] !== v) return [`ballot (masks for ${maxSize} lanes, size ${size}): lane ${i} result ${k} got ${w[k * WG + i]}, want ${v}`];
    }
  }
  return [];
}

// ------------------------------------------------------------------ workgroup

const PROBLEMS = [96, 37, 1];

async function workgroupScanCase(lib, device, type, op, method) {
  const t = lib.types.typeInfo(type);
  const o = operator(lib, t, op);
  const sub = method === 'subgroup';
  const WG = 96;
  const xs = values(type, op, WG * PROBLEMS.length, 21);
  const code = `${lib.prelude.prelude(t, o, sub)}
${IO_BINDINGS}
${io(t)}
var<workgroup> sg_counter: atomic<u32>;
${lib.wgScan.workgroupScanFn({ type: t, op: o, method, workgroupSize: WG, subgroupMinSize: 1 })}
@compute @workgroup_size(${WG})
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>${sub ? `, ${lib.sgId.SUBGROUP_BUILTINS}` : ''}) {
  ${sub ? sgId(lib) : ''}
  let r = ${sub ? 'sgid * sg_size + sg_lane' : 'lid'};
  let n = array<u32, 3>(${PROBLEMS.join('u, ')}u)[wid.x];
  var x = identity();
  if (r < n) { x = ld(wid.x * WG + r); }
  let s = wg_scan(x, lid${sub ? ', sgid, sg_lane, sg_size' : ''});
  st(wid.x * WG + r, s.exclusive);
  st(${WG * 3}u + wid.x * WG + r, s.inclusive);
  if (r == 0u) { st(${WG * 6}u + wid.x, s.aggregate); }
}`;
  const [w] = await dispatch(device, code, [{ words: (WG * 6 + 3) * words(t) }, { data: encode(lib, t, xs) }], PROBLEMS.length);
  const f = cpuOperator(lib, type, op);
  const id = identityOf(lib, type, op);
  const fails = [];
  const refType = type === 'f16' ? 'f32' : type;
  PROBLEMS.forEach((n, p) => {
    const seg = Array.from({ length: WG }, (_, k) => (k < n ? xs[p * WG + k] : id));
    const inc = lib.scanRef.scanReference(refType, f, seg, false, undefined, id);
    const what = `${type} ${op} ${method} workgroup scan of ${n}`;
    expectValues(lib, t, w, p * WG, lib.scanRef.scanReference(refType, f, seg, true, undefined, id), `${what}, exclusive`, fails);
    expectValues(lib, t, w, 3 * WG + p * WG, inc, `${what}, inclusive`, fails);
    expectValues(lib, t, w, 6 * WG + p, [inc[WG - 1]], `${what}, aggregate`, fails);
  });
  return fails;
}

async function workgroupReduceCase(lib, device, type, op, method) {
  const t = lib.types.typeInfo(type);
  const o = operator(lib, t, op);
  const sub = method === 'subgroup';
  const WG = 64;
  const sizes = [64, 13, 1];
  const xs = values(type, op, WG * sizes.length, 22);
  const code = `${lib.prelude.prelude(t, o, sub)}
${IO_BINDINGS}
${io(t)}
const WG = ${WG}u;
var<workgroup> sg_counter: atomic<u32>;
${lib.wgReduce.workgroupReduceDecls(t, o, sub)}
@compute @workgroup_size(${WG})
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>${sub ? `, ${lib.sgId.SUBGROUP_BUILTINS}` : ''}) {
  let n = array<u32, 3>(${sizes.join('u, ')}u)[wid.x];
  var acc = identity();
  if (lid < n) { acc = ld(wid.x * WG + lid); }
  ${sub ? sgId(lib) : ''}${lib.wgReduce.workgroupReduce(sub)}
  if (lid == 0u) { st(wid.x, sh[0]); }
}`;
  const [w] = await dispatch(device, code, [{ words: 3 * words(t) }, { data: encode(lib, t, xs) }], sizes.length);
  const f = cpuOperator(lib, type, op);
  const want = sizes.map((n, p) => xs.slice(p * WG, p * WG + n).reduce((a, b) => f(a, b)));
  const fails = [];
  expectValues(lib, t, w, 0, want, `${type} ${op} ${method} workgroup reduce of ${sizes.join(', ')}`, fails);
  return fails;
}

/** Vectorized tile load and store through views, a tail that is not a whole quad, a partial last tile. */
async function quadTileCase(lib, device, type) {
  const t = lib.types.typeInfo(type);
  const WG = 64; const Q = 2; const TILE = WG * Q * 4; const N = 1003;
  // A view's scalar part starts at a 256-byte binding offset, a whole number of quads.
  const tail = Math.floor((N * t.bytes) / 256) * 256 / t.bytes;
  const xs = values(type, 'add', N, 23);
  const raw = encode(lib, t, xs);
  const wordsOf = (e) => (e * t.bytes) / 4;
  const data = t.name === 'f16' ? Uint32Array.from({ length: Math.ceil(N / 2) }, (_, i) => (raw[2 * i] & 0xffff) | ((raw[2 * i + 1] ?? 0) << 16)) : raw;
  const total = Math.ceil(wordsOf(N));
  const code = `${lib.types.typeEnables(t).join('\n')}
${lib.views.viewWgsl({ name: 'in', type: t, access: 'read', tailStart: 'TAIL' }, 0)}
${lib.views.viewWgsl({ name: 'out', type: t, access: 'read_write', tailStart: 'TAIL' }, 2)}
const TAIL = ${tail}u;
const N = ${N}u;
const WG = ${WG}u;
const TILE = ${TILE}u;
@compute @workgroup_size(${WG})
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>) {
  let base = wid.x * (TILE / 4u) + lid;
  let fast = (wid.x + 1u) * TILE <= TAIL;
${lib.tile.quadTileLoad({ view: 'in', T: t.wgsl, quads: Q, fast: 'fast', quad: 'base + k * WG', unrolled: true, count: 'N', pad: `${t.wgsl}()` })}
${lib.unroll.unroll(Q, 'k', `      let q = base + k * WG;\n${lib.tile.quadStore('out', 'q', 'items[k]', 'fast', 'N')}`)}
}`;
  const split = Math.ceil(wordsOf(tail));
  const [w] = await dispatch(device, code, [
    { data, to: split }, { view: 0, from: split, to: total },
    { words: total, to: split }, { view: 2, from: split, to: total },
  ], Math.ceil(N / TILE));
  const fails = [];
  expectValues(lib, t, t.name === 'f16' ? Uint32Array.from({ length: N }, (_, i) => (w[i >> 1] >>> ((i & 1) * 16)) & 0xffff) : w, 0, xs, `${type} quad tile load/store (${N} elements, tail at ${tail})`, fails);
  return fails;
}

/** Striped load and store, through workgroup memory blocked, reload striped from it, and the coalesced store: each a copy. */
async function stripedTileCase(lib, device) {
  const WG = 64; const IPT = 5; const TILE = WG * IPT; const N = 700;
  const keys = Uint32Array.from(values('u32', 'add', N, 24));
  const vals = encode(lib, lib.types.typeInfo('u64'), values('u64', 'add', N, 25));
  const v = (e) => `vec2<u32>(in1[2u * (${e})], in1[2u * (${e}) + 1u])`;
  const load = { items: IPT, K: 'u32', V: 'vec2<u32>', key: (e) => `in0[${e}]`, value: v, fill: '0xffffffffu' };
  const code = `enable subgroups;
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@group(0) @binding(1) var<storage, read> in0: array<u32>;
@group(0) @binding(2) var<storage, read> in1: array<u32>;
const WG = ${WG}u;
const IPT = ${IPT}u;
const TILE = ${TILE}u;
const N = ${N}u;
var<workgroup> sg_counter: atomic<u32>;
var<workgroup> s_keys: array<u32, TILE>;
var<workgroup> s_vals: array<vec2<u32>, TILE>;
${lib.tile.stripedPosFn(IPT)}
@compute @workgroup_size(${WG})
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, ${lib.sgId.SUBGROUP_BUILTINS}) {
  ${sgId(lib)}
  let base = wid.x * TILE;
  let valid = min(TILE, N - base);
  {
${lib.tile.stripedTileLoad(load)}
${lib.tile.stripedTileStore(IPT, 'valid', (p) => `out[base + ${p}] = ks[j]; out[N + 2u * (base + ${p})] = vs[j].x; out[N + 2u * (base + ${p}) + 1u] = vs[j].y;`)}
  }
  {
${lib.tile.blockedTileLoadViaShared({ ...load, rank: 'lid' })}
${lib.unroll.unroll(IPT, 'j', '  { let p = lid * IPT + j; if (p < valid) { out[3u * N + base + p] = ks[j]; } }')}
  workgroupBarrier();
${lib.tile.sharedTileStore('valid', 'WG', 'IPT', (i) => `out[4u * N + base + ${i}] = s_keys[${i}];`)}
  workgroupBarrier();
  var ks2: array<u32, IPT>;
  var vs2: array<vec2<u32>, IPT>;
  {
${lib.exchange.stripedFromShared(IPT, true).replaceAll('ks[', 'ks2[').replaceAll('vs[', 'vs2[')}
  }
${lib.tile.stripedTileStore(IPT, 'valid', (p) => `out[5u * N + base + ${p}] = ks2[j]; out[6u * N + base + ${p}] = vs2[j].y;`)}
  }
  workgroupBarrier();
${lib.tile.stagedTileLoad('valid', 'WG', IPT, [
    { type: 'u32', load: (i) => `in0[base + ${i}] ^ 0x5a5a5a5au`, store: (i, x) => `s_keys[${i}] = ${x}` },
    { type: 'vec2<u32>', load: (i) => `vec2<u32>(in1[2u * (base + ${i})], in1[2u * (base + ${i}) + 1u])`, store: (i, x) => `s_vals[${i}] = ${x}` },
  ])}
  workgroupBarrier();
${lib.tile.sharedTileStore('valid', 'WG', 'IPT', (i) => `out[7u * N + base + ${i}] = s_keys[${i}]; out[8u * N + base + ${i}] = s_vals[${i}].y;`)}
}`;
  const [w] = await dispatch(device, code, [{ words: 9 * N }, { data: keys }, { data: vals }], Math.ceil(N / TILE));
  const fails = [];
  const check = (at, want, what) => {
    for (let i = 0; i < want.length; i++) if (w[at + i] !== want[i]) { fails.push(`${what}: at ${i} got ${w[at + i]}, want ${want[i]}`); return; }
  };
  check(0, keys, 'striped tile load/store, keys');
  check(N, vals, 'striped tile load/store, 8-byte values');
  check(3 * N, keys, 'blocked tile load through workgroup memory');
  check(4 * N, keys, 'coalesced store from workgroup memory');
  check(5 * N, keys, 'striped reload from workgroup memory (exchange), keys');
  check(6 * N, Uint32Array.from({ length: N }, (_, i) => vals[2 * i + 1]), 'striped reload from workgroup memory (exchange), values');
  check(7 * N, keys.map((k) => (k ^ 0x5a5a5a5a) >>> 0), 'staged coalesced load into workgroup memory, keys');
  check(8 * N, Uint32Array.from({ length: N }, (_, i) => vals[2 * i + 1]), 'staged coalesced load into workgroup memory, 8-byte values');
  return fails;
}

/** Exchange through planes of an atomic array: items stored at a permuted place, loaded back in order. */
async function exchangeCase(lib, device) {
  const WG = 64; const IPT = 3; const TILE = WG * IPT;
  const xs = encode(lib, lib.types.typeInfo('u64'), values('u64', 'add', TILE, 26));
  const code = `${IO_BINDINGS}
const TILE = ${TILE}u;
var<workgroup> xh: array<atomic<u32>, ${2 * TILE}>;
${lib.exchange.planeExchangeFns('value', 'vec2<u32>', 'xh', 'TILE')}
${lib.exchange.planeExchangeFns('key', 'u32', 'xh', 'TILE')}
@compute @workgroup_size(${WG})
fn main(@builtin(local_invocation_index) lid: u32) {
  for (var j = 0u; j < ${IPT}u; j++) {
    let i = lid * ${IPT}u + j;
    x_store_value((i * 7u) % TILE, vec2<u32>(in0[2u * i], in0[2u * i + 1u]));
  }
  workgroupBarrier();
  for (var j = 0u; j < ${IPT}u; j++) {
    let i = j * ${WG}u + lid;
    let v = x_load_value(i);
    out[2u * i] = v.x; out[2u * i + 1u] = v.y;
  }
  workgroupBarrier();
  x_store_key(${WG - 1}u - lid, lid * 5u);
  workgroupBarrier();
  out[2u * TILE + lid] = x_load_key(lid);
}`;
  const [w] = await dispatch(device, code, [{ words: 2 * TILE + WG }, { data: xs }]);
  for (let i = 0; i < TILE; i++) {
    const src = (i * 55) % TILE; // 7 * 55 = 385 = 1 mod 192: the inverse permutation
    if (w[2 * i] !== xs[2 * src] || w[2 * i + 1] !== xs[2 * src + 1]) return [`exchange (two planes): at ${i} got ${w[2 * i]},${w[2 * i + 1]}, want ${xs[2 * src]},${xs[2 * src + 1]}`];
  }
  for (let i = 0; i < WG; i++) {
    if (w[2 * TILE + i] !== 5 * (WG - 1 - i)) return [`exchange (one plane): at ${i} got ${w[2 * TILE + i]}, want ${5 * (WG - 1 - i)}`];
  }
  return [];
}

async function discontinuityCase(lib, device) {
  const WG = 64; const IPT = 3; const TILE = WG * IPT; const N = 400;
  const r = rng(27);
  const xs = []; let v = 0;
  while (xs.length < N) { v += 1 + Math.floor(r() * 3); const len = 1 + Math.floor(r() * 5); for (let k = 0; k < len && xs.length < N; k++) xs.push(v); }
  const common = { items: IPT, T: 'u32', differ: (a, b) => `${a} != ${b}`, valid: 'valid', scratch: 'sh_disc' };
  const code = `${IO_BINDINGS}
const WG = ${WG}u;
const IPT = ${IPT}u;
const TILE = ${TILE}u;
const N = ${N}u;
var<workgroup> sh_disc: array<u32, WG>;
@compute @workgroup_size(${WG})
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>) {
  let base = wid.x * TILE;
  let valid = min(TILE, N - base);
  var items: array<u32, IPT>;
  for (var j = 0u; j < IPT; j++) { let p = lid * IPT + j; items[j] = 0u; if (p < valid) { items[j] = in0[base + p]; } }
  {
${lib.discontinuity.discontinuityFlags({ ...common, kind: 'heads' })}
    for (var j = 0u; j < IPT; j++) { let p = lid * IPT + j; if (p < valid) { out[base + p] = flags[j]; } }
  }
  {
${lib.discontinuity.discontinuityFlags({ ...common, kind: 'tails', neighbour: 'in0[min(base + TILE, N - 1u)]' })}
    for (var j = 0u; j < IPT; j++) { let p = lid * IPT + j; if (p < valid) { out[N + base + p] = flags[j]; } }
  }
}`;
  const [w] = await dispatch(device, code, [{ words: 2 * N }, { data: Uint32Array.from(xs) }], Math.ceil(N / TILE));
  for (let i = 0; i < N; i++) {
    const start = i - (i % TILE);
    const end = Math.min(start + TILE, N);
    const head = i === start ? 1 : Number(xs[i] !== xs[i - 1]);
    const tail = i === end - 1 ? Number(xs[i] !== xs[Math.min(start + TILE, N - 1)]) : Number(xs[i] !== xs[i + 1]);
    if (w[i] !== head) return [`discontinuity heads: at ${i} got ${w[i]}, want ${head}`];
    if (w[N + i] !== tail) return [`discontinuity tails: at ${i} got ${w[N + i]}, want ${tail}`];
  }
  return [];
}

/**
 * Radix rank by subgroup match: each item's rank is its place in the tile stably sorted by digit
 * (striped order). `late`: the compact rank with late counts (the match first, on cleared counters).
 */
async function radixRankCase(lib, device, late = false) {
  const WG = 64; const IPT = 3; const TILE = WG * IPT; const N = 500; const BITS = 4;
  const o = { workgroupSize: WG, itemsPerThread: IPT, radixBits: BITS, subgroupMinSize: 4, subgroupMaxSize: 128, ...(late ? { compact: true, exchangeWords: 2 * TILE } : {}) };
  const rank = late
    ? `${lib.rank.rankClear(o, 'lid')}
  var rk_own_start: array<u32, RK_DPT>;
  var rks: array<u32, IPT>;
  ${lib.rank.rankLate(o, (j) => `ds[${j}]`)}
  for (var j = 0u; j < IPT; j++) { let p = striped_pos(j, sgid, sg_lane, sg_size); if (p < valid) { out[base + p] = rks[j]; } }`
    : `${lib.rank.rankCounts(o, (j) => `ds[${j}]`)}
  ${lib.rank.rankMatch(o, (j) => `ds[${j}]`, (j, r) => `{ let p = striped_pos(${j}, sgid, sg_lane, sg_size); if (p < valid) { out[base + p] = ${r}; } }`)}`;
  const ds = values('u32', 'add', N, 28).map((x) => x % 13);
  const code = `enable subgroups;
${IO_BINDINGS}
const WG = ${WG}u;
const IPT = ${IPT}u;
const TILE = ${TILE}u;
const N = ${N}u;
var<workgroup> sg_counter: atomic<u32>;
${lib.rank.radixRankDecls(o)}
@compute @workgroup_size(${WG})
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, ${lib.sgId.SUBGROUP_BUILTINS}) {
  ${sgId(lib)}
  let base = wid.x * TILE;
  let valid = min(TILE, N - base);
  var ds: array<u32, IPT>;
  for (var j = 0u; j < IPT; j++) { let p = striped_pos(j, sgid, sg_lane, sg_size); ds[j] = 15u; if (p < valid) { ds[j] = in0[base + p]; } }
  ${rank}
}`;
  const [w] = await dispatch(device, code, [{ words: N }, { data: Uint32Array.from(ds) }], Math.ceil(N / TILE));
  for (let s = 0; s < N; s += TILE) {
    const tile = Array.from({ length: TILE }, (_, k) => (s + k < N ? ds[s + k] : 15));
    const order = Array.from(tile.keys()).sort((a, b) => tile[a] - tile[b] || a - b);
    const rank = new Array(TILE);
    order.forEach((p, r) => { rank[p] = r; });
    for (let p = 0; p < Math.min(TILE, N - s); p++) if (w[s + p] !== rank[p]) return [`radix rank${late ? ' (late counts)' : ''}: tile at ${s}, item ${p} (digit ${tile[p]}) got rank ${w[s + p]}, want ${rank[p]}`];
  }
  return [];
}

/** Radix split: the tile sorted by bits [0, 4) of its keys, one stable split per bit, in workgroup memory. */
async function radixSplitCase(lib, device) {
  const WG = 64; const IPT = 2; const TILE = WG * IPT; const N = 100;
  const keys = Uint32Array.from(values('u32', 'add', N, 29));
  const code = `${IO_BINDINGS}
const WG = ${WG}u;
const IPT = ${IPT}u;
const TILE = ${TILE}u;
const N = ${N}u;
${lib.radixKey.keyFunctions(lib.types.typeInfo('u32'), false)}
var<private> flip: u32;
var<workgroup> s_keys: array<u32, TILE>;
var<workgroup> s_vals: array<u32, TILE>;
var<workgroup> s_scan: array<u32, WG>;
@compute @workgroup_size(${WG})
fn main(@builtin(local_invocation_index) lid: u32) {
  let base = 0u;
  let valid = N;
${lib.tile.blockedTileLoadViaShared({ items: IPT, K: 'u32', V: 'u32', key: (e) => `in0[${e}]`, value: (e) => `${e}`, rank: 'lid' })}
  for (var s = 0u; s < 4u; s++) {
${lib.split.splitByBit(IPT, true, 'shared', 'lid')}
  }
  for (var j = 0u; j < IPT; j++) { let p = lid * IPT + j; if (p < valid) { out[p] = vs[j]; } }
}`;
  const [w] = await dispatch(device, code, [{ words: N }, { data: keys }]);
  const want = Array.from(keys.keys()).sort((a, b) => (keys[a] & 15) - (keys[b] & 15) || a - b);
  for (let i = 0; i < N; i++) if (w[i] !== want[i]) return [`radix split: at ${i} got source ${w[i]}, want ${want[i]}`];
  return [];
}

async function mergePathCase(lib, device) {
  const AN = 50; const BN = 77;
  const a = values('u32', 'add', AN, 30).map((x) => x % 40).sort((x, y) => x - y);
  const b = values('u32', 'add', BN, 31).map((x) => x % 40).sort((x, y) => x - y);
  const code = `${IO_BINDINGS}
const AN = ${AN}u;
const BN = ${BN}u;
fn a_count(d: u32) -> u32 {
${lib.mergePath.mergePathSearch('d', 'AN', 'BN', (i, j) => `in0[AN + ${j}] < in0[${i}]`)}
  return lo;
}
@compute @workgroup_size(128)
fn main(@builtin(local_invocation_index) lid: u32) {
  if (lid <= AN + BN) { out[lid] = a_count(lid); }
}`;
  const [w] = await dispatch(device, code, [{ words: AN + BN + 1 }, { data: Uint32Array.from([...a, ...b]) }]);
  let i = 0; let j = 0;
  for (let d = 0; d <= AN + BN; d++) {
    if (w[d] !== i) return [`merge path: diagonal ${d} got ${w[d]} of A, want ${i}`];
    if (i < AN && (j >= BN || !(b[j] < a[i]))) i++; else j++;
  }
  return [];
}

async function histogramCase(lib, device) {
  const BINS = 37; const N = 1000; const WG = 64;
  const xs = values('u32', 'add', N, 32).map((x) => x % BINS);
  const h = { array: 'hist', bins: 'BINS', index: 'lid', stride: 'WG' };
  const code = `${IO_BINDINGS}
const BINS = ${BINS}u;
const WG = ${WG}u;
var<workgroup> hist: array<atomic<u32>, BINS>;
@compute @workgroup_size(${WG})
fn main(@builtin(local_invocation_index) lid: u32) {
  ${lib.histogram.histogramClear(h)}
  workgroupBarrier();
  for (var i = lid; i < ${N}u; i += WG) { ${lib.histogram.histogramAdd(h, 'in0[i]')} }
  workgroupBarrier();
${lib.histogram.histogramFlush(h, (d, n) => `out[${d}] = ${n};`)}
}`;
  const [w] = await dispatch(device, code, [{ words: BINS }, { data: Uint32Array.from(xs) }]);
  for (let d = 0; d < BINS; d++) {
    const want = xs.filter((x) => x === d).length;
    if (w[d] !== want) return [`shared histogram: bin ${d} got ${w[d]}, want ${want}`];
  }
  return [];
}

/**
 * Two-phase scatter: each tile partitions its items, the selected in order then the rejected
 * reversed, through the staging array when it selects more than WG items, else directly; tiles
 * select 0, 1, WG - 1, WG, WG + 1, TILE - 1 and TILE items (the last tile is partial), and which
 * way each tile went is checked too.
 */
async function twoPhaseScatterCase(lib, device) {
  const WG = 64; const IPT = 4; const TILE = WG * IPT;
  const per = [0, 1, WG - 1, WG, WG + 1, TILE - 1, TILE];
  const N = per.length * TILE + 5;
  const tiles = Math.ceil(N / TILE);
  // Item i of tile t is selected (odd) when (37 i) mod TILE < per[t]: per[t] of a full tile, spread.
  const xs = Array.from({ length: N }, (_, i) => 2 * i + Number((37 * i) % TILE < per[Math.floor(i / TILE) % per.length]));
  const tp = lib.twoPhase;
  const code = `${IO_BINDINGS}
const WG = ${WG}u;
const IPT = ${IPT}u;
const TILE = ${TILE}u;
const N = ${N}u;
var<workgroup> sh_cnt: array<u32, WG>;
var<workgroup> sh_total: u32;
${tp.stagingDecl('sh_stage', 'u32', 'TILE')}
@compute @workgroup_size(${WG})
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>) {
  let base = wid.x * TILE;
  let valid = min(TILE, N - base);
  var xs: array<u32, IPT>;
  var c = 0u;
  for (var j = 0u; j < IPT; j++) {
    let p = lid * IPT + j;
    if (p < valid) { xs[j] = in0[base + p]; c += xs[j] & 1u; }
  }
  sh_cnt[lid] = c;
  workgroupBarrier();
  if (lid == 0u) {
    var acc = 0u;
    for (var i = 0u; i < WG; i++) { let x = sh_cnt[i]; sh_cnt[i] = acc; acc += x; }
    sh_total = acc;
  }
  workgroupBarrier();
  let agg = sh_total;
  var s = sh_cnt[lid];
  ${tp.twoPhaseRule('agg')}
  for (var j = 0u; j < IPT; j++) {
    let p = lid * IPT + j;
    if (p < valid) {
      let x = xs[j];
      if ((x & 1u) == 1u) {
        ${tp.stageOrStore('sh_stage[s] = x;', 'out[base + s] = x;')}
        s += 1u;
      } else {
        let r = agg + p - s;
        ${tp.stageOrStore('sh_stage[r] = x;', 'out[base + valid - 1u - (r - agg)] = x;')}
      }
    }
  }
${tp.stagedCopyOut([
    { from: '0u', to: 'agg', store: (i) => `out[base + ${i}] = sh_stage[${i}];` },
    { from: 'agg', to: 'valid', store: (i) => `out[base + valid - 1u - (${i} - agg)] = sh_stage[${i}];` },
  ])}
  if (lid == 0u) { out[N + wid.x] = select(0u, 1u, two_phase); }
}`;
  const [w] = await dispatch(device, code, [{ words: N + tiles }, { data: Uint32Array.from(xs) }], tiles);
  for (let t = 0; t < tiles; t++) {
    const tile = xs.slice(t * TILE, Math.min(N, (t + 1) * TILE));
    const sel = tile.filter((x) => x & 1);
    const want = [...sel, ...tile.filter((x) => !(x & 1)).reverse()];
    const bad = want.findIndex((x, i) => w[t * TILE + i] !== x);
    if (bad >= 0) return [`two-phase scatter: tile ${t} (${sel.length} selected) position ${bad} got ${w[t * TILE + bad]}, want ${want[bad]}`];
    if (w[N + t] !== Number(sel.length > WG)) return [`two-phase scatter: tile ${t} (${sel.length} selected) two_phase ${w[N + t]}`];
  }
  return [];
}

// ------------------------------------------------------------------ thread

/** Radix key bits: to_ordered against the CPU's ordered bits, from_ordered its inverse, digit_at. */
async function radixKeyCase(lib, device, type) {
  const t = lib.types.typeInfo(type);
  const N = 64;
  const xs = values(type === 'f16' || type === 'f32' ? 'u32' : type, 'add', N, 33);
  const data = type === 'f16' ? Uint32Array.from(xs, (x) => x & 0xffff) : encode(lib, lib.types.typeInfo(type === 'f32' ? 'u32' : type), xs);
  const K = lib.radixKey.rawType(t);
  const load = t.is64 ? 'vec2<u32>(in0[2u * i], in0[2u * i + 1u])' : 'in0[i]';
  const store = (at, v) => (t.is64 ? `out[2u * (${at})] = (${v}).x; out[2u * (${at}) + 1u] = (${v}).y;` : `out[${at}] = ${v};`);
  const code = `${IO_BINDINGS}
var<private> flip: u32;
${lib.radixKey.keyFunctions(t, false)}
@compute @workgroup_size(${N})
fn main(@builtin(local_invocation_index) lid: u32) {
  flip = 0u;
  let i = lid;
  let x: ${K} = ${load};
  let y = to_ordered(x);
  ${store('i', 'y')}
  ${store(`${N}u + i`, 'from_ordered(y)')}
  out[${2 * N * words(t)}u + i] = digit_at(y, 3u, 5u);
}`;
  const [w] = await dispatch(device, code, [{ words: 2 * N * words(t) + N }, { data }]);
  const wd = words(t);
  for (let i = 0; i < N; i++) {
    const raw = t.is64 ? (BigInt(data[2 * i + 1]) << 32n) | BigInt(data[2 * i]) : data[i];
    const ord = t.is64 ? lib.sortRef.ordered64(type, raw) : lib.sortRef.ordered32(type, raw);
    const got = t.is64 ? (BigInt(w[2 * i + 1]) << 32n) | BigInt(w[2 * i]) : w[i];
    const back = t.is64 ? (BigInt(w[2 * (N + i) + 1]) << 32n) | BigInt(w[2 * (N + i)]) : w[N + i];
    const digit = Number((BigInt(ord) >> 3n) & 31n);
    if (got !== ord) return [`${type} to_ordered: key ${i} got ${got}, want ${ord}`];
    if (back !== raw) return [`${type} from_ordered: key ${i} got ${back}, want ${raw}`];
    if (w[2 * N * wd + i] !== digit) return [`${type} digit_at: key ${i} got ${w[2 * N * wd + i]}, want ${digit}`];
  }
  return [];
}

/**
 * Ordered stores: each of 64 invocations has four elements, some flagged, each flagged one with
 * its place (the flagged before it in the whole input); gathered in order, then stored with a
 * second value (the element's index) beside each. Every place written once with the right pair,
 * nothing else written; densities from none to all.
 */
async function orderedStoresCase(lib, device) {
  const N = 64;
  const failures = [];
  for (const density of [0, 0.25, 0.5, 1]) {
    const r = rng(71 + density * 8);
    const flags = Uint32Array.from({ length: 4 * N }, () => (r() < density ? 1 : 0));
    const place = new Uint32Array(4 * N);
    let c = 0;
    flags.forEach((f, e) => { place[e] = c; c += f; });
    const o = { name: 'os', T: 'u32', T2: 'u32', most: 4 };
    const gathers = [0, 1, 2, 3].map((j) => `{
  let e = lid * 4u + ${j}u;
  ${lib.orderedStores.orderedStoresGather(o, 'in0[e] != 0u', `in0[${4 * N}u + e]`, 'e * 7u + 1u', 'e')}
}`).join('\n');
    const code = `${IO_BINDINGS}
@compute @workgroup_size(${N})
fn main(@builtin(local_invocation_index) lid: u32) {
${lib.orderedStores.orderedStoresDecl(o)}
${gathers}
${lib.orderedStores.orderedStoresFlush(o, (at, v, w) => `out[2u * (${at})] = ${v}; out[2u * (${at}) + 1u] = ${w} + 1000u;`)}
}`;
    const data = new Uint32Array(8 * N);
    data.set(flags, 0);
    data.set(place, 4 * N);
    // The buffer is zeroed: a pair never written stays (0, 0).
    const [w] = await dispatch(device, code, [{ words: 8 * N }, { data }]);
    let k = 0;
    for (let e = 0; e < 4 * N; e++) {
      if (!flags[e]) continue;
      if (w[2 * k] !== e * 7 + 1 || w[2 * k + 1] !== e + 1000) failures.push(`density ${density}: place ${k} got (${w[2 * k]}, ${w[2 * k + 1]}), want (${e * 7 + 1}, ${e + 1000})`);
      k++;
    }
    for (let i = 2 * c; i < 8 * N; i++) if (w[i] !== 0) { failures.push(`density ${density}: word ${i} past the ${c} places written (${w[i]})`); break; }
    if (failures.length) return failures.slice(0, 4);
  }
  return [];
}

// ------------------------------------------------------------------ device

/** Decoupled look-back over typed tile state, tiles from the tile counter: each tile's exclusive prefix. */
async function lookbackCase(lib, device, type, op, method, selfInclusive) {
  const t = lib.types.typeInfo(type);
  const o = operator(lib, t, op);
  const sub = method === 'subgroup';
  const TILES = 300; const WG = 32;
  const xs = values(type, op, TILES, 34);
  // Self-inclusive tiles (u32 max): every seventh holds the largest value, its own inclusive prefix.
  if (selfInclusive) for (let i = 3; i < TILES; i += 7) xs[i] = 0xffffffff;
  const code = `${lib.prelude.prelude(t, o, sub)}
${IO_BINDINGS}
@group(0) @binding(2) var<storage, read_write> state: array<atomic<u32>>;
${io(t)}
var<workgroup> sh_tile: u32;
var<workgroup> sh_prefix: ${t.wgsl};
var<workgroup> sg_counter: atomic<u32>;
${lib.lookback.tileStateFns(t)}
${sub ? `${lib.sgScan.subgroupInclusiveFn(t, o)}\n${lib.ballot.FIRST_LANE_FN}` : ''}
@compute @workgroup_size(${WG})
fn main(@builtin(local_invocation_index) lid: u32${sub ? `, ${lib.sgId.SUBGROUP_BUILTINS}` : ''}) {
  ${sub ? sgId(lib) : ''}
  {
${lib.tileCounter.takeTile('state', '0')}
    let agg = ld(tile);
${sub ? `    if (sgid == 0u) {
      var prefix = identity();${selfInclusive ? lib.lookback.subgroupLookback('agg == 0xffffffffu') : lib.lookback.SUBGROUP_LOOKBACK}
      if (sg_lane == 0u) { sh_prefix = prefix; }
    }
    workgroupBarrier();
    let tile_prefix = sh_prefix;` : lib.lookback.SERIAL_LOOKBACK}
    if (lid == 0u) { st(tile, tile_prefix); }
  }
}`;
  const [w] = await dispatch(device, code, [{ words: TILES * words(t) }, { data: encode(lib, t, xs) }, { words: lib.lookback.lookbackStateWords(TILES, t) }], TILES);
  const f = cpuOperator(lib, type, op);
  const fails = [];
  expectValues(lib, t, w, 0, lib.scanRef.scanReference(type === 'f16' ? 'f32' : type, f, xs, true, undefined, identityOf(lib, type, op)), `${type} ${op} ${method} look-back over ${TILES} tiles`, fails);
  return fails;
}

/** Look-back over single-word counts, a window of `window` predecessors a step. */
async function countLookbackCase(lib, device, window) {
  const TILES = 300;
  const cs = values('u32', 'add', TILES, 35).map((x) => x % 1000);
  const code = `${IO_BINDINGS}
@group(0) @binding(2) var<storage, read_write> state: array<atomic<u32>>;
${lib.lookback.LOOKBACK_CONSTS}
var<workgroup> sh_tile: u32;
@compute @workgroup_size(32)
fn main(@builtin(local_invocation_index) lid: u32) {
${lib.tileCounter.takeTile('state', '0')}
  if (lid == 0u) {
    let n = in0[tile];
    atomicStore(&state[1u + tile], select(LB_AGGREGATE, LB_INCLUSIVE, tile == 0u) | n);
    ${lib.lookback.countLookback(window, (q) => `state[1u + (${q})]`)}
    if (tile > 0u) { atomicStore(&state[1u + tile], LB_INCLUSIVE | (prefix + n)); }
    out[tile] = prefix;
  }
}`;
  const [w] = await dispatch(device, code, [{ words: TILES }, { data: Uint32Array.from(cs) }, { words: 1 + TILES }], TILES);
  let run = 0;
  for (let i = 0; i < TILES; i++) {
    if (w[i] !== run) return [`count look-back (window ${window}): tile ${i} got ${w[i]}, want ${run}`];
    run += cs[i];
  }
  return [];
}

/** Reduce-then-scan: tile aggregates out, their scan by carry in one workgroup, each tile's prefix back in. */
async function reduceThenScanCase(lib, device) {
  const t = lib.types.typeInfo('u32');
  const o = operator(lib, t, 'add');
  const TILES = 37; const IPT = 4;
  const xs = Uint32Array.from(values('u32', 'add', TILES * IPT, 36));
  const head = `${lib.prelude.prelude(t, o, false)}
struct Params { num_tiles: u32 }
const P = Params(${TILES}u);`;
  const main = (body) => `@compute @workgroup_size(1)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {${body}
}`;
  const tileSum = `\n    var agg = 0u;\n    for (var k = 0u; k < ${IPT}u; k++) { agg += in0[tile * ${IPT}u + k]; }`;
  const out = `
${lib.rts.partialsDecl('partials-out', 0, 'u32')}
@group(0) @binding(1) var<storage, read> in0: array<u32>;
${main(`${lib.rts.reduceThenScanTile('partials-out')}${tileSum}${lib.rts.reduceThenScanPrefix('partials-out')}`)}`;
  const [partials] = await dispatch(device, `${head}\n${out}`, [{ words: TILES }, { data: xs }], TILES);
  const carry = `
${IO_BINDINGS}
${main(`\n  var carry = identity();\n  for (var tile = 0u; tile < P.num_tiles; tile++) {\n    let agg = in0[tile];${lib.rts.reduceThenScanPrefix('carry')}\n    out[tile] = tile_prefix;\n  }`)}`;
  const [prefixes] = await dispatch(device, `${head}\n${carry}`, [{ words: TILES }, { data: partials }]);
  const back = `
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@group(0) @binding(1) var<storage, read> in0: array<u32>;
${lib.rts.partialsDecl('partials-in', 2, 'u32')}
${main(`${lib.rts.reduceThenScanTile('partials-in')}${lib.rts.reduceThenScanPrefix('partials-in')}
    var x = tile_prefix;
    for (var k = 0u; k < ${IPT}u; k++) { out[tile * ${IPT}u + k] = x; x += in0[tile * ${IPT}u + k]; }`)}`;
  const [w] = await dispatch(device, `${head}\n${back}`, [{ words: TILES * IPT }, { data: xs }, { data: prefixes }], TILES);
  let run = 0;
  for (let i = 0; i < xs.length; i++) {
    if (w[i] !== run) return [`reduce-then-scan: element ${i} got ${w[i]}, want ${run}`];
    run = (run + xs[i]) >>> 0;
  }
  return [];
}

// ------------------------------------------------------------------ the cases

/**
 * Every block case: { scope, name, run(lib, device, features) -> failures }. Types with f16 run
 * only on devices with shader-f16 (`features` has it).
 */
export const BLOCK_CASES = [
  { scope: 'thread', name: 'ordered stores of a quad\'s flagged elements', run: (l, d) => orderedStoresCase(l, d) },
  { scope: 'thread', name: 'radix key bits f32', run: (l, d) => radixKeyCase(l, d, 'f32') },
  { scope: 'thread', name: 'radix key bits i64', run: (l, d) => radixKeyCase(l, d, 'i64') },
  { scope: 'thread', name: 'radix key bits f16', f16: true, run: (l, d) => radixKeyCase(l, d, 'f16') },
  { scope: 'subgroup', name: 'quad neighbours by shuffles', run: (l, d) => quadNeighboursCase(l, d, true) },
  { scope: 'subgroup', name: 'quad neighbours without subgroups', run: (l, d) => quadNeighboursCase(l, d, false) },
  { scope: 'subgroup', name: 'scan and reduce u32 add (native)', run: (l, d) => subgroupScanCase(l, d, 'u32', 'add') },
  { scope: 'subgroup', name: 'scan and reduce i64 max (shuffles)', run: (l, d) => subgroupScanCase(l, d, 'i64', 'max') },
  { scope: 'subgroup', name: 'scan u64 affine maps (not commutative)', run: (l, d) => subgroupScanCase(l, d, 'u64', 'affine') },
  { scope: 'subgroup', name: 'scan and reduce f16 add', f16: true, run: (l, d) => subgroupScanCase(l, d, 'f16', 'add') },
  { scope: 'subgroup', name: 'without subgroup ops: u64 add', run: (l, d) => subgroupSharedCase(l, d, 'u64', 'add') },
  { scope: 'subgroup', name: 'without subgroup ops: f32 max', run: (l, d) => subgroupSharedCase(l, d, 'f32', 'max') },
  { scope: 'subgroup', name: 'ballot and match, masks of one word', run: (l, d) => ballotCase(l, d, 32) },
  { scope: 'subgroup', name: 'ballot and match, masks of four words', run: (l, d) => ballotCase(l, d, 128) },
  { scope: 'workgroup', name: 'scan u32 add, subgroup', run: (l, d) => workgroupScanCase(l, d, 'u32', 'add', 'subgroup') },
  { scope: 'workgroup', name: 'scan i64 min, shared', run: (l, d) => workgroupScanCase(l, d, 'i64', 'min', 'shared') },
  { scope: 'workgroup', name: 'scan u64 affine maps, subgroup', run: (l, d) => workgroupScanCase(l, d, 'u64', 'affine', 'subgroup') },
  { scope: 'workgroup', name: 'scan f32 mul, shared', run: (l, d) => workgroupScanCase(l, d, 'f32', 'mul', 'shared') },
  { scope: 'workgroup', name: 'scan f16 add, subgroup', f16: true, run: (l, d) => workgroupScanCase(l, d, 'f16', 'add', 'subgroup') },
  { scope: 'workgroup', name: 'reduce u32 add, subgroup', run: (l, d) => workgroupReduceCase(l, d, 'u32', 'add', 'subgroup') },
  { scope: 'workgroup', name: 'reduce i64 max, shared', run: (l, d) => workgroupReduceCase(l, d, 'i64', 'max', 'shared') },
  { scope: 'workgroup', name: 'reduce f16 min, subgroup', f16: true, run: (l, d) => workgroupReduceCase(l, d, 'f16', 'min', 'subgroup') },
  { scope: 'workgroup', name: 'vectorized tile load and store u32', run: (l, d) => quadTileCase(l, d, 'u32') },
  { scope: 'workgroup', name: 'vectorized tile load and store u64', run: (l, d) => quadTileCase(l, d, 'u64') },
  { scope: 'workgroup', name: 'striped and blocked tiles, exchange back to striped, staged load', run: stripedTileCase },
  { scope: 'workgroup', name: 'exchange through planes', run: exchangeCase },
  { scope: 'workgroup', name: 'discontinuity heads and tails', run: discontinuityCase },
  { scope: 'workgroup', name: 'radix rank by match', run: (l, d) => radixRankCase(l, d) },
  { scope: 'workgroup', name: 'radix rank by match, compact with late counts', run: (l, d) => radixRankCase(l, d, true) },
  { scope: 'workgroup', name: 'radix split by bits', run: radixSplitCase },
  { scope: 'workgroup', name: 'merge path', run: mergePathCase },
  { scope: 'workgroup', name: 'shared histogram', run: histogramCase },
  { scope: 'workgroup', name: 'two-phase scatter: staged or direct per tile', run: twoPhaseScatterCase },
  { scope: 'device', name: 'look-back u32 add, one invocation', run: (l, d) => lookbackCase(l, d, 'u32', 'add', 'serial') },
  { scope: 'device', name: 'look-back u64 add, a subgroup', run: (l, d) => lookbackCase(l, d, 'u64', 'add', 'subgroup') },
  { scope: 'device', name: 'look-back i64 max, one invocation', run: (l, d) => lookbackCase(l, d, 'i64', 'max', 'serial') },
  { scope: 'device', name: 'look-back f16 add, a subgroup', f16: true, run: (l, d) => lookbackCase(l, d, 'f16', 'add', 'subgroup') },
  { scope: 'device', name: 'look-back u32 max, a subgroup, self-inclusive tiles published at once', run: (l, d) => lookbackCase(l, d, 'u32', 'max', 'subgroup', true) },
  { scope: 'device', name: 'count look-back, window 1', run: (l, d) => countLookbackCase(l, d, 1) },
  { scope: 'device', name: 'count look-back, window 3', run: (l, d) => countLookbackCase(l, d, 3) },
  { scope: 'device', name: 'reduce-then-scan passes', run: reduceThenScanCase },
];

/** Runs the cases of `scope` (all when absent); returns { name, failures } for each (f16 cases skipped without shader-f16). */
export async function runBlockCases(lib, device, scope) {
  const results = [];
  for (const c of BLOCK_CASES) {
    if (scope && c.scope !== scope) continue;
    if (c.f16 && !device.features.has('shader-f16')) continue;
    let failures;
    try {
      failures = await c.run(lib, device);
    } catch (e) {
      failures = [`threw: ${e instanceof Error ? e.message : String(e)}`];
    }
    results.push({ name: `${c.scope}: ${c.name}`, failures });
  }
  return results;
}
