import type { Kysely, Selectable } from 'kysely';
import type { Kdb } from './database.js';
import type { DB } from './schema.js';

/** A charge or refund as reconciliation against an acquirer's report matches it. */
export interface RowAtAcquirer {
  id: string;
  organizationId: string;
  status: string;
  /** The acquirer's id of it (a payment id, a refund id). */
  providerId: string | null;
}

/** A module's lookups for reconciliation: by our ids, and by the acquirer's ids within one `Scope`. */
export interface AcquirerLookup<Scope> {
  byIds(ids: readonly string[]): Promise<RowAtAcquirer[]>;
  byProviderIds(scope: Scope, providerIds: readonly string[]): Promise<RowAtAcquirer[]>;
}

type Column<T extends keyof DB> = keyof Selectable<DB[T]> & string;

/**
 * The lookups of `table`, whose `providerId` column holds the acquirer's id, unique within one value of
 * `scope` (the acquirer, an environment). An empty list of ids reads nothing.
 */
export function acquirerLookup<T extends keyof DB & string, Scope extends Column<T>>(
  db: Kdb,
  table: T,
  columns: { providerId: Column<T>; scope: Scope },
): AcquirerLookup<Selectable<DB[T]>[Scope]> {
  // Kysely cannot check a statement on a table named by a type parameter: `Column` stands for it.
  const providerId: string = columns.providerId;
  const scopeColumn: string = columns.scope;
  const select = () =>
    (db as unknown as Kysely<Record<string, Record<string, string | null>>>)
      .selectFrom(table as string)
      .select(['id', 'organization_id as organizationId', 'status', `${providerId} as providerId`]);
  const read = async (rows: ReturnType<typeof select>) =>
    (await rows.execute()) as unknown as RowAtAcquirer[];
  return {
    byIds: async (ids) => (ids.length === 0 ? [] : read(select().where('id', 'in', [...ids]))),
    byProviderIds: async (scope, providerIds) =>
      providerIds.length === 0
        ? []
        : read(
            select()
              .where(scopeColumn, '=', scope as string)
              .where(providerId, 'in', [...providerIds]),
          ),
  };
}
