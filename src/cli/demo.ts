// `wgprim demo`: every registered algorithm's checks on random elements against its CPU
// reference (1e6 by default; `--size` checks kernels at the sizes a GPU is timed at), then a
// short bench.
import { describeTarget, isSoftwareAdapter } from '../runtime/target.js';
import { benchmarkMaxBytes, expandAlgorithm, minstd } from '../bench/run.js';
import { type BenchRecord } from '../bench/gbench.js';
import { type DemoCheck, type DemoData } from '../device/spec.js';
import { ALGORITHMS } from '../algorithms.js';
import { type Prim } from '../prim.js';
import { openDevice } from './device.js';
import { printTable, runBenchmarks } from './bench.js';
import { formatCount } from './parse.js';

export interface DemoOptions {
  /** Elements of each check's data (default 1e6). */
  readonly size?: readonly number[];
  /** Algorithm folders whose checks run (default: every one). */
  readonly algorithm?: readonly string[];
  /** Skip the short benchmark after the checks. */
  readonly bench?: boolean;
}

/**
 * The demo's benchmarks by the size each runs at: `size` u32 elements, or the largest power of two
 * below it that the benchmark's calls take on a device with these limits (batch copy's ranges at
 * 2^20 outgrow lavapipe's binding); `algorithms`: only those folders' benchmarks.
 */
export function demoBenchSizes(limits: GPUSupportedLimits, size: number, algorithms?: readonly string[]): Map<number, string[]> {
  const chosen = algorithms && new Set(ALGORITHMS.filter((a) => algorithms.includes(a.name)).flatMap((a) => a.benchmarks.map((b) => b.name)));
  const bySize = new Map<number, string[]>();
  for (const name of expandAlgorithm('all').filter((n) => !chosen || chosen.has(n))) {
    const max = benchmarkMaxBytes(limits, name);
    let n = size;
    while (n > 1 && n * 4 > max) n /= 2;
    bySize.set(n, [...(bySize.get(n) ?? []), name]);
  }
  return bySize;
}

/** The registered algorithms' demo checks on the same random data of `n` elements. */
function checks(prim: Prim, n: number, algorithms: readonly string[] | undefined): DemoCheck[] {
  const next = minstd(2024);
  const data: DemoData = {
    count: n,
    u32: new Uint32Array(n).map(() => ((next() << 1) ^ next()) >>> 0),
    f32: new Float32Array(n).map(() => next() / 2147483647),
  };
  return ALGORITHMS.filter((a) => !algorithms || algorithms.includes(a.name)).flatMap((algorithm) => [...algorithm.demo(prim.arrays as never, data)]);
}

/** Runs the checks on `n` elements, printing a line each; returns how many failed. */
async function runChecks(prim: Prim, n: number, algorithms: readonly string[] | undefined): Promise<number> {
  console.log(`\ncorrectness on ${n.toLocaleString('en-US')} random elements (each call made twice: the first compiles its pipelines; the time is the second's, upload and readback included):`);
  let wrong = 0;
  for (const c of checks(prim, n, algorithms)) {
    let problem: string | undefined;
    let ms = 0;
    try {
      const first = await c.run();
      problem = c.verify(first);
      const t0 = performance.now();
      const again = await c.run();
      ms = performance.now() - t0;
      // The same result as the first, checked, needs no second CPU reference (at 2^28 some take minutes).
      if (!problem && !sameResult(first, again)) problem = c.verify(again);
    } catch (err) {
      problem = (err as Error).message;
    }
    if (problem) wrong++;
    console.log(`  ${problem ? 'FAIL' : 'pass'}  ${c.name.padEnd(44)} ${ms.toFixed(1).padStart(8)} ms${problem ? `  ${problem}` : ''}`);
  }
  return wrong;
}

/** Whether two results of a check are the same: numbers and bigints, typed arrays by their bytes, objects field by field. */
export function sameResult(a: unknown, b: unknown): boolean {
  if (ArrayBuffer.isView(a) && ArrayBuffer.isView(b)) {
    if (a.byteLength !== b.byteLength || a.constructor !== b.constructor) return false;
    const x = new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
    const y = new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
    for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false;
    return true;
  }
  if (a && b && typeof a === 'object' && typeof b === 'object' && !ArrayBuffer.isView(a) && !ArrayBuffer.isView(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => sameResult((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
  }
  return Object.is(a, b);
}

/** The algorithm folders `--algorithm` takes. */
export const DEMO_ALGORITHMS: readonly string[] = ALGORITHMS.map((a) => a.name);

export async function demoCommand(options: DemoOptions = {}): Promise<number> {
  const dev = await openDevice();
  const { prim, adapterInfo } = dev;
  console.log(`adapter  ${adapterInfo.vendor} / ${adapterInfo.architecture || '-'} / ${adapterInfo.device || '-'}  (${adapterInfo.description})`);
  console.log(`target   ${describeTarget(prim.target)}`);
  let wrong = 0;
  for (const n of options.size ?? [1_000_000]) wrong += await runChecks(prim, n, options.algorithm);
  if (options.bench === false) {
    console.log(wrong ? `\n${wrong} result(s) WRONG` : '\nall results correct');
    return wrong ? 1 : 0;
  }

  const software = isSoftwareAdapter(prim.target);
  const size = software ? 2 ** 20 : 2 ** 24;
  const plan = software ? { warmup: 2, warmupMs: 0, batches: 3, batchSize: 5 } : { warmup: 5, warmupMs: 200, batches: 10, batchSize: 10 };
  console.log(`\nbenchmark at ${formatCount(size)} u32 (${plan.batches} batches of ${plan.batchSize} after ${plan.warmup} warm-up calls${software ? '; software adapter, so a small size' : ''}):`);
  const bySize = demoBenchSizes(prim.context.limits, size, options.algorithm);
  const records: BenchRecord[] = [];
  let failures = 0;
  for (const [n, algorithm] of bySize) {
    if (n < size) console.log(`  ${algorithm.join(', ')}: at ${formatCount(n)}, the most this device's calls take`);
    const run = await runBenchmarks(prim, { algorithm, type: ['u32'], size: [n], seed: 82589933, ...plan }, (line, isError) => {
      if (isError) console.log(`  ${line}`);
    });
    records.push(...run.records);
    failures += run.failures;
  }
  printTable(dev, records, undefined);
  if (failures) console.log(`${failures} benchmark(s) failed`);
  console.log(wrong ? `\n${wrong} result(s) WRONG` : '\nall results correct');
  return wrong || failures ? 1 : 0;
}
