import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createPrim, type Prim, WgprimError, type WgprimErrorCode } from '../src/index.js';
import { requestDevice } from '../src/node/index.js';
import { hasF16 } from './support/gpu.js';

/**
 * Every checked condition must raise a WgprimError with its code before any GPU work: no
 * dispatch recorded, no pipeline compiled (except where the check is the compile itself), no
 * buffer created, no error in the caller's error scopes, no uncaptured error, and the
 * caller's encoder still valid.
 */

interface Dev {
  readonly device: GPUDevice;
  readonly prim: Prim;
  readonly uncaptured: string[];
}

let main: Dev;
let bare: Dev; // created without optional features (no subgroups, no shader-f16)
let gpu: GPU;

function wrap(device: GPUDevice, adapterInfo: GPUAdapterInfo): Dev {
  const uncaptured: string[] = [];
  device.addEventListener('uncapturederror', (e) => uncaptured.push((e as GPUUncapturedErrorEvent).error.message));
  return { device, prim: createPrim(device, { adapterInfo }), uncaptured };
}

beforeAll(async () => {
  const nd = await requestDevice();
  gpu = nd.gpu;
  main = wrap(nd.device, nd.adapterInfo);
  // An adapter creates one device; a second adapter gives the feature-less one.
  const adapter = await gpu.requestAdapter();
  bare = wrap(await adapter!.requestDevice(), adapter!.info);
});

afterAll(() => {
  bare?.device.destroy();
});

const STORAGE = (): number => GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST;
const buf = (d: Dev, size: number, usage = STORAGE()): GPUBuffer => d.device.createBuffer({ size, usage });

/**
 * Runs `call` with a fresh encoder under error scopes of every kind, and checks that it throws
 * `code` having done no GPU work. `compiles`: the check is a compile of the caller's WGSL,
 * so creating a shader module and a pipeline is allowed (and required); nothing else is.
 */
async function expectRejected(d: Dev, code: WgprimErrorCode, what: string, call: (enc: GPUCommandEncoder) => Promise<unknown>, compiles = false): Promise<WgprimError> {
  const ctx = d.prim.context;
  const spies = {
    pipeline: vi.spyOn(ctx, 'pipeline'),
    dispatch: vi.spyOn(ctx, 'dispatch'),
    scratch: vi.spyOn(ctx, 'scratch'),
    uniform: vi.spyOn(ctx, 'uniform'),
    bindGroup: vi.spyOn(ctx, 'bindGroup'),
    createBuffer: vi.spyOn(d.device, 'createBuffer'),
    createShaderModule: vi.spyOn(d.device, 'createShaderModule'),
  };
  const enc = d.device.createCommandEncoder({ label: `errors.${what}` });
  const passes = vi.spyOn(enc, 'beginComputePass');
  const before = d.uncaptured.length;
  const kinds: GPUErrorFilter[] = ['validation', 'out-of-memory', 'internal'];
  for (const k of kinds) d.device.pushErrorScope(k);
  let thrown: unknown;
  try {
    await call(enc);
  } catch (err) {
    thrown = err;
  }
  const scoped: (GPUError | null)[] = [];
  for (let i = 0; i < kinds.length; i++) scoped.push(await d.device.popErrorScope());
  try {
    expect(thrown, `${what}: should throw WgprimError(${code})`).toBeInstanceOf(WgprimError);
    expect((thrown as WgprimError).code, `${what}: ${(thrown as Error).message}`).toBe(code);
    expect((thrown as Error).message, what).toContain(`[wgprim:${code}]`);
    expect(scoped.map((e) => e?.message ?? null), `${what}: GPU errors in the caller's scopes`).toEqual([null, null, null]);
    expect(spies.dispatch, `${what}: dispatched`).not.toHaveBeenCalled();
    expect(passes, `${what}: began a compute pass`).not.toHaveBeenCalled();
    expect(spies.scratch, `${what}: allocated scratch`).not.toHaveBeenCalled();
    expect(spies.uniform, `${what}: created a uniform block`).not.toHaveBeenCalled();
    expect(spies.bindGroup, `${what}: created a bind group`).not.toHaveBeenCalled();
    expect(spies.createBuffer, `${what}: created a buffer`).not.toHaveBeenCalled();
    if (compiles) {
      expect(spies.pipeline, `${what}: should have compiled the caller's WGSL`).toHaveBeenCalled();
      expect(spies.createShaderModule, `${what}: should have compiled the caller's WGSL`).toHaveBeenCalled();
    } else {
      expect(spies.pipeline, `${what}: compiled a pipeline`).not.toHaveBeenCalled();
      expect(spies.createShaderModule, `${what}: created a shader module`).not.toHaveBeenCalled();
    }
  } finally {
    for (const s of Object.values(spies)) s.mockRestore();
    passes.mockRestore();
  }
  // The caller's encoder is untouched: it still finishes and submits without an error.
  d.device.pushErrorScope('validation');
  d.device.queue.submit([enc.finish()]);
  expect((await d.device.popErrorScope())?.message ?? null, `${what}: encoder left invalid`).toBeNull();
  await d.device.queue.onSubmittedWorkDone();
  expect(d.uncaptured.slice(before), `${what}: uncaptured errors`).toEqual([]);
  return thrown as WgprimError;
}

