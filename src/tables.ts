// The tuned tables of the registered algorithms: their specs by name and the table functions of
// config/tables.ts bound to them. Browser-safe.
import { type TunedEntry } from './config/types.js';
import { configKeyOf, normalizeTables, type TableSpec, type TunedTableFile, validateRow } from './config/tables.js';
import { type ConfigTable } from './device/spec.js';
import { TABLES, type TunedAlgorithm, type TunedTables } from './algorithms.js';

export { isTunedAlgorithm, TUNED_ALGORITHMS, type TunedAlgorithm, type TunedTables } from './algorithms.js';
export {
  TUNED_TABLE_FORMAT, TUNED_TABLE_FORMAT_VERSION, type TunedTableFile, isTunedTableFile, tableFile, normId, targetKey, typeClassKey, rowKey,
} from './config/tables.js';

/** A registered table with what validation reads (`fields`: its space and untimed fields). */
export type RegisteredTable = ConfigTable<unknown, TunedAlgorithm> & TableSpec & { readonly algorithm: TunedAlgorithm };

export const TABLE_SPECS: Readonly<Record<TunedAlgorithm, RegisteredTable>> = Object.fromEntries(
  TABLES.map((t) => [t.name, { ...t, algorithm: t.name, fields: { ...t.space, ...t.untimedSpace } }]),
) as Record<TunedAlgorithm, RegisteredTable>;

/** What `createPrim(device, { tuned })` accepts: tables by name, parsed table JSON files, or a list of either. */
export type TunedInput = TunedTables | TunedTableFile | readonly (TunedTables | TunedTableFile)[];

/**
 * Validates tuned tables given at run time and returns them as one `TunedTables`: a malformed
 * row throws `invalid-argument` naming the row and field.
 */
export function normalizeTunedInput(input: unknown, name = 'tuned'): TunedTables {
  return normalizeTables(input, name, Object.values(TABLE_SPECS)) as TunedTables;
}

/** Checks one row of `algorithm`'s table (see `validateRow`). */
export function validateTunedEntry<C>(algorithm: TunedAlgorithm, row: unknown, where: string): TunedEntry<C> {
  return validateRow<C>(TABLE_SPECS[algorithm], row, where);
}

/** A config's fields in the table's order, as JSON: equal configs give equal keys. */
export function configKey(algorithm: TunedAlgorithm, config: unknown): string {
  return configKeyOf(TABLE_SPECS[algorithm], config);
}
