import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { App } from '../../http/server.js';
import { DAY, type Clock } from '../../shared/clock.js';
import { localeOf, type SignedIn } from '../users/http.js';
import {
  EXPORT_KINDS,
  exportCsv,
  logExportEnd,
  type ExportKind,
  type ExportSources,
} from '../exports/csv.js';
import {
  EXPORT_EARLIEST,
  EXPORT_LATEST,
  EXPORT_MAX_DAYS,
  exportRange,
  utcDay,
  type ExportRangeError,
} from '../exports/range.js';
import { EXPORT_MESSAGES, type ExportMessages } from './export-i18n.js';
import { PageQuerySchema, type PageKit } from './kit.js';

export interface DashboardExportPagesOptions extends ExportSources {
  kit: PageKit;
  clock: Clock;
}

/** The range the form suggests: the last 30 days, today included. */
const DEFAULT_DAYS = 30;

const DATE_TEXT = Type.Optional(Type.String({ maxLength: 32 }));
const RangeQuerySchema = Type.Object({ ...PageQuerySchema.properties, from: DATE_TEXT, to: DATE_TEXT });
const DownloadQuerySchema = Type.Object({
  ...RangeQuerySchema.properties,
  kind: Type.Optional(Type.String({ maxLength: 32 })),
});

const isKind = (kind: string | undefined): kind is ExportKind =>
  (EXPORT_KINDS as readonly string[]).includes(kind ?? '');

/**
 * The exports of the merchant dashboard (docs/exports.md): a form (what, from, to) for
 * the session's environment, and `GET /dashboard/exports/{charges,refunds,payouts}.csv?from=&to=`, the
 * file itself, streamed. Only the roles of `exportRecords`; a refused range is the page again with
 * status 400 and what is wrong; every row is the session's organization's and environment's.
 */
export async function exportPages(app: App, options: DashboardExportPagesOptions): Promise<void> {
  const { kit, clock } = options;
  kit.handleErrors(app);

  const em = (request: FastifyRequest): ExportMessages => EXPORT_MESSAGES[localeOf(request)];

  const defaults = () => {
    const today = clock.now();
    return {
      from: utcDay(new Date(today.getTime() - (DEFAULT_DAYS - 1) * DAY)),
      to: utcDay(today),
      kind: 'charges',
    };
  };

  const renderPage = (
    request: FastifyRequest,
    reply: FastifyReply,
    current: SignedIn,
    status: number,
    extra: {
      refused?: boolean;
      errors?: ExportRangeError[];
      form?: { kind: string; from: string; to: string };
    },
  ) => {
    const messages = em(request);
    return kit.render(request, reply, 'dashboard-exports', status, {
      title: () => messages.title,
      nav: true,
      csrf: current.session.csrfToken,
      environment: current.session.environment,
      em: messages,
      kinds: EXPORT_KINDS,
      maxDays: EXPORT_MAX_DAYS,
      earliest: EXPORT_EARLIEST,
      latest: EXPORT_LATEST,
      refused: extra.refused ?? false,
      errors: extra.errors ?? [],
      form: extra.form ?? defaults(),
    });
  };

  /** The signed-in user who may export; otherwise the redirect to login or the refusal page (403). */
  const exporter = async (request: FastifyRequest, reply: FastifyReply): Promise<SignedIn | undefined> => {
    const current = await kit.signedIn(request, reply);
    if (!current) return undefined;
    if (kit.may(current, 'exportRecords')) return current;
    await renderPage(request, reply, current, 403, { refused: true });
    return undefined;
  };

  app.get(
    '/dashboard/exports',
    { schema: { hide: true, querystring: PageQuerySchema } },
    async (request, reply) => {
      const current = await exporter(request, reply);
      if (!current) return reply;
      return renderPage(request, reply, current, 200, {});
    },
  );

  /** The form's target: the file's address, or the form again with what is wrong (400). */
  app.get(
    '/dashboard/exports/download',
    { schema: { hide: true, querystring: DownloadQuerySchema } },
    async (request, reply) => {
      const current = await exporter(request, reply);
      if (!current) return reply;
      const { kind, from, to } = request.query;
      const range = exportRange(from, to);
      const errors = [...(isKind(kind) ? [] : (['kind'] as const)), ...(range.ok ? [] : range.errors)];
      if (!isKind(kind) || !range.ok) {
        return renderPage(request, reply, current, 400, {
          errors,
          form: { kind: kind ?? '', from: from ?? '', to: to ?? '' },
        });
      }
      return kit.redirect(request, reply, `/dashboard/exports/${kind}.csv`, {
        from: range.from,
        to: range.to,
      });
    },
  );

  for (const kind of EXPORT_KINDS) {
    app.get(
      `/dashboard/exports/${kind}.csv`,
      { schema: { hide: true, querystring: RangeQuerySchema } },
      async (request, reply) => {
        const current = await exporter(request, reply);
        if (!current) return reply;
        const { from, to } = request.query;
        const range = exportRange(from, to);
        if (!range.ok) {
          return renderPage(request, reply, current, 400, {
            errors: range.errors,
            form: { kind, from: from ?? '', to: to ?? '' },
          });
        }
        const owner = {
          organizationId: current.account.organization.id,
          environment: current.session.environment,
        };
        const stream = exportCsv(kind, options, owner, range.window, logExportEnd(request.log, kind));
        const filename = `${kind}-${owner.environment}-${range.from}-to-${range.to}.csv`;
        return reply
          .code(200)
          .header('cache-control', 'no-store')
          .header('content-disposition', `attachment; filename="${filename}"`)
          .type('text/csv; charset=utf-8')
          .send(stream);
      },
    );
  }
}
