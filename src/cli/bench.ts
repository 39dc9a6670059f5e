// `wgprim bench`: times algorithms, writes Google Benchmark JSON, prints a table.
import fs from 'node:fs';
import path from 'node:path';
import { benchmarkAlgorithm, benchmarkSpec, expandAlgorithm, type BenchmarkOptions } from '../bench/run.js';
import { gbenchFile, type BenchRecord } from '../bench/gbench.js';
import { type ElementType } from '../wgsl/types.js';
import { type Prim } from '../prim.js';
import { TUNED_ALGORITHMS } from '../algorithms.js';
import { type CliDevice, hostFacts, openDevice } from './device.js';
import { benchTable, loadAnchors, packageAnchorsFile } from './table.js';
import { formatCount } from './parse.js';

export interface BenchCommandOptions {
  /** Benchmarks, tuning stages (`scan`: both scans) or `all`. */
  readonly algorithm: string[];
  readonly type: ElementType[];
  readonly size: number[];
  readonly seed: number;
  readonly warmup: number;
  readonly warmupMs: number;
  readonly batches: number;
  readonly batchSize: number;
  readonly config?: string;
  readonly benchmark_out?: string;
  readonly benchmark_out_format?: string;
  readonly anchors?: string;
  readonly wallClock?: boolean;
  /** --cold: flush the GPU's caches before each timed region. */
  readonly cold?: boolean;
  readonly quiet?: boolean;
  /** --tuned DIR: tuned tables from this folder over the built-in ones. */
  readonly tuned?: string;
  /** --settle-ms: host ms settling and re-measuring may add per benchmark (0: off). */
  readonly settleMs?: number;
}

type ConfigOverride = BenchmarkOptions['config'];

/**
 * `--config` JSON: either one partial config for every benchmark, or one per tuned table:
 * `{"scan": {...}, "reduce": {...}, "radixSort": {...}, "radixSortBlockSort": {...}, ...}`.
 */
