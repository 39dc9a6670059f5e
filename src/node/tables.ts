// Tuned tables on disk (Node only): loading a folder of table JSON files at run time, and the
// reading and writing that `create-optimization` and `apply-config-improvements` do.
//
// Format choice: each generated `<algorithm>.ts` has a sidecar `<algorithm>.json` with the same
// rows (format `wgprim-tuned-table`). Node (20) cannot import TypeScript without a loader, and
// tables must not be parsed back with regular expressions, so tools read the JSON. The one
// exception is the package's own `src/config/tuned/` before it has sidecars (hand-seeded
// modules): there the tables this build ships are used, i.e. the compiled modules themselves.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { WgprimError } from '../runtime/errors.js';
import { type TunedEntry } from '../config/types.js';
import { isTunedTableFile, normalizeTunedInput, TABLE_SPECS, TUNED_ALGORITHMS, type TunedAlgorithm, type TunedTables } from '../tables.js';
import { TABLES } from '../algorithms.js';

const BUILT_IN = Object.fromEntries(TABLES.map((t) => [t.name, t.builtin])) as Readonly<Record<TunedAlgorithm, readonly TunedEntry<unknown>[]>>;

function readJson(file: string): unknown {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new WgprimError('invalid-argument', `cannot read ${file}: ${(err as Error).message}`, { cause: err });
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new WgprimError('invalid-argument', `${file} is not JSON: ${(err as Error).message}`, { cause: err });
  }
}

function isDir(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Reads every tuned-table JSON file (`"format": "wgprim-tuned-table"`, as create-optimization
 * writes next to its modules) in a folder, validated, for `createPrim(device, { tuned })`.
 * Other JSON files are ignored; a folder with none throws `invalid-argument`.
 */
export function loadTunedDir(dir: string): TunedTables {
  if (!isDir(dir)) throw new WgprimError('invalid-argument', `tuned-table folder ${dir} does not exist`);
  const parts: unknown[] = [];
  for (const name of fs.readdirSync(dir).filter((n) => n.endsWith('.json')).sort()) {
    const file = path.join(dir, name);
    const data = readJson(file);
    if (!isTunedTableFile(data)) continue;
    normalizeTunedInput(data, file); // names the file in any error
    parts.push(data);
  }
  if (!parts.length) throw new WgprimError('invalid-argument', `no tuned-table JSON ("format": "wgprim-tuned-table") in ${dir}`);
  return normalizeTunedInput(parts);
}

// ---------------------------------------------------------------------------------------------
// For the CLI

/** The package's root folder (the one holding package.json). */
export function packageRoot(): string {
  return fileURLToPath(new URL('../..', import.meta.url));
}

/** `src/config/tuned` of the package when running from a checkout, else undefined. */
export function defaultTunedDir(): string | undefined {
  const dir = path.join(packageRoot(), 'src', 'config', 'tuned');
  return isDir(dir) ? dir : undefined;
}

/** What generated modules in `outDir` import their types from: a relative path to the package's `src/` when inside it, else `wgprim`. */
export function importRootFor(outDir: string): string {
  const src = path.join(packageRoot(), 'src');
  const rel = path.relative(path.resolve(outDir), src);
  const inside = !path.relative(src, path.resolve(outDir)).startsWith('..') && !path.isAbsolute(path.relative(src, path.resolve(outDir)));
  if (!inside) return 'wgprim';
  const posix = rel.split(path.sep).join('/');
  return posix === '' ? '.' : posix.startsWith('.') ? posix : `./${posix}`;
}

const sameDir = (a: string, b: string): boolean => {
  try {
    return fs.realpathSync(a) === fs.realpathSync(b);
  } catch {
    return path.resolve(a) === path.resolve(b);
  }
};

export interface ReadTablesResult {
  readonly tables: TunedTables;
  /** Where each table came from. */
  readonly from: Partial<Record<TunedAlgorithm, string>>;
}

/**
 * The tables in a folder of generated modules: `<algorithm>.json` where it exists; for the
 * package's own `src/config/tuned` (or `dist/config/tuned`) without one, the built-in table of
 * this build. A `<algorithm>.ts` with no JSON elsewhere is an error (Node cannot import it).
 * A missing folder, or a folder with neither, gives no tables.
 */
export function readTablesDir(dir: string): ReadTablesResult {
  const tables: Record<string, readonly TunedEntry<unknown>[]> = {};
  const from: Partial<Record<TunedAlgorithm, string>> = {};
  if (!isDir(dir)) return { tables: {}, from };
  const own = sameDir(dir, path.join(packageRoot(), 'src', 'config', 'tuned')) || sameDir(dir, path.join(packageRoot(), 'dist', 'config', 'tuned'));
  for (const a of TUNED_ALGORITHMS) {
    const json = path.join(dir, `${TABLE_SPECS[a].fileName}.json`);
    const ts = path.join(dir, `${TABLE_SPECS[a].fileName}.ts`);
    if (fs.existsSync(json)) {
      const data = readJson(json);
      if (!isTunedTableFile(data) || (data as { algorithm?: unknown }).algorithm !== a) {
        throw new WgprimError('invalid-argument', `${json} is not a "wgprim-tuned-table" file for ${a}`);
      }
      const t = normalizeTunedInput(data, json) as Record<string, readonly TunedEntry<unknown>[]>;
      tables[a] = t[a] ?? [];
      from[a] = json;
    } else if (own) {
      tables[a] = BUILT_IN[a];
      from[a] = `built-in ${TABLE_SPECS[a].exportName} (this build's config/tuned/${TABLE_SPECS[a].fileName}.js)`;
    } else if (fs.existsSync(ts)) {
      throw new WgprimError('invalid-argument', `${ts} has no ${TABLE_SPECS[a].fileName}.json next to it, and Node cannot import TypeScript: regenerate the folder with wgprim create-optimization (it writes both)`);
    }
  }
  return { tables: tables as TunedTables, from };
}

/** Writes the generated files into `dir` (created if missing); returns their paths. */
export function writeOutputs(dir: string, outputs: readonly { name: string; text: string }[]): string[] {
  fs.mkdirSync(dir, { recursive: true });
  return outputs.map((o) => {
    const file = path.join(dir, o.name);
    fs.writeFileSync(file, o.text);
    return file;
  });
}

/** Benchmark JSON files: the files given, and every `*.json` in folders given, that hold `benchmarks`. */
export function readBenchmarkInputs(paths: readonly string[]): { data: unknown; label: string }[] {
  const out: { data: unknown; label: string }[] = [];
  for (const p of paths) {
    if (isDir(p)) {
      for (const name of fs.readdirSync(p).filter((n) => n.endsWith('.json')).sort()) {
        const data = readJson(path.join(p, name));
        if (data && typeof data === 'object' && Array.isArray((data as { benchmarks?: unknown }).benchmarks)) out.push({ data, label: name });
      }
    } else {
      out.push({ data: readJson(p), label: path.basename(p) });
    }
  }
  return out;
}
