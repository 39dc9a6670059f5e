// Writes docs/performance.md from the `wgprim bench` Google Benchmark JSON kept beside it, one
// file per device (docs/performance/<device>.json), with the ratio to CUB where the package has
// CUB's figures for that device (anchors/cub-<device>.json).
//
//   node scripts/performance-doc.mjs           write docs/performance.md
//   node scripts/performance-doc.mjs --check   exit 1 if docs/performance.md is not what it would write
//   node scripts/performance-doc.mjs --add RUN.json [...]
//                                              merge a partial `wgprim bench` run into its device's file
//                                              (same algorithm, type and size: the run's entry replaces
//                                              the file's), say so in its note, then write the page
//
// Names are read and paired with CUB's figures by the library's own code (dist/, so build
// first: `npm run docs:performance` does), so the doc pairs runs as `wgprim bench` does.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DOC = 'docs/performance.md';
const DATA = 'docs/performance';

async function library(root) {
  const load = (p) => import(pathToFileURL(path.join(root, 'dist', p)).href);
  try {
    const [{ parseName, rawEntryName }, { parseAnyBenchmarkName }, { anchorRatio, anchorType, loadAnchors }] =
      await Promise.all([load('bench/gbench.js'), load('tune/registry.js'), load('cli/table.js')]);
    return { parseName, rawEntryName, parseAnyBenchmarkName, anchorRatio, anchorType, loadAnchors };
  } catch (err) {
    throw new Error(`performance-doc: cannot load the library from ${path.join(root, 'dist')} (run npm run build first): ${err.message}`);
  }
}

const log2Size = (n) => (Number.isInteger(Math.log2(n)) ? `2^${Math.log2(n)}` : String(n));
const ms = (x) => (x >= 10 ? x.toFixed(2) : x >= 1 ? x.toFixed(3) : x.toFixed(4));

/** One entry as the record `anchorRatio` pairs (name, benchmark, type, size, median). */
function recordOf(lib, entry) {
  const parsed = lib.parseAnyBenchmarkName(lib.parseName(entry.name));
  if (!parsed) throw new Error(`performance-doc: no registered benchmark has the name ${entry.name}`);
  // `{...}/size:N/manual_time`, or `{...}/manual_time` in files written before sizes were in names.
  const name = lib.rawEntryName(entry.name);
  // bytes_per_second and real_time are over the mean (as GBench writes them); the table uses the median.
  const bytesPerCall = entry.bytes_per_second * (entry.real_time / 1e3);
  return { name, algorithm: parsed.benchmark, type: parsed.type, size: entry.size, bytesPerCall, stats: { median: entry.median, cv: entry.cv }, unsettled: entry.stable === 0 };
}

