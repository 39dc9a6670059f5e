// `wgprim tune`: the tuning campaign (settings -> variants -> build -> run), written as Google
// Benchmark JSON after every measurement, then the best config per algorithm and type against
// the configs used today, then tables through create-optimization.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import cliProgress, { type SingleBar } from 'cli-progress';
import { describeTarget } from '../runtime/target.js';
import { type CampaignResult, type CampaignStart, type ProgressEvent, type SummaryRow, runCampaign, summaryTypeLabel } from '../tune/campaign.js';
import { formatPlan, planStages } from '../tune/plan.js';
import { THRESHOLD_STAGES, tunable, tunableAlgorithms } from '../tune/registry.js';
import { type DeviceKind, type SpaceChoice, type StrategyName, type TuneSettings, defaultSettings, deviceKindOf, mergeSettings } from '../tune/settings.js';
import { settingsJsonSchema } from '../tune/settings-schema.js';
import { type Shard, parseShard } from '../tune/variants.js';
import { type TuneFile } from '../tune/results.js';
import { createOptimization, formatGroups } from '../tune/create-optimization.js';
import { BUILTIN_TABLES, outputPlace, packageSourceDir, readTablesDir, writeOutputs } from '../node/tables.js';
import { hostFacts, openDevice } from './device.js';
import { formatCount } from './parse.js';
import { renderTable } from './table.js';
import { typeClassLabel } from '../tune/measurements.js';
import { type Prim } from '../prim.js';
import { type CampaignPlan, formatCampaignPlan, formatSeconds, formatStageTimes, planFor } from '../tune/campaign-plan.js';
import { profilePrim, targetProfile } from '../tune/profiles.js';
import { configChange, shortSource, wrapList } from '../tune/text.js';

export interface TuneCommandOptions {
  readonly algorithms?: string[];
  readonly settings?: string;
  readonly strategy?: StrategyName | 'auto';
  readonly budgetSeconds?: number;
  readonly shard?: string;
  readonly benchmark_out?: string;
  readonly benchmark_out_format?: string;
  /** true: --resume, false: --no-resume, undefined: resume when the file exists. */
  readonly resume?: boolean;
  readonly retryErrors?: boolean;
  readonly maxMeasurements?: number;
  readonly plan?: boolean;
  /** Print the campaign's plan (builds, pipelines, measurements, time per stage) and exit. */
  readonly dryRun?: boolean;
  /** With --dry-run: an adapter profile to plan for (no GPU opened). */
  readonly target?: string;
  /** `full`: every algorithm's whole space instead of the default campaign's. */
  readonly space?: SpaceChoice;
  readonly printSettings?: boolean;
  readonly printSchema?: boolean;
  readonly outBasedir?: string;
  /** false with --no-apply. */
  readonly apply?: boolean;
  readonly wallClock?: boolean;
  /** --cold: settings.coldCache = true. */
  readonly cold?: boolean;
  readonly quiet?: boolean;
}

/** The default output file: `tune-results.json`, or `tune-results-<i>of<n>.json` for a shard. */
export function defaultOutFile(shard: Shard | undefined): string {
  return shard && shard.count > 1 ? `tune-results-${shard.index}of${shard.count}.json` : 'tune-results.json';
}

export interface LoadedSettings {
  readonly settings: TuneSettings;
  /** The algorithms (and threshold stages) the user's settings name, where they name any. */
  readonly named?: readonly string[];
}

/**
 * A user's settings: a JSON file, or a .js/.mjs module whose default export (or `settings`
 * export) is a settings object or a function `(deviceKind, device) => settings`. Merged over
 * the defaults for this device.
 */
export async function loadSettings(file: string | undefined, kind: DeviceKind, prim: Prim, space: SpaceChoice = 'default'): Promise<LoadedSettings> {
  const base = defaultSettings(kind, space);
  if (!file) return { settings: base };
  const abs = path.resolve(file);
  if (!fs.existsSync(abs)) throw new Error(`--settings ${file}: no such file`);
  let input: unknown;
  if (/\.(m?js|cjs)$/.test(abs)) {
    const mod = (await import(pathToFileURL(abs).href)) as { default?: unknown; settings?: unknown };
    input = mod.default ?? mod.settings;
    if (typeof input === 'function') {
      input = await (input as (k: DeviceKind, d: unknown) => unknown)(kind, { target: prim.target, features: [...prim.context.features], limits: prim.context.limits, defaults: base });
    }
    if (input === undefined) throw new Error(`--settings ${file}: the module exports neither a default nor "settings"`);
  } else {
    try {
      input = JSON.parse(fs.readFileSync(abs, 'utf8'));
    } catch (err) {
      throw new Error(`--settings ${file}: ${(err as Error).message}`);
    }
  }
  const algorithms = (input as { algorithms?: unknown } | null)?.algorithms;
  const named = algorithms !== null && typeof algorithms === 'object' ? Object.keys(algorithms) : [];
  return { settings: mergeSettings(base, input), ...(named.length > 0 ? { named } : {}) };
}

