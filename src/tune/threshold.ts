// The plan's `radix_sort_threshold` stage: where the radix sort's small-size path (block sort of
// each tile, then merge passes) stops beating the LSD path (onesweep), measured with both
// configs known for the type, at a ladder of sizes, for keys only and (settings `benchmarks`
// with `radix_sort_pairs`) for pairs with u32 values, each a threshold of its own. The
// measurements are Google Benchmark entries named in rocPRIM's grammar,
//   {lvl:device,algo:radix_sort_threshold,path:block_sort|onesweep,key_type:T,value_type:empty|u32,cfg:{...}}
// (cfg: that path's config, as radix_sort_block_sort / radix_sort_onesweep names it), so they
// never mix with those stages' own groups. create-optimization reads them back and writes each
// threshold as maxCount of the radixSortBlockSort rows of its value class (value_type empty: the
// keys-only rows, valueBytes 0; u32: the pairs rows, valueBytes 4). Browser-safe.
//
// The same stage measures the LSD path's second threshold: where its config is reduce-then-scan
// (the match rank, on a vendor that gives forward progress), the same tile with decoupled
// look-back (path `decoupled`) against it; the largest size where onesweep wins beyond the noise
// rule is written as decoupledMaxCount of the radixSort rows. The block-sort threshold is then
// measured against the LSD path as it will run at each size (onesweep up to decoupledMaxCount).
import { type BenchRecord, formatName, type NameFields, type NameInput, parseName } from '../bench/gbench.js';
import { benchmarkAlgorithm, benchmarkName, configFromName } from '../bench/run.js';
import { type ConfigObject } from '../device/spec.js';
import { type RadixSortBlockSortConfig } from '../device/radix-sort/block-sort-config.js';
import { type RunTimingOptions, runTimingOf } from '../bench/timing.js';
import { ONESWEEP_MAX_COUNT, type RadixSortConfig } from '../device/radix-sort/config.js';
import { type TargetMatch, type TunedEntry } from '../config/types.js';
import { configKey, rowKey, type TunedAlgorithm } from '../tables.js';
import { type Prim } from '../prim.js';
import { type ElementType, type TypeClass } from '../wgsl/types.js';
import { classifyImprovement } from './acceptance.js';
import { type BenchInput, configLabel, formatSize, geomean, targetOfContext, typeClassLabel, typeClassOfName, valueClassLabel, valueClassOfName } from './measurements.js';

export const RADIX_THRESHOLD_ALGO = 'radix_sort_threshold';
/**
 * `block_sort`: the small-size path; `onesweep`: the LSD path on its config's own lookback at every
 * size (decoupledMaxCount 0); `decoupled`: that config with decoupled look-back.
 */
export type ThresholdPath = 'block_sort' | 'onesweep' | 'decoupled';
export const THRESHOLD_PATHS: readonly ThresholdPath[] = ['block_sort', 'onesweep', 'decoupled'];

/** A path that has lost at this many sizes in a row is not measured at larger ones (its crossover is behind). */
export const THRESHOLD_LOSSES_TO_STOP = 2;

/**
 * The threshold field of a table's rows (a size, not a launch parameter: the kernels are the same
 * whatever it is), and the stage's path that sets it.
 */
export const THRESHOLD_FIELDS = { radixSortBlockSort: 'maxCount', radixSort: 'decoupledMaxCount' } as const;
export type ThresholdTable = keyof typeof THRESHOLD_FIELDS;
export const isThresholdTable = (a: string): a is ThresholdTable => a in THRESHOLD_FIELDS;

/**
 * P of the noise rule (percent): the block-sort path counts as faster at a size only where its
 * items/s beat onesweep's by more than max(P, 1.96 * sqrt(cv_onesweep^2 + cv_block^2) * 100)
 * percent: apply-config-improvements' acceptance rule, onesweep (the general path) as the old.
 */
export const THRESHOLD_MIN_IMPROVEMENT_PERCENT = 2;

