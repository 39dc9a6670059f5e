// `wgprim report`: the HTML page drawn from crafted Google Benchmark JSON (two algorithms, a
// bs x ipt x other-fields space, three sizes, failed entries), checked as text and then in
// headless Chromium (Debian's package; see ../shared/browser.md): no console errors, every SVG
// drawn with a size, nothing wider than 1280 px, and a screenshot.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { chromium } from 'playwright-core';
import { formatName } from '../src/bench/gbench.js';
import { analyzeReport, formatGips, renderReport, type ReportDefault, type ReportInput } from '../src/tune/report.js';

const CHROMIUM = '/usr/lib/chromium/chromium';
const haveChromium = existsSync(CHROMIUM);
const inCI = !!process.env.CI;
if (!haveChromium && !inCI) {
  console.warn(`\n[report.test] browser part SKIPPED: no Chromium at ${CHROMIUM} (apt-get install -y chromium; scripts/setup.sh does, as root). In CI it runs and fails instead.\n`);
}

// ---------------------------------------------------------------- crafted benchmark files

const SIZES = [2 ** 20, 2 ** 24, 2 ** 28];
const SCAN = { bs: [64, 128, 256, 512, 1024], ipt: [4, 8, 12, 16, 24], lookback: ['decoupled', 'reduce_then_scan'], method: ['subgroup', 'shared'] };
const REDUCE = { bs: [64, 128, 256, 512], ipt: [4, 8, 16, 32], max_wg: [1024, 2048] };

/** Items/s of a crafted config: a smooth bump in log2(bs), log2(ipt), saturating with size. */
function scanIps(bs: number, ipt: number, lookback: string, method: string, size: number): number {
  const peakIpt = size >= 2 ** 28 ? 16 : 12; // the best ipt moves with size, so "best at each size" differs
  const shape = Math.exp(-((Math.log2(bs) - 8.2) ** 2) / 3 - ((Math.log2(ipt) - Math.log2(peakIpt)) ** 2) / 0.8);
  // Small workgroups do better without subgroups, big ones with reduce-then-scan: cells differ in their best.
  const method_ = method === 'subgroup' ? 1 : bs <= 64 ? 1.04 : 0.86;
  const look = lookback === 'decoupled' ? 1 : bs >= 1024 ? 1.03 : 0.64;
  return 340e9 * (0.35 + 0.65 * shape) * method_ * look * (size / (size + 2 ** 21));
}
function reduceIps(bs: number, ipt: number, maxWg: number, size: number): number {
  const shape = Math.exp(-((Math.log2(bs) - 9) ** 2) / 2 - ((Math.log2(ipt) - 3.3) ** 2) / 1.5);
  return 1050e9 * (0.4 + 0.6 * shape) * (maxWg === 2048 ? 1 : 0.93) * (size / (size + 2 ** 22));
}
const failing = (bs: number, ipt: number): boolean => bs === 1024 && ipt === 24;

const scanName = (bs: number, ipt: number, lookback: string, method: string): string =>
  formatName({ lvl: 'device', algo: 'scan', exclusive: false, value_type: 'u32', cfg: { bs, ipt, lookback, method } });
const reduceName = (bs: number, ipt: number, maxWg: number): string =>
  formatName({ lvl: 'device', algo: 'reduce', key_type: 'f32', cfg: { bs, ipt, max_wg: maxWg, method: 'subgroup' } });

function entry(name: string, size: number, ips: number, cv: number): Record<string, unknown> {
  const ms = (size / ips) * 1e3;
  return {
    name: `${name}/manual_time`, run_name: `${name}/manual_time`, run_type: 'iteration', repetitions: 1, repetition_index: 0, threads: 1,
    iterations: 100, real_time: ms, cpu_time: ms, time_unit: 'ms', bytes_per_second: ips * 8, items_per_second: ips,
    mean: ms, median: ms, stddev: ms * cv, cv, size,
  };
}
function errorEntry(name: string, size: number, message: string): Record<string, unknown> {
  return { name: `${name}/manual_time`, run_name: `${name}/manual_time`, run_type: 'iteration', repetitions: 1, repetition_index: 0, threads: 1,
    iterations: 0, real_time: 0, cpu_time: 0, time_unit: 'ms', error_occurred: true, error_message: message, size };
}

