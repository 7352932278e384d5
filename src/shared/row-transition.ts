import type { Kysely, Selectable, Updateable } from 'kysely';
import type { Kdb } from '../db/database.js';
import type { DB } from '../db/schema.js';
import { assertAllowed, type Transitions } from './state-machine.js';

/** The columns of a table that hold a state (a union of strings). */
type StateColumn<T extends keyof DB> = {
  [C in keyof Selectable<DB[T]>]: Selectable<DB[T]>[C] extends string ? C : never;
}[keyof Selectable<DB[T]>] &
  string;

/**
 * A repository's `transition` (docs/decisions/0022-state-machines.md): moves `column` of the row `id`
 * from one of `from` to `to` with `patch`, in one statement; undefined when the row was in none of
 * `from`. A move `transitions` does not allow throws before anything is sent.
 */
export type RowTransition<Handle, State extends string, Patch, Row> = (
  db: Handle,
  id: string,
  from: readonly State[],
  to: State,
  patch?: Patch,
) => Promise<Row | undefined>;

/**
 * The `transition` of `column` in `table`: `UPDATE table SET …patch, column = to WHERE id = … AND
 * column IN (…from) RETURNING *`. `what` names the row in the error of a move not allowed. The repository
 * gives the result its own type (which handle, which patch), narrower than this one.
 */
export function rowTransition<
  T extends keyof DB & string,
  C extends StateColumn<T>,
  State extends Selectable<DB[T]>[C] & string,
>(
  table: T,
  column: C,
  transitions: Transitions<State>,
  what: (id: string) => string,
): RowTransition<Kdb, State, Omit<Updateable<DB[T]>, 'id' | C>, Selectable<DB[T]>> {
  return async (db, id, from, to, patch) => {
    assertAllowed(transitions, from, to, what(id));
    // Kysely cannot check a statement on a table named by a type parameter: the types above stand for it.
    return (db as unknown as Kysely<Record<string, Record<string, unknown>>>)
      .updateTable(table as string)
      .set({ ...patch, [column]: to })
      .where('id', '=', id)
      .where(column as string, 'in', [...from])
      .returningAll()
      .executeTakeFirst() as Promise<Selectable<DB[T]> | undefined>;
  };
}
