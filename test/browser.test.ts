// wgprim in a real browser: headless Chromium (Debian's package) runs the built dist/ with
// WebGPU on its bundled SwiftShader (see ../shared/browser.md). The page computes; this file
// checks every result against plain JS (radix sorts: the page makes the keys, checks the sorted
// result against its own JS reference and sends back the verdict). Needs `npm run build` first
// (`npm test` does it).
import { createServer, type Server } from 'node:http';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { rng as unitRng } from '../src/tune/strategy.js';
import { ALGORITHMS } from '../src/algorithms.js';

const CHROMIUM = '/usr/lib/chromium/chromium';
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const DIST = join(ROOT, 'dist');
const PAGE_DIR = join(ROOT, 'test', 'browser');
const TIMEOUT = 300_000;

const haveChromium = existsSync(CHROMIUM);
const inCI = !!process.env.CI;
if (!haveChromium && !inCI) {
  console.warn(
    `\n[browser.test] SKIPPED: no Chromium at ${CHROMIUM}. Install it with \`apt-get install -y chromium\` ` +
      '(scripts/setup.sh does, as root). In CI (CI set) this test runs and fails instead.\n',
  );
}

// ---------------------------------------------------------------- static server

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.ts': 'text/plain; charset=utf-8',
};

/** Serves /dist/* from the repo's dist/ and everything else from test/browser/. */
function serve(): Promise<{ server: Server; origin: string }> {
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    if (path === '/favicon.ico') {
      res.writeHead(204).end();
      return;
    }
    const [base, rel] = path.startsWith('/dist/') ? [DIST, path.slice('/dist/'.length)] : [PAGE_DIR, path.slice(1) || 'index.html'];
    const file = resolve(base, rel);
    if ((file !== base && !file.startsWith(base + sep)) || !existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end(`not found: ${path}`);
      return;
    }
    res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream', 'cache-control': 'no-store' });
    res.end(readFileSync(file));
  });
  return new Promise((ok, fail) => {
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => ok({ server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }));
  });
}

// ---------------------------------------------------------------- inputs and JS references

/** Deterministic 32-bit words: the tuner's mulberry32 (as the page's radix inputs use). */
function rng(seed: number): () => number {
  const unit = unitRng(seed);
  return () => (unit() * 4294967296) >>> 0;
}

type Combine = (a: number, b: number) => number;
const u32 = {
  add: ((a, b) => (a + b) >>> 0) as Combine,
  max: ((a, b) => (a > b ? a : b)) as Combine,
  xor: ((a, b) => (a ^ b) >>> 0) as Combine,
};
const f32Round = Math.fround;

function inclusive(data: ArrayLike<number>, f: Combine, init?: number): number[] {
  const out: number[] = new Array(data.length);
  let acc: number | undefined = init;
  for (let i = 0; i < data.length; i++) {
    acc = acc === undefined ? data[i]! : f(acc, data[i]!);
    out[i] = acc;
  }
  return out;
}
function exclusive(data: ArrayLike<number>, f: Combine, identity: number): number[] {
  const out: number[] = new Array(data.length);
  let acc = identity;
  for (let i = 0; i < data.length; i++) {
    out[i] = acc;
    acc = f(acc, data[i]!);
  }
  return out;
}
function fold(data: ArrayLike<number>, f: Combine, identity: number): number {
  let acc = identity;
  for (let i = 0; i < data.length; i++) acc = f(acc, data[i]!);
  return acc;
}

/** Index of the first difference, with both values, for a readable failure. */
function firstMismatch(got: unknown[], want: unknown[]): string | undefined {
  if (got.length !== want.length) return `length ${got.length}, expected ${want.length}`;
  for (let i = 0; i < want.length; i++) {
    if (got[i] !== want[i]) return `index ${i}: got ${String(got[i])}, expected ${String(want[i])}`;
  }
  return undefined;
}

// ---------------------------------------------------------------- the cases