function deviceSection(lib, root, file) {
  const data = JSON.parse(fs.readFileSync(path.join(root, DATA, file), 'utf8'));
  const c = data.context ?? {};
  const device = file.replace(/\.json$/, '');
  if (c.adapter_device && c.adapter_device !== device) {
    throw new Error(`performance-doc: ${DATA}/${file} was measured on "${c.adapter_device}": name it ${c.adapter_device}.json`);
  }
  const anchorsFile = `anchors/cub-${device}.json`;
  const anchors = lib.loadAnchors(path.join(root, anchorsFile));
  const failed = data.benchmarks.filter((b) => b.error_occurred);
  const records = data.benchmarks.filter((b) => !b.error_occurred).map((b) => recordOf(lib, b));
  // Grouped by algorithm, then type, in the order the file first names them; sizes ascending.
  const first = (key) => { const seen = new Map(); for (const r of records) if (!seen.has(key(r))) seen.set(key(r), seen.size); return seen; };
  const algoOrder = first((r) => r.algorithm);
  const typeOrder = first((r) => lib.anchorType(r));
  records.sort((a, b) => algoOrder.get(a.algorithm) - algoOrder.get(b.algorithm) ||
    typeOrder.get(lib.anchorType(a)) - typeOrder.get(lib.anchorType(b)) || a.size - b.size);

  const header = ['algorithm', 'type', 'size', 'ms (median)', 'GB/s'];
  if (anchors) header.push('vs CUB');
  const rows = records.map((r) => {
    const s = r.stats.median / 1e3;
    const row = [r.algorithm, lib.anchorType(r), log2Size(r.size), `${ms(r.stats.median)}${r.unsettled ? '*' : ''}`, (r.bytesPerCall / s / 1e9).toFixed(0)];
    if (anchors) {
      const ratio = lib.anchorRatio(anchors, r);
      row.push(ratio === undefined ? '-' : `${ratio.toFixed(2)}x`);
    }
    return row;
  });
  const warmup = `${c.warmup_iterations} warm-up calls${Number(c.warmup_ms) > 0 ? ` (continued to ${c.warmup_ms} ms after a slow input set-up)` : ''}`;
  const lines = [
    `## ${device}`,
    '',
    `- Adapter: ${[c.adapter_vendor, c.adapter_architecture, c.adapter_device].filter(Boolean).join(' / ')}` +
      `${c.adapter_description ? ` (${c.adapter_description})` : ''}, subgroup size ${c.adapter_subgroup_min_size}` +
      `${c.adapter_subgroup_max_size !== c.adapter_subgroup_min_size ? `-${c.adapter_subgroup_max_size}` : ''}.`,
    `- Run: wgprim ${c.wgprim_version}, ${String(c.date).slice(0, 10)}; ${c.timing}, ${warmup}, ${c.trials} batches of ` +
      `${c.batch_iterations} calls, ${c.cold_cache === 'true' ? 'cold' : 'hot'} cache, seed ${c.seed}.`,
    `- Data: [performance/${file}](performance/${file})` +
      (anchors ? `; CUB: [../${anchorsFile}](../${anchorsFile})${cubVersion(root, anchorsFile)}.` : '; no CUB figures for this device.'),
    // A free-text context field (GBench allows custom ones), for a file that needs a word on its making.
    ...(c.note ? [`- Note: ${c.note}`] : []),
    '',
    `| ${header.join(' | ')} |`,
    `| ${header.map((h, i) => (i >= 3 ? '---:' : '---')).join(' | ')} |`,
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ];
  if (records.some((r) => r.unsettled)) {
    lines.push('', '\\* Not settled: its batches kept differing by more than 10% after re-measuring (`stable: 0` in the JSON); its figure may not repeat.');
  }
  if (failed.length > 0) lines.push('', `${failed.length} benchmark${failed.length > 1 ? 's' : ''} failed on this device (error_message in the JSON).`);
  return lines.join('\n');
}

function cubVersion(root, anchorsFile) {
  const d = JSON.parse(fs.readFileSync(path.join(root, anchorsFile), 'utf8')).device ?? {};
  return d.cccl ? ` (CCCL ${d.cccl}${d.device ? ` on ${d.device}` : ''})` : '';
}

const METHOD = `## Method

- **What is timed.** \`wgprim bench\` brackets every call with GPU timestamps (an empty pass
  writing one before it and one after it, \`timestamp-query\`); where a device lacks timestamps,
  the host clock times each batch, divided by its calls. Warm-up calls run first (pipeline
  compile, caches, clocks), then the timed batches, each one submit of several calls. **ms** is
  the median over all timed calls. The JSON's \`real_time\` and \`items_per_second\` are over the
  mean, as Google Benchmark writes them; its \`cv\` is each entry's spread.
- **Inputs.** Fixed seed. Scan, reduce and transform: values in [0, 1000]; they add, and the
  transform is \`a + 1\` (a bit flip for 64-bit types). Sorts: keys uniform over all their bits
  (floats uniform in [-1, 1)); pairs carry u32 indices. Inputs are never overwritten and buffers
  are reused between calls, so caches are hot unless the run says "cold" (\`--cold\`).
- **GB/s** counts each input read once and each output written once, at the median time.
- **Type.** The names CUB's figures use: \`k:v\` is a sort of pairs (key type : value type);
  \`/seg1024\` a segmented sort of segments of 1024 keys; \`u8x4/3ch\` RGBA8 pixels, 3 of 4
  channels counted. \`u32/levels_f32\` is our histogram of f32 samples, set beside CUB's nearest
  figure: its float binning of u32 samples.
- **vs CUB** is our items/s over CUB's items/s at the same algorithm, type and size, CUB measured
  on the same GPU (median of timed calls, hot L2): above 1.00x is faster than CUB. Absolute times
  move a few percent between runs; compare ratios within one table.
- **Regenerate.** On the device: \`npm run build\`, then
  \`node dist/cli/main.js bench --algorithm all --type u32,f32,u64 --size 2^24,2^28 --benchmark_out docs/performance/<device>.json\`
  (the file takes the name in the JSON's \`context.adapter_device\`); then
  \`npm run docs:performance\`. A run of some algorithms only (the H200 lease allows 10 minutes a
  call) joins its device's file with \`node scripts/performance-doc.mjs --add <run.json>\`: its entries
  replace those of the same algorithm, type and size, and the note under the device says when.
  A test fails while this page differs from its JSON.`;

