// A CLI run stopped by SIGTERM once its output file holds a first record: what the CLIs promise
// about interrupts (the file kept, the run ended after the work under way) is tested through it.
import { spawn } from 'node:child_process';
import fs from 'node:fs';

export interface Interrupted {
  /** `code signal` of the exit, e.g. `130 null`. */
  readonly exit: string;
  readonly stdout: string;
  readonly stderr: string;
  /** Records (`benchmarks` entries) the file held when the signal was sent. */
  readonly before: number;
  /** Records it holds after the exit. */
  readonly after: number;
}

/** Runs `node args` in `cwd`, sends SIGTERM once `file` (Google Benchmark JSON) holds a record. */
export async function interruptAfterFirstRecord(args: readonly string[], cwd: string, file: string, waitMs = 60_000): Promise<Interrupted> {
  const child = spawn('node', [...args], { cwd });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<string>((resolve) => child.on('exit', (code, signal) => resolve(`${code} ${signal}`)));
  const records = (): number => {
    try {
      return (JSON.parse(fs.readFileSync(file, 'utf8')) as { benchmarks: unknown[] }).benchmarks.length;
    } catch {
      return 0;
    }
  };
  const deadline = Date.now() + waitMs;
  while (records() === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  const before = records();
  child.kill('SIGTERM');
  const exit = await exited;
  return { exit, stdout, stderr, before, after: records() };
}
