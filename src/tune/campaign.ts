// `wgprim tune` as a library function: settings -> variants -> build -> run, with a search
// strategy per (algorithm, type), sharding, resume from an earlier file, a time budget, and a
// summary of the best config found against the configs used today. Browser-safe: the caller
// reads and writes files (`onUpdate` hands over the whole file after every measurement).
import { WgprimError } from '../runtime/errors.js';
import { type AdapterInfoLike, hasForwardProgress } from '../runtime/target.js';
import { type ElementType, typeInfo } from '../wgsl/types.js';
import { type Prim } from '../prim.js';
import { type GBenchEntry, type HostFacts, gbenchContext, parseName } from '../bench/gbench.js';
import { type ConfigObject, configText, isThresholdStage, isTuneStage, parseBenchmarkName, tunable } from './registry.js';
import { type StrategyName, type TuneSettings, resolveSettings } from './settings.js';
import { type Shard, type Variant, type VariantGroup, type VariantSet, enumerateVariants, groupInShard, inShard } from './variants.js';
import { type Score, exhaustiveCandidates, localSearch, randomCandidates, strategyFor } from './strategy.js';
import { planOrder } from './plan.js';
import { analyze } from './create-optimization.js';
import { readMeasurements, valueClassLabel } from './measurements.js';
import { decoupledVariant, measureRadixSortThreshold, pathDone, type PathFigures, pathOutcome, type PathOutcome, radixSortThresholdName, readThresholds, THRESHOLD_PATHS, type ThresholdPath, type ThresholdResult, type ThresholdValueBytes, thresholdValueBytes } from './threshold.js';
import { type RadixSortBlockSortConfig } from '../device/radix-sort/block-sort-config.js';
import { type RadixSortConfig } from '../device/radix-sort/config.js';
import { ResultStore, type TuneEntry, type TuneFile, checkSameAdapter, checkSameCacheState, existingEntries, isErrorEntry, entryKey } from './results.js';

export interface ProgressEvent {
  /** `build`: a variant's pipelines compiled and run once; `run`: one measurement done. */
  readonly phase: 'build' | 'run';
  readonly done: number;
  /** Known or estimated total (local search grows it as it goes). */
  readonly total: number;
  /** `algorithm type` of the group at work. */
  readonly group: string;
}

export interface CampaignOptions {
  readonly settings: TuneSettings;
  /** Algorithms to tune (default: every tunable one in the settings), run in plan order. */
  readonly algorithms?: readonly string[];
  /** Overrides the settings' strategy. */
  readonly strategy?: StrategyName | 'auto';
  /** Overrides the settings' budget: stop measuring after this many seconds. */
  readonly budgetSeconds?: number;
  readonly shard?: Shard;
  /** A parsed earlier file of this campaign: what it holds is not measured again. */
  readonly existing?: unknown;
  /** Where `existing` came from, for messages. */
  readonly existingLabel?: string;
  /** Measure again what `existing` holds as an error (default: an error counts as done). */
  readonly retryErrors?: boolean;
  /** Stop after this many new measurements (each (variant, benchmark, size), errors included). */
  readonly maxMeasurements?: number;
  /** The adapter, for the file's context (and to refuse resuming another adapter's file). */
  readonly adapterInfo: AdapterInfoLike;
  readonly host?: HostFacts;
  readonly forceWallClock?: boolean;
  /**
   * Milliseconds of untimed measurements that keep the device busy before the first timed one
   * of a (type, size) and after each build step (default 500; see SETTLE_MS).
   */
  readonly settleMs?: number;
  readonly onProgress?: (e: ProgressEvent) => void;
  /** Called once the variants are enumerated and each group's strategy chosen, before anything is built. */
  readonly onStart?: (info: CampaignStart) => void;
  /** Called with the whole file after every new entry: write it, so an interrupted campaign keeps its work. */
  readonly onUpdate?: (file: TuneFile) => void | Promise<void>;
  readonly log?: (line: string) => void;
  /** Milliseconds clock (default `performance.now`). */
  readonly now?: () => number;
}

export interface CampaignStart {
  readonly variants: VariantSet;
  /** Per group: its strategy, and the variants this shard measures (local search: an estimate). */
  readonly groups: readonly { readonly label: string; readonly strategy: StrategyName; readonly variants: number; readonly baselines: number }[];
  /** Measurements to make (local search: an estimate), and those the existing file already holds. */
  readonly pending: number;
  readonly existing: number;
}

