// Vitest's global set-up: Dawn's dynamic-limit warnings off the test run's stderr. Test files run
// in worker processes whose stderr vitest pipes through this process's `process.stderr`, so one
// filter here catches the warnings of every Dawn instance a test makes, whether or not it came
// from `requestDevice` (which filters its own).
import { DawnWarningFilter } from '../../src/node/stderr.js';

export default function setup(): () => void {
  const stderr = process.stderr;
  const write = stderr.write;
  const filter = new DawnWarningFilter();
  stderr.write = function (this: typeof stderr, chunk: unknown, ...rest: unknown[]): boolean {
    if (typeof chunk !== 'string' && !(chunk instanceof Uint8Array)) return (write as (...a: unknown[]) => boolean).call(this, chunk, ...rest);
    const encoding = typeof rest[0] === 'string' ? (rest[0] as BufferEncoding) : undefined;
    const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString(encoding === 'utf8' || !encoding ? 'utf8' : encoding);
    const kept = filter.push(text);
    const callback = rest.find((r): r is (err?: Error | null) => void => typeof r === 'function');
    if (!kept) {
      if (callback) queueMicrotask(() => callback());
      return true;
    }
    return callback ? write.call(this, kept, 'utf8', callback) : write.call(this, kept);
  } as typeof stderr.write;
  return () => {
    const rest = filter.flush();
    stderr.write = write;
    if (rest) stderr.write(rest);
  };
}
