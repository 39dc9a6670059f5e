// Tuning at run time: `tune(prim, { budgetMs })` on the user's own device, in Node or a page.
// A small budgeted campaign (runCampaign: by default a local search from the configs selected
// today, the device's representative types, one size), create-optimization in memory, the rows
// that beat today's configs installed into the Prim, and all of them stored in the tune cache
// under this adapter and wgprim version. Browser-safe.
import { WgprimError } from '../runtime/errors.js';
import { type AdapterInfoLike, type Target, describeTarget } from '../runtime/target.js';
import { ELEMENT_TYPES, type ElementType, type TypeClass, typeClassOf } from '../wgsl/types.js';
import { type Prim } from '../prim.js';
import { type TunedEntry } from '../config/types.js';
import { configKey, isTunedAlgorithm, type TunedAlgorithm, type TunedTables } from '../tables.js';
import { releaseBenchmarkBuffers } from '../bench/run.js';
import { type ProgressEvent, runCampaign, type StopReason, summaryTypeLabel } from './campaign.js';
import { type ConfigObject, isTunable, tunable, tunableAlgorithms } from './registry.js';
import { type SettingsInput, type StrategyName, REPRESENTATIVE_TYPES, defaultSettings, deviceKindOf, mergeSettings } from './settings.js';
import { createOptimization, type CandidateScore, type GroupResult } from './create-optimization.js';
import { classifyImprovement } from './apply-improvements.js';
import { type TuneFile } from './results.js';
import { type TuneCache, encodeTuneCacheEntry, tuneCacheKey } from '../tune-cache.js';

export interface TuneOptions {
  /** Milliseconds to spend; measuring stops at the first measurement that starts after it. Required. */
  readonly budgetMs: number;
  /**
   * Algorithms to tune (default: transform, reduce, scan). `radix_sort_onesweep` (the radix
   * sort, keys only; rows go to the `radixSort` table) is tuned only when named: its kernels
   * compile slowly on some drivers.
   */
  readonly algorithms?: readonly string[];
  /**
   * Types to tune (default: the representative type of each type class: u32, f32, u64, and f16
   * where the device has `shader-f16`). A row serves the type's whole class (u32 also i32).
   */
  readonly types?: readonly ElementType[];
  /** Elements per call (default: 2^22 on a GPU, 2^16 on a CPU adapter). */
  readonly sizes?: readonly number[];
  /** Search strategy (default `local`: hill climbing from the configs selected today, within the budget). */
  readonly strategy?: StrategyName | 'auto';
  /**
   * Which rows are installed. `significant` (default): where the best config beats the one
   * selected today by more than `max(minImprovementPercent, 1.96*sqrt(cv_default^2+cv_best^2)*100)`
   * percent (the rule of apply-config-improvements). `best`: the best measured config of every
   * group, even where it is today's (pinning it).
   */
  readonly install?: 'significant' | 'best';
  /** Least improvement worth a row, in percent (default 2). */
  readonly minImprovementPercent?: number;
  /** Flush the GPU's caches before each timed call (`TimingOptions.coldCache`). */
  readonly coldCache?: boolean;
  /** Settings merged over the ones made from the options above, as `wgprim tune --settings` takes them. */
  readonly settings?: SettingsInput;
  /** Where the rows go (default: `createPrim`'s `tuneCache`); `false`: not stored. */
  readonly cache?: TuneCache | false;
  readonly forceWallClock?: boolean;
  readonly onProgress?: (e: ProgressEvent) => void;
}

/** Why a group did or did not get a row. */
export type TuneDecision =
  /** Installed: faster than today's config by more than the bound (or `install: 'best'`). */
  | 'installed'
  /** Today's config measured best. */
  | 'default-best'
  /** Faster, but by no more than `minImprovementPercent`. */
  | 'marginal'
  /** Faster, but within the noise bound. */
  | 'noisy'
  /** The budget ran out before today's config, or any config, was measured at every point. */
  | 'not-measured';

export interface TunedConfigScore {
  readonly config: ConfigObject;
  /** Geometric mean of items/s over the measured points. */
  readonly itemsPerSecond: number;
  /** Largest cv over the points. */
  readonly cv: number;
}

