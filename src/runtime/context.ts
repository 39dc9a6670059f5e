import { WgprimError, fail } from './errors.js';
import { type Kernel } from './kernel.js';
import { type Target } from './target.js';
import { gridFor, roundUp } from './dispatch.js';
import { type TypeInfo } from '../wgsl/types.js';
import { type BindingKind } from '../wgsl/views.js';

const UNIFORM_CACHE_LIMIT = 512;
const BIND_GROUP_CACHE_LIMIT = 256;

/** A buffer range seen as one kernel view: two bindings and where the scalar tail starts. */
export interface ViewBinding {
  readonly entries: [GPUBufferBinding, GPUBufferBinding];
  /** First element index held by the scalar binding. */
  readonly tailStart: number;
}

/**
 * A hook `DeviceContext.dispatch` calls for each compute pass it records while set: it returns
 * the timestamp writes for that pass (query set and indices), or undefined to leave it untimed.
 * The label is the kernel's (`wgprim.scan.<mode>.<type>`, ...).
 */
export interface DispatchProfiler {
  passTimestampWrites(label: string): GPUComputePassTimestampWrites | undefined;
}

/** A numeric limit of `GPUSupportedLimits` (`maxStorageBufferBindingSize`, ...). */
export type LimitName = Exclude<{ [K in keyof GPUSupportedLimits]-?: GPUSupportedLimits[K] extends number ? K : never }[keyof GPUSupportedLimits], undefined>;

// The limits of the adapter each device came from, where its creator told us (a GPUDevice does
// not say): they decide whether a limit-exceeded error can be cured by asking for more.
const adapterLimitsByDevice = new WeakMap<GPUDevice, GPUSupportedLimits>();

/**
 * Tells wgprim the limits of the adapter `device` was requested from (`adapter.limits`), so that
 * an error about a device limit says whether the adapter allows more or the work must be split.
 * `wgprim/node`'s `requestDevice` does this; call it where you create devices yourself.
 */
export function registerAdapterLimits(device: GPUDevice, adapterLimits: GPUSupportedLimits): void {
  adapterLimitsByDevice.set(device, adapterLimits);
}

/**
 * Device-level services shared by every algorithm of one `Prim`: compiled pipelines,
 * immutable uniform blocks, growable scratch buffers, bind groups, dispatch.
 */
export class DeviceContext {
  readonly device: GPUDevice;
  readonly target: Target;
  readonly features: ReadonlySet<string>;
  readonly limits: GPUSupportedLimits;
  private readonly pipelines = new Map<string, Promise<GPUComputePipeline>>();
  private readonly layouts = new Map<string, GPUBindGroupLayout>();
  private readonly uniforms = new Map<string, GPUBuffer>();
  private readonly scratchBuffers = new Map<string, GPUBuffer>();
  private readonly dummies: GPUBuffer[] = [];
  private readonly bindGroups = new Map<string, GPUBindGroup>();
  private readonly bufferIds = new WeakMap<GPUBuffer, number>();
  private nextBufferId = 1;
  private lostReason: string | undefined;
  /**
   * Optional per-dispatch profiler (e.g. `KernelProfiler` of `bench/profile`): while set, every
   * pass `dispatch` records asks it for timestamp writes. Leave undefined outside profiling.
   */
  profiler: DispatchProfiler | undefined;

  constructor(device: GPUDevice, target: Target) {
    this.device = device;
    this.target = target;
    this.features = new Set(device.features as unknown as Iterable<string>);
    this.limits = device.limits;
    device.lost.then((info) => {
      this.lostReason = `${info.reason}: ${info.message}`;
    }, () => undefined);
  }

  /** The adapter's value of a limit, where `registerAdapterLimits` was told it. */
  adapterLimit(name: LimitName): number | undefined {
    const v = adapterLimitsByDevice.get(this.device)?.[name];
    return typeof v === 'number' ? v : undefined;
  }

