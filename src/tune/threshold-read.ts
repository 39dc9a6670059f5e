// The threshold stage's measurements read back: per (target, key class, value class), the paths'
// figures at each ladder size, the thresholds they give, and the evidence notes of the rows they
// set. Browser-safe.
import { type NameFields, parseName } from '../bench/gbench.js';
import { configFromName } from '../bench/run.js';
import { type RadixSortBlockSortConfig } from '../device/radix-sort/block-sort-config.js';
import { type RadixSortConfig } from '../device/radix-sort/config.js';
import { type TargetMatch } from '../config/types.js';
import { configKey } from '../tables.js';
import { type TypeClass } from '../wgsl/types.js';
import { type BenchInput, formatSize, geomean, targetOfContext, typeClassLabel, typeClassOfName, valueClassLabel, valueClassOfName } from './measurements.js';
import { GENERAL_TABLE, RADIX_THRESHOLD_ALGO, SMALL_TABLE, THRESHOLD_PATHS, THRESHOLD_SPEC, type ThresholdPath } from './threshold.js';
import { compareFigures, comparePaths, type LookbackPoint, type PathFigures, THRESHOLD_MIN_IMPROVEMENT_PERCENT, type ThresholdPoint, thresholdOf } from './threshold-rule.js';
import { launchConfigKey } from './threshold-merge.js';


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
        warnings.push(`${where}: not a ${RADIX_THRESHOLD_ALGO} measurement this version reads: skipped`);
        return;
      }
      let config: unknown;
      try {
        config = configFromName(path === 'block_sort' ? THRESHOLD_SPEC.small.stage : THRESHOLD_SPEC.general.stage, f.cfg);
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
      const ck = configKey(path === 'block_sort' ? SMALL_TABLE : GENERAL_TABLE, config);
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
      if (configs.length > 1) warnings.push(`${RADIX_THRESHOLD_ALGO} ${g.targetKey} ${typeClassLabel(g.typeClass)}: ${path} was measured with ${configs.length} configs; the one measured at the most sizes counts`);
      const bySize = new Map<number, PathFigures>();
      for (const size of new Set(best.runs.map((r) => r.size))) {
        const runs = best.runs.filter((r) => r.size === size);
        bySize.set(size, { itemsPerSecond: geomean(runs.map((r) => r.itemsPerSecond)), cv: Math.max(...runs.map((r) => r.cv)) });
      }
      return { config: best.config, bySize };
    };
    if (g.superseded.length) warnings.push(`${RADIX_THRESHOLD_ALGO} ${g.targetKey} ${typeClassLabel(g.typeClass)}: measured in ${g.superseded.length + 1} files; the newest, ${g.source.label}, counts (not ${g.superseded.join(', ')})`);
    const block = pick('block_sort');
    const onesweep = pick('onesweep');
    const decoupled = pick('decoupled');
    const label = `${RADIX_THRESHOLD_ALGO} ${g.targetKey} ${typeClassLabel(g.typeClass)}`;
    if (!block || !onesweep) {
      warnings.push(`${label}: only the ${block ? 'block_sort' : 'onesweep'} path was measured: no threshold`);
      continue;
    }
    const shared = (a: Map<number, PathFigures>, b: Map<number, PathFigures>): number[] => [...a.keys()].filter((s) => b.has(s)).sort((x, y) => x - y);
    let lookback: ThresholdResult['lookback'];
    if (decoupled) {
      const mismatch = launchConfigKey(GENERAL_TABLE, { ...(decoupled.config as RadixSortConfig), lookback: 'reduce-then-scan' }) !== launchConfigKey(GENERAL_TABLE, onesweep.config);
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
  return `maxCount ${t.maxCount ? formatSize(t.maxCount) : '0'}: measured threshold (${RADIX_THRESHOLD_ALGO}: this block sort path against onesweep ` +
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
  if (sorted.at(-1)?.decoupledFaster) return THRESHOLD_SPEC.everySize;
  return Math.max(0, ...sorted.filter((p) => p.decoupledFaster).map((p) => p.size));
}

/** The evidence note of a radixSort row whose decoupledMaxCount is a measured threshold. */
export function lookbackNote(t: ThresholdResult): string {
  const l = t.lookback!;
  const faster = l.points.filter((p) => p.decoupledFaster).map((p) => formatSize(p.size));
  const v = t.typeClass.valueBytes ?? 0;
  return `decoupledMaxCount ${l.decoupledMaxCount ? formatSize(l.decoupledMaxCount) : '0'}: measured threshold (${RADIX_THRESHOLD_ALGO}: this tile with decoupled look-back ` +
    `against ${t.onesweepConfig.lookback}, ${v === 0 ? 'keys only' : `with ${valueClassLabel(v)} values`}, at ${l.points.map((p) => formatSize(p.size)).join(', ')}; ` +
    `decoupled faster at ${faster.length ? faster.join(', ') : 'none'}: by more than max(${THRESHOLD_MIN_IMPROVEMENT_PERCENT}%, 1.96*sqrt(cv_r^2+cv_d^2)*100); ` +
    `decoupledMaxCount = the largest such size; every count onesweep takes where that is the largest measured)`;
}

