import { Type } from 'typebox';
import { ApiError } from '../../http/errors.js';
import type { App } from '../../http/server.js';
import type { Kdb } from '../../db/database.js';
import { cursorOrThrow } from '../../http/cursor-errors.js';
import type { CursorCodec } from '../../shared/pagination.js';
import type { AuditLog } from '../audit/service.js';
import type { EmailService } from '../email/service.js';
import { apiRoute } from './api-kit.js';
import { IdParamsSchema, PageQuerySchema } from './schemas.js';

/** What the gateway recorded, as JSON: the audit log and the outbox. */
export function operatorRecordsApi(
  app: App,
  deps: { audit: AuditLog; db: Kdb; mailer: EmailService; cursors: CursorCodec },
): void {
  app.get(
    '/operator/v1/audit-log',
    apiRoute('read', Type.Unknown({ description: 'A page of audit entries, newest first.' }), {
      querystring: Type.Object(
        {
          ...PageQuerySchema.properties,
          targetId: Type.Optional(Type.String({ maxLength: 64 })),
          organizationId: Type.Optional(Type.String({ maxLength: 64 })),
        },
        { additionalProperties: false },
      ),
    }),
    async (request) => cursorOrThrow(await deps.audit.list(deps.db, request.query)),
  );

  app.get(
    '/operator/v1/emails',
    apiRoute('read', Type.Unknown({ description: 'A page of the outbox, newest first.' }), {
      querystring: PageQuerySchema,
    }),
    async (request) => {
      const pages = deps.cursors.for({ list: 'emails' });
      const before = request.query.cursor ? cursorOrThrow(pages.decode(request.query.cursor)) : undefined;
      const data = await deps.mailer.list({ limit: request.query.limit + 1, ...(before ? { before } : {}) });
      const page = data.slice(0, request.query.limit);
      const last = page[page.length - 1];
      return {
        transport: deps.mailer.transport,
        data: page,
        nextCursor:
          data.length > request.query.limit && last ? pages.encode(new Date(last.createdAt), last.id) : null,
      };
    },
  );

  app.get(
    '/operator/v1/emails/:id',
    apiRoute(
      'read',
      Type.Unknown({
        description:
          'One message of the outbox; `text` and `html` are null when it went out over SMTP (they carry ' +
          'the recipient’s one-time secrets).',
      }),
      {
        params: IdParamsSchema,
      },
    ),
    async (request) => {
      const email = await deps.mailer.read(request.params.id);
      if (!email) throw new ApiError('not_found', `No e-mail ${request.params.id}.`);
      return shownEmail(deps.mailer, email);
    },
  );
}

/**
 * A message of the outbox as staff see it (ADR 0058): the dev mailbox stands in for the recipient's inbox
 * and shows the body; a message sent over SMTP went to its recipient with its one-time secrets (a sandbox
 * key, an activation or reset link), so its body is not shown.
 */
export function shownEmail<T extends { text: string; html: string }>(
  mailer: Pick<EmailService, 'transport'>,
  email: T,
): Omit<T, 'text' | 'html'> & { text: string | null; html: string | null } {
  return mailer.transport === 'dev_mailbox' ? email : { ...email, text: null, html: null };
}
