// `wgprim demo`: every algorithm on 1e6 random elements, checked against the CPU, then a short bench.
import { describeTarget } from '../runtime/target.js';
import { minstd } from '../bench/run.js';
import { type PrimTypedArray } from '../arrays.js';
import { type Prim } from '../prim.js';
import { isSoftwareAdapter, openDevice } from './device.js';
import { printTable, runBenchmarks } from './bench.js';
import { formatCount } from './parse.js';

const N = 1_000_000;

interface Check {
  readonly name: string;
  readonly run: () => Promise<PrimTypedArray | number | bigint>;
  /** An error message, or undefined when the result is right. */
  readonly verify: (got: PrimTypedArray | number | bigint) => string | undefined;
}

/** First index where `got` and `want` differ by more than `tol(want)`, as a message. */
function compare(got: ArrayLike<number>, want: ArrayLike<number>, tol: (w: number) => number): string | undefined {
  if (got.length !== want.length) return `length ${got.length}, expected ${want.length}`;
  for (let i = 0; i < want.length; i++) {
    if (!(Math.abs(got[i]! - want[i]!) <= tol(want[i]!))) return `element ${i} is ${got[i]}, expected ${want[i]}`;
  }
  return undefined;
}

function checks(prim: Prim): Check[] {
  const next = minstd(2024);
  const u = new Uint32Array(N).map(() => ((next() << 1) ^ next()) >>> 0); // full 32-bit range: sums wrap
  const f = new Float32Array(N).map(() => next() / 2147483647);
  const exact = () => 0;
  // Parallel float sums associate differently from a sequential one: compare to fp64 loosely.
  const loose = (w: number): number => 1e-4 * Math.max(Math.abs(w), 1);

  const uInc = new Uint32Array(N);
  const fInc = new Float64Array(N);
  for (let i = 0, su = 0, sf = 0; i < N; i++) {
    uInc[i] = su = (su + u[i]!) >>> 0;
    fInc[i] = sf += f[i]!;
  }
  const uExc = new Uint32Array(N);
  uExc.set(uInc.subarray(0, N - 1), 1);
  const fExc = new Float64Array(N);
  fExc.set(fInc.subarray(0, N - 1), 1);
  const a = prim.arrays;
  const arr = (got: unknown): ArrayLike<number> => got as ArrayLike<number>;
  return [
    { name: 'reduce u32', run: () => a.reduce(u), verify: (g) => (g === uInc[N - 1] ? undefined : `got ${g}, expected ${uInc[N - 1]}`) },
    { name: 'reduce f32', run: () => a.reduce(f), verify: (g) => compare([Number(g)], [fInc[N - 1]!], loose) },
    { name: 'inclusive_scan u32', run: () => a.inclusiveScan(u), verify: (g) => compare(arr(g), uInc, exact) },
    { name: 'inclusive_scan f32', run: () => a.inclusiveScan(f), verify: (g) => compare(arr(g), fInc, loose) },
    { name: 'exclusive_scan u32', run: () => a.exclusiveScan(u), verify: (g) => compare(arr(g), uExc, exact) },
    { name: 'exclusive_scan f32', run: () => a.exclusiveScan(f), verify: (g) => compare(arr(g), fExc, loose) },
    { name: 'transform u32 (a * 3u + 1u)', run: () => a.transform(u, { expression: 'a * 3u + 1u' }), verify: (g) => compare(arr(g), u.map((x) => Math.imul(x, 3) + 1), exact) },
    { name: 'transform f32 (a * 2.0 + 1.0)', run: () => a.transform(f, { expression: 'a * 2.0 + 1.0' }), verify: (g) => compare(arr(g), f.map((x) => x * 2 + 1), (w) => 1e-6 * Math.abs(w)) },
    { name: 'radix_sort_keys u32', run: () => a.radixSortKeys(u), verify: (g) => compare(arr(g), u.slice().sort(), exact) },
    { name: 'radix_sort_keys f32 descending', run: () => a.radixSortKeys(f, { descending: true }), verify: (g) => compare(arr(g), f.slice().sort().reverse(), exact) },
    {
      // Stable: equal keys (u >>> 16 has many) keep their index order.
      name: 'radix_sort_pairs u32 (argsort, 16 bits)',
      run: async () => (await a.radixSortPairs(u, Uint32Array.from({ length: N }, (_, i) => i), { beginBit: 16, endBit: 32 })).values,
      verify: (g) => compare(arr(g), Uint32Array.from({ length: N }, (_, i) => i).sort((x, y) => (u[x]! >>> 16) - (u[y]! >>> 16) || x - y), exact),
    },
    {
      name: 'segmented_radix_sort u32 (1000-key segments)',
      run: () => a.segmentedRadixSortKeys(u, Uint32Array.from({ length: N / 1000 + 1 }, (_, i) => i * 1000)),
      verify: (g) => {
        const want = u.slice();
        for (let b = 0; b < N; b += 1000) want.subarray(b, b + 1000).sort();
        return compare(arr(g), want, exact);
      },
    },
  ];
}

export async function demoCommand(): Promise<number> {
  const dev = await openDevice();
  const { prim, adapterInfo } = dev;
  console.log(`adapter  ${adapterInfo.vendor} / ${adapterInfo.architecture || '-'} / ${adapterInfo.device || '-'}  (${adapterInfo.description})`);
  console.log(`target   ${describeTarget(prim.target)}`);
  console.log(`\ncorrectness on ${N.toLocaleString('en-US')} random elements (each call made twice: the first compiles its pipelines; the time is the second's, upload and readback included):`);
  let wrong = 0;
  for (const c of checks(prim)) {
    let problem: string | undefined;
    let ms = 0;
    try {
      problem = c.verify(await c.run());
      const t0 = performance.now();
      const again = await c.run();
      ms = performance.now() - t0;
      problem ??= c.verify(again);
    } catch (err) {
      problem = (err as Error).message;
    }
    if (problem) wrong++;
    console.log(`  ${problem ? 'FAIL' : 'pass'}  ${c.name.padEnd(44)} ${ms.toFixed(1).padStart(8)} ms${problem ? `  ${problem}` : ''}`);
  }

  const software = isSoftwareAdapter(prim.target);
  const size = software ? 2 ** 20 : 2 ** 24;
  const plan = software ? { warmup: 2, warmupMs: 0, batches: 3, batchSize: 5 } : { warmup: 5, warmupMs: 200, batches: 10, batchSize: 10 };
  console.log(`\nbenchmark at ${formatCount(size)} u32 (${plan.batches} batches of ${plan.batchSize} after ${plan.warmup} warm-up calls${software ? '; software adapter, so a small size' : ''}):`);
  const { records, failures } = await runBenchmarks(prim, { algorithm: ['all'], type: ['u32'], size: [size], seed: 82589933, ...plan }, (line, isError) => {
    if (isError) console.log(`  ${line}`);
  });
  printTable(dev, records, undefined);
  if (failures) console.log(`${failures} benchmark(s) failed`);
  console.log(wrong ? `\n${wrong} result(s) WRONG` : '\nall results correct');
  return wrong || failures ? 1 : 0;
}