interface Case {
  name: string;
  algo: 'reduce' | 'inclusiveScan' | 'exclusiveScan' | 'transform';
  type: 'u32' | 'i32' | 'f32' | 'u64' | 'i64';
  /** Inline values (64-bit: decimal strings), or the name of a data set sent to the page once (see DATA). */
  data: (number | string)[] | keyof typeof DATA;
  options?: Record<string, unknown>;
  /** The exact expected result. */
  want?: unknown;
  /** For floats where the summation order matters: the result and a relative tolerance. */
  approx?: { value: number; rel: number };
  /** Expected WgprimError code. */
  errorCode?: string;
}

const N_U32 = 100_003; // not a multiple of any tile: exercises the tail of every kernel
const N_F32 = 4097;

const next = rng(0x5eed);
const bigU32 = Array.from({ length: N_U32 }, () => next());
const smallU32 = Array.from({ length: N_U32 }, () => next() & 0xff);
const bigI32 = bigU32.map((x) => x | 0);
// f32 integers below 2^8: every partial sum of 4097 of them is exact in f32, in any order.
const f32Ints = Array.from({ length: N_F32 }, () => next() & 0xff);
const f32Frac = Array.from({ length: N_F32 }, () => f32Round((next() / 2 ** 32) * 2 - 1));
const u64Small = Array.from({ length: 5000 }, () => BigInt(next()) * 4096n + BigInt(next() & 0xfff));
const U64_MASK = (1n << 64n) - 1n;

/** Sent to the page once, as typed-array bytes; cases name them. */
const DATA: Record<string, Uint32Array | Int32Array | Float32Array | BigUint64Array> = {
  bigU32: Uint32Array.from(bigU32), smallU32: Uint32Array.from(smallU32), bigI32: Int32Array.from(bigI32),
  f32Ints: Float32Array.from(f32Ints), f32Frac: Float32Array.from(f32Frac), u64Small: BigUint64Array.from(u64Small),
};
const encodeArray = (a: ArrayBufferView): { base64: string; arrayType: string } => ({
  base64: Buffer.from(a.buffer, a.byteOffset, a.byteLength).toString('base64'),
  arrayType: a.constructor.name,
});