/** One config's figures in a summary row: geometric mean of items/s over every (benchmark, size) of the row. */
export interface ConfigScore {
  readonly config: ConfigObject;
  readonly score: number;
  /** Largest cv over its points. */
  readonly cv: number;
}

/**
 * One row of the summary: per (algorithm, type), and for the sorts per value class too (their
 * tables keep a row per class: `valueBytes`), so a row compares configs the way its table does.
 */
export interface SummaryRow {
  readonly algorithm: string;
  readonly type: ElementType;
  /**
   * Sorts: the value class this row covers (bytes of values; 0 keys only, 4 pairs with u32
   * values), as the rows it corresponds to (`typeClass.valueBytes`); `benchmarks` are that
   * class's only. Absent for algorithms without value classes. See `summaryTypeLabel`.
   */
  readonly valueBytes?: number;
  readonly strategy: StrategyName;
  readonly sizes: readonly number[];
  /** The benchmarks the row scores (a sort row: those of its value class). */
  readonly benchmarks: readonly string[];
  /** Configs measured at every point of the row. */
  readonly measured: number;
  /** Configs with an error at some point. */
  readonly failed: number;
  /** The config a call selects today, and where it comes from. */
  readonly selected?: ConfigScore & { readonly source: string };
  /** The heuristic's config (the same as `selected` where no tuned row applies). */
  readonly heuristic?: ConfigScore;
  readonly best?: ConfigScore;
  /** best / selected, both measured in this file. */
  readonly ratio?: number;
}

export type StopReason = 'budget' | 'limit' | 'device-lost';

export interface CampaignResult {
  readonly file: TuneFile;
  readonly variants: VariantSet;
  readonly summary: readonly SummaryRow[];
  /** New measurements (errors included). */
  readonly measured: number;
  /** New error entries. */
  readonly errors: number;
  /** Measurements found in `existing` and not repeated. */
  readonly reused: number;
  /** The threshold stages' results (radix_sort_threshold), from every threshold entry in the file. */
  readonly thresholds: readonly ThresholdResult[];
  /** Why the campaign stopped before the end, if it did. */
  readonly stopped?: { readonly reason: StopReason; readonly message: string };
  readonly elapsedMs: number;
}

/** Thrown inside a campaign to end it early; `runCampaign` catches it and reports `stopped`. */
export class StopCampaign extends Error {
  constructor(readonly reason: StopReason, message: string) {
    super(message);
  }
}

const geomean = (xs: readonly number[]): number => Math.exp(xs.reduce((s, x) => s + Math.log(x), 0) / xs.length);
const groupLabel = (g: { algorithm: string; type: string }): string => `${g.algorithm} ${g.type}`;
const message = (err: unknown): string => String((err as Error)?.message ?? err).split('\n')[0]!.slice(0, 500) || 'unknown error';

/** Runs `fn` over `items`, at most `limit` at a time, in order of start. */
async function pool<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