/**
 * The ladder of sizes: GPUs 2^10..2^26 (every power of two: onesweep against reduce-then-scan
 * crosses near 2^24 on the H200); CPU adapters 2^10..2^16 (every other). A path stops once it has
 * lost THRESHOLD_LOSSES_TO_STOP sizes in a row.
 */
export function defaultThresholdSizes(kind: 'cpu' | 'gpu'): number[] {
  return kind === 'cpu' ? [2 ** 10, 2 ** 12, 2 ** 14, 2 ** 16] : Array.from({ length: 17 }, (_, i) => 2 ** (10 + i));
}

/**
 * The decoupled-look-back variant of an LSD config, where the stage measures one: the config is
 * reduce-then-scan with the match rank and the device's vendor gives forward progress (elsewhere a
 * spinning look-back may never finish). undefined: no decoupled path.
 */
export function decoupledVariant(onesweep: RadixSortConfig, forwardProgress: boolean): RadixSortConfig | undefined {
  if (!forwardProgress || onesweep.lookback === 'decoupled' || onesweep.rank !== 'match') return undefined;
  return { ...onesweep, lookback: 'decoupled', decoupledMaxCount: 0 };
}

/** The value classes a threshold is measured for: 0 keys only, 4 pairs with u32 values. */
export type ThresholdValueBytes = 0 | 4;

/** The value class a threshold stage's benchmark times (settings `benchmarks`): `radix_sort_pairs` 4, `radix_sort_keys` 0. */
export function thresholdValueBytes(benchmark: string): ThresholdValueBytes {
  return benchmark === 'radix_sort_pairs' ? 4 : 0;
}

/** The entry name of one path's measurement: keys only (`valueBytes` 0, `value_type:empty`) or with u32 values (4, `value_type:u32`). */
export function radixSortThresholdName(path: ThresholdPath, keyType: string, config: RadixSortBlockSortConfig | RadixSortConfig, valueBytes: ThresholdValueBytes = 0): string {
  if (path !== 'block_sort') config = { ...(config as RadixSortConfig), decoupledMaxCount: 0 };
  const valueType = valueClassLabel(valueBytes);
  const benchmark = `radix_sort_${path === 'block_sort' ? 'block_sort_' : ''}${valueBytes ? 'pairs' : 'keys'}`;
  const inner = benchmarkName(benchmark, keyType, config as unknown as ConfigObject);
  const cfg = parseName(inner).cfg as NameFields;
  return formatName({ lvl: 'device', algo: RADIX_THRESHOLD_ALGO, path, key_type: keyType, value_type: valueType, cfg: cfg as NameInput });
}

export interface ThresholdMeasureOptions extends RunTimingOptions {
  readonly path: ThresholdPath;
  readonly type: ElementType;
  /** 0 (default): keys only; 4: pairs with u32 values (as the pairs benchmarks). */
  readonly valueBytes?: ThresholdValueBytes;
  readonly size: number;
  readonly seed: number;
  /** The path's config: a block sort config for `block_sort`, an LSD config for `onesweep` and `decoupled` (timed with decoupledMaxCount 0). */
  readonly config: RadixSortBlockSortConfig | RadixSortConfig;
}

/**
 * Times one path at one size with the bench functions (`radix_sort_block_sort_*` force the
 * block-sort path; `radix_sort_keys` / `radix_sort_pairs` force onesweep), renamed to the
 * threshold entry's name.
 */
export async function measureRadixSortThreshold(prim: Prim, o: ThresholdMeasureOptions): Promise<BenchRecord> {
  const valueBytes = o.valueBytes ?? 0;
  const timing = { ...runTimingOf(o), type: o.type, size: o.size, seed: o.seed };
  const pairs = valueBytes !== 0 ? 'pairs' : 'keys';
  const [record] = o.path === 'block_sort'
    ? await benchmarkAlgorithm(prim, { ...timing, algorithm: `radix_sort_block_sort_${pairs}`, config: o.config as unknown as ConfigObject })
    : await benchmarkAlgorithm(prim, { ...timing, algorithm: `radix_sort_${pairs}`, config: { ...(o.config as unknown as ConfigObject), decoupledMaxCount: 0 } });
  return { ...record!, name: radixSortThresholdName(o.path, o.type, o.config, valueBytes) };
}

