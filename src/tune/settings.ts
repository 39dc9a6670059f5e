// Tuning settings: per algorithm, the parameter space, the types to tune (one representative
// type per type class), the input sizes, and constraints; plus how to measure and search.
// Plain data (JSON-compatible, with a JSON schema), except `custom` constraints, which only a
// .js/.mjs settings module can carry. Browser-safe.
import { type DeviceContext } from '../runtime/context.js';
import { WgprimError } from '../runtime/errors.js';
import { isSoftwareAdapter, type Target } from '../runtime/target.js';
import { ELEMENT_TYPES, type ElementType, typeInfo } from '../wgsl/types.js';
import { type ConfigObject, type ParamSpace, type ParamValue, isThresholdStage, isTunable, THRESHOLD_SPECS, THRESHOLD_STAGES, thresholdSpec, tunable, tunableAlgorithms } from './registry.js';

export type DeviceKind = 'cpu' | 'gpu';
export type StrategyName = 'exhaustive' | 'random' | 'local';

/**
 * A rule a config must satisfy (beyond what the device allows). `types`, where given, limits
 * a rule to those types.
 * - `max-product`: the product of the listed numeric params is at most `max`
 *   (e.g. workgroupSize * itemsPerThread <= 8192: the tile).
 * - `range`: a numeric param lies in [min, max].
 * - `exclude`: drop configs that match every listed param (a value or a list of values).
 * - `custom` (settings modules only): `check` returns why a config is dropped, or undefined.
 */
export type Constraint =
  | { readonly kind: 'max-product'; readonly params: readonly string[]; readonly max: number; readonly types?: readonly ElementType[] }
  | { readonly kind: 'range'; readonly param: string; readonly min?: number; readonly max?: number; readonly types?: readonly ElementType[] }
  | { readonly kind: 'exclude'; readonly match: Readonly<Record<string, ParamValue | readonly ParamValue[]>>; readonly types?: readonly ElementType[] }
  | { readonly kind: 'custom'; readonly name: string; readonly check: (config: ConfigObject, type: ElementType) => string | undefined; readonly types?: readonly ElementType[] };

export interface AlgorithmSettings {
  /**
   * Values per config field. A field left out keeps its heuristic value, so an algorithm that
   * gains a field does not break older settings files.
   */
  readonly space: ParamSpace;
  /** Types to tune: one per type class (u32 for int/4 bytes, f32 float/4, u64 int/8, f16 float/2). */
  readonly types: readonly ElementType[];
  /** Elements per call. Sizes over the device's maxStorageBufferBindingSize are dropped. */
  readonly sizes: readonly number[];
  /** Benchmarks timed per variant (scan: `inclusive_scan`, `exclusive_scan`); default: the algorithm's. */
  readonly benchmarks?: readonly string[];
  readonly constraints?: readonly Constraint[];
}

export interface TuneSettings {
  readonly $schema?: string;
  readonly version: 1;
  /** What the defaults were made for (informational). */
  readonly deviceKind?: DeviceKind;
  /** Data seed (rocPRIM CI uses 82589933) and the seed of random and local search. */
  readonly seed: number;
  /** Untimed calls per measurement. */
  readonly warmup: number;
  /**
   * After inputs that took over 100 ms to make (a new type or size: the GPU idle meanwhile),
   * untimed calls go on for this many ms (`wgprim bench --warmup-ms`; default 500 on GPUs, 0 on
   * CPUs), so the first config timed there is not timed on a GPU still slow from idling.
   */
  readonly warmupMs?: number;
  /** Timed submits per measurement. */
  readonly batches: number;
  /** Calls per submit, each timed on its own where timestamps exist. */
  readonly batchSize: number;
  /**
   * Flush the GPU's caches (a 256 MiB clear, as rocPRIM's cold runs) before each timed call, so
   * configs are ranked on data that starts in memory, not in L2 (`wgprim tune --cold`). Default false.
   */
  readonly coldCache: boolean;
  /** Search strategy; `auto`: exhaustive for groups of at most `exhaustiveLimit` variants, else local. */
  readonly strategy: StrategyName | 'auto';
  readonly exhaustiveLimit: number;
  /** random: variants per (algorithm, type) group, the defaults not counted. */
  readonly randomSamples: number;
  /** local: most evaluations per (algorithm, type) group. */
  readonly localEvaluations: number;
  /** Stop after this many seconds (what is left is measured by a resumed run). */
  readonly budgetSeconds?: number;
  /** Pipelines compiled at once. */
  readonly buildConcurrency: number;
  readonly algorithms: Readonly<Record<string, AlgorithmSettings>>;
}

