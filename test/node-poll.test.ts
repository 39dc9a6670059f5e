// dawn.node's polling throttled (src/node/poll.ts): its polls, and only those, go from the global
// setImmediate to a timer; installing twice changes nothing; restoring puts Node's back. The test
// workers run throttled already (test/support/dawn-poll.ts), so each case starts by restoring.
import { afterEach, describe, expect, it } from 'vitest';
import { requestDevice, throttleDawnPolling } from '../src/node/index.js';

const nativeNameless = (fn: unknown): boolean => typeof fn === 'function' && fn.name === '' && Function.prototype.toString.call(fn).includes('[native code]');

/**
 * Counts the nameless native callbacks that reach Node's setImmediate, and setTimeout for 7 ms,
 * while `run` runs; `throttle`: with throttleDawnPolling(7) installed over the counters.
 */
async function countPolls(run: () => Promise<void>, throttle: boolean): Promise<{ immediate: number; timeout: number }> {
  const counts = { immediate: 0, timeout: 0 };
  const { setImmediate: si, setTimeout: st } = globalThis;
  globalThis.setImmediate = ((fn: (...a: unknown[]) => void, ...a: unknown[]) => {
    if (nativeNameless(fn)) counts.immediate++;
    return si(fn, ...a);
  }) as typeof setImmediate;
  globalThis.setTimeout = ((fn: (...a: unknown[]) => void, ms?: number, ...a: unknown[]) => {
    if (nativeNameless(fn) && ms === 7) counts.timeout++;
    return st(fn, ms, ...a);
  }) as typeof setTimeout;
  const restore = throttle ? throttleDawnPolling(7) : undefined;
  try {
    await run();
  } finally {
    restore?.();
    globalThis.setImmediate = si;
    globalThis.setTimeout = st;
  }
  return counts;
}

describe('throttleDawnPolling', () => {
  afterEach(() => {
    throttleDawnPolling(); // as the set-up file left it
  });

  it('installs once, restores Node\'s setImmediate, and leaves other callbacks on it', async () => {
    throttleDawnPolling()();
    const nodeSetImmediate = globalThis.setImmediate;
    const restore = throttleDawnPolling(5);
    expect(globalThis.setImmediate).not.toBe(nodeSetImmediate);
    expect(throttleDawnPolling()).toBe(restore);
    // A JS callback still runs as an immediate: before a timer queued ahead of it.
    const order: string[] = [];
    await new Promise<void>((done) => {
      setTimeout(() => { order.push('timer'); done(); }, 0);
      setImmediate(() => order.push('immediate'));
    });
    expect(order).toEqual(['immediate', 'timer']);
    restore();
    expect(globalThis.setImmediate).toBe(nodeSetImmediate);
    restore(); // twice is harmless
    expect(globalThis.setImmediate).toBe(nodeSetImmediate);
  });

  it('dawn.node\'s polls go to a timer while installed, to setImmediate once restored; maps still resolve', async () => {
    const { device } = await requestDevice();
    const mapOnce = async (): Promise<void> => {
      const b = device.createBuffer({ size: 16, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
      device.queue.writeBuffer(b, 0, new Uint32Array([1, 2, 3, 4]));
      await device.queue.onSubmittedWorkDone();
      await b.mapAsync(GPUMapMode.READ);
      expect([...new Uint32Array(b.getMappedRange())]).toEqual([1, 2, 3, 4]);
      b.destroy();
    };
    throttleDawnPolling()();
    const spinning = await countPolls(mapOnce, false);
    expect(spinning.immediate).toBeGreaterThan(0);
    expect(spinning.timeout).toBe(0);
    const throttled = await countPolls(mapOnce, true);
    expect(throttled.timeout).toBeGreaterThan(0);
    expect(throttled.immediate).toBe(0);
    device.destroy();
  });
});
