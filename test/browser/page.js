// Runs in the browser. Imports the built library exactly as an application would, with no
// bundler: dist/ is served as-is. test/browser.test.ts calls window.wgprimTest.* and checks
// every result in Node against a plain JS computation.
import { createPrim, WgprimError, localStorageTuneCache } from '/dist/index.js';

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

window.wgprimTest = {
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

  /**
   * prim.tune in the page, with the tune cache in localStorage: a short campaign on one
   * algorithm and type, then a second Prim on the same device and cache, which must select
   * the same configs without measuring.
   */
  async tune(options) {
    const { adapter, device } = await getReady();
    const cache = localStorageTuneCache();
    const prim = createPrim(device, { adapterInfo: adapter.info, tuneCache: cache });
    const before = prim.tuneCacheState;
    const summary = await prim.tune(options);
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
