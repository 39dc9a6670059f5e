import { type TypeInfo } from './types.js';

/**
 * An array parameter of a kernel, seen through two bindings of one buffer: a vector view
 * (`<name>_v`, 16-byte loads, covering the buffer up to an aligned tail start) and a scalar
 * view of the rest (`<name>_t`). WebGPU forbids overlapping writable bindings and a vector
 * view cannot end inside a vector, so the split lets every full quad of 4 elements move as
 * 16-byte (or 2x16-byte) accesses while the last few elements stay exact.
 */
export interface ViewSpec {
  readonly name: string;
  readonly type: TypeInfo;
  readonly access: 'read' | 'read_write';
  /** WGSL expression of the first element index that lives in the scalar view. */
  readonly tailStart: string;
  /**
   * A read-only view whose vector binding is 16-byte words (`vec4<u32>`) whatever the type:
   * `<name>_word(w)` gives word w's `wordElements(type)` elements (8 of a 2-byte type, 2 of an
   * 8-byte one), so every type streams as 16-byte loads; no quad accessors.
   */
  readonly words?: boolean;
}

/** Elements of `t` in one 16-byte word of a `words` view. */
export const wordElements = (t: TypeInfo): number => 16 / t.bytes;

/** Accessors of a `words` view (`<name>_v: array<vec4<u32>>`). */
function wordAccessors(name: string, t: TypeInfo, tailStart: string): string[] {
  const T = t.wgsl;
  const E = wordElements(t);
  const word = t.bytes === 8
    ? `let v = ${name}_v[w];
  return array<${T}, 2>(v.xy, v.zw);`
    : t.bytes === 2
      ? `let v = ${name}_v[w];
  let a = bitcast<vec2<${T}>>(v.x); let b = bitcast<vec2<${T}>>(v.y);
  let c = bitcast<vec2<${T}>>(v.z); let d = bitcast<vec2<${T}>>(v.w);
  return array<${T}, 8>(a.x, a.y, b.x, b.y, c.x, c.y, d.x, d.y);`
      : `let c = bitcast<vec4<${T}>>(${name}_v[w]);
  return array<${T}, 4>(c.x, c.y, c.z, c.w);`;
  const at = t.bytes === 8
    ? `let w = ${name}_v[e >> 1u];
  return select(w.zw, w.xy, (e & 1u) == 0u);`
    : t.bytes === 2
      ? `return bitcast<vec2<${T}>>(${name}_v[e >> 3u][(e >> 1u) & 3u])[e & 1u];`
      : `return bitcast<${T}>(${name}_v[e >> 2u][e & 3u]);`;
  return [`fn ${name}_word(w: u32) -> array<${T}, ${E}> {
  ${word}
}`, `fn ${name}_at(e: u32) -> ${T} {
  let ts = ${tailStart};
  if (e >= ts) { return ${name}_t[e - ts]; }
  ${at}
}`];
}

export type BindingKind = 'read-only-storage' | 'storage' | 'uniform';

/** WGSL for the two bindings of a view plus its quad and element accessors. */
export function viewWgsl(v: ViewSpec, firstBinding: number): string {
  const { name, type: t, access, tailStart } = v;
  const T = t.wgsl;
  const lines = [
    `@group(0) @binding(${firstBinding}) var<storage, ${access}> ${name}_v: array<${v.words ? 'vec4<u32>' : t.vecWgsl}>;`,
    `@group(0) @binding(${firstBinding + 1}) var<storage, ${access}> ${name}_t: array<${T}>;`,
  ];
  if (v.words) {
    if (access !== 'read') throw new Error('a words view is read-only');
    return [...lines, ...wordAccessors(name, t, tailStart)].join('\n');
  }
  const wide = t.vecsPerQuad === 2;
  // Quad accessors: only for quads that end at or before the tail start.
  lines.push(wide
    ? `fn ${name}_quad(q: u32) -> array<${T}, 4> {
  let a = ${name}_v[2u * q]; let b = ${name}_v[2u * q + 1u];
  return array<${T}, 4>(a.xy, a.zw, b.xy, b.zw);
}`
    : `fn ${name}_quad(q: u32) -> array<${T}, 4> {
  let a = ${name}_v[q];
  return array<${T}, 4>(a.x, a.y, a.z, a.w);
}`);
  lines.push(wide
    ? `fn ${name}_at(e: u32) -> ${T} {
  let ts = ${tailStart};
  if (e >= ts) { return ${name}_t[e - ts]; }
  let w = ${name}_v[e >> 1u];
  return select(w.zw, w.xy, (e & 1u) == 0u);
}`
    : `fn ${name}_at(e: u32) -> ${T} {
  let ts = ${tailStart};
  if (e >= ts) { return ${name}_t[e - ts]; }
  return ${name}_v[e >> 2u][e & 3u];
}`);
  if (access === 'read_write') {
    lines.push(wide
      ? `fn ${name}_store_quad(q: u32, x: array<${T}, 4>) {
  ${name}_v[2u * q] = vec4<u32>(x[0], x[1]);
  ${name}_v[2u * q + 1u] = vec4<u32>(x[2], x[3]);
}`
      : `fn ${name}_store_quad(q: u32, x: array<${T}, 4>) {
  ${name}_v[q] = ${t.vecWgsl}(x[0], x[1], x[2], x[3]);
}`);
    lines.push(wide
      ? `fn ${name}_store(e: u32, x: ${T}) {
  let ts = ${tailStart};
  if (e >= ts) { ${name}_t[e - ts] = x; return; }
  let c = 2u * (e & 1u);
  ${name}_v[e >> 1u][c] = x.x;
  ${name}_v[e >> 1u][c + 1u] = x.y;
}`
      : `fn ${name}_store(e: u32, x: ${T}) {
  let ts = ${tailStart};
  if (e >= ts) { ${name}_t[e - ts] = x; return; }
  ${name}_v[e >> 2u][e & 3u] = x;
}`);
  }
  return lines.join('\n');
}

/** Binding kinds of a view's two bindings. */
export function viewBindings(v: Pick<ViewSpec, 'access'>): BindingKind[] {
  const kind: BindingKind = v.access === 'read' ? 'read-only-storage' : 'storage';
  return [kind, kind];
}

/**
 * An output written one element at a time (`<name>_store(e, x)`) from `binding` on, its binding
 * kinds pushed onto `bindings`: one plain array, or for 2-byte types (no 4-byte multiple) a view's
 * two bindings, whose tail starts at `tail`.
 */
export function scatterOutputWgsl(name: string, t: TypeInfo, tail: string, binding: number, bindings: BindingKind[]): string {
  if (t.bytes === 2) {
    bindings.push(...viewBindings({ access: 'read_write' }));
    return viewWgsl({ name, type: t, access: 'read_write', tailStart: tail }, binding);
  }
  bindings.push('storage');
  return `@group(0) @binding(${binding}) var<storage, read_write> ${name}_s: array<${t.wgsl}>;
fn ${name}_store(e: u32, x: ${t.wgsl}) { ${name}_s[e] = x; }`;
}