// Context fields that say how a file was measured: a run measured otherwise cannot join it.
const METHOD_FIELDS = ['timing', 'trials', 'batch_iterations', 'warmup_iterations', 'cold_cache', 'seed'];

/**
 * Merges partial `wgprim bench` runs (Google Benchmark JSON files) into docs/performance/<device>.json
 * under `root`, the device from each run's `context.adapter_device`: each of the run's entries
 * replaces the file's entry of the same algorithm, type and size (whatever its config), or is
 * added after them. The file's context stays the first run's; its note gains the run's date and
 * algorithms. A device with no file yet takes the run as it is. Throws on a run measured with other
 * settings (`METHOD_FIELDS`). Returns the files written.
 */
export async function addRuns(runFiles, root = ROOT) {
  const lib = await library(ROOT);
  const written = [];
  for (const runFile of runFiles) {
    const run = JSON.parse(fs.readFileSync(runFile, 'utf8'));
    const device = run.context?.adapter_device;
    if (!device) throw new Error(`performance-doc: ${runFile} has no context.adapter_device`);
    const file = path.join(root, DATA, `${device}.json`);
    if (!fs.existsSync(file)) {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, `${JSON.stringify(run, null, 2)}\n`);
      written.push(file);
      continue;
    }
    const data = JSON.parse(fs.readFileSync(file, 'utf8'));
    const differ = METHOD_FIELDS.filter((f) => String(run.context[f]) !== String(data.context[f]));
    if (differ.length) {
      throw new Error(`performance-doc: ${runFile} was measured otherwise than ${path.relative(root, file)} (${differ.map((f) => `${f} ${run.context[f]} vs ${data.context[f]}`).join(', ')}): bench with the same settings, or replace the whole file`);
    }
    const key = (e) => {
      const parsed = lib.parseAnyBenchmarkName(lib.parseName(e.name));
      if (!parsed) throw new Error(`performance-doc: no registered benchmark has the name ${e.name}`);
      return `${parsed.benchmark}|${parsed.type}|${e.size}`;
    };
    const runKeys = run.benchmarks.map(key);
    const incoming = new Map(run.benchmarks.map((e, i) => [runKeys[i], e]));
    const benchmarks = data.benchmarks.map((e) => {
      const k = key(e);
      const replacement = incoming.get(k);
      incoming.delete(k);
      return replacement ?? e;
    });
    benchmarks.push(...incoming.values());
    const algorithms = [...new Set(runKeys.map((k) => k.split('|')[0]))].join(', ');
    const added = `${String(run.context.date).slice(0, 10)}: ${algorithms} (${run.benchmarks.length} entries) from a later run`;
    const context = { ...data.context, note: data.context.note ? `${data.context.note}; ${added}` : added };
    fs.writeFileSync(file, `${JSON.stringify({ context, benchmarks }, null, 2)}\n`);
    written.push(file);
  }
  return written;
}

/** The page, from every docs/performance/*.json (and anchors/) under `root`; the library is this repository's. */
export async function renderPerformanceDoc(root = ROOT) {
  const lib = await library(ROOT);
  const files = fs.existsSync(path.join(root, DATA)) ? fs.readdirSync(path.join(root, DATA)).filter((f) => f.endsWith('.json')).sort() : [];
  return [
    '<!-- generated by scripts/performance-doc.mjs from docs/performance/*.json: do not edit; run npm run docs:performance -->',
    '# Performance',
    '',
    `Figures of the latest \`wgprim bench\` run on each device below, one table per device, and how they are measured.`,
    '',
    ...files.map((f) => deviceSection(lib, root, f) + '\n'),
    METHOD,
    '',
  ].join('\n');
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const at = process.argv.indexOf('--add');
  if (at >= 0) {
    const runs = process.argv.slice(at + 1).filter((a) => !a.startsWith('--'));
    try {
      if (runs.length === 0) throw new Error('performance-doc: --add takes one or more `wgprim bench` JSON files');
      for (const f of await addRuns(runs)) console.error(`merged into ${path.relative(ROOT, f)}`);
    } catch (err) {
      console.error(err.message);
      process.exit(1);
    }
  }
  const text = await renderPerformanceDoc();
  const target = path.join(ROOT, DOC);
  if (process.argv.includes('--check')) {
    const now = fs.existsSync(target) ? fs.readFileSync(target, 'utf8') : '';
    if (now !== text) {
      console.error(`${DOC} is not what its JSON gives: run npm run docs:performance`);
      process.exit(1);
    }
  } else {
    fs.writeFileSync(target, text);
    console.error(`wrote ${DOC}`);
  }
}
