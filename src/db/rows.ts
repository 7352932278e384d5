import type { Kysely, Selectable } from 'kysely';
import type { Kdb, Trx } from './database.js';
import type { DB } from './schema.js';

/**
 * Values of some columns of a row of `T`: the row whose columns have them, each compared with `=` (`is`
 * for null), in the object's order.
 */
export type RowMatch<T extends keyof DB> = { [C in keyof Selectable<DB[T]>]?: Selectable<DB[T]>[C] };

function selectMatching<T extends keyof DB & string>(db: Kdb, table: T, match: RowMatch<T>) {
  // Kysely cannot check a statement on a table named by a type parameter: `RowMatch` stands for it.
  let query = (db as unknown as Kysely<Record<string, Record<string, unknown>>>)
    .selectFrom(table as string)
    .selectAll();
  for (const [column, value] of Object.entries(match)) {
    query = query.where(column, value === null ? 'is' : '=', value);
  }
  return query;
}

/** The row of `table` that `match` names (the first one read, where several match), or undefined. */
export async function findOne<T extends keyof DB & string>(
  db: Kdb,
  table: T,
  match: RowMatch<T>,
): Promise<Selectable<DB[T]> | undefined> {
  return (await selectMatching(db, table, match).executeTakeFirst()) as Selectable<DB[T]> | undefined;
}

/** Every row of `table` that `match` names, in `orderBy` order (ascending). */
export async function findAll<T extends keyof DB & string>(
  db: Kdb,
  table: T,
  match: RowMatch<T>,
  orderBy: ReadonlyArray<keyof Selectable<DB[T]> & string>,
): Promise<Selectable<DB[T]>[]> {
  let query = selectMatching(db, table, match);
  for (const column of orderBy) query = query.orderBy(column);
  return (await query.execute()) as Selectable<DB[T]>[];
}

/** The same as `findOne`, under its row lock until the caller's transaction ends. */
export async function lockOne<T extends keyof DB & string>(
  trx: Trx,
  table: T,
  match: RowMatch<T>,
): Promise<Selectable<DB[T]> | undefined> {
  return (await selectMatching(trx, table, match).forUpdate().executeTakeFirst()) as
    Selectable<DB[T]> | undefined;
}
