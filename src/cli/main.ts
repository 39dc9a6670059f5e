#!/usr/bin/env node
// The `wgprim` command.
import { Command, InvalidArgumentError, Option } from 'commander';
import { WGPRIM_VERSION } from '../bench/gbench.js';
import { benchCommand, type BenchCommandOptions } from './bench.js';
import { DEMO_ALGORITHMS, demoCommand, type DemoOptions } from './demo.js';
import { infoCommand } from './info.js';
import { parseCount, parseInteger, parseList, parseType } from './parse.js';
import { createOptimizationCommand, type CreateOptimizationCommandOptions } from './create-optimization.js';
import { applyImprovementsCommand, type ApplyImprovementsCommandOptions } from './apply-config-improvements.js';
import { reportCommand, type ReportCommandOptions } from './report.js';
import { tuneCommand, type TuneCommandOptions } from './tune.js';
import { PROFILE_ALGORITHMS, profileCommand, type ProfileCommandOptions } from './profile.js';
import { BENCHMARKS, TUNING_STAGES } from '../algorithms.js';

// What `bench --algorithm` takes: every benchmark, the tuning stages that name several (`scan`: both scans), and `all`.
const ALGORITHMS = [
  ...new Set([...TUNING_STAGES.filter((s) => s.benchmarks.length > 1 && !BENCHMARKS.some((b) => b.name === s.stage)).map((s) => s.stage), ...BENCHMARKS.map((b) => b.name)]), 'all',
];

/** Wraps a value parser so commander reports its error as a usage error, not a crash. */
function arg<T>(parse: (s: string) => T): (s: string) => T {
  return (s) => {
    try {
      return parse(s);
    } catch (err) {
      throw new InvalidArgumentError((err as Error).message);
    }
  };
}

function parseAlgorithm(a: string): string {
  if (!ALGORITHMS.includes(a)) throw new Error(`unknown algorithm "${a}": use ${ALGORITHMS.join(', ')}`);
  return a;
}

/** Runs a command and exits with its code: Dawn keeps the process alive otherwise. */
function action<A extends unknown[]>(fn: (...args: A) => Promise<number>): (...args: A) => Promise<void> {
  return async (...args) => {
    let code: number;
    try {
      code = await fn(...args);
    } catch (err) {
      console.error(`wgprim: ${(err as Error).message}`);
      code = 2;
    }
    process.exit(code);
  };
}

const program = new Command('wgprim')
  .description('WebGPU device-wide parallel primitives: device info, benchmarks, demo')
  .version(WGPRIM_VERSION);

program.command('info')
  .description('adapter, target identity, features, limits, and the config each algorithm selects per type')
  .option('--json', 'print JSON')
  .action(action((opts: { json?: boolean }) => infoCommand(opts)));

program.command('bench')
  .description('time algorithms on seeded random data; write Google Benchmark JSON (rocPRIM names)')
  .addOption(new Option('--algorithm <list>', `${ALGORITHMS.join('|')}, comma-separated; scan = both scans`)
    .argParser(arg((s) => parseList(s, parseAlgorithm))).default(['all'], 'all'))
  .addOption(new Option('--type <list>', 'element types, comma-separated').argParser(arg((s) => parseList(s, parseType))).default(['u32'], 'u32'))
  .addOption(new Option('--size <list>', 'elements per call, comma-separated (1048576, 2^20, 1e6, 4Mi)')
    .argParser(arg((s) => parseList(s, parseCount))).default([2 ** 20], '2^20'))
  .option('--seed <n>', 'data seed (rocPRIM CI uses 82589933)', arg(parseInteger('seed', 0)), 82589933)
  .option('--warmup <n>', 'untimed calls before timing', arg(parseInteger('warmup', 0)), 5)
  .option('--warmup-ms <ms>', 'after inputs that took over 100 ms to make (the GPU idle meanwhile, and slow for a while after), untimed calls go on until this many ms have passed', arg(parseInteger('warmup-ms', 0)), 500)
  .option('--batches <n>', 'timed batches (one submit each)', arg(parseInteger('batches', 1)), 10)
  .option('--settle-ms <ms>', 'time batches until two in a row agree within 3% (those before are dropped), and measure again batches 10% slower than the rest, for at most this many ms (and --batches more batches) per benchmark (0: off)', arg(parseInteger('settle-ms', 0)), 1000)
  .option('--batch-size <n>', 'calls per batch, each timed on its own', arg(parseInteger('batch-size', 1)), 10)
  .option('--config <json>', 'config override: {"workgroupSize":128,...} for all, or {"scan":{...},"reduce":{...}}')
  .option('--benchmark_out <file>', 'write Google Benchmark JSON here')
  .option('--benchmark_out_format <fmt>', 'json (the only format written)')
  .option('--anchors <file>', "CUB figures for the ratio column (default: the package's anchors/cub-<device>.json, where it ships one: NVIDIA H200)")
  .option('--wall-clock', 'time batches with the host clock even if timestamp-query exists')
  .option('--cold', 'cold cache: clear a 256 MiB scratch buffer before each timed call (each batch with --wall-clock), outside the timed region')
  .option('--tuned <dir>', 'tuned tables from this folder (wgprim tune --out-basedir) take precedence over the built-in ones')
  .option('-q, --quiet', 'no progress lines on stderr')
  .action(action((opts: BenchCommandOptions) => benchCommand(opts)));

