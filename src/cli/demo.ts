// `wgprim demo`: every registered algorithm's checks on 1e6 random elements against its CPU
// reference, then a short bench.
import { describeTarget } from '../runtime/target.js';
import { minstd } from '../bench/run.js';
import { type DemoCheck, type DemoData } from '../device/spec.js';
import { ALGORITHMS } from '../algorithms.js';
import { type Prim } from '../prim.js';
import { isSoftwareAdapter, openDevice } from './device.js';
import { printTable, runBenchmarks } from './bench.js';
import { formatCount } from './parse.js';

const N = 1_000_000;

/** Every registered algorithm's demo checks on the same random data. */
function checks(prim: Prim): DemoCheck[] {
  const next = minstd(2024);
  const data: DemoData = {
    count: N,
    u32: new Uint32Array(N).map(() => ((next() << 1) ^ next()) >>> 0),
    f32: new Float32Array(N).map(() => next() / 2147483647),
  };
  return ALGORITHMS.flatMap((algorithm) => [...algorithm.demo(prim.arrays as never, data)]);
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
