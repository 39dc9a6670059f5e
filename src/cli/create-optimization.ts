// `wgprim create-optimization`: benchmark JSON in, one tuned table per algorithm out (rocPRIM's
// create_optimization.py): the package's modules in its algorithms' folders, or JSON in a folder.
import path from 'node:path';
import { createOptimization, formatGroups } from '../tune/create-optimization.js';
import { BUILTIN_TABLES, outputPlace, packageSourceDir, readBenchmarkInputs, readTablesDir, writeOutputs } from '../node/tables.js';

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
  // Default: the package's own tables (modules in src/device/*/), where this is a checkout.
  const place = opts.outBasedir ?? (packageSourceDir() ? BUILTIN_TABLES : undefined);
  if (!place) throw new Error('--out-basedir is required (this is not a checkout of wgprim: there are no package tables to write)');
  const inputs = readBenchmarkInputs(opts.benchmarkFiles);
  if (!inputs.length) throw new Error(`no benchmark JSON in ${opts.benchmarkFiles.join(' ')}`);
  const existing = opts.merge ? readTablesDir(place) : { tables: {}, from: {} };
  const out = outputPlace(place);
  const result = createOptimization(inputs, { existing: existing.tables, form: out.form, vendorLevel: opts.vendorLevel });
  for (const w of result.warnings) process.stderr.write(`warning: ${w}\n`);
  if (result.errors) process.stderr.write(`${result.errors} benchmark entr${result.errors === 1 ? 'y' : 'ies'} with an error skipped\n`);
  if (result.groups.length) console.log(formatGroups(result.groups));
  if (!result.outputs.length) {
    console.log('no rows: nothing written');
    return 1;
  }
  for (const [a, n] of Object.entries(result.kept)) {
    if (n) console.log(`${a}: kept ${n} existing row(s) from ${(existing.from as Record<string, string>)[a]}`);
  }
  if (opts.dryRun) {
    console.log(`dry run: would write ${result.outputs.map((o) => path.join(out.dir, o.name)).join(', ')}`);
    return 0;
  }
  for (const f of writeOutputs(out.dir, result.outputs)) console.log(`wrote ${f}`);
  if (out.form === 'module') {
    console.log('these are the built-in tables: npm run build to use them');
  } else {
    console.log(`use them at run time: createPrim(device, { tuned: loadTunedDir('${out.dir}') }) (loadTunedDir from 'wgprim/node')`);
  }
  return 0;
}
