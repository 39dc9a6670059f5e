// The block cases (test/browser/blocks.js) on Dawn in Node: one `it` per case of a scope.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestDevice } from '../../src/node/index.js';
import { BLOCK_CASES, type BlockLib, loadBlocks } from '../browser/blocks.js';

export function describeBlocks(scope: string): void {
  describe(`WGSL ${scope} blocks against CPU references`, () => {
    let device: GPUDevice;
    let lib: BlockLib;
    beforeAll(async () => {
      device = (await requestDevice()).device;
      lib = await loadBlocks((path) => import(/* @vite-ignore */ `../../src/${path}`) as Promise<Record<string, unknown>>);
    });
    afterAll(() => device?.destroy());
    for (const c of BLOCK_CASES.filter((x) => x.scope === scope)) {
      it(c.name, async (ctx) => {
        if (c.f16 && !device.features.has('shader-f16')) ctx.skip();
        expect((await c.run(lib, device)).join('\n')).toBe('');
      });
    }
  });
}
