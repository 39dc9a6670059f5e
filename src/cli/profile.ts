// `wgprim profile`: where one algorithm call's GPU time goes, per kernel (timestamps per pass).
import fs from 'node:fs';
import path from 'node:path';
import { idleWarmupMs, prepareAlgorithmCall, type PreparedCall } from '../bench/run.js';
import { BENCHMARKS } from '../algorithms.js';
import { passMedians, profileCalls, type ProfileResult } from '../bench/profile.js';
import { WGPRIM_VERSION } from '../bench/gbench.js';
import { type ElementType } from '../wgsl/types.js';
import { type Prim } from '../prim.js';
import { configOverrides } from './bench.js';
import { openDevice } from './device.js';
import { formatCount } from './parse.js';
import { renderTable } from './table.js';

/** What `profile --algorithm` takes: one benchmark of one call (`scan` is two, so it is not here). */
export const PROFILE_ALGORITHMS: readonly string[] = BENCHMARKS.map((b) => b.name);
export type ProfileAlgorithm = string;

export interface ProfileCommandOptions {
  readonly algorithm: ProfileAlgorithm;
  readonly type: ElementType;
  readonly size: number;
  readonly runs: number;
  readonly warmup: number;
  /** After inputs slow to make, unprofiled runs for this many ms (as bench's --warmup-ms; default 0). */
  readonly warmupMs?: number;
  readonly seed: number;
  readonly config?: string;
  readonly tuned?: string;
  readonly json?: string;
}

/** The call `wgprim bench` would time for this algorithm, type and size (same inputs, same config). */
export async function prepareProfileCall(prim: Prim, opts: Pick<ProfileCommandOptions, 'algorithm' | 'type' | 'size' | 'seed' | 'config'>): Promise<PreparedCall> {
  const override = configOverrides(opts.config);
  const { algorithm, type, size, seed } = opts;
  return prepareAlgorithmCall(prim, algorithm, { type, size, seed, config: override(algorithm) });
}

/** Rows sorted by total time: label, calls per run, median ms per run, median ms per call, share. */
export function profileTable(p: ProfileResult): string {
  const rows = p.kernels.map((k) => [
    k.label, fmtCalls(k.callsPerRun), k.medianMsPerRun.toFixed(4), k.medianMsPerCall.toFixed(4), `${(k.share * 100).toFixed(1)}%`,
  ]);
  return renderTable(['kernel', 'calls/run', 'median ms/run', 'median ms/call', 'share'], rows, new Set([1, 2, 3, 4]));
}

function fmtCalls(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(2);
}

/** The JSON `--json` writes. */
export function profileJson(p: ProfileResult, call: PreparedCall, opts: ProfileCommandOptions, adapter: GPUAdapterInfo): unknown {
  return {
    format: 'wgprim-kernel-profile',
    version: WGPRIM_VERSION,
    date: new Date().toISOString(),
    adapter: { vendor: adapter.vendor, architecture: adapter.architecture, device: adapter.device, description: adapter.description },
    algorithm: call.algorithm, type: opts.type, size: opts.size, seed: opts.seed, runs: p.runs, warmup: opts.warmup, warmup_ms: opts.warmupMs ?? 0,
    name: call.name, config: call.config, config_source: call.configSource,
    span_ms: { median: p.medianSpanMs, per_run: p.spanMs },
    gap_ms_median: p.medianGapMs,
    kernel_total_ms: p.kernelTotalMs,
    kernels: p.kernels.map((k) => ({
      label: k.label, calls: k.calls, calls_per_run: k.callsPerRun, total_ms: k.totalMs,
      median_ms_per_call: k.medianMsPerCall, median_ms_per_run: k.medianMsPerRun, share: k.share,
    })),
    passes: passMedians(p.passes).map((s) => ({ label: s.label, median_ms: s.medianMs })),
  };
}

export async function profileCommand(opts: ProfileCommandOptions): Promise<number> {
  const dev = await openDevice(opts.tuned);
  const call = await prepareProfileCall(dev.prim, opts);
  const result = await profileCalls(dev.prim, call.record, { runs: opts.runs, warmup: opts.warmup, warmupMs: idleWarmupMs(call, opts.warmupMs) });
  console.log(`${call.algorithm} ${opts.type} ${formatCount(opts.size)}: ${opts.runs} profiled run(s) after ${opts.warmup} warm-up, ${dev.prim.target.device || dev.prim.target.vendor}`);
  console.log(`config (${call.configSource}): ${JSON.stringify(call.config)}`);
  console.log(profileTable(result));
  console.log(`GPU span per run (first pass begin to last pass end): median ${result.medianSpanMs.toFixed(4)} ms; between passes: median ${result.medianGapMs.toFixed(4)} ms`);
  if (opts.json) {
    fs.mkdirSync(path.dirname(path.resolve(opts.json)), { recursive: true });
    fs.writeFileSync(opts.json, JSON.stringify(profileJson(result, call, opts, dev.adapterInfo), null, 2) + '\n');
    process.stderr.write(`wrote ${opts.json}\n`);
  }
  return 0;
}
