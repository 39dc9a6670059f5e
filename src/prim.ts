import { DeviceContext } from './runtime/context.js';
import { WgprimError } from './runtime/errors.js';
import { type AdapterInfoLike, type Target, targetFromAdapterInfo } from './runtime/target.js';
import { type TunedEntry, type SelectedConfig } from './config/types.js';
import { normalizeTunedInput, rowKey, TUNED_ALGORITHMS, type TunedAlgorithm, type TunedInput, type TunedTables } from './config/tables.js';
import { type TuneCache, type TuneCacheState, readTuneCache } from './tune/cache.js';
import { type TuneOptions, type TuneSummary, tunePrim } from './tune/runtime.js';
import { scanTuned } from './config/tuned/scan.js';
import { reduceTuned } from './config/tuned/reduce.js';
import { transformTuned } from './config/tuned/transform.js';
import { radixSortTuned } from './config/tuned/radix-sort.js';
import { segmentedRadixSortTuned } from './config/tuned/segmented-radix-sort.js';
import { type SegmentedRadixSortConfig } from './device/segmented-radix-sort/config.js';
import { recordSegmentedRadixSort, type SegmentedRadixSortKeysArgs, type SegmentedRadixSortPairsArgs, selectSegmentedRadixSortConfig } from './device/segmented-radix-sort/segmented-radix-sort.js';
import { radixSortBlockSortTuned } from './config/tuned/radix-sort-block-sort.js';
import { type ScanConfig } from './device/scan/config.js';
import { recordScan, type ScanArgs, selectScanConfig } from './device/scan/scan.js';
import { type ReduceConfig } from './device/reduce/config.js';
import { recordReduce, type ReduceArgs, selectReduceConfig } from './device/reduce/reduce.js';
import { type TransformConfig } from './device/transform/config.js';
import { recordTransform, type TransformArgs, selectTransformConfig } from './device/transform/transform.js';
import { type RadixSortConfig } from './device/radix-sort/config.js';
import { recordRadixSort, type RadixSortKeysArgs, type RadixSortPairsArgs, selectRadixSortBlockSortConfig, selectRadixSortConfig } from './device/radix-sort/radix-sort.js';
import { type RadixSortBlockSortConfig } from './device/radix-sort/block-sort-config.js';
import { type ElementType } from './wgsl/types.js';
import { ArrayApi } from './arrays.js';

export type { TunedTables, TunedInput } from './config/tables.js';

export interface PrimOptions {
  /** Adapter identity; defaults to `device.adapterInfo`. Tuned configs are selected by it. */
  readonly adapterInfo?: AdapterInfoLike;
  /**
   * Tuned tables loaded at run time, consulted before the built-in ones: tables by algorithm
   * (`{ scan: [...], reduce: [...] }`), a parsed `<algorithm>.json` that
   * `wgprim create-optimization` writes, or a list of either (`loadTunedDir` in `wgprim/node`
   * reads a folder of them). Validated: a malformed row throws `invalid-argument`.
   */
  readonly tuned?: TunedInput;
  /** Alias of `tuned` (its rows come after those of `tuned`). */
  readonly configs?: TunedInput;
  /**
   * Where `prim.tune` keeps what it found, per adapter and wgprim version: the rows stored for
   * this adapter and version are installed at once (before `tuned` and the built-in tables);
   * an entry of another adapter or version is ignored (`prim.tuneCacheState` says why).
   * `memoryTuneCache()`, `localStorageTuneCache()` (pages), `fileTuneCache()` (`wgprim/node`).
   */
  readonly tuneCache?: TuneCache;
}

export type AlgorithmName = 'scan' | 'reduce' | 'transform';