// ---------------------------------------------------------------------------------------------
// The rule

export interface PathFigures {
  readonly itemsPerSecond: number;
  readonly cv: number;
}

/** A path against another at one size. */
export interface NoiseComparison {
  /** (candidate - other) / other * 100. */
  readonly changePercent: number;
  /** What the change must exceed to count: max(P, 1.96 * sqrt(cv_a^2 + cv_b^2) * 100). */
  readonly boundPercent: number;
}

/** Whether `candidate` beats `other` beyond the noise rule (apply-config-improvements' acceptance, `other` as the old). */
export function compareFigures(candidate: PathFigures, other: PathFigures, thresholdPercent = THRESHOLD_MIN_IMPROVEMENT_PERCENT): NoiseComparison & { readonly faster: boolean } {
  const c = classifyImprovement(other.itemsPerSecond, candidate.itemsPerSecond, other.cv, candidate.cv, thresholdPercent);
  return { faster: c.status === 'accepted', changePercent: c.changePercent, boundPercent: c.boundPercent };
}

export interface ThresholdPoint extends NoiseComparison {
  readonly size: number;
  readonly blockSort: PathFigures;
  /** The LSD path as it runs at this size. */
  readonly onesweep: PathFigures;
  /** The block-sort path is faster here beyond the noise rule. */
  readonly blockSortFaster: boolean;
}

/** One size compared under the noise rule. */
export function comparePaths(size: number, blockSort: PathFigures, onesweep: PathFigures, thresholdPercent = THRESHOLD_MIN_IMPROVEMENT_PERCENT): ThresholdPoint {
  const { faster, ...c } = compareFigures(blockSort, onesweep, thresholdPercent);
  return { size, blockSort, onesweep, blockSortFaster: faster, ...c };
}

/** maxCount: the largest measured size where the block-sort path is faster; 0 where it never is. */
export function thresholdOf(points: readonly ThresholdPoint[]): number {
  return Math.max(0, ...points.filter((p) => p.blockSortFaster).map((p) => p.size));
}

/** One size of the LSD path's own threshold: decoupled look-back against the config's reduce-then-scan. */
export interface LookbackPoint extends NoiseComparison {
  readonly size: number;
  readonly decoupled: PathFigures;
  readonly onesweep: PathFigures;
  /** Decoupled look-back is faster here beyond the noise rule. */
  readonly decoupledFaster: boolean;
}

/** A path's figures at one size against the other path's, by the noise rule either way. */
export type PathOutcome = 'win' | 'tie' | 'loss';

/** `candidate` against `other`: a win or a loss only beyond the noise rule, else a tie. */
export function pathOutcome(candidate: PathFigures | undefined, other: PathFigures | undefined, thresholdPercent = THRESHOLD_MIN_IMPROVEMENT_PERCENT): PathOutcome {
  if (!candidate) return 'loss';
  if (!other) return 'win';
  if (compareFigures(candidate, other, thresholdPercent).faster) return 'win';
  return compareFigures(other, candidate, thresholdPercent).faster ? 'loss' : 'tie';
}

/**
 * While measuring: whether a path that lost at the last THRESHOLD_LOSSES_TO_STOP measured sizes
 * is done. Only clear losses count: a tie (a difference inside the noise rule, as when the GPU's
 * clocks wander during the stage) keeps the path on the ladder, so noise at two sizes does not
 * cut a threshold short (H200, u32 keys: decoupled look-back 3% and 12% faster at 2^21 and 2^22
 * with cv up to 0.093 stopped the ladder at 2^20; measured again it won up to 2^24).
 * `outcomes`: one per size measured so far, ascending.
 */