  /**
   * What to do when `need` is over this device's `name` limit: request a larger limit where the
   * adapter allows enough, otherwise `split` (how to split the work, e.g. "split the work into
   * calls of at most N elements"). Without the adapter's limits it gives both, conditionally.
   */
  limitAdvice(name: LimitName, need: number, split: string): string {
    const have = this.limits[name] as number;
    const adapter = this.adapterLimit(name);
    if (adapter === undefined) {
      return `if the adapter allows more (adapter.limits.${name}), request it in requiredLimits when creating the device; otherwise ${split}`;
    }
    if (adapter <= have) return `${have} is the adapter's maximum, so ${split}`;
    if (adapter < need) return `the adapter's maximum, ${adapter}, is not enough either: ${split}`;
    return `the adapter allows up to ${adapter}: request requiredLimits: { ${name}: ${adapter} } when creating the device (wgprim/node's requestDevice does), or ${split}`;
  }

  get hasSubgroups(): boolean {
    return this.features.has('subgroups');
  }

  assertAlive(): void {
    if (this.lostReason !== undefined) {
      fail('device-lost', `the GPUDevice was lost (${this.lostReason}); create a new device and a new Prim`);
    }
  }

  requireTypeFeature(t: TypeInfo): void {
    if (t.feature && !this.features.has(t.feature)) {
      fail('missing-feature', `type ${t.name} needs the device feature "${t.feature}", which this device was not created with (request it in requiredFeatures if the adapter has it)`);
    }
  }

  /** The pipeline for a kernel, compiled once (asynchronously) and cached by its key. */
  pipeline(kernel: Kernel): Promise<GPUComputePipeline> {
    let p = this.pipelines.get(kernel.key);
    if (!p) {
      p = this.compile(kernel);
      this.pipelines.set(kernel.key, p);
      // A failed compile is not cached: the error is reported, and a retry compiles again.
      p.catch(() => this.pipelines.delete(kernel.key));
    }
    return p;
  }

  private async compile(kernel: Kernel): Promise<GPUComputePipeline> {
    // A module that does not parse raises a validation error on the device; catch it in a scope
    // of our own (pushed and popped synchronously, so concurrent calls cannot interleave with
    // it) so that it is reported once, as a WgprimError, and never reaches the caller's error
    // scopes or the device's uncapturederror handler.
    this.device.pushErrorScope('validation');
    const module = this.device.createShaderModule({ label: kernel.label, code: kernel.code });
    const layout = this.device.createPipelineLayout({ bindGroupLayouts: [this.layout(kernel.bindings)] });
    const moduleError = this.device.popErrorScope().catch(() => null);
    try {
      return await this.device.createComputePipelineAsync({ label: kernel.label, layout, compute: { module, entryPoint: 'main' } });
    } catch (err) {
      const scoped = await moduleError;
      const info = await module.getCompilationInfo().catch(() => undefined);
      const messages = (info?.messages ?? [])
        .filter((m) => m.type === 'error')
        .map((m) => `  line ${m.lineNum}:${m.linePos}: ${m.message}`);
      if (!messages.length && scoped) messages.push(`  ${scoped.message}`);
      throw new WgprimError(
        kernel.userCode ? 'invalid-operator' : 'compile-failed',
        `kernel ${kernel.label} did not compile${messages.length ? ':\n' + messages.join('\n') : ` (${String((err as Error)?.message ?? err)})`}\n` +
          'If it uses a custom operator or expression, check its WGSL.',
        { cause: err },
      );
    }
  }

  private layout(bindings: readonly BindingKind[]): GPUBindGroupLayout {
    const key = bindings.join(',');
    let layout = this.layouts.get(key);
    if (!layout) {
      layout = this.device.createBindGroupLayout({
        entries: bindings.map((type, binding) => ({ binding, visibility: GPUShaderStage.COMPUTE, buffer: { type } })),
      });
      this.layouts.set(key, layout);
    }
    return layout;
  }

