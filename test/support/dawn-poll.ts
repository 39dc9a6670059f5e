// Vitest set-up file (every test worker): dawn.node's event polling at most once a millisecond.
//
// While any promise of dawn.node is pending (a mapAsync, an onSubmittedWorkDone, an async
// pipeline), it polls Dawn from a `setImmediate` callback that reschedules itself, and it creates
// a new native function for each poll: one CPU core spins, and the garbage those functions leave
// keeps V8's collector busy. Here that spin took 40% of the CPU time of a test file (scan: 85 s of
// CPU for 50 s of wall time; 51 s with this file). Pipeline compiles, which dominate these tests,
// run on one thread, so without the spin two test files fit the two cores of a CI machine side by
// side (vitest.config.ts). dawn.node looks the global `setImmediate` up at each poll; its
// callbacks are the only nameless native functions passed to it, and they go to a 1 ms timer
// instead. Everything else keeps Node's own `setImmediate`.
const nodeSetImmediate = globalThis.setImmediate;

const isDawnPoll = (fn: unknown): boolean =>
  typeof fn === 'function' && fn.name === '' && Function.prototype.toString.call(fn).includes('[native code]');

globalThis.setImmediate = ((fn: (...args: unknown[]) => void, ...args: unknown[]) =>
  isDawnPoll(fn) ? setTimeout(fn, 1, ...args) : nodeSetImmediate(fn, ...args)) as typeof setImmediate;
