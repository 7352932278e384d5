import { Type } from 'typebox';
import { INVALID_CURSOR } from '../../http/cursor-errors.js';
import { failures, routeKit } from '../../http/api-routes.js';
import { ApiError, errorResponses } from '../../http/errors.js';
import { ListQuerySchema } from '../../http/list-query.js';
import type { App } from '../../http/server.js';
import { ownerOf } from '../api-keys/context.js';
import {
  SettleResultSchema,
  SettlementBatchSchema,
  SettlementIdParamsSchema,
  SettlementListSchema,
  StatementSchema,
  type SettleResult,
} from './schemas.js';
import { STATEMENT_COLUMNS, statementCsv } from './statement.js';
import type { SettlementBatchService } from './batch.js';

const kit = routeKit({ tags: ['Balance'] });

/**
 * `POST /v1/test-helpers/settle`: registered on the sandbox listener only, so the live listener answers
 * 404 (like Stripe's test helpers).
 */
export async function settlementTestHelperRoutes(
  app: App,
  options: { settlement: Pick<SettlementBatchService, 'settleNow'> },
): Promise<void> {
  app.post(
    '/v1/test-helpers/settle',
    kit.route(
      {
        operationId: 'testHelperSettle',
        summary: "Run this organization's sandbox settlement batch now (test helper)",
        description:
          "Sandbox only (404 on the live API). Runs the sandbox balance's settlement batch now, through the " +
          'same code as the daily 03:00 UTC batch: everything credited to `pending` and not released before ' +
          'moves to `available` as a batch of today (UTC), one per call that releases something; then the ' +
          'batch pays the available balance out automatically to the default sandbox ' +
          'wallet on the sandbox chain (`status: paid_out`, `payoutId`), or says why not (`carried` with ' +
          '`carryReason`: no default wallet, below the network minimum, manual payout schedule). Refunds ' +
          'beyond the new credits hold the release (`released: false`). A batch an earlier call released but ' +
          'could not pay out (its process stopped) is paid out first, and is the answer when nothing new is ' +
          'released. Needs scope `write`. Sandbox funds never reach a real wallet.',
      },
      { response: { 200: SettleResultSchema, ...errorResponses(401, 403, 429, 500) } },
      'write',
    ),
    async (request): Promise<SettleResult> => {
      const { organizationId, environment } = ownerOf(request);
      const outcome = await options.settlement.settleNow({ organizationId, environment });
      return outcome.batch !== null
        ? { released: true, batch: outcome.batch }
        : { released: false, reason: outcome.reason, batch: null };
    },
  );
}

/** `/v1/settlements`: the organization's batches and their statements. */
export async function settlementRoutes(
  app: App,
  options: { settlement: Pick<SettlementBatchService, 'list' | 'retrieve' | 'statement'> },
): Promise<void> {
  const { settlement } = options;
  const statementOf = async (request: { params: { id: string } } & Parameters<typeof ownerOf>[0]) => {
    const found = await settlement.statement(ownerOf(request), request.params.id);
    if (found.ok) return found.value;
    if (found.error.code === 'not_ready') {
      throw new ApiError(
        'not_found',
        "The batch's statement exists once its payout phase has ended (`status` `paid_out` or `carried`).",
      );
    }
    throw new ApiError('not_found', 'No such settlement batch.');
  };

  app.get(
    '/v1/settlements',
    kit.route(
      {
        operationId: 'listSettlements',
        summary: 'List settlement batches',
        description:
          'The settlement batches of this environment, newest business date first: what each business ' +
          "day's batch released and whether it paid out (docs/settlement.md). Needs scope `read`.",
      },
      {
        querystring: ListQuerySchema,
        response: { 200: SettlementListSchema, ...failures('list') },
      },
    ),
    async (request) => {
      const listed = await settlement.list(ownerOf(request), request.query);
      if (!listed.ok) throw INVALID_CURSOR.invalid_cursor(listed.error);
      return listed.value;
    },
  );

  app.get(
    '/v1/settlements/:id',
    kit.route(
      {
        operationId: 'getSettlement',
        summary: 'Retrieve a settlement batch',
        description: "Another organization's or environment's batch is 404 `not_found`. Needs scope `read`.",
      },
      {
        params: SettlementIdParamsSchema,
        response: { 200: SettlementBatchSchema, ...failures('retrieve') },
      },
    ),
    async (request) => {
      const batch = await settlement.retrieve(ownerOf(request), request.params.id);
      if (!batch) throw new ApiError('not_found', 'No such settlement batch.');
      return batch;
    },
  );

  app.get(
    '/v1/settlements/:id/statement',
    kit.route(
      {
        operationId: 'getSettlementStatement',
        summary: "A settlement batch's statement (JSON)",
        description:
          'Every charge and refund the batch released with its fee, its totals, the rate and the payout, with ' +
          'the hash that chains it to the previous statement: keep the hashes to detect any later change. ' +
          '404 `not_found` until the batch has ended. Needs scope `read`.',
      },
      {
        params: SettlementIdParamsSchema,
        response: { 200: StatementSchema, ...failures('retrieve') },
      },
    ),
    async (request) => statementOf(request),
  );

  app.get(
    '/v1/settlements/:id/statement.csv',
    kit.route(
      {
        operationId: 'getSettlementStatementCsv',
        summary: "A settlement batch's statement (CSV)",
        description:
          `The same statement as CSV, columns ${STATEMENT_COLUMNS.join(', ')}: a \`line\` row per charge and ` +
          'refund, then `batch` (totals), `rate`, `payout` (TRY) and `payout_sent` (USDT), `hash` and ' +
          '`previous_hash`. Needs scope `read`.',
      },
      {
        params: SettlementIdParamsSchema,
        response: {
          200: { description: 'The statement as CSV.', content: { 'text/csv': { schema: Type.String() } } },
          ...failures('retrieve'),
        },
      },
    ),
    async (request, reply) => {
      const statement = await statementOf(request);
      return reply
        .header('content-disposition', `attachment; filename="statement-${statement.batch.id}.csv"`)
        .type('text/csv; charset=utf-8')
        .send(statementCsv(statement));
    },
  );
}
