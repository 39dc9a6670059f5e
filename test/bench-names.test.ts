// Every benchmark a tuning stage times writes a name that create-optimization reads back into
// that stage's table with the config it ran, and that the campaign's summary reads back to the
// stage and benchmark: a name field the reader does not know (a type field
// it cannot parse, an algo no stage claims) would drop a campaign's measurements without a word.
import { describe, expect, it } from 'vitest';
import { TUNING_STAGES } from '../src/algorithms.js';
import { benchmarkName } from '../src/bench/run.js';
import { entryName, parseName } from '../src/bench/gbench.js';
import { parseBenchmarkName } from '../src/tune/registry.js';
import { readMeasurements } from '../src/tune/measurements.js';
import { type ConfigObject } from '../src/device/spec.js';

const CONTEXT = { date: '2026-12-02T00:00:00Z', adapter_vendor: 'nvidia', adapter_device: 'nvidia-h200', wgprim_version: '0.1.0' };

describe('benchmark names round-trip through create-optimization\'s reader', () => {
  for (const stage of TUNING_STAGES) {
    it(`${stage.stage}: ${stage.benchmarks.join(', ')}`, () => {
      // The last value of each field: unlike the first, rarely a default a name omits.
      const config: ConfigObject = Object.fromEntries(Object.entries(stage.table.space).map(([k, v]) => [k, v[v.length - 1]!]));
      for (const benchmark of stage.benchmarks) {
        const name = entryName(benchmarkName(benchmark, 'u32', config), 65536);
        const read = readMeasurements([{ data: { context: CONTEXT, benchmarks: [{ name, run_type: 'iteration', size: 65536, items_per_second: 1e9, cv: 0.01 }] }, label: 'x.json' }]);
        expect(read.warnings, name).toEqual([]);
        expect(read.measurements.map((m) => m.algorithm), name).toEqual([stage.table.name]);
        expect(read.measurements[0]!.config, name).toMatchObject(config);
        // The campaign's summary (and so what prim.tune installs) reads names through the stage.
        expect(parseBenchmarkName(parseName(name)), name).toMatchObject({ algorithm: stage.stage, benchmark, type: 'u32', config });
      }
    });
  }
});
