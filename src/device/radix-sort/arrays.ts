// The radix sort's array-level calls: typed arrays in, sorted typed arrays out.
import { fail } from '../../runtime/errors.js';
import { arrayOfType, type PrimTypedArray, typeOfArray } from '../typed-arrays.js';
import { type ArrayEnv, type ValueBytes } from '../spec.js';
import { type RadixSortConfig } from './config.js';
import { type RadixSortBlockSortConfig } from './block-sort-config.js';
import { radixBitRange, radixKeyInfo, type RadixSortKeyType } from './keys.js';
import { recordRadixSort } from './radix-sort.js';
import { radixSortBlockSortTable, radixSortTable } from './table.js';
import { scanTable } from '../scan/table.js';

export interface ArrayRadixSortOptions {
  /** Needed only for f16 keys (a Uint16Array of f16 bits). */
  readonly type?: 'f16';
  readonly descending?: boolean;
  /** Integer keys only: sort by bits [beginBit, endBit). */
  readonly beginBit?: number;
  readonly endBit?: number;
  /** The onesweep / LSD path's config (counts above the block sort's maxCount). */
  readonly config?: Partial<RadixSortConfig>;
  /** The small-size path's config (block sort + merge; `maxCount: 0` forces onesweep). */
  readonly blockSortConfig?: Partial<RadixSortBlockSortConfig>;
}

/** Values a pair sort moves: any 4- or 8-byte typed array. */
export type RadixSortValueArray = Uint32Array | Int32Array | Float32Array | BigUint64Array | BigInt64Array | Float64Array;

/** The checks of a sort's options made before anything is uploaded. */
export function radixPrecheck(env: ArrayEnv, keys: PrimTypedArray, options: ArrayRadixSortOptions, valueBytes: ValueBytes): RadixSortKeyType {
  env.context.assertAlive();
  if (!options || typeof options !== 'object') fail('invalid-argument', 'radix sort options must be an object');
  const type = typeOfArray(keys, options.type);
  const t = radixKeyInfo(type);
  radixBitRange(t, options.beginBit, options.endBit);
  if (options.descending !== undefined && typeof options.descending !== 'boolean') fail('invalid-argument', `descending must be a boolean, got ${String(options.descending)}`);
  if (options.config !== undefined) env.select(radixSortTable, type, valueBytes, options.config);
  if (options.blockSortConfig !== undefined) env.select(radixSortBlockSortTable, type, valueBytes, options.blockSortConfig);
  return type as RadixSortKeyType;
}

/** The value size of a pair sort's values, checked against the keys. */
export function pairValueBytes(name: string, keys: PrimTypedArray, values: RadixSortValueArray): 4 | 8 {
  const valueBytes = values?.BYTES_PER_ELEMENT;
  if (!ArrayBuffer.isView(values) || (valueBytes !== 4 && valueBytes !== 8)) fail('invalid-argument', `${name} values must be a typed array of 4- or 8-byte elements`);
  if (values.length !== keys.length) fail('invalid-argument', `${name}: ${keys.length} keys but ${values.length} values`);
  return valueBytes;
}

const record = (env: ArrayEnv, encoder: GPUCommandEncoder, args: Parameters<typeof recordRadixSort>[5], pairs: boolean): Promise<void> =>
  recordRadixSort(env.context, env.rows(radixSortTable), env.rows(radixSortBlockSortTable), env.rows(scanTable), encoder, args, pairs);

export function radixSortArrays(env: ArrayEnv) {
  return {
    /** A sorted copy of `keys` (u32, i32, f32, u64, i64; f16 bits in a Uint16Array with `{ type: 'f16' }`): stable, ascending unless `descending`. */
    async radixSortKeys<A extends PrimTypedArray>(keys: A, options: ArrayRadixSortOptions = {}): Promise<A> {
      const type = radixPrecheck(env, keys, options, 0);
      const buf = env.upload(keys);
      try {
        const [result] = await env.runAll([[buf, keys.byteLength]], (enc) =>
          record(env, enc, { keys: buf, count: keys.length, type, descending: options.descending, beginBit: options.beginBit, endBit: options.endBit, config: options.config, blockSortConfig: options.blockSortConfig }, false));
        return arrayOfType(type, result!, keys.length) as A;
      } finally {
        buf.destroy();
      }
    },
    /** Keys sorted as `radixSortKeys` does, and the values permuted with them. */
    async radixSortPairs<A extends PrimTypedArray, V extends RadixSortValueArray>(keys: A, values: V, options: ArrayRadixSortOptions = {}): Promise<{ keys: A; values: V }> {
      const valueBytes = pairValueBytes('radixSortPairs', keys, values);
      const type = radixPrecheck(env, keys, options, valueBytes);
      const kb = env.upload(keys);
      const vb = env.upload(values);
      try {
        const [k, v] = await env.runAll([[kb, keys.byteLength], [vb, values.byteLength]], (enc) =>
          record(env, enc, { keys: kb, values: vb, valueBytes, count: keys.length, type, descending: options.descending, beginBit: options.beginBit, endBit: options.endBit, config: options.config, blockSortConfig: options.blockSortConfig }, true));
        const Ctor = values.constructor as new (b: ArrayBuffer, o: number, n: number) => V;
        return { keys: arrayOfType(type, k!, keys.length) as A, values: new Ctor(v!, 0, values.length) };
      } finally {
        kb.destroy();
        vb.destroy();
      }
    },
  };
}
