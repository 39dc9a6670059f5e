// Config variants: the parameter space enumerated per (algorithm, type), what the device cannot
// run dropped with the reason, the configs used today added as baselines, and the deterministic
// split of a campaign into shards. Browser-safe.
import { WgprimError } from '../runtime/errors.js';
import { type ElementType } from '../wgsl/types.js';
import { type Prim } from '../prim.js';
import { type ConfigObject, type ParamSpace, type ParamValue, configText, isThresholdStage, tunable, valueClassesOf } from './registry.js';
import { type ResolvedAlgorithm, constraintViolation } from './settings.js';

/** Why a variant is measured whatever the strategy: it is the config selected today, or the heuristic's. */
export type BaselineRole = 'selected' | 'heuristic';

export interface Variant {
  readonly algorithm: string;
  readonly type: ElementType;
  /** A complete config (fields the space leaves out keep the heuristic's value, or the tunable's `fixed` one). */
  readonly config: ConfigObject;
  /** `algorithm|type|config`: unique and stable. */
  readonly key: string;
  /** Position in the campaign's enumeration order (over every group); -1 for a baseline outside the space. */
  readonly index: number;
  /** Set on the configs measured whatever the strategy; with `selected`, `source` says where it came from. */
  readonly baseline?: readonly BaselineRole[];
  readonly source?: string;
}

/**
 * One value class of a sort group (keys only, or pairs with u32 values): its benchmarks, and the
 * configs a call of that class selects today and the heuristic gives, the defaults its tables'
 * rows (`typeClass.valueBytes`) are compared against.
 */
export interface ValueClassDefaults {
  /** Bytes of values (0 keys only), as the rows' `typeClass.valueBytes`. */
  readonly valueBytes: number;
  readonly benchmarks: readonly string[];
  readonly selected: { readonly config: ConfigObject; readonly source: string };
  readonly heuristic: ConfigObject;
}

/** The variants of one (algorithm, type). */
export interface VariantGroup {
  readonly algorithm: string;
  readonly type: ElementType;
  /** The space as enumerated: the settings' values, plus the heuristic's (or `fixed`) value for fields it leaves out. */
  readonly space: ParamSpace;
  /** Kept space variants, in enumeration order (a baseline that lies in the space is among them too). */
  readonly variants: readonly Variant[];
  /**
   * The selected config first, then the heuristic's if it differs; then, for the sorts, each
   * value class's selection and heuristic where they differ (see `enumerateVariants`).
   */
  readonly baselines: readonly Variant[];
  readonly sizes: readonly number[];
  readonly benchmarks: readonly string[];
  /**
   * Sorts (tunables with `valueClass`): the group's value classes, keys only first, each with its
   * own defaults (all of them among `baselines`). The summary reports one row per class.
   */
  readonly valueClasses?: readonly ValueClassDefaults[];
}

export interface DroppedVariant {
  readonly algorithm: string;
  readonly type: ElementType;
  readonly config: ConfigObject;
  readonly reason: string;
}

export interface VariantSet {
  readonly groups: readonly VariantGroup[];
  /** Points of the spaces enumerated (before drops and de-duplication). */
  readonly total: number;
  /** Space variants kept. */
  readonly kept: number;
  readonly dropped: readonly DroppedVariant[];
  /** Drops counted by reason, most frequent first. */
  readonly reasons: readonly { readonly reason: string; readonly count: number }[];
  /** Types and sizes the settings listed but the device cannot run. */
  readonly skipped: readonly string[];
}

export const variantKey = (algorithm: string, type: string, config: ConfigObject): string => `${algorithm}|${type}|${configText(config)}`;

/** Every point of a space: the first field varies slowest, the last fastest. */
export function* spacePoints(space: ParamSpace): Generator<Record<string, ParamValue>> {
  const keys = Object.keys(space);
  const idx = keys.map(() => 0);
  if (keys.some((k) => space[k]!.length === 0)) return;
  for (;;) {
    yield Object.fromEntries(keys.map((k, i) => [k, space[k]![idx[i]!]!]));
    let d = keys.length - 1;
    while (d >= 0 && ++idx[d]! === space[keys[d]!]!.length) idx[d--] = 0;
    if (d < 0) return;
  }
}

export function spaceSize(space: ParamSpace): number {
  return Object.values(space).reduce((n, v) => n * v.length, 1);
}

/**
 * Enumerates every chosen algorithm's space for each of its types, drops what this device cannot
 * run (the algorithm's `*ConfigProblem`) or what a constraint excludes, and adds the baselines.
 */
