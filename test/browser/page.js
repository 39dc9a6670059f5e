// Runs in the browser. Imports the built library exactly as an application would, with no
// bundler: dist/ is served as-is. test/browser.test.ts calls window.wgprimTest.* and checks
// every result in Node against a plain JS computation; radix sorts are checked here (radix()).
import { ALGORITHMS, createPrim, WgprimError, localStorageTuneCache } from '/dist/index.js';
import { rng as unitRng } from '/dist/tune/strategy.js';
import { tune } from '/dist/tune/index.js';
import { loadBlocks, runBlockCases } from './blocks.js';

const LIMITS = [
  'maxStorageBufferBindingSize', 'maxBufferSize', 'maxComputeWorkgroupStorageSize',
  'maxComputeInvocationsPerWorkgroup', 'maxComputeWorkgroupSizeX', 'maxComputeWorkgroupsPerDimension',
  'maxStorageBuffersPerShaderStage',
];

let ready;
const datasets = new Map();
function dataset(name) {
  const d = datasets.get(name);
  if (!d) throw new Error(`page.js: no data set "${name}" (setData it first)`);
  return d;
}

async function setUp() {
  if (!navigator.gpu) {
    throw new Error('navigator.gpu is missing: is --enable-unsafe-webgpu set and the page served from a secure origin?');
  }
  const adapter = await navigator.gpu.requestAdapter();
  if (!adapter) throw new Error('navigator.gpu.requestAdapter() returned null');
  const requiredFeatures = ['subgroups'].filter((f) => adapter.features.has(f));
  const requiredLimits = {};
  for (const key of LIMITS) {
    const v = adapter.limits[key];
    if (typeof v === 'number') requiredLimits[key] = v;
  }
  const device = await adapter.requestDevice({ requiredFeatures, requiredLimits });
  const lost = { value: undefined };
  device.lost.then((info) => { lost.value = `${info.reason}: ${info.message}`; });
  const prim = createPrim(device, { adapterInfo: adapter.info });
  return { adapter, device, prim, lost };
}

function getReady() {
  ready ??= setUp();
  return ready;
}

const ARRAYS = {
  u32: Uint32Array, i32: Int32Array, f32: Float32Array, u64: BigUint64Array, i64: BigInt64Array,
};
const is64 = (type) => type === 'u64' || type === 'i64';

/** Inline values cross the page boundary as numbers, or as decimal strings for 64-bit types. */
function toTyped(type, values) {
  const A = ARRAYS[type];
  if (!A) throw new Error(`page.js: no array type for ${type}`);
  if (ArrayBuffer.isView(values)) {
    if (!(values instanceof A)) throw new Error(`page.js: a ${values.constructor.name} data set used as ${type}`);
    return values;
  }
  return is64(type) ? A.from(values, (v) => BigInt(v)) : A.from(values);
}
function fromValue(v) {
  return typeof v === 'bigint' ? v.toString() : v;
}
/** Typed-array results go back as base64 of their bytes: far faster through Playwright than arrays. */
function fromTyped(a) {
  const bytes = new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  return { base64: btoa(s), arrayType: a.constructor.name };
}
function fromOptions(type, options) {
  if (!options) return {};
  const o = { ...options };
  if (o.initialValue !== undefined && is64(type)) o.initialValue = BigInt(o.initialValue);
  if (o.b !== undefined) o.b = toTyped(o.bType ?? type, typeof o.b === 'string' ? dataset(o.b) : o.b);
  delete o.bType;
  return o;
}

// ---------------------------------------------------------------- radix sorts: inputs and JS references

/** Deterministic 32-bit words: the tuner's mulberry32, as the test's. */
function rng(seed) {
  const unit = unitRng(seed);
  return () => (unit() * 4294967296) >>> 0;
}

/** f32 bit patterns every f32 case mixes in: NaN of both signs (quiet, payload, all ones), ±inf, ±0, ±denormals, ±1. */
const F32_SPECIALS = [
  0x7fc00000, 0xffc00000, 0x7f800001, 0xffffffff, 0x7fffffff, 0xff800001, // NaNs
  0x7f800000, 0xff800000, 0x00000000, 0x80000000, 0x00000001, 0x80000001, 0x3f800000, 0xbf800000,
];