export async function runCampaign(prim: Prim, o: CampaignOptions): Promise<CampaignResult> {
  const now = o.now ?? (() => performance.now());
  const started = now();
  const log = o.log ?? (() => undefined);
  const s = o.settings;
  // How every measurement is timed (the settling runs time one batch, cache warm).
  const timing = { seed: s.seed, warmup: s.warmup, warmupMs: s.warmupMs, batches: s.batches, batchSize: s.batchSize, forceWallClock: o.forceWallClock, coldCache: s.coldCache };
  const strategyName = o.strategy ?? s.strategy;
  const budget = o.budgetSeconds ?? s.budgetSeconds;
  const deadline = budget !== undefined ? started + budget * 1000 : Infinity;
  const algorithms = planOrder((o.algorithms ?? Object.keys(s.algorithms)).filter((a) => {
    if (!isTuneStage(a)) throw new WgprimError('invalid-argument', `no tunable algorithm "${a}"`);
    return true;
  }));
  const resolved = resolveSettings(s, prim.context, algorithms);
  const set = enumerateVariants(prim, resolved);
  // Threshold stages run after every group (the plan puts them after the stages they read).
  const thresholdStages = resolved.filter((r) => isThresholdStage(r.name) && (!o.shard || o.shard.index === 0));
  const label = o.existingLabel ?? 'the existing benchmark file';
  if (o.existing !== undefined) {
    checkSameAdapter(o.existing, o.adapterInfo, label);
    checkSameCacheState(o.existing, s.coldCache === true, label);
  }
  const store = new ResultStore(o.existing !== undefined ? existingEntries(o.existing, label) : []);
  const device = prim.device;

  let measured = 0;
  let errors = 0;
  let reused = 0;
  const progress = { build: { done: 0, total: 0 }, run: { done: 0, total: 0 } };
  const report = (phase: 'build' | 'run', g: { algorithm: string; type: string }): void => {
    const p = progress[phase];
    p.total = Math.max(p.total, p.done);
    o.onProgress?.({ phase, done: p.done, total: p.total, group: groupLabel(g) });
  };

  const file = (): TuneFile => {
    const sizes = store.sizes;
    const context = gbenchContext({
      adapterInfo: o.adapterInfo,
      size: sizes.length === 1 ? sizes[0]! : sizes,
      seed: s.seed,
      batchIterations: s.batchSize,
      warmupIterations: s.warmup,
      batches: s.batches,
      timing: !o.forceWallClock && device.features.has('timestamp-query') ? 'timestamp-query' : 'wall-clock',
      coldCache: s.coldCache === true,
    }, o.host);
    return {
      context: { ...context, tune_strategy: strategyName, tune_shard: o.shard ? `${o.shard.index}/${o.shard.count}` : '0/1', tune_algorithms: algorithms.join(',') },
      benchmarks: store.entries,
    };
  };

  // The (benchmark, size) points of a variant, and whether each still needs measuring.
  const pointsOf = (g: VariantGroup, v: Variant): VariantPoint[] => variantPoints(g, v.config);
  const needs = (name: string, size: number): boolean => {
    const e = store.get(name, size);
    return !e || (o.retryErrors === true && isErrorEntry(e));
  };
  const pendingOf = (g: VariantGroup, v: Variant): number => pointsOf(g, v).filter((p) => needs(p.name, p.size)).length;
  const scoreOf = (g: VariantGroup, v: Variant): Score => variantScore(g, v, (name, size) => store.get(name, size));

  const checkBudget = (): void => {
    if (now() > deadline) throw new StopCampaign('budget', `the budget of ${budget} s is spent`);
  };
  const checkLimit = (): void => {
    if (o.maxMeasurements !== undefined && measured >= o.maxMeasurements) throw new StopCampaign('limit', `stopped after ${measured} measurements (the limit)`);
  };
  const updated = async (): Promise<void> => {
    await o.onUpdate?.(file());
  };

  // Small buffers for the build step's calls, per type.
  const small = new Map<ElementType, { input: GPUBuffer; output: GPUBuffer; count: number }>();
  const smallBuffers = (type: ElementType, count: number): { input: GPUBuffer; output: GPUBuffer; count: number } => {
    const have = small.get(type);
    if (have && have.count >= count) return { ...have, count };
    have?.input.destroy();
    have?.output.destroy();
    const bytes = Math.ceil((count * typeInfo(type).bytes) / 4) * 4;
    const usage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST;
    const b = { input: device.createBuffer({ label: 'wgprim.tune.build.input', size: bytes, usage }), output: device.createBuffer({ label: 'wgprim.tune.build.output', size: bytes, usage }), count };
    small.set(type, b);
    return b;
  };

  /**
   * Build: compile the variants' pipelines, `buildConcurrency` at a time (recording a call
   * compiles every pipeline it needs), then run one small call of each with error scopes
   * around it (drivers that compile at first use, as lavapipe does, compile here). Returns what
   * failed, with why, per variant and benchmark (`buildKey`): a sort config whose tile fits
   * workgroup memory with keys only fails its pairs benchmark alone, and its keys are measured.
   */
  const buildKey = (v: Variant, benchmark: string): string => `${v.key}|${benchmark}`;
  const build = async (g: VariantGroup, vs: readonly Variant[]): Promise<Map<string, string>> => {
    const alg = tunable(g.algorithm);
    const failed = new Map<string, string>();
    if (!vs.length) return failed;
    const count = Math.max(...vs.map((v) => alg.fullCoverageCount(v.config)));
    const buffers = smallBuffers(g.type, count);
    const at = (v: Variant): { input: GPUBuffer; output: GPUBuffer; count: number } => ({ ...buffers, count: alg.fullCoverageCount(v.config) });
    await pool(vs, s.buildConcurrency, async (v) => {
      for (const b of g.benchmarks) {
        try {
          await alg.record(prim, device.createCommandEncoder({ label: 'wgprim.tune.compile' }), at(v), g.type, v.config, b);
        } catch (err) {
          failed.set(buildKey(v, b), message(err));
        }
      }
    });
    for (const v of vs) {
      for (const b of g.benchmarks) {
        if (failed.has(buildKey(v, b))) continue;
        checkBudget();
        device.pushErrorScope('internal');
        device.pushErrorScope('out-of-memory');
        device.pushErrorScope('validation');
        let thrown: unknown;
        try {
          const enc = device.createCommandEncoder({ label: 'wgprim.tune.build' });
          await alg.record(prim, enc, at(v), g.type, v.config, b);
          device.queue.submit([enc.finish()]);
          await device.queue.onSubmittedWorkDone();
        } catch (err) {
          thrown = err;
        }
        const scoped = [await device.popErrorScope(), await device.popErrorScope(), await device.popErrorScope()].find((e) => e);
        if (thrown || scoped) failed.set(buildKey(v, b), thrown ? message(thrown) : `WebGPU error: ${message(scoped)}`);
        if ((thrown as WgprimError)?.code === 'device-lost') throw new StopCampaign('device-lost', message(thrown));
      }
      progress.build.done++;
      report('build', g);
    }
    return failed;
  };

  // The (type, size) measured last. The first measurements after new buffers or a build step
  // ran slower than the same config measured again (lavapipe, 2026-11-29: up to 3x for the
  // whole measurement; H200, same day: 3.5x at 2^24 after the build phase left the GPU idle),
  // and the first are always the baselines: so untimed measurements keep the device busy for
  // SETTLE_MS before the first timed one, and the first REMEASURED variants of each size are
  // measured again at its end, keeping the faster of the two.
  const SETTLE_MS = o.settleMs ?? 500;
  const REMEASURED = 2;
  const measuredNow = new Set<string>();
  const firstMeasured: Variant[] = [];
  let warm: string | undefined;
  const settle = async (g: VariantGroup, v: Variant, size: number): Promise<void> => {
    const key = `${g.type}@${size}`;
    if (warm === key || SETTLE_MS <= 0) return;
    warm = key;
    const start = performance.now();
    try {
      do {
        await tunable(g.algorithm).measure(prim, { ...timing, benchmark: g.benchmarks[0]!, type: g.type, size, config: v.config, batches: 1, coldCache: false });
      } while (performance.now() - start < SETTLE_MS);
    } catch {
      // Its own measurement reports the error.
    }
  };

  /** Builds and measures what `vs` still lacks (sizes outermost: every config of a size runs on the same buffers), then scores them. */
  const evaluate = async (g: VariantGroup, vs: readonly Variant[]): Promise<Score[]> => {
    const alg = tunable(g.algorithm);
    const todo = vs.filter((v) => pendingOf(g, v) > 0);
    reused += vs.reduce((n, v) => n + pointsOf(g, v).length, 0) - todo.reduce((n, v) => n + pendingOf(g, v), 0);
    const failed = await build(g, todo);
    if (todo.length) warm = undefined;
    for (const v of todo) {
      const whys = new Set<string>();
      for (const p of pointsOf(g, v)) {
        const why = failed.get(buildKey(v, p.benchmark));
        if (why === undefined) continue;
        whys.add(g.benchmarks.length > 1 ? `${p.benchmark}: ${why}` : why);
        if (!needs(p.name, p.size)) continue;
        checkLimit();
        store.addError(p.name, p.size, `build failed: ${why}`);
        measured++;
        errors++;
        progress.run.done++;
        report('run', g);
        await updated();
      }
      for (const why of whys) log(`${groupLabel(g)} ${configText(v.config)}: ${why}`);
    }
    for (const size of g.sizes) {
      for (const v of todo) {
        for (const benchmark of g.benchmarks) {
          if (failed.has(buildKey(v, benchmark))) continue;
          const name = alg.benchmarkName(benchmark, g.type, v.config);
          if (!needs(name, size)) continue;
          checkBudget();
          checkLimit();
          await settle(g, v, size);
          measuredNow.add(entryKey(name, size));
          if (firstMeasured.length < REMEASURED && !firstMeasured.includes(v)) firstMeasured.push(v);
          try {
            store.addRecord(await alg.measure(prim, { ...timing, benchmark, type: g.type, size, config: v.config }));
          } catch (err) {
            if ((err as WgprimError)?.code === 'device-lost') throw new StopCampaign('device-lost', message(err));
            store.addError(name, size, message(err));
            errors++;
            log(`${groupLabel(g)} ${configText(v.config)} at ${size}: ${message(err)}`);
          }
          measured++;
          progress.run.done++;
          report('run', g);
          await updated();
        }
      }
      // The first variants measured at this size in this run, again (see SETTLE_MS): keep the faster.
      for (const v of firstMeasured.splice(0)) {
        for (const benchmark of g.benchmarks) {
          const name = alg.benchmarkName(benchmark, g.type, v.config);
          if (!measuredNow.has(entryKey(name, size))) continue;
          const first = store.get(name, size);
          if (!first || (first as { error_occurred?: boolean }).error_occurred) continue;
          checkBudget();
          try {
            const again = await alg.measure(prim, { ...timing, benchmark, type: g.type, size, config: v.config });
            // real_time is the mean milliseconds per call, as stats.mean.
            if (again.stats.mean < (first as GBenchEntry).real_time) store.replaceRecord(again);
          } catch {
            // The first measurement stands.
          }
        }
      }
    }
    return vs.map((v) => scoreOf(g, v));
  };

  /**
   * The configs a threshold stage times for a type and value class: where this file holds a
   * tuned group of the path's table for the type and value class, the config create-optimization
   * will pick from it (so the rows it writes carry a threshold measured with their own config);
   * else what a call with those values selects today (tuned rows, then the heuristic).
   */
  const thresholdConfigs = (type: ElementType, valueBytes: ThresholdValueBytes): { block: RadixSortBlockSortConfig; onesweep: RadixSortConfig } => {
    const groups = analyze(readMeasurements([{ data: file(), label: 'this campaign' }]).measurements, false);
    const t = typeInfo(type);
    const winner = (table: string): unknown => groups.find((g) => g.algorithm === table && g.typeClass.float === t.isFloat && g.typeClass.bytes === t.bytes && (g.typeClass.valueBytes ?? 0) === valueBytes && g.winner)?.winner?.config;
    return {
      block: (winner('radixSortBlockSort') as RadixSortBlockSortConfig | undefined) ?? prim.selectedRadixSortBlockSortConfig(type, valueBytes).config,
      onesweep: (winner('radixSort') as RadixSortConfig | undefined) ?? prim.selectedRadixSortConfig(type, valueBytes).config,
    };
  };

  /**
   * A threshold stage for one type and one of its benchmarks (keys only, or pairs: the value
   * class): both paths at every size of the ladder (sizes outermost, the two paths on the same
   * buffers), each measured twice where it is new (see SETTLE_MS: the faster of the two stands).
   */
  const threshold = async (stage: string, type: ElementType, benchmark: string, sizes: readonly number[]): Promise<void> => {
    const valueBytes = thresholdValueBytes(benchmark);
    const { block, onesweep } = thresholdConfigs(type, valueBytes);
    const decoupled = decoupledVariant(onesweep, hasForwardProgress(prim.target));
    const label = { algorithm: stage, type: valueBytes ? `${type} pairs` : type };
    const configOf = (path: ThresholdPath): RadixSortBlockSortConfig | RadixSortConfig => (path === 'block_sort' ? block : path === 'decoupled' ? decoupled! : onesweep);
    const nameOf = (path: ThresholdPath): string => radixSortThresholdName(path, type, configOf(path), valueBytes);
    const figures = (path: ThresholdPath, size: number): PathFigures | undefined => {
      const e = store.get(nameOf(path), size);
      return e && !isErrorEntry(e) && e.items_per_second > 0 ? { itemsPerSecond: e.items_per_second, cv: Number.isFinite(e.cv) ? e.cv : 0 } : undefined;
    };
    // How block sort (against the LSD path as it would run: the faster lookback) and the
    // decoupled path (against onesweep) fared at each size so far; one that clearly lost
    // THRESHOLD_LOSSES_TO_STOP sizes in a row is not measured further, nor is onesweep once neither is.
    const outcomes: Record<'block_sort' | 'decoupled', PathOutcome[]> = { block_sort: [], decoupled: [] };
    for (const size of sizes) {
      const optionsOf = (path: ThresholdPath) => ({ ...timing, path, type, valueBytes, size, config: configOf(path) });
      const active = THRESHOLD_PATHS.filter((path) => (path === 'decoupled' ? decoupled !== undefined && !pathDone(outcomes.decoupled) : path === 'block_sort' ? !pathDone(outcomes.block_sort) : true));
      if (!active.includes('block_sort') && !active.includes('decoupled')) {
        progress.run.done += THRESHOLD_PATHS.length;
        continue;
      }
      progress.run.done += THRESHOLD_PATHS.length - active.length;
      const fresh: ThresholdPath[] = [];
      for (const path of active) {
        const name = nameOf(path);
        if (!needs(name, size)) {
          reused++;
          continue;
        }
        checkBudget();
        checkLimit();
        const opts = optionsOf(path);
        if (SETTLE_MS > 0 && warm !== `${type}/${valueBytes}@${size}`) {
          warm = `${type}/${valueBytes}@${size}`;
          const start = performance.now();
          try {
            do await measureRadixSortThreshold(prim, { ...opts, batches: 1 }); while (performance.now() - start < SETTLE_MS);
          } catch {
            // Its own measurement reports the error.
          }
        }
        try {
          store.addRecord(await measureRadixSortThreshold(prim, opts));
          fresh.push(path);
        } catch (err) {
          if ((err as WgprimError)?.code === 'device-lost') throw new StopCampaign('device-lost', message(err));
          store.addError(name, size, message(err));
          errors++;
          log(`${groupLabel(label)} ${path} at ${size}: ${message(err)}`);
        }
        measured++;
        progress.run.done++;
        report('run', label);
        await updated();
      }
      for (const path of fresh) {
        const first = store.get(nameOf(path), size) as GBenchEntry;
        checkBudget();
        try {
          const again = await measureRadixSortThreshold(prim, optionsOf(path));
          if (again.stats.mean < first.real_time) store.replaceRecord(again);
        } catch {
          // The first measurement stands.
        }
      }
      // Block sort is judged against the LSD path as it would run here: decoupled where it won.
      let lsd = figures('onesweep', size);
      if (active.includes('decoupled')) {
        const dec = figures('decoupled', size);
        const outcome = pathOutcome(dec, lsd);
        outcomes.decoupled.push(outcome);
        if (outcome === 'win') lsd = dec;
      }
      if (active.includes('block_sort')) outcomes.block_sort.push(pathOutcome(figures('block_sort', size), lsd));
    }
    const ti = typeInfo(type);
    const t = readThresholds([{ data: file(), label: 'this campaign' }]).results.find((r) => r.typeClass.float === ti.isFloat && r.typeClass.bytes === ti.bytes && r.typeClass.valueBytes === valueBytes);
    if (t) log(`${groupLabel(label)}: block sort faster than onesweep up to maxCount ${t.maxCount} (sizes ${t.points.map((p) => p.size).join(', ')})`);
    if (t?.lookback) log(`${groupLabel(label)}: decoupled look-back faster than ${onesweep.lookback} up to decoupledMaxCount ${t.lookback.decoupledMaxCount} (sizes ${t.lookback.points.map((p) => p.size).join(', ')})`);
  };

  // What each group runs, and the progress totals.
  const groups = set.groups;
  const plans = groups.map((g, gi) => {
    const strategy = strategyFor(strategyName, g.variants.length, s.exhaustiveLimit);
    if (strategy === 'local') {
      const mine = groupInShard(gi, o.shard);
      const estimate = mine ? Math.min(s.localEvaluations, g.variants.length + g.baselines.length) : 0;
      return { g, strategy, mine, candidates: [] as Variant[], estimate };
    }
    const all = strategy === 'random' ? randomCandidates(g, s.seed, s.randomSamples) : exhaustiveCandidates(g);
    const candidates = all.filter((v) => inShard(v, o.shard));
    return { g, strategy, mine: candidates.length > 0, candidates, estimate: candidates.length };
  });
  for (const p of plans) {
    if (p.strategy === 'local') {
      progress.build.total += p.estimate;
      progress.run.total += p.estimate * p.g.sizes.length * p.g.benchmarks.length;
    } else {
      const pending = p.candidates.map((v) => pendingOf(p.g, v));
      progress.build.total += pending.filter((n) => n > 0).length;
      progress.run.total += pending.reduce((a, b) => a + b, 0);
    }
  }

  for (const r of thresholdStages) progress.run.total += r.types.length * r.benchmarks.length * r.sizes.length * THRESHOLD_PATHS.length;

  o.onStart?.({
    variants: set,
    groups: [
      ...plans.filter((p) => p.mine).map((p) => ({ label: groupLabel(p.g), strategy: p.strategy, variants: p.strategy === 'local' ? p.estimate : p.candidates.length, baselines: p.g.baselines.length })),
      ...thresholdStages.flatMap((r) => r.types.flatMap((type) => r.benchmarks.map((b) => ({ label: groupLabel({ algorithm: r.name, type: thresholdValueBytes(b) ? `${type} pairs` : type }), strategy: 'exhaustive' as const, variants: THRESHOLD_PATHS.length, baselines: 0 })))),
    ],
    pending: progress.run.total,
    existing: store.entries.length,
  });

  let stopped: CampaignResult['stopped'];
  try {
    for (let i = 0; i < plans.length; i++) {
      const { g, strategy, mine, candidates } = plans[i]!;
      if (!mine) continue;
      if (strategy === 'local') {
        // The rest of the budget, shared by the groups still to search.
        const left = plans.slice(i).filter((p) => p.mine).length;
        const groupDeadline = deadline === Infinity ? Infinity : now() + (deadline - now()) / left;
        const r = await localSearch(g, (vs) => evaluate(g, vs), { seed: s.seed, maxEvaluations: s.localEvaluations, shouldStop: () => now() > groupDeadline });
        log(`${groupLabel(g)}: local search measured ${r.evaluated.length} of ${g.variants.length} variants (${r.moves} moves, ${r.restarts} restarts)`);
      } else {
        await evaluate(g, candidates);
      }
    }
    for (const r of thresholdStages) for (const type of r.types) for (const b of r.benchmarks) await threshold(r.name, type, b, r.sizes);
  } catch (err) {
    if (!(err instanceof StopCampaign)) throw err;
    stopped = { reason: err.reason, message: err.message };
    log(err.message);
  } finally {
    for (const b of small.values()) {
      b.input.destroy();
      b.output.destroy();
    }
  }
  const summary = summarize(plans.filter((p) => p.mine).map((p) => ({ group: p.g, strategy: p.strategy })), store.entries);
  const final = file();
  const thresholds = readThresholds([{ data: final, label: 'this campaign' }]).results;
  return { file: final, variants: set, summary, thresholds, measured, errors, reused, stopped, elapsedMs: now() - started };
}