export function pathDone(outcomes: readonly PathOutcome[]): boolean {
  return outcomes.length >= THRESHOLD_LOSSES_TO_STOP && outcomes.slice(-THRESHOLD_LOSSES_TO_STOP).every((w) => w === 'loss');
}

// ---------------------------------------------------------------------------------------------
// Reading measurements back

export interface ThresholdResult {
  readonly target: TargetMatch;
  /** `vendor/architecture/device`, as measurements.ts keys targets. */
  readonly targetKey: string;
  readonly typeClass: TypeClass;
  /** The block sort config measured (its maxCount is whatever it had then). */
  readonly blockSortConfig: RadixSortBlockSortConfig;
  readonly onesweepConfig: RadixSortConfig;
  /**
   * Sizes both paths were measured at, ascending; `onesweep` is the LSD path as it runs there
   * (decoupled look-back up to decoupledMaxCount).
   */
  readonly points: readonly ThresholdPoint[];
  readonly maxCount: number;
  /** The LSD path's own threshold, where the decoupled path was measured (see `decoupledVariant`). */
  readonly lookback?: { readonly points: readonly LookbackPoint[]; readonly decoupledMaxCount: number };
  readonly date: string;
  readonly version: string;
}

interface Run {
  readonly size: number;
  readonly itemsPerSecond: number;
  readonly cv: number;
}

const isObject = (x: unknown): x is Record<string, unknown> => !!x && typeof x === 'object' && !Array.isArray(x);

/**
 * The threshold measurements of benchmark files, per (target, key type class, value class: the
 * result's `typeClass.valueBytes`, 0 for `value_type:empty`, 4 for `u32`). Where a path was
 * measured with several configs, the one measured at the most sizes counts (ties: the last seen),
 * with a warning. Runs of one config at one size are combined: geometric mean of items/s, largest
 * cv. A threshold compares paths timed together: where one (target, class) was measured in several
 * files, the newest file's measurements (by context date; ties: the later input) count as a whole,
 * with a warning, and older files' are not mixed in (paths timed against other kernels or configs).
 */
