// Search strategies over one (algorithm, type) group of variants. Pure logic: the caller
// measures, through `evaluate`. Every strategy measures the baselines (the configs used today)
// first, so a campaign can always compare against them and never ends worse than it started.
// Browser-safe.
import { type ParamValue } from './registry.js';
import { type StrategyName } from './settings.js';
import { type Variant, type VariantGroup, variantKey } from './variants.js';

/** A variant's score (higher is better; items/s), or undefined when it failed or was not measured. */
export type Score = number | undefined;
/** Measures a batch of variants (in parallel where it can) and returns their scores in order. */
export type EvaluateBatch = (variants: readonly Variant[]) => Promise<readonly Score[]>;

/** `auto` picks exhaustive for groups of at most `exhaustiveLimit` variants, local search above. */
export function strategyFor(name: StrategyName | 'auto', groupSize: number, exhaustiveLimit: number): StrategyName {
  if (name !== 'auto') return name;
  return groupSize <= exhaustiveLimit ? 'exhaustive' : 'local';
}

/** A 32-bit FNV-1a hash of a string, mixed with a seed. */
export function hashSeed(seed: number, text: string): number {
  let h = (0x811c9dc5 ^ (seed >>> 0)) >>> 0;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

/** mulberry32: a small seeded generator of floats in [0, 1). */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const groupName = (g: VariantGroup): string => `${g.algorithm}|${g.type}`;

/** Baselines first, then the rest without repeats. */
function withBaselines(g: VariantGroup, rest: readonly Variant[]): Variant[] {
  const seen = new Set(g.baselines.map((b) => b.key));
  return [...g.baselines, ...rest.filter((v) => !seen.has(v.key))];
}

/** exhaustive: the baselines, then every variant in enumeration order. */
export function exhaustiveCandidates(g: VariantGroup): Variant[] {
  return withBaselines(g, g.variants);
}

/**
 * random: the baselines, then `samples` variants drawn without replacement by a generator
 * seeded from `seed` and the group, so the same seed draws the same variants on every run and
 * in every shard.
 */
export function randomCandidates(g: VariantGroup, seed: number, samples: number): Variant[] {
  const pool = g.variants.filter((v) => !v.baseline);
  const next = rng(hashSeed(seed, groupName(g)));
  for (let i = pool.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [pool[i], pool[j]] = [pool[j]!, pool[i]!];
  }
  return withBaselines(g, pool.slice(0, samples));
}

/**
 * Neighbours of a config in a group's space: for each field, the next lower and next higher
 * value of a numeric field (by value, so a baseline outside the space has neighbours too), or
 * every other value of a string or boolean field. Only variants of the group (kept, so the
 * device can run them) are returned, in field order.
 */
export function neighbours(g: VariantGroup, config: Readonly<Record<string, ParamValue>>, byKey: ReadonlyMap<string, Variant>): Variant[] {
  const out: Variant[] = [];
  for (const [field, values] of Object.entries(g.space)) {
    const cur = config[field];
    let candidates: ParamValue[];
    if (typeof cur === 'number' && values.every((v) => typeof v === 'number')) {
      const nums = [...(values as number[])].sort((a, b) => a - b);
      const below = nums.filter((v) => v < cur).pop();
      const above = nums.find((v) => v > cur);
      candidates = [below, above].filter((v): v is number => v !== undefined);
    } else {
      candidates = values.filter((v) => v !== cur);
    }
    for (const value of candidates) {
      const v = byKey.get(variantKey(g.algorithm, g.type, { ...config, [field]: value }));
      if (v) out.push(v);
    }
  }
  return out;
}

export interface LocalSearchOptions {
  readonly seed: number;
  /** Most variants measured in this group, baselines included. */
  readonly maxEvaluations: number;
  /** Checked before each batch: true ends the search (a time budget). */
  readonly shouldStop?: () => boolean;
}

export interface LocalSearchResult {
  /** Variants measured, in order. */
  readonly evaluated: readonly Variant[];
  readonly best?: { readonly variant: Variant; readonly score: number };
  /** Moves to a better neighbour. */
  readonly moves: number;
  /** Restarts from a random unvisited variant after a local optimum. */
  readonly restarts: number;
}

/**
 * local: steepest-ascent hill climbing from the best baseline (the config used today). Each step
 * measures every unvisited neighbour (one batch, so their pipelines compile in parallel) and
 * moves to the best one if it beats the current config; at a local optimum it restarts from a
 * variant drawn by the seeded generator. Stops after `maxEvaluations` variants, when
 * `shouldStop` says so, or when every variant was measured. Deterministic given the seed and
 * the scores.
 */
export async function localSearch(g: VariantGroup, evaluate: EvaluateBatch, o: LocalSearchOptions): Promise<LocalSearchResult> {
  const byKey = new Map<string, Variant>(g.variants.map((v) => [v.key, v]));
  for (const b of g.baselines) if (!byKey.has(b.key)) byKey.set(b.key, b);
  const scores = new Map<string, Score>();
  const evaluated: Variant[] = [];
  const next = rng(hashSeed(o.seed, groupName(g)));
  let best: { variant: Variant; score: number } | undefined;
  let moves = 0;
  let restarts = 0;

  const run = async (vs: readonly Variant[]): Promise<Variant[]> => {
    const fresh = vs.filter((v, i) => !scores.has(v.key) && vs.findIndex((w) => w.key === v.key) === i)
      .slice(0, Math.max(0, o.maxEvaluations - evaluated.length));
    if (!fresh.length) return [];
    const s = await evaluate(fresh);
    fresh.forEach((v, i) => {
      scores.set(v.key, s[i]);
      evaluated.push(v);
      const score = s[i];
      if (score !== undefined && (!best || score > best.score)) best = { variant: v, score };
    });
    return fresh;
  };
  const scoreOf = (v: Variant): number => scores.get(v.key) ?? -Infinity;
  const stop = (): boolean => evaluated.length >= o.maxEvaluations || (o.shouldStop?.() ?? false);

  await run(g.baselines);
  let current: Variant | undefined = [...g.baselines].sort((a, b) => scoreOf(b) - scoreOf(a))[0];
  if (current && scores.get(current.key) === undefined) current = undefined;
  while (!stop()) {
    if (current) {
      const around = neighbours(g, current.config, byKey).filter((v) => !scores.has(v.key));
      await run(around);
      const top = around.filter((v) => scores.has(v.key)).sort((a, b) => scoreOf(b) - scoreOf(a))[0];
      if (top && scoreOf(top) > scoreOf(current)) {
        current = top;
        moves++;
        continue;
      }
      if (stop()) break;
    }
    // A local optimum (or no working start): restart from a random unvisited variant.
    const unvisited = g.variants.filter((v) => !scores.has(v.key));
    if (!unvisited.length) break;
    const pick = unvisited[Math.floor(next() * unvisited.length)]!;
    await run([pick]);
    restarts++;
    current = scores.get(pick.key) !== undefined ? pick : undefined;
  }
  return { evaluated, best, moves, restarts };
}