/** wgprim bound to one GPUDevice: every algorithm, at buffer level and (`arrays`) at array level. */
export class Prim {
  readonly context: DeviceContext;
  readonly arrays: ArrayApi;
  /** What `createPrim` made of `options.tuneCache` (undefined without one). */
  readonly tuneCacheState?: TuneCacheState;
  private readonly tuneCache?: TuneCache;
  private tables: {
    scan: readonly (readonly TunedEntry<ScanConfig>[])[];
    reduce: readonly (readonly TunedEntry<ReduceConfig>[])[];
    transform: readonly (readonly TunedEntry<TransformConfig>[])[];
    radixSort: readonly (readonly TunedEntry<RadixSortConfig>[])[];
    segmentedRadixSort: readonly (readonly TunedEntry<SegmentedRadixSortConfig>[])[];
    radixSortBlockSort: readonly (readonly TunedEntry<RadixSortBlockSortConfig>[])[];
  };
  /** Rows installed at run time (`tune`, `useTuned`, the tune cache), consulted first. */
  private runtime: Record<TunedAlgorithm, readonly TunedEntry<unknown>[]> = { scan: [], reduce: [], transform: [], radixSort: [], radixSortBlockSort: [], segmentedRadixSort: [] };
  private runtimeRows = new Set<TunedEntry<unknown>>();
  private readonly user: TunedTables;
  private tuning = false;

  constructor(device: GPUDevice, options: PrimOptions = {}) {
    if (!device || typeof (device as GPUDevice).createBuffer !== 'function') {
      throw new WgprimError('invalid-argument', 'createPrim needs a GPUDevice');
    }
    const info = options.adapterInfo ?? (device as GPUDevice & { adapterInfo?: GPUAdapterInfo }).adapterInfo;
    this.context = new DeviceContext(device, targetFromAdapterInfo(info));
    const fromTuned = normalizeTunedInput(options.tuned, 'tuned');
    const fromConfigs = normalizeTunedInput(options.configs, 'configs');
    const user: TunedTables = {
      scan: [...(fromTuned.scan ?? []), ...(fromConfigs.scan ?? [])],
      reduce: [...(fromTuned.reduce ?? []), ...(fromConfigs.reduce ?? [])],
      transform: [...(fromTuned.transform ?? []), ...(fromConfigs.transform ?? [])],
      radixSort: [...(fromTuned.radixSort ?? []), ...(fromConfigs.radixSort ?? [])],
      segmentedRadixSort: [...(fromTuned.segmentedRadixSort ?? []), ...(fromConfigs.segmentedRadixSort ?? [])],
      radixSortBlockSort: [...(fromTuned.radixSortBlockSort ?? []), ...(fromConfigs.radixSortBlockSort ?? [])],
    };
    this.user = user;
    this.tables = this.makeTables();
    if (options.tuneCache) {
      this.tuneCache = options.tuneCache;
      const { state, tables } = readTuneCache(options.tuneCache, this.context.target);
      this.tuneCacheState = state;
      if (tables) this.useTuned(tables);
    }
    this.arrays = new ArrayApi(this);
  }

  private makeTables(): Prim['tables'] {
    const r = this.runtime;
    const u = this.user;
    return {
      scan: [r.scan as readonly TunedEntry<ScanConfig>[], u.scan ?? [], scanTuned],
      reduce: [r.reduce as readonly TunedEntry<ReduceConfig>[], u.reduce ?? [], reduceTuned],
      transform: [r.transform as readonly TunedEntry<TransformConfig>[], u.transform ?? [], transformTuned],
      radixSort: [r.radixSort as readonly TunedEntry<RadixSortConfig>[], u.radixSort ?? [], radixSortTuned],
      segmentedRadixSort: [r.segmentedRadixSort as readonly TunedEntry<SegmentedRadixSortConfig>[], u.segmentedRadixSort ?? [], segmentedRadixSortTuned],
      radixSortBlockSort: [r.radixSortBlockSort as readonly TunedEntry<RadixSortBlockSortConfig>[], u.radixSortBlockSort ?? [], radixSortBlockSortTuned],
    };
  }

  /**
   * Installs tuned rows into this Prim, consulted before the tables given to `createPrim` and
   * the built-in ones (same forms as `createPrim`'s `tuned`; validated, a malformed row throws
   * `invalid-argument`). A row replaces an installed one of the same target and type class;
   * `{ replace: true }` drops every row installed before. `selectedConfig` reports their
   * source as `tuned:runtime`. `prim.tune` installs its rows with this.
   */
  useTuned(tables: TunedInput, options: { readonly replace?: boolean } = {}): void {
    const fresh = normalizeTunedInput(tables, 'useTuned') as Record<string, readonly TunedEntry<unknown>[] | undefined>;
    const next = { ...(options.replace ? { scan: [], reduce: [], transform: [], radixSort: [], radixSortBlockSort: [], segmentedRadixSort: [] } : this.runtime) };
    for (const a of TUNED_ALGORITHMS) {
      const rows = fresh[a];
      if (!rows) continue;
      const byKey = new Map(next[a].map((e) => [rowKey(e), e] as const));
      for (const e of rows) byKey.set(rowKey(e), e);
      next[a] = [...byKey.values()];
    }
    this.runtime = next;
    this.runtimeRows = new Set(TUNED_ALGORITHMS.flatMap((a) => next[a]));
    this.tables = this.makeTables();
  }

