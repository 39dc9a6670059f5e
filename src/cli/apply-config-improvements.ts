// `wgprim apply-config-improvements`: keep a newly tuned row only where a re-measurement shows it
// faster than the old one by more than max(P, the noise bound) (rocPRIM's apply_config_improvements.py).
import fs from 'node:fs';
import { applyConfigImprovements, decisionSummary, formatDecisions } from '../tune/apply-improvements.js';
import { BUILTIN_TABLES, outputPlace, readBenchmarkInputs, readTablesDir, writeOutputs } from '../node/tables.js';

export interface ApplyImprovementsCommandOptions {
  readonly oldJsonDir: string;
  readonly newJsonDir: string;
  readonly oldConfigsDir: string;
  readonly newConfigsDir: string;
  readonly improvedConfigsDir: string;
  readonly improvementThresholdPercentage: number;
}

export async function applyImprovementsCommand(opts: ApplyImprovementsCommandOptions): Promise<number> {
  for (const [flag, dir] of [['--old-json-dir', opts.oldJsonDir], ['--new-json-dir', opts.newJsonDir], ['--old-configs-dir', opts.oldConfigsDir], ['--new-configs-dir', opts.newConfigsDir]] as const) {
    if (dir === BUILTIN_TABLES && flag.includes('configs')) continue;
    if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) throw new Error(`${flag} ${dir}: no such folder`);
  }
  const oldTables = readTablesDir(opts.oldConfigsDir);
  const newTables = readTablesDir(opts.newConfigsDir);
  if (!Object.keys(newTables.tables).length) throw new Error(`--new-configs-dir ${opts.newConfigsDir} holds no tables (<table>.json)`);
  const out = outputPlace(opts.improvedConfigsDir);
  const oldJson = readBenchmarkInputs([opts.oldJsonDir]);
  const newJson = opts.newJsonDir === opts.oldJsonDir ? oldJson : readBenchmarkInputs([opts.newJsonDir]);
  const result = applyConfigImprovements({
    oldTables: oldTables.tables, newTables: newTables.tables, oldJson, newJson,
    thresholdPercent: opts.improvementThresholdPercentage, form: out.form,
  });
  for (const w of result.warnings) process.stderr.write(`warning: ${w}\n`);
  console.log(`threshold P = ${opts.improvementThresholdPercentage}%; bound = max(P, 1.96*sqrt(cv_old^2+cv_new^2)*100)`);
  console.log('* = a figure from the table\'s evidence (no run of the config in the JSON)');
  console.log(formatDecisions(result.decisions));
  console.log(decisionSummary(result));
  for (const f of writeOutputs(out.dir, result.outputs)) console.log(`wrote ${f}`);
  return 0;
}
