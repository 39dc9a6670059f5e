// The raw-key array block (src/wgsl/device/raw-keys.ts): each key's bits read back one per
// output word (two for 64-bit keys), 16-bit keys unpacked from their shared words, and the
// value view compared against a threshold.
import { beforeAll, describe, expect, it } from 'vitest';
import { type ElementType, type Prim, typeInfo } from '../src/index.js';
import { rawKeyArrayWgsl, rawKeyBytes } from '../src/wgsl/device/raw-keys.js';
import { rawType } from '../src/wgsl/thread/radix-key.js';
import { typeEnables } from '../src/wgsl/types.js';
import { testPrim, typesOn } from './support/gpu.js';

let prim: Prim;
beforeAll(async () => {
  prim = await testPrim();
});

/** Raw words of `n` keys of `type`: word i * 31 + 7 (16-bit keys: their halves). */
function rawWords(type: ElementType, n: number): Uint32Array {
  const t = typeInfo(type);
  const words = new Uint32Array(rawKeyBytes(t, n) / 4);
  for (let i = 0; i < words.length; i++) words[i] = (Math.imul(i, 0x9e3779b1) ^ 0x5bd1e995) >>> 0;
  return words;
}

describe('raw-key arrays', () => {
  it('every type: key bits by index, values by type', async () => {
    for (const type of typesOn(prim)) {
      const t = typeInfo(type);
      const n = 7;
      const words = rawWords(type, n);
      const K = rawType(t);
      const outWords = t.bytes === 8 ? 2 : 1;
      const code = `${typeEnables(t).join('\n')}
${rawKeyArrayWgsl('keys', t, 'read', 0)}
@group(0) @binding(1) var<storage, read_write> out: array<${K}>;
@compute @workgroup_size(1)
fn main() {
  for (var i = 0u; i < ${n}u; i++) {
    out[i] = keys_raw(i);
    // The value view: the key as its type, converted back to the same bits.
    let v = keys_value(keys_raw(i));
    ${t.bytes === 8 ? 'out[i + 8u] = v;' : t.name === 'f16' ? 'out[i + 8u] = bitcast<u32>(vec2<f16>(v, 0.0h));' : `out[i + 8u] = bitcast<u32>(v);`}
  }
}`;
      const device = prim.device;
      const input = device.createBuffer({ size: words.byteLength, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
      device.queue.writeBuffer(input, 0, words.buffer as ArrayBuffer);
      const bytes = 16 * outWords * 4;
      const out = device.createBuffer({ size: bytes, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC });
      const read = device.createBuffer({ size: bytes, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
      const pipeline = await device.createComputePipelineAsync({ layout: 'auto', compute: { module: device.createShaderModule({ code }), entryPoint: 'main' } });
      const enc = device.createCommandEncoder();
      const pass = enc.beginComputePass();
      pass.setPipeline(pipeline);
      pass.setBindGroup(0, device.createBindGroup({ layout: pipeline.getBindGroupLayout(0), entries: [{ binding: 0, resource: { buffer: input } }, { binding: 1, resource: { buffer: out } }] }));
      pass.dispatchWorkgroups(1);
      pass.end();
      enc.copyBufferToBuffer(out, 0, read, 0, bytes);
      device.queue.submit([enc.finish()]);
      await read.mapAsync(GPUMapMode.READ);
      const got = new Uint32Array(read.getMappedRange().slice(0));
      read.unmap();
      const want: number[] = [];
      for (let i = 0; i < n; i++) {
        if (t.bytes === 2) want.push((words[i >> 1]! >>> ((i & 1) * 16)) & 0xffff);
        else if (t.bytes === 8) want.push(words[2 * i]!, words[2 * i + 1]!);
        else want.push(words[i]!);
      }
      expect(Array.from(got.subarray(0, n * outWords)), `${type} raw bits`).toEqual(want);
      // The value view compared where the bits are a number: a NaN's payload may not survive a float register.
      const isNaN = (w: number): boolean => (t.bytes === 2 ? (w & 0x7c00) === 0x7c00 && (w & 0x3ff) !== 0 : (w & 0x7f800000) === 0x7f800000 && (w & 0x7fffff) !== 0);
      const values = Array.from(got.subarray(8 * outWords, (8 + n) * outWords));
      const numbers = want.map((w, i) => (t.isFloat && isNaN(w) ? -1 : i)).filter((i) => i >= 0);
      expect(numbers.length, `${type}: keys that are numbers`).toBeGreaterThan(0);
      expect(numbers.map((i) => values[i]), `${type} values`).toEqual(numbers.map((i) => want[i]));
    }
  });
});