/** Writes the file through a temporary file and a rename, so an interrupted write never leaves half a file. */
function writeAtomic(file: string, data: TuneFile): void {
  fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const tmp = `${file}.tmp-${process.pid}`;
  fs.writeFileSync(tmp, JSON.stringify(data, null, 1) + '\n');
  fs.renameSync(tmp, file);
}

/**
 * The summary, one block per algorithm, within 100 columns: the default's source and score, and
 * what the best config changes from it (`ipt:16 bs:512`; the JSON file holds every config whole).
 */
export function summaryTable(rows: readonly SummaryRow[]): string {
  const g = (x: number | undefined): string => (x === undefined ? '-' : (x / 1e9).toFixed(3));
  const header = ['  type', 'configs', 'default', 'Gitems/s', 'best: what differs', 'Gitems/s', 'cv', 'best/def'];
  const blocks: string[] = [];
  for (const algorithm of [...new Set(rows.map((r) => r.algorithm))]) {
    const table = tunable(algorithm).table ?? algorithm;
    const body = rows.filter((r) => r.algorithm === algorithm).map((r) => [
      `  ${summaryTypeLabel(r)}`, `${r.measured}${r.failed ? ` +${r.failed}!` : ''}`,
      r.selected ? shortSource(r.selected.source) : '-', g(r.selected?.score),
      r.best ? (r.selected ? configChange(table, r.best.config, r.selected.config, 30) : configChange(table, r.best.config, {}, 30)) : '-', g(r.best?.score), r.best ? r.best.cv.toFixed(3) : '-',
      r.ratio === undefined ? '-' : `${r.ratio.toFixed(3)}x`,
    ]);
    blocks.push(`${algorithm} (${rows.find((r) => r.algorithm === algorithm)!.strategy})\n${renderTable(header, body, new Set([1, 3, 5, 6, 7]))}`);
  }
  return blocks.join('\n');
}

/** Two bars (build, run) with count, rate and ETA; on a non-terminal, a line every 10 s. */
function progressBars(quiet: boolean | undefined): { update: (e: ProgressEvent) => void; stop: () => void } {
  if (quiet) return { update: () => undefined, stop: () => undefined };
  const multi = new cliProgress.MultiBar({
    format: '{phase} |{bar}| {value}/{total} | {rate}/s | ETA {eta_formatted} | {group}',
    barsize: 24,
    hideCursor: true,
    clearOnComplete: false,
    stopOnComplete: false,
    etaBuffer: 50,
    noTTYOutput: true,
    notTTYSchedule: 10_000,
    stream: process.stderr,
  }, cliProgress.Presets.shades_classic);
  const bars = new Map<string, { bar: SingleBar; start: number }>();
  return {
    update: (e) => {
      let b = bars.get(e.phase);
      if (!b) {
        b = { bar: multi.create(e.total, 0, { phase: e.phase.padEnd(5), rate: '0.0', group: e.group }), start: performance.now() };
        bars.set(e.phase, b);
      }
      const seconds = (performance.now() - b.start) / 1e3;
      b.bar.setTotal(e.total);
      b.bar.update(e.done, { rate: seconds > 0 ? (e.done / seconds).toFixed(1) : '0.0', group: e.group });
    },
    stop: () => multi.stop(),
  };
}

function printStart(info: CampaignStart, budgetSeconds?: number): void {
  const v = info.variants;
  const lines = [`variants ${v.kept} kept of ${v.total} enumerated in ${v.groups.length} (algorithm, type) groups; ${v.dropped.length} dropped`];
  for (const { reason, count } of v.reasons.slice(0, 8)) lines.push(`  dropped ${String(count).padStart(4)}: ${reason}`);
  if (v.reasons.length > 8) lines.push(`  ... and ${v.reasons.length - 8} other reasons`);
  for (const s of v.skipped) lines.push(`  skipped ${s}`);
  lines.push('plan (the default and heuristic configs always included):', ...formatCampaignPlan(info.plan, budgetSeconds));
  if (info.existing) lines.push(`resume   ${info.existing} entries already in the file are not measured again`);
  console.log(lines.join('\n'));
}

