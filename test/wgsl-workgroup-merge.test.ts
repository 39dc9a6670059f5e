// The workgroup block mergeSharedRuns against a CPU merge: runs of every length split (one
// empty, one longer, ties across them), each invocation's share at its diagonal, in the plain
// and the swizzled workgroup layout.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestDevice } from '../src/node/index.js';
import { blockedIndex, mergeSharedRuns } from '../src/wgsl/workgroup/merge-path.js';
import { rng, SEED } from './support/data.js';

const WG = 32;

let device: GPUDevice;
beforeAll(async () => {
  device = (await requestDevice()).device;
});
afterAll(() => device?.destroy());

// keys[0 .. N) hold run A [0, na) then run B [na, N); values are their input positions. The
// order compares the top bits only (key >> 2), so ties take A first and keep run order.
// Workgroup positions through `blockedIndex` (4 items: swizzled; 3: plain).
function shader(IPT: number): string {
  const N = WG * IPT;
  const at = blockedIndex(IPT, N);
  return `
@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(1) var<storage, read_write> output: array<u32>;
var<workgroup> s_keys: array<u32, ${N}>;
var<workgroup> s_vals: array<u32, ${N}>;
@compute @workgroup_size(${WG})
fn main(@builtin(local_invocation_index) lid: u32) {
  let na = input[${N}];
  let nb = ${N}u - na;
  for (var k = 0u; k < ${IPT}u; k++) {
    let i = k * ${WG}u + lid;
    s_keys[${at('i')}] = input[i];
    s_vals[${at('i')}] = i;
  }
  workgroupBarrier();
  let diag = lid * ${IPT}u;
  let n = min(${IPT}u, ${N}u - diag);
${mergeSharedRuns({ keys: 's_keys', vals: 's_vals', aBase: '0u', bBase: 'na', na: 'na', nb: 'nb', diag: 'diag', size: `${N}u`, items: IPT, K: 'u32', V: 'u32', less: (x, y) => `(${x} >> 2u) < (${y} >> 2u)`, at })}
  for (var k = 0u; k < ${IPT}u; k++) {
    if (k < n) { output[diag + k] = ov[k]; }
  }
}`;
}

function cpuMerge(keys: Uint32Array, na: number): number[] {
  const out: number[] = [];
  let i = 0;
  let j = na;
  while (out.length < keys.length) {
    if (i < na && (j >= keys.length || !((keys[j]! >> 2) < (keys[i]! >> 2)))) out.push(i++);
    else out.push(j++);
  }
  return out;
}

describe('WGSL workgroup block mergeSharedRuns', () => {
  it.each([3, 4])('merges two runs stably at every split (%i items each)', async (IPT) => {
    const N = WG * IPT;
    expect(blockedIndex(IPT, N)('i'), 'the layout under test').toBe(IPT === 4 ? '((i) ^ (((i) >> 5u) & 31u))' : 'i');
    const module = device.createShaderModule({ code: shader(IPT) });
    const pipeline = await device.createComputePipelineAsync({ layout: 'auto', compute: { module, entryPoint: 'main' } });
    const r = rng(SEED);
    for (const na of [0, 1, 17, N / 2, N - 1, N]) {
      const a = Array.from({ length: na }, () => Math.floor(r() * 40)).sort((x, y) => (x >> 2) - (y >> 2));
      const b = Array.from({ length: N - na }, () => Math.floor(r() * 40)).sort((x, y) => (x >> 2) - (y >> 2));
      const keys = Uint32Array.from([...a, ...b]);
      const input = device.createBuffer({ size: (N + 1) * 4, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
      device.queue.writeBuffer(input, 0, Uint32Array.from([...keys, na]));
      const output = device.createBuffer({ size: N * 4, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC });
      const staging = device.createBuffer({ size: N * 4, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
      const enc = device.createCommandEncoder();
      const pass = enc.beginComputePass();
      pass.setPipeline(pipeline);
      pass.setBindGroup(0, device.createBindGroup({ layout: pipeline.getBindGroupLayout(0), entries: [{ binding: 0, resource: { buffer: input } }, { binding: 1, resource: { buffer: output } }] }));
      pass.dispatchWorkgroups(1);
      pass.end();
      enc.copyBufferToBuffer(output, 0, staging, 0, N * 4);
      device.queue.submit([enc.finish()]);
      await staging.mapAsync(GPUMapMode.READ);
      const got = Array.from(new Uint32Array(staging.getMappedRange().slice(0)));
      expect(got, `na=${na}`).toEqual(cpuMerge(keys, na));
      for (const x of [input, output, staging]) x.destroy();
    }
  });
});