export function readThresholds(inputs: readonly BenchInput[], thresholdPercent = THRESHOLD_MIN_IMPROVEMENT_PERCENT): { results: ThresholdResult[]; warnings: string[] } {
  const warnings: string[] = [];
  // (target|class) -> path -> config key -> { config, runs }
  const groups = new Map<string, { target: TargetMatch; targetKey: string; typeClass: TypeClass; dates: string[]; versions: string[]; paths: Map<ThresholdPath, Map<string, { config: unknown; runs: Run[] }>>; source: { index: number; when: string; label: string }; superseded: string[] }>();
  for (const [index, { data, label }] of inputs.entries()) {
    if (!isObject(data) || !isObject(data.context) || !Array.isArray(data.benchmarks)) continue;
    const target = targetOfContext(data.context);
    if (!target.vendor) continue;
    const targetKey = `${target.vendor}/${target.architecture ?? ''}/${target.device ?? ''}`;
    const when = String(data.context.date ?? '');
    const date = when.slice(0, 10);
    const version = String(data.context.wgprim_version ?? '') || 'unknown';
    data.benchmarks.forEach((b, i) => {
      if (!isObject(b) || b.error_occurred === true || b.run_type === 'aggregate' || typeof b.name !== 'string' || !b.name.includes(RADIX_THRESHOLD_ALGO)) return;
      let f: NameFields;
      try {
        f = parseName(b.name);
      } catch {
        return;
      }
      if (f.algo !== RADIX_THRESHOLD_ALGO) return;
      const where = `${label} benchmarks[${i}]`;
      const path = f.path as ThresholdPath;
      const keyClass = typeClassOfName(String(f.key_type ?? ''));
      // value_type empty (keys only): a keys-only class, valueBytes 0; u32 (pairs): valueBytes 4.
      const value = valueClassOfName(f.value_type === undefined ? undefined : String(f.value_type));
      const typeClass: TypeClass | undefined = keyClass && value !== undefined ? { ...keyClass, valueBytes: value === 'empty' ? 0 : value } : undefined;
      const ips = Number(b.items_per_second);
      if (!THRESHOLD_PATHS.includes(path) || !typeClass || typeof f.cfg !== 'object' || !(ips > 0) || typeof b.size !== 'number') {
        warnings.push(`${where}: not a radix_sort_threshold measurement this version reads: skipped`);
        return;
      }
      let config: unknown;
      try {
        config = configFromName(path === 'block_sort' ? 'radix_sort_block_sort' : 'radix_sort_onesweep', f.cfg);
      } catch (err) {
        warnings.push(`${where}: ${(err as Error).message}: skipped`);
        return;
      }
      const gk = `${targetKey}|${typeClass.float ? 'float' : 'int'}${typeClass.bytes}|${typeClass.valueBytes}`;
      let g = groups.get(gk);
      // Another file measured this (target, class): the newer file counts, the older is dropped whole.
      if (g && g.source.index !== index && when < g.source.when) {
        if (!g.superseded.includes(label)) g.superseded.push(label);
        return;
      }
      if (!g || g.source.index !== index) {
        const superseded = g ? [...g.superseded, g.source.label] : [];
        groups.set(gk, (g = { target, targetKey, typeClass, dates: [], versions: [], paths: new Map(), source: { index, when, label }, superseded }));
      }
      g.dates.push(date);
      g.versions.push(version);
      let configs = g.paths.get(path);
      if (!configs) g.paths.set(path, (configs = new Map()));
      const ck = configKey(path === 'block_sort' ? 'radixSortBlockSort' : 'radixSort', config);
      let c = configs.get(ck);
      if (c) configs.delete(ck); // re-inserted: the last seen comes last
      else c = { config, runs: [] };
      configs.set(ck, c);
      c.runs.push({ size: b.size, itemsPerSecond: ips, cv: Number.isFinite(Number(b.cv)) ? Number(b.cv) : 0 });
    });
  }

  const results: ThresholdResult[] = [];
  for (const g of groups.values()) {
    const pick = (path: ThresholdPath): { config: unknown; bySize: Map<number, PathFigures> } | undefined => {
      const configs = [...(g.paths.get(path)?.values() ?? [])];
      if (!configs.length) return undefined;
      const sizesOf = (c: { runs: Run[] }): number => new Set(c.runs.map((r) => r.size)).size;
      let best = configs[0]!;
      for (const c of configs) if (sizesOf(c) >= sizesOf(best)) best = c;
      if (configs.length > 1) warnings.push(`radix_sort_threshold ${g.targetKey} ${typeClassLabel(g.typeClass)}: ${path} was measured with ${configs.length} configs; the one measured at the most sizes counts`);
      const bySize = new Map<number, PathFigures>();
      for (const size of new Set(best.runs.map((r) => r.size))) {
        const runs = best.runs.filter((r) => r.size === size);
        bySize.set(size, { itemsPerSecond: geomean(runs.map((r) => r.itemsPerSecond)), cv: Math.max(...runs.map((r) => r.cv)) });
      }
      return { config: best.config, bySize };
    };
    if (g.superseded.length) warnings.push(`radix_sort_threshold ${g.targetKey} ${typeClassLabel(g.typeClass)}: measured in ${g.superseded.length + 1} files; the newest, ${g.source.label}, counts (not ${g.superseded.join(', ')})`);
    const block = pick('block_sort');
    const onesweep = pick('onesweep');
    const decoupled = pick('decoupled');
    const label = `radix_sort_threshold ${g.targetKey} ${typeClassLabel(g.typeClass)}`;
    if (!block || !onesweep) {
      warnings.push(`${label}: only the ${block ? 'block_sort' : 'onesweep'} path was measured: no threshold`);
      continue;
    }
    const shared = (a: Map<number, PathFigures>, b: Map<number, PathFigures>): number[] => [...a.keys()].filter((s) => b.has(s)).sort((x, y) => x - y);
    let lookback: ThresholdResult['lookback'];
    if (decoupled) {
      const mismatch = launchConfigKey('radixSort', { ...(decoupled.config as RadixSortConfig), lookback: 'reduce-then-scan' }) !== launchConfigKey('radixSort', onesweep.config);
      const lookbackSizes = shared(decoupled.bySize, onesweep.bySize);
      if (mismatch) warnings.push(`${label}: the decoupled path was measured with another tile than the onesweep path's: no decoupledMaxCount`);
      else if ((onesweep.config as RadixSortConfig).lookback === 'decoupled') warnings.push(`${label}: the onesweep path is already decoupled: no decoupledMaxCount`);
      else if (lookbackSizes.length) {
        const points = lookbackSizes.map((s): LookbackPoint => {
          const d = decoupled.bySize.get(s)!;
          const o = onesweep.bySize.get(s)!;
          const { faster, ...c } = compareFigures(d, o, thresholdPercent);
          return { size: s, decoupled: d, onesweep: o, decoupledFaster: faster, ...c };
        });
        lookback = { points, decoupledMaxCount: decoupledMaxCountOf(points) };
      }
    }
    // The LSD path as it runs at each size: decoupled up to decoupledMaxCount.
    const lsd = (size: number): PathFigures | undefined =>
      lookback && size <= lookback.decoupledMaxCount ? decoupled!.bySize.get(size) : onesweep.bySize.get(size);
    const sizes = [...block.bySize.keys()].filter((s) => lsd(s) !== undefined).sort((a, b) => a - b);
    if (!sizes.length) {
      warnings.push(`${label}: the two paths share no measured size: no threshold`);
      continue;
    }
    const points = sizes.map((s) => comparePaths(s, block.bySize.get(s)!, lsd(s)!, thresholdPercent));
    results.push({
      target: g.target, targetKey: g.targetKey, typeClass: g.typeClass,
      blockSortConfig: block.config as RadixSortBlockSortConfig, onesweepConfig: onesweep.config as RadixSortConfig,
      points, maxCount: thresholdOf(points), ...(lookback ? { lookback } : {}),
      date: [...g.dates].sort().at(-1) ?? '', version: [...new Set(g.versions)].sort().join(','),
    });
  }
  return { results, warnings };
}