/**
 * The type column of a summary row: the element type, with the value class for the sorts'
 * rows as `wgprim info` writes it (`u32/empty` keys only, `u32/u32` pairs with u32 values).
 */
export function summaryTypeLabel(r: { readonly type: string; readonly valueBytes?: number }): string {
  return r.valueBytes === undefined ? r.type : `${r.type}/${valueClassLabel(r.valueBytes)}`;
}

/** A (benchmark, size) point of a group, with the name a config's entry there has. */
interface VariantPoint {
  readonly benchmark: string;
  readonly size: number;
  readonly name: string;
}

/** The points (sizes x benchmarks) of a group, for one of its configs. */
function variantPoints(g: VariantGroup, config: ConfigObject): VariantPoint[] {
  const alg = tunable(g.algorithm);
  return g.sizes.flatMap((size) => g.benchmarks.map((benchmark) => ({ benchmark, size, name: alg.benchmarkName(benchmark, g.type, config) })));
}

/** A reduce-then-scan LSD config's decoupled twin (same tile), else undefined. */
function decoupledTwin(algorithm: string, c: ConfigObject): ConfigObject | undefined {
  const twin = algorithm === 'radix_sort_onesweep' ? decoupledVariant(c as unknown as RadixSortConfig, true) : undefined;
  return twin as unknown as ConfigObject | undefined;
}

