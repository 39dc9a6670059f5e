import { type DeviceContext } from '../runtime/context.js';
import { type ElementType, typeClassOf } from '../wgsl/types.js';
import { selectWithOverride } from '../config/select.js';
import { type SelectedConfig, type TunedEntry } from '../config/types.js';
import { type ConfigTable, type ValueBytes } from './spec.js';

/**
 * The config a call of `table` takes on this device: the most specific row of `rows` that can
 * run here, else the table's heuristic; a caller's partial config merged over it and checked.
 * Rows of a table with value classes are matched on the call's value size too.
 */
export function selectFromTable<C>(
  ctx: DeviceContext,
  table: ConfigTable<C>,
  rows: readonly (readonly TunedEntry<C>[])[],
  type: ElementType,
  valueBytes: ValueBytes = 0,
  override?: Partial<C>,
): SelectedConfig<C> {
  const key = table.keyInfo(type);
  const typeClass = table.valueClasses ? { ...typeClassOf(type), valueBytes } : typeClassOf(type);
  return selectWithOverride(table.name, rows, ctx.target, typeClass, (c) => table.problem(ctx, key, valueBytes, c), () => table.heuristic(ctx, key, valueBytes), override);
}