/** The evidence note of a row whose maxCount is a measured threshold. */
export function thresholdNote(t: ThresholdResult): string {
  const sizes = t.points.map((p) => p.size);
  const faster = t.points.filter((p) => p.blockSortFaster).map((p) => formatSize(p.size));
  const o = t.onesweepConfig;
  const v = t.typeClass.valueBytes ?? 0;
  const values = v === 0 ? 'keys only (so a keys-only row, valueBytes 0)' : `with ${valueClassLabel(v)} values (so a pairs row, valueBytes ${v})`;
  const lsd = `${o.workgroupSize}x${o.itemsPerThread} ${o.radixBits}-bit ${o.rank} ${o.lookback}${t.lookback?.decoupledMaxCount ? ` (decoupled up to ${formatSize(t.lookback.decoupledMaxCount)})` : ''}`;
  return `maxCount ${t.maxCount ? formatSize(t.maxCount) : '0'}: measured threshold (radix_sort_threshold: this block sort path against onesweep ` +
    `${lsd}, ${values}, at ${sizes.map(formatSize).join(', ')}; ` +
    `block sort faster at ${faster.length ? faster.join(', ') : 'none'}: by more than max(${THRESHOLD_MIN_IMPROVEMENT_PERCENT}%, 1.96*sqrt(cv_o^2+cv_b^2)*100); ` +
    `maxCount = the largest such size)`;
}

