// `wgprim create-optimization`: benchmark JSON in, one tuned-table module (and its JSON) per
// algorithm out (rocPRIM's create_optimization.py).
import path from 'node:path';
import { createOptimization, GROUP_HEADER, summarizeGroups } from '../tune/create-optimization.js';
import { defaultTunedDir, importRootFor, packageRoot, readBenchmarkInputs, readTablesDir, writeOutputs } from '../node/tables.js';
import { renderTable } from './table.js';

export interface CreateOptimizationCommandOptions {
  /** Benchmark JSON files or folders of them. */
  readonly benchmarkFiles: string[];
  readonly outBasedir?: string;
  /** false with --no-merge: do not keep the rows already in the output folder. */
  readonly merge: boolean;
  /** false with --no-vendor-level. */
  readonly vendorLevel: boolean;
  readonly dryRun?: boolean;
}

export async function createOptimizationCommand(opts: CreateOptimizationCommandOptions): Promise<number> {
  const outDir = opts.outBasedir ?? defaultTunedDir();
  if (!outDir) throw new Error('--out-basedir is required (there is no src/config/tuned here: this is not a checkout of wgprim)');
  const inputs = readBenchmarkInputs(opts.benchmarkFiles);
  if (!inputs.length) throw new Error(`no benchmark JSON in ${opts.benchmarkFiles.join(' ')}`);
  const existing = opts.merge ? readTablesDir(outDir) : { tables: {}, from: {} };
  const result = createOptimization(inputs, { existing: existing.tables, importRoot: importRootFor(outDir), vendorLevel: opts.vendorLevel });
  for (const w of result.warnings) process.stderr.write(`warning: ${w}\n`);
  if (result.errors) process.stderr.write(`${result.errors} benchmark entr${result.errors === 1 ? 'y' : 'ies'} with an error skipped\n`);
  if (result.groups.length) console.log(renderTable(GROUP_HEADER, summarizeGroups(result.groups), new Set([4, 5, 6, 7])));
  if (!result.outputs.length) {
    console.log('no rows: nothing written');
    return 1;
  }
  for (const [a, n] of Object.entries(result.kept)) {
    if (n) console.log(`${a}: kept ${n} existing row(s) from ${(existing.from as Record<string, string>)[a]}`);
  }
  if (opts.dryRun) {
    console.log(`dry run: would write ${result.outputs.map((o) => path.join(outDir, o.name)).join(', ')}`);
    return 0;
  }
  for (const f of writeOutputs(outDir, result.outputs)) console.log(`wrote ${f}`);
  if (path.resolve(outDir) === path.join(packageRoot(), 'src', 'config', 'tuned')) {
    console.log('these are the built-in tables: npm run build to use them');
  } else {
    console.log(`use them at run time: createPrim(device, { tuned: loadTunedDir('${outDir}') }) (loadTunedDir from 'wgprim/node')`);
  }
  return 0;
}
