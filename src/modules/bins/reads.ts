import { cursorPageBy, type Page } from '../../shared/cursor-page.js';
import type { Cursor, CursorError } from '../../shared/pagination.js';
import { err, ok, type Result } from '../../shared/result.js';
import type { BinDeps } from './deps.js';
import type { BinError } from './errors.js';
import * as bins from './repository.js';
import type { BinListFilter, BinRowView } from './types.js';

/**
 * The list pages in prefix order. The cursor codec signs a (time, id) position; a row's position is its
 * prefix alone, so the time is fixed and the id is `bin_<prefix>`.
 */
const NO_TIME = new Date(0);
const positionOf = (row: bins.BinRow): [Date, string] => [NO_TIME, `bin_${row.prefix}`];
const prefixAfter = (cursor: Cursor | undefined) =>
  cursor === undefined ? undefined : cursor.id.slice('bin_'.length);

export function binRowView(row: bins.BinRow): BinRowView {
  return {
    prefix: row.prefix,
    scheme: row.scheme,
    country: row.country,
    issuer: row.issuer,
    funding: row.funding,
    category: row.category,
    programme: row.programme,
    updatedAt: row.updated_at.toISOString(),
    updatedBy: row.updated_by,
  };
}

/** A page of the table's rows in prefix order, filtered; a cursor is bound to its filter. */
export function listBins(
  deps: BinDeps,
  filter: BinListFilter,
  page: { limit: number; cursor?: string | undefined },
): Promise<Result<Page<BinRowView>, CursorError>> {
  const given = { prefix: filter.prefix, country: filter.country, scheme: filter.scheme };
  return cursorPageBy(
    deps.cursors,
    {
      list: 'bins',
      filter: JSON.stringify([given.prefix ?? null, given.country ?? null, given.scheme ?? null]),
      query: page,
      rows: (after) => bins.list(deps.db, given, prefixAfter(after), page.limit + 1),
      view: (rows) => rows.map(binRowView),
    },
    positionOf,
  );
}

/** The row of exactly this prefix. */
export async function getBin(deps: BinDeps, prefix: string): Promise<Result<BinRowView, BinError>> {
  const row = await bins.findByPrefix(deps.db, prefix);
  return row ? ok(binRowView(row)) : err({ code: 'bin_not_found' });
}
