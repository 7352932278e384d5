import { failures, idempotencyKeyOf, routeKit, unwrapWith } from '../../http/api-routes.js';
import type { IdempotencyOptions } from '../../http/idempotency.js';
import type { App } from '../../http/server.js';
import { ListQuerySchema } from '../../http/list-query.js';
import { callerScope, ownerOf } from '../api-keys/context.js';
import { PAYOUT_ERRORS } from './errors.js';
import {
  PayoutCreateSchema,
  PayoutIdParamsSchema,
  PayoutListQuerySchema,
  PayoutListSchema,
  PayoutTransactionListSchema,
  PayoutViewSchema,
} from './schemas.js';
import type { PayoutService } from './service.js';

const TAGS = ['Payouts'];
const FLAG =
  'Needs the `payouts` feature of the organization: without it every payout route answers 503 ' +
  '`payouts_unavailable`.';

const unwrap = unwrapWith(PAYOUT_ERRORS);

/** `/v1/payouts` (docs/payouts.md). */
export async function payoutRoutes(
  app: App,
  options: { service: PayoutService; idempotency: Omit<IdempotencyOptions, 'scopeOf'> },
): Promise<void> {
  const { service } = options;
  const kit = routeKit({
    tags: TAGS,
    feature: 'payouts',
    idempotency: { ...options.idempotency, scopeOf: callerScope },
  });

  app.post(
    '/v1/payouts',
    kit.idempotent(
      {
        operationId: 'createPayout',
        summary: 'Create a payout',
        description:
          'Pays `amount` TRY minor units of the available balance as USDT to the default wallet, or to ' +
          '`walletId` (an active wallet of this environment), at a rate locked now. Checked in this order: ' +
          'a destination wallet (400 `wallet_not_configured`, `details.reason`), the network minimum (400 ' +
          '`amount_below_minimum`, `details.minimum`), the available balance (400 `insufficient_balance`, ' +
          '`details.available`); concurrent payouts never together exceed it. No current rate is 503 ' +
          '`payouts_unavailable` (`details.reason`). USDT is rounded down to 6 decimals. Needs scope ' +
          `\`payouts\`. ${FLAG} Honours \`X-Idempotency-Key\`: a key names one payout for 24 hours, even after a ` +
          'crash or a retry of a request still running. Test keys pay only on the sandbox chain.',
      },
      {
        body: PayoutCreateSchema,
        response: {
          201: PayoutViewSchema,
          ...failures('create'),
        },
      },
      { auth: 'payouts' },
    ),
    async (request, reply) => {
      // The payout carries the key too (ADR 0051): a retry whose claim the store gave up never pays twice.
      const idempotencyKey = idempotencyKeyOf(request);
      const payout = await service.create(ownerOf(request), request.body, { idempotencyKey });
      return reply.code(201).send(unwrap(payout));
    },
  );

  kit.list(app, '/v1/payouts', PayoutListQuerySchema, PayoutListSchema, {
    operationId: 'listPayouts',
    summary: 'List payouts',
    description:
      'Payouts of this environment, newest first, filtered by `status` and creation time ' +
      `(\`createdFrom\` inclusive, \`createdTo\` exclusive). Needs scope \`read\`. ${FLAG}`,
    read: async (request, query) => unwrap(await service.list(ownerOf(request), query)),
  });

  kit.byId(app, '/v1/payouts/:id', PayoutIdParamsSchema, PayoutViewSchema, {
    operationId: 'getPayout',
    summary: 'Retrieve a payout',
    description: `Another organization's or environment's payout is 404 \`not_found\`. Needs scope \`read\`. ${FLAG}`,
    read: async (request, id) => unwrap(await service.retrieve(ownerOf(request), id)),
  });

  kit.list(app, '/v1/payouts/:id/transactions', ListQuerySchema, PayoutTransactionListSchema, {
    operationId: 'listPayoutTransactions',
    summary: 'List the transactions a payout carries',
    description:
      'The charges (with their fees) and refunds released to the available balance since the ' +
      "organization's previous payout, which this payout carries: reconcile a payout to your orders by " +
      `\`merchantReference\`. Needs scope \`read\`. ${FLAG}`,
    params: PayoutIdParamsSchema,
    read: async (request, query, { id }) => unwrap(await service.transactions(ownerOf(request), id, query)),
  });
}
