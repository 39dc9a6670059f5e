// Every relative Markdown link in README.md and docs/ resolves to a file in the repository (and
// a `#anchor` to a heading of its target), so a moved or removed guide cannot leave a dead link.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

function markdownFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? markdownFiles(p) : name.endsWith('.md') ? [p] : [];
  });
}

/** Link targets of `[text](target)` and `![alt](target)` outside fenced code blocks and code spans. */
function linkTargets(markdown: string): string[] {
  const prose = markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/`[^`\n]*`/g, '');
  return [...prose.matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1]!);
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens. */
function anchors(markdown: string): Set<string> {
  const prose = markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
  return new Set([...prose.matchAll(/^#{1,6}\s+(.+?)\s*#*$/gm)].map((m) =>
    m[1]!.toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').trim().replace(/\s/g, '-')));
}

const files = [join(root, 'README.md'), ...markdownFiles(join(root, 'docs'))];

describe('Markdown links', () => {
  it('finds links the way the check below reads them', () => {
    expect(linkTargets('See [a](docs/a.md), ![img](x.png "t") and [b](#x).\n```\n[not](a.md)\n```\n`[no](t.md)`'))
      .toEqual(['docs/a.md', 'x.png', '#x']);
    expect(files.length).toBeGreaterThan(3);
  });

  it.each(files.map((f) => [relative(root, f), f]))('%s: every relative link resolves', (_name, file) => {
    const text = readFileSync(file, 'utf8');
    const broken: string[] = [];
    for (const target of linkTargets(text)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto: ...: not checked offline
      const [path, anchor] = target.split('#') as [string, string | undefined];
      const resolved = path === '' ? file : resolve(dirname(file), decodeURIComponent(path));
      if (!resolved.startsWith(root) || !existsSync(resolved)) {
        broken.push(`${target} (no file ${relative(root, resolved)})`);
        continue;
      }
      if (anchor && resolved.endsWith('.md') && !anchors(readFileSync(resolved, 'utf8')).has(anchor.toLowerCase())) {
        broken.push(`${target} (no heading #${anchor})`);
      }
    }
    expect(broken).toEqual([]);
  });
});
