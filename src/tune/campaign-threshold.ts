// The radix sort's threshold stage inside a campaign: the block-sort path, the LSD path
// (onesweep) and its decoupled twin timed at a ladder of sizes, each path dropped once it has
// clearly lost at two sizes in a row (threshold.ts reads the crossovers back). Browser-safe.
import { hasForwardProgress } from '../runtime/target.js';
import { type ElementType, typeInfo } from '../wgsl/types.js';
import { type GBenchEntry } from '../bench/gbench.js';
import { type RadixSortBlockSortConfig } from '../device/radix-sort/block-sort-config.js';
import { type RadixSortConfig } from '../device/radix-sort/config.js';
import { analyze } from './create-optimization.js';
import { readMeasurements } from './measurements.js';
import { decoupledVariant, GENERAL_TABLE, SMALL_TABLE, THRESHOLD_SPEC, measureRadixSortThreshold, radixSortThresholdName, THRESHOLD_PATHS, type ThresholdPath, type ThresholdValueBytes, thresholdValueBytes } from './threshold.js';
import { pathDone, type PathFigures, pathOutcome, type PathOutcome } from './threshold-rule.js';
import { readThresholds } from './threshold-read.js';
import { isErrorEntry } from './results.js';
import { SETTLE_MS } from './campaign-measure.js';
import { type CampaignState, groupLabel, message, stopIfLost } from './campaign-state.js';

/**
 * The configs a threshold stage times for a type and value class: where this file holds a
 * tuned group of the path's table for the type and value class, the config create-optimization
 * will pick from it (so the rows it writes carry a threshold measured with their own config);
 * else what a call with those values selects today (tuned rows, then the heuristic).
 */
function thresholdConfigs(state: CampaignState, type: ElementType, valueBytes: ThresholdValueBytes): { block: RadixSortBlockSortConfig; onesweep: RadixSortConfig } {
  const prim = state.prim;
  const groups = analyze(readMeasurements([{ data: state.file(), label: 'this campaign' }]).measurements, false);
  const t = typeInfo(type);
  const winner = (table: string): unknown => groups.find((g) => g.algorithm === table && g.typeClass.float === t.isFloat && g.typeClass.bytes === t.bytes && (g.typeClass.valueBytes ?? 0) === valueBytes && g.winner)?.winner?.config;
  return {
    block: (winner(SMALL_TABLE) as RadixSortBlockSortConfig | undefined) ?? (prim.algorithmEnv.select(THRESHOLD_SPEC.small.table, type, valueBytes).config as RadixSortBlockSortConfig),
    onesweep: (winner(GENERAL_TABLE) as RadixSortConfig | undefined) ?? (prim.algorithmEnv.select(THRESHOLD_SPEC.general.table, type, valueBytes).config as RadixSortConfig),
  };
}

/**
 * A threshold stage for one type and one of its benchmarks (keys only, or pairs: the value
 * class): both paths at every size of the ladder (sizes outermost, the two paths on the same
 * buffers), each measured twice where it is new (see SETTLE_MS: the faster of the two stands).
 */
export async function runThreshold(state: CampaignState, stage: string, type: ElementType, benchmark: string, sizes: readonly number[]): Promise<void> {
  const { prim, store, timing, progress, log } = state;
  const settleMs = state.o.settleMs ?? SETTLE_MS;
  const started = performance.now();
  const valueBytes = thresholdValueBytes(benchmark);
  const { block, onesweep } = thresholdConfigs(state, type, valueBytes);
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
  // The plan counts the twin's path wherever the vendor gives forward progress; whether there is a
  // twin depends on the general config, known only now.
  const planned = hasForwardProgress(prim.target) ? THRESHOLD_PATHS.length : THRESHOLD_PATHS.length - 1;
  for (const size of sizes) {
    const optionsOf = (path: ThresholdPath) => ({ ...timing, path, type, valueBytes, size, config: configOf(path) });
    const active = THRESHOLD_PATHS.filter((path) => (path === 'decoupled' ? decoupled !== undefined && !pathDone(outcomes.decoupled) : path === 'block_sort' ? !pathDone(outcomes.block_sort) : true));
    if (!active.includes('block_sort') && !active.includes('decoupled')) {
      progress.run.done += planned;
      state.skipped += planned;
      continue;
    }
    // Paths past their crossover, and a twin path with no twin config here, are planned but not measured.
    progress.run.done += planned - active.length;
    state.skipped += planned - active.length;
    const fresh: ThresholdPath[] = [];
    for (const path of active) {
      const name = nameOf(path);
      if (!state.needs(name, size)) {
        state.reused++;
        continue;
      }
      state.checkBudget();
      state.checkLimit();
      const opts = optionsOf(path);
      if (settleMs > 0 && state.warm !== `${type}/${valueBytes}@${size}`) {
        state.warm = `${type}/${valueBytes}@${size}`;
        const start = performance.now();
        try {
          do await measureRadixSortThreshold(prim, { ...opts, batches: 1 }); while (performance.now() - start < settleMs);
        } catch {
          // Its own measurement reports the error.
        }
      }
      try {
        store.addRecord(await measureRadixSortThreshold(prim, opts));
        fresh.push(path);
      } catch (err) {
        stopIfLost(err);
        store.addError(name, size, message(err));
        state.errors++;
        log(`${groupLabel(label)} ${path} at ${size}: ${message(err)}`);
      }
      state.measured++;
      progress.run.done++;
      state.report('run', label);
      await state.updated();
    }
    for (const path of fresh) {
      const first = store.get(nameOf(path), size) as GBenchEntry;
      state.checkBudget();
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
  state.measureMs += performance.now() - started;
  const ti = typeInfo(type);
  const t = readThresholds([{ data: state.file(), label: 'this campaign' }]).results.find((r) => r.typeClass.float === ti.isFloat && r.typeClass.bytes === ti.bytes && r.typeClass.valueBytes === valueBytes);
  const sizesOf = (ps: readonly { size: number }[]): string => ps.map((p) => p.size).join(', ');
  if (t) log(`${groupLabel(label)}: ${t.maxCount ? `block sort faster than onesweep up to maxCount ${t.maxCount}` : 'block sort never faster than onesweep (maxCount 0: every size takes onesweep)'} (sizes ${sizesOf(t.points)})`);
  if (t?.lookback) {
    const n = t.lookback.decoupledMaxCount;
    log(`${groupLabel(label)}: ${n ? `decoupled look-back faster than ${onesweep.lookback} up to decoupledMaxCount ${n}` : `decoupled look-back never faster than ${onesweep.lookback} (decoupledMaxCount 0)`} (sizes ${sizesOf(t.lookback.points)})`);
  }
}