const cases: Case[] = [
  // u32, add (wraps mod 2^32), the default operator
  { name: 'u32 reduce add', algo: 'reduce', type: 'u32', data: 'bigU32', want: fold(bigU32, u32.add, 0) },
  { name: 'u32 inclusiveScan add', algo: 'inclusiveScan', type: 'u32', data: 'bigU32', want: inclusive(bigU32, u32.add) },
  { name: 'u32 exclusiveScan add', algo: 'exclusiveScan', type: 'u32', data: 'bigU32', want: exclusive(bigU32, u32.add, 0) },
  {
    name: 'u32 exclusiveScan add initialValue 7', algo: 'exclusiveScan', type: 'u32', data: 'smallU32',
    options: { initialValue: 7 }, want: exclusive(smallU32, u32.add, 7),
  },
  { name: 'u32 inclusiveScan max', algo: 'inclusiveScan', type: 'u32', data: 'bigU32', options: { op: 'max' }, want: inclusive(bigU32, u32.max) },
  { name: 'u32 reduce xor', algo: 'reduce', type: 'u32', data: 'bigU32', options: { op: 'xor' }, want: fold(bigU32, u32.xor, 0) },
  {
    name: 'u32 reduce custom max(a, b)', algo: 'reduce', type: 'u32', data: 'bigU32',
    options: { op: { wgsl: 'max(a, b)', identity: '0u', name: 'cmax' } }, want: fold(bigU32, u32.max, 0),
  },
  // the three-pass scan, asked for explicitly, with both workgroup scans
  {
    name: 'u32 inclusiveScan reduce-then-scan (subgroup)', algo: 'inclusiveScan', type: 'u32', data: 'bigU32',
    options: { config: { lookback: 'reduce-then-scan', workgroupScan: 'subgroup' } }, want: inclusive(bigU32, u32.add),
  },
  {
    name: 'u32 exclusiveScan reduce-then-scan (shared, 128x8)', algo: 'exclusiveScan', type: 'u32', data: 'bigU32',
    options: { config: { lookback: 'reduce-then-scan', workgroupScan: 'shared', workgroupSize: 128, itemsPerThread: 8 } },
    want: exclusive(bigU32, u32.add, 0),
  },
  // transform
  { name: 'u32 transform a * 2u', algo: 'transform', type: 'u32', data: 'bigU32', options: { expression: 'a * 2u' }, want: bigU32.map((x) => (x * 2) >>> 0) },
  {
    name: 'u32 transform a + b', algo: 'transform', type: 'u32', data: 'bigU32', options: { expression: 'a + b', b: 'smallU32' },
    want: bigU32.map((x, i) => (x + smallU32[i]!) >>> 0),
  },
  // i32
  { name: 'i32 inclusiveScan add', algo: 'inclusiveScan', type: 'i32', data: 'bigI32', want: inclusive(bigI32, (a, b) => (a + b) | 0) },
  // f32: sums of small integers are exact in any order
  { name: 'f32 reduce add (exact)', algo: 'reduce', type: 'f32', data: 'f32Ints', want: fold(f32Ints, (a, b) => a + b, 0) },
  { name: 'f32 inclusiveScan add (exact)', algo: 'inclusiveScan', type: 'f32', data: 'f32Ints', want: inclusive(f32Ints, (a, b) => a + b) },
  { name: 'f32 exclusiveScan add (exact)', algo: 'exclusiveScan', type: 'f32', data: 'f32Ints', want: exclusive(f32Ints, (a, b) => a + b, 0) },
  {
    name: 'f32 inclusiveScan add reduce-then-scan 64x4 (exact)', algo: 'inclusiveScan', type: 'f32', data: 'f32Ints',
    options: { config: { lookback: 'reduce-then-scan', workgroupSize: 64, itemsPerThread: 4 } }, want: inclusive(f32Ints, (a, b) => a + b),
  },
  {
    name: 'f32 reduce add (fractions)', algo: 'reduce', type: 'f32', data: 'f32Frac',
    approx: { value: f32Frac.reduce((a, b) => a + b, 0), rel: 1e-3 },
  },
  { name: 'f32 transform a * 0.5f', algo: 'transform', type: 'f32', data: 'f32Frac', options: { expression: 'a * 0.5f' }, want: f32Frac.map((x) => f32Round(x * 0.5)) },
  // u64 (emulated as vec2<u32>): carries across the 32-bit words
  {
    name: 'u64 inclusiveScan add', algo: 'inclusiveScan', type: 'u64', data: 'u64Small',
    want: (() => { let a = 0n; return u64Small.map((x) => String((a = (a + x) & U64_MASK))); })(),
  },
  {
    name: 'u64 reduce add', algo: 'reduce', type: 'u64', data: 'u64Small',
    want: String(u64Small.reduce((a, b) => (a + b) & U64_MASK, 0n)),
  },
  // an error the library must report as a WgprimError with its code, not as a GPU failure
  { name: 'f32 reduce xor is refused', algo: 'reduce', type: 'f32', data: [1, 2, 3], options: { op: 'xor' }, errorCode: 'unsupported-type' },
];

/** min and max whose identities are ±infinity (f32), or the type's extremes (i32). */
const minMaxCases: Case[] = [
  { name: 'i32 inclusiveScan min', algo: 'inclusiveScan', type: 'i32', data: 'bigI32', options: { op: 'min' }, want: inclusive(bigI32, Math.min) },
  { name: 'i32 reduce max', algo: 'reduce', type: 'i32', data: 'bigI32', options: { op: 'max' }, want: fold(bigI32, Math.max, -(2 ** 31)) },
  { name: 'f32 inclusiveScan max', algo: 'inclusiveScan', type: 'f32', data: 'f32Frac', options: { op: 'max' }, want: inclusive(f32Frac, Math.max) },
  { name: 'f32 exclusiveScan min', algo: 'exclusiveScan', type: 'f32', data: 'f32Frac', options: { op: 'min' }, want: exclusive(f32Frac, Math.min, Infinity) },
  { name: 'f32 reduce min', algo: 'reduce', type: 'f32', data: 'f32Frac', options: { op: 'min' }, want: fold(f32Frac, Math.min, Infinity) },
];

// ---------------------------------------------------------------- radix sorts

/**
 * A radix sort case. The page makes the keys (from `seed`), sorts them through the array API
 * and checks the result against a JS reference (a stable sort of indices by the
 * order-preserving transform of the key bits); only the verdict comes back. Pairs carry each
 * key's index as its value (u32, or u64 with `valueType`), so the values check stability.
 */
