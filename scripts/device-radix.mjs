// Developer tool for the H200 (see ../shared/device/README.md): checks the radix sort at large
// sizes in O(n) (sorted order, and for pairs with index values: keys_out[i] == keys_in[values[i]]
// with equal keys in index order; keys only: sorted plus three checksums), then times configs.
//   node scripts/device-radix.mjs [--dist DIR] [--check "u32:24,u32:28,f32:28,u64:26"] [--pairs 1] [--check-configs JSON-array]
//                                 [--sweep radix_sort_keys|radix_sort_pairs --type u32 --sizes 28,24 --configs JSON-array]
//                                 [--paths u32,f32 --path-sizes 10,12,14] (onesweep vs block sort + merge, selected configs) [--tuned DIR]
import { readback as readbackWords } from './device-readback.mjs';
const args = Object.fromEntries(process.argv.slice(2).reduce((acc, a, i, all) => (a.startsWith('--') ? [...acc, [a.slice(2), all[i + 1]]] : acc), []));
const dist = args.dist ?? new URL('../dist/', import.meta.url).pathname;
const { requestDevice } = await import(`${dist}/node/index.js`);
const { createPrim } = await import(`${dist}/index.js`);
const { benchmarkAlgorithm, benchmarkRadixSortBlockSort } = await import(`${dist}/bench/run.js`);
const { loadTunedDir } = await import(`${dist}/node/tables.js`);
const { device, adapterInfo, gpu } = await requestDevice({ dawnFlags: args['dawn-flags'] ? args['dawn-flags'].split(' ') : [] });
globalThis.__gpu = gpu;
device.addEventListener('uncapturederror', (e) => console.error('UNCAPTURED', e.error.message));
const prim = createPrim(device, { adapterInfo, ...(args.tuned ? { tuned: loadTunedDir(args.tuned) } : {}) });
console.log(`adapter: ${prim.target.vendor} ${prim.target.device}, subgroups ${prim.target.subgroupMinSize}..${prim.target.subgroupMaxSize}`);

// CUB on this H200, G keys/s (anchors/cub-h200.json).
const CUB = {
  radix_sort_keys: { u32: { 24: 36.179, 28: 42.4744 }, u64: { 24: 14.5381, 28: 16.3528 }, f32: { 24: 39.5719, 28: 47.6422 } },
  radix_sort_pairs: { u32: { 24: 30.3865, 28: 36.1617 } },
};

const readback = (buf, bytes) => readbackWords(device, buf, bytes);

/** Ordered bits of key i: the high word (the only one for 32-bit keys) and the low word. */
function orderedHi(type, w, i) {
  if (type === 'u64') return w[2 * i + 1];
  if (type === 'i64') return (w[2 * i + 1] ^ 0x80000000) >>> 0;
  const b = w[i];
  if (type === 'i32') return (b ^ 0x80000000) >>> 0;
  if (type === 'f32') return (b & 0x80000000 ? ~b : b | 0x80000000) >>> 0;
  return b;
}
const orderedLo = (type, w, i) => (type === 'u64' || type === 'i64' ? w[2 * i] : 0);

