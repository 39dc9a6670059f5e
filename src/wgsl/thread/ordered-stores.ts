/**
 * Ordered stores of a quad's sparse outputs (the direct select's selected): the few of an
 * invocation's four elements that write take consecutive places, so the invocation gathers them
 * in order and then stores its first, its second, ... A subgroup's first store then writes most
 * places of the span its elements fill, where a store per element slot (every lane's element j
 * at once) writes one place in two to four across the whole span. Registers only: the gathered
 * values are kept by `select`, never by a dynamic index (which would put the array in local
 * memory). On an H100 this made select by predicate 4-5% faster (2^24 and 2^28 u32), and reduce
 * by key and run-length encoding 6-13% slower, so only the select uses it.
 */
export interface OrderedStores {
  /** Prefix of the WGSL variables (`<name>_n`, `<name>_at`, `<name>_v0` ...). */
  readonly name: string;
  /** WGSL type of a gathered value, and of the optional second value (a value that goes along). */
  readonly T: string;
  readonly T2?: string;
  /** Most outputs an invocation gathers before it stores (4 for a quad). */
  readonly most: number;
}

/** Declarations, before the quad's elements. */
export function orderedStoresDecl(o: OrderedStores): string {
  const vars = Array.from({ length: o.most }, (_, i) => `var ${o.name}_v${i}: ${o.T};${o.T2 ? ` var ${o.name}_w${i}: ${o.T2};` : ''}`);
  return `var ${o.name}_n = 0u;
var ${o.name}_at = 0u;
${vars.join('\n')}`;
}

/** Statements for one element: where `is` (WGSL bool) holds, gathers `value` (and `second`), whose place is `place`. */
export function orderedStoresGather(o: OrderedStores, is: string, place: string, value: string, second?: string): string {
  const n = `${o.name}_n`;
  const keep = Array.from({ length: o.most }, (_, i) => `${o.name}_v${i} = select(${o.name}_v${i}, ${value}, ${n} == ${i}u);${o.T2 && second !== undefined ? ` ${o.name}_w${i} = select(${o.name}_w${i}, ${second}, ${n} == ${i}u);` : ''}`);
  return `if (${is}) {
  if (${n} == 0u) { ${o.name}_at = ${place}; }
  ${keep.join('\n  ')}
  ${n} += 1u;
}`;
}

/** The stores, after the quad's elements: `store(place, v, w)` gives the WGSL statement for one. */
export function orderedStoresFlush(o: OrderedStores, store: (place: string, v: string, w: string) => string): string {
  return Array.from({ length: o.most }, (_, i) => `if (${o.name}_n > ${i}u) { ${store(`${o.name}_at + ${i}u`, `${o.name}_v${i}`, `${o.name}_w${i}`)} }`).join('\n');
}
