// CPU references of the find family: what the tests and the demo check against. Each returns a
// position, or `data.length` when there is none, as the GPU calls do.
export type Elem = number | bigint;
export type Equal<T> = (a: T, b: T) => boolean;

/** Default equality of the GPU calls on plain values: `===` (NaN equals nothing, -0 equals +0). */
export const sameValue = <T extends Elem>(a: T, b: T): boolean => a === b;

export function adjacentFindReference<T extends Elem>(data: ArrayLike<T>, eq: Equal<T> = sameValue): number {
  for (let i = 0; i + 1 < data.length; i++) if (eq(data[i]!, data[i + 1]!)) return i;
  return data.length;
}

export function findFirstOfReference<T extends Elem>(data: ArrayLike<T>, targets: ArrayLike<T>, eq: Equal<T> = sameValue): number {
  for (let i = 0; i < data.length; i++) for (let k = 0; k < targets.length; k++) if (eq(data[i]!, targets[k]!)) return i;
  return data.length;
}

const occursAt = <T extends Elem>(data: ArrayLike<T>, pattern: ArrayLike<T>, i: number, eq: Equal<T>): boolean => {
  for (let k = 0; k < pattern.length; k++) if (!eq(data[i + k]!, pattern[k]!)) return false;
  return true;
};

/** std::search: an empty pattern occurs at 0. */
export function searchReference<T extends Elem>(data: ArrayLike<T>, pattern: ArrayLike<T>, eq: Equal<T> = sameValue): number {
  for (let i = 0; i + pattern.length <= data.length; i++) if (occursAt(data, pattern, i, eq)) return i;
  return data.length;
}

/** std::find_end: the last occurrence; an empty pattern gives `data.length`. */
export function findEndReference<T extends Elem>(data: ArrayLike<T>, pattern: ArrayLike<T>, eq: Equal<T> = sameValue): number {
  if (pattern.length === 0) return data.length;
  for (let i = data.length - pattern.length; i >= 0; i--) if (occursAt(data, pattern, i, eq)) return i;
  return data.length;
}

/** std::search_n: n = 0 matches at 0. */
export function searchNReference<T extends Elem>(data: ArrayLike<T>, n: number, value: T, eq: Equal<T> = sameValue): number {
  if (n === 0) return 0;
  let run = 0;
  for (let i = 0; i < data.length; i++) {
    run = eq(data[i]!, value) ? run + 1 : 0;
    if (run === n) return i - n + 1;
  }
  return data.length;
}
