import { Type } from 'typebox';
import { ApiError, errorResponses, type ValidationIssue } from '../../http/errors.js';
import type { App } from '../../http/server.js';
import { ownerOf } from '../api-keys/context.js';
import {
  CHARGE_COLUMNS,
  logExportEnd,
  EXPORT_KINDS,
  PAYOUT_COLUMNS,
  REFUND_COLUMNS,
  exportCsv,
  type ExportKind,
  type ExportSources,
} from './csv.js';
import {
  EXPORT_EARLIEST,
  EXPORT_LATEST,
  EXPORT_MAX_DAYS,
  exportRange,
  type ExportRangeError,
} from './range.js';

const Day = (description: string) =>
  Type.String({ pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$', description, examples: ['2026-01-31'] });

// No other parameter: one the caller meant (`format`, `limit`) is refused rather than silently ignored,
// as on every other read endpoint.
const ExportQuerySchema = Type.Object(
  {
    from: Day('The first UTC day, `YYYY-MM-DD`, included.'),
    to: Day('The last UTC day, `YYYY-MM-DD`, included.'),
  },
  { additionalProperties: false },
);

const COLUMNS: Record<ExportKind, ReadonlyArray<{ header: string }>> = {
  charges: CHARGE_COLUMNS,
  refunds: REFUND_COLUMNS,
  payouts: PAYOUT_COLUMNS,
};

const WHAT: Record<ExportKind, string> = {
  charges: 'the charges (a succeeded one with the fee and net the ledger recorded)',
  refunds: 'the refunds, whatever the date of their charge',
  payouts: 'the payouts (none without the `payouts` flag)',
};

const ISSUES: Record<Exclude<ExportRangeError, 'kind'>, ValidationIssue> = {
  fromMissing: { path: 'from', in: 'query', code: 'required', message: 'from is required.' },
  toMissing: { path: 'to', in: 'query', code: 'required', message: 'to is required.' },
  fromInvalid: {
    path: 'from',
    in: 'query',
    code: 'invalid_value',
    message: `from must be a day between ${EXPORT_EARLIEST} and ${EXPORT_LATEST}.`,
  },
  toInvalid: {
    path: 'to',
    in: 'query',
    code: 'invalid_value',
    message: `to must be a day between ${EXPORT_EARLIEST} and ${EXPORT_LATEST}.`,
  },
  order: { path: 'from', in: 'query', code: 'invalid_value', message: 'from must not be after to.' },
  tooLong: {
    path: 'to',
    in: 'query',
    code: 'too_large',
    message: `The range is longer than ${EXPORT_MAX_DAYS} days; export it in parts.`,
  },
};

/**
 * `GET /v1/exports/{charges,refunds,payouts}.csv` (docs/exports.md): the same files as
 * the dashboard's exports, for the key's organization and environment, streamed.
 */
export async function exportRoutes(app: App, options: { sources: ExportSources }): Promise<void> {
  for (const kind of EXPORT_KINDS) {
    app.get(
      `/v1/exports/${kind}.csv`,
      {
        schema: {
          operationId: `export${kind[0]?.toUpperCase()}${kind.slice(1)}Csv`,
          summary: `Export ${kind} (CSV)`,
          description:
            `CSV of ${WHAT[kind]} created from \`from\` 00:00 UTC up to the end of \`to\` (both UTC days ` +
            `included, at most ${EXPORT_MAX_DAYS} days), oldest first, streamed. Columns: ` +
            `${COLUMNS[kind].map((column) => column.header).join(', ')} (docs/exports.md). Amounts in minor ` +
            'units and, in `*_decimal`, as exact decimals; times ISO 8601 UTC. A cell that starts with `=`, ' +
            '`+`, `-`, `@`, a tab, CR or LF is prefixed with an apostrophe. Needs scope `read`.',
          tags: ['Exports'],
          querystring: ExportQuerySchema,
          response: {
            200: { description: `The ${kind} as CSV.`, content: { 'text/csv': { schema: Type.String() } } },
            ...errorResponses(400, 401, 403, 429, 500),
          },
        },
        config: { auth: 'read' },
      },
      async (request, reply) => {
        const range = exportRange(request.query.from, request.query.to);
        if (!range.ok) {
          throw ApiError.validation(
            range.errors.flatMap((error) => (error === 'kind' ? [] : [ISSUES[error]])),
            'The range is invalid.',
          );
        }
        const { organizationId, environment } = ownerOf(request);
        const stream = exportCsv(
          kind,
          options.sources,
          { organizationId, environment },
          range.window,
          logExportEnd(request.log, kind),
        );
        return (
          reply
            .header('cache-control', 'no-store')
            .header(
              'content-disposition',
              `attachment; filename="${kind}-${environment}-${range.from}-to-${range.to}.csv"`,
            )
            .type('text/csv; charset=utf-8')
            // The documented body is the CSV text; it is sent as the stream that produces it.
            .send(stream as unknown as string)
        );
      },
    );
  }
}
