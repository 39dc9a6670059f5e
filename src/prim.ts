import { DeviceContext } from './runtime/context.js';
import { WgprimError } from './runtime/errors.js';
import { type AdapterInfoLike, type Target, targetFromAdapterInfo } from './runtime/target.js';
import { type SelectedConfig, type TunedEntry } from './config/types.js';
import { type ElementType, type TypeClass } from './wgsl/types.js';
import { type AlgorithmEnv, type ConfigTable, type ValueBytes } from './device/spec.js';
import { selectFromTable } from './device/select.js';
import { ALGORITHMS, type AlgorithmCalls, TABLES, tableNamed, type TunedAlgorithm } from './algorithms.js';
import { normalizeTunedInput, rowKey, TUNED_ALGORITHMS, type TunedInput, type TunedTables } from './tables.js';
import { type TuneCache, type TuneCacheState, readTuneCache } from './tune-cache.js';
import { ArrayApi } from './arrays.js';

export type { TunedTables, TunedInput } from './tables.js';

export interface PrimOptions {
  /** Adapter identity; defaults to `device.adapterInfo`. Tuned configs are selected by it. */
  readonly adapterInfo?: AdapterInfoLike;
  /**
   * Tuned tables loaded at run time, consulted before the built-in ones: tables by name
   * (`{ scan: [...], reduce: [...] }`), a parsed `<table>.json` that `wgprim create-optimization`
   * writes, or a list of either (`loadTunedDir` in `wgprim/node` reads a folder of them).
   * Validated: a malformed row throws `invalid-argument`.
   */
  readonly tuned?: TunedInput;
  /** Alias of `tuned` (its rows come after those of `tuned`). */
  readonly configs?: TunedInput;
  /**
   * Where `tune` (`wgprim/tune`) keeps what it found, per adapter and wgprim version: the rows
   * stored for this adapter and version are installed at once (before `tuned` and the built-in
   * tables); an entry of another adapter or version is ignored (`prim.tuneCacheState` says why).
   * `memoryTuneCache()`, `localStorageTuneCache()` (pages), `fileTuneCache()` (`wgprim/node`).
   */
  readonly tuneCache?: TuneCache;
}

/** A tuned table's name, as `selectedConfig` takes it (`scan`, `reduce`, `transform`, `radixSort`, ...). */
export type AlgorithmName = TunedAlgorithm;

type Rows = Record<string, readonly TunedEntry<unknown>[]>;
type ConfigOfTable<N extends TunedAlgorithm> = NonNullable<TunedTables[N]>[number]['config'];

// The buffer-level calls of every registered algorithm are methods of Prim (installed in the constructor).
export interface Prim extends AlgorithmCalls {}

/** wgprim bound to one GPUDevice: every algorithm, at buffer level and (`arrays`) at array level. */
export class Prim {
  readonly context: DeviceContext;
  readonly arrays: ArrayApi;
  /** What `createPrim` made of `options.tuneCache` (undefined without one). */
  readonly tuneCacheState?: TuneCacheState;
  /** The cache `createPrim` was given: where `tune` stores its rows unless told otherwise. */
  readonly tuneCache?: TuneCache;
  /** Rows installed at run time (`tune`, `useTuned`, the tune cache), consulted first. */
  private runtime: Rows = {};
  private runtimeRows = new Set<TunedEntry<unknown>>();
  private readonly user: Rows;
  private readonly env: AlgorithmEnv;

  /** What the algorithms' calls see of this Prim: for the benchmark runner and the tuner (`wgprim/tune`). */
  get algorithmEnv(): AlgorithmEnv {
    return this.env;
  }

