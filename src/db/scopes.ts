import type { DeleteQueryBuilder, Selectable, SelectQueryBuilder, UpdateQueryBuilder } from 'kysely';
import type { Environment } from './schema.js';

/**
 * Whose a row is: an organization in one environment (the shape of the `Owner` of src/shared/owner.ts,
 * taken structurally so that this layer stays below it).
 */
export interface OwnerKey {
  organizationId: string;
  environment: Environment;
}

/** The rows of `Alias` (of every table of the query without one) that a select, an update or a delete reads. */
type RowsOf<Query, Alias extends string> =
  Query extends SelectQueryBuilder<infer D, infer TB, infer _O>
    ? RowsIn<D, TB, Alias>
    : Query extends UpdateQueryBuilder<infer D, infer _UT, infer TB, infer _O>
      ? RowsIn<D, TB, Alias>
      : Query extends DeleteQueryBuilder<infer D, infer TB, infer _O>
        ? RowsIn<D, TB, Alias>
        : never;
type RowsIn<D, TB extends keyof D, Alias extends string> = [Alias] extends [never]
  ? D[TB]
  : Alias extends TB
    ? D[Alias]
    : never;

/** `unknown` for a query on a table keyed by owner; a type no query has, naming the fault, otherwise. */
type OnOwnedTable<Query, Alias extends string> = [RowsOf<Query, Alias>] extends [never]
  ? { error: 'not a select, an update or a delete (of that alias)' }
  : Selectable<RowsOf<Query, Alias>> extends { organization_id: string; environment: Environment }
    ? unknown
    : { error: 'the table has no organization_id and environment' };

/** What `ownedBy` and `filteredBy` call of a query: the `where` of every Kysely builder. */
interface ColumnWhere {
  where(column: string, operator: '=', value: unknown): ColumnWhere;
}

/**
 * `organization_id = ? AND environment = ?` (of the table `alias` when given), for
 * `.$call(ownedBy(owner))` on a select, an update or a delete of a table keyed by owner: the same two
 * conditions, in the same place, as the two `where` calls it stands for.
 */
export function ownedBy<Alias extends string = never>(owner: OwnerKey, alias?: Alias) {
  const prefix = alias === undefined ? '' : `${alias}.`;
  return <Query>(query: Query & OnOwnedTable<Query, Alias>): Query =>
    (query as unknown as ColumnWhere)
      .where(`${prefix}organization_id`, '=', owner.organizationId)
      .where(`${prefix}environment`, '=', owner.environment) as unknown as Query;
}

/** The owner's key columns, as a row's values (a `RowMatch` of src/db/rows.ts, an insert). */
export function ownerColumns(owner: OwnerKey): { organization_id: string; environment: Environment } {
  return { organization_id: owner.organizationId, environment: owner.environment };
}

/** `unknown` where every key of `Filter` is a column of the query's rows, of its type; otherwise a fault. */
type FitsRows<Query, Filter> =
  Filter extends Partial<Selectable<RowsOf<Query, never>>>
    ? unknown
    : { error: 'a filter key is not a column of the table, or its value not of the column type' };

/**
 * `column = value` for each column of `filter` whose value is defined, in the object's order (a list's
 * optional filters), for `.$call(filteredBy(filter))` on a select, an update or a delete.
 */
export function filteredBy<Filter extends Record<string, unknown>>(filter: Filter) {
  return <Query>(query: Query & FitsRows<Query, Filter>): Query => {
    let filtered = query as unknown as ColumnWhere;
    for (const [column, value] of Object.entries(filter)) {
      if (value !== undefined) filtered = filtered.where(column, '=', value);
    }
    return filtered as unknown as Query;
  };
}
