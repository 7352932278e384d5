import type { Environment } from '../db/schema.js';
import {
  toPage,
  type CreatedWindow,
  type Cursor,
  type CursorCodec,
  type CursorError,
  type CursorList,
} from './pagination.js';
import { ok, type Result } from './result.js';

/** A page of a merchant API list (spec section 4): newest first, and the cursor of the next page. */
export interface Page<View> {
  data: View[];
  nextCursor: string | null;
}

/** What one page of an owner's list is read with. */
export interface PageRead<Row, View> {
  list: CursorList;
  /**
   * Whose list it is: a cursor issued for another organization or environment is refused. None: an
   * operator's list across organizations.
   */
  owner?: { organizationId: string; environment: Environment };
  /** The list's other filters, which a cursor must come back with (none: null or left out). */
  filter?: string | null | undefined;
  query: { limit: number; cursor?: string | undefined };
  /**
   * The rows after `after` (the first page: undefined), newest first, one more than `limit` of them:
   * the extra row only says that another page follows.
   */
  rows: (after: Cursor | undefined) => Promise<Row[]>;
  /** What the page shows of its rows. */
  view: (rows: Row[]) => View[] | Promise<View[]>;
}

/**
 * One page of a list whose rows are ordered by (`created_at`, `id`), newest first: the query's cursor
 * checked against the list, its owner and filter (another's is `invalid_cursor`), and the next page's
 * cursor made from the page's last row.
 */
export function cursorPage<Row extends { created_at: Date; id: string }, View>(
  cursors: CursorCodec,
  read: PageRead<Row, View>,
): Promise<Result<Page<View>, CursorError>> {
  return cursorPageBy(cursors, read, (row) => [row.created_at, row.id]);
}

/** `cursorPage` for rows whose position in the list `positionOf` says (its time and id). */
export async function cursorPageBy<Row, View>(
  cursors: CursorCodec,
  read: PageRead<Row, View>,
  positionOf: (row: Row) => [Date, string],
): Promise<Result<Page<View>, CursorError>> {
  const { owner, query } = read;
  const pages = cursors.for({
    list: read.list,
    organizationId: owner?.organizationId ?? null,
    environment: owner?.environment ?? null,
    filter: read.filter ?? null,
  });
  const after = query.cursor === undefined ? undefined : pages.decode(query.cursor);
  if (after && !after.ok) return after;
  const page = toPage(await read.rows(after?.value), query.limit, (row) => pages.encode(...positionOf(row)));
  return ok({ data: await read.view(page.data), nextCursor: page.nextCursor });
}

/**
 * What one page of an export is read with: the window of creation times, the (createdAt, id) of the
 * previous page's last row (the first page: undefined), and at most how many rows, oldest first.
 */
export type CreatedPage = [window: CreatedWindow, after: Cursor | undefined, limit: number];