describe('buffers', () => {
  it("a buffer without STORAGE usage: 'buffer-usage'", async () => {
    const good = buf(main, 256);
    const noStorage = buf(main, 256, GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC);
    const p = main.prim;
    await expectRejected(main, 'buffer-usage', 'reduce input', (enc) => p.reduce(enc, { input: noStorage, output: good, count: 8, type: 'u32' }));
    await expectRejected(main, 'buffer-usage', 'reduce output', (enc) => p.reduce(enc, { input: good, output: noStorage, count: 8, type: 'u32' }));
    const out = buf(main, 256);
    await expectRejected(main, 'buffer-usage', 'transform input2', (enc) => p.transform(enc, { input: good, input2: noStorage, output: out, count: 8, type: 'u32', expression: 'a + b' }));
    await expectRejected(main, 'buffer-usage', 'scan output', (enc) => p.inclusiveScan(enc, { input: good, output: noStorage, count: 8, type: 'u32' }));
  });

  it("a buffer too small for count: 'buffer-size'", async () => {
    const p = main.prim;
    const b64 = buf(main, 64);
    const out = buf(main, 64);
    const b4 = buf(main, 4);
    const b256 = buf(main, 256);
    await expectRejected(main, 'buffer-size', 'reduce input 17 u32 in 64 bytes', (enc) => p.reduce(enc, { input: b64, output: out, count: 17, type: 'u32' }));
    await expectRejected(main, 'buffer-size', 'reduce input 9 u64 in 64 bytes', (enc) => p.reduce(enc, { input: b64, output: out, count: 9, type: 'u64' }));
    await expectRejected(main, 'buffer-size', 'reduce output 4 bytes for u64', (enc) => p.reduce(enc, { input: b64, output: b4, count: 8, type: 'u64' }));
    await expectRejected(main, 'buffer-size', 'transform output too small for its output type', (enc) => p.transform(enc, { input: b64, output: out, count: 16, type: 'u32', outputType: 'u64', expression: 'vec2<u32>(a, 0u)' }));
    await expectRejected(main, 'buffer-size', 'scan input', (enc) => p.exclusiveScan(enc, { input: b64, output: b256, count: 17, type: 'f32' }));
  });

  it("count * bytes over maxStorageBufferBindingSize: 'limit-exceeded'", async () => {
    const p = main.prim;
    const max = main.device.limits.maxStorageBufferBindingSize;
    const small = buf(main, 256);
    const out = buf(main, 256);
    await expectRejected(main, 'limit-exceeded', 'reduce u32', (enc) => p.reduce(enc, { input: small, output: out, count: max / 4 + 1, type: 'u32' }));
    await expectRejected(main, 'limit-exceeded', 'reduce u64', (enc) => p.reduce(enc, { input: small, output: out, count: Math.floor(max / 8) + 1, type: 'u64' }));
    await expectRejected(main, 'limit-exceeded', 'scan i64', (enc) => p.inclusiveScan(enc, { input: small, output: out, count: Math.floor(max / 8) + 1, type: 'i64' }));
    // The output's own size is checked: an input that fits, an output of a wider type that does not.
    const count = Math.floor(max / 8) + 1;
    const input = buf(main, Math.ceil((count * 4) / 4) * 4);
    await expectRejected(main, 'limit-exceeded', 'transform output u64 from u32', (enc) => p.transform(enc, { input, output: out, count, type: 'u32', outputType: 'u64', expression: 'vec2<u32>(a, 0u)' }));
    input.destroy();
  });

  it("aliasing: 'overlap'", async () => {
    const p = main.prim;
    const a = buf(main, 256);
    const b = buf(main, 256);
    await expectRejected(main, 'overlap', 'reduce output === input', (enc) => p.reduce(enc, { input: a, output: a, count: 8, type: 'u32' }));
    await expectRejected(main, 'overlap', 'transform output === input2', (enc) => p.transform(enc, { input: a, input2: b, output: b, count: 8, type: 'u32', expression: 'a + b' }));
    await expectRejected(main, 'overlap', 'transform output === input === input2', (enc) => p.transform(enc, { input: a, input2: a, output: a, count: 8, type: 'u32', expression: 'a + b' }));
    await expectRejected(main, 'overlap', 'in-place u32 -> u64', (enc) => p.transform(enc, { input: a, output: a, count: 8, type: 'u32', outputType: 'u64', expression: 'vec2<u32>(a, 0u)' }));
    if (hasF16(main.prim)) {
      await expectRejected(main, 'overlap', 'in-place f32 -> f16', (enc) => p.transform(enc, { input: a, output: a, count: 8, type: 'f32', outputType: 'f16', expression: 'f16(a)' }));
    }
  });
});

