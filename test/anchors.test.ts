// `wgprim bench`'s default CUB figures: the package's own anchors/cub-<device>.json, found from
// the module's location, whatever the current directory. No GPU.
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { loadAnchors, packageAnchorsFile } from '../src/cli/table.js';

describe('package anchors', () => {
  it('finds the shipped H200 figures from any working directory', () => {
    const cwd = process.cwd();
    process.chdir(tmpdir());
    try {
      const file = packageAnchorsFile('nvidia-h200');
      expect(file.endsWith('/anchors/cub-nvidia-h200.json')).toBe(true);
      expect(existsSync(file)).toBe(true);
      const anchors = loadAnchors(file);
      expect(anchors?.some((a) => a.algo === 'inclusive_scan' && a.type === 'u32' && a.n === 2 ** 24)).toBe(true);
    } finally {
      process.chdir(cwd);
    }
  });

  it('has none for other devices, and keeps device names inside the folder', () => {
    expect(loadAnchors(packageAnchorsFile('llvmpipe-x'))).toBeUndefined();
    expect(packageAnchorsFile('../../etc/passwd')).toMatch(/anchors\/cub-\.\._\.\._etc_passwd\.json$/);
  });
});