/**
 * A variant's score for the search strategies: the geometric mean of items/s over the group's
 * points (sizes x benchmarks), undefined until every point is measured without error. A
 * reduce-then-scan LSD config counts its decoupled twin at a point where that is measured and
 * faster, as the summary and create-optimization score it (the row runs the twin up to its
 * decoupledMaxCount), so a local search climbs toward the configs the pipeline would write.
 */
export function variantScore(g: VariantGroup, v: Variant, entryOf: (name: string, size: number) => TuneEntry | undefined): Score {
  const twin = decoupledTwin(g.algorithm, v.config);
  const twinPoints = twin && variantPoints(g, twin);
  const xs: number[] = [];
  for (const [i, p] of variantPoints(g, v.config).entries()) {
    const own = entryOf(p.name, p.size);
    if (!own || isErrorEntry(own) || !(own.items_per_second > 0)) return undefined;
    const e = fasterEntry(own, twinPoints && entryOf(twinPoints[i]!.name, p.size))!;
    xs.push((e as Extract<TuneEntry, { items_per_second: number }>).items_per_second);
  }
  return xs.length ? geomean(xs) : undefined;
}

/** `own`, or `twin` where both measured and the twin is faster. */
function fasterEntry(own: TuneEntry | undefined, twin: TuneEntry | undefined): TuneEntry | undefined {
  if (!own || !twin || isErrorEntry(own) || isErrorEntry(twin)) return own;
  return twin.items_per_second > own.items_per_second ? twin : own;
}