/**
 * Keys as raw words: `lo` (and `hi` for 64-bit keys), each a Uint32Array of n. `distinct` draws
 * from a pool of that many keys (many equal keys: stability shows); `specials` (f32) puts a
 * special value at about one place in eight.
 */
function radixKeys(type, n, seed, distinct, specials) {
  const r = rng(seed);
  const wide = is64(type);
  const pool = distinct ? Array.from({ length: distinct }, () => [r(), r()]) : undefined;
  const lo = new Uint32Array(n);
  const hi = wide ? new Uint32Array(n) : undefined;
  for (let i = 0; i < n; i++) {
    const [a, b] = pool ? pool[r() % pool.length] : [r(), wide ? r() : 0];
    lo[i] = specials && r() % 8 === 0 ? F32_SPECIALS[r() % F32_SPECIALS.length] : a;
    if (hi) hi[i] = b;
  }
  return { lo, hi };
}

/** Bits of a 32-bit key whose unsigned order is the sort order (f32: -NaN < -inf < ... < -0 < +0 < ... < +inf < +NaN). */
function ordered32(type, bits) {
  if (type === 'i32') return (bits ^ 0x80000000) >>> 0;
  if (type === 'f32') return (bits & 0x80000000 ? ~bits : bits | 0x80000000) >>> 0;
  return bits >>> 0;
}

/** Bits [b, e) of a non-negative integer below 2^32, as a number. */
const bitsOf = (x, b, e) => Math.floor(x / 2 ** b) % 2 ** (e - b);

/**
 * Indices of keys i in [from, to) in stable sorted order by bits [b, e) of the ordered keys: a
 * plain JS sort of indices with the index as the last tie-break.
 */
function referenceOrder(type, keys, from, to, descending, b, e) {
  const n = to - from;
  const dHi = new Float64Array(n);
  const dLo = new Float64Array(n);
  for (let j = 0; j < n; j++) {
    const i = from + j;
    if (is64(type)) {
      // ordered 64-bit key as hi:lo words (i64: flip the sign bit), then bits [b, e) of it
      const h = type === 'i64' ? (keys.hi[i] ^ 0x80000000) >>> 0 : keys.hi[i];
      const l = keys.lo[i];
      // bits [b, e) of (h * 2^32 + l) as (high part, low part) of at most 32 bits each
      const lb = Math.min(b, 32), le = Math.min(e, 32), hb = Math.max(b, 32) - 32, he = Math.max(e, 32) - 32;
      dHi[j] = he > hb ? bitsOf(h, hb, he) : 0;
      dLo[j] = le > lb ? bitsOf(l, lb, le) : 0;
    } else {
      dLo[j] = bitsOf(ordered32(type, keys.lo[i]), b, e);
    }
  }
  const idx = Array.from({ length: n }, (_, j) => j);
  const sign = descending ? -1 : 1;
  idx.sort((x, y) => (dHi[x] - dHi[y]) * sign || (dLo[x] - dLo[y]) * sign || x - y);
  return Uint32Array.from(idx, (j) => from + j);
}

/** The typed array of keys a sort gets; its raw words back from a result. */
function keyArray(type, keys) {
  if (!is64(type)) return new ARRAYS[type](keys.lo.slice().buffer);
  const words = new Uint32Array(keys.lo.length * 2);
  for (let i = 0; i < keys.lo.length; i++) { words[2 * i] = keys.lo[i]; words[2 * i + 1] = keys.hi[i]; }
  return new ARRAYS[type](words.buffer);
}
function wordsOf(type, array) {
  const w = new Uint32Array(array.buffer, array.byteOffset, array.length * (is64(type) ? 2 : 1));
  if (!is64(type)) return { lo: w };
  const n = array.length, lo = new Uint32Array(n), hi = new Uint32Array(n);
  for (let i = 0; i < n; i++) { lo[i] = w[2 * i]; hi[i] = w[2 * i + 1]; }
  return { lo, hi };
}
const hex = (type, k, i) => (is64(type) ? `0x${k.hi[i].toString(16)}_${k.lo[i].toString(16).padStart(8, '0')}` : `0x${k.lo[i].toString(16)}`);

