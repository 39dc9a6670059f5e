// The array-level API: typed arrays in, typed arrays (or a value) out, one call per algorithm
// call, made from the registered algorithms' `arrays`. Browser-safe.
import { WgprimError } from './runtime/errors.js';
import { roundUp } from './runtime/dispatch.js';
import { type AlgorithmEnv, type ArrayEnv } from './device/spec.js';
import { ALGORITHMS, type AlgorithmArrayCalls } from './algorithms.js';

export { type PrimTypedArray, typeOfArray } from './device/typed-arrays.js';
export { type ArrayScanOptions } from './device/scan/spec.js';
export { type ArrayReduceOptions } from './device/reduce/spec.js';
export { type ArrayTransformOptions } from './device/transform/spec.js';
export { type ArrayRadixSortOptions, type RadixSortValueArray } from './device/radix-sort/arrays.js';
export { type ArraySegmentedRadixSortOptions } from './device/segmented-radix-sort/spec.js';

// The array-level calls of every registered algorithm are methods of ArrayApi (installed in the constructor).
export interface ArrayApi extends AlgorithmArrayCalls {}

/**
 * Array-level API: typed arrays in, typed arrays (or a value) out. Each call uploads, runs,
 * reads back and frees its buffers: for scripts, docs and tests, not for hot loops.
 */
export class ArrayApi {
  constructor(env: AlgorithmEnv, private readonly device: GPUDevice) {
    const arrayEnv: ArrayEnv = {
      ...env,
      device,
      buffer: (bytes) => this.buffer(bytes),
      upload: (data) => this.upload(data),
      runAll: (outputs, record) => this.runAll(outputs, record),
    };
    for (const algorithm of ALGORITHMS) Object.assign(this, algorithm.arrays(arrayEnv));
  }

  private buffer(bytes: number): GPUBuffer {
    return this.device.createBuffer({ label: 'wgprim.arrays', size: roundUp(Math.max(bytes, 4), 4), usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST });
  }

  private upload(data: ArrayBufferView): GPUBuffer {
    const buf = this.device.createBuffer({ label: 'wgprim.arrays', size: roundUp(Math.max(data.byteLength, 4), 4), usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST, mappedAtCreation: true });
    new Uint8Array(buf.getMappedRange()).set(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
    buf.unmap();
    return buf;
  }

  /** Records `record` into a fresh encoder, submits it, and reads back each output's first bytes. */
  private async runAll(outputs: readonly (readonly [GPUBuffer, number])[], record: (enc: GPUCommandEncoder) => Promise<void>): Promise<ArrayBuffer[]> {
    const device = this.device;
    const sizes = outputs.map(([, bytes]) => roundUp(Math.max(bytes, 4), 4));
    const stagings = sizes.map((size) => device.createBuffer({ label: 'wgprim.readback', size, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST }));
    try {
      device.pushErrorScope('validation');
      const enc = device.createCommandEncoder({ label: 'wgprim.arrays' });
      let recordError: unknown;
      try {
        await record(enc);
        outputs.forEach(([output], i) => enc.copyBufferToBuffer(output, 0, stagings[i]!, 0, sizes[i]!));
        device.queue.submit([enc.finish()]);
      } catch (err) {
        recordError = err;
      }
      const gpuError = await device.popErrorScope();
      if (recordError) throw recordError;
      if (gpuError) throw new WgprimError('invalid-argument', `WebGPU rejected the work: ${gpuError.message}`);
      await Promise.all(stagings.map((s) => s.mapAsync(GPUMapMode.READ)));
      return stagings.map((s) => s.getMappedRange().slice(0));
    } finally {
      for (const s of stagings) s.destroy();
    }
  }
}
