// `wgprim report -b a.json [b.json ...] --out report.html`: one self-contained HTML page from
// Google Benchmark JSON files (src/tune/report.ts draws it).
import fs from 'node:fs';
import path from 'node:path';
import { parseName } from '../bench/gbench.js';
import { benchmarkName, benchmarkSpec } from '../bench/run.js';
import { TUNING_STAGES } from '../algorithms.js';
import { targetFromAdapterInfo } from '../runtime/target.js';
import { ELEMENT_TYPES, typeInfo, type ElementType } from '../wgsl/types.js';
import { analyzeReport, renderReport, type FlatConfig, type ReportDefault, type ReportInput } from '../tune/report.js';
import { parseBenchmarkName } from '../tune/registry.js';
import { type ConfigObject, type ConfigTable } from '../device/spec.js';

export interface ReportCommandOptions {
  readonly benchmark: string[];
  readonly out: string;
  readonly defaults?: string;
  /** false with --no-device: do not open the local device to learn the default configs. */
  readonly device?: boolean;
  readonly title?: string;
  readonly top?: number;
}

export function readInputs(files: readonly string[]): ReportInput[] {
  return files.map((file) => {
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch (err) {
      throw new Error(`cannot read ${file}: ${(err as Error).message}`);
    }
    try {
      return { file: path.basename(file), data: JSON.parse(text) as unknown };
    } catch (err) {
      throw new Error(`${file} is not JSON: ${(err as Error).message}`);
    }
  });
}

/** A `--defaults` file: a JSON array of `ReportDefault` ({ target?, algo, type?, cfg, source? }). */
export function readDefaults(file: string): ReportDefault[] {
  const data = JSON.parse(fs.readFileSync(file, 'utf8')) as unknown;
  const list = Array.isArray(data) ? data : [];
  if (!Array.isArray(data) || !list.every((d) => d && typeof d === 'object' && typeof (d as ReportDefault).algo === 'string' && typeof (d as ReportDefault).cfg === 'object')) {
    throw new Error(`${file}: expected a JSON array of { "algo": "scan", "type": "u32", "cfg": { "bs": 256, ... }, "target"?: {...}, "source"?: "..." }`);
  }
  return list as ReportDefault[];
}

const flatCfg = (name: string): FlatConfig => parseName(name).cfg as FlatConfig;

/**
 * The configs this machine's device selects, for the groups measured on this same device (the
 * adapter's vendor, architecture and device equal a file's); none when no device opens.
 */
async function deviceDefaults(inputs: readonly ReportInput[], log: (line: string) => void): Promise<ReportDefault[]> {
  const targets = analyzeReport(inputs);
  if (targets.length === 0) return [];
  let dev;
  try {
    const { openDevice } = await import('./device.js');
    dev = await openDevice();
  } catch (err) {
    log(`no local device (${(err as Error).message.split('\n')[0]}): default configs are not marked (use --defaults FILE)`);
    return [];
  }
  const here = dev.prim.target;
  const out: ReportDefault[] = [];
  for (const t of targets) {
    const there = targetFromAdapterInfo(t.target);
    if (there.vendor !== here.vendor || there.architecture !== here.architecture || there.device !== here.device) {
      log(`files for ${[there.vendor, there.architecture, there.device].join('/')} come from another device than this one (${[here.vendor, here.architecture, here.device].join('/')}): their defaults are not marked`);
      continue;
    }
    for (const g of t.groups) {
      // The group's benchmark and element type, read from a name as the tuner reads it (the sorts'
      // group types read `key u32, value empty`: the benchmark gives the value class).
      const stage = TUNING_STAGES.find((x) => x.stage === g.algo);
      let parsed;
      try {
        parsed = stage && g.variants[0] ? parseBenchmarkName(parseName(g.variants[0].name)) : undefined;
      } catch {
        parsed = undefined;
      }
      if (!stage || !parsed || !(ELEMENT_TYPES as readonly string[]).includes(parsed.type)) continue;
      const type = parsed.type as ElementType;
      const feature = typeInfo(type).feature;
      if (feature && !dev.prim.context.features.has(feature)) continue;
      const bench = benchmarkSpec(parsed.benchmark);
      const selected = dev.prim.algorithmEnv.select(stage.table as ConfigTable<ConfigObject>, type, bench.valueBytes, undefined, bench.typeClass?.(type));
      const name = benchmarkName(parsed.benchmark, type, selected.config);
      out.push({ target: { vendor: t.target.vendor, architecture: t.target.architecture, device: t.target.device }, algo: g.algo, type: g.type, cfg: flatCfg(name), source: selected.source });
    }
  }
  return out;
}

export async function reportCommand(opts: ReportCommandOptions): Promise<number> {
  const log = (line: string): void => {
    process.stderr.write(line + '\n');
  };
  if (!opts.benchmark?.length) throw new Error('give the benchmark files: wgprim report -b a.json [b.json ...] --out report.html');
  const inputs = readInputs(opts.benchmark);
  const defaults = [
    ...(opts.defaults ? readDefaults(opts.defaults) : []),
    ...(opts.device === false ? [] : await deviceDefaults(inputs, log)),
  ];
  const html = renderReport(inputs, { defaults, title: opts.title, top: opts.top });
  fs.mkdirSync(path.dirname(path.resolve(opts.out)), { recursive: true });
  fs.writeFileSync(opts.out, html);
  const targets = analyzeReport(inputs, { defaults });
  const groups = targets.reduce((n, t) => n + t.groups.length, 0);
  const errors = targets.reduce((n, t) => n + t.errors.length, 0);
  log(`wrote ${opts.out}: ${targets.length} target${targets.length === 1 ? '' : 's'}, ${groups} algorithm/type group${groups === 1 ? '' : 's'}, ${errors} error entr${errors === 1 ? 'y' : 'ies'} (${Math.round(html.length / 1024)} KiB)`);
  return 0;
}
