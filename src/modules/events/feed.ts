import type { Kdb } from '../../db/database.js';
import type { Environment } from '../../db/schema.js';
import { cursorPage } from '../../shared/cursor-page.js';
import { olderThan, type Cursor, type CursorCodec } from '../../shared/pagination.js';
import { err, ok, type Result } from '../../shared/result.js';
import type { EventError } from './errors.js';
import type { EventPayload, EventType } from './service.js';

export interface EventFeed {
  list(
    owner: { organizationId: string; environment: Environment },
    query: { limit: number; cursor?: string; type?: EventType },
  ): Promise<Result<{ data: EventPayload[]; nextCursor: string | null }, EventError>>;
  get(
    owner: { organizationId: string; environment: Environment },
    id: string,
  ): Promise<Result<EventPayload, EventError>>;
}

/** The events feed (flag `events`): the stored payloads, exactly as webhooks carry them. */
export function createEventFeed(deps: { db: Kdb; cursors: CursorCodec }): EventFeed {
  const { db, cursors } = deps;
  return {
    async list(owner, { limit, cursor, type }) {
      const rows = async (after: Cursor | undefined) => {
        let query = db
          .selectFrom('events')
          .select(['id', 'payload', 'created_at'])
          .where('organization_id', '=', owner.organizationId)
          .where('environment', '=', owner.environment);
        if (type !== undefined) query = query.where('type', '=', type);
        if (after) query = query.where(olderThan(after));
        return query
          .orderBy('created_at', 'desc')
          .orderBy('id', 'desc')
          .limit(limit + 1)
          .execute();
      };
      return cursorPage(cursors, {
        list: 'events',
        owner,
        filter: type ?? null,
        query: { limit, cursor },
        rows,
        view: (page) => page.map((row) => row.payload as unknown as EventPayload),
      });
    },
    async get(owner, id) {
      const row = await db
        .selectFrom('events')
        .select('payload')
        .where('id', '=', id)
        .where('organization_id', '=', owner.organizationId)
        .where('environment', '=', owner.environment)
        .executeTakeFirst();
      return row ? ok(row.payload as unknown as EventPayload) : err({ code: 'not_found' });
    },
  };
}