export interface TuneGroupSummary {
  readonly algorithm: string;
  readonly type: ElementType;
  /**
   * Sorts: the value class of this group (bytes of values; 0 keys only, 4 pairs with u32
   * values): a radix sort tuned with keys and pairs gives a group each, compared against the
   * config calls of that class select, and its row (if any) serves only that class.
   */
  readonly valueBytes?: number;
  /** The type class of the group's row (with `valueBytes` for the sorts). */
  readonly typeClass: TypeClass;
  readonly strategy: StrategyName;
  /** Configs measured at every point. */
  readonly configs: number;
  /** Configs that failed somewhere. */
  readonly failed: number;
  /** The config selected before this call, and where it came from. */
  readonly default?: TunedConfigScore & { readonly source: string };
  readonly best?: TunedConfigScore;
  /** best / default items/s. */
  readonly speedup?: number;
  readonly decision: TuneDecision;
  /** The decision in words, with the figures. */
  readonly detail: string;
  /** The row installed for this group. */
  readonly row?: TunedEntry<unknown>;
}

export interface TuneSummary {
  /** The adapter, as `describeTarget` writes it. */
  readonly adapter: string;
  /** The tune-cache key of this adapter and wgprim version. */
  readonly cacheKey: string;
  readonly budgetMs: number;
  readonly elapsedMs: number;
  /** Why measuring stopped before the search was done (`budget` is the usual end of a short run). */
  readonly stopped?: { readonly reason: StopReason; readonly message: string };
  readonly algorithms: readonly string[];
  readonly sizes: readonly number[];
  /** New measurements (errors included), and the errors among them. */
  readonly measurements: number;
  readonly errors: number;
  /** One per (algorithm, type) tuned; the sorts: one per (algorithm, type, value class). */
  readonly groups: readonly TuneGroupSummary[];
  /** The rows this call installed (also in `prim.runtimeTuned`). */
  readonly installed: TunedTables;
  /** The cache write: what was stored under `key`, or why it failed. Absent without a cache. */
  readonly cache?: { readonly key: string; readonly written: boolean; readonly rows: number; readonly error?: string };
  /** The campaign's Google Benchmark JSON (as `wgprim tune --benchmark_out` writes it). */
  readonly file: TuneFile;
  /** Messages from the campaign (failed variants, the local search's moves). */
  readonly log: readonly string[];
}

const countRows = (t: TunedTables): number => Object.values(t).reduce((n, rows) => n + ((rows as unknown[] | undefined)?.length ?? 0), 0);
const sameClass = (a: TypeClass, b: TypeClass): boolean => a.float === b.float && a.bytes === b.bytes;
const pct = (x: number): string => `${x >= 0 ? '+' : ''}${x.toFixed(1)}%`;

function adapterInfoOf(t: Target): AdapterInfoLike {
  return { vendor: t.vendor, architecture: t.architecture, device: t.device, description: t.description, subgroupMinSize: t.subgroupMinSize, subgroupMaxSize: t.subgroupMaxSize };
}

/** The tuned table a tunable algorithm's rows go to, or undefined where it has none. */
function tableOf(name: string): TunedAlgorithm | undefined {
  if (!isTunable(name)) return undefined;
  const table = tunable(name).table ?? name;
  return isTunedAlgorithm(table) ? table : undefined;
}

function checkOptions(o: TuneOptions): void {
  const bad = (what: string): never => {
    throw new WgprimError('invalid-argument', `tune: ${what}`);
  };
  if (!o || typeof o !== 'object') bad('takes an options object { budgetMs, algorithms?, types?, sizes? }');
  if (typeof o.budgetMs !== 'number' || !Number.isFinite(o.budgetMs) || o.budgetMs <= 0) bad(`budgetMs must be a number of milliseconds > 0, got ${JSON.stringify(o.budgetMs)}`);
  if (o.algorithms !== undefined) {
    if (!Array.isArray(o.algorithms) || !o.algorithms.length) bad('algorithms must be a non-empty list');
    for (const a of o.algorithms) {
      if (typeof a !== 'string' || !tableOf(a)) bad(`no tunable algorithm "${String(a)}" (known: ${tunableAlgorithms().map((t) => t.name).filter((n) => tableOf(n)).join(', ')})`);
    }
  }
  if (o.types !== undefined) {
    if (!Array.isArray(o.types) || !o.types.length) bad('types must be a non-empty list');
    for (const t of o.types) if (!(ELEMENT_TYPES as readonly string[]).includes(t)) bad(`unknown type ${JSON.stringify(t)} (use ${ELEMENT_TYPES.join(', ')})`);
  }
  if (o.sizes !== undefined) {
    if (!Array.isArray(o.sizes) || !o.sizes.length) bad('sizes must be a non-empty list');
    for (const n of o.sizes) if (!Number.isSafeInteger(n) || n < 1) bad(`sizes: ${JSON.stringify(n)} is not a positive integer`);
  }
  if (o.install !== undefined && o.install !== 'significant' && o.install !== 'best') bad(`install must be "significant" or "best", got ${JSON.stringify(o.install)}`);
  if (o.minImprovementPercent !== undefined && !(typeof o.minImprovementPercent === 'number' && o.minImprovementPercent >= 0)) {
    bad(`minImprovementPercent must be a number >= 0, got ${JSON.stringify(o.minImprovementPercent)}`);
  }
}