export function configOverrides(json: string | undefined): (benchmark: string) => ConfigOverride {
  if (json === undefined) return () => undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch (err) {
    throw new Error(`--config is not JSON: ${(err as Error).message}`);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('--config must be a JSON object');
  const obj = parsed as Record<string, unknown>;
  const perTable = TUNED_ALGORITHMS.some((k) => k in obj);
  return (b) => (perTable ? (obj[benchmarkSpec(b).table.name] as ConfigOverride) : (obj as ConfigOverride));
}

/** Runs every (size, type, benchmark); one that fails is reported and skipped. `measured` sees the records after each. */
export async function runBenchmarks(
  prim: Prim, opts: BenchCommandOptions, log: (line: string, isError?: boolean) => void, measured?: (records: readonly BenchRecord[]) => void,
  stopRequested?: () => boolean,
): Promise<{ records: BenchRecord[]; failures: number }> {
  const algorithms = [...new Set(opts.algorithm.flatMap((a) => expandAlgorithm(a)))];
  const override = configOverrides(opts.config);
  const total = opts.size.length * opts.type.length * algorithms.length;
  const records: BenchRecord[] = [];
  let failures = 0;
  let done = 0;
  for (const size of opts.size) {
    for (const type of opts.type) {
      for (const algorithm of algorithms) {
        if (stopRequested?.()) return { records, failures };
        log(`[${++done}/${total}] ${algorithm} ${type} ${formatCount(size)}`);
        try {
          const common = {
            type, size, seed: opts.seed, warmup: opts.warmup, warmupMs: opts.warmupMs, batches: opts.batches, batchSize: opts.batchSize, forceWallClock: opts.wallClock, coldCache: opts.cold,
            settleMs: opts.settleMs,
          };
          const got = await benchmarkAlgorithm(prim, { ...common, algorithm, config: override(algorithm) });
          for (const r of got) {
            const warning = stabilityWarning(r);
            if (warning) log(warning, true);
          }
          records.push(...got);
          measured?.(records);
        } catch (err) {
          failures++;
          log(`${algorithm} ${type} ${formatCount(size)} failed: ${(err as Error).message}`, true);
        }
      }
    }
  }
  return { records, failures };
}

/** A warning line for a record whose timings did not settle or kept slow outliers, else undefined. */
export function stabilityWarning(r: BenchRecord): string | undefined {
  const st = r.stability;
  if (!st || st.stable) return undefined;
  return `warning: ${r.algorithm} ${r.type} ${formatCount(r.size)} is not stable: ${st.reason ?? 'unstable'} (cv ${r.stats.cv.toFixed(3)}); ` +
    'its figures may not repeat (a larger --settle-ms gives it longer)';
}

export function writeBenchmarkFile(file: string, dev: CliDevice, records: readonly BenchRecord[], opts: BenchCommandOptions): void {
  const timing = records[0]?.method ?? (!opts.wallClock && dev.device.features.has('timestamp-query') ? 'timestamp-query' : 'wall-clock');
  const out = gbenchFile(records, {
    adapterInfo: dev.adapterInfo,
    size: opts.size.length === 1 ? opts.size[0]! : opts.size,
    seed: opts.seed,
    batchIterations: opts.batchSize,
    warmupIterations: opts.warmup,
    warmupMs: opts.warmupMs,
    batches: opts.batches,
    timing,
    coldCache: opts.cold === true,
    settleMs: opts.settleMs,
  }, hostFacts());
  fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  fs.writeFileSync(file, JSON.stringify(out, null, 2) + '\n');
}

/**
 * The table, with a column of ratios to CUB where there are CUB figures: `anchorsFile`, or by
 * default the ones the package ships for this device (`anchors/cub-<device>.json`).
 */
export function printTable(dev: CliDevice, records: readonly BenchRecord[], anchorsFile: string | undefined): void {
  const file = anchorsFile !== undefined ? path.resolve(anchorsFile) : dev.prim.target.device ? packageAnchorsFile(dev.prim.target.device) : undefined;
  const anchors = file ? loadAnchors(file) : undefined;
  console.log(benchTable(records, anchors));
}

export async function benchCommand(opts: BenchCommandOptions): Promise<number> {
  if (opts.benchmark_out_format !== undefined && opts.benchmark_out_format !== 'json') {
    throw new Error(`--benchmark_out_format ${opts.benchmark_out_format}: only json is written`);
  }
  const dev = await openDevice(opts.tuned);
  const log = (line: string, isError = false): void => {
    if (isError || !opts.quiet) process.stderr.write(line + '\n');
  };
  // The file holds every record as soon as it is measured, and an interrupt stops the run after
  // the benchmark under way (exiting with GPU work in flight can crash the process), which then
  // ends as usual with the table of what was measured: a run cut short (a time limit) keeps its
  // figures. A second interrupt exits at once.
  const out = opts.benchmark_out;
  let interrupted: NodeJS.Signals | undefined;
  const onSignal = (sig: NodeJS.Signals): void => {
    if (interrupted) process.exit(130);
    interrupted = sig;
    process.stderr.write(`\n${sig}: stopping after the benchmark under way (again to quit at once)\n`);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  let result: Awaited<ReturnType<typeof runBenchmarks>>;
  try {
    result = await runBenchmarks(dev.prim, opts, log, (records) => {
      if (out) writeBenchmarkFile(out, dev, records, opts);
    }, () => interrupted !== undefined);
  } finally {
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
  }
  const { records, failures } = result;
  if (out) {
    writeBenchmarkFile(out, dev, records, opts);
    log(`wrote ${out}`);
  }
  if (records.length) printTable(dev, records, opts.anchors);
  if (interrupted) {
    process.stderr.write(`${interrupted}: stopped after ${records.length} records${out ? `, all in ${out}` : ''}\n`);
    return 130;
  }
  return failures ? 1 : 0;
}