/** A partial settings object (what a user's file holds): merged over the defaults. */
export type SettingsInput = Partial<Omit<TuneSettings, 'algorithms'>> & {
  readonly algorithms?: Readonly<Record<string, Partial<AlgorithmSettings>>>;
};

/** The representative type of each type class, as the tables are keyed (rocPRIM's fallback buckets). */
export const REPRESENTATIVE_TYPES: readonly ElementType[] = ['u32', 'f32', 'u64', 'f16'];

/**
 * What a CPU adapter's default campaign tunes: u32 rows only (other type classes keep the
 * heuristic there), so that `npm run main` on lavapipe tunes every algorithm in minutes.
 */
export const CPU_TYPES: readonly ElementType[] = ['u32'];

/** CPU adapters (lavapipe, SwiftShader, WARP) get the small default space and sizes. */
export function deviceKindOf(t: Target): DeviceKind {
  return isSoftwareAdapter(t) ? 'cpu' : 'gpu';
}

/** Which spaces the default settings take: the default campaign's, or every algorithm's full one. */
export type SpaceChoice = 'default' | 'full';

/**
 * The default settings. `gpu`: every algorithm's default space (a handful of tile shapes per
 * type, `TuningSpec.defaultSpace`; `space` 'full': the whole space) at 2^20 and 2^24 elements
 * (or the stage's `gpuSizes`), timing its `gpuBenchmarks` where it names them;
 * `cpu`: a small space at 2^16 and 2^20 on u32 with shorter timing, so that `wgprim tune` of every
 * algorithm finishes on lavapipe in a few minutes.
 */
export function defaultSettings(kind: DeviceKind, space: SpaceChoice = 'default'): TuneSettings {
  const algorithms: Record<string, AlgorithmSettings> = {};
  for (const a of tunableAlgorithms()) {
    algorithms[a.name] = {
      space: space === 'full' ? a.space : kind === 'cpu' ? a.smallSpace : a.defaultSpace,
      types: kind === 'cpu' ? a.smallTypes ?? CPU_TYPES : a.gpuTypes ?? REPRESENTATIVE_TYPES,
      sizes: kind === 'cpu' ? a.smallSizes ?? [2 ** 16, 2 ** 20] : a.gpuSizes ?? [2 ** 20, 2 ** 24],
      benchmarks: kind === 'cpu' ? a.defaultBenchmarks : a.gpuBenchmarks ?? a.defaultBenchmarks,
    };
  }
  // Threshold stages: no space; `sizes` is the ladder both paths are timed at.
  for (const t of THRESHOLD_SPECS) {
    algorithms[t.stage] = { space: {}, types: kind === 'cpu' ? ['u32'] : REPRESENTATIVE_TYPES, sizes: t.sizes(kind), benchmarks: t.defaultBenchmarks };
  }
  return {
    version: 1,
    deviceKind: kind,
    seed: 82589933,
    warmup: kind === 'cpu' ? 3 : 5,
    warmupMs: kind === 'cpu' ? 0 : 500,
    batches: kind === 'cpu' ? 8 : 10,
    batchSize: kind === 'cpu' ? 8 : 10,
    coldCache: false,
    strategy: 'auto',
    exhaustiveLimit: 400,
    randomSamples: 24,
    localEvaluations: 40,
    buildConcurrency: kind === 'cpu' ? 2 : 8,
    algorithms,
  };
}

// ---------------------------------------------------------------------------------------------
// Merge and validation

const isObject = (x: unknown): x is Record<string, unknown> => !!x && typeof x === 'object' && !Array.isArray(x);

/**
 * `input` over `base`: top-level fields replace, each algorithm's fields replace field by field,
 * and a space replaces the base space param by param (so `{ space: { itemsPerThread: [4] } }`
 * narrows one param and keeps the others). Validated; throws `invalid-argument` listing every problem.
 */