export function enumerateVariants(prim: Prim, algorithms: readonly ResolvedAlgorithm[]): VariantSet {
  const groups: VariantGroup[] = [];
  const dropped: DroppedVariant[] = [];
  const skipped: string[] = [];
  let total = 0;
  let kept = 0;
  let index = 0;
  const ctx = prim.context;
  for (const ra of algorithms) {
    // Threshold stages have no config space: the campaign times them on their own.
    if (isThresholdStage(ra.name)) continue;
    const alg = tunable(ra.name);
    for (const s of ra.skipped) skipped.push(`${ra.name}: ${s}`);
    for (const type of ra.types) {
      if (!ra.sizesFor(type).length) continue;
      // The heuristic and the selection of calls like this group's benchmarks (radix sorts: their value class).
      const heuristic = alg.heuristic(ctx, type, ra.benchmarks);
      // Fields the settings leave out keep the heuristic's value (thresholds: the tunable's `fixed` one).
      const space: Record<string, readonly ParamValue[]> = {};
      for (const k of Object.keys(heuristic)) space[k] = ra.space[k] ?? [alg.fixed?.[k] ?? heuristic[k]!];
      for (const k of Object.keys(ra.space)) if (!(k in space)) space[k] = ra.space[k]!;
      const seen = new Set<string>();
      const variants: Variant[] = [];
      for (const point of spacePoints(space)) {
        total++;
        const config: ConfigObject = { ...heuristic, ...point };
        const key = variantKey(ra.name, type, config);
        if (seen.has(key)) continue;
        seen.add(key);
        const reason = whyNot(prim, ra, type, config);
        if (reason !== undefined) {
          dropped.push({ algorithm: ra.name, type, config, reason });
          continue;
        }
        variants.push({ algorithm: ra.name, type, config, key, index: index++ });
        kept++;
      }
      // Baselines: what a call selects today, and the heuristic; measured whatever the strategy.
      // The group's own (for all its benchmarks) come first: the selected one is the default the
      // summary reports (sorts: per value class, `valueClasses` below). Only the sorts' selection
      // depends on the benchmarks, through their value class: a radix sort group timing keys and
      // pairs has each class's selection and heuristic as baselines too (the keys row and the
      // pairs row), so every config in use today is measured.
      const selected = alg.selected(prim, type, ra.benchmarks);
      const wanted: [BaselineRole, ConfigObject, string | undefined][] = [['selected', selected.config, selected.source], ['heuristic', heuristic, undefined]];
      const valueClasses: ValueClassDefaults[] | undefined = valueClassesOf(ra.name, ra.benchmarks)?.map((c) => {
        const sel = alg.selected(prim, type, c.benchmarks);
        const heu = alg.heuristic(ctx, type, c.benchmarks);
        wanted.push(['selected', sel.config, sel.source], ['heuristic', heu, undefined]);
        return { valueBytes: c.valueBytes, benchmarks: c.benchmarks, selected: { config: sel.config, source: sel.source }, heuristic: heu };
      });
      const roles = new Map<string, { config: ConfigObject; roles: BaselineRole[]; source?: string }>();
      for (const [role, config, source] of wanted) {
        const key = variantKey(ra.name, type, config);
        const r = roles.get(key);
        if (!r) roles.set(key, { config, roles: [role], ...(source !== undefined ? { source } : {}) });
        else {
          if (!r.roles.includes(role)) r.roles.push(role);
          if (r.source === undefined && source !== undefined) r.source = source;
        }
      }
      const baselines: Variant[] = [];
      for (const [key, { config, roles: rs, source }] of roles) {
        const inSpace = variants.findIndex((v) => v.key === key);
        const v: Variant = { algorithm: ra.name, type, config, key, index: inSpace >= 0 ? variants[inSpace]!.index : -1, baseline: rs, ...(source !== undefined ? { source } : {}) };
        if (inSpace >= 0) variants[inSpace] = v;
        baselines.push(v);
      }
      groups.push({ algorithm: ra.name, type, space, variants, baselines, sizes: ra.sizesFor(type), benchmarks: ra.benchmarks, ...(valueClasses ? { valueClasses } : {}) });
    }
  }
  const counts = new Map<string, number>();
  for (const d of dropped) counts.set(d.reason, (counts.get(d.reason) ?? 0) + 1);
  const reasons = [...counts].map(([reason, count]) => ({ reason, count })).sort((a, b) => b.count - a.count || (a.reason < b.reason ? -1 : 1));
  return { groups, total, kept, dropped, reasons, skipped };
}

function whyNot(prim: Prim, ra: ResolvedAlgorithm, type: ElementType, config: ConfigObject): string | undefined {
  let problem: string | undefined;
  try {
    problem = tunable(ra.name).problem(prim.context, type, config, ra.benchmarks);
  } catch (err) {
    problem = (err as Error).message;
  }
  if (problem !== undefined) return problem;
  for (const c of ra.constraints) {
    const v = constraintViolation(c, config, type);
    if (v !== undefined) return v;
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Shards

/** Shard `index` of `count` (0-based): `--shard 1/3` is the second of three. */
export interface Shard {
  readonly index: number;
  readonly count: number;
}

export function parseShard(text: string): Shard {
  const m = /^(\d+)\/(\d+)$/.exec(text.trim());
  const index = m ? Number(m[1]) : NaN;
  const count = m ? Number(m[2]) : NaN;
  if (!m || !(count >= 1) || !(index >= 0) || index >= count) {
    throw new WgprimError('invalid-argument', `--shard takes i/n with 0 <= i < n (e.g. 0/4), got "${text}"`);
  }
  return { index, count };
}

/**
 * Whether a space variant belongs to a shard: its enumeration index modulo the shard count, so
 * every variant falls in exactly one shard and each shard gets a slice of every group.
 * Baselines (the configs used today) are measured in every shard: each shard's comparison
 * needs them. Enumeration order depends only on the settings and the device.
 */
export function inShard(v: Variant, shard: Shard | undefined): boolean {
  if (!shard || shard.count === 1) return true;
  if (v.baseline) return true;
  return v.index % shard.count === shard.index;
}

/** A whole group's shard, for strategies that search a group as one (local search). */
export function groupInShard(groupIndex: number, shard: Shard | undefined): boolean {
  return !shard || groupIndex % shard.count === shard.index;
}
