import { unroll } from './unroll.js';

/** `quad_reduce(q)`: the four items of a 16-byte quad folded in order with `op`. */
export function quadReduce(T: string): string {
  return `fn quad_reduce(q: array<${T}, 4>) -> ${T} { return op(op(op(q[0], q[1]), q[2]), q[3]); }`;
}

/**
 * Statements scanning the four items of quad `items` in order with `op`, carrying `x` (a
 * `var` holding what precedes them) and writing `o` (a `var` array of 4): exclusive stores
 * before combining, inclusive after.
 */
export function quadScan(items: string, exclusive: boolean): string {
  return unroll(4, 'j', exclusive ? `        o[j] = x;\n        x = op(x, ${items}[j]);` : `        x = op(x, ${items}[j]);\n        o[j] = x;`);
}