/** `wgprim tune --dry-run`: the plan, on this device or (`--target`) an adapter profile. */
async function dryRun(opts: TuneCommandOptions): Promise<number> {
  const prim = opts.target ? profilePrim(targetProfile(opts.target)) : (await openDevice()).prim;
  const kind = deviceKindOf(prim.target);
  const { settings } = await loadSettings(opts.settings, kind, prim, opts.space);
  const shard = opts.shard ? parseShard(opts.shard) : undefined;
  const { set, plan } = planFor(prim, settings, { algorithms: opts.algorithms, strategy: opts.strategy, shard });
  console.log(`adapter  ${describeTarget(prim.target)}${opts.target ? ' (profile)' : ''}: ${kind === 'cpu' ? 'CPU adapter, small default space' : `GPU, ${opts.space === 'full' ? 'full' : 'default'} space`}`);
  console.log(`variants ${set.kept} kept of ${set.total} enumerated in ${set.groups.length} (algorithm, type) groups; ${set.dropped.length} dropped`);
  console.log(formatCampaignPlan(plan, opts.budgetSeconds ?? settings.budgetSeconds).join('\n'));
  return 0;
}

/** Tables from this run's file through create-optimization: written to --out-basedir (`builtin`: the package's), or only shown. */
function applyTables(file: TuneFile, out: string, opts: TuneCommandOptions): void {
  const place = opts.outBasedir ?? (packageSourceDir() ? BUILTIN_TABLES : undefined);
  const where = place ? outputPlace(place) : undefined;
  const result = createOptimization([{ data: file, label: path.basename(out) }], {
    existing: place ? readTablesDir(place).tables : undefined,
    form: where?.form ?? 'json',
  });
  for (const w of result.warnings) process.stderr.write(`warning: ${w}\n`);
  if (result.groups.length) console.log(`\ntuned rows from this run (whole configs in the tables):\n${formatGroups(result.groups)}`);
  if (!result.outputs.length) {
    console.log('no rows to write');
    return;
  }
  if (!opts.outBasedir || !where) {
    console.log(`would write ${result.outputs.map((o) => (where ? path.join(where.dir, o.name) : o.name)).join(', ')}`);
    console.log(`(not written: pass --out-basedir ${BUILTIN_TABLES} for the package's tables, or --out-basedir DIR for JSON tables; or run wgprim create-optimization -b ${out})`);
    return;
  }
  for (const f of writeOutputs(where.dir, result.outputs)) console.log(`wrote ${f}`);
}

