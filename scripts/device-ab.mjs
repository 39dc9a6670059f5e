// Developer tool for the H200 (see ../shared/device/README.md): times two builds of wgprim in one
// process on one device, alternating them, so that their ratio is not a cross-process one.
//   node scripts/device-ab.mjs DIST_A DIST_B "log2,..." '[[algorithm, type, config|null], ...]' [rounds]
// config null: the build's own selection (tuned rows). Prints each variant's medians and B/A (the faster of each).
const [distA, distB, sizesArg, variantsArg, roundsArg] = process.argv.slice(2);
const { requestDevice } = await import(`${distA}/node/index.js`);
const mods = [await import(`${distA}/index.js`), await import(`${distB}/index.js`)];
const runs = [await import(`${distA}/bench/run.js`), await import(`${distB}/bench/run.js`)];
const { device, adapterInfo } = await requestDevice();
const prims = mods.map((m) => m.createPrim(device, { adapterInfo }));
const sizes = sizesArg.split(',').map(Number);
const variants = JSON.parse(variantsArg);
const rounds = Number(roundsArg ?? 2);
const out = [];
for (const log2 of sizes) {
  for (const [algorithm, type, config] of variants) {
    const med = [[], []];
    for (let r = 0; r < rounds; r++) {
      for (const w of r % 2 === 0 ? [0, 1] : [1, 0]) {
        const [rec] = await runs[w].benchmarkAlgorithm(prims[w], { algorithm, type, size: 2 ** log2, seed: 1, ...(config ? { config } : {}), warmup: 2, batches: 3, batchSize: 5 });
        med[w].push(rec.stats.median);
      }
    }
    const m = med.map((xs) => Math.min(...xs));
    out.push(`${algorithm} ${type} 2^${log2} ${config ? JSON.stringify(config) : 'tuned'}: A ${med[0].map((x) => x.toFixed(4)).join('/')} B ${med[1].map((x) => x.toFixed(4)).join('/')} ms  B/A ${(m[1] / m[0]).toFixed(4)}`);
    console.log(out[out.length - 1]);
  }
}
console.log('==== summary ====\n' + out.join('\n'));
device.destroy();
process.exit(0);
