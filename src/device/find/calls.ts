// The five public calls of the scanner: what each takes, and which match rule, order and table
// it maps to.
import { fail } from '../../runtime/errors.js';
import { type ElementType } from '../../wgsl/types.js';
import { type FindConfig } from './config.js';
import { type FindCall } from './find.js';
import { adjacentFindTable, findFirstOfTable, searchNTable, searchTable } from './table.js';
import { checkArgs } from '../common.js';

interface FindArgsBase {
  readonly input: GPUBuffer;
  readonly count: number;
  readonly type: ElementType;
  /** Receives the position found as one `u32` (`count` when there is none). */
  readonly output: GPUBuffer;
  /**
   * WGSL expression over `a` and `b` that evaluates to bool: whether two elements are equal
   * (`a` the input's). Default: bitwise for integers, `==` for floats (NaN equals nothing).
   */
  readonly equality?: string;
  readonly config?: Partial<FindConfig>;
}

/** The first `i` with `input[i]` equal to `input[i + 1]`. */
export type AdjacentFindArgs = FindArgsBase;

/** The first `i` with `input[i]` equal to any of `targets[0..targetCount)`. */
export interface FindFirstOfArgs extends FindArgsBase {
  readonly targets: GPUBuffer;
  readonly targetCount: number;
}

/** Where `pattern[0..patternCount)` occurs: first (search) or last (findEnd). */
export interface SearchArgs extends FindArgsBase {
  readonly pattern: GPUBuffer;
  readonly patternCount: number;
}

/** The first run of `n` elements equal to `value`. */
export interface SearchNArgs extends FindArgsBase {
  readonly n: number;
  /** A number (bigint or safe integer for 64-bit types; an f16 as its number). */
  readonly value: number | bigint;
}


const base = (what: string, a: FindArgsBase) => ({ what, input: a.input, count: a.count, type: a.type, output: a.output, equality: a.equality, config: a.config });

export function adjacentFindCall(args: AdjacentFindArgs): FindCall {
  checkArgs('adjacentFind', args, 'input, count, type, output, equality?');
  return { ...base('adjacentFind', args), table: adjacentFindTable, kind: 'adjacent', order: 'first' };
}

export function findFirstOfCall(args: FindFirstOfArgs): FindCall {
  checkArgs('findFirstOf', args, 'input, count, targets, targetCount, type, output, equality?');
  return { ...base('findFirstOf', args), table: findFirstOfTable, kind: 'first-of', order: 'first', aux: args.targets, auxName: 'targetCount', auxCount: args.targetCount };
}

export function searchCall(args: SearchArgs, last = false): FindCall {
  const what = last ? 'findEnd' : 'search';
  checkArgs(what, args, 'input, count, pattern, patternCount, type, output, equality?');
  return { ...base(what, args), table: searchTable, kind: 'search', order: last ? 'last' : 'first', aux: args.pattern, auxName: 'patternCount', auxCount: args.patternCount };
}

export function searchNCall(args: SearchNArgs): FindCall {
  checkArgs('searchN', args, 'input, count, n, value, type, output, equality?');
  if (args.value === undefined) fail('invalid-argument', 'searchN needs `value`: the element a run repeats');
  return { ...base('searchN', args), table: searchNTable, kind: 'run', order: 'first', auxName: 'n', auxCount: args.n, value: args.value };
}