describe('operators and expressions', () => {
  it("unknown operators and malformed custom ones: 'invalid-operator'", async () => {
    const p = main.prim;
    const a = buf(main, 256);
    const o = buf(main, 256);
    await expectRejected(main, 'invalid-operator', "op 'sum'", (enc) => p.reduce(enc, { input: a, output: o, count: 8, type: 'u32', op: 'sum' as never }));
    await expectRejected(main, 'invalid-operator', "scan op 'ADD'", (enc) => p.inclusiveScan(enc, { input: a, output: o, count: 8, type: 'u32', op: 'ADD' as never }));
    await expectRejected(main, 'invalid-operator', 'custom without identity', (enc) => p.reduce(enc, { input: a, output: o, count: 8, type: 'u32', op: { wgsl: 'max(a, b)' } as never }));
    await expectRejected(main, 'invalid-operator', 'custom with blank wgsl', (enc) => p.reduce(enc, { input: a, output: o, count: 8, type: 'u32', op: { wgsl: '  ', identity: '0u' } }));
    await expectRejected(main, 'invalid-operator', 'transform without expression', (enc) => p.transform(enc, { input: a, output: o, count: 8, type: 'u32', expression: '' }));
  });

  it("custom operator or expression that does not compile: 'invalid-operator', from the compiler, with nothing leaked", async () => {
    const p = main.prim;
    const a = buf(main, 256);
    const o = buf(main, 256);
    const bad = { wgsl: 'a +* b', identity: '0u' };
    for (let attempt = 0; attempt < 2; attempt++) {
      // A failed compile is not cached: the second attempt compiles (and fails) again.
      const e = await expectRejected(main, 'invalid-operator', `reduce custom 'a +* b' #${attempt}`, (enc) => p.reduce(enc, { input: a, output: o, count: 8, type: 'u32', op: bad }), true);
      expect(e.message).toContain('did not compile');
    }
    await expectRejected(main, 'invalid-operator', 'custom identity of the wrong type', (enc) => p.reduce(enc, { input: a, output: o, count: 8, type: 'u32', op: { wgsl: 'a + b', identity: '0.5' } }), true);
    await expectRejected(main, 'invalid-operator', "transform 'a +* 2u'", (enc) => p.transform(enc, { input: a, output: o, count: 8, type: 'u32', expression: 'a +* 2u' }), true);
    await expectRejected(main, 'invalid-operator', 'transform expression of the wrong type', (enc) => p.transform(enc, { input: a, output: o, count: 8, type: 'u32', outputType: 'f32', expression: 'a * 2u' }), true);
    // The array API reports the same code and leaves no error behind either.
    const before = main.uncaptured.length;
    await expect(main.prim.arrays.transform(new Uint32Array(4), { expression: 'a +* 2u' })).rejects.toMatchObject({ code: 'invalid-operator' });
    await expect(main.prim.arrays.reduce(new Uint32Array(4), { op: bad })).rejects.toMatchObject({ code: 'invalid-operator' });
    await main.device.queue.onSubmittedWorkDone();
    expect(main.uncaptured.slice(before)).toEqual([]);
    // A good operator still works afterwards.
    expect(await main.prim.arrays.reduce(Uint32Array.of(3, 9, 4), { op: { wgsl: 'max(a, b)', identity: '0u' } })).toBe(9);
  });
});