/**
 * Checks a sorted result against the reference: key i of the output must be, bit for bit,
 * key ref[i] of the input, and value i must be ref[i] (the values are the indices). Returns the
 * first difference, or undefined.
 */
function checkSorted(type, input, output, values, ref, at) {
  for (let j = 0; j < ref.length; j++) {
    const i = at[j], r = ref[j];
    if (output.lo[i] !== input.lo[r] || (output.hi && output.hi[i] !== input.hi[r])) {
      return `key at ${i}: got ${hex(type, output, i)}, expected ${hex(type, input, r)} (input index ${r})`;
    }
    if (values && Number(values[i]) !== r) return `value at ${i}: got ${String(values[i])}, expected ${r} (key ${hex(type, input, r)})`;
  }
  return undefined;
}

/** Segments from lengths (an entry below 0 is a gap of that many elements no segment covers). */
function segmentsOf(lengths) {
  const begins = [], ends = [];
  let at = 0;
  for (const len of lengths) {
    if (len >= 0) { begins.push(at); ends.push(at + len); }
    at += Math.abs(len);
  }
  return { begins: Uint32Array.from(begins), ends: Uint32Array.from(ends), n: at };
}

/** The path `radixSortKeys`/`Pairs` takes for this count and these options (as radix-sort.ts decides it). */
function radixPath(prim, type, n, valueBytes, options) {
  const block = prim.selectedRadixSortBlockSortConfig(type, valueBytes, options.blockSortConfig).config;
  const lsd = prim.selectedRadixSortConfig(type, valueBytes, options.config).config;
  if (n === 0) return 'none';
  if (n <= block.maxCount && n <= 2 ** 30) return n <= block.workgroupSize * block.itemsPerThread ? 'block-sort:1-workgroup' : 'block-sort+merge';
  return `lsd:${lsd.lookback}:${lsd.rank}`;
}

