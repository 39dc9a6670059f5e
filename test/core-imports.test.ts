import { readdirSync, readFileSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * The core (everything under src/ but src/node/ and src/cli/) runs in browsers, Deno and Bun:
 * it must not import Node built-ins (with or without the `node:` prefix) or Dawn (`webgpu`).
 * Imports are read with TypeScript's own pre-processor: static, type-only, side-effect and
 * re-export forms, dynamic `import()` and `require()`.
 */

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SRC = join(ROOT, 'src');
const EXCLUDED = ['node', 'cli'].map((d) => join(SRC, d) + sep);

const BUILTINS = new Set(builtinModules.flatMap((m) => [m, m.split('/')[0]!]));
// Spelled out as well, in case the running Node's list is short of one.
for (const m of ['fs', 'path', 'os', 'child_process', 'url', 'http', 'https', 'process', 'crypto', 'worker_threads', 'module', 'util', 'buffer', 'stream', 'events']) BUILTINS.add(m);

/** Why an import specifier is not allowed in the core, or undefined. */
function forbidden(specifier: string): string | undefined {
  if (specifier.startsWith('node:')) return 'a node: import';
  if (specifier === 'webgpu' || specifier.startsWith('webgpu/')) return 'Dawn (npm webgpu)';
  const head = specifier.split('/')[0]!;
  if (BUILTINS.has(head)) return `the Node built-in "${head}"`;
  return undefined;
}

function importsOf(source: string): string[] {
  const info = ts.preProcessFile(source, true, true);
  const found = info.importedFiles.map((f) => f.fileName);
  // preProcessFile misses `import()` types in type positions; catch them too.
  for (const m of source.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)) found.push(m[1]!);
  return [...new Set(found)];
}

function tsFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...tsFiles(p));
    else if (p.endsWith('.ts')) out.push(p);
  }
  return out;
}

describe('core imports', () => {
  it('no file of the core imports node:*, a Node built-in, or webgpu', () => {
    const files = tsFiles(SRC).filter((f) => !EXCLUDED.some((d) => f.startsWith(d)));
    // The walk really covers the core (a broken walk would pass vacuously).
    const rel = files.map((f) => relative(SRC, f).split(sep).join('/'));
    expect(rel).toEqual(expect.arrayContaining(['index.ts', 'prim.ts', 'arrays.ts', 'runtime/context.ts', 'bench/run.ts', 'device/scan/scan.ts', 'wgsl/views.ts']));
    expect(rel.some((f) => f.startsWith('node/') || f.startsWith('cli/'))).toBe(false);
    const problems: string[] = [];
    for (const f of files) {
      for (const spec of importsOf(readFileSync(f, 'utf8'))) {
        const why = forbidden(spec);
        if (why) problems.push(`src/${relative(SRC, f)} imports '${spec}' (${why})`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('the scanner finds what it must (a check that cannot fail is no check)', () => {
    const samples: [string, string][] = [
      ["import { readFileSync } from 'node:fs';", 'node:fs'],
      ["import * as path from 'path';", 'path'],
      ["import os from 'os'", 'os'],
      ["import type { ChildProcess } from 'child_process';", 'child_process'],
      ["export { fileURLToPath } from 'url';", 'url'],
      ["import 'http';", 'http'],
      ["import process from 'process';", 'process'],
      ["const m = await import('webgpu');", 'webgpu'],
      ["const f = require('fs/promises');", 'fs/promises'],
      ["type G = typeof import('webgpu');", 'webgpu'],
      ["import {\n  create,\n  globals,\n} from \"webgpu\";", 'webgpu'],
    ];
    for (const [src, spec] of samples) {
      expect(importsOf(src), src).toContain(spec);
      expect(forbidden(spec), src).toBeDefined();
    }
    for (const ok of ['./runtime/errors.js', '../wgsl/types.js', 'vitest', 'webgpu-types-lookalike', '@webgpu/types', 'pathological']) {
      expect(forbidden(ok), ok).toBeUndefined();
    }
    // And on a real file: the Node entry does import Dawn.
    expect(importsOf(readFileSync(join(SRC, 'node', 'index.ts'), 'utf8')).filter((s) => forbidden(s))).toContain('webgpu');
  });
});

describe('version', () => {
  it('the version the core reports (benchmarks, tuned rows, tune cache keys) is package.json\'s', async () => {
    const { WGPRIM_VERSION } = await import('../src/bench/gbench.js');
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(WGPRIM_VERSION).toBe(pkg.version);
  });
});