describe('known bug in scan (src/device/scan/scan.ts, not ours to change)', () => {
  // recordScan creates its uniform block (and, past one tile, scratch buffers and a
  // clearBuffer in the caller's encoder) before it compiles the kernel, so a custom operator
  // that does not compile is reported only after GPU work has been recorded. It is reported
  // with the right code (checked below); the "no GPU work first" part fails until recordScan
  // compiles its pipelines first. When that is fixed, this test fails: turn it into a plain it().
  it("scan with a custom operator that does not compile: 'invalid-operator' before any GPU work", async () => {
    const a = buf(main, 4096 * 64);
    const o = buf(main, 4096 * 64);
    await expectRejected(main, 'invalid-operator', "scan custom 'a +* b', one tile", (enc) => main.prim.inclusiveScan(enc, { input: a, output: o, count: 8, type: 'u32', op: { wgsl: 'a +* b', identity: '0u' } }), true);
  });
  it('scan with a custom operator that does not compile: the code is right, nothing leaks to error scopes', async () => {
    const a = buf(main, 4096 * 64);
    const o = buf(main, 4096 * 64);
    const before = main.uncaptured.length;
    for (const config of [{ lookback: 'decoupled' as const }, { lookback: 'reduce-then-scan' as const }]) {
      main.device.pushErrorScope('validation');
      const enc = main.device.createCommandEncoder();
      await expect(main.prim.inclusiveScan(enc, { input: a, output: o, count: 4096 * 16, type: 'u32', op: { wgsl: 'a +* b', identity: '0u' }, config })).rejects.toMatchObject({ code: 'invalid-operator' });
      main.device.queue.submit([enc.finish()]);
      expect(await main.device.popErrorScope(), JSON.stringify(config)).toBeNull();
    }
    await main.device.queue.onSubmittedWorkDone();
    expect(main.uncaptured.slice(before)).toEqual([]);
  });
});

describe('types', () => {
  it("bitwise operators on floats, unknown types, untyped Uint16Array: 'unsupported-type'", async () => {
    const p = main.prim;
    const a = buf(main, 256);
    const o = buf(main, 256);
    for (const op of ['and', 'or', 'xor'] as const) {
      await expectRejected(main, 'unsupported-type', `reduce ${op} f32`, (enc) => p.reduce(enc, { input: a, output: o, count: 8, type: 'f32', op }));
    }
    if (hasF16(main.prim)) await expectRejected(main, 'unsupported-type', 'scan xor f16', (enc) => p.inclusiveScan(enc, { input: a, output: o, count: 8, type: 'f16', op: 'xor' }));
    await expectRejected(main, 'unsupported-type', "reduce type 'u8'", (enc) => p.reduce(enc, { input: a, output: o, count: 8, type: 'u8' as never }));
    await expectRejected(main, 'unsupported-type', "transform outputType 'f64'", (enc) => p.transform(enc, { input: a, output: o, count: 8, type: 'f32', outputType: 'f64' as never, expression: 'a' }));
    await expectRejected(main, 'unsupported-type', "scan type 'U32'", (enc) => p.exclusiveScan(enc, { input: a, output: o, count: 8, type: 'U32' as never }));
    const arrays = main.prim.arrays;
    await expectRejected(main, 'unsupported-type', 'arrays: Uint16Array without type f16', () => arrays.reduce(new Uint16Array(8)));
    await expectRejected(main, 'unsupported-type', 'arrays: Uint16Array as u32', () => arrays.reduce(new Uint16Array(8), { type: 'u32' }));
    await expectRejected(main, 'unsupported-type', 'arrays: Uint8Array', () => arrays.inclusiveScan(new Uint8Array(8) as never));
    await expectRejected(main, 'unsupported-type', 'arrays: Float64Array', () => arrays.transform(new Float64Array(8) as never, { expression: 'a' }));
    await expectRejected(main, 'unsupported-type', 'arrays: Uint32Array with type i32', () => arrays.reduce(new Uint32Array(8), { type: 'i32' }));
    await expectRejected(main, 'unsupported-type', 'arrays: untyped Uint16Array as b', () => arrays.transform(new Uint32Array(8), { b: new Uint16Array(8), type2: 'u32', expression: 'a' }));
  });

  it("f16 on a device without shader-f16: 'missing-feature'", async () => {
    const p = bare.prim;
    expect(bare.prim.context.features.has('shader-f16')).toBe(false);
    const a = buf(bare, 256);
    const o = buf(bare, 256);
    await expectRejected(bare, 'missing-feature', 'reduce f16', (enc) => p.reduce(enc, { input: a, output: o, count: 8, type: 'f16' }));
    await expectRejected(bare, 'missing-feature', 'scan f16', (enc) => p.inclusiveScan(enc, { input: a, output: o, count: 8, type: 'f16' }));
    await expectRejected(bare, 'missing-feature', 'transform f32 -> f16', (enc) => p.transform(enc, { input: a, output: o, count: 8, type: 'f32', outputType: 'f16', expression: 'f16(a)' }));
    const o2 = buf(bare, 256);
    await expectRejected(bare, 'missing-feature', 'transform input2 f16', (enc) => p.transform(enc, { input: a, input2: o, output: o2, count: 8, type: 'f32', type2: 'f16', expression: 'a + f32(b)' }));
    await expectRejected(bare, 'missing-feature', 'arrays f16', () => p.arrays.reduce(new Uint16Array(8), { type: 'f16' }));
  });
});