  /** The rows installed at run time (`tune`, `useTuned`, the tune cache), by algorithm. */
  get runtimeTuned(): TunedTables {
    const out: Record<string, readonly TunedEntry<unknown>[]> = {};
    for (const a of TUNED_ALGORITHMS) if (this.runtime[a].length) out[a] = [...this.runtime[a]];
    return out as TunedTables;
  }

  /**
   * Tunes on this device within `budgetMs`: a small campaign (by default a local search from
   * the configs selected today, the representative type of each type class, one size), the
   * best config per algorithm and type class turned into rows (create-optimization, in memory),
   * those that beat today's configs installed (`useTuned`), and every installed row stored in
   * the tune cache (`options.cache`, else `createPrim`'s `tuneCache`) under this adapter and
   * wgprim version. Returns what was measured and decided. Calls must not overlap.
   */
  async tune(options: TuneOptions): Promise<TuneSummary> {
    if (this.tuning) throw new WgprimError('invalid-argument', 'prim.tune is already running on this Prim: await the first call');
    this.tuning = true;
    try {
      return await tunePrim(this, this.tuneCache, options);
    } finally {
      this.tuning = false;
    }
  }

  get device(): GPUDevice {
    return this.context.device;
  }
  get target(): Target {
    return this.context.target;
  }

  /** Records an inclusive scan of `count` elements from `input` to `output` into `encoder`. */
  inclusiveScan(encoder: GPUCommandEncoder, args: ScanArgs): Promise<void> {
    return recordScan(this.context, this.tables.scan, encoder, args, false);
  }
  /** Records an exclusive scan (output[0] is the initial value, or the identity). */
  exclusiveScan(encoder: GPUCommandEncoder, args: ScanArgs): Promise<void> {
    return recordScan(this.context, this.tables.scan, encoder, args, true);
  }
  /** Records a reduction of `count` elements of `input` into element 0 of `output`. */
  reduce(encoder: GPUCommandEncoder, args: ReduceArgs): Promise<void> {
    return recordReduce(this.context, this.tables.reduce, encoder, args);
  }
  /** Records `output[i] = f(a[i])` or `f(a[i], b[i])` for a WGSL expression. */
  transform(encoder: GPUCommandEncoder, args: TransformArgs): Promise<void> {
    return recordTransform(this.context, this.tables.transform, encoder, args);
  }

  /**
   * Records a stable LSD radix sort of `count` keys (portable multi-pass path: correct without
   * forward progress). Sorted in place unless `keysOut` is given; a scratch buffer of the keys'
   * size is used for the passes in between.
   */
  radixSortKeys(encoder: GPUCommandEncoder, args: RadixSortKeysArgs): Promise<void> {
    return recordRadixSort(this.context, this.tables.radixSort, this.tables.radixSortBlockSort, this.tables.scan, encoder, args, false);
  }
  /** Records a stable LSD radix sort of keys with values of 4 or 8 bytes moved alongside. */
  radixSortPairs(encoder: GPUCommandEncoder, args: RadixSortPairsArgs): Promise<void> {
    return recordRadixSort(this.context, this.tables.radixSort, this.tables.radixSortBlockSort, this.tables.scan, encoder, args, true);
  }
  /**
   * The radix sort config a call would use for these keys and values (0: keys only), and where
   * it came from. Rows are keyed by the key type's class and the value size they were tuned with
   * (`typeClass.valueBytes`, 0 keys only): at one target level a row with these values wins over
   * one without `valueBytes` (which serves any values); a row the values make too large for
   * workgroup memory is skipped.
   */
  selectedRadixSortConfig(type: ElementType, valueBytes: 0 | 4 | 8 = 0, override?: Partial<RadixSortConfig>): SelectedConfig<RadixSortConfig> {
    const s = selectRadixSortConfig(this.context, this.tables.radixSort, type, valueBytes, override);
    return s.entry && s.source !== 'user' && this.runtimeRows.has(s.entry) ? { ...s, source: 'tuned:runtime' } : s;
  }

