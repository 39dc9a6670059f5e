import { DeviceContext } from './runtime/context.js';
import { WgprimError } from './runtime/errors.js';
import { type AdapterInfoLike, type Target, targetFromAdapterInfo } from './runtime/target.js';
import { type TunedEntry, type SelectedConfig } from './config/types.js';
import { normalizeTunedInput, type TunedInput, type TunedTables } from './config/tables.js';
import { scanTuned } from './config/tuned/scan.js';
import { reduceTuned } from './config/tuned/reduce.js';
import { transformTuned } from './config/tuned/transform.js';
import { type ScanConfig } from './device/scan/config.js';
import { recordScan, type ScanArgs, selectScanConfig } from './device/scan/scan.js';
import { type ReduceConfig } from './device/reduce/config.js';
import { recordReduce, type ReduceArgs, selectReduceConfig } from './device/reduce/reduce.js';
import { type TransformConfig } from './device/transform/config.js';
import { recordTransform, type TransformArgs, selectTransformConfig } from './device/transform/transform.js';
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
}

export type AlgorithmName = 'scan' | 'reduce' | 'transform';

/** wgprim bound to one GPUDevice: every algorithm, at buffer level and (`arrays`) at array level. */
export class Prim {
  readonly context: DeviceContext;
  readonly arrays: ArrayApi;
  private readonly tables: {
    scan: readonly (readonly TunedEntry<ScanConfig>[])[];
    reduce: readonly (readonly TunedEntry<ReduceConfig>[])[];
    transform: readonly (readonly TunedEntry<TransformConfig>[])[];
  };

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
    };
    this.tables = {
      scan: [user.scan ?? [], scanTuned],
      reduce: [user.reduce ?? [], reduceTuned],
      transform: [user.transform ?? [], transformTuned],
    };
    this.arrays = new ArrayApi(this);
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

  /** The config a call of `algorithm` on `type` would use here, and where it came from. */
  selectedConfig(algorithm: 'scan', type: ElementType, override?: Partial<ScanConfig>): SelectedConfig<ScanConfig>;
  selectedConfig(algorithm: 'reduce', type: ElementType, override?: Partial<ReduceConfig>): SelectedConfig<ReduceConfig>;
  selectedConfig(algorithm: 'transform', type: ElementType, override?: Partial<TransformConfig>): SelectedConfig<TransformConfig>;
  selectedConfig(algorithm: AlgorithmName, type: ElementType, override?: object): SelectedConfig<unknown>;
  selectedConfig(algorithm: AlgorithmName, type: ElementType, override?: object): SelectedConfig<unknown> {
    switch (algorithm) {
      case 'scan': return selectScanConfig(this.context, this.tables.scan, type, override as Partial<ScanConfig>);
      case 'reduce': return selectReduceConfig(this.context, this.tables.reduce, type, override as Partial<ReduceConfig>);
      case 'transform': return selectTransformConfig(this.context, this.tables.transform, type, override as Partial<TransformConfig>);
      default: throw new WgprimError('invalid-argument', `unknown algorithm "${String(algorithm)}"`);
    }
  }
}

export function createPrim(device: GPUDevice, options?: PrimOptions): Prim {
  return new Prim(device, options);
}
