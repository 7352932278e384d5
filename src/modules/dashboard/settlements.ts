import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../http/errors.js';
import type { App } from '../../http/server.js';
import { moneyViews } from './money.js';
import type { PayoutService } from '../payouts/service.js';
import type { SettlementBatchService } from '../settlement/batch.js';
import { StatementSchema } from '../settlement/schemas.js';
import type { BatchView } from '../settlement/views.js';
import { statementCsv, type Statement } from '../settlement/statement.js';
import { localeOf, type SignedIn } from '../users/http.js';
import { format } from './i18n.js';
import {
  attachment,
  CursorQuerySchema,
  cursorOf,
  guardedRoute,
  IdParamsSchema,
  ownerOf,
  pageSchema,
  registerPages,
  sessionFields,
  viewReader,
  type PageKit,
  type PageRequest,
} from './kit.js';
import { SETTLEMENT_MESSAGES, type SettlementMessages } from './settlement-i18n.js';

export interface DashboardSettlementPagesOptions {
  kit: PageKit;
  /** The same reads as `GET /v1/settlements…`: the batches and statements of the session's environment. */
  settlements: Pick<SettlementBatchService, 'list' | 'retrieve' | 'statement'>;
  /** The status and USDT amount of a batch's payout. */
  payouts: Pick<PayoutService, 'retrieve'>;
}

/** Batches per page, and the statement lines the batch page shows (the downloads have every line). */
const BATCH_PAGE_LIMIT = 20;
const BATCH_LINES_SHOWN = 200;

type PayoutFacts = { id: string; status: string; payoutAmount: string; arrivalDate: string | null };

const BatchListRoute = { hide: true, querystring: CursorQuerySchema };
const BatchRoute = pageSchema({ params: IdParamsSchema });
const StatementJsonRoute = pageSchema({
  params: IdParamsSchema,
  // The API's response schema: the same JSON, member for member, as `GET /v1/settlements/{id}/statement`.
  response: { 200: StatementSchema },
});
const BATCH = '/dashboard/settlements/:id';

/**
 * The settlement pages of the merchant dashboard: the batches of the session's environment, newest
 * business date first, and each batch with its statement's lines and the statement itself to download as
 * CSV or JSON, the same bytes as `GET /v1/settlements/{id}/statement(.csv)`. Only the roles of
 * `readSettlements`; another organization's or environment's batch is 404.
 */
export async function settlementPages(app: App, options: DashboardSettlementPagesOptions): Promise<void> {
  registerPages(app, options, [
    guardedRoute('GET', '/dashboard/settlements', BatchListRoute, reader, showBatches),
    guardedRoute('GET', BATCH, BatchRoute, reader, showBatch),
    guardedRoute('GET', `${BATCH}/statement.csv`, BatchRoute, reader, downloadStatement('csv')),
    guardedRoute('GET', `${BATCH}/statement.json`, StatementJsonRoute, reader, downloadStatement('json')),
  ]);
}

const sm = (request: FastifyRequest): SettlementMessages => SETTLEMENT_MESSAGES[localeOf(request)];
const noSuchBatch = () => new ApiError('not_found', 'No such settlement batch.');

function pageData(request: FastifyRequest, current: SignedIn) {
  const messages = sm(request);
  return {
    title: () => messages.title,
    ...sessionFields(current),
    sm: messages,
    ...moneyViews(localeOf(request)),
    held: (reason: string) => holdReasonText(messages, reason),
  };
}

/** The signed-in user who may read settlements; otherwise the redirect to login or the refusal page. */
const reader = viewReader<DashboardSettlementPagesOptions>({
  permission: 'readSettlements',
  view: 'dashboard-settlements',
  data: pageData,
});

async function payoutOf(
  { payouts }: DashboardSettlementPagesOptions,
  current: SignedIn,
  batch: BatchView,
): Promise<PayoutFacts | undefined> {
  if (batch.payoutId === null) return undefined;
  const found = await payouts.retrieve(ownerOf(current), batch.payoutId);
  if (!found.ok) return undefined;
  const { id, status, payoutAmount, arrivalDate } = found.value;
  return { id, status, payoutAmount, arrivalDate };
}

async function showBatches(
  options: DashboardSettlementPagesOptions,
  request: PageRequest<typeof BatchListRoute>,
  reply: FastifyReply,
  current: SignedIn,
) {
  const cursor = cursorOf(request.query.cursor);
  const listed = await options.settlements.list(ownerOf(current), { limit: BATCH_PAGE_LIMIT, cursor });
  if (!listed.ok) throw new ApiError('not_found', 'No such page of settlement batches.');
  const batches = await Promise.all(
    listed.value.data.map(async (batch) => ({ batch, payout: await payoutOf(options, current, batch) })),
  );
  return options.kit.render(request, reply, 'dashboard-settlements', 200, {
    ...pageData(request, current),
    batches,
    nextCursor: listed.value.nextCursor,
    paged: cursor !== undefined,
  });
}

async function showBatch(
  options: DashboardSettlementPagesOptions,
  request: PageRequest<typeof BatchRoute>,
  reply: FastifyReply,
  current: SignedIn,
) {
  const { kit, settlements } = options;
  const owner = ownerOf(current);
  const batch = await settlements.retrieve(owner, request.params.id);
  if (!batch) throw noSuchBatch();
  const found = await settlements.statement(owner, batch.id);
  const statement = found.ok ? found.value : undefined;
  const data = pageData(request, current);
  return kit.render(request, reply, 'dashboard-settlement', 200, {
    ...data,
    title: () => format(data.sm.batchTitle, { date: batch.businessDate }),
    batch,
    payout: await payoutOf(options, current, batch),
    statement,
    lines: statement?.lines.slice(0, BATCH_LINES_SHOWN) ?? [],
  });
}

// ---------------------------------------------------------------- the statement's downloads

/** The statement of the session's organization and environment, or 404 (also while it is not ready). */
async function statementOf(
  { settlements }: DashboardSettlementPagesOptions,
  current: SignedIn,
  id: string,
): Promise<Statement> {
  const found = await settlements.statement(ownerOf(current), id);
  if (!found.ok) throw noSuchBatch();
  return found.value;
}

/** The statement as a file: the same bytes as `GET /v1/settlements/{id}/statement(.csv)`. */
const STATEMENT_FILES = {
  csv: { type: 'text/csv; charset=utf-8', body: statementCsv },
  json: { type: 'application/json; charset=utf-8', body: (statement: Statement) => statement },
} as const;

function downloadStatement(kind: keyof typeof STATEMENT_FILES) {
  return async (
    options: DashboardSettlementPagesOptions,
    request: PageRequest<typeof BatchRoute>,
    reply: FastifyReply,
    current: SignedIn,
  ) => {
    const statement = await statementOf(options, current, request.params.id);
    const file = STATEMENT_FILES[kind];
    return attachment(reply, `statement-${statement.batch.id}.${kind}`, file.type).send(file.body(statement));
  };
}

/** Why a batch is held, in the page's words: a frozen organization, or no usable rate yet (`rate_unavailable:<why>`). */
export function holdReasonText(messages: SettlementMessages, reason: string): string {
  if (reason === 'organization_frozen') return messages.frozenHold;
  const why = reason.replace(/^rate_unavailable:/, '');
  const words = Object.hasOwn(messages.rateProblems, why)
    ? messages.rateProblems[why as keyof SettlementMessages['rateProblems']]
    : why;
  return format(messages.holdReason, { reason: words });
}