interface RadixCase {
  name: string;
  sort: 'keys' | 'pairs' | 'segmentedKeys' | 'segmentedPairs';
  type: 'u32' | 'i32' | 'f32' | 'u64' | 'i64';
  /** Unsegmented: the count. */
  n?: number;
  /** Segmented: segment lengths in order; a negative entry is a gap no segment covers (then endOffsets are passed). */
  segments?: number[];
  endOffsets?: boolean;
  seed: number;
  /** Keys drawn from this many distinct values (equal keys: stability shows). */
  distinct?: number;
  /** f32: NaN of both signs (with payloads), ±inf, ±0, denormals mixed in. */
  specials?: boolean;
  valueType?: 'u32' | 'u64';
  options?: { descending?: boolean; beginBit?: number; endBit?: number; config?: Record<string, unknown>; blockSortConfig?: Record<string, unknown> };
  /** The path the page must report (a prefix): 'lsd', 'block-sort', 'block-sort:1-workgroup', 'none'. */
  path?: string;
}

const LSD = { blockSortConfig: { maxCount: 0 } };
const BLOCK = { blockSortConfig: { maxCount: 2 ** 30 } };
const RTS = { config: { lookback: 'reduce-then-scan' } };
const BIG = 70_000; // more than one tile of every config: block sort + merge, or several LSD tiles
/** The other cases of a path whose pipelines a 70,000 case compiled: a 70,000-key sort takes 0.5-1 s on SwiftShader. */
const MID = 20_000;

