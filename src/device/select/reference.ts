// CPU references of the compaction algorithms: what the tests and the demo check against.
export type Elem = number | bigint;

/** The selected elements, in order. */
export function selectReference<T extends Elem>(data: ArrayLike<T>, keep: (x: T, i: number) => boolean): T[] {
  const out: T[] = [];
  for (let i = 0; i < data.length; i++) if (keep(data[i]!, i)) out.push(data[i]!);
  return out;
}

/** CUB's single-output partition: the selected in order, then the rejected in reverse order. */
export function partitionReference<T extends Elem>(data: ArrayLike<T>, keep: (x: T, i: number) => boolean): { output: T[]; selectedCount: number } {
  const selected: T[] = [];
  const rejected: T[] = [];
  for (let i = 0; i < data.length; i++) (keep(data[i]!, i) ? selected : rejected).push(data[i]!);
  return { output: [...selected, ...rejected.reverse()], selectedCount: selected.length };
}

/** Three outputs by two predicates, each in input order. */
export function threeWayReference<T extends Elem>(data: ArrayLike<T>, first: (x: T) => boolean, second: (x: T) => boolean): { first: T[]; second: T[]; unselected: T[] } {
  const r = { first: [] as T[], second: [] as T[], unselected: [] as T[] };
  for (let i = 0; i < data.length; i++) {
    const x = data[i]!;
    (first(x) ? r.first : second(x) ? r.second : r.unselected).push(x);
  }
  return r;
}

/** Indices of the first element of each run of equal neighbours. */
export function uniqueIndices<T extends Elem>(data: ArrayLike<T>, equal: (a: T, b: T) => boolean): number[] {
  const out: number[] = [];
  for (let i = 0; i < data.length; i++) if (i === 0 || !equal(data[i - 1]!, data[i]!)) out.push(i);
  return out;
}

export function uniqueReference<T extends Elem>(data: ArrayLike<T>, equal: (a: T, b: T) => boolean): T[] {
  return uniqueIndices(data, equal).map((i) => data[i]!);
}

/**
 * `selectReference` into a typed array of the input's kind: the demo checks 2^28 elements,
 * past what a JS array holds (about 2^27).
 */
export function selectTyped<A extends Uint32Array | Float32Array>(data: A, keep: (x: number, i: number) => boolean): A {
  const out = new (data.constructor as new (n: number) => A)(data.length);
  let n = 0;
  for (let i = 0; i < data.length; i++) if (keep(data[i]!, i)) out[n++] = data[i]!;
  return out.subarray(0, n) as A;
}

/** `uniqueReference` into a typed array of the input's kind (as `selectTyped`). */
export function uniqueTyped<A extends Uint32Array | Float32Array>(data: A, equal: (a: number, b: number) => boolean): A {
  return selectTyped(data, (x, i) => i === 0 || !equal(data[i - 1]!, x));
}
