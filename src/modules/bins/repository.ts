import { sql, type Selectable } from 'kysely';
import type { Kdb, Trx } from '../../db/database.js';
import type { CardBinsTable } from '../../db/schema.js';
import type { BinCsvRow } from './csv.js';
import type { BinListFilter } from './types.js';

export type BinRow = Selectable<CardBinsTable>;

/**
 * The row of the longest of `prefixes` (the first 8, 7 and 6 digits of a number): one statement, three
 * probes of the primary key.
 */
export function findLongest(db: Kdb, prefixes: readonly string[]): Promise<BinRow | undefined> {
  return db
    .selectFrom('card_bins')
    .selectAll()
    .where('prefix', 'in', [...prefixes])
    .orderBy(sql`char_length(prefix)`, 'desc')
    .limit(1)
    .executeTakeFirst();
}

export function findByPrefix(db: Kdb, prefix: string): Promise<BinRow | undefined> {
  return db.selectFrom('card_bins').selectAll().where('prefix', '=', prefix).executeTakeFirst();
}

/**
 * Rows in prefix order after `after` (a prefix), at most `limit`: those whose prefix begins with the
 * filter's digits (a range of the primary key, byte-ordered), of its country and scheme.
 */
export function list(
  db: Kdb,
  filter: BinListFilter,
  after: string | undefined,
  limit: number,
): Promise<BinRow[]> {
  let query = db.selectFrom('card_bins').selectAll();
  if (filter.prefix !== undefined) query = query.where('prefix', 'like', `${filter.prefix}%`);
  if (filter.country !== undefined) query = query.where('country', '=', filter.country);
  if (filter.scheme !== undefined) query = query.where('scheme', '=', filter.scheme);
  if (after !== undefined) query = query.where('prefix', '>', after);
  return query.orderBy('prefix').limit(limit).execute();
}

/** Rows per upsert statement: seven arrays of this many values each. */
const CHUNK = 5000;

/**
 * Inserts the rows, or updates the rows of their prefixes, in the caller's transaction; a row already
 * as given is left alone (its time and loader kept). Answers how many were inserted and updated.
 */
export async function upsert(
  trx: Trx,
  rows: readonly BinCsvRow[],
  by: string,
  now: Date,
): Promise<{ inserted: number; updated: number }> {
  let inserted = 0;
  let updated = 0;
  for (let start = 0; start < rows.length; start += CHUNK) {
    const chunk = rows.slice(start, start + CHUNK);
    const column = <K extends keyof BinCsvRow>(key: K) => chunk.map((row) => row[key]);
    const written = await sql<{ inserted: boolean }>`
      INSERT INTO card_bins (prefix, scheme, country, issuer, funding, category, programme, updated_at, updated_by)
      SELECT prefix, scheme, country, issuer, funding, category, programme, ${now}::timestamptz, ${by}
      FROM unnest(${column('prefix')}::text[], ${column('scheme')}::text[], ${column('country')}::text[],
        ${column('issuer')}::text[], ${column('funding')}::text[], ${column('category')}::text[],
        ${column('programme')}::text[]) AS given (prefix, scheme, country, issuer, funding, category, programme)
      ON CONFLICT (prefix) DO UPDATE SET
        scheme = excluded.scheme, country = excluded.country, issuer = excluded.issuer,
        funding = excluded.funding, category = excluded.category, programme = excluded.programme,
        updated_at = excluded.updated_at, updated_by = excluded.updated_by
      WHERE (card_bins.scheme, card_bins.country, card_bins.issuer, card_bins.funding, card_bins.category,
        card_bins.programme) IS DISTINCT FROM (excluded.scheme, excluded.country, excluded.issuer,
        excluded.funding, excluded.category, excluded.programme)
      RETURNING (xmax = 0) AS inserted`.execute(trx);
    for (const row of written.rows) {
      if (row.inserted) inserted++;
      else updated++;
    }
  }
  return { inserted, updated };
}
