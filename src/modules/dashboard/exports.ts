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
import {
  attachment,
  guardedRoute,
  ownerOf,
  PageQuerySchema,
  pageSchema,
  readerGuard,
  registerPages,
  sessionFields,
  type PageKit,
  type PageRequest,
} from './kit.js';

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

const ExportsRoute = pageSchema({});
const DownloadRoute = { hide: true, querystring: DownloadQuerySchema };
const FileRoute = { hide: true, querystring: RangeQuerySchema };

/**
 * The exports of the merchant dashboard (docs/exports.md): a form (what, from, to) for
 * the session's environment, and `GET /dashboard/exports/{charges,refunds,payouts}.csv?from=&to=`, the
 * file itself, streamed. Only the roles of `exportRecords`; a refused range is the page again with
 * status 400 and what is wrong; every row is the session's organization's and environment's.
 */
export async function exportPages(app: App, options: DashboardExportPagesOptions): Promise<void> {
  registerPages(app, options, [
    guardedRoute('GET', '/dashboard/exports', ExportsRoute, exporter, (options, request, reply, current) =>
      renderPage(options, request, reply, current, 200, {}),
    ),
    guardedRoute('GET', '/dashboard/exports/download', DownloadRoute, exporter, download),
    ...EXPORT_KINDS.map((kind) =>
      guardedRoute(
        'GET',
        `/dashboard/exports/${kind}.csv`,
        FileRoute,
        exporter,
        (options, request, reply, current) => exportFile(options, request, reply, current, kind),
      ),
    ),
  ]);
}

const em = (request: FastifyRequest): ExportMessages => EXPORT_MESSAGES[localeOf(request)];

/** The form before anything is chosen: charges, over the suggested range. */
function defaults(clock: Clock) {
  const today = clock.now();
  return {
    from: utcDay(new Date(today.getTime() - (DEFAULT_DAYS - 1) * DAY)),
    to: utcDay(today),
    kind: 'charges',
  };
}

function renderPage(
  { kit, clock }: DashboardExportPagesOptions,
  request: FastifyRequest,
  reply: FastifyReply,
  current: SignedIn,
  status: number,
  extra: {
    refused?: boolean;
    errors?: ExportRangeError[];
    form?: { kind: string; from: string; to: string };
  },
) {
  const messages = em(request);
  return kit.render(request, reply, 'dashboard-exports', status, {
    title: () => messages.title,
    nav: true,
    ...sessionFields(current),
    em: messages,
    kinds: EXPORT_KINDS,
    maxDays: EXPORT_MAX_DAYS,
    earliest: EXPORT_EARLIEST,
    latest: EXPORT_LATEST,
    refused: extra.refused ?? false,
    errors: extra.errors ?? [],
    form: extra.form ?? defaults(clock),
  });
}

/** The signed-in user who may export; otherwise the redirect to login or the refusal page (403). */
const exporter = readerGuard<DashboardExportPagesOptions>(
  { permission: 'exportRecords' },
  (options, request, reply, current) => renderPage(options, request, reply, current, 403, { refused: true }),
);

/** The form's target: the file's address, or the form again with what is wrong (400). */
async function download(
  options: DashboardExportPagesOptions,
  request: PageRequest<typeof DownloadRoute>,
  reply: FastifyReply,
  current: SignedIn,
) {
  const { kind, from, to } = request.query;
  const range = exportRange(from, to);
  const errors = [...(isKind(kind) ? [] : (['kind'] as const)), ...(range.ok ? [] : range.errors)];
  if (!isKind(kind) || !range.ok) {
    return renderPage(options, request, reply, current, 400, {
      errors,
      form: { kind: kind ?? '', from: from ?? '', to: to ?? '' },
    });
  }
  return options.kit.redirect(request, reply, `/dashboard/exports/${kind}.csv`, {
    from: range.from,
    to: range.to,
  });
}

/** The file itself, streamed; a refused range is the form again with what is wrong (400). */
async function exportFile(
  options: DashboardExportPagesOptions,
  request: PageRequest<typeof FileRoute>,
  reply: FastifyReply,
  current: SignedIn,
  kind: ExportKind,
) {
  const { from, to } = request.query;
  const range = exportRange(from, to);
  if (!range.ok) {
    return renderPage(options, request, reply, current, 400, {
      errors: range.errors,
      form: { kind, from: from ?? '', to: to ?? '' },
    });
  }
  const owner = ownerOf(current);
  const stream = exportCsv(kind, options, owner, range.window, logExportEnd(request.log, kind));
  const filename = `${kind}-${owner.environment}-${range.from}-to-${range.to}.csv`;
  return attachment(reply.code(200), filename, 'text/csv; charset=utf-8').send(stream);
}
