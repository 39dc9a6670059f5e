// Opens the Node (Dawn) device the CLI runs on, and gathers host facts for benchmark files.
import os from 'node:os';
import path from 'node:path';
import { requestDevice, throttleDawnPolling, type NodeDevice } from '../node/index.js';
import { loadTunedDir } from '../node/tables.js';
import { createPrim, type Prim } from '../prim.js';
import { type HostFacts } from '../bench/gbench.js';
import { isSoftwareAdapter } from '../runtime/target.js';

export interface CliDevice extends NodeDevice {
  readonly prim: Prim;
}

// Dawn crashes if its instance is collected while a device lives: hold it for the process.
let held: CliDevice | undefined;

/**
 * Dawn flags for `create()` from `WGPRIM_DAWN_FLAGS`, separated by spaces (a flag holds commas:
 * `disable-dawn-features=use_vulkan_zero_initialize_workgroup_memory_extension`), to time a
 * driver path against Dawn's default; benchmark files record them in their context.
 */
export function dawnFlagsFromEnv(env: Readonly<Record<string, string | undefined>> = process.env): string[] {
  return (env.WGPRIM_DAWN_FLAGS ?? '').split(/\s+/).filter((f) => f !== '');
}

/** `tunedDir`: tuned tables (`wgprim tune --out-basedir`) that take precedence over the built-in ones. */
export async function openDevice(tunedDir?: string): Promise<CliDevice> {
  if (held) return held;
  const nd = await requestDevice({ dawnFlags: dawnFlagsFromEnv() });
  const tuned = tunedDir === undefined ? undefined : loadTunedDir(tunedDir);
  held = { ...nd, prim: createPrim(nd.device, { adapterInfo: nd.adapterInfo, ...(tuned ? { tuned } : {}) }) };
  // On a CPU adapter dawn.node's spinning poll would take a core from the adapter's own work
  // (and make its timings noisy); on a GPU a poll's latency would add to every wait.
  if (isSoftwareAdapter(held.prim.target)) throttleDawnPolling();
  return held;
}

export function hostFacts(): HostFacts {
  const cpus = os.cpus();
  return {
    hostName: os.hostname(),
    executable: process.argv[1] ? path.resolve(process.argv[1]) : 'wgprim',
    numCpus: cpus.length,
    mhzPerCpu: cpus[0]?.speed ?? 0,
    loadAvg: os.loadavg(),
    dawnFlags: dawnFlagsFromEnv(),
  };
}