/**
 * decoupledMaxCount from the ladder: the largest size where decoupled look-back won; where it won
 * at the largest size measured, every count onesweep takes (ONESWEEP_MAX_COUNT): no measurement
 * says reduce-then-scan is faster anywhere above, and a row that switched to it past the ladder's
 * top would run the slower path there (H200, u32 pairs with a ladder to 2^27: decoupled 24%
 * faster at 2^27 and 2^28, a row cut at 2^27 would run 2^28 with reduce-then-scan: 11.4 against
 * 9.2 ms).
 */
export function decoupledMaxCountOf(points: readonly Pick<LookbackPoint, 'size' | 'decoupledFaster'>[]): number {
  const sorted = [...points].sort((a, b) => a.size - b.size);
  if (sorted.at(-1)?.decoupledFaster) return ONESWEEP_MAX_COUNT;
  return Math.max(0, ...sorted.filter((p) => p.decoupledFaster).map((p) => p.size));
}

/** The evidence note of a radixSort row whose decoupledMaxCount is a measured threshold. */
export function lookbackNote(t: ThresholdResult): string {
  const l = t.lookback!;
  const faster = l.points.filter((p) => p.decoupledFaster).map((p) => formatSize(p.size));
  const v = t.typeClass.valueBytes ?? 0;
  return `decoupledMaxCount ${l.decoupledMaxCount ? formatSize(l.decoupledMaxCount) : '0'}: measured threshold (radix_sort_threshold: this tile with decoupled look-back ` +
    `against ${t.onesweepConfig.lookback}, ${v === 0 ? 'keys only' : `with ${valueClassLabel(v)} values`}, at ${l.points.map((p) => formatSize(p.size)).join(', ')}; ` +
    `decoupled faster at ${faster.length ? faster.join(', ') : 'none'}: by more than max(${THRESHOLD_MIN_IMPROVEMENT_PERCENT}%, 1.96*sqrt(cv_r^2+cv_d^2)*100); ` +
    `decoupledMaxCount = the largest such size; every count onesweep takes where that is the largest measured)`;
}

// ---------------------------------------------------------------------------------------------
// What a row's maxCount rests on (apply-config-improvements and create-optimization's merge read it
// back), and which of two rows' maxCount is written

/**
 * A config's key without what is not a launch parameter: the table's threshold field
 * (THRESHOLD_FIELDS: radixSortBlockSort's maxCount, radixSort's decoupledMaxCount; the kernels, and
 * so their speed at a given path, are the same whatever it is). Other tables: configKey.
 */
export function launchConfigKey(algorithm: TunedAlgorithm, config: unknown): string {
  return configKey(algorithm, isThresholdTable(algorithm) ? { ...(config as object), [THRESHOLD_FIELDS[algorithm]]: 0 } : config);
}

/**
 * What a radixSortBlockSort row's maxCount rests on, as its evidence note says:
 * - `measured`: a radix_sort_threshold measurement (`thresholdNote`, or a vendor row's smallest
 *   measured threshold of its targets);
 * - `set`: a threshold stated otherwise (e.g. `maxCount: threshold set by hand from ...`);
 * - `none`: no threshold: the config's own maxCount (the block-sort sweep's default, or the
 *   `... not a threshold` of a row whose value class radix_sort_threshold did not measure, e.g. a
 *   pairs row where it timed keys only), or no maxCount part in the note at all.
 */
export type MaxCountEvidence = 'measured' | 'set' | 'none';
export const MAX_COUNT_EVIDENCE_RANK: Readonly<Record<MaxCountEvidence, number>> = { none: 0, set: 1, measured: 2 };

/**
 * A note split at its threshold part (`field`: maxCount, or radixSort's decoupledMaxCount):
 * create-optimization appends it last, `; maxCount ...` (or the note starts with it), running to
 * the end. `rest`: what comes before, without the `; `.
 */