describe('configs', () => {
  it("subgroup methods on a device without subgroups: 'invalid-config'", async () => {
    const p = bare.prim;
    expect(bare.prim.context.hasSubgroups).toBe(false);
    // Without subgroups the defaults fall back to the shared-memory methods, and run.
    expect(p.selectedConfig('scan', 'u32').config.workgroupScan).toBe('shared');
    expect(p.selectedConfig('reduce', 'u32').config.workgroupReduce).toBe('shared');
    const a = buf(bare, 256);
    const o = buf(bare, 256);
    await expectRejected(bare, 'invalid-config', "scan workgroupScan 'subgroup'", (enc) => p.inclusiveScan(enc, { input: a, output: o, count: 8, type: 'u32', config: { workgroupScan: 'subgroup' } }));
    await expectRejected(bare, 'invalid-config', "reduce workgroupReduce 'subgroup'", (enc) => p.reduce(enc, { input: a, output: o, count: 8, type: 'u32', config: { workgroupReduce: 'subgroup' } }));
    expect(await p.arrays.reduce(Uint32Array.of(1, 2, 3))).toBe(6);
  });

  it("configs outside the space or the device's limits: 'invalid-config'", async () => {
    const p = main.prim;
    const a = buf(main, 256);
    const o = buf(main, 256);
    const tooBig = main.device.limits.maxComputeInvocationsPerWorkgroup * 2;
    const bad: [string, object][] = [
      ['itemsPerThread 6', { itemsPerThread: 6 }],
      ['itemsPerThread 0', { itemsPerThread: 0 }],
      ['workgroupSize 100', { workgroupSize: 100 }],
      [`workgroupSize ${tooBig}`, { workgroupSize: tooBig }],
    ];
    for (const [what, config] of bad) {
      await expectRejected(main, 'invalid-config', `reduce ${what}`, (enc) => p.reduce(enc, { input: a, output: o, count: 8, type: 'u32', config }));
      await expectRejected(main, 'invalid-config', `scan ${what}`, (enc) => p.inclusiveScan(enc, { input: a, output: o, count: 8, type: 'u32', config }));
      await expectRejected(main, 'invalid-config', `transform ${what}`, (enc) => p.transform(enc, { input: a, output: o, count: 8, type: 'u32', expression: 'a', config }));
    }
    for (const maxWorkgroups of [0, -1, 1.5, 65536]) {
      await expectRejected(main, 'invalid-config', `reduce maxWorkgroups ${maxWorkgroups}`, (enc) => p.reduce(enc, { input: a, output: o, count: 8, type: 'u32', config: { maxWorkgroups } }));
    }
    await expectRejected(main, 'invalid-config', "scan lookback 'magic'", (enc) => p.inclusiveScan(enc, { input: a, output: o, count: 8, type: 'u32', config: { lookback: 'magic' as never } }));
    await expectRejected(main, 'invalid-config', "reduce workgroupReduce 'warp'", (enc) => p.reduce(enc, { input: a, output: o, count: 8, type: 'u32', config: { workgroupReduce: 'warp' as never } }));
    await expectRejected(main, 'invalid-config', 'arrays scan itemsPerThread 6', () => p.arrays.inclusiveScan(new Uint32Array(8), { config: { itemsPerThread: 6 } }));
  });
});

