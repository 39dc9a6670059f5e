import { type DeviceContext } from '../runtime/context.js';
import { type ElementType, type TypeClass, typeClassOf } from '../wgsl/types.js';
import { selectConfig, withOverride } from '../config/select.js';
import { type SelectedConfig, type TunedEntry } from '../config/types.js';
import { type ConfigTable, type ValueBytes } from './spec.js';

/**
 * The config a call of `table` takes on this device: the most specific row of `rows` that can
 * run here, else the table's heuristic; a caller's partial config merged over it and checked.
 * Rows of a table with value classes are matched on the call's value size too. A table with a
 * `fallback` takes, where none of its rows match, the fallback's selection from `fallbackRows`
 * (default: its built-in rows), source and row included. `callClass`, where given, is the class
 * rows are matched on in place of the type's (histograms: the sample's size and channels).
 */
export function selectFromTable<C>(
  ctx: DeviceContext,
  table: ConfigTable<C>,
  rows: readonly (readonly TunedEntry<C>[])[],
  type: ElementType,
  valueBytes: ValueBytes = 0,
  override?: Partial<C>,
  fallbackRows?: readonly (readonly TunedEntry<C>[])[],
  callClass?: TypeClass,
): SelectedConfig<C> {
  const key = table.keyInfo(type);
  const typeClass = callClass ?? table.callClass?.(type, valueBytes) ?? (table.valueClasses ? { ...typeClassOf(type), valueBytes } : typeClassOf(type));
  const problem = (c: C): string | undefined => table.problem(ctx, key, valueBytes, c);
  let selected = selectConfig(rows, ctx.target, typeClass, problem, () => table.heuristic(ctx, key, valueBytes));
  const fallback = table.fallback;
  if (fallback && selected.source === 'heuristic') selected = selectFromTable(ctx, fallback, fallbackRows ?? [fallback.builtin], type, valueBytes, undefined, undefined, callClass);
  return withOverride(table.name, selected, problem, override);
}