export function mergeSettings(base: TuneSettings, input: unknown): TuneSettings {
  if (input === undefined) return base;
  if (!isObject(input)) throw new WgprimError('invalid-argument', 'settings must be an object');
  const { algorithms: inAlgos, ...top } = input as SettingsInput;
  const algorithms: Record<string, AlgorithmSettings> = { ...base.algorithms };
  if (inAlgos !== undefined) {
    if (!isObject(inAlgos)) throw new WgprimError('invalid-argument', 'settings.algorithms must be an object');
    for (const [name, a] of Object.entries(inAlgos)) {
      if (!isObject(a)) throw new WgprimError('invalid-argument', `settings.algorithms.${name} must be an object`);
      const prev = algorithms[name];
      const space = a.space === undefined ? prev?.space : isObject(a.space) ? { ...(prev?.space ?? {}), ...(a.space as ParamSpace) } : (a.space as never);
      algorithms[name] = { ...(prev ?? {}), ...a, space } as AlgorithmSettings;
    }
  }
  const merged = { ...base, ...top, algorithms } as TuneSettings;
  const problems = settingsProblems(merged);
  if (problems.length) throw new WgprimError('invalid-argument', `invalid tuning settings:\n  ${problems.join('\n  ')}`);
  return merged;
}

const TOP_KEYS = ['$schema', 'version', 'deviceKind', 'seed', 'warmup', 'warmupMs', 'batches', 'batchSize', 'coldCache', 'strategy', 'exhaustiveLimit', 'randomSamples', 'localEvaluations', 'budgetSeconds', 'buildConcurrency', 'algorithms'];
const ALGORITHM_KEYS = ['space', 'types', 'sizes', 'benchmarks', 'constraints'];

const isInt = (x: unknown, min: number): boolean => typeof x === 'number' && Number.isSafeInteger(x) && x >= min;

/** Everything wrong with a settings object, one line each (empty when valid). */
export function settingsProblems(s: TuneSettings): string[] {
  const p: string[] = [];
  if (s.version !== 1) p.push(`version must be 1, got ${JSON.stringify(s.version)}`);
  for (const k of Object.keys(s)) if (!TOP_KEYS.includes(k)) p.push(`unknown setting "${k}" (settings: ${TOP_KEYS.filter((x) => x !== '$schema').join(', ')})`);
  for (const [k, min] of [['seed', 0], ['warmup', 0], ['batches', 1], ['batchSize', 1], ['exhaustiveLimit', 1], ['randomSamples', 1], ['localEvaluations', 1], ['buildConcurrency', 1]] as const) {
    if (!isInt(s[k], min)) p.push(`${k} must be an integer >= ${min}, got ${JSON.stringify(s[k])}`);
  }
  if (s.warmupMs !== undefined && !(typeof s.warmupMs === 'number' && Number.isFinite(s.warmupMs) && s.warmupMs >= 0)) p.push(`warmupMs must be a number >= 0, got ${JSON.stringify(s.warmupMs)}`);
  if (typeof s.coldCache !== 'boolean') p.push(`coldCache must be true or false, got ${JSON.stringify(s.coldCache)}`);
  if (s.batchSize > 2048) p.push(`batchSize must be at most 2048 (a query set holds 4096 timestamps), got ${s.batchSize}`);
  if (!['exhaustive', 'random', 'local', 'auto'].includes(s.strategy)) p.push(`strategy must be exhaustive, random, local or auto, got ${JSON.stringify(s.strategy)}`);
  if (s.budgetSeconds !== undefined && !(typeof s.budgetSeconds === 'number' && s.budgetSeconds > 0)) p.push(`budgetSeconds must be a number > 0, got ${JSON.stringify(s.budgetSeconds)}`);
  if (!isObject(s.algorithms)) {
    p.push('algorithms must be an object');
    return p;
  }
  for (const [name, a] of Object.entries(s.algorithms)) {
    const at = `algorithms.${name}`;
    if (isThresholdStage(name)) {
      // A threshold stage: types and sizes (the ladder); no space.
      for (const k of Object.keys(a)) if (!['space', 'types', 'sizes', 'benchmarks'].includes(k)) p.push(`${at}: unknown setting "${k}" (a threshold stage takes types, sizes and benchmarks)`);
      if (a.space !== undefined && (!isObject(a.space) || Object.keys(a.space).length)) p.push(`${at}.space: a threshold stage has no config space (it times the configs selected for each type)`);
      const allowed = thresholdSpec(name).benchmarks;
      if (a.benchmarks !== undefined && (!Array.isArray(a.benchmarks) || !a.benchmarks.length || a.benchmarks.some((b) => !allowed.includes(b)) || new Set(a.benchmarks).size !== a.benchmarks.length)) {
        p.push(`${at}.benchmarks must be one or both of ${JSON.stringify(allowed)} (keys only, pairs), each once, got ${JSON.stringify(a.benchmarks)}`);
      }
      p.push(...typesAndSizesProblems(a, at));
      continue;
    }
    if (!isTunable(name)) {
      p.push(`${at}: no tunable algorithm "${name}" (known: ${[...tunableAlgorithms().map((t) => t.name), ...THRESHOLD_STAGES].join(', ')})`);
      continue;
    }
    const alg = tunable(name);
    for (const k of Object.keys(a)) if (!ALGORITHM_KEYS.includes(k)) p.push(`${at}: unknown setting "${k}" (use ${ALGORITHM_KEYS.join(', ')})`);
    if (!isObject(a.space)) p.push(`${at}.space must be an object of value lists`);
    else {
      for (const [param, values] of Object.entries(a.space)) {
        const fields = { ...alg.space, ...alg.untimed };
        if (!(param in fields)) p.push(`${at}.space.${param}: not a ${name} config field (fields: ${Object.keys(fields).join(', ')})`);
        else if (!Array.isArray(values) || values.length === 0) p.push(`${at}.space.${param} must be a non-empty list`);
        else if (values.some((v) => !['number', 'string', 'boolean'].includes(typeof v))) p.push(`${at}.space.${param}: values must be numbers, strings or booleans`);
        else if (new Set(values).size !== values.length) p.push(`${at}.space.${param} lists a value twice`);
      }
    }
    p.push(...typesAndSizesProblems(a, at));
    if (a.benchmarks !== undefined) {
      if (!Array.isArray(a.benchmarks) || a.benchmarks.length === 0) p.push(`${at}.benchmarks must be a non-empty list`);
      else for (const b of a.benchmarks) if (!alg.benchmarks.includes(b)) p.push(`${at}.benchmarks: unknown benchmark ${JSON.stringify(b)} (use ${alg.benchmarks.join(', ')})`);
    }
    if (a.constraints !== undefined) {
      if (!Array.isArray(a.constraints)) p.push(`${at}.constraints must be a list`);
      else a.constraints.forEach((c, i) => p.push(...constraintProblems(c, `${at}.constraints[${i}]`, Object.keys(alg.space))));
    }
  }
  return p;
}