/**
 * Per group: every config measured at all of the group's points (benchmarks x sizes), scored
 * by the geometric mean of items/s, so no size dominates; the best against the selected config.
 * A sort group (`valueClasses`) gives a row per value class, as its tables keep a row per class:
 * each scored over its own benchmarks' points, against that class's selection and heuristic
 * (a keys tile that cannot run with values still has a keys score; the pairs row compares
 * against what pairs calls select).
 */
export function summarize(groups: readonly { group: VariantGroup; strategy: StrategyName }[], entries: readonly TuneEntry[]): SummaryRow[] {
  // (algorithm|type) -> config text -> point -> entry
  const byGroup = new Map<string, Map<string, { config: ConfigObject; points: Map<string, TuneEntry> }>>();
  for (const e of entries) {
    let parsed;
    try {
      parsed = parseBenchmarkName(parseName(e.name));
    } catch {
      continue;
    }
    if (!parsed) continue;
    const gk = `${parsed.algorithm}|${parsed.type}`;
    let configs = byGroup.get(gk);
    if (!configs) byGroup.set(gk, (configs = new Map()));
    const ck = configText(parsed.config);
    let c = configs.get(ck);
    if (!c) configs.set(ck, (c = { config: parsed.config, points: new Map() }));
    c.points.set(`${parsed.benchmark}@${e.size}`, e);
  }
  const row = (
    g: VariantGroup, strategy: StrategyName, benchmarks: readonly string[],
    sel: { config: ConfigObject; source?: string } | undefined, heu: { config: ConfigObject } | undefined, valueBytes: number | undefined,
  ): SummaryRow => {
    const points = g.sizes.flatMap((size) => benchmarks.map((b) => `${b}@${size}`));
    const scores = new Map<string, ConfigScore>();
    let failed = 0;
    const configs = byGroup.get(`${g.algorithm}|${g.type}`) ?? new Map<string, { config: ConfigObject; points: Map<string, TuneEntry> }>();
    for (const [ck, c] of configs) {
      // The LSD rows: a reduce-then-scan config counts its decoupled twin where faster, as
      // create-optimization scores it (withDecoupledTwin), so the summary's best is the row written.
      const twinConfig = decoupledTwin(g.algorithm, c.config);
      const twin = twinConfig && configs.get(configText(twinConfig));
      const es = points.map((p) => fasterEntry(c.points.get(p), twin?.points.get(p)));
      // A config none of whose points this class measured is not one of its configs.
      if (es.every((e) => !e)) continue;
      if (es.some((e) => e && isErrorEntry(e))) failed++;
      if (es.some((e) => !e || isErrorEntry(e) || !(e.items_per_second > 0))) continue;
      const ok = es as Extract<TuneEntry, { items_per_second: number }>[];
      scores.set(ck, { config: c.config, score: geomean(ok.map((e) => e.items_per_second)), cv: Math.max(...ok.map((e) => e.cv)) });
    }
    const best = [...scores.values()].sort((a, b) => b.score - a.score)[0];
    const selScore = sel ? scores.get(configText(sel.config)) : undefined;
    const heuScore = heu ? scores.get(configText(heu.config)) : undefined;
    return {
      algorithm: g.algorithm, type: g.type, ...(valueBytes !== undefined ? { valueBytes } : {}), strategy, sizes: g.sizes, benchmarks, measured: scores.size, failed,
      ...(selScore ? { selected: { ...selScore, source: sel?.source ?? 'heuristic' } } : {}),
      ...(heuScore ? { heuristic: heuScore } : {}),
      ...(best ? { best } : {}),
      ...(best && selScore ? { ratio: best.score / selScore.score } : {}),
    };
  };
  return groups.flatMap(({ group: g, strategy }) => {
    if (g.valueClasses?.length) {
      return g.valueClasses.map((c) => row(g, strategy, c.benchmarks, c.selected, { config: c.heuristic }, c.valueBytes));
    }
    const sel = g.baselines.find((b) => b.baseline?.includes('selected'));
    const heu = g.baselines.find((b) => b.baseline?.includes('heuristic'));
    return [row(g, strategy, g.benchmarks, sel, heu, undefined)];
  });
}
