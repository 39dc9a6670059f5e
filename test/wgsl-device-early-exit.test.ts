// The early-exit tile loop and its finish (src/wgsl/device/early-exit.ts) in a harness kernel:
// positions whose word is non-zero match; the block must find the first (or last), take no tile
// past it (each tile taken counts itself in state[0]), write the answer once (state[2], from the
// last workgroup out) and leave its own words (best 1, ticket 3, count out 4) zero.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestDevice } from '../src/node/index.js';
import { EARLY_EXIT_DECLS, earlyExitFinish, earlyExitLoop, earlyExitRecord, type SearchOrder, type TileAssignment } from '../src/wgsl/device/early-exit.js';

const WG = 32;
const TILE = WG * 2;

function harness(order: SearchOrder, assignment: TileAssignment): string {
  const loop = { order, assignment, state: 'state', best: '1u', ticket: '3u', workgroup: 'wid.x', workgroups: 'nwg.x', numTiles: 'tiles', tileSize: `${TILE}u` } as const;
  return `@group(0) @binding(0) var<storage, read> data: array<u32>;
@group(0) @binding(1) var<storage, read_write> state: array<atomic<u32>>;
${EARLY_EXIT_DECLS}
@compute @workgroup_size(${WG})
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let n = arrayLength(&data);
  let tiles = (n + ${TILE}u - 1u) / ${TILE}u;
${earlyExitLoop(loop, `
    if (lid == 0u) { atomicAdd(&state[0], 1u); }
    for (var j = 0u; j < 2u; j++) {
      let p = tile * ${TILE}u + j * ${WG}u + lid;
      if (p < n && data[p] != 0u) { ${earlyExitRecord(order, 'p')} }
    }`)}
${earlyExitFinish({ ...loop, done: '4u', zero: '(n >> 31u)', none: 'n' }, (answer) => `atomicAdd(&state[2], ${answer});`)}
}`;
}

let device: GPUDevice;
beforeAll(async () => {
  device = (await requestDevice()).device;
});
afterAll(() => device?.destroy());

/** Runs the loop with `grid` workgroups over `data`: [tiles taken, best, answer, ticket, count out]. */
async function run(order: SearchOrder, data: Uint32Array<ArrayBuffer>, grid: number, assignment: TileAssignment = 'ticket'): Promise<Uint32Array> {
  const module = device.createShaderModule({ code: harness(order, assignment) });
  const main = await device.createComputePipelineAsync({ layout: 'auto', compute: { module, entryPoint: 'main' } });
  const input = device.createBuffer({ size: Math.max(data.byteLength, 4), usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
  device.queue.writeBuffer(input, 0, data);
  const state = device.createBuffer({ size: 20, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC });
  const read = device.createBuffer({ size: 20, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ });
  const enc = device.createCommandEncoder();
  const pass = enc.beginComputePass();
  pass.setPipeline(main);
  pass.setBindGroup(0, device.createBindGroup({ layout: main.getBindGroupLayout(0), entries: [{ binding: 0, resource: { buffer: input } }, { binding: 1, resource: { buffer: state } }] }));
  pass.dispatchWorkgroups(grid);
  pass.end();
  enc.copyBufferToBuffer(state, 0, read, 0, 20);
  device.queue.submit([enc.finish()]);
  await read.mapAsync(GPUMapMode.READ);
  const out = new Uint32Array(read.getMappedRange().slice(0));
  for (const b of [input, state, read]) b.destroy();
  return out;
}

describe('WGSL device block: early-exit tile loop', () => {
  const n = 10 * TILE + 7;
  const tiles = 11;
  const with_ = (...at: number[]): Uint32Array<ArrayBuffer> => {
    const d = new Uint32Array(n);
    for (const p of at) d[p] = 1;
    return d;
  };

  for (const assignment of ['ticket', 'stride'] as const) {
    describe(`tiles by ${assignment}`, () => {
      it('first: the smallest match, and one workgroup takes no tile past it', async () => {
        expect(Array.from(await run('first', with_(3 * TILE + 5, 3 * TILE + 9, 7 * TILE), 1, assignment))).toEqual([4, 0, 3 * TILE + 5, 0, 0]);
        expect(Array.from(await run('first', with_(), 1, assignment))).toEqual([tiles, 0, n, 0, 0]);
        expect((await run('first', with_(0, n - 1), 8, assignment))[2]).toBe(0);
        expect((await run('first', with_(TILE - 1, TILE), 8, assignment))[2]).toBe(TILE - 1);
      });

      it('last: the largest match, tiles taken from the end', async () => {
        expect(Array.from(await run('last', with_(2 * TILE, 9 * TILE + 1, 9 * TILE + 3), 1, assignment))).toEqual([2, 0, 9 * TILE + 3, 0, 0]);
        expect(Array.from(await run('last', with_(), 1, assignment))).toEqual([tiles, 0, n, 0, 0]);
        expect((await run('last', with_(0, 5), 8, assignment))[2]).toBe(5);
        expect((await run('last', with_(n - 1), 8, assignment))[2]).toBe(n - 1);
      });

      it('several workgroups: every tile is read once and a match in any of them is found', async () => {
        for (const grid of [3, 4, 16]) {
          expect((await run('first', with_(), grid, assignment))[0], `tiles taken, grid ${grid}`).toBe(tiles);
          expect((await run('last', with_(), grid, assignment))[0], `tiles taken, grid ${grid}`).toBe(tiles);
          for (let k = 0; k < tiles; k++) {
            const at = k * TILE + (k % 3);
            expect(Array.from(await run('first', with_(at, n - 1), grid, assignment)).slice(1), `first, grid ${grid}, tile ${k}`).toEqual([0, at, 0, 0]);
            expect(Array.from(await run('last', with_(0, at), grid, assignment)).slice(1), `last, grid ${grid}, tile ${k}`).toEqual([0, at, 0, 0]);
          }
        }
      });
    });
  }
});
