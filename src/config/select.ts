import { WgprimError } from '../runtime/errors.js';
import { type Target } from '../runtime/target.js';
import { type TypeClass } from '../wgsl/types.js';
import { type ConfigSource, type SelectedConfig, type TargetMatch, type TunedEntry } from './types.js';

/** How specific a match is (3 device, 2 architecture, 1 vendor), or -1 when it does not match. */
export function matchLevel(m: TargetMatch, t: Target): number {
  const eq = (a: string | undefined, b: string): boolean => a === undefined || a.toLowerCase() === b;
  if (!eq(m.vendor, t.vendor) || !eq(m.architecture, t.architecture) || !eq(m.device, t.device)) return -1;
  if (m.device) return 3;
  if (m.architecture) return 2;
  if (m.vendor) return 1;
  return 0;
}

const SOURCES: Record<number, ConfigSource> = { 3: 'tuned:device', 2: 'tuned:architecture', 1: 'tuned:vendor' };

/**
 * Whether a row's class beyond (float, bytes) serves a call's, field by field (`valueBytes`,
 * `channels`): 0 where the row names a field with another value than the call's (no match);
 * else 1, plus 1 for each field the row names with the call's value (a row without a field
 * serves any; a call without one takes every row's as a match of 1).
 */
export function valueMatch(row: TypeClass, call: TypeClass): number {
  let value = 1;
  for (const field of ['valueBytes', 'channels'] as const) {
    if (row[field] === undefined || call[field] === undefined) continue;
    if (row[field] !== call[field]) return 0;
    value++;
  }
  return value;
}

/**
 * The most specific tuned entry for this target and type class that the device can run;
 * otherwise the heuristic. Target specificity comes first (device, architecture, vendor); at the
 * same level, a row whose `valueBytes` (or `channels`) equals the call's beats a row without it.
 * `invalidReason` returns why a config cannot run here, or undefined (such rows are skipped).
 */
export function selectConfig<C>(
  tables: readonly (readonly TunedEntry<C>[])[],
  target: Target,
  typeClass: TypeClass,
  invalidReason: (c: C) => string | undefined,
  heuristic: () => C,
): SelectedConfig<C> {
  let best: { level: number; value: number; entry: TunedEntry<C> } | undefined;
  // Earlier tables (user-supplied ones) win ties against later ones (the built-in tables).
  for (const table of tables) {
    for (const entry of table) {
      if (entry.typeClass.float !== typeClass.float || entry.typeClass.bytes !== typeClass.bytes) continue;
      const value = valueMatch(entry.typeClass, typeClass);
      if (value === 0) continue;
      const level = matchLevel(entry.target, target);
      if (level <= 0 || (best && (best.level > level || (best.level === level && best.value >= value)))) continue;
      if (invalidReason(entry.config) !== undefined) continue;
      best = { level, value, entry };
    }
  }
  if (best) return { config: best.entry.config, source: SOURCES[best.level]!, entry: best.entry };
  return { config: heuristic(), source: 'heuristic' };
}

/**
 * `selectConfig`, then a caller's partial config merged over the result. The merged config is
 * checked: one the device cannot run is a typed error, never silently replaced.
 */
export function selectWithOverride<C>(
  algorithm: string,
  tables: readonly (readonly TunedEntry<C>[])[],
  target: Target,
  typeClass: TypeClass,
  invalidReason: (c: C) => string | undefined,
  heuristic: () => C,
  override: Partial<C> | undefined,
): SelectedConfig<C> {
  return withOverride(algorithm, selectConfig(tables, target, typeClass, invalidReason, heuristic), invalidReason, override);
}

/** A caller's partial config merged over `selected`, checked as `selectWithOverride` checks it. */
export function withOverride<C>(algorithm: string, selected: SelectedConfig<C>, invalidReason: (c: C) => string | undefined, override: Partial<C> | undefined): SelectedConfig<C> {
  if (!override) return selected;
  const config = { ...selected.config, ...override };
  const problem = invalidReason(config);
  if (problem !== undefined) throw new WgprimError('invalid-config', `${algorithm} config cannot run on this device: ${problem}`);
  return { config, source: 'user' };
}