let seed = 1;
const rc = (c: Omit<RadixCase, 'seed'>): RadixCase => ({ seed: seed++, ...c });
// Each (key type, values, path) compiles its own pipelines, seconds each on SwiftShader: the
// cases cover every type, direction, bit range and path, not every combination of them.
const radixCases: RadixCase[] = [
  // u32 keys: sizes through the default path, then each path forced
  rc({ name: 'u32 keys n=0', sort: 'keys', type: 'u32', n: 0, path: 'none' }),
  rc({ name: 'u32 keys n=1', sort: 'keys', type: 'u32', n: 1, path: 'block-sort:1-workgroup' }),
  rc({ name: 'u32 keys n=1000', sort: 'keys', type: 'u32', n: 1000 }),
  rc({ name: 'u32 keys bits [4, 20) n=1000', sort: 'keys', type: 'u32', n: 1000, options: { beginBit: 4, endBit: 20 } }),
  rc({ name: 'u32 keys n=70000 (default path)', sort: 'keys', type: 'u32', n: BIG }),
  rc({ name: 'u32 keys n=70000 block sort', sort: 'keys', type: 'u32', n: BIG, options: { ...BLOCK }, path: 'block-sort+merge' }),
  rc({ name: 'u32 keys n=20000 descending block sort', sort: 'keys', type: 'u32', n: MID, options: { descending: true, ...BLOCK }, path: 'block-sort+merge' }),
  rc({ name: 'u32 keys bits [4, 20) n=20000 block sort', sort: 'keys', type: 'u32', n: MID, options: { beginBit: 4, endBit: 20, ...BLOCK }, path: 'block-sort+merge' }),
  rc({ name: 'u32 keys n=70000 LSD', sort: 'keys', type: 'u32', n: BIG, options: { ...LSD }, path: 'lsd' }),
  rc({ name: 'u32 keys n=20000 LSD reduce-then-scan', sort: 'keys', type: 'u32', n: MID, options: { ...LSD, ...RTS }, path: 'lsd:reduce-then-scan' }),
  // The split rank takes multiples of 4 items per thread (the heuristic's 13 is not one).
  rc({ name: 'u32 keys n=20000 LSD rank split', sort: 'keys', type: 'u32', n: MID, options: { ...LSD, config: { rank: 'split', lookback: 'reduce-then-scan', itemsPerThread: 8 } }, path: 'lsd:reduce-then-scan:split' }),
  rc({ name: 'u32 keys n=20000 descending LSD', sort: 'keys', type: 'u32', n: MID, options: { descending: true, ...LSD }, path: 'lsd' }),
  rc({ name: 'u32 keys bits [4, 20) n=20000 LSD', sort: 'keys', type: 'u32', n: MID, options: { beginBit: 4, endBit: 20, ...LSD }, path: 'lsd' }),
  rc({ name: 'u32 keys n=1000 LSD', sort: 'keys', type: 'u32', n: 1000, options: { ...LSD }, path: 'lsd' }),
  // pairs (values: the indices, so stability shows), many equal keys
  rc({ name: 'i32 pairs n=70000 LSD, 37 distinct keys', sort: 'pairs', type: 'i32', n: BIG, distinct: 37, options: { ...LSD }, path: 'lsd' }),
  rc({ name: 'i32 pairs n=20000 descending LSD', sort: 'pairs', type: 'i32', n: MID, options: { descending: true, ...LSD }, path: 'lsd' }),
  rc({ name: 'i32 pairs bits [8, 16) n=20000 descending LSD reduce-then-scan', sort: 'pairs', type: 'i32', n: MID, options: { beginBit: 8, endBit: 16, descending: true, ...LSD, ...RTS }, path: 'lsd:reduce-then-scan' }),
  // f32 with NaN of both signs, ±inf, ±0, denormals: ordered by their bits after the sign flip
  rc({ name: 'f32 pairs n=70000 LSD (specials)', sort: 'pairs', type: 'f32', n: BIG, specials: true, options: { ...LSD }, path: 'lsd' }),
  rc({ name: 'f32 pairs n=20000 descending LSD (specials), 37 distinct keys', sort: 'pairs', type: 'f32', n: MID, specials: true, distinct: 37, options: { descending: true, ...LSD }, path: 'lsd' }),
  rc({ name: 'f32 pairs n=70000 block sort (specials)', sort: 'pairs', type: 'f32', n: BIG, specials: true, options: { ...BLOCK }, path: 'block-sort+merge' }),
  rc({ name: 'f32 pairs n=20000 descending block sort (specials), 37 distinct keys', sort: 'pairs', type: 'f32', n: MID, specials: true, distinct: 37, options: { descending: true, ...BLOCK }, path: 'block-sort+merge' }),
  // u64 (BigUint64Array); its block sort and 8-byte values: segmented below
  rc({ name: 'u64 keys n=70000 LSD', sort: 'keys', type: 'u64', n: BIG, options: { ...LSD }, path: 'lsd' }),
  rc({ name: 'u64 keys n=20000 descending LSD, 300 distinct keys', sort: 'keys', type: 'u64', n: MID, distinct: 300, options: { descending: true, ...LSD }, path: 'lsd' }),
  rc({ name: 'u64 keys bits [20, 50) n=20000 LSD', sort: 'keys', type: 'u64', n: MID, options: { beginBit: 20, endBit: 50, ...LSD }, path: 'lsd' }),
];

/** Uneven segments: empty ones, ones of 1 and 2, and ones of a few thousand (past a tile: LSD passes through global memory). */
const SEGMENTS = [0, 1, 3000, 0, 17, 1500, 4100, 2, 0, 700, 1];
/** With gaps (negative: elements no segment covers, which must come back unchanged). */
const GAPPED = [-5, 300, -1, 0, 2500, -100, 1, 3333, -7];
const segmentedCases: RadixCase[] = [
  rc({ name: 'segmented u32 keys', sort: 'segmentedKeys', type: 'u32', segments: SEGMENTS }),
  rc({ name: 'segmented u32 keys descending, 23 distinct keys', sort: 'segmentedKeys', type: 'u32', segments: SEGMENTS, distinct: 23, options: { descending: true } }),
  rc({ name: 'segmented u32 keys bits [4, 20), gaps (endOffsets)', sort: 'segmentedKeys', type: 'u32', segments: GAPPED, endOffsets: true, options: { beginBit: 4, endBit: 20 } }),
  rc({ name: 'segmented u64 pairs (u64 values)', sort: 'segmentedPairs', type: 'u64', segments: SEGMENTS, valueType: 'u64' }),
  rc({ name: 'segmented u64 pairs (u64 values) descending, gaps (endOffsets), 40 distinct keys', sort: 'segmentedPairs', type: 'u64', segments: GAPPED, endOffsets: true, distinct: 40, valueType: 'u64', options: { descending: true } }),
];

