import { type TypeClass } from '../wgsl/types.js';

/** Which GPUs a tuned entry is for: every field given must match; more fields, more specific. */
export interface TargetMatch {
  readonly vendor?: string;
  readonly architecture?: string;
  readonly device?: string;
}

/** What a tuned entry was chosen on. */
export interface TuningEvidence {
  /** Score it won with: items per second (geometric mean over sizes where several were measured). */
  readonly itemsPerSecond: number;
  /** Coefficient of variation of its timings (generated tables: the largest over the measured points). */
  readonly cv: number;
  /** Input size(s) measured. */
  readonly size: number | readonly number[];
  /** ISO date of the measurement. */
  readonly date: string;
  /** wgprim version that measured it. */
  readonly version: string;
  readonly note?: string;
  /** The score it won with where that is not items/s (block-sort tile bias: items/s * (bs*ipt)^(1/4)). */
  readonly score?: number;
  /** Vendor-level rows: the devices (`vendor/architecture/device`) whose scores were combined. */
  readonly devices?: readonly string[];
}

/** One row of a tuned table: for this target and type class, use this config. */
export interface TunedEntry<C> {
  readonly target: TargetMatch;
  readonly typeClass: TypeClass;
  readonly config: C;
  readonly evidence: TuningEvidence;
}

/**
 * Where a selected config came from: a per-call override (`user`), a row of the tuned tables
 * (built-in or given to `createPrim`) by how specific its match is, a row installed at run time
 * (`tuned:runtime`: `prim.tune`, `prim.useTuned` or the tune cache), or the heuristic.
 */
export type ConfigSource = 'user' | 'tuned:runtime' | 'tuned:device' | 'tuned:architecture' | 'tuned:vendor' | 'heuristic';

export interface SelectedConfig<C> {
  readonly config: C;
  readonly source: ConfigSource;
  readonly entry?: TunedEntry<C>;
}
