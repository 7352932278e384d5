import type { App } from '../../http/server.js';
import type { Kdb } from '../../db/database.js';
import { ApiError } from '../../http/errors.js';
import { cursorOrThrow } from '../../http/cursor-errors.js';
import type { CursorCodec } from '../../shared/pagination.js';
import type { AuditLog } from '../audit/service.js';
import type { EmailService } from '../email/service.js';
import { noticedPage } from './console-actions.js';
import type { ConsoleKit } from './console-kit.js';
import { shownEmail } from './records-api.js';

/** What the gateway recorded, as console pages: the audit log and the mailbox (the outbox). */
export async function operatorRecordsConsole(
  app: App,
  deps: { kit: ConsoleKit; audit: AuditLog; db: Kdb; mailer: EmailService; cursors: CursorCodec },
): Promise<void> {
  const page = noticedPage(deps.kit);

  app.get('/audit', { config: { operator: 'read' } }, async (request, reply) => {
    const query = request.query as { cursor?: string; organizationId?: string };
    const result = cursorOrThrow(
      await deps.audit.list(deps.db, {
        limit: 100,
        ...(query.cursor ? { cursor: query.cursor } : {}),
        ...(query.organizationId ? { organizationId: query.organizationId } : {}),
      }),
    );
    return page(request, reply, 'audit', {
      title: 'Audit log',
      organizationId: query.organizationId ?? '',
      entries: result.data,
      nextCursor: result.nextCursor,
    });
  });

  app.get('/mailbox', { config: { operator: 'read' } }, async (request, reply) => {
    const { cursor } = request.query as { cursor?: string };
    const pages = deps.cursors.for({ list: 'emails' });
    const before = cursor ? cursorOrThrow(pages.decode(cursor)) : undefined;
    const emails = await deps.mailer.list({ limit: 51, ...(before ? { before } : {}) });
    const shown = emails.slice(0, 50);
    const last = shown[shown.length - 1];
    return page(request, reply, 'mailbox', {
      title: 'Mailbox',
      transport: deps.mailer.transport,
      emails: shown,
      nextCursor: emails.length > 50 && last ? pages.encode(new Date(last.createdAt), last.id) : null,
    });
  });

  app.get('/mailbox/:id', { config: { operator: 'read' } }, async (request, reply) => {
    const email = await deps.mailer.read((request.params as { id: string }).id);
    if (!email) throw new ApiError('not_found', 'No such message.');
    return page(request, reply, 'email', { title: email.subject, email: shownEmail(deps.mailer, email) });
  });
}