function context(date: string): Record<string, unknown> {
  return {
    date, host_name: 'ci', executable: 'wgprim', num_cpus: 16, mhz_per_cpu: 0, cpu_scaling_enabled: false, caches: [], load_avg: [],
    library_build_type: 'release', json_schema_version: 1, adapter_vendor: 'example', adapter_architecture: 'crafted',
    adapter_device: 'example-gpu', adapter_description: 'crafted data for the report test', adapter_subgroup_min_size: '32',
    adapter_subgroup_max_size: '32', wgprim_version: '0.1.0', size: SIZES.join(','), seed: '82589933', batch_iterations: '10',
    warmup_iterations: '5', trials: '10', timing: 'timestamp-query',
  };
}

let cvSeed = 7;
const cvNext = (): number => ((cvSeed = (cvSeed * 48271) % 2147483647) % 1000) / 1000 * 0.03 + 0.002;

function scanFile(): ReportInput {
  const benchmarks: Record<string, unknown>[] = [];
  for (const size of SIZES) {
    for (const bs of SCAN.bs) for (const ipt of SCAN.ipt) for (const lookback of SCAN.lookback) for (const method of SCAN.method) {
      const name = scanName(bs, ipt, lookback, method);
      if (failing(bs, ipt)) {
        if (size === SIZES[0]) benchmarks.push(errorEntry(name, size, `compile-failed: needs 49160 bytes of workgroup memory, over this device's 49152 (${lookback}, ${method})`));
        continue;
      }
      benchmarks.push(entry(name, size, scanIps(bs, ipt, lookback, method, size), cvNext()));
    }
  }
  return { file: 'scan-u32.json', data: { context: context('2026-11-29T10:00:00+00:00'), benchmarks } };
}
function reduceFile(): ReportInput {
  const benchmarks: Record<string, unknown>[] = [];
  for (const size of SIZES) for (const bs of REDUCE.bs) for (const ipt of REDUCE.ipt) for (const maxWg of REDUCE.max_wg) {
    benchmarks.push(entry(reduceName(bs, ipt, maxWg), size, reduceIps(bs, ipt, maxWg, size), cvNext()));
  }
  return { file: 'reduce-f32.json', data: { context: context('2026-11-29T10:05:00+00:00'), benchmarks } };
}

const geomean = (xs: number[]): number => Math.exp(xs.reduce((a, x) => a + Math.log(x), 0) / xs.length);

/** The expected heatmap: per (bs, ipt), the best geometric mean over the other fields. */
function expectedScanCells(): Map<string, number> {
  const cells = new Map<string, number>();
  for (const bs of SCAN.bs) for (const ipt of SCAN.ipt) {
    if (failing(bs, ipt)) continue;
    let best = 0;
    for (const lookback of SCAN.lookback) for (const method of SCAN.method) {
      best = Math.max(best, geomean(SIZES.map((s) => scanIps(bs, ipt, lookback, method, s))));
    }
    cells.set(`${bs}|${ipt}`, best);
  }
  return cells;
}

const DEFAULTS: ReportDefault[] = [
  { target: { vendor: 'example' }, algo: 'scan', type: 'u32', cfg: { bs: 256, ipt: 8, lookback: 'decoupled', method: 'subgroup' }, source: 'heuristic' },
  { algo: 'reduce', type: 'f32', cfg: { bs: 256, ipt: 16, max_wg: 2048, method: 'subgroup' }, source: 'heuristic' },
];

interface Cell { classes: string; bs: string; ipt: string; state?: string; value?: string; }
/** The heatmap cells of one group's section. */
function cells(html: string, groupId: string): Cell[] {
  const start = html.indexOf(`<section class="group" id="${groupId}">`);
  expect(start).toBeGreaterThanOrEqual(0);
  const section = html.slice(start, html.indexOf('</section>', start));
  return [...section.matchAll(/<g class="(cell[^"]*)" data-bs="([^"]*)" data-ipt="([^"]*)"(?: data-state="([^"]*)")?(?: data-value="([^"]*)")?>/g)]
    .map((m) => ({ classes: m[1]!, bs: m[2]!, ipt: m[3]!, state: m[4], value: m[5] }));
}

const inputs = [scanFile(), reduceFile()];
const generated = new Date('2026-11-29T12:00:00Z');
const html = renderReport(inputs, { defaults: DEFAULTS, generated, title: 'wgprim tuning report (crafted example data)' });