export function splitMaxCountNote(note: string | undefined, field: string = THRESHOLD_FIELDS.radixSortBlockSort): { rest: string; maxCount?: string } {
  const text = note ?? '';
  const m = new RegExp(`(?:^|; )(${field}\\b[\\s\\S]*)$`).exec(text);
  return m ? { rest: text.slice(0, m.index), maxCount: m[1]! } : { rest: text };
}

export function maxCountEvidence(note: string | undefined, field: string = THRESHOLD_FIELDS.radixSortBlockSort): MaxCountEvidence {
  const part = splitMaxCountNote(note, field).maxCount;
  if (!part || /not a threshold/.test(part)) return 'none';
  if (/measured threshold/.test(part)) return 'measured';
  return /threshold/.test(part) ? 'set' : 'none';
}

/**
 * A threshold table's row (`a`: radixSortBlockSort, whose field is maxCount, or radixSort,
 * decoupledMaxCount; the rule below says maxCount for either) written for an old row `o` and a new
 * row `n` of one (target, type class) once the kernels are decided (`kernel`: `o` or `n`).
 * apply-config-improvements: `n` if accepted, else `o`; create-optimization's merge into an
 * existing folder: always `n` (the fresh row; `o` the existing one). The rule for maxCount:
 * - the row whose maxCount rests on more wins: measured (radix_sort_threshold) > set (a threshold
 *   stated by hand) > none (the config's own, e.g. the sweep's default); see `maxCountEvidence`.
 *   So a new measured threshold replaces the old maxCount even where the old kernels stay, and an
 *   old measured (or hand-set) one stays where the new table has none;
 * - a tie with a threshold on both sides: the new table's. It is the newer tuning run, and a row's
 *   evidence date is its kernels', not its threshold's, so dates are not compared;
 * - a tie with no threshold on either side: the kernel row's own maxCount (nothing to move).
 * Where the maxCount comes from the other row, the written row is the kernel row with that
 * maxCount and the other row's maxCount note in place of its own (figures: the kernels'); if the
 * other row's kernels differ, the note says so and a warning asks for radix_sort_threshold again
 * (a threshold depends on the block-sort kernels it was measured with).
 */
export function withThreshold(o: TunedEntry<unknown>, n: TunedEntry<unknown>, kernel: TunedEntry<unknown>, warnings: string[], a: ThresholdTable = 'radixSortBlockSort'): { entry: TunedEntry<unknown>; from: 'old' | 'new'; evidence: MaxCountEvidence } {
  const field = THRESHOLD_FIELDS[a];
  const eo = maxCountEvidence(o.evidence.note, field);
  const en = maxCountEvidence(n.evidence.note, field);
  const ro = MAX_COUNT_EVIDENCE_RANK[eo];
  const rn = MAX_COUNT_EVIDENCE_RANK[en];
  const source = rn > ro || (rn === ro && rn > 0) ? n : ro > rn ? o : kernel;
  const from = source === n ? 'new' as const : 'old' as const;
  const evidence = source === n ? en : eo;
  if (source === kernel) return { entry: kernel, from, evidence };
  const maxCount = (source.config as Record<string, number>)[field]!;
  const otherKernels = launchConfigKey(a, source.config) !== launchConfigKey(a, kernel.config);
  let part = splitMaxCountNote(source.evidence.note, field).maxCount ?? `${field} ${maxCount}`;
  if (otherKernels) {
    part += ` (taken from the ${from} table's row, whose kernels were ${configLabel(a, source.config)}, not this row's)`;
    warnings.push(`${a} ${rowKey(kernel)}: ${field} ${maxCount} (${evidence}) is the ${from} table's, whose row has other kernels (${configLabel(a, source.config)}) than the one written (${configLabel(a, kernel.config)}): run radix_sort_threshold again`);
  }
  const rest = splitMaxCountNote(kernel.evidence.note, field).rest;
  return {
    entry: { ...kernel, config: { ...(kernel.config as object), [field]: maxCount }, evidence: { ...kernel.evidence, note: rest ? `${rest}; ${part}` : part } },
    from, evidence,
  };
}