  /** An immutable uniform buffer holding these words, shared by every call with the same values. */
  uniform(words: Uint32Array): GPUBuffer {
    const key = Array.prototype.join.call(words, ',');
    let buf = this.uniforms.get(key);
    if (buf) {
      // Refresh its place in the LRU order.
      this.uniforms.delete(key);
      this.uniforms.set(key, buf);
      return buf;
    }
    buf = this.device.createBuffer({ label: 'wgprim.params', size: roundUp(Math.max(words.byteLength, 16), 16), usage: GPUBufferUsage.UNIFORM, mappedAtCreation: true });
    new Uint32Array(buf.getMappedRange()).set(words);
    buf.unmap();
    this.uniforms.set(key, buf);
    if (this.uniforms.size > UNIFORM_CACHE_LIMIT) {
      // Dropped, not destroyed: a command buffer recorded earlier may still use it.
      const oldest = this.uniforms.keys().next().value as string;
      this.uniforms.delete(oldest);
    }
    return buf;
  }

  /**
   * A scratch buffer for one role, at least `bytes` long. Every use is self-contained within
   * the passes of one call (cleared or fully written before it is read), and commands run in
   * order on the queue, so one buffer per role serves every call: steady state allocates nothing.
   */
  scratch(role: string, bytes: number, extraUsage = 0): GPUBuffer {
    const size = roundUp(Math.max(bytes, 256), 256);
    const have = this.scratchBuffers.get(role);
    if (have && have.size >= size) return have;
    if (size > this.limits.maxBufferSize) {
      fail('limit-exceeded', `scratch buffer "${role}" needs ${size} bytes, over this device's maxBufferSize of ${this.limits.maxBufferSize}; ${this.limitAdvice('maxBufferSize', size, 'split the work into smaller calls')}`);
    }
    const buf = this.device.createBuffer({
      label: `wgprim.scratch.${role}`,
      size,
      usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC | extraUsage,
    });
    this.scratchBuffers.set(role, buf);
    return buf;
  }

  /** A small placeholder buffer for an empty view binding; one per binding slot so none alias. */
  private dummy(slot: number): GPUBuffer {
    while (this.dummies.length <= slot) {
      this.dummies.push(this.device.createBuffer({ label: `wgprim.empty.${this.dummies.length}`, size: 32, usage: GPUBufferUsage.STORAGE }));
    }
    return this.dummies[slot]!;
  }

  /**
   * Splits `count` elements of `buffer` (from offset 0) into a vector binding, up to an
   * aligned tail start, and a scalar binding of the rest. `slot` is the first binding index.
   */
  view(buffer: GPUBuffer, count: number, t: TypeInfo, slot: number): ViewBinding {
    // Aligned to the offset rule and to whole quads of 4 elements (32 bytes covers 64-bit).
    const align = Math.max(this.limits.minStorageBufferOffsetAlignment, 32);
    const bytes = roundUp(count * t.bytes, 4);
    const split = Math.floor((count * t.bytes) / align) * align;
    const vec: GPUBufferBinding = split > 0 ? { buffer, offset: 0, size: split } : { buffer: this.dummy(slot), offset: 0, size: 32 };
    const tail: GPUBufferBinding = bytes > split ? { buffer, offset: split, size: bytes - split } : { buffer: this.dummy(slot + 1), offset: 0, size: 32 };
    return { entries: [vec, tail], tailStart: split / t.bytes };
  }

  private bufferId(b: GPUBuffer): number {
    let id = this.bufferIds.get(b);
    if (id === undefined) {
      id = this.nextBufferId++;
      this.bufferIds.set(b, id);
    }
    return id;
  }