type RadixResult = { name: string; ms?: number; checkMs?: number; path?: string; failure?: string; error?: { message: string } };

type Result = { name: string; ms?: number; result?: unknown; error?: { isWgprimError: boolean; code?: string; message: string } };

/** A typed-array result comes back as base64 bytes; as numbers (64-bit: decimal strings) here. */
function decodeArray(r: unknown): unknown[] | undefined {
  if (!r || typeof r !== 'object' || !('base64' in r)) return undefined;
  const { base64, arrayType } = r as { base64: string; arrayType: string };
  const b = Buffer.from(base64, 'base64');
  const buf = b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength);
  switch (arrayType) {
    case 'Uint32Array': return Array.from(new Uint32Array(buf));
    case 'Int32Array': return Array.from(new Int32Array(buf));
    case 'Float32Array': return Array.from(new Float32Array(buf));
    case 'BigUint64Array': return Array.from(new BigUint64Array(buf), String);
    case 'BigInt64Array': return Array.from(new BigInt64Array(buf), String);
    default: throw new Error(`unexpected array type ${arrayType} from the page`);
  }
}

/** Checks the page's results against the cases; returns one line per wrong case. */
function check(list: Case[], results: Result[]): string[] {
  const failures: string[] = [];
  if (results.length !== list.length) return [`${results.length} results for ${list.length} cases`];
  for (const [i, c] of list.entries()) {
    const r = results[i]!;
    if (r.name !== c.name) {
      failures.push(`result ${i} is "${r.name}", expected "${c.name}"`);
      continue;
    }
    if (c.errorCode) {
      if (!r.error) failures.push(`${c.name}: expected WgprimError ${c.errorCode}, got a result`);
      else if (!r.error.isWgprimError || r.error.code !== c.errorCode) failures.push(`${c.name}: expected WgprimError ${c.errorCode}, got ${JSON.stringify(r.error)}`);
      continue;
    }
    if (r.error) {
      failures.push(`${c.name}: threw ${r.error.message}`);
      continue;
    }
    if (c.approx) {
      const got = r.result as number;
      const tol = c.approx.rel * Math.max(1, Math.abs(c.approx.value));
      if (!(Math.abs(got - c.approx.value) <= tol)) failures.push(`${c.name}: got ${got}, expected ${c.approx.value} within ${tol}`);
      continue;
    }
    const got = decodeArray(r.result);
    const bad = Array.isArray(c.want)
      ? got ? firstMismatch(got, c.want) : `got ${JSON.stringify(r.result)}, expected an array`
      : got ? `got an array, expected ${String(c.want)}`
      : r.result === c.want ? undefined : `got ${String(r.result)}, expected ${String(c.want)}`;
    if (bad) failures.push(`${c.name}: ${bad}`);
  }
  return failures;
}

// ---------------------------------------------------------------- the test