  constructor(device: GPUDevice, options: PrimOptions = {}) {
    if (!device || typeof (device as GPUDevice).createBuffer !== 'function') {
      throw new WgprimError('invalid-argument', 'createPrim needs a GPUDevice');
    }
    const info = options.adapterInfo ?? (device as GPUDevice & { adapterInfo?: GPUAdapterInfo }).adapterInfo;
    this.context = new DeviceContext(device, targetFromAdapterInfo(info));
    const fromTuned = normalizeTunedInput(options.tuned, 'tuned') as Rows;
    const fromConfigs = normalizeTunedInput(options.configs, 'configs') as Rows;
    this.user = Object.fromEntries(TUNED_ALGORITHMS.map((a) => [a, [...(fromTuned[a] ?? []), ...(fromConfigs[a] ?? [])]]));
    this.env = {
      context: this.context,
      rows: <C>(table: ConfigTable<C>) => [this.runtime[table.name] ?? [], this.user[table.name] ?? [], table.builtin] as readonly (readonly TunedEntry<C>[])[],
      select: <C>(table: ConfigTable<C>, type: ElementType, valueBytes: ValueBytes = 0, override?: Partial<C>, typeClass?: TypeClass): SelectedConfig<C> => {
        const s = selectFromTable(this.context, table, this.env.rows(table), type, valueBytes, override, table.fallback && this.env.rows(table.fallback), typeClass);
        return s.entry && s.source !== 'user' && this.runtimeRows.has(s.entry) ? { ...s, source: 'tuned:runtime' } : s;
      },
    };
    for (const algorithm of ALGORITHMS) Object.assign(this, algorithm.calls(this.env));
    if (options.tuneCache) {
      this.tuneCache = options.tuneCache;
      const { state, tables } = readTuneCache(options.tuneCache, this.context.target);
      this.tuneCacheState = state;
      if (tables) this.useTuned(tables);
    }
    this.arrays = new ArrayApi(this.env, device);
  }

  /**
   * Installs tuned rows into this Prim, consulted before the tables given to `createPrim` and
   * the built-in ones (same forms as `createPrim`'s `tuned`; validated, a malformed row throws
   * `invalid-argument`). A row replaces an installed one of the same target and type class;
   * `{ replace: true }` drops every row installed before. `selectedConfig` reports their
   * source as `tuned:runtime`. `tune` (`wgprim/tune`) installs its rows with this.
   */
  useTuned(tables: TunedInput, options: { readonly replace?: boolean } = {}): void {
    const fresh = normalizeTunedInput(tables, 'useTuned') as Rows;
    const next: Rows = options.replace ? {} : { ...this.runtime };
    for (const a of TUNED_ALGORITHMS) {
      const rows = fresh[a];
      if (!rows) continue;
      const byKey = new Map((next[a] ?? []).map((e) => [rowKey(e), e] as const));
      for (const e of rows) byKey.set(rowKey(e), e);
      next[a] = [...byKey.values()];
    }
    this.runtime = next;
    this.runtimeRows = new Set(Object.values(next).flat());
  }

  /** The rows installed at run time (`tune`, `useTuned`, the tune cache), by table. */
  get runtimeTuned(): TunedTables {
    return Object.fromEntries(TUNED_ALGORITHMS.filter((a) => this.runtime[a]?.length).map((a) => [a, [...this.runtime[a]!]])) as TunedTables;
  }

  get device(): GPUDevice {
    return this.context.device;
  }
  get target(): Target {
    return this.context.target;
  }

  /**
   * The config a call of table `algorithm` on `type` would use here, and where it came from.
   * Tables keyed by value class too (the sorts') take the values' size: 0 keys only.
   * `typeClass`, where given, is the class rows are matched on (histograms: RGBA8 pixels are
   * `{ float: false, bytes: 1, channels: 4 }`; by default one channel of `type`'s samples).
   */
  selectedConfig<N extends TunedAlgorithm>(algorithm: N, type: ElementType, override?: Partial<ConfigOfTable<N>>, valueBytes: ValueBytes = 0, typeClass?: TypeClass): SelectedConfig<ConfigOfTable<N>> {
    if (typeof algorithm !== 'string' || !TABLES.some((t) => t.name === algorithm)) {
      throw new WgprimError('invalid-argument', `unknown algorithm "${String(algorithm)}" (tables: ${TUNED_ALGORITHMS.join(', ')})`);
    }
    return this.env.select(tableNamed(algorithm) as ConfigTable<ConfigOfTable<N>>, type, valueBytes, override, typeClass);
  }
}

export function createPrim(device: GPUDevice, options?: PrimOptions): Prim {
  return new Prim(device, options);
}