describe('report HTML', () => {
  const [target] = analyzeReport(inputs, { defaults: DEFAULTS });
  const scan = target!.groups.find((g) => g.algo === 'scan')!;
  const reduce = target!.groups.find((g) => g.algo === 'reduce')!;

  it('groups by target, algorithm and type, with the sizes and the failed entries', () => {
    expect(analyzeReport(inputs)).toHaveLength(1);
    expect(target!.groups.map((g) => `${g.label} ${g.type}`)).toEqual(['reduce f32', 'scan (inclusive) u32']);
    expect(scan.sizes).toEqual(SIZES);
    expect(scan.variants).toHaveLength(24 * 4);
    expect(target!.errors).toHaveLength(4);
    expect(scan.errors).toHaveLength(4);
  });

  it('prints each heatmap cell as the best score over the other fields, and marks the winner', () => {
    const expected = expectedScanCells();
    const got = cells(html, scan.id);
    expect(got).toHaveLength(SCAN.bs.length * SCAN.ipt.length);
    for (const c of got) {
      const want = expected.get(`${c.bs}|${c.ipt}`);
      if (want === undefined) {
        expect(c.state).toBe('error');
        expect(`${c.bs}|${c.ipt}`).toBe('1024|24');
      } else {
        expect(c.value, `cell bs ${c.bs} ipt ${c.ipt}`).toBe(formatGips(want));
      }
    }
    const [bestKey] = [...expected].sort((a, b) => b[1] - a[1])[0]!;
    const winners = got.filter((c) => c.classes.split(' ').includes('winner'));
    expect(winners.map((c) => `${c.bs}|${c.ipt}`)).toEqual([bestKey]);
    expect(bestKey).toBe('256|12');
    expect(html).toContain(`★ ${formatGips(expected.get(bestKey)!)}`);
    // The default's cell is marked too, and the chosen config beats it.
    expect(got.filter((c) => c.classes.includes('default')).map((c) => `${c.bs}|${c.ipt}`)).toEqual(['256|8']);
    expect(scan.best.cfg).toEqual({ bs: 256, ipt: 12, lookback: 'decoupled', method: 'subgroup' });
    expect(scan.defaultVariant?.defaultSource).toBe('heuristic');
    expect(scan.best.score / scan.defaultVariant!.score).toBeGreaterThan(1);
  });

  it('draws the reduce heatmap and marks its winner', () => {
    const got = cells(html, reduce.id);
    expect(got).toHaveLength(REDUCE.bs.length * REDUCE.ipt.length);
    const winner = got.find((c) => c.classes.includes('winner'))!;
    const best = Math.max(...got.map((c) => Number(c.value)));
    expect(Number(winner.value)).toBe(best);
    expect(`${winner.bs}|${winner.ipt}`).toBe('512|8');
  });

  it('has the header, the charts, the table and the errors', () => {
    expect(html).toContain('example / crafted / example-gpu');
    expect(html).toContain('2026-11-29T10:00:00+00:00');
    expect(html).toContain('wgprim 0.1.0');
    expect((html.match(/<svg class="heatmap"/g) ?? []).length).toBe(2);
    expect((html.match(/<svg class="sizechart"/g) ?? []).length).toBe(2);
    expect(html).toContain('input size (elements)');
    expect(html).toContain('throughput (G items/s)');
    expect(html).toContain('workgroup size (bs)');
    expect(html).toContain('items per thread (ipt)');
    expect((html.match(/<table class="top">/g) ?? []).length).toBe(2);
    expect(html).toContain('Errors (4)');
    expect(html).toContain('over this device&#39;s 49152');
  });

  it('is self-contained: no URLs, no scripts', () => {
    expect(html).not.toMatch(/http/i);
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/@import|url\((?!#)/i);
  });

  it('escapes text from the files and reads files without a default', () => {
    const evil = { file: '<b>x.json', data: { context: { ...context('d'), adapter_description: '<img src=x onerror=alert(1)>' }, benchmarks: [errorEntry(scanName(64, 4, 'decoupled', 'subgroup'), 1024, '<script>alert(1)</script>')] } };
    const out = renderReport([evil]);
    expect(out).not.toContain('<script>');
    expect(out).not.toContain('<img');
    expect(out).toContain('&lt;script&gt;');
    const plain = renderReport([inputs[1]!]);
    expect(plain).toContain('not known for this target');
  });
});

// ---------------------------------------------------------------- the command

describe('wgprim report (CLI)', () => {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
  const main = join(root, 'dist/cli/main.js');
  const dir = mkdtempSync(join(tmpdir(), 'wgprim-report-cli-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const run = (args: string[]): ReturnType<typeof spawnSync> => {
    if (!existsSync(main)) execFileSync('npx', ['tsc', '-p', 'tsconfig.json'], { cwd: root, stdio: 'inherit' });
    return spawnSync('node', [main, 'report', ...args], { cwd: root, encoding: 'utf8', timeout: 60_000 });
  };

  it('writes the page from several files, marking the defaults given in a file', () => {
    const files = inputs.map((i) => {
      const f = join(dir, i.file!);
      writeFileSync(f, JSON.stringify(i.data));
      return f;
    });
    const defaults = join(dir, 'defaults.json');
    writeFileSync(defaults, JSON.stringify(DEFAULTS));
    const out = join(dir, 'out', 'report.html');
    const r = run(['-b', ...files, '--out', out, '--defaults', defaults, '--no-device']);
    expect(r.status, String(r.stderr)).toBe(0);
    expect(String(r.stderr)).toContain('1 target, 2 algorithm/type groups, 4 error entries');
    const page = readFileSync(out, 'utf8');
    expect((page.match(/default \(heuristic\)/g) ?? []).length).toBeGreaterThanOrEqual(2);
    expect(page).not.toMatch(/http|<script/i);
  });

  it('reads a file that `wgprim bench` wrote on the H200', () => {
    const file = join(root, 'test/fixtures/bench-nvidia-h200.json');
    const out = join(dir, 'h200.html');
    const r = run(['-b', file, '--out', out, '--no-device']);
    expect(r.status, String(r.stderr)).toBe(0);
    const page = readFileSync(out, 'utf8');
    expect(page).toContain('nvidia / - / nvidia-h200');
    expect(page).toContain('scan (inclusive) <span class="type">u32</span>');
  });

  it('fails with a message on a file that is not benchmark JSON', () => {
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '{"hello": 1}');
    const r = run(['-b', bad, '--out', join(dir, 'bad.html'), '--no-device']);
    expect(r.status).toBe(2);
    expect(String(r.stderr)).toContain('not a Google Benchmark JSON file');
  });
});

// ---------------------------------------------------------------- in headless Chromium

describe.skipIf(!haveChromium && !inCI)('report in headless Chromium', () => {
  const dir = mkdtempSync(join(tmpdir(), 'wgprim-report-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('renders without console errors; every SVG has a size; fits 1280 px; screenshot', async () => {
    const file = join(dir, 'report.html');
    writeFileSync(file, html);
    const context = await chromium.launchPersistentContext(join(dir, 'profile'), {
      executablePath: CHROMIUM,
      headless: true,
      viewport: { width: 1280, height: 900 },
      args: ['--no-sandbox', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    try {
      const page = context.pages()[0] ?? (await context.newPage());
      const problems: string[] = [];
      const requests: string[] = [];
      page.on('console', (m) => {
        if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`);
      });
      page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
      page.on('request', (r) => requests.push(r.url()));
      const url = pathToFileURL(file).href;
      await page.goto(url, { waitUntil: 'load' });

      const svgs = await page.$$eval('svg', (els) => els.map((e) => {
        const r = e.getBoundingClientRect();
        return { cls: e.getAttribute('class'), w: r.width, h: r.height };
      }));
      expect(svgs.map((s) => s.cls).sort()).toEqual(['heatmap', 'heatmap', 'sizechart', 'sizechart']);
      for (const s of svgs) {
        expect(s.w).toBeGreaterThan(100);
        expect(s.h).toBeGreaterThan(100);
      }
      const drawn = await page.$$eval('svg .cell rect, svg polyline, svg circle', (els) => els.filter((e) => {
        const r = e.getBoundingClientRect();
        return r.width > 0 && r.height > 0;
      }).length);
      expect(drawn).toBeGreaterThan(40);
      // Readable at 1280 px: nothing scrolls sideways.
      const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
      expect(scrollWidth).toBeLessThanOrEqual(1280);

      // WGPRIM_REPORT_SCREENSHOT=path.png keeps the screenshot (and the page beside it, as .html).
      const shot = process.env.WGPRIM_REPORT_SCREENSHOT ?? join(dir, 'report.png');
      if (process.env.WGPRIM_REPORT_SCREENSHOT) writeFileSync(shot.replace(/\.png$/, '') + '.html', html);
      await page.screenshot({ path: shot, fullPage: true });
      expect(statSync(shot).size).toBeGreaterThan(10_000);
      console.log(`[report.test] screenshot: ${shot}`);
      expect(problems).toEqual([]);
      expect(requests).toEqual([url]);
    } finally {
      await context.close();
    }
  });
});