async function check(type, log2, pairs, descending, config) {
  const t0 = performance.now();
  const n = 2 ** log2 + (log2 % 3) + 1; // not a multiple of any tile
  const wide = type === 'u64' || type === 'i64';
  const words = n * (wide ? 2 : 1);
  const keys = new Uint32Array(words);
  let x = (12345 + log2 * 7919) >>> 0;
  for (let i = 0; i < words; i++) { x ^= x << 13; x ^= x >>> 17; x ^= x << 5; keys[i] = x >>> 0; }
  if (type === 'f32') { const f = new Float32Array(keys.buffer); for (let i = 0; i < n; i++) f[i] = keys[i] / 2 ** 31 - 1; } // [-1, 1) as CUB's anchor
  const usage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST;
  const kin = device.createBuffer({ size: words * 4, usage });
  const kout = device.createBuffer({ size: words * 4, usage });
  device.queue.writeBuffer(kin, 0, keys);
  let vin, vout;
  if (pairs) {
    vin = device.createBuffer({ size: n * 4, usage });
    vout = device.createBuffer({ size: n * 4, usage });
    const iota = new Uint32Array(n);
    for (let i = 0; i < n; i++) iota[i] = i;
    device.queue.writeBuffer(vin, 0, iota);
  }
  const enc = device.createCommandEncoder();
  // A check config may carry the block sort path's config: {"blockSortConfig": {...}, ...onesweep fields}.
  const { blockSortConfig, ...onesweepConfig } = config ?? {};
  const common = { keys: kin, keysOut: kout, count: n, type, descending, config: onesweepConfig, blockSortConfig };
  if (pairs) await prim.radixSortPairs(enc, { ...common, values: vin, valuesOut: vout, valueBytes: 4 });
  else await prim.radixSortKeys(enc, common);
  device.queue.submit([enc.finish()]);
  const got = await readback(kout, words * 4);
  const vals = pairs ? await readback(vout, n * 4) : undefined;
  let bad = -1;
  let why = '';
  let ph = orderedHi(type, got, 0);
  let pl = orderedLo(type, got, 0);
  for (let i = 1; i < n && bad < 0; i++) {
    const h = orderedHi(type, got, i);
    const l = orderedLo(type, got, i);
    const c = ph !== h ? (ph < h ? -1 : 1) : pl !== l ? (pl < l ? -1 : 1) : 0;
    if (descending ? c < 0 : c > 0) { bad = i; why = 'order'; }
    else if (pairs && c === 0 && vals[i - 1] >= vals[i]) { bad = i; why = 'stability'; }
    ph = h;
    pl = l;
  }
  if (bad < 0 && pairs) {
    const seen = new Uint8Array(n);
    for (let i = 0; i < n && bad < 0; i++) {
      const v = vals[i];
      if (v >= n || seen[v]) { bad = i; why = 'values not a permutation'; break; }
      seen[v] = 1;
      for (let w = 0; w < (wide ? 2 : 1); w++) if (got[i * (wide ? 2 : 1) + w] !== keys[v * (wide ? 2 : 1) + w]) { bad = i; why = 'key/value mismatch'; }
    }
  }
  if (bad < 0 && !pairs) {
    const sums = (w) => { let a = 0, b = 0, c = 0; for (let i = 0; i < w.length; i++) { a = (a + w[i]) >>> 0; b ^= w[i]; c = (c + Math.imul(w[i], w[i] | 1)) >>> 0; } return `${a}:${b}:${c}`; };
    if (sums(got) !== sums(keys)) { bad = 0; why = 'checksum'; }
  }
  for (const b of [kin, kout, vin, vout]) b?.destroy();
  const line = `check ${type} ${pairs ? 'pairs' : 'keys'} ${descending ? 'desc' : 'asc'} n=2^${log2}+${n - 2 ** log2} ${JSON.stringify(config ?? 'default')}: ${bad < 0 ? 'ok' : `BAD@${bad} (${why})`}`;
  console.log(line, `(${((performance.now() - t0) / 1000).toFixed(1)} s)`);
  return line;
}

const lines = [];
if (args.check) {
  const checkConfigs = JSON.parse(args['check-configs'] ?? 'null') ?? [undefined];
  for (const item of args.check.split(',')) {
    const [type, l] = item.split(':');
    for (const c of checkConfigs) {
      lines.push(await check(type, Number(l), false, false, c));
      if (args.pairs) lines.push(await check(type, Number(l), true, Number(l) % 2 === 1, c));
    }
  }
}

