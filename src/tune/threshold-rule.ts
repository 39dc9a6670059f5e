// The threshold stage's rule: one path against another at a size, by apply-config-improvements'
// noise rule, and when a path on the ladder is done. Browser-safe.
import { classifyImprovement } from './acceptance.js';

/**
 * P of the noise rule (percent): the block-sort path counts as faster at a size only where its
 * items/s beat onesweep's by more than max(P, 1.96 * sqrt(cv_onesweep^2 + cv_block^2) * 100)
 * percent: apply-config-improvements' acceptance rule, onesweep (the general path) as the old.
 */
export const THRESHOLD_MIN_IMPROVEMENT_PERCENT = 2;

/** A path that has lost at this many sizes in a row is not measured at larger ones (its crossover is behind). */
export const THRESHOLD_LOSSES_TO_STOP = 2;

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