program.command('profile')
  .description('per-kernel GPU time of one algorithm call (timestamps around every dispatched pass): calls, median ms and share per kernel')
  .addOption(new Option('--algorithm <name>', 'the algorithm to profile').choices([...PROFILE_ALGORITHMS]).makeOptionMandatory())
  .addOption(new Option('--type <t>', 'element (key) type').argParser(arg(parseType)).default('u32'))
  .addOption(new Option('--size <n>', 'elements per call (1048576, 2^20, 1e6, 4Mi)').argParser(arg(parseCount)).default(2 ** 20, '2^20'))
  .option('--runs <n>', 'profiled runs (one submit each)', arg(parseInteger('runs', 1)), 5)
  .option('--warmup <n>', 'unprofiled runs first', arg(parseInteger('warmup', 0)), 1)
  .option('--warmup-ms <ms>', 'after inputs that took over 100 ms to make, unprofiled runs go on until this many ms have passed (as bench)', arg(parseInteger('warmup-ms', 0)), 500)
  .option('--seed <n>', 'data seed', arg(parseInteger('seed', 0)), 82589933)
  .option('--config <json>', 'config override, as for bench: {"workgroupSize":128,...} or {"scan":{...}}')
  .option('--tuned <dir>', 'tuned tables from this folder take precedence over the built-in ones')
  .option('--json <file>', 'write the per-kernel figures as JSON')
  .action(action((opts: ProfileCommandOptions) => profileCommand(opts)));

program.command('demo')
  .description('check every algorithm against the CPU on 1e6 random elements, then a short benchmark')
  .addOption(new Option('--size <list>', 'elements per check, comma-separated (2^24,2^28: the sizes a GPU is timed at)').argParser(arg((s) => parseList(s, parseCount))))
  .addOption(new Option('--algorithm <list>', `algorithm folders whose checks run, comma-separated: ${DEMO_ALGORITHMS.join(', ')}`)
    .argParser(arg((s) => parseList(s, (a) => {
      if (!DEMO_ALGORITHMS.includes(a)) throw new Error(`unknown algorithm "${a}": use ${DEMO_ALGORITHMS.join(', ')}`);
      return a;
    }))))
  .option('--no-bench', 'checks only, no benchmark after them')
  .action(action((opts: DemoOptions) => demoCommand(opts)));

