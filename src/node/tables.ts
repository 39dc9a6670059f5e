// Tuned tables on disk (Node only): loading a folder of table JSON files at run time, and the
// reading and writing that `create-optimization` and `apply-config-improvements` do.
//
// One form per place. The package's own tables are generated TypeScript modules in their
// algorithms' folders (`src/device/scan/tuned.ts`): the browser-safe core imports them like any
// module, typed, with no JSON import attributes and no file reads, and a bundler keeps them. A
// user's folder holds `<table>.json` files (`wgprim-tuned-table`), which `loadTunedDir` and
// `createPrim(device, { tuned })` load at run time; nothing compiles them. The tools read the
// package's tables back from this build's compiled modules (Node 20 cannot import TypeScript),
// and refuse when a source module is newer than its build.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { WgprimError } from '../runtime/errors.js';
import { type TunedEntry } from '../config/types.js';
import { isTunedTableFile, normalizeTunedInput, TABLE_SPECS, TUNED_ALGORITHMS, type TunedAlgorithm, type TunedTables } from '../tables.js';

/** The word the CLI takes for the package's own tables (as well as the path of its `src/`). */
export const BUILTIN_TABLES = 'builtin';

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

/** The package's `src/` when running from a checkout (where its tables are written), else undefined. */
export function packageSourceDir(): string | undefined {
  const dir = path.join(packageRoot(), 'src');
  return isDir(dir) ? dir : undefined;
}

const sameDir = (a: string, b: string): boolean => {
  try {
    return fs.realpathSync(a) === fs.realpathSync(b);
  } catch {
    return path.resolve(a) === path.resolve(b);
  }
};

/** Whether `dir` names the package's own tables: `builtin`, or the package's `src/`. */
export function isPackageTables(dir: string): boolean {
  return dir === BUILTIN_TABLES || sameDir(dir, path.join(packageRoot(), 'src'));
}

export interface ReadTablesResult {
  readonly tables: TunedTables;
  /** Where each table came from. */
  readonly from: Partial<Record<TunedAlgorithm, string>>;
}

/**
 * The package's tables as this build has them (each table's built-in rows). In a checkout, a
 * source module newer than its compiled one throws: the rows read would not be the source's.
 */
export function builtinTables(): ReadTablesResult {
  const root = packageRoot();
  const tables: Record<string, readonly TunedEntry<unknown>[]> = {};
  const from: Partial<Record<TunedAlgorithm, string>> = {};
  for (const a of TUNED_ALGORITHMS) {
    const spec = TABLE_SPECS[a];
    const source = path.join(root, 'src', `${spec.tunedModule}.ts`);
    const built = path.join(root, 'dist', `${spec.tunedModule}.js`);
    if (fs.existsSync(source) && fs.existsSync(built) && fs.statSync(source).mtimeMs > fs.statSync(built).mtimeMs) {
      throw new WgprimError('invalid-argument', `src/${spec.tunedModule}.ts is newer than its build: npm run build first (the tools read the package's tables from the build)`);
    }
    tables[a] = spec.builtin;
    from[a] = `built-in ${spec.exportName} (src/${spec.tunedModule}.ts as built)`;
  }
  return { tables: tables as TunedTables, from };
}

/**
 * The tables of a place: the package's (`builtin` or its `src/`: the built-in rows), or a
 * user's folder of `<table>.json` files. A missing folder, or one without table files, gives no
 * tables; a folder holding generated modules but no JSON throws (modules are the package's form).
 */
export function readTablesDir(dir: string): ReadTablesResult {
  if (isPackageTables(dir)) return builtinTables();
  const tables: Record<string, readonly TunedEntry<unknown>[]> = {};
  const from: Partial<Record<TunedAlgorithm, string>> = {};
  if (!isDir(dir)) return { tables: {}, from };
  for (const a of TUNED_ALGORITHMS) {
    const json = path.join(dir, `${TABLE_SPECS[a].fileName}.json`);
    if (!fs.existsSync(json)) continue;
    const data = readJson(json);
    if (!isTunedTableFile(data) || (data as { algorithm?: unknown }).algorithm !== a) {
      throw new WgprimError('invalid-argument', `${json} is not a "wgprim-tuned-table" file for ${a}`);
    }
    const t = normalizeTunedInput(data, json) as Record<string, readonly TunedEntry<unknown>[]>;
    tables[a] = t[a] ?? [];
    from[a] = json;
  }
  if (!Object.keys(tables).length && fs.readdirSync(dir).some((n) => n.endsWith('.ts'))) {
    throw new WgprimError('invalid-argument', `${dir} holds TypeScript but no table JSON: a folder of tables holds <table>.json files (wgprim create-optimization --out-basedir writes them); the package's own modules are read with "${BUILTIN_TABLES}"`);
  }
  return { tables: tables as TunedTables, from };
}

/** Where a place's tables are written: the package's `src/` (modules), or the folder (JSON). */
export function outputPlace(dir: string): { readonly dir: string; readonly form: 'module' | 'json' } {
  if (!isPackageTables(dir)) return { dir, form: 'json' };
  const src = packageSourceDir();
  if (!src) throw new WgprimError('invalid-argument', `the package's tables can be written only in a checkout of wgprim (there is no ${path.join(packageRoot(), 'src')}): pass a folder for JSON tables`);
  return { dir: src, form: 'module' };
}

/** Writes the generated files under `dir` (folders created where missing); returns their paths. */
export function writeOutputs(dir: string, outputs: readonly { name: string; text: string }[]): string[] {
  return outputs.map((o) => {
    const file = path.join(dir, o.name);
    fs.mkdirSync(path.dirname(file), { recursive: true });
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