/** One radix sort case of wgprimTest.radix: runs it and checks it. */
async function radixCase(prim, lost, c) {
  const seg = c.segments ? segmentsOf(c.segments) : undefined;
  const n = seg ? seg.n : c.n;
  const keys = radixKeys(c.type, n, c.seed, c.distinct, c.specials);
  const input = keyArray(c.type, keys);
  const pairs = c.sort === 'pairs' || c.sort === 'segmentedPairs';
  const values = pairs ? (c.valueType === 'u64' ? BigUint64Array.from({ length: n }, (_, i) => BigInt(i)) : Uint32Array.from({ length: n }, (_, i) => i)) : undefined;
  const options = { ...c.options };
  const valueBytes = pairs ? values.BYTES_PER_ELEMENT : 0;
  const [b, e] = [options.beginBit ?? 0, options.endBit ?? (is64(c.type) ? 64 : 32)];
  let path;
  const t0 = performance.now();
  let result;
  try {
    if (seg) {
      if (c.endOffsets) options.endOffsets = seg.ends;
      const offsets = c.endOffsets ? seg.begins : Uint32Array.from([...seg.begins, seg.n]);
      result = pairs ? await prim.arrays.segmentedRadixSortPairs(input, values, offsets, options) : { keys: await prim.arrays.segmentedRadixSortKeys(input, offsets, options) };
      path = `segmented:max-segment-${Math.max(0, ...c.segments)}`;
    } else {
      path = radixPath(prim, c.type, n, valueBytes, options);
      result = pairs ? await prim.arrays.radixSortPairs(input, values, options) : { keys: await prim.arrays.radixSortKeys(input, options) };
    }
  } catch (err) {
    if (lost.value) throw new Error(`GPU device lost during "${c.name}": ${lost.value}`);
    return { name: c.name, error: { isWgprimError: err instanceof WgprimError, name: err?.name, code: err?.code, message: String(err?.message ?? err) } };
  }
  const ms = performance.now() - t0;
  if (lost.value) throw new Error(`GPU device lost during "${c.name}": ${lost.value}`);
  const got = wordsOf(c.type, result.keys);
  let failure = result.keys.length !== n ? `${result.keys.length} keys back, expected ${n}` : undefined;
  if (!failure && pairs && result.values.length !== n) failure = `${result.values.length} values back, expected ${n}`;
  const t1 = performance.now();
  if (!failure && seg) {
    // each segment sorted on its own; everything outside every segment unchanged
    const covered = new Uint8Array(n);
    for (let s = 0; s < seg.begins.length && !failure; s++) {
      const [from, to] = [seg.begins[s], seg.ends[s]];
      covered.fill(1, from, to);
      const ref = referenceOrder(c.type, keys, from, to, !!options.descending, b, e);
      failure = checkSorted(c.type, keys, got, result.values, ref, Uint32Array.from(ref, (_, j) => from + j));
      if (failure) failure = `segment ${s} [${from}, ${to}): ${failure}`;
    }
    for (let i = 0; i < n && !failure; i++) {
      const bad = covered[i] ? undefined : checkSorted(c.type, keys, got, result.values, [i], [i]);
      if (bad) failure = `outside every segment: ${bad}`;
    }
  } else if (!failure) {
    const ref = referenceOrder(c.type, keys, 0, n, !!options.descending, b, e);
    failure = checkSorted(c.type, keys, got, result.values, ref, Uint32Array.from(ref, (_, j) => j));
  }
  return { name: c.name, ms, checkMs: performance.now() - t1, path, ...(failure ? { failure } : {}) };
}

