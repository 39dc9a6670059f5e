import { type Kernel, paramsStruct } from '../../runtime/kernel.js';
import { decodeMatch, EARLY_EXIT_DECLS, earlyExitPublish, earlyExitRecord, earlyExitTake, type SearchOrder } from '../../wgsl/device/early-exit.js';
import { quadTileConstants } from '../../wgsl/prelude.js';
import { fromWords, INT64_HELPERS, type TypeInfo, typeEnables } from '../../wgsl/types.js';
import { type BindingKind, viewBindings, viewWgsl } from '../../wgsl/views.js';
import { type FindConfig } from './config.js';

/**
 * The find family's scanner: candidate position p of a tile matches when
 * - adjacent: `eq(in[p], in[p + 1])`;
 * - first-of: `eq(in[p], targets[k])` for some k (`aux` holds the targets);
 * - search: `eq(in[p + k], pattern[k])` for every k (`aux` holds the pattern; brute force from
 *   each candidate, as rocPRIM's, stopping at the first mismatch);
 * - run: `eq(in[p + k], value)` for k < n, tested only where a run of such elements starts (the
 *   first run of n copies begins at a run's head, so each run is walked once, by its head).
 * Tiles go in order through the early-exit loop (src/wgsl/device/early-exit.ts).
 */
export type FindKind = 'adjacent' | 'first-of' | 'search' | 'run';

export const FIND_PARAMS = ['num_cand', 'num_tiles', 'in_tail', 'fast_end', 'aux_count', 'aux_tail', 'value_lo', 'value_hi'] as const;

/** Targets or pattern elements a workgroup keeps in workgroup memory (the rest are read from the buffer). */
export const AUX_CACHED = 256;

export interface FindKernelOptions {
  readonly kind: FindKind;
  readonly order: SearchOrder;
  readonly type: TypeInfo;
  /** WGSL expression over `a` and `b` (the element, then the target, pattern element or value). */
  readonly equality: string;
  /** The equality is the caller's: its compile errors are the caller's (`invalid-operator`). */
  readonly custom: boolean;
  readonly config: FindConfig;
}

/** Default equality: bitwise for integers, `==` for floats (-0 equals +0; NaN equals nothing). */
export function defaultFindEquality(t: TypeInfo): string {
  return t.is64 ? 'all(a == b)' : 'a == b';
}

export function findKernel(o: FindKernelOptions): Kernel {
  const { type: t, config: c, kind, order } = o;
  const T = t.wgsl;
  const WG = c.workgroupSize;
  const bindings: BindingKind[] = ['uniform'];
  const decls: string[] = [viewWgsl({ name: 'in', type: t, access: 'read', tailStart: 'P.in_tail' }, bindings.length)];
  bindings.push(...viewBindings({ access: 'read' }));
  if (kind === 'first-of' || kind === 'search') {
    decls.push(viewWgsl({ name: 'aux', type: t, access: 'read', tailStart: 'P.aux_tail' }, bindings.length));
    bindings.push(...viewBindings({ access: 'read' }));
  }
  decls.push(`@group(0) @binding(${bindings.length}) var<storage, read_write> state: array<atomic<u32>>;`);
  bindings.push('storage');

  // Targets and pattern are read by every candidate: the first AUX_CACHED wait in workgroup
  // memory (rocPRIM caches them too), loaded once a workgroup.
  const staged = kind === 'first-of' || kind === 'search';
  const stage = staged ? `var<workgroup> sh_aux: array<${T}, AUX_CACHED>;
fn aux_get(k: u32) -> ${T} {
  if (k < AUX_CACHED) { return sh_aux[k]; }
  return aux_at(k);
}` : '';
  const loadStage = staged ? `
  for (var i = lid; i < min(P.aux_count, AUX_CACHED); i += WG) { sh_aux[i] = aux_at(i); }
  workgroupBarrier();` : '';
  const matchFn: Record<FindKind, string> = {
    adjacent: `fn is_match(p: u32, x: ${T}) -> bool { return eq(x, in_at(p + 1u)); }`,
    'first-of': `fn is_match(p: u32, x: ${T}) -> bool {
  for (var k = 0u; k < P.aux_count; k++) { if (eq(x, aux_get(k))) { return true; } }
  return false;
}`,
    search: `fn is_match(p: u32, x: ${T}) -> bool {
  if (!eq(x, aux_get(0u))) { return false; }
  for (var k = 1u; k < P.aux_count; k++) { if (!eq(in_at(p + k), aux_get(k))) { return false; } }
  return true;
}`,
    run: `fn is_match(p: u32, x: ${T}) -> bool {
  let v = ${fromWords(t, 'vec2<u32>(P.value_lo, P.value_hi)')};
  if (!eq(x, v) || (p > 0u && eq(in_at(p - 1u), v))) { return false; }
  for (var k = 1u; k < P.aux_count; k++) { if (!eq(in_at(p + k), v)) { return false; } }
  return true;
}`,
  };

  const code = `${typeEnables(t).join('\n')}
${t.is64 ? INT64_HELPERS : ''}
${paramsStruct(FIND_PARAMS)}
@group(0) @binding(0) var<uniform> P: Params;
${decls.join('\n')}
${quadTileConstants(WG, c.itemsPerThread)}
${EARLY_EXIT_DECLS}
const AUX_CACHED = ${AUX_CACHED}u;
${stage}
fn eq(a: ${T}, b: ${T}) -> bool { return ${o.equality}; }
${matchFn[kind]}

@compute @workgroup_size(WG)
fn main(@builtin(local_invocation_index) lid: u32) {${loadStage}
  loop {${earlyExitTake(order, 'state', '0u', '1u', 'P.num_tiles', 'TILE')}
    let base = tile * (TILE / 4u) + lid;
    if ((tile + 1u) * TILE <= P.fast_end) {
      for (var k = 0u; k < Q; k++) {
        let q = base + k * WG;
        let xs = in_quad(q);${kind === 'adjacent' ? `
        // The neighbours come from the quad; only the next quad's first is read apart.
        let after = in_at(q * 4u + 4u);` : ''}
        for (var j = 0u; j < 4u; j++) {
          let p = q * 4u + j;
          if (${kind === 'adjacent' ? 'eq(xs[j], select(after, xs[min(j + 1u, 3u)], j < 3u))' : 'is_match(p, xs[j])'}) { ${earlyExitRecord(order, 'p')} }
        }
      }
    } else {
      for (var k = 0u; k < Q; k++) {
        for (var j = 0u; j < 4u; j++) {
          let p = (base + k * WG) * 4u + j;
          if (p < P.num_cand) {
            if (is_match(p, in_at(p))) { ${earlyExitRecord(order, 'p')} }
          }
        }
      }
    }${earlyExitPublish('state', '1u')}
  }
}
`;
  const key = ['find', kind, order, t.name, WG, c.itemsPerThread, o.equality].join(':');
  return { key, label: `wgprim.find.${kind}.${order}.${t.name}`, code, bindings, workgroupSize: WG, userCode: o.custom };
}

/** Writes the result: the best match's position, or `P.none` when there is none. */
export function findResultKernel(order: SearchOrder): Kernel {
  const code = `struct Params { none: u32 }
@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read> state: array<u32>;
@group(0) @binding(2) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(1)
fn main() {
  let e = state[1];
  out[0] = ${decodeMatch(order, 'e', 'P.none')};
}
`;
  return { key: `find-result:${order}`, label: `wgprim.find.result.${order}`, code, bindings: ['uniform', 'read-only-storage', 'storage'], workgroupSize: 1 };
}