/**
 * The create-optimization group (this adapter's level) a summary row is decided by: its table,
 * type class and value class. A sort row (`valueBytes`) takes only the group of its own value
 * class, so a pairs row is never decided (or installed) from keys measurements, nor a keys row
 * from pairs ones; a row without one (scan, reduce, transform) the group without values.
 */
export function groupOfRow(groups: readonly GroupResult[], table: TunedAlgorithm, r: { readonly type: ElementType; readonly valueBytes?: number }): GroupResult | undefined {
  const typeClass = typeClassOf(r.type);
  return groups.find((x) => x.level === 'target' && x.algorithm === table && sameClass(x.typeClass, typeClass) && (x.typeClass.valueBytes ?? 0) === (r.valueBytes ?? 0));
}

/** What decides a group's row: the create-optimization group of its table and type class. */
function decide(
  g: GroupResult | undefined, algorithm: TunedAlgorithm, selected: { config: ConfigObject; source: string } | undefined,
  install: 'significant' | 'best', threshold: number,
): Pick<TuneGroupSummary, 'default' | 'best' | 'speedup' | 'decision' | 'detail' | 'row'> {
  const score = (c: CandidateScore): TunedConfigScore => ({ config: c.config as ConfigObject, itemsPerSecond: c.itemsPerSecond, cv: c.cv });
  const base = selected ? g?.candidates.find((c) => c.eligible && c.configKey === configKey(algorithm, selected.config)) : undefined;
  const def = base && selected ? { ...score(base), source: selected.source } : undefined;
  if (!g?.winner || !g.entry) {
    return { ...(def ? { default: def } : {}), decision: 'not-measured', detail: g?.reason ?? 'the budget ran out before any config was measured at every point' };
  }
  const best = score(g.winner);
  const speedup = def ? best.itemsPerSecond / def.itemsPerSecond : undefined;
  const figures = { default: def, best, ...(speedup !== undefined ? { speedup } : {}) };
  const row = g.entry;
  if (install === 'best') {
    return { ...figures, decision: 'installed', detail: `best measured config installed (install: 'best')${speedup !== undefined ? `, ${pct((speedup - 1) * 100)} against today's` : ''}`, row };
  }
  if (!def) return { ...figures, decision: 'not-measured', detail: 'the config selected today was not measured at every point: nothing to compare with' };
  if (base!.configKey === g.winner.configKey) return { ...figures, decision: 'default-best', detail: `today's config (${def.source}) measured best` };
  const c = classifyImprovement(def.itemsPerSecond, best.itemsPerSecond, def.cv, best.cv, threshold);
  const text = `${pct(c.changePercent)} against today's config (bound ${c.boundPercent.toFixed(1)}%)`;
  switch (c.status) {
    case 'accepted': return { ...figures, decision: 'installed', detail: text, row };
    case 'noisy': return { ...figures, decision: 'noisy', detail: `${text}: within the noise` };
    case 'marginal': return { ...figures, decision: 'marginal', detail: `${text}: under the ${threshold}% threshold` };
    default: return { ...figures, decision: 'default-best', detail: text };
  }
}

/** Prims a `tune` call is running on: calls on one Prim must not overlap. */
const tuning = new WeakSet<Prim>();

/**
 * Tunes `prim` on its device within `options.budgetMs`: a small campaign (by default a local
 * search from the configs selected today, the representative type of each type class, one
 * size), the best config per table and type class turned into rows (create-optimization, in
 * memory), those that beat today's configs installed (`prim.useTuned`), and every installed row
 * stored in the tune cache (`options.cache`, else `createPrim`'s `tuneCache`) under this adapter
 * and wgprim version. Returns what was measured and decided. Calls on one Prim must not overlap.
 */
export async function tune(prim: Prim, options: TuneOptions): Promise<TuneSummary> {
  if (tuning.has(prim)) throw new WgprimError('invalid-argument', 'tune is already running on this Prim: await the first call');
  tuning.add(prim);
  try {
    return await tunePrim(prim, prim.tuneCache, options);
  } finally {
    tuning.delete(prim);
  }
}

async function tunePrim(prim: Prim, cacheOfPrim: TuneCache | undefined, o: TuneOptions): Promise<TuneSummary> {
  checkOptions(o);
  const target = prim.target;
  if (!target.vendor) {
    throw new WgprimError('invalid-argument', 'tune: the adapter reports no vendor, so tuned rows could never be selected: pass the adapter\'s identity, createPrim(device, { adapterInfo: adapter.info })');
  }
  const started = performance.now();
  const kind = deviceKindOf(target);
  // The default: the tunables named after their table (radix_sort_onesweep is opt-in).
  const algorithms = [...(o.algorithms ?? tunableAlgorithms().map((a) => a.name).filter(isTunedAlgorithm))];
  const types = o.types ?? REPRESENTATIVE_TYPES;
  const sizes = o.sizes ?? [kind === 'cpu' ? 2 ** 16 : 2 ** 22];
  // A local search walks the whole space on GPUs (its budget bounds it), as before the default campaign was trimmed.
  const base = defaultSettings(kind, kind === 'gpu' ? 'full' : 'default');
  const settings = mergeSettings(mergeSettings(base, {
    strategy: o.strategy ?? 'local',
    budgetSeconds: o.budgetMs / 1000,
    coldCache: o.coldCache === true,
    algorithms: Object.fromEntries(algorithms.map((a) => [a, { types, sizes }])),
  }), o.settings);

  const log: string[] = [];
  let result;
  try {
    result = await runCampaign(prim, {
      settings,
      algorithms,
      adapterInfo: adapterInfoOf(target),
      forceWallClock: o.forceWallClock,
      // Settling keeps a GPU's clocks up before timing; at run time it must not eat the budget.
      settleMs: Math.min(500, o.budgetMs / 100),
      onProgress: o.onProgress,
      log: (line) => log.push(line),
    });
  } finally {
    releaseBenchmarkBuffers(prim.device);
  }

  // create-optimization in memory: the best config per (table, type class) of this adapter.
  const co = createOptimization([{ data: result.file, label: 'tune' }], { vendorLevel: false });
  const install = o.install ?? 'significant';
  const threshold = o.minImprovementPercent ?? 2;
  const groups: TuneGroupSummary[] = [];
  const installed: Record<string, TunedEntry<unknown>[]> = {};
  for (const r of result.summary) {
    const table = tableOf(r.algorithm);
    if (!table) continue;
    const typeClass: TypeClass = { ...typeClassOf(r.type), ...(r.valueBytes !== undefined ? { valueBytes: r.valueBytes } : {}) };
    const g = groupOfRow(co.groups, table, r);
    const d = decide(g, table, r.selected ? { config: r.selected.config, source: r.selected.source } : undefined, install, threshold);
    if (d.decision === 'installed' && d.row && !(installed[table] ??= []).includes(d.row)) installed[table]!.push(d.row);
    groups.push({ algorithm: r.algorithm, type: r.type, ...(r.valueBytes !== undefined ? { valueBytes: r.valueBytes } : {}), typeClass, strategy: r.strategy, configs: r.measured, failed: r.failed, ...d });
  }
  const installedTables = installed as TunedTables;
  if (countRows(installedTables)) prim.useTuned(installedTables);

  const store = o.cache === false ? undefined : (o.cache ?? cacheOfPrim);
  let cache: TuneSummary['cache'];
  if (store) {
    const key = tuneCacheKey(target);
    const all = prim.runtimeTuned;
    try {
      store.set(key, encodeTuneCacheEntry(target, all, groups.map((g) => `${g.algorithm} ${summaryTypeLabel(g)}: ${g.decision}`)));
      cache = { key, written: true, rows: countRows(all) };
    } catch (err) {
      cache = { key, written: false, rows: 0, error: (err as Error)?.message ?? String(err) };
    }
  }

  return {
    adapter: describeTarget(target),
    cacheKey: tuneCacheKey(target),
    budgetMs: o.budgetMs,
    elapsedMs: performance.now() - started,
    ...(result.stopped ? { stopped: result.stopped } : {}),
    algorithms,
    sizes: [...new Set(sizes)].sort((a, b) => a - b),
    measurements: result.measured,
    errors: result.errors,
    groups,
    installed: installedTables,
    ...(cache ? { cache } : {}),
    file: result.file,
    log,
  };
}
