// Dawn's dynamic-limit warnings filtered out of stderr (src/node/stderr.ts): the line filters,
// and descriptor 2 swapped around native writes, checked in a child process. No GPU.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { DawnWarningFilter, isDawnLimitWarning, withoutDawnLimitWarnings } from '../src/node/stderr.js';

const UNIFORM = 'Warning: maxDynamicUniformBuffersPerPipelineLayout artificially reduced from 1000000 to 16 to fit dynamic offset allocation limit.';
const STORAGE = 'Warning: maxDynamicStorageBuffersPerPipelineLayout artificially reduced from 1000000 to 16 to fit dynamic offset allocation limit.';

describe('Dawn limit warnings', () => {
  it('matches only those lines', () => {
    expect(isDawnLimitWarning(UNIFORM)).toBe(true);
    expect(isDawnLimitWarning(STORAGE)).toBe(true);
    expect(isDawnLimitWarning('Warning: something else artificially reduced')).toBe(false);
    expect(isDawnLimitWarning(`${UNIFORM} and more`)).toBe(false);
    expect(withoutDawnLimitWarnings(`a\n${UNIFORM}\n${STORAGE}\nb\n`)).toBe('a\nb\n');
    expect(withoutDawnLimitWarnings('no newline at the end')).toBe('no newline at the end');
  });

  it('filters a stream split anywhere, without holding other partial lines', () => {
    const text = `[1/3] scan\n${UNIFORM}\nprogress 10%\n${STORAGE}\nerror: kept\n`;
    for (let cut = 0; cut <= text.length; cut++) {
      const f = new DawnWarningFilter();
      const out = f.push(text.slice(0, cut)) + f.push(text.slice(cut)) + f.flush();
      expect(out).toBe('[1/3] scan\nprogress 10%\nerror: kept\n');
    }
    const f = new DawnWarningFilter();
    expect(f.push('50%')).toBe('50%');
    expect(f.push('Warn')).toBe('');
    expect(f.push(`${UNIFORM.slice(4)}\nnext`)).toBe('next');
    expect(f.flush()).toBe('');
  });

  it('filters native writes to descriptor 2 (a pipe) and passes the rest', () => {
    // The module alone, compiled to JavaScript for a plain Node child (it imports only node:*).
    const source = readFileSync(fileURLToPath(new URL('../src/node/stderr.ts', import.meta.url)), 'utf8');
    const dir = mkdtempSync(join(tmpdir(), 'wgprim-stderr-test-'));
    const stderrModule = join(dir, 'stderr.mjs');
    writeFileSync(stderrModule, ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022 } }).outputText);
    const script = `
      import fs from 'node:fs';
      const { filterNativeStderr } = await import(${JSON.stringify(stderrModule)});
      const r = filterNativeStderr(() => { fs.writeSync(2, ${JSON.stringify(`${UNIFORM}\nkept line\n${STORAGE}\n`)}); return 7; });
      fs.writeSync(2, 'after ' + r + '\\n');
    `;
    // Node's own child pipes are sockets, which cannot be reopened: give the child a shell pipe.
    const child = spawnSync('sh', ['-c', '"$NODE" --input-type=module -e "$SCRIPT" 2>&1 >/dev/null | cat'], { encoding: 'utf8', env: { ...process.env, NODE: process.execPath, SCRIPT: script } });
    rmSync(dir, { recursive: true, force: true });
    expect(child.status).toBe(0);
    expect(child.stdout).toBe('kept line\nafter 7\n');
  });
});