  /**
   * The config of the radix sort's small-size path (block sort + merge, counts up to its
   * `maxCount`) a call would use for these keys and values, and where it came from.
   */
  selectedRadixSortBlockSortConfig(type: ElementType, valueBytes: 0 | 4 | 8 = 0, override?: Partial<RadixSortBlockSortConfig>): SelectedConfig<RadixSortBlockSortConfig> {
    const s = selectRadixSortBlockSortConfig(this.context, this.tables.radixSortBlockSort, type, valueBytes, override);
    return s.entry && s.source !== 'user' && this.runtimeRows.has(s.entry) ? { ...s, source: 'tuned:runtime' } : s;
  }

  /**
   * Records a stable radix sort of each segment [begin[i], end[i]) of `keys` into `keysOut`
   * (CUB's DeviceSegmentedRadixSort::SortKeys). `endOffsets` omitted: segment i ends where
   * segment i + 1 begins (`beginOffsets` holds segments + 1 entries). Elements no segment covers
   * are copied to `keysOut` unchanged.
   */
  segmentedRadixSortKeys(encoder: GPUCommandEncoder, args: SegmentedRadixSortKeysArgs): Promise<void> {
    return recordSegmentedRadixSort(this.context, this.tables.segmentedRadixSort, encoder, args, false);
  }
  /** `segmentedRadixSortKeys` with values of 4 or 8 bytes moved alongside (into `valuesOut`). */
  segmentedRadixSortPairs(encoder: GPUCommandEncoder, args: SegmentedRadixSortPairsArgs): Promise<void> {
    return recordSegmentedRadixSort(this.context, this.tables.segmentedRadixSort, encoder, args, true);
  }
  /** The segmented radix sort config a call would use for these keys and values (0: keys only), and where it came from. */
  selectedSegmentedRadixSortConfig(type: ElementType, valueBytes: 0 | 4 | 8 = 0, override?: Partial<SegmentedRadixSortConfig>): SelectedConfig<SegmentedRadixSortConfig> {
    const s = selectSegmentedRadixSortConfig(this.context, this.tables.segmentedRadixSort, type, valueBytes, override);
    return s.entry && s.source !== 'user' && this.runtimeRows.has(s.entry) ? { ...s, source: 'tuned:runtime' } : s;
  }

  /** The config a call of `algorithm` on `type` would use here, and where it came from. */
  selectedConfig(algorithm: 'scan', type: ElementType, override?: Partial<ScanConfig>): SelectedConfig<ScanConfig>;
  selectedConfig(algorithm: 'reduce', type: ElementType, override?: Partial<ReduceConfig>): SelectedConfig<ReduceConfig>;
  selectedConfig(algorithm: 'transform', type: ElementType, override?: Partial<TransformConfig>): SelectedConfig<TransformConfig>;
  selectedConfig(algorithm: AlgorithmName, type: ElementType, override?: object): SelectedConfig<unknown>;
  selectedConfig(algorithm: AlgorithmName, type: ElementType, override?: object): SelectedConfig<unknown> {
    let s: SelectedConfig<unknown>;
    switch (algorithm) {
      case 'scan': s = selectScanConfig(this.context, this.tables.scan, type, override as Partial<ScanConfig>); break;
      case 'reduce': s = selectReduceConfig(this.context, this.tables.reduce, type, override as Partial<ReduceConfig>); break;
      case 'transform': s = selectTransformConfig(this.context, this.tables.transform, type, override as Partial<TransformConfig>); break;
      default: throw new WgprimError('invalid-argument', `unknown algorithm "${String(algorithm)}"`);
    }
    return s.entry && s.source !== 'user' && this.runtimeRows.has(s.entry) ? { ...s, source: 'tuned:runtime' } : s;
  }
}

export function createPrim(device: GPUDevice, options?: PrimOptions): Prim {
  return new Prim(device, options);
}
