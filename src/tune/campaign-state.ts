// The state of one running campaign, shared by its steps (build, measure, threshold stages):
// the results so far, the counters, the budget and limit checks, progress, and the Google
// Benchmark file it writes. Browser-safe.
import { type WgprimError } from '../runtime/errors.js';
import { type ElementType, typeInfo } from '../wgsl/types.js';
import { type Prim } from '../prim.js';
import { gbenchContext } from '../bench/gbench.js';
import { type TuneSettings } from './settings.js';
import { type CampaignOptions, StopCampaign } from './campaign-types.js';
import { ResultStore, type TuneFile, isErrorEntry } from './results.js';

export const groupLabel = (g: { algorithm: string; type: string }): string => `${g.algorithm} ${g.type}`;
export const message = (err: unknown): string => String((err as Error)?.message ?? err).split('\n')[0]!.slice(0, 500) || 'unknown error';

/** Throws StopCampaign('device-lost') for a lost device: nothing after it can be measured. */
export function stopIfLost(err: unknown): void {
  if ((err as WgprimError)?.code === 'device-lost') throw new StopCampaign('device-lost', message(err));
}

/** Runs `fn` over `items`, at most `limit` at a time, in order of start. */
export async function pool<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

export interface SmallBuffers {
  readonly input: GPUBuffer;
  readonly output: GPUBuffer;
  readonly count: number;
}

export class CampaignState {
  readonly store: ResultStore;
  readonly settings: TuneSettings;
  /** How every measurement is timed (the settling runs time one batch, cache warm). */
  readonly timing;
  readonly now: () => number;
  readonly deadline: number;
  readonly log: (line: string) => void;
  measured = 0;
  errors = 0;
  reused = 0;
  skipped = 0;
  built = 0;
  buildMs = 0;
  measureMs = 0;
  /** The (type, size) measured last: a new one is settled first (see `settle` in campaign-measure.ts). */
  warm: string | undefined;
  readonly progress = { build: { done: 0, total: 0 }, run: { done: 0, total: 0 } };
  private readonly small = new Map<ElementType, SmallBuffers>();

  constructor(readonly prim: Prim, readonly o: CampaignOptions, readonly algorithms: readonly string[], readonly strategyName: string, existing: ConstructorParameters<typeof ResultStore>[0]) {
    this.settings = o.settings;
    const s = o.settings;
    this.timing = { seed: s.seed, warmup: s.warmup, warmupMs: s.warmupMs, batches: s.batches, batchSize: s.batchSize, forceWallClock: o.forceWallClock, coldCache: s.coldCache };
    this.now = o.now ?? (() => performance.now());
    const budget = o.budgetSeconds ?? s.budgetSeconds;
    this.deadline = budget !== undefined ? this.now() + budget * 1000 : Infinity;
    this.log = o.log ?? (() => undefined);
    this.store = new ResultStore(existing);
  }

  get device(): GPUDevice {
    return this.prim.device;
  }

  report(phase: 'build' | 'run', g: { algorithm: string; type: string }): void {
    const p = this.progress[phase];
    p.total = Math.max(p.total, p.done);
    this.o.onProgress?.({ phase, done: p.done, total: p.total, group: groupLabel(g), stage: g.algorithm });
  }

  /** Whether (name, size) still needs measuring. */
  needs(name: string, size: number): boolean {
    const e = this.store.get(name, size);
    return !e || (this.o.retryErrors === true && isErrorEntry(e));
  }

  /** Before each build and measurement: stops the campaign where an interrupt asked it to or the budget is spent. */
  checkBudget(): void {
    if (this.o.stopRequested?.()) throw new StopCampaign('interrupt', 'interrupted');
    if (this.now() > this.deadline) throw new StopCampaign('budget', `the budget of ${this.o.budgetSeconds ?? this.settings.budgetSeconds} s is spent`);
  }

  checkLimit(): void {
    if (this.o.maxMeasurements !== undefined && this.measured >= this.o.maxMeasurements) throw new StopCampaign('limit', `stopped after ${this.measured} measurements (the limit)`);
  }

  async updated(): Promise<void> {
    await this.o.onUpdate?.(this.file());
  }

  /** The campaign's Google Benchmark file as it stands. */
  file(): TuneFile {
    const s = this.settings;
    const sizes = this.store.sizes;
    const context = gbenchContext({
      adapterInfo: this.o.adapterInfo,
      size: sizes.length === 1 ? sizes[0]! : sizes,
      seed: s.seed,
      batchIterations: s.batchSize,
      warmupIterations: s.warmup,
      batches: s.batches,
      timing: !this.o.forceWallClock && this.device.features.has('timestamp-query') ? 'timestamp-query' : 'wall-clock',
      coldCache: s.coldCache === true,
    }, this.o.host);
    return {
      context: { ...context, tune_strategy: this.strategyName, tune_shard: this.o.shard ? `${this.o.shard.index}/${this.o.shard.count}` : '0/1', tune_algorithms: this.algorithms.join(',') },
      benchmarks: this.store.entries,
    };
  }

  /** Small buffers for the build step's calls, per type (grown when a config covers more). */
  smallBuffers(type: ElementType, count: number): SmallBuffers {
    const have = this.small.get(type);
    if (have && have.count >= count) return { ...have, count };
    have?.input.destroy();
    have?.output.destroy();
    const bytes = Math.ceil((count * typeInfo(type).bytes) / 4) * 4;
    const usage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST;
    const b = { input: this.device.createBuffer({ label: 'wgprim.tune.build.input', size: bytes, usage }), output: this.device.createBuffer({ label: 'wgprim.tune.build.output', size: bytes, usage }), count };
    this.small.set(type, b);
    return b;
  }

  destroy(): void {
    for (const b of this.small.values()) {
      b.input.destroy();
      b.output.destroy();
    }
  }
}