function typesAndSizesProblems(a: AlgorithmSettings, at: string): string[] {
  const p: string[] = [];
  if (!Array.isArray(a.types) || a.types.length === 0) p.push(`${at}.types must be a non-empty list`);
  else for (const t of a.types) if (!(ELEMENT_TYPES as readonly string[]).includes(t)) p.push(`${at}.types: unknown type ${JSON.stringify(t)} (use ${ELEMENT_TYPES.join(', ')})`);
  if (!Array.isArray(a.sizes) || a.sizes.length === 0) p.push(`${at}.sizes must be a non-empty list`);
  else for (const n of a.sizes) if (!isInt(n, 1)) p.push(`${at}.sizes: ${JSON.stringify(n)} is not a positive integer`);
  return p;
}

function constraintProblems(c: Constraint, at: string, fields: readonly string[]): string[] {
  const p: string[] = [];
  if (!isObject(c)) return [`${at} must be an object`];
  const field = (f: unknown): void => {
    if (typeof f !== 'string' || !fields.includes(f)) p.push(`${at}: ${JSON.stringify(f)} is not a config field (fields: ${fields.join(', ')})`);
  };
  switch (c.kind) {
    case 'max-product':
      if (!Array.isArray(c.params) || c.params.length === 0) p.push(`${at}.params must be a non-empty list`);
      else c.params.forEach(field);
      if (typeof c.max !== 'number') p.push(`${at}.max must be a number`);
      break;
    case 'range':
      field(c.param);
      if (c.min === undefined && c.max === undefined) p.push(`${at} needs min or max`);
      break;
    case 'exclude':
      if (!isObject(c.match) || !Object.keys(c.match).length) p.push(`${at}.match must be a non-empty object`);
      else Object.keys(c.match).forEach(field);
      break;
    case 'custom':
      if (typeof c.check !== 'function') p.push(`${at}.check must be a function (custom constraints need a .js/.mjs settings module)`);
      break;
    default:
      p.push(`${at}.kind must be max-product, range, exclude or custom, got ${JSON.stringify((c as { kind?: unknown }).kind)}`);
  }
  if (c.types !== undefined && (!Array.isArray(c.types) || c.types.some((t) => !(ELEMENT_TYPES as readonly string[]).includes(t)))) {
    p.push(`${at}.types must be a list of element types`);
  }
  return p;
}

