// dawn.node's event polling, throttled on request.
//
// While any promise of dawn.node is pending (a mapAsync, an onSubmittedWorkDone, an async
// pipeline), it polls Dawn from a `setImmediate` callback that reschedules itself, creating a new
// native function for each poll: one CPU core spins, and V8's collector churns on the garbage. On
// a GPU that costs one host core. On a CPU adapter (lavapipe, SwiftShader) the GPU's work runs on
// the host's cores, so the spin takes a core from it: on a 2-core machine, lavapipe's reduce of
// 2^20 elements timed 2.04 ms (batches up to 53% apart) with the spin and 1.25 ms without.

let restoreInstalled: (() => void) | undefined;

/** dawn.node's polls are the only nameless native functions it hands to `setImmediate`. */
function isDawnPoll(fn: unknown): boolean {
  return typeof fn === 'function' && fn.name === '' && Function.prototype.toString.call(fn).includes('[native code]');
}

/**
 * Makes dawn.node poll at most every `intervalMs` milliseconds instead of spinning, by routing
 * its polls (and only those) from the global `setImmediate` to a timer: dawn.node looks the
 * global up at each poll. Promises then settle up to `intervalMs` later than they could, which
 * costs nothing next to a CPU adapter's work but would add to every wait on a fast GPU. Returns
 * a function that restores `setImmediate`; a second call while installed changes nothing and
 * returns that same function.
 */
export function throttleDawnPolling(intervalMs = 1): () => void {
  if (restoreInstalled) return restoreInstalled;
  const nodeSetImmediate = globalThis.setImmediate;
  const throttled = (fn: (...args: unknown[]) => void, ...args: unknown[]): unknown =>
    isDawnPoll(fn) ? setTimeout(fn, intervalMs, ...args) : nodeSetImmediate(fn, ...args);
  globalThis.setImmediate = Object.assign(throttled, nodeSetImmediate) as typeof setImmediate;
  const restore = (): void => {
    if (globalThis.setImmediate === (throttled as unknown)) globalThis.setImmediate = nodeSetImmediate;
    if (restoreInstalled === restore) restoreInstalled = undefined;
  };
  restoreInstalled = restore;
  return restore;
}
