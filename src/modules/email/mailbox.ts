import type { Selectable } from 'kysely';
import type { EmailsTable } from '../../db/schema.js';
import type { EmailServiceDeps } from './deps.js';

export interface StoredEmail {
  id: string;
  to: string;
  subject: string;
  template: string;
  status: Selectable<EmailsTable>['status'];
  attempts: number;
  lastError: string | null;
  createdAt: string;
  sentAt: string | null;
}

const toStored = (row: Selectable<EmailsTable>): StoredEmail => ({
  id: row.id,
  to: row.to_address,
  subject: row.subject,
  template: row.template,
  status: row.status,
  attempts: row.attempts,
  lastError: row.last_error,
  createdAt: row.created_at.toISOString(),
  sentAt: row.sent_at?.toISOString() ?? null,
});

/** The outbox and dev mailbox, newest first. */
export async function listEmails(
  deps: Pick<EmailServiceDeps, 'db'>,
  { limit, before }: { limit: number; before?: { createdAt: Date; id: string } },
): Promise<StoredEmail[]> {
  let query = deps.db
    .selectFrom('emails')
    .selectAll()
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit);
  if (before) {
    query = query.where((eb) =>
      eb.or([
        eb('created_at', '<', before.createdAt),
        eb.and([eb('created_at', '=', before.createdAt), eb('id', '<', before.id)]),
      ]),
    );
  }
  return (await query.execute()).map(toStored);
}

/** One message with its opened body. */
export async function readEmail(
  deps: Pick<EmailServiceDeps, 'db' | 'box'>,
  id: string,
): Promise<(StoredEmail & { text: string; html: string }) | undefined> {
  const row = await deps.db.selectFrom('emails').selectAll().where('id', '=', id).executeTakeFirst();
  if (!row) return undefined;
  const body = JSON.parse(deps.box.open(row.body_enc)) as { text: string; html: string };
  return { ...toStored(row), ...body };
}