describe.skipIf(!haveChromium && !inCI)('wgprim in headless Chromium (WebGPU on SwiftShader)', () => {
  let server: Server | undefined;
  let origin = '';
  let profile = '';
  let context: BrowserContext | undefined;
  let page: Page;
  const pageLog: string[] = [];

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(`no Chromium at ${CHROMIUM}: install Debian's package (apt-get install -y chromium); CI must have it`);
    }
    if (!existsSync(join(DIST, 'index.js'))) {
      throw new Error(`${join(DIST, 'index.js')} is missing: run \`npm run build\` first (\`npm test\` does)`);
    }
    ({ server, origin } = await serve());
    profile = mkdtempSync(join(tmpdir(), 'wgprim-chromium-'));
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--no-sandbox', '--enable-unsafe-webgpu', '--disable-quic', '--no-first-run',
        '--disable-background-networking', '--disable-component-update', '--disable-sync',
      ],
    });
    page = context.pages()[0] ?? (await context.newPage());
    page.on('console', (m) => pageLog.push(`[console.${m.type()}] ${m.text()}`));
    page.on('pageerror', (e) => pageLog.push(`[pageerror] ${e.message}`));
    await page.goto(`${origin}/index.html`);
    await page.waitForFunction(() => (window as unknown as { wgprimPageReady?: boolean }).wgprimPageReady === true, undefined, { timeout: 30_000 })
      .catch((err: Error) => {
        throw new Error(`test page did not load: ${err.message}\n${pageLog.join('\n')}`);
      });
    for (const [name, values] of Object.entries(DATA)) {
      const n = await page.evaluate(([k, v]) => (window as any).wgprimTest.setData(k, v), [name, encodeArray(values)] as const);
      expect(n, `data set ${name} in the page`).toBe(values.length);
    }
  }, TIMEOUT);

  afterAll(async () => {
    await context?.close().catch(() => undefined);
    await new Promise<void>((ok) => (server ? server.close(() => ok()) : ok()));
    if (profile) rmSync(profile, { recursive: true, force: true });
    if (pageLog.length) console.log(`[browser.test] page log:\n${pageLog.join('\n')}`);
  }, TIMEOUT);

  it('gets a WebGPU adapter from SwiftShader (vendor google, architecture swiftshader)', async () => {
    const info = await page.evaluate(() => (window as any).wgprimTest.info());
    console.log(`[browser.test] adapter ${JSON.stringify(info.adapter)}; features ${info.deviceFeatures.join(' ')}; ` +
      `scan u32 config ${JSON.stringify(info.selected.scanU32)}`);
    expect(info.adapter.vendor).toBe('google');
    expect(info.adapter.architecture).toBe('swiftshader');
    // createPrim took the identity from adapter.info
    expect(info.target.vendor).toBe('google');
    expect(info.target.architecture).toBe('swiftshader');
    if (info.adapterFeatures.includes('subgroups')) expect(info.deviceFeatures).toContain('subgroups');
    // SwiftShader gives no forward-progress guarantee: the default scan must not spin on look-back.
    expect(info.selected.scanU32.config.lookback).toBe('reduce-then-scan');
    expect(['heuristic', 'tuned:device', 'tuned:architecture', 'tuned:vendor']).toContain(info.selected.scanU32.source);
  }, TIMEOUT);

  async function runCases(list: Case[]): Promise<void> {
    const payload = list.map(({ name, algo, type, data, options }) => ({ name, algo, type, data, options }));
    const results: Result[] = await page.evaluate((cs) => (window as any).wgprimTest.run(cs), payload);
    console.log(`[browser.test] ${list.length} cases in the page: ` +
      results.map((r) => `${r.name} ${r.ms === undefined ? 'error' : r.ms.toFixed(1) + ' ms'}`).join('; '));
    const failures = check(list, results);
    expect(failures, `${failures.length} of ${list.length} cases wrong\n${pageLog.join('\n')}`).toEqual([]);
  }

  it('computes reduce, scans and transform (u32, i32, f32, u64) exactly as JS does', () => runCases(cases), TIMEOUT);

  it('computes min and max, whose identities are the type extremes (f32: ±inf)', () => runCases(minMaxCases), TIMEOUT);

  async function runRadix(list: RadixCase[]): Promise<void> {
    const results: RadixResult[] = await page.evaluate((cs) => (window as any).wgprimTest.radix(cs), list);
    console.log(`[browser.test] ${list.length} radix sort cases in the page (GPU ms, JS check ms, path): ` +
      results.map((r) => `${r.name} ${r.ms === undefined ? 'error' : `${r.ms.toFixed(1)} ms (check ${r.checkMs!.toFixed(1)}) ${r.path}`}`).join('; '));
    const failures: string[] = [];
    if (results.length !== list.length) failures.push(`${results.length} results for ${list.length} cases`);
    for (const [i, c] of list.entries()) {
      const r = results[i];
      if (!r || r.name !== c.name) failures.push(`result ${i} is "${r?.name}", expected "${c.name}"`);
      else if (r.error) failures.push(`${c.name}: threw ${r.error.message}`);
      else if (r.failure) failures.push(`${c.name} (${r.path}): ${r.failure}`);
      else if (c.path && !r.path?.startsWith(c.path)) failures.push(`${c.name}: took path ${r.path}, expected ${c.path}`);
    }
    expect(failures, `${failures.length} of ${list.length} radix sort cases wrong\n${pageLog.join('\n')}`).toEqual([]);
  }

  it('logs the radix sort configs selected here (subgroup size 4: smaller rank shapes)', async () => {
    const sel = await page.evaluate((ts) => (window as any).wgprimTest.radixConfigs(ts), ['u32', 'f32', 'u64']);
    const short = (s: { config: Record<string, unknown>; source: string }): string =>
      `${s.source} ${Object.entries(s.config).map(([k, v]) => `${k}=${String(v)}`).join(',')}`;
    console.log('[browser.test] selected radix sort configs (type/valueBytes):\n' + Object.entries(sel).map(([k, v]: [string, any]) =>
      `  ${k}: radixSort ${short(v.radixSort)}\n  ${k}: radixSortBlockSort ${short(v.radixSortBlockSort)}\n  ${k}: segmentedRadixSort ${short(v.segmentedRadixSort)}`).join('\n'));
    // No forward-progress guarantee: the LSD path's digit offsets must not spin on look-back.
    for (const v of Object.values(sel) as any[]) expect(v.radixSort.config.lookback).toBe('reduce-then-scan');
  }, TIMEOUT);

  it('radixSortKeys / radixSortPairs (u32, i32, f32 with specials, u64; both paths; bit ranges) match a stable JS sort', () => runRadix(radixCases), TIMEOUT);

  it('WGSL building blocks (test/browser/blocks.js) match their CPU references', async () => {
    const results: { name: string; failures: string[] }[] = await page.evaluate(() => (window as any).wgprimTest.blocks());
    expect(results.length).toBeGreaterThan(20);
    expect(results.flatMap((r) => r.failures.map((f) => `${r.name}: ${f}`)).join('\n')).toBe('');
  }, TIMEOUT);

  it('every registered algorithm\'s demo checks (its array calls against its CPU reference) pass in the page', async () => {
    const results: { name: string; failure?: string }[] = await page.evaluate((n) => (window as any).wgprimTest.demos(n), 4099);
    console.log(`[browser.test] ${results.length} demo checks in the page: ${results.map((r) => r.name).join('; ')}`);
    expect(new Set(results.map((r) => r.name.split(':')[0])).size, 'one algorithm or more without a demo check').toBe(ALGORITHMS.length);
    const failures = results.filter((r) => r.failure).map((r) => `${r.name}: ${r.failure}`).join('\n');
    if (failures) console.log(`[browser.test] demo checks that failed:\n${failures}`);
    expect(failures).toBe('');
  }, TIMEOUT);

  it('segmentedRadixSortKeys / Pairs with uneven segments (empty, 1, thousands; gaps) match a stable JS sort per segment', () => runRadix(segmentedCases), TIMEOUT);

  it('prim.tune in the page installs rows, stores them in localStorage, and a second createPrim selects them', async () => {
    const t0 = performance.now();
    const r = await page.evaluate((o) => (window as any).wgprimTest.tune(o), {
      budgetMs: 4000, algorithms: ['transform'], types: ['u32'], sizes: [4096], install: 'best',
      settings: { warmup: 1, batches: 2, batchSize: 2 },
    });
    const g = r.summary.groups[0];
    console.log(`[browser.test] prim.tune in ${(performance.now() - t0).toFixed(0)} ms: ${r.summary.measurements} measurements; ` +
      `transform u32 ${g?.decision}: ${g?.detail}; cache ${JSON.stringify(r.summary.cache)}`);
    expect(r.before.status).toBe('missing');
    expect(r.summary.groups).toHaveLength(1);
    expect(g.decision).toBe('installed');
    expect(r.selected.transformU32).toMatchObject({ source: 'tuned:runtime', config: g.best.config });
    expect(r.summary.cache).toMatchObject({ written: true, rows: 1 });
    expect(JSON.parse(r.stored)).toMatchObject({ format: 'wgprim-tune-cache', adapter: { vendor: 'google', architecture: 'swiftshader' } });
    expect(r.after).toMatchObject({ status: 'loaded', rows: 1 });
    expect(r.selectedAgain).toEqual(r.selected);
    // f32 is another type class: untouched.
    expect(r.selectedAgain.transformF32.source).not.toBe('tuned:runtime');
  }, TIMEOUT);
});