program.command('tune')
  .description('tuning campaign: enumerate config variants, compile, benchmark (Google Benchmark JSON, resumable), best config vs the default, then tables')
  .addOption(new Option('--algorithms <list>', 'algorithms (and threshold stages: radix_sort_threshold) to tune, comma-separated (default: every one in the settings; --plan lists them)').argParser(arg((s) => parseList(s, (a) => a))))
  .option('--settings <file>', 'settings: JSON, or a .js/.mjs module exporting settings or (deviceKind, device) => settings; merged over the defaults (--print-settings shows them)')
  .addOption(new Option('--strategy <name>', 'search strategy (auto: exhaustive for small groups, local above)').choices(['auto', 'exhaustive', 'random', 'local']))
  .option('--budget-seconds <n>', 'stop measuring after N seconds (resume later for the rest)', arg((s) => {
    const n = Number(s);
    if (!(n > 0)) throw new Error(`--budget-seconds must be a number > 0, got "${s}"`);
    return n;
  }))
  .option('--shard <i/n>', 'run shard i of n (0-based): every variant falls in exactly one shard')
  .option('--benchmark_out <file>', 'Google Benchmark JSON, written as it goes (default tune-results.json)')
  .option('--benchmark_out_format <fmt>', 'json (the only format written)')
  .option('--resume', 'skip what --benchmark_out already holds (the default when it exists)')
  .option('--no-resume', 'start over even if --benchmark_out exists (it is overwritten)')
  .option('--retry-errors', 'when resuming, measure again what failed')
  .option('--max-measurements <n>', 'stop after N new measurements', arg(parseInteger('max-measurements', 1)))
  .option('--plan', 'print the tuning plan (stages in dependency order) and exit')
  .option('--dry-run', 'print the campaign\'s plan (per stage: builds, pipelines, measurements, time) and exit; with --target no GPU is opened')
  .addOption(new Option('--target <profile>', 'with --dry-run: plan for this adapter instead of the one here').choices(['nvidia-h200', 'lavapipe']))
  .addOption(new Option('--space <which>', 'default: the few tile shapes per type the default campaign tunes; full: every algorithm\'s whole space').choices(['default', 'full']))
  .option('--print-settings', 'print the settings for this device (defaults merged with --settings) as JSON and exit')
  .option('--print-schema', 'print the JSON schema of the settings file and exit')
  .option('--out-basedir <dir>', 'write the tuned tables there: builtin (the package\'s modules in src/device/*/) or a folder (JSON) (default: only show them)')
  .option('--no-apply', 'make no tables; only measure')
  .option('--wall-clock', 'time batches with the host clock even if timestamp-query exists')
  .option('--cold', 'cold cache: clear a 256 MiB scratch buffer before each timed call (settings: coldCache true)')
  .option('-q, --quiet', 'no progress bars')
  .action(action((opts: TuneCommandOptions) => tuneCommand(opts)));

program.command('report')
  .description('a self-contained HTML page from Google Benchmark JSON: bs x ipt heatmaps, throughput against size, top configs, errors')
  .requiredOption('-b, --benchmark <files...>', 'Google Benchmark JSON files (wgprim bench/tune --benchmark_out)')
  .option('--out <file>', 'HTML file to write', 'report.html')
  .option('--defaults <file>', 'JSON array of default configs to mark: [{"algo":"scan","type":"u32","cfg":{"bs":256,...},"source":"heuristic"}]')
  .option('--no-device', 'do not open the local device to learn which configs are the defaults')
  .option('--title <text>', 'page title')
  .option('--top <n>', 'rows of the top-configs table', arg(parseInteger('top', 1)), 10)
  .action(action((opts: ReportCommandOptions) => reportCommand(opts)));

program.command('create-optimization')
  .description('benchmark JSON in, tuned tables out: the best config per (target, algorithm, type class), one generated module (+ JSON) per algorithm')
  .requiredOption('-b, --benchmark-files <files...>', 'Google Benchmark JSON files (or folders of them), one or more devices')
  .option('-p, --out-basedir <dir>', 'where the tables go: builtin (the package\'s modules in src/device/*/, the default in a checkout) or a folder (JSON)')
  .option('--no-merge', 'do not keep the rows already in the output folder for targets the data does not cover')
  .option('--no-vendor-level', 'no vendor-level rows (otherwise added where a vendor has 2+ measured devices)')
  .option('--dry-run', 'print what would be written')
  .action(action((opts: CreateOptimizationCommandOptions) => createOptimizationCommand(opts)));

program.command('apply-config-improvements')
  .description('keep a new tuned row only where it is faster than the old one by more than max(P, 1.96*sqrt(cv_old^2+cv_new^2)*100) percent')
  .requiredOption('--old-json-dir <dir>', 'benchmark JSON measured with the old configs')
  .requiredOption('--new-json-dir <dir>', 'benchmark JSON measured with the new configs (may be the same folder)')
  .requiredOption('--old-configs-dir <dir>', 'the old tables: a folder of <table>.json, or builtin (the package\'s own)')
  .requiredOption('--new-configs-dir <dir>', 'the new tables, as create-optimization wrote them')
  .requiredOption('--improved-configs-dir <dir>', 'where the improved tables go: a folder (JSON), or builtin (the package\'s modules in src/device/*/)')
  .requiredOption('--improvement-threshold-percentage <P>', 'least improvement worth a change, in percent', arg((s) => {
    const n = Number(s);
    if (!Number.isFinite(n) || n < 0) throw new Error(`--improvement-threshold-percentage must be a number >= 0, got "${s}"`);
    return n;
  }))
  .action(action((opts: ApplyImprovementsCommandOptions) => applyImprovementsCommand(opts)));

await program.parseAsync(process.argv);
