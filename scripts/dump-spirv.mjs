// Developer tool: the SPIR-V Dawn gives the driver for radix sort kernels, for scripts/vkstats.c
// (register counts and spills from the Vulkan driver; Dawn reports none).
//   node scripts/dump-spirv.mjs dump VARIANTS.json > dump.txt   (Dawn prints its dumps to stdout)
//   node scripts/dump-spirv.mjs split dump.txt OUT_DIR            (OUT_DIR/<name>.spvasm, for spirv-as)
// VARIANTS.json: [{ "name", "dist", "kernel": "sort" | "upsweep" | "histogram", "key", "valueBytes",
//   "offsets": "lookback" | "scanned", "config": RadixSortConfig fields, "pass": { rawIn, rawOut, word? },
//   "subgroups": { subgroupMinSize, subgroupMaxSize } (default 32), "tileCounts": true (a tile a workgroup),
//   "knobs": {...} (experimental builds) }]
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';

const [mode, a, b] = process.argv.slice(2);
if (mode === 'dump') {
  const { create, globals } = await import('webgpu');
  Object.assign(globalThis, globals);
  const gpu = create(['enable-dawn-features=dump_shaders']);
  const adapter = await gpu.requestAdapter();
  const device = await adapter.requestDevice({ requiredFeatures: ['subgroups'], requiredLimits: { maxComputeWorkgroupStorageSize: adapter.limits.maxComputeWorkgroupStorageSize, maxComputeWorkgroupSizeX: adapter.limits.maxComputeWorkgroupSizeX, maxComputeInvocationsPerWorkgroup: adapter.limits.maxComputeInvocationsPerWorkgroup } });
  // Kernels as for the H200 (subgroups of 32) unless a variant says otherwise.
  const sub = { subgroupMinSize: 32, subgroupMaxSize: 32 };
  for (const v of JSON.parse(readFileSync(a, 'utf8'))) {
    // Generator knobs of an experimental build (globalThis.__knobs), read while the kernel is made.
    globalThis.__knobs = v.knobs ?? {};
    const k1 = await import(`${v.dist}/device/radix-sort/kernel.js`);
    const k2 = await import(`${v.dist}/device/radix-sort/onesweep-kernel.js`);
    const { typeInfo } = await import(`${v.dist}/wgsl/types.js`);
    const config = { workgroupSize: 256, itemsPerThread: 13, radixBits: 8, rank: 'match', workgroupScan: 'subgroup', lookback: 'reduce-then-scan', histogramWorkgroupSize: 256, histogramItemsPerThread: 16, decoupledMaxCount: 0, passKernels: 'specialized', ...v.config };
    const o = { key: typeInfo(v.key ?? 'u32'), valueBytes: v.valueBytes ?? 0, config, pass: v.pass, ...sub, ...v.subgroups, offsets: v.offsets ?? 'scanned', tileCounts: v.tileCounts };
    const kernel = v.kernel === 'upsweep' ? k1.radixUpsweepKernel(o) : v.kernel === 'histogram' ? k2.onesweepHistogramKernel(o) : k2.onesweepSortKernel(o);
    // The name travels in the dumped WGSL, ahead of the SPIR-V Dawn makes of it.
    const module = device.createShaderModule({ code: `// KERNEL: ${v.name}\n${kernel.code}` });
    device.pushErrorScope('validation');
    device.createComputePipeline({ layout: 'auto', compute: { module, entryPoint: 'main' } });
    const error = await device.popErrorScope();
    if (error) console.error(`${v.name}: ${error.message}`);
    await device.queue.onSubmittedWorkDone();
  }
  device.destroy();
  process.exit(0);
} else if (mode === 'split') {
  mkdirSync(b, { recursive: true });
  let name;
  let spirv;
  const flush = () => {
    if (name && spirv) writeFileSync(`${b}/${name}.spvasm`, spirv.join('\n') + '\n');
    spirv = undefined;
  };
  for (const line of readFileSync(a, 'utf8').split('\n')) {
    const m = /^\/\/ KERNEL: (\S+)/.exec(line);
    if (m) { flush(); name = m[1]; continue; }
    if (line.startsWith('/* Dumped SPIRV disassembly */')) { flush(); spirv = []; continue; }
    if (!spirv) continue;
    if (line.startsWith('info:') || line.startsWith('// Dumped WGSL')) { flush(); continue; }
    // spirv-as from Debian bookworm predates maximal reconvergence: its mode is left out.
    if (/MaximallyReconverges|SPV_KHR_maximal_reconvergence/.test(line)) continue;
    if (line.startsWith(' ') || line.startsWith(';') || line.startsWith('%') || line === '') spirv.push(line);
    else flush();
  }
  flush();
} else {
  console.error('usage: dump-spirv.mjs dump VARIANTS.json | split DUMP OUT_DIR');
  process.exit(2);
}
