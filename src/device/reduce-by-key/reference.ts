// CPU references of reduce by key and run-length encode (tests, the demo); runs come from
// heads (src/device/scan-by-key/reference.ts: runHeads). Typed results: the demo checks 2^28
// elements, past what a JS array holds.
import { type ElementType } from '../../wgsl/types.js';
import { type Value, type ValueArray, valueArray, valueAt } from '../reference.js';
import { type Heads } from '../scan-by-key/reference.js';

/** The start of each run and its length. */
export function runsOf(heads: Heads): { starts: Uint32Array; lengths: Uint32Array } {
  let runs = 0;
  for (let i = 0; i < heads.length; i++) if (heads[i]) runs++;
  const starts = new Uint32Array(runs);
  const lengths = new Uint32Array(runs);
  for (let i = 0, j = 0; i < heads.length; i++) if (heads[i]) starts[j++] = i;
  for (let j = 0; j < runs; j++) lengths[j] = (j + 1 < runs ? starts[j + 1]! : heads.length) - starts[j]!;
  return { starts, lengths };
}

/** Each run's first key and its values folded in order by `op`. */
export function reduceByKeyReference(keyType: ElementType, valueType: ElementType, keys: ArrayLike<Value>, values: ArrayLike<Value>, heads: Heads,
  op: (a: Value, b: Value) => Value): { keys: ValueArray; values: ValueArray } {
  const { starts, lengths } = runsOf(heads);
  const outKeys = valueArray(keyType, starts.length);
  const outValues = valueArray(valueType, starts.length);
  const k = outKeys as unknown as { [i: number]: Value };
  const v = outValues as unknown as { [i: number]: Value };
  for (let j = 0; j < starts.length; j++) {
    const s = starts[j]!;
    k[j] = valueAt(keyType, keys, s);
    let acc = valueAt(valueType, values, s);
    for (let i = s + 1; i < s + lengths[j]!; i++) acc = op(acc, valueAt(valueType, values, i));
    v[j] = acc;
  }
  return { keys: outKeys, values: outValues };
}

/** Offsets and lengths of the runs longer than one. */
export function nonTrivialRunsReference(heads: Heads): { offsets: Uint32Array; lengths: Uint32Array } {
  const { starts, lengths } = runsOf(heads);
  let m = 0;
  for (let j = 0; j < lengths.length; j++) if (lengths[j]! > 1) m++;
  const offsets = new Uint32Array(m);
  const long = new Uint32Array(m);
  for (let j = 0, t = 0; j < lengths.length; j++) {
    if (lengths[j]! > 1) {
      offsets[t] = starts[j]!;
      long[t++] = lengths[j]!;
    }
  }
  return { offsets, lengths: long };
}
