// Developer tool for the H200 (see ../shared/device/README.md): checks every algorithm against
// the CPU at large sizes, then times a list of scan/reduce configs. Usage:
//   node scripts/device-sweep.mjs [--check 24,26,28 [--check-configs JSON-array]] [--sweep scan|reduce|transform] [--sizes 24,28] [--configs JSON-array]
import { readback as readbackWords } from './device-readback.mjs';
import { requestDevice } from '../dist/node/index.js';
import { createPrim } from '../dist/index.js';
import { benchmarkAlgorithm } from '../dist/bench/run.js';

const args = Object.fromEntries(process.argv.slice(2).reduce((acc, a, i, all) => (a.startsWith('--') ? [...acc, [a.slice(2), all[i + 1]]] : acc), []));
const { device, adapterInfo, gpu } = await requestDevice();
globalThis.__gpu = gpu;
device.addEventListener('uncapturederror', (e) => console.error('UNCAPTURED', e.error.message));
const prim = createPrim(device, { adapterInfo });
console.log(`adapter: ${prim.target.vendor} ${prim.target.device}, subgroups ${prim.target.subgroupMinSize}..${prim.target.subgroupMaxSize}`);

const CUB = { inclusive_scan: { 24: 327.8849, 28: 391.8537 }, exclusive_scan: { 24: 324.3353, 28: 393.2682 }, reduce: { 24: 776.7229, 28: 1105.3641 }, transform: { 24: 468.5326, 28: 528.2665 } };

const readback = (buf, bytes) => readbackWords(device, buf, bytes);

async function check(log2, config) {
  const n = 2 ** log2 + (log2 % 3); // not a multiple of any tile
  const data = new Uint32Array(n);
  let x = 12345 + log2;
  for (let i = 0; i < n; i++) { x = (Math.imul(x, 1103515245) + 12345) >>> 0; data[i] = x >>> 8; }
  const usage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST;
  const input = device.createBuffer({ size: n * 4, usage });
  const output = device.createBuffer({ size: n * 4, usage });
  device.queue.writeBuffer(input, 0, data);
  const results = [];
  for (const exclusive of [false, true]) {
    const enc = device.createCommandEncoder();
    await (exclusive ? prim.exclusiveScan(enc, { input, output, count: n, type: 'u32', config }) : prim.inclusiveScan(enc, { input, output, count: n, type: 'u32', config }));
    device.queue.submit([enc.finish()]);
    const got = await readback(output, n * 4);
    let s = 0, bad = -1;
    for (let i = 0; i < n; i++) {
      const prev = s;
      s = (s + data[i]) >>> 0;
      if (got[i] !== (exclusive ? prev : s)) { bad = i; break; }
    }
    results.push(`${exclusive ? 'ex' : 'in'}:${bad < 0 ? 'ok' : 'BAD@' + bad}`);
  }
  for (const rc of [undefined, { workgroupReduce: 'shared' }, { maxWorkgroups: 4096 }]) {
    const enc = device.createCommandEncoder();
    await prim.reduce(enc, { input, output, count: n, type: 'u32', config: rc });
    device.queue.submit([enc.finish()]);
    const got = (await readback(output, 4))[0];
    let s = 0;
    for (let i = 0; i < n; i++) s = (s + data[i]) >>> 0;
    results.push(`reduce:${got === s ? 'ok' : `BAD(got ${got} want ${s})`}`);
  }
  {
    const enc = device.createCommandEncoder();
    await prim.transform(enc, { input, output, count: n, type: 'u32', expression: 'a * 3u + 1u' });
    device.queue.submit([enc.finish()]);
    const got = await readback(output, n * 4);
    let bad = -1;
    for (let i = 0; i < n; i++) if (got[i] !== ((Math.imul(data[i], 3) + 1) >>> 0)) { bad = i; break; }
    results.push(`transform:${bad < 0 ? 'ok' : 'BAD@' + bad}`);
  }
  input.destroy();
  output.destroy();
  console.log(`check n=2^${log2}+${log2 % 3} ${JSON.stringify(config ?? 'default')}: ${results.join(' ')}`);
}

if (args.check) {
  const checkConfigs = JSON.parse(args['check-configs'] ?? 'null') ?? [undefined, { lookback: 'reduce-then-scan' }];
  for (const l of args.check.split(',').map(Number)) {
    for (const c of checkConfigs) await check(l, c);
  }
}

if (args.sweep) {
  const algorithm = args.sweep;
  const configs = JSON.parse(args.configs ?? '[{}]');
  const sizes = (args.sizes ?? '28').split(',').map(Number);
  const rows = [];
  for (const log2 of sizes) {
    for (const config of configs) {
      try {
        const recs = await benchmarkAlgorithm(prim, { algorithm, type: args.type ?? 'u32', size: 2 ** log2, seed: 1, config, warmup: 3, batches: Number(args.batches ?? 4), batchSize: 10 });
        for (const r of recs) {
          const med = r.stats.median;
          const gitems = 2 ** log2 / med / 1e6;
          const anchor = CUB[r.algorithm]?.[log2];
          rows.push(`${r.algorithm.padEnd(15)} 2^${log2} ${JSON.stringify(config).padEnd(70)} median ${med.toFixed(4)} ms  ${gitems.toFixed(1)} G/s  cv ${r.stats.cv.toFixed(3)}  ${anchor ? (gitems / anchor).toFixed(3) + 'x CUB' : ''}`);
          console.log(rows[rows.length - 1]);
        }
      } catch (e) {
        rows.push(`${algorithm} 2^${log2} ${JSON.stringify(config)} FAILED ${e.message.split('\n')[0]}`);
        console.log(rows[rows.length - 1]);
      }
    }
  }
  console.log('\n==== summary ====\n' + rows.join('\n'));
}
device.destroy();
