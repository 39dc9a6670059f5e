// The six public calls of the compaction engine: what each takes, and which flag source,
// output layout and table it maps to.
import { fail } from '../../runtime/errors.js';
import { type ElementType } from '../../wgsl/types.js';
import { type ConfigTable } from '../spec.js';
import { type SelectConfig } from './config.js';
import { checkExpression, type CompactionCall } from './compaction.js';
import { type FlagBytes, type FlagSource } from './kernel.js';
import * as tables from './table.js';
import { checkArgs } from '../common.js';

interface FlaggedArgs {
  readonly input: GPUBuffer;
  readonly count: number;
  readonly type: ElementType;
  /** WGSL expression over `a` (the element; with `flags`, the flag) that evaluates to bool. */
  readonly predicate?: string;
  /** A flag per element, non-zero selects: a `u32` each, or with `flagBytes: 1` a byte each (four to a word, as a `Uint8Array` lays them out). */
  readonly flags?: GPUBuffer;
  /** Bytes a flag: 4 (the default) or 1; byte flags need the buffer to hold whole words (count rounded up to 4 bytes). */
  readonly flagBytes?: FlagBytes;
  readonly config?: Partial<SelectConfig>;
}

export interface SelectArgs extends FlaggedArgs {
  /** Receives the selected elements in input order (room for `count`). */
  readonly output: GPUBuffer;
  /** Receives the number selected, one `u32`. */
  readonly selectedCount: GPUBuffer;
}

/** Selected at the front in input order, rejected at the back in reverse order (CUB's layout). */
export type PartitionArgs = SelectArgs;

export interface PartitionTwoWayArgs extends FlaggedArgs {
  readonly selected: GPUBuffer;
  readonly rejected: GPUBuffer;
  readonly selectedCount: GPUBuffer;
}

export interface PartitionThreeWayArgs {
  readonly input: GPUBuffer;
  readonly count: number;
  readonly type: ElementType;
  /** Elements for which `firstPredicate` holds. */
  readonly first: GPUBuffer;
  /** Elements for which it does not and `secondPredicate` does. */
  readonly second: GPUBuffer;
  readonly unselected: GPUBuffer;
  /** Receives two `u32`: how many went to `first` and to `second`. */
  readonly counts: GPUBuffer;
  readonly firstPredicate: string;
  readonly secondPredicate: string;
  readonly config?: Partial<SelectConfig>;
}

export interface UniqueArgs {
  readonly input: GPUBuffer;
  readonly output: GPUBuffer;
  readonly count: number;
  readonly type: ElementType;
  readonly selectedCount: GPUBuffer;
  /** WGSL expression over `a` and `b`: whether two neighbours are equal (default: bitwise for integers, `==` for floats). */
  readonly equality?: string;
  readonly config?: Partial<SelectConfig>;
}

export interface UniqueByKeyArgs {
  readonly keys: GPUBuffer;
  readonly values: GPUBuffer;
  readonly keysOut: GPUBuffer;
  readonly valuesOut: GPUBuffer;
  readonly count: number;
  readonly type: ElementType;
  /** Bytes of one value: 4 or 8. */
  readonly valueBytes: 4 | 8;
  readonly selectedCount: GPUBuffer;
  readonly equality?: string;
  readonly config?: Partial<SelectConfig>;
}


/** The calls that take a predicate or flags, and their tables: by flag, by predicate, by predicate over flags. */
const FLAGGED = {
  select: [tables.selectFlagTable, tables.selectPredicateTable, tables.selectPredicatedFlagTable],
  partition: [tables.partitionFlagTable, tables.partitionPredicateTable, undefined],
  partitionTwoWay: [tables.partitionTwoWayFlagTable, tables.partitionTwoWayPredicateTable, undefined],
} as const;
export type FlaggedCall = keyof typeof FLAGGED;

/** Flag source and table of a flagged call: flags, a predicate, or (select) a predicate over flags. */
export function flaggedChoice(what: FlaggedCall, predicate: unknown, hasFlags: boolean): { source: FlagSource; table: ConfigTable<SelectConfig> } {
  const [byFlag, byPredicate, predicatedFlag] = FLAGGED[what];
  if (!hasFlags && predicate === undefined) fail('invalid-argument', `${what} needs \`predicate\` (a WGSL expression over a) or \`flags\` (a buffer of u32 flags, or of bytes with flagBytes: 1; non-zero selects)`);
  if (predicate !== undefined) checkExpression(what, 'predicate', predicate, 'a');
  if (hasFlags && predicate !== undefined) {
    if (!predicatedFlag) fail('invalid-argument', `${what} takes \`predicate\` or \`flags\`, not both`);
    return { source: 'predicated-flags', table: predicatedFlag };
  }
  return hasFlags ? { source: 'flags', table: byFlag } : { source: 'predicate', table: byPredicate };
}