  /** A bind group for a pipeline and its buffers in binding order, cached by buffer identity and range. */
  bindGroup(pipeline: GPUComputePipeline, kernelKey: string, entries: readonly GPUBufferBinding[]): GPUBindGroup {
    const key = kernelKey + '|' + entries.map((e) => `${this.bufferId(e.buffer)}:${e.offset ?? 0}:${e.size ?? -1}`).join(',');
    let group = this.bindGroups.get(key);
    if (!group) {
      group = this.device.createBindGroup({
        layout: pipeline.getBindGroupLayout(0),
        entries: entries.map((resource, binding) => ({ binding, resource })),
      });
      this.bindGroups.set(key, group);
      if (this.bindGroups.size > BIND_GROUP_CACHE_LIMIT) this.bindGroups.delete(this.bindGroups.keys().next().value as string);
    }
    return group;
  }

  /**
   * Records one compute pass that dispatches `workgroups` workgroups (2-D past the per-dimension
   * limit). With a `profiler` set, the pass writes timestamps at its beginning and end where the
   * profiler says.
   */
  dispatch(encoder: GPUCommandEncoder, label: string, pipeline: GPUComputePipeline, group: GPUBindGroup, workgroups: number): void {
    const [x, y] = gridFor(workgroups, this.limits.maxComputeWorkgroupsPerDimension);
    const pass = this.beginPass(encoder, label, pipeline, group);
    pass.dispatchWorkgroups(x, y);
    pass.end();
  }

  /**
   * `dispatch` with the grid read on the GPU: three u32 (x, y, z) at `offset` of `indirect`
   * (a buffer with INDIRECT usage), written by an earlier pass.
   */
  dispatchIndirect(encoder: GPUCommandEncoder, label: string, pipeline: GPUComputePipeline, group: GPUBindGroup, indirect: GPUBuffer, offset = 0): void {
    const pass = this.beginPass(encoder, label, pipeline, group);
    pass.dispatchWorkgroupsIndirect(indirect, offset);
    pass.end();
  }

  private beginPass(encoder: GPUCommandEncoder, label: string, pipeline: GPUComputePipeline, group: GPUBindGroup): GPUComputePassEncoder {
    const timestampWrites = this.profiler?.passTimestampWrites(label);
    const pass = encoder.beginComputePass(timestampWrites ? { label, timestampWrites } : { label });
    pass.setPipeline(pipeline);
    pass.setBindGroup(0, group);
    return pass;
  }

  /** Throws a typed error unless `buffer` is a usable STORAGE buffer for `count` elements of `t`. */
  checkBuffer(what: string, buffer: GPUBuffer | undefined, count: number, t: TypeInfo): void {
    if (!buffer || typeof buffer !== 'object' || typeof (buffer as GPUBuffer).usage !== 'number') {
      fail('invalid-argument', `${what} must be a GPUBuffer`);
    }
    if (!(buffer.usage & GPUBufferUsage.STORAGE)) {
      fail('buffer-usage', `${what} needs GPUBufferUsage.STORAGE (its usage is 0x${buffer.usage.toString(16)})`);
    }
    const need = roundUp(count * t.bytes, 4);
    if (need > this.limits.maxStorageBufferBindingSize) {
      const most = Math.floor(this.limits.maxStorageBufferBindingSize / t.bytes);
      fail('limit-exceeded', `${count} elements of ${t.name} (${need} bytes) exceed this device's maxStorageBufferBindingSize of ${this.limits.maxStorageBufferBindingSize} bytes; ${this.limitAdvice('maxStorageBufferBindingSize', need, `split the work into calls of at most ${most} elements`)}`);
    }
    if (buffer.size < need) {
      fail('buffer-size', `${what} holds ${buffer.size} bytes but ${count} elements of ${t.name} need ${need}`);
    }
  }
}

/** Throws a typed error unless `count` is a non-negative safe integer. */
export function checkCount(count: unknown): asserts count is number {
  if (typeof count !== 'number' || !Number.isInteger(count) || count < 0 || count > 0xffffffff) {
    fail('invalid-argument', `count must be a non-negative integer below 2^32, got ${String(count)}`);
  }
}