window.wgprimTest = {
  /** The WGSL building blocks' cases (blocks.js) on this page's device: [{ name, failures }]. */
  async blocks() {
    const { device } = await getReady();
    const lib = await loadBlocks((path) => import(`/dist/${path}`));
    return runBlockCases(lib, device);
  },

  /**
   * Every registered algorithm's `wgprim demo` checks (array-level calls against the CPU
   * reference in its folder) on `count` random elements: [{ name, failure? }]. New algorithms
   * are covered here by their spec, with no case written for this page.
   */
  async demos(count) {
    const { prim, lost } = await getReady();
    const unit = unitRng(20261202);
    const word = rng(20261203);
    const data = { count, u32: Uint32Array.from({ length: count }, word), f32: Float32Array.from({ length: count }, unit) };
    const out = [];
    for (const algorithm of ALGORITHMS) {
      for (const check of algorithm.demo(prim.arrays, data)) {
        let failure;
        try {
          failure = check.verify(await check.run());
        } catch (err) {
          failure = `threw ${err?.name}: ${err?.message ?? err}`;
        }
        if (lost.value) throw new Error(`GPU device lost during "${check.name}": ${lost.value}`);
        out.push({ name: `${algorithm.name}: ${check.name}`, failure });
      }
    }
    return out;
  },

  /** What the adapter and the library say about this GPU. */
  async info() {
    const { adapter, device, prim } = await getReady();
    const i = adapter.info;
    return {
      adapter: {
        vendor: i.vendor, architecture: i.architecture, device: i.device, description: i.description,
        isFallbackAdapter: i.isFallbackAdapter ?? adapter.isFallbackAdapter,
        subgroupMinSize: i.subgroupMinSize, subgroupMaxSize: i.subgroupMaxSize,
      },
      adapterFeatures: [...adapter.features].sort(),
      deviceFeatures: [...device.features].sort(),
      target: { ...prim.target },
      selected: {
        scanU32: prim.selectedConfig('scan', 'u32'),
        reduceU32: prim.selectedConfig('reduce', 'u32'),
        transformU32: prim.selectedConfig('transform', 'u32'),
      },
    };
  },

  /**
   * Keeps an input array in the page, so that cases can name it instead of sending it again.
   * It comes as { base64, arrayType }: the bytes of a typed array.
   */
  setData(name, { base64, arrayType }) {
    const A = Object.values(ARRAYS).find((C) => C.name === arrayType);
    if (!A) throw new Error(`page.js: unknown array type ${arrayType}`);
    const bin = atob(base64);
    const bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    datasets.set(name, new A(bytes.buffer));
    return bytes.length / A.BYTES_PER_ELEMENT;
  },

  /**
   * Runs cases one after another: { name, algo, type, data, options }, algo one of reduce,
   * inclusiveScan, exclusiveScan, transform; data an array or the name of a setData array;
   * options.b likewise. Each gives { name, ms, result } (a
   * number, a decimal string for 64-bit values, or { base64, arrayType } for arrays) or { name, error }.
   */
  async run(cases) {
    const { prim, lost } = await getReady();
    const out = [];
    for (const c of cases) {
      const data = toTyped(c.type, typeof c.data === 'string' ? dataset(c.data) : c.data);
      const options = fromOptions(c.type, c.options);
      const t0 = performance.now();
      try {
        const r = await prim.arrays[c.algo](data, options);
        const ms = performance.now() - t0;
        out.push({ name: c.name, ms, result: ArrayBuffer.isView(r) ? fromTyped(r) : fromValue(r) });
      } catch (err) {
        out.push({
          name: c.name,
          error: {
            isWgprimError: err instanceof WgprimError, name: err?.name, code: err?.code,
            message: String(err?.message ?? err),
          },
        });
      }
      if (lost.value) throw new Error(`GPU device lost during "${c.name}": ${lost.value}`);
    }
    return out;
  },

  /** The radix sort configs this Prim selects here, for keys only and with 4- and 8-byte values. */
  async radixConfigs(types) {
    const { prim } = await getReady();
    const out = {};
    for (const type of types) {
      for (const vb of [0, 4, 8]) {
        out[`${type}/${vb}`] = {
          radixSort: prim.selectedRadixSortConfig(type, vb),
          radixSortBlockSort: prim.selectedRadixSortBlockSortConfig(type, vb),
          segmentedRadixSort: prim.selectedSegmentedRadixSortConfig(type, vb),
        };
      }
    }
    return out;
  },

  /**
   * Radix sorts, checked here against a JS reference (the inputs are made here too: only the
   * verdicts cross back). A case: { name, sort: 'keys' | 'pairs' | 'segmentedKeys' |
   * 'segmentedPairs', type, n (unsegmented) or segments (lengths; below 0: a gap), seed,
   * distinct?, specials?, valueType?: 'u32' | 'u64', options? (descending, beginBit, endBit,
   * config, blockSortConfig) }. Each gives { name, ms, path, failure? } or { name, error }.
   */
  async radix(cases) {
    const { prim, lost } = await getReady();
    const out = [];
    for (const c of cases) out.push(await radixCase(prim, lost, c));
    return out;
  },

  /**
   * tune (wgprim/tune) in the page, with the tune cache in localStorage: a short campaign on one
   * algorithm and type, then a second Prim on the same device and cache, which must select
   * the same configs without measuring.
   */
  async tune(options) {
    const { adapter, device } = await getReady();
    const cache = localStorageTuneCache();
    const prim = createPrim(device, { adapterInfo: adapter.info, tuneCache: cache });
    const before = prim.tuneCacheState;
    const summary = await tune(prim, options);
    const again = createPrim(device, { adapterInfo: adapter.info, tuneCache: localStorageTuneCache() });
    const pick = (p) => ({ transformU32: p.selectedConfig('transform', 'u32'), transformF32: p.selectedConfig('transform', 'f32') });
    const { file, ...rest } = summary;
    return {
      before, after: again.tuneCacheState, summary: { ...rest, benchmarks: file.benchmarks.length },
      stored: localStorage.getItem(summary.cacheKey), selected: pick(prim), selectedAgain: pick(again),
    };
  },
};
window.wgprimPageReady = true;
