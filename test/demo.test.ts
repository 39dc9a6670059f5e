import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { demoBenchSizes, sameResult } from '../src/cli/demo.js';
import { expandAlgorithm } from '../src/bench/run.js';

const root = path.resolve(import.meta.dirname, '..');
const main = path.join(root, 'dist/cli/main.js');

function demo(...args: string[]) {
  if (!fs.existsSync(main)) execFileSync('npx', ['tsc', '-p', 'tsconfig.json'], { cwd: root, stdio: 'inherit' });
  return spawnSync('node', [main, 'demo', ...args], { cwd: root, encoding: 'utf8', timeout: 120_000 });
}

describe('wgprim demo', () => {
  it('--size and --algorithm run the chosen checks at each size, --no-bench skips the benchmark', () => {
    const run = demo('--size', '257,4099', '--algorithm', 'select', '--no-bench');
    expect(run.status, run.stderr).toBe(0);
    const sizes = [...run.stdout.matchAll(/correctness on ([\d,]+) random elements/g)].map((m) => m[1]);
    expect(sizes).toEqual(['257', '4,099']);
    const passed = run.stdout.match(/^ {2}pass {2}\S/gm) ?? [];
    expect(passed.length).toBe(4);
    expect(run.stdout).not.toMatch(/scan|benchmark at/);
    expect(run.stdout).toMatch(/all results correct/);
  });

  it('names the algorithms it knows when given one it does not', () => {
    const run = demo('--algorithm', 'selct');
    expect(run.status).not.toBe(0);
    expect(run.stderr).toMatch(/unknown algorithm "selct": use .*select/);
  });

  it('benchmarks each chosen algorithm at the demo size, or the largest power of two below it its calls take', () => {
    const limits = (binding: number) => ({ maxStorageBufferBindingSize: binding, maxBufferSize: 2 ** 32 }) as GPUSupportedLimits;
    const all = expandAlgorithm('all');
    // lavapipe's 128 MiB binding: batch copy's 2^20 ranges take about 740 bytes each, past it.
    const lavapipe = demoBenchSizes(limits(2 ** 27), 2 ** 20);
    expect(lavapipe.get(2 ** 17)?.sort()).toEqual(['batch_memcpy', 'batch_memcpy_copy_buffer']);
    expect(lavapipe.get(2 ** 20)).toEqual(all.filter((n) => !n.startsWith('batch_memcpy')));
    expect([...lavapipe.keys()].sort((a, b) => a - b)).toEqual([2 ** 17, 2 ** 20]);
    // A GPU's 4 GiB binding: batch copy at 2^22 (23 MB of entries at most), the rest at 2^24.
    const gpu = demoBenchSizes(limits(2 ** 32 - 4), 2 ** 24);
    expect(gpu.get(2 ** 22)?.sort()).toEqual(['batch_memcpy', 'batch_memcpy_copy_buffer']);
    expect(gpu.get(2 ** 24)).toEqual(all.filter((n) => !n.startsWith('batch_memcpy')));
    expect(gpu.size).toBe(2);
    // --algorithm: only those folders' benchmarks.
    expect([...demoBenchSizes(limits(2 ** 27), 2 ** 20, ['merge', 'transform'])]).toEqual([[2 ** 20, ['transform', 'merge']]]);
  });

  it('takes a second run for checked when it equals the first (sameResult): bytes, fields, numbers', () => {
    expect(sameResult(Uint32Array.of(1, 2, 3), Uint32Array.of(1, 2, 3))).toBe(true);
    expect(sameResult(Uint32Array.of(1, 2, 3), Uint32Array.of(1, 2, 4))).toBe(false);
    expect(sameResult(Uint32Array.of(1, 2), Uint32Array.of(1, 2, 3))).toBe(false);
    expect(sameResult(Float32Array.of(0), Float32Array.of(-0))).toBe(false);
    expect(sameResult(Uint32Array.of(0), Int32Array.of(0))).toBe(false);
    expect(sameResult(Float32Array.of(NaN), Float32Array.of(NaN))).toBe(true);
    expect(sameResult({ values: Float32Array.of(2), indices: Uint32Array.of(7) }, { values: Float32Array.of(2), indices: Uint32Array.of(7) })).toBe(true);
    expect(sameResult({ values: Float32Array.of(2), indices: Uint32Array.of(7) }, { values: Float32Array.of(2), indices: Uint32Array.of(8) })).toBe(false);
    expect(sameResult({ a: 1 }, { a: 1, b: 2 })).toBe(false);
    expect(sameResult(5, 5)).toBe(true);
    expect(sameResult(5n, 5n)).toBe(true);
    expect(sameResult(5, 6)).toBe(false);
  });
});
