// The tune cache on disk (Node only): one JSON file per key, under `$XDG_CACHE_HOME/wgprim`
// or `~/.cache/wgprim`.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { WgprimError } from '../runtime/errors.js';
import { type TuneCache } from '../tune-cache.js';

/** `$XDG_CACHE_HOME/wgprim` where XDG_CACHE_HOME is set (and absolute), else `~/.cache/wgprim`. */
export function defaultTuneCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env.XDG_CACHE_HOME;
  return xdg && path.isAbsolute(xdg) ? path.join(xdg, 'wgprim') : path.join(os.homedir(), '.cache', 'wgprim');
}

/** FNV-1a, 32 bits, as 8 hex digits. */
function fnv(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h.toString(16).padStart(8, '0');
}

/** A file name for a key: readable (the key with unsafe characters replaced, shortened) and unique (a hash of the whole key). */
export function tuneCacheFileName(key: string): string {
  const slug = key.toLowerCase().replace(/[^a-z0-9._-]+/g, '-').replace(/-+/g, '-').replace(/^[-.]+|-+$/g, '').slice(0, 120);
  return `${slug || 'entry'}-${fnv(key)}.json`;
}

export interface FileTuneCache extends TuneCache {
  /** The folder the files are in. */
  readonly dir: string;
  /** The file of a key. */
  fileOf(key: string): string;
}

/**
 * A tune cache in files: `<dir>/<key as a file name>.json`, written through a temporary file
 * and a rename (an interrupted write never leaves half a file). The folder is made on the
 * first write. Pass it to `createPrim(device, { tuneCache })`.
 */
export function fileTuneCache(dir: string = defaultTuneCacheDir()): FileTuneCache {
  if (typeof dir !== 'string' || !dir) throw new WgprimError('invalid-argument', `fileTuneCache needs a folder, got ${JSON.stringify(dir)}`);
  const root = path.resolve(dir);
  const fileOf = (key: string): string => path.join(root, tuneCacheFileName(key));
  return {
    dir: root,
    fileOf,
    get(key) {
      try {
        return fs.readFileSync(fileOf(key), 'utf8');
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw new WgprimError('cache-failed', `cannot read the tune cache file ${fileOf(key)}: ${(err as Error).message}`, { cause: err });
      }
    },
    set(key, value) {
      const file = fileOf(key);
      const tmp = `${file}.tmp-${process.pid}-${Date.now()}`;
      try {
        fs.mkdirSync(root, { recursive: true });
        fs.writeFileSync(tmp, value.endsWith('\n') ? value : `${value}\n`);
        fs.renameSync(tmp, file);
      } catch (err) {
        try {
          fs.rmSync(tmp, { force: true });
        } catch {
          // nothing to clean
        }
        throw new WgprimError('cache-failed', `cannot write the tune cache file ${file}: ${(err as Error).message}`, { cause: err });
      }
    },
    delete(key) {
      fs.rmSync(fileOf(key), { force: true });
    },
  };
}
