// Dawn's "artificially reduced" limit warnings, kept off stderr. Dawn writes them from native
// code straight to file descriptor 2 (once per instance, while `requestAdapter` enumerates the
// adapters, synchronously): on drivers that report huge dynamic-buffer limits (lavapipe reports
// 1,000,000) every process that opens a device printed two of them, which says nothing a user
// can act on. Everything else on stderr passes through unchanged.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** One of Dawn's lines about a dynamic-buffer limit lowered to fit its dynamic offset allocation. */
const DAWN_LIMIT_WARNING = /^Warning: maxDynamic\w+ artificially reduced from \d+ to \d+ to fit dynamic offset allocation limit\.\r?$/;
const WARNING_PREFIX = 'Warning: maxDynamic';

/** Whether `line` (without its newline) is one of Dawn's dynamic-limit warnings. */
export function isDawnLimitWarning(line: string): boolean {
  return DAWN_LIMIT_WARNING.test(line);
}

/** `text` without Dawn's dynamic-limit warning lines; every other byte kept. */
export function withoutDawnLimitWarnings(text: string): string {
  return text.split(/(?<=\n)/).filter((line) => !isDawnLimitWarning(line.replace(/\n$/, ''))).join('');
}

/**
 * A streaming filter for stderr chunks that may split lines anywhere: text passes at once,
 * except a trailing partial line that could still become a Dawn warning, which waits for the
 * next chunk (or `flush`). So progress output without newlines is not delayed.
 */
export class DawnWarningFilter {
  private held = '';

  /** The part of `chunk` (after anything held) that can be written now. */
  push(chunk: string): string {
    const text = this.held + chunk;
    const lastNewline = text.lastIndexOf('\n');
    const tail = text.slice(lastNewline + 1);
    const mayBeWarning = tail.length > 0 && (tail.startsWith(WARNING_PREFIX) || WARNING_PREFIX.startsWith(tail));
    this.held = mayBeWarning ? tail : '';
    return withoutDawnLimitWarnings(mayBeWarning ? text.slice(0, lastNewline + 1) : text);
  }

  /** What is still held (a partial line that never ended). */
  flush(): string {
    const rest = this.held;
    this.held = '';
    return isDawnLimitWarning(rest) ? '' : rest;
  }
}

/**
 * Runs `fn` (synchronous) with file descriptor 2 pointed at a temporary file, then puts
 * stderr back and writes what was captured, less Dawn's limit warnings. Only where stderr is a
 * terminal, a pipe or a file of its own, which can be reopened through /dev/fd; elsewhere (a
 * file shared with stdout, a socket, Windows, WGPRIM_DAWN_WARNINGS=1) `fn` runs with stderr
 * untouched.
 */
export function filterNativeStderr<T>(fn: () => T): T {
  const swap = redirectStderr();
  if (!swap) return fn();
  try {
    return fn();
  } finally {
    swap.restore();
  }
}

interface StderrSwap {
  restore(): void;
}

const STDERR = 2;

function redirectStderr(): StderrSwap | undefined {
  if (process.platform === 'win32' || process.env.WGPRIM_DAWN_WARNINGS === '1') return undefined;
  let original: number;
  // How the original stderr is reopened (to append, for a regular file).
  let reopenFlags = fs.constants.O_WRONLY | fs.constants.O_NOCTTY;
  try {
    const st = fs.fstatSync(STDERR);
    if (st.isFile()) {
      // A file shared with stdout (`>log 2>&1`) shares one offset, which a reopened descriptor
      // would not: leave that alone. A file of its own is reopened to append.
      const out = fs.fstatSync(1);
      if (out.dev === st.dev && out.ino === st.ino) return undefined;
      reopenFlags |= fs.constants.O_APPEND;
    } else if (!st.isFIFO() && !st.isCharacterDevice()) {
      return undefined;
    }
    // A second descriptor of the same terminal, pipe or file, to put back as fd 2 afterwards.
    original = fs.openSync(`/dev/fd/${STDERR}`, reopenFlags);
  } catch {
    return undefined;
  }
  const file = path.join(os.tmpdir(), `wgprim-stderr-${process.pid}-${Date.now()}`);
  let captured: number;
  try {
    fs.closeSync(STDERR);
    // open() takes the lowest free descriptor: 2, just closed.
    captured = fs.openSync(file, fs.constants.O_RDWR | fs.constants.O_CREAT | fs.constants.O_EXCL, 0o600);
  } catch {
    putBack(original, reopenFlags);
    return undefined;
  }
  try {
    fs.unlinkSync(file);
  } catch {
    // The descriptor keeps it readable; a leftover empty file in tmp is harmless.
  }
  if (captured !== STDERR) {
    // Another thread took descriptor 2 in between: leave it, stderr is whatever it now is.
    fs.closeSync(captured);
    fs.closeSync(original);
    return undefined;
  }
  return {
    restore(): void {
      const size = fs.fstatSync(STDERR).size;
      const bytes = Buffer.alloc(size);
      if (size > 0) fs.readSync(STDERR, bytes, 0, size, 0);
      fs.closeSync(STDERR);
      putBack(original, reopenFlags);
      const rest = withoutDawnLimitWarnings(bytes.toString('utf8'));
      if (rest) fs.writeSync(STDERR, rest);
    },
  };
}

/** Makes descriptor 2 the terminal, pipe or file that `original` holds (fd 2 must be closed). */
function putBack(original: number, reopenFlags: number): void {
  const fd = fs.openSync(`/dev/fd/${original}`, reopenFlags);
  fs.closeSync(original);
  if (fd !== STDERR) {
    // Not expected (2 was free); keep stderr usable rather than fail.
    fs.closeSync(fd);
  }
}
