// CPU references of reduce by key and run-length encode (tests, the demo); runs come from
// heads (src/device/scan-by-key/reference.ts: runHeads).
import { type ElementType } from '../../wgsl/types.js';
import { type Value, valueAt } from '../reference.js';

/** The start of each run and its length. */
export function runsOf(heads: readonly boolean[]): { starts: number[]; lengths: number[] } {
  const starts: number[] = [];
  heads.forEach((h, i) => { if (h) starts.push(i); });
  const lengths = starts.map((s, j) => (j + 1 < starts.length ? starts[j + 1]! : heads.length) - s);
  return { starts, lengths };
}

/** Each run's first key and its values folded in order by `op`. */
export function reduceByKeyReference(keyType: ElementType, valueType: ElementType, keys: ArrayLike<Value>, values: ArrayLike<Value>, heads: readonly boolean[],
  op: (a: Value, b: Value) => Value): { keys: Value[]; values: Value[] } {
  const { starts, lengths } = runsOf(heads);
  return {
    keys: starts.map((s) => valueAt(keyType, keys, s)),
    values: starts.map((s, j) => {
      let acc = valueAt(valueType, values, s);
      for (let i = s + 1; i < s + lengths[j]!; i++) acc = op(acc, valueAt(valueType, values, i));
      return acc;
    }),
  };
}

/** Offsets and lengths of the runs longer than one. */
export function nonTrivialRunsReference(heads: readonly boolean[]): { offsets: number[]; lengths: number[] } {
  const { starts, lengths } = runsOf(heads);
  const keep = starts.map((_, j) => lengths[j]! > 1);
  return { offsets: starts.filter((_, j) => keep[j]), lengths: lengths.filter((_, j) => keep[j]) };
}
