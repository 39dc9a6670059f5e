// Per-pass GPU ms of LSD sorts on keys all drawn at random (xorshift), cases as listed below:
//   node scripts/pass-profile.mjs DIST log2   (DIST: a built dist folder, as device-ab.mjs takes)
const [dist, log2] = process.argv.slice(2);
const { requestDevice } = await import(`${dist}/node/index.js`);
const { createPrim } = await import(`${dist}/index.js`);
const { profileCalls, passMedians } = await import(`${dist}/bench/profile.js`);
const { device, adapterInfo } = await requestDevice();
const prim = createPrim(device, { adapterInfo });
const n = 2 ** Number(log2);
const U = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC;
const mk = (bytes) => device.createBuffer({ size: bytes, usage: U });
const keys = mk(n * 4), out = mk(n * 4), vals = mk(n * 4), valsOut = mk(n * 4);
const host = new Uint32Array(n);
let x = 2463534242;
for (let i = 0; i < n; i++) { x ^= x << 13; x ^= x >>> 17; x ^= x << 5; host[i] = x >>> 0; }
device.queue.writeBuffer(keys, 0, host);
const f = new Float32Array(n);
for (let i = 0; i < n; i++) f[i] = host[i] / 2 ** 31 - 1;
const fkeys = mk(n * 4);
device.queue.writeBuffer(fkeys, 0, f);
device.queue.writeBuffer(vals, 0, host);
// The same keys copied by the GPU (is the first pass slower for reading a buffer the host wrote?).
const copied = mk(n * 4);
{ const e = device.createCommandEncoder(); e.copyBufferToBuffer(keys, 0, copied, 0, n * 4); device.queue.submit([e.finish()]); }
// u64 keys: two random words each, n / 2 of them (the same bytes).
const n64 = n / 2;
const cases = [
  ['u32 full', (e) => prim.radixSortKeys(e, { keys, keysOut: out, count: n, type: 'u32' })],
  ['u32 full twice', async (e) => { await prim.radixSortKeys(e, { keys, keysOut: out, count: n, type: 'u32' }); await prim.radixSortKeys(e, { keys, keysOut: out, count: n, type: 'u32' }); }],
  ['u32 bits 24..32', (e) => prim.radixSortKeys(e, { keys, keysOut: out, count: n, type: 'u32', beginBit: 24, endBit: 32 })],
  ['u32 bits 0..8', (e) => prim.radixSortKeys(e, { keys, keysOut: out, count: n, type: 'u32', beginBit: 0, endBit: 8 })],
  ['u32 bits 16..32', (e) => prim.radixSortKeys(e, { keys, keysOut: out, count: n, type: 'u32', beginBit: 16, endBit: 32 })],
  ['f32 full', (e) => prim.radixSortKeys(e, { keys: fkeys, keysOut: out, count: n, type: 'f32' })],
  ['f32 full twice', async (e) => { await prim.radixSortKeys(e, { keys: fkeys, keysOut: out, count: n, type: 'f32' }); await prim.radixSortKeys(e, { keys: fkeys, keysOut: out, count: n, type: 'f32' }); }],
  ['u32 full from a GPU copy', (e) => prim.radixSortKeys(e, { keys: copied, keysOut: out, count: n, type: 'u32' })],
  ['u32 full, passKernels shared', (e) => prim.radixSortKeys(e, { keys, keysOut: out, count: n, type: 'u32', config: { passKernels: 'shared' } })],
  ['u64 full (n / 2 keys)', (e) => prim.radixSortKeys(e, { keys, keysOut: out, count: n64, type: 'u64' })],
  ['u32 pairs full', (e) => prim.radixSortPairs(e, { keys, keysOut: out, values: vals, valuesOut: valsOut, valueBytes: 4, count: n, type: 'u32' })],
];
for (const [name, record] of cases) {
  const p = await profileCalls(prim, record, { runs: 5, warmup: 2 });
  console.log(`${name}: span ${p.medianSpanMs.toFixed(3)} | ` + passMedians(p.passes).map((q) => `${q.label.replace('wgprim.radixSort.', '')} ${q.medianMs.toFixed(3)}`).join(', '));
}
device.destroy();
process.exit(0);
