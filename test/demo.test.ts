import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

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
});