export async function tuneCommand(opts: TuneCommandOptions): Promise<number> {
  if (opts.plan) {
    console.log('tuning plan (stages in dependency order; pending = the algorithm does not exist yet):');
    console.log(formatPlan(planStages()).join('\n'));
    return 0;
  }
  if (opts.dryRun) return dryRun(opts);
  if (opts.printSchema) {
    console.log(JSON.stringify(settingsJsonSchema(), null, 2));
    return 0;
  }
  if (opts.benchmark_out_format !== undefined && opts.benchmark_out_format !== 'json') {
    throw new Error(`--benchmark_out_format ${opts.benchmark_out_format}: only json is written`);
  }
  const shard = opts.shard ? parseShard(opts.shard) : undefined;
  const dev = await openDevice();
  const kind = deviceKindOf(dev.prim.target);
  const { settings: loaded, named } = await loadSettings(opts.settings, kind, dev.prim, opts.space);
  const settings: TuneSettings = opts.cold ? { ...loaded, coldCache: true } : loaded;
  if (opts.printSettings) {
    console.log(JSON.stringify(settings, (_k, v: unknown) => (typeof v === 'function' ? `[function]` : v), 2));
    return 0;
  }
  const known = [...tunableAlgorithms().map((a) => a.name), ...THRESHOLD_STAGES];
  for (const a of opts.algorithms ?? []) if (!known.includes(a)) throw new Error(`--algorithms: no tunable algorithm "${a}" (known: ${known.join(', ')})`);
  const out = opts.benchmark_out ?? defaultOutFile(shard);
  const exists = fs.existsSync(out);
  const resume = opts.resume ?? exists;
  if (opts.resume && !exists) process.stderr.write(`--resume: ${out} does not exist yet; starting a new campaign\n`);
  let existing: unknown;
  if (resume && exists) {
    try {
      existing = JSON.parse(fs.readFileSync(out, 'utf8'));
    } catch (err) {
      throw new Error(`cannot resume from ${out}: ${(err as Error).message} (move it away, or pass --no-resume to start over)`);
    }
  }

  console.log(`adapter  ${describeTarget(dev.prim.target)}: ${kind === 'cpu' ? 'CPU adapter, small default space' : `GPU, ${opts.space === 'full' ? 'full' : 'default'} space`}${opts.settings ? `; settings ${opts.settings}` : ''}`);
  // Settings merge over the defaults, so a file that names a few algorithms still runs the
  // defaults' others: say so, since a campaign that was meant to be short may run for hours.
  const unnamed = named && !opts.algorithms ? Object.keys(settings.algorithms).filter((a) => !named.includes(a)) : [];
  if (named && unnamed.length > 0) {
    console.log(`note     the settings name ${named.join(', ')}; ${unnamed.join(', ')} come from the defaults and run too (--algorithms ${named.join(',')} runs only the named)`);
  }
  const sizes = [...new Set(Object.entries(settings.algorithms).filter(([a]) => !opts.algorithms || opts.algorithms.includes(a)).flatMap(([, a]) => a.sizes))].sort((x, y) => x - y);
  console.log(`output   ${out}${existing ? ' (resumed: what it holds is not measured again)' : ''}; sizes ${sizes.map(formatCount).join(', ')}; seed ${settings.seed}; ${settings.warmup} warm-up, ${settings.batches}x${settings.batchSize} timed calls${settings.coldCache ? ', cold cache' : ''}${shard ? `; shard ${shard.index}/${shard.count}` : ''}`);

  const bars = progressBars(opts.quiet);
  const lines: string[] = [];
  // Wall time by stage against the plan, printed at the end or on an interrupt: what to narrow.
  let plan: CampaignPlan | undefined;
  const took = new Map<string, number>();
  const addTime = (stage: string, ms: number): void => void took.set(stage, (took.get(stage) ?? 0) + ms);
  // The group an interrupt cuts short: its stage (from its measurements) and start.
  let measuring: string | undefined;
  let groupStart = performance.now();
  let lastStage: string | undefined;
  const stageDone = (stage: string): void => {
    const planned = plan?.stages.find((s) => s.stage === stage);
    process.stderr.write(`stage ${stage} took ${formatSeconds((took.get(stage) ?? 0) / 1e3)}${planned ? ` (planned ${formatSeconds(planned.buildSeconds + planned.measureSeconds)})` : ''}\n`);
  };
  const printStageTimes = (): void => {
    if (plan && took.size) console.log(['time by stage (seconds):', ...formatStageTimes(plan, took)].join('\n'));
  };
  let lastWrite = 0;
  let latest: TuneFile | undefined;
  const flush = (): void => {
    if (latest) writeAtomic(out, latest);
    lastWrite = performance.now();
  };
  // An interrupt stops the campaign after the measurement under way (exiting with GPU work in
  // flight can crash the process), which then ends as a spent budget does: the file written,
  // stage times printed. A second one exits at once, the file written first.
  let interrupted: NodeJS.Signals | undefined;
  const onSignal = (sig: NodeJS.Signals): void => {
    if (interrupted) {
      bars.stop();
      flush();
      if (measuring) addTime(measuring, performance.now() - groupStart);
      printStageTimes();
      process.stderr.write(`\n${sig}: ${out} holds what was measured; run the same command again to resume\n`);
      process.exit(130);
    }
    interrupted = sig;
    process.stderr.write(`\n${sig}: stopping after the measurement under way (again to quit at once)\n`);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  let result: CampaignResult;
  try {
    result = await runCampaign(dev.prim, {
      settings,
      algorithms: opts.algorithms,
      strategy: opts.strategy,
      budgetSeconds: opts.budgetSeconds,
      shard,
      existing,
      existingLabel: out,
      retryErrors: opts.retryErrors,
      maxMeasurements: opts.maxMeasurements,
      adapterInfo: dev.adapterInfo,
      host: hostFacts(),
      forceWallClock: opts.wallClock,
      stopRequested: () => interrupted !== undefined,
      onProgress: (e) => {
        if (e.phase === 'run') measuring = e.stage;
        bars.update(e);
      },
      onStart: (info) => {
        plan = info.plan;
        printStart(info, opts.budgetSeconds ?? settings.budgetSeconds);
      },
      onGroupDone: (e) => {
        // Without bars, a line as each stage ends: the log keeps the times if the process is killed.
        if (opts.quiet && lastStage !== undefined && e.stage !== lastStage) stageDone(lastStage);
        lastStage = e.stage;
        addTime(e.stage, e.ms);
        measuring = undefined;
        groupStart = performance.now();
      },
      onUpdate: (f) => {
        latest = f;
        // Every new entry is on disk within a quarter second (big files are not rewritten more often).
        if (performance.now() - lastWrite > 250) flush();
      },
      log: (line) => lines.push(line),
    });
  } finally {
    bars.stop();
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
  }
  latest = result.file;
  flush();

  for (const l of lines) console.log(`  ${l}`);
  const planned = result.measured + result.skipped;
  console.log(`measured ${result.measured}${planned !== result.measured ? ` of ${planned} planned` : ''}; ${result.errors} errors; reused ${result.reused} from the file; wrote ${out}`);
  if (result.skipped) console.log(`  ${result.skipped} not needed: threshold paths past their crossover or without a config here; converged searches`);
  const rate = result.buildMs > 0 ? ` (${(result.built / (result.buildMs / 1e3)).toFixed(1)} variants/s)` : '';
  console.log(`time     ${(result.elapsedMs / 1e3).toFixed(1)} s: building ${(result.buildMs / 1e3).toFixed(1)} s for ${result.built} variants${rate}, measuring ${(result.measureMs / 1e3).toFixed(1)} s`);
  printStageTimes();
  if (result.stopped) console.log(`stopped early: ${result.stopped.message}; run the same command again to resume`);
  if (result.summary.length) {
    console.log('\nbest config against the default (geomean of items/s over sizes, benchmarks; configs in the JSON):');
    console.log(summaryTable(result.summary));
  }
  if (result.thresholds.length) {
    console.log('\nradix_sort_threshold (maxCount of the radixSortBlockSort rows: the largest size where block sort beat onesweep beyond the noise rule):');
    const pct = (x: number): string => `${x >= 0 ? '+' : ''}${x.toFixed(0)}%`;
    for (const t of result.thresholds) {
      const head = t.maxCount ? `maxCount ${t.maxCount}` : 'maxCount 0: block sort never faster, onesweep takes every size';
      const pts = t.points.map((p) => `${formatCount(p.size)} ${p.blockSortFaster ? 'block' : 'lsd'} ${pct(p.changePercent)}`);
      console.log(wrapList(`  ${typeClassLabel(t.typeClass)}: ${head} (block sort against the LSD path:`, [...pts.slice(0, -1), `${pts.at(-1)})`]).join('\n'));
      if (t.lookback) {
        const n = t.lookback.decoupledMaxCount;
        const lhead = n ? `decoupledMaxCount ${n}` : `decoupledMaxCount 0: decoupled look-back never faster than ${t.onesweepConfig.lookback}`;
        const lpts = t.lookback.points.map((p) => `${formatCount(p.size)} ${p.decoupledFaster ? 'dec' : 'rts'} ${pct(p.changePercent)}`);
        console.log(wrapList(`  ${typeClassLabel(t.typeClass)}: ${lhead} (decoupled against ${t.onesweepConfig.lookback}:`, [...lpts.slice(0, -1), `${lpts.at(-1)})`]).join('\n'));
      }
    }
  }

  const stoppedCode = result.stopped?.reason === 'interrupt' ? 130 : 1;
  if (opts.apply === false) return result.stopped ? stoppedCode : 0;
  if (result.stopped) {
    console.log('\ntables: not made from an unfinished campaign (resume it first)');
  } else if (shard && shard.count > 1) {
    console.log(`\ntables: one shard holds part of the campaign; when all are done: wgprim create-optimization -b ${defaultOutFile(shard).replace(/-\d+of/, '-*of')} --out-basedir DIR`);
  } else {
    applyTables(result.file, out, opts);
  }
  return result.stopped ? stoppedCode : 0;
}