describe('arguments', () => {
  it("negative, fractional, NaN or huge counts: 'invalid-argument'", async () => {
    const p = main.prim;
    const a = buf(main, 256);
    const o = buf(main, 256);
    for (const count of [-1, 1.5, NaN, Infinity, 2 ** 32, '8' as unknown as number, undefined as unknown as number]) {
      await expectRejected(main, 'invalid-argument', `reduce count ${String(count)}`, (enc) => p.reduce(enc, { input: a, output: o, count, type: 'u32' }));
      await expectRejected(main, 'invalid-argument', `transform count ${String(count)}`, (enc) => p.transform(enc, { input: a, output: o, count, type: 'u32', expression: 'a' }));
      await expectRejected(main, 'invalid-argument', `scan count ${String(count)}`, (enc) => p.exclusiveScan(enc, { input: a, output: o, count, type: 'u32' }));
    }
    await expectRejected(main, 'invalid-argument', 'reduce without arguments', (enc) => p.reduce(enc, undefined as never));
    await expectRejected(main, 'invalid-argument', 'reduce input not a buffer', (enc) => p.reduce(enc, { input: {} as GPUBuffer, output: o, count: 8, type: 'u32' }));
    await expectRejected(main, 'invalid-argument', 'arrays transform b of another length', () => p.arrays.transform(new Uint32Array(8), { b: new Uint32Array(7), expression: 'a + b' }));
  });

  it("initial values that do not fit the type: 'invalid-argument'", async () => {
    const p = main.prim;
    const a = buf(main, 256);
    const o = buf(main, 256);
    const cases: [string, 'u32' | 'i32' | 'u64' | 'i64', number | bigint][] = [
      ['u32 -1', 'u32', -1],
      ['u32 2^32', 'u32', 2 ** 32],
      ['u32 0.5', 'u32', 0.5],
      ['u32 given a bigint', 'u32', 5n],
      ['i32 2^31', 'i32', 2 ** 31],
      ['i32 -2^31 - 1', 'i32', -(2 ** 31) - 1],
      ['u64 1.5', 'u64', 1.5],
      ['u64 -1n', 'u64', -1n],
      ['u64 2^64', 'u64', 1n << 64n],
      ['u64 2^53 (unsafe number)', 'u64', 2 ** 53],
      ['i64 2^63', 'i64', 1n << 63n],
    ];
    for (const [what, type, initialValue] of cases) {
      await expectRejected(main, 'invalid-argument', `reduce initialValue ${what}`, (enc) => p.reduce(enc, { input: a, output: o, count: 8, type, initialValue }));
      await expectRejected(main, 'invalid-argument', `scan initialValue ${what}`, (enc) => p.exclusiveScan(enc, { input: a, output: o, count: 8, type, initialValue }));
    }
    // The edges that do fit are accepted.
    expect(await p.arrays.reduce(new Uint32Array(0), { initialValue: 0xffffffff })).toBe(0xffffffff);
    expect(await p.arrays.reduce(new Int32Array(0), { initialValue: -(2 ** 31) })).toBe(-(2 ** 31));
    expect(await p.arrays.reduce(new BigInt64Array(0), { initialValue: -(1n << 63n) })).toBe(-(1n << 63n));
    expect(await p.arrays.reduce(new BigUint64Array(0), { initialValue: (1n << 64n) - 1n })).toBe((1n << 64n) - 1n);
  });
});

describe('device loss', () => {
  it("every call on a lost device: 'device-lost'", async () => {
    const adapter = await gpu.requestAdapter();
    const lost = wrap(await adapter!.requestDevice(), adapter!.info);
    const a = buf(lost, 256);
    const o = buf(lost, 256);
    // Works while alive (and compiles the reduce pipeline, so the cache is not what refuses).
    expect(await lost.prim.arrays.reduce(Uint32Array.of(1, 2))).toBe(3);
    lost.device.destroy();
    const info = await lost.device.lost;
    expect(info.reason).toBe('destroyed');
    const p = lost.prim;
    const e = await expectRejected(lost, 'device-lost', 'reduce', (enc) => p.reduce(enc, { input: a, output: o, count: 8, type: 'u32' }));
    expect(e.message).toContain('destroyed');
    await expectRejected(lost, 'device-lost', 'scan', (enc) => p.inclusiveScan(enc, { input: a, output: o, count: 8, type: 'u32' }));
    await expectRejected(lost, 'device-lost', 'transform', (enc) => p.transform(enc, { input: a, output: o, count: 8, type: 'u32', expression: 'a' }));
    await expectRejected(lost, 'device-lost', 'arrays reduce', () => p.arrays.reduce(Uint32Array.of(1, 2)));
    await expectRejected(lost, 'device-lost', 'arrays transform', () => p.arrays.transform(Uint32Array.of(1, 2), { expression: 'a' }));
  });
});