if (args.sweep) {
  const configs = JSON.parse(args.configs ?? '[{}]');
  const sizes = (args.sizes ?? '28').split(',').map(Number);
  for (const algorithm of args.sweep.split(',')) {
    for (const type of (args.type ?? 'u32').split(',')) {
      for (const log2 of sizes) {
        for (const config of configs) {
          try {
            const recs = await benchmarkAlgorithm(prim, { algorithm, type, size: 2 ** log2, seed: 1, config, warmup: 3, batches: Number(args.batches ?? 4), batchSize: Number(args['batch-size'] ?? 5) });
            for (const r of recs) {
              const med = r.stats.median;
              const gitems = 2 ** log2 / med / 1e6;
              const anchor = CUB[algorithm]?.[type]?.[log2];
              lines.push(`${algorithm} ${type} 2^${log2} ${JSON.stringify(config).padEnd(60)} median ${med.toFixed(4)} ms  ${gitems.toFixed(2)} G/s  cv ${r.stats.cv.toFixed(3)}  ${anchor ? (gitems / anchor).toFixed(3) + 'x CUB' : ''}`);
              console.log(lines[lines.length - 1]);
            }
          } catch (e) {
            lines.push(`${algorithm} ${type} 2^${log2} ${JSON.stringify(config)} FAILED ${e.message.split('\n')[0]}`);
            console.log(lines[lines.length - 1]);
          }
        }
      }
    }
  }
}
// Segmented: "log2:segmentLength,..." of u32 keys; each segment sorted, per-segment sums kept.
async function segCheck(log2, len, config) {
  const t0 = performance.now();
  const n = 2 ** log2 + 7;
  const segments = Math.ceil(n / len);
  const keys = new Uint32Array(n);
  let x = (777 + log2) >>> 0;
  for (let i = 0; i < n; i++) { x ^= x << 13; x ^= x >>> 17; x ^= x << 5; keys[i] = x >>> 0; }
  const begins = Uint32Array.from({ length: segments + 1 }, (_, i) => Math.min(i * len, n));
  const usage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST;
  const kin = device.createBuffer({ size: n * 4, usage });
  const kout = device.createBuffer({ size: n * 4, usage });
  const offs = device.createBuffer({ size: begins.byteLength, usage });
  device.queue.writeBuffer(kin, 0, keys);
  device.queue.writeBuffer(offs, 0, begins);
  const enc = device.createCommandEncoder();
  await prim.segmentedRadixSortKeys(enc, { keys: kin, keysOut: kout, count: n, segments, beginOffsets: offs, type: 'u32', config });
  device.queue.submit([enc.finish()]);
  const got = await readback(kout, n * 4);
  let bad = -1;
  for (let sgi = 0; sgi < segments && bad < 0; sgi++) {
    let a = 0, b = 0;
    for (let i = begins[sgi]; i < begins[sgi + 1]; i++) {
      a = (a + keys[i]) >>> 0; b = (b + got[i]) >>> 0;
      if (i > begins[sgi] && got[i - 1] > got[i]) { bad = i; break; }
    }
    if (a !== b && bad < 0) bad = begins[sgi];
  }
  for (const buf of [kin, kout, offs]) buf.destroy();
  const line = `segcheck u32 n=2^${log2}+7 segments of ${len} ${JSON.stringify(config ?? 'default')}: ${bad < 0 ? 'ok' : 'BAD@' + bad}`;
  console.log(line, `(${((performance.now() - t0) / 1000).toFixed(1)} s)`);
  lines.push(line);
}
if (args['seg-check']) {
  for (const item of args['seg-check'].split(',')) {
    const [l, len] = item.split(':').map(Number);
    await segCheck(l, len, undefined);
  }
}

if (args.paths) {
  const sizes = (args['path-sizes'] ?? '10,12,14,16,18,20,22').split(',').map(Number);
  for (const type of args.paths.split(',')) {
    for (const log2 of sizes) {
      const opts = { type, size: 2 ** log2, seed: 1, warmup: 3, batches: Number(args.batches ?? 4), batchSize: Number(args['batch-size'] ?? 5) };
      const [one] = await benchmarkAlgorithm(prim, { ...opts, algorithm: 'radix_sort_keys' });
      const block = await benchmarkRadixSortBlockSort(prim, opts);
      const a = one.stats.median, b = block.stats.median;
      lines.push(`paths ${type} 2^${log2}: onesweep ${a.toFixed(4)} ms, block sort + merge ${b.toFixed(4)} ms -> ${b < a ? 'block sort' : 'onesweep'} (${(a / b).toFixed(2)}x)`);
      console.log(lines[lines.length - 1]);
    }
  }
}
console.log('\n==== summary ====\n' + lines.join('\n'));
device.destroy();
process.exit(0);