/** Why a config breaks a constraint, or undefined. */
export function constraintViolation(c: Constraint, config: ConfigObject, type: ElementType): string | undefined {
  if (c.types && !c.types.includes(type)) return undefined;
  switch (c.kind) {
    case 'max-product': {
      const product = c.params.reduce((s, k) => s * Number(config[k]), 1);
      return product > c.max ? `constraint: ${c.params.join(' * ')} > ${c.max}` : undefined;
    }
    case 'range': {
      const v = Number(config[c.param]);
      if (c.min !== undefined && v < c.min) return `constraint: ${c.param} < ${c.min}`;
      if (c.max !== undefined && v > c.max) return `constraint: ${c.param} > ${c.max}`;
      return undefined;
    }
    case 'exclude': {
      const hit = Object.entries(c.match).every(([k, want]) => (Array.isArray(want) ? want.includes(config[k]!) : config[k] === want));
      return hit ? `constraint: excluded ${JSON.stringify(c.match)}` : undefined;
    }
    case 'custom': {
      const why = c.check(config, type);
      return why ? `constraint ${c.name}: ${why}` : undefined;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Settings against a device

export interface ResolvedAlgorithm {
  readonly name: string;
  readonly space: ParamSpace;
  /** Types the device can run, in the settings' order. */
  readonly types: readonly ElementType[];
  /** Sizes that fit the device for some type, ascending. */
  readonly sizes: readonly number[];
  /** The sizes one type's arrays fit in (a wide type may drop the largest). */
  sizesFor(type: ElementType): readonly number[];
  readonly benchmarks: readonly string[];
  readonly constraints: readonly Constraint[];
  /** Types and sizes left out, with why. */
  readonly skipped: readonly string[];
}

/**
 * The settings of the chosen algorithms (default: every one in the settings) as this device
 * can run them: types whose feature is missing and sizes over maxStorageBufferBindingSize
 * (or what the tunable's `maxArrayBytes` says its calls take, within maxBufferSize) are left
 * out, with the reason.
 */
export function resolveSettings(settings: TuneSettings, ctx: DeviceContext, algorithms?: readonly string[]): ResolvedAlgorithm[] {
  const names = algorithms ?? Object.keys(settings.algorithms);
  return names.map((name) => {
    const a = settings.algorithms[name];
    if (!a) throw new WgprimError('invalid-argument', `the settings have no entry for algorithm "${name}" (they have: ${Object.keys(settings.algorithms).join(', ')})`);
    const skipped: string[] = [];
    const types = a.types.filter((type) => {
      const t = typeInfo(type);
      if (t.feature && !ctx.features.has(t.feature)) {
        skipped.push(`type ${type}: the device has no "${t.feature}"`);
        return false;
      }
      return true;
    });
    const arrayBytes = isTunable(name) ? tunable(name).maxArrayBytes?.(ctx.limits) : undefined;
    const bindable = arrayBytes ?? ctx.limits.maxStorageBufferBindingSize;
    const maxBytes = Math.min(bindable, ctx.limits.maxBufferSize);
    const limit = maxBytes < bindable ? `maxBufferSize ${maxBytes}` : arrayBytes === undefined ? `maxStorageBufferBindingSize ${maxBytes}` : `the ${maxBytes} bytes one array may take (two storage bindings)`;
    // A size too large for a wide type is left out for that type only (2^28 u64 over one binding).
    const fits = (n: number, type: ElementType): boolean => n * typeInfo(type).bytes <= maxBytes;
    const sizes = [...new Set(a.sizes)].sort((x, y) => x - y).filter((n) => {
      for (const type of types.filter((t) => !fits(n, t))) skipped.push(`size ${n} for ${type}: ${n * typeInfo(type).bytes} bytes exceed ${limit}`);
      return types.length === 0 || types.some((t) => fits(n, t));
    });
    const sizesFor = (type: ElementType): readonly number[] => sizes.filter((n) => fits(n, type));
    const benchmarks = a.benchmarks ?? (isThresholdStage(name) ? thresholdSpec(name).defaultBenchmarks : tunable(name).defaultBenchmarks);
    return { name, space: a.space ?? {}, types, sizes, sizesFor, benchmarks, constraints: a.constraints ?? [], skipped };
  });
}