export function selectCall(args: SelectArgs): CompactionCall {
  checkArgs('select', args, 'input, output, count, type, selectedCount, predicate? | flags?, flagBytes?');
  const { source, table } = flaggedChoice('select', args.predicate, args.flags !== undefined);
  return { what: 'select', table, source, layout: 'select', input: args.input, count: args.count, type: args.type, predicate: args.predicate, flags: args.flags, flagBytes: args.flagBytes,
    outputs: [['output', args.output]], counts: args.selectedCount, countsName: 'selectedCount', config: args.config };
}

export function partitionCall(args: PartitionArgs): CompactionCall {
  checkArgs('partition', args, 'input, output, count, type, selectedCount, predicate? | flags?, flagBytes?');
  const { source, table } = flaggedChoice('partition', args.predicate, args.flags !== undefined);
  return { what: 'partition', table, source, layout: 'partition', input: args.input, count: args.count, type: args.type, predicate: args.predicate, flags: args.flags, flagBytes: args.flagBytes,
    outputs: [['output', args.output]], counts: args.selectedCount, countsName: 'selectedCount', config: args.config };
}

export function partitionTwoWayCall(args: PartitionTwoWayArgs): CompactionCall {
  checkArgs('partitionTwoWay', args, 'input, selected, rejected, count, type, selectedCount, predicate? | flags?, flagBytes?');
  const { source, table } = flaggedChoice('partitionTwoWay', args.predicate, args.flags !== undefined);
  return { what: 'partitionTwoWay', table, source, layout: 'two-way', input: args.input, count: args.count, type: args.type, predicate: args.predicate, flags: args.flags, flagBytes: args.flagBytes,
    outputs: [['selected', args.selected], ['rejected', args.rejected]], counts: args.selectedCount, countsName: 'selectedCount', config: args.config };
}

export function partitionThreeWayCall(args: PartitionThreeWayArgs): CompactionCall {
  checkArgs('partitionThreeWay', args, 'input, first, second, unselected, count, type, counts, firstPredicate, secondPredicate');
  checkExpression('partitionThreeWay', 'firstPredicate', args.firstPredicate, 'a');
  checkExpression('partitionThreeWay', 'secondPredicate', args.secondPredicate, 'a');
  return { what: 'partitionThreeWay', table: tables.partitionThreeWayTable, source: 'three-way', layout: 'three-way', input: args.input, count: args.count, type: args.type,
    predicate: args.firstPredicate, second: args.secondPredicate,
    outputs: [['first', args.first], ['second', args.second], ['unselected', args.unselected]], counts: args.counts, countsName: 'counts', config: args.config };
}

export function uniqueCall(args: UniqueArgs): CompactionCall {
  checkArgs('unique', args, 'input, output, count, type, selectedCount, equality?');
  if (args.equality !== undefined) checkExpression('unique', 'equality', args.equality, 'a and b');
  return { what: 'unique', table: tables.selectUniqueTable, source: 'unique', layout: 'select', input: args.input, count: args.count, type: args.type, equality: args.equality,
    outputs: [['output', args.output]], counts: args.selectedCount, countsName: 'selectedCount', config: args.config };
}

export function uniqueByKeyCall(args: UniqueByKeyArgs): CompactionCall {
  checkArgs('uniqueByKey', args, 'keys, values, keysOut, valuesOut, count, type, valueBytes, selectedCount, equality?');
  if (args.valueBytes !== 4 && args.valueBytes !== 8) fail('invalid-argument', `uniqueByKey valueBytes must be 4 or 8, got ${String(args.valueBytes)}`);
  if (args.equality !== undefined) checkExpression('uniqueByKey', 'equality', args.equality, 'a and b');
  return { what: 'uniqueByKey', table: tables.selectUniqueByKeyTable, source: 'unique', layout: 'select', input: args.keys, count: args.count, type: args.type, equality: args.equality,
    values: args.values, valuesOut: args.valuesOut, valueBytes: args.valueBytes,
    outputs: [['keysOut', args.keysOut]], counts: args.selectedCount, countsName: 'selectedCount', config: args.config };
}
