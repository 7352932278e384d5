import { Type, type Static } from 'typebox';
import type { App } from '../../http/server.js';
import { PAYOUT_STATUSES, PayoutViewSchema } from '../payouts/schemas.js';
import { FX_REASON_MAX_LENGTH } from '../payouts/rates.js';
import type { PayoutService } from '../payouts/service.js';
import { EXPORT_COLUMNS, exportCsv } from '../payouts/treasury.js';
import { apiRoute, pagedList, PageOf, wholeListApi } from './api-kit.js';
import { actorOf } from './auth.js';
import { REASON_MAX_LENGTH } from './command-input.js';
import { NETWORKS, RAILS, payoutValue, sendCsv } from './payout-helpers.js';
import { ENVIRONMENTS, IdParamsSchema } from './schemas.js';

const OperatorPayoutSchema = Type.Intersect(
  [
    PayoutViewSchema,
    Type.Object({
      organizationId: Type.String(),
      handedOverAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
        description:
          'When it was first handed to a rail: sent to the sandbox chain or exported to the treasury.',
      }),
      attempts: Type.Integer({
        description: 'Attempts of the current job step (submission or confirmation).',
      }),
      lastError: Type.Union([Type.String(), Type.Null()]),
      parkedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
        description: 'Set when the job stopped retrying and the payout waits for an operator.',
      }),
    }),
  ],
  { description: 'A payout as the operator sees it.' },
);

const QueueQuerySchema = Type.Object(
  {
    status: Type.Optional(Type.Enum([...PAYOUT_STATUSES])),
    rail: Type.Optional(Type.Enum([...RAILS])),
    network: Type.Optional(Type.Enum([...NETWORKS])),
    environment: Type.Optional(Type.Enum([...ENVIRONMENTS])),
    organizationId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    limit: Type.Integer({ minimum: 1, maximum: 200, default: 50 }),
    cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
  },
  { additionalProperties: false },
);
type QueueQuery = Static<typeof QueueQuerySchema>;

const ExportLineSchema = Type.Object(
  {
    payoutId: Type.String(),
    organizationId: Type.String(),
    network: Type.Enum([...NETWORKS]),
    token: Type.Literal('USDT'),
    tokenContract: Type.String({ description: 'The USDT contract the transfer must use.' }),
    toAddress: Type.String(),
    amountMinor: Type.String({ description: 'USDT minor units (6 decimals).' }),
    amount: Type.String({ description: 'The same amount in USDT with 6 decimals ("12.345678").' }),
    debitedAmount: Type.String({ description: 'TRY minor units debited from the merchant.' }),
    debitedCurrency: Type.Literal('TRY'),
    rate: Type.String(),
    arrivalDate: Type.Union([Type.String(), Type.Null()]),
    createdAt: Type.String({ format: 'date-time' }),
    exportedAt: Type.String({ format: 'date-time', description: 'When it was first exported.' }),
  },
  { description: `One payout to send; the CSV has the same columns: ${EXPORT_COLUMNS.join(', ')}.` },
);

const MinimumSchema = Type.Object({
  network: Type.Enum([...NETWORKS]),
  environment: Type.Enum([...ENVIRONMENTS]),
  amount: Type.String({ pattern: '^[0-9]+$', description: 'TRY minor units, decimal string.' }),
  updatedBy: Type.String(),
  updatedAt: Type.String({ format: 'date-time' }),
});

const ReasonBody = Type.Object(
  { reason: Type.String({ minLength: 1, maxLength: REASON_MAX_LENGTH }) },
  { additionalProperties: false },
);

function filterOf(query: Partial<QueueQuery>) {
  return {
    status: query.status,
    rail: query.rail,
    network: query.network,
    environment: query.environment,
    organizationId: query.organizationId,
  };
}

const FxRateSchema = Type.Object({
  id: Type.String({ pattern: '^fxr_' }),
  environment: Type.Enum([...ENVIRONMENTS]),
  rate: Type.String({ description: 'USDT per TRY.' }),
  reason: Type.String(),
  enteredBy: Type.String(),
  enteredAt: Type.String({ format: 'date-time' }),
});

const FxRateSourceSchema = Type.Object({
  environment: Type.Literal('live'),
  source: Type.Enum(['ticker', 'operator'], {
    description:
      '`ticker` (the default): the live ticker (`FX_TICKER_URL`), the operators’ entered rate its fallback ' +
      'while fresh; `operator`: the operators’ entered rate alone, the ticker not asked.',
  }),
  tickerConfigured: Type.Boolean({
    description: 'Whether `FX_TICKER_URL` is set; without it, `ticker` means the operators’ rate alone.',
  }),
  reason: Type.Union([Type.String(), Type.Null()]),
  updatedBy: Type.Union([Type.String(), Type.Null()]),
  updatedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});

const FxSpreadSchema = Type.Object({
  environment: Type.Enum([...ENVIRONMENTS]),
  spreadBps: Type.Integer({ description: 'Basis points off the market rate.' }),
  source: Type.Enum(['operator', 'default'], {
    description: '`operator`: set here; `default`: `PAYOUT_FX_SPREAD_BPS` (no operator has set one).',
  }),
  updatedBy: Type.Union([Type.String(), Type.Null()]),
  updatedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});

/**
 * The operator's payouts as JSON (docs/payouts.md "Operating payouts"): the queue by status, rail and
 * network; the treasury rail's export and transaction recording; cancelation; the per-network minimums;
 * the live FX rates, their source and the spreads. Every write is audited.
 */
export async function operatorPayoutApi(app: App, deps: { payouts: PayoutService }): Promise<void> {
  payoutQueueApi(app, deps.payouts);
  payoutCommandApi(app, deps.payouts);
  payoutMinimumApi(app, deps.payouts);
  fxRateApi(app, deps.payouts);
  fxSpreadApi(app, deps.payouts);
}

/** The queue, one payout, and the treasury rail's export. */
function payoutQueueApi(app: App, payouts: PayoutService): void {
  app.get(
    '/operator/v1/payouts',
    apiRoute('read', PageOf(OperatorPayoutSchema), {
      description:
        'Every organization’s payouts, newest first, filtered by status, rail, network, environment or ' +
        'organization; cursor paged.',
      querystring: QueueQuerySchema,
    }),
    pagedList(async (filter, page) => payoutValue(await payouts.operatorList(filterOf(filter), page))),
  );

  app.get(
    '/operator/v1/payouts/:id',
    apiRoute('read', OperatorPayoutSchema, {
      description: 'One payout of any organization.',
      params: IdParamsSchema,
    }),
    async (request) => payoutValue(await payouts.operatorGet(request.params.id)),
  );

  app.post(
    '/operator/v1/payouts/treasury-exports',
    apiRoute('administer', Type.Object({ data: Type.Array(ExportLineSchema), count: Type.Integer() }), {
      description:
        'The treasury rail’s due payouts (live, pending, oldest first, at most 1000) for a custody or ' +
        'multisig tool, as JSON or CSV (`format`). Each payout is marked handed over the first time it is ' +
        'exported: from then on it cannot be canceled, only recorded with its transaction hash or marked ' +
        'not sent. A POST because it changes that state; audited per payout.',
      body: Type.Object(
        {
          format: Type.Enum(['json', 'csv'], { default: 'json' }),
          network: Type.Optional(Type.Enum([...NETWORKS])),
        },
        { additionalProperties: false },
      ),
    }),
    async (request, reply) => {
      const lines = await payouts.exportTreasury({ network: request.body.network }, actorOf(request));
      if (request.body.format === 'csv') return sendCsv(reply, exportCsv(lines));
      return { data: lines, count: lines.length };
    },
  );
}

/** Recording the treasury's transaction, canceling, marking not sent. */
function payoutCommandApi(app: App, payouts: PayoutService): void {
  app.post(
    '/operator/v1/payouts/:id/transaction',
    apiRoute('administer', OperatorPayoutSchema, {
      description:
        'Records the transaction the treasury sent for a live payout: pending -> in_transit; the ' +
        'confirmation job then completes it from the chain explorer (or fails it). The same hash again ' +
        'changes nothing; a hash of another payout is 409 `tx_hash_in_use`; a payout that is not a ' +
        'pending treasury payout is 409 `invalid_state_transition`. Audited.',
      params: IdParamsSchema,
      body: Type.Object(
        { txHash: Type.String({ minLength: 1, maxLength: 100 }) },
        { additionalProperties: false },
      ),
    }),
    async (request) =>
      payoutValue(
        await payouts.recordTreasuryTransaction(request.params.id, request.body.txHash, actorOf(request)),
      ),
  );

  app.post(
    '/operator/v1/payouts/:id/cancel',
    apiRoute('administer', OperatorPayoutSchema, {
      description:
        'Cancels a pending payout never handed to a rail: the funds return to available and ' +
        '`payout.canceled` is sent. Otherwise 409 `invalid_state_transition`. Audited with the reason.',
      params: IdParamsSchema,
      body: ReasonBody,
    }),
    async (request) =>
      payoutValue(await payouts.operatorCancel(request.params.id, request.body.reason, actorOf(request))),
  );

  app.post(
    '/operator/v1/payouts/:id/not-sent',
    apiRoute('administer', OperatorPayoutSchema, {
      description:
        'The treasury did not send a pending treasury payout (exported or not) and will not: it fails ' +
        'with `treasury_not_sent`, the funds return to available and `payout.failed` is sent. Audited.',
      params: IdParamsSchema,
      body: ReasonBody,
    }),
    async (request) =>
      payoutValue(await payouts.markNotSent(request.params.id, request.body.reason, actorOf(request))),
  );
}

/** The smallest payout per network and environment. */
function payoutMinimumApi(app: App, payouts: PayoutService): void {
  wholeListApi(
    app,
    '/operator/v1/payout-minimums',
    MinimumSchema,
    'The smallest payout per network and environment, in TRY minor units.',
    () => payouts.minimums(),
  );

  app.put(
    '/operator/v1/payout-minimums/:environment/:network',
    apiRoute('administer', MinimumSchema, {
      description:
        'Sets the smallest payout of a network in an environment (TRY minor units, 1 to 16 digits); ' +
        'payouts already created keep theirs. Audited with the value before and after.',
      params: Type.Object(
        { environment: Type.Enum([...ENVIRONMENTS]), network: Type.Enum([...NETWORKS]) },
        { additionalProperties: false },
      ),
      body: Type.Object(
        { amount: Type.String({ pattern: '^[1-9][0-9]{0,15}$', description: 'TRY minor units.' }) },
        { additionalProperties: false },
      ),
    }),
    async (request) => payouts.setMinimum(request.params, BigInt(request.body.amount), actorOf(request)),
  );
}

/** The live rates operators entered, and the live rate's source. */
function fxRateApi(app: App, payouts: PayoutService): void {
  wholeListApi(
    app,
    '/operator/v1/fx-rates',
    FxRateSchema,
    'The live TRY -> USDT rates operators entered, newest first (at most 50). The newest, while younger ' +
      'than `FX_OPERATOR_RATE_MAX_AGE_SECONDS`, is the live ticker’s fallback (the live rate itself without ' +
      'a ticker). The sandbox converts at the sandbox chain’s rate feed.',
    () => payouts.enteredRates('live', 50),
  );

  app.post(
    '/operator/v1/fx-rates',
    apiRoute(
      'administer',
      FxRateSchema,
      {
        description:
          'Enters the live TRY -> USDT rate (USDT per TRY, a positive decimal) with a reason: ' +
          'while the live ticker has no usable rate, payouts and held settlement batches use it for ' +
          '`FX_OPERATOR_RATE_MAX_AGE_SECONDS` (then run the held date again). Audited.',
        body: Type.Object(
          {
            rate: Type.String({ minLength: 1, maxLength: 40 }),
            reason: Type.String({ minLength: 1, maxLength: FX_REASON_MAX_LENGTH }),
          },
          { additionalProperties: false },
        ),
      },
      { status: 201 },
    ),
    async (request, reply) => {
      const { rate, reason } = request.body;
      const entered = payoutValue(await payouts.enterRate('live', { rate, reason }, actorOf(request)));
      return reply.code(201).send(entered);
    },
  );

  app.get(
    '/operator/v1/fx-rate-source',
    apiRoute('read', FxRateSourceSchema, {
      description:
        'The source live payouts and settlement batches convert at, as operators chose it ' +
        '(docs/decisions/0050-live-rate-source.md). The sandbox converts at the sandbox chain’s rate feed.',
    }),
    async () => payouts.rateSource(),
  );

  app.put(
    '/operator/v1/fx-rate-source',
    apiRoute('administer', FxRateSourceSchema, {
      description:
        'Chooses the live rate source, with a reason: `operator` stops asking the ticker (one answering a ' +
        'wrong rate) and converts at the operators’ entered rate alone (while none is fresh, live payouts ' +
        'answer 503 `payouts_unavailable` and batches hold; ADR 0050); ' +
        '`ticker` goes back to the ticker. Quotes from now on use it. Audited.',
      body: Type.Object(
        {
          source: Type.Enum(['ticker', 'operator']),
          reason: Type.String({ minLength: 1, maxLength: FX_REASON_MAX_LENGTH }),
        },
        { additionalProperties: false },
      ),
    }),
    async (request) => payoutValue(await payouts.setRateSource(request.body, actorOf(request))),
  );
}

/** Each environment's FX spread. */
function fxSpreadApi(app: App, payouts: PayoutService): void {
  wholeListApi(
    app,
    '/operator/v1/fx-spreads',
    FxSpreadSchema,
    'Each environment’s FX spread: payouts convert at the market rate less it, and what it is worth is ' +
      'booked as FX revenue when the payout is paid (docs/payouts.md).',
    () => payouts.spreads(),
  );

  app.put(
    '/operator/v1/fx-spreads/:environment',
    apiRoute('administer', FxSpreadSchema, {
      description:
        'Sets an environment’s FX spread (0 to 1000 basis points) for payouts created from now on; payouts ' +
        'already created keep theirs. Audited.',
      params: Type.Object({ environment: Type.Enum([...ENVIRONMENTS]) }, { additionalProperties: false }),
      body: Type.Object(
        { spreadBps: Type.Integer({ minimum: 0, maximum: 1000 }) },
        { additionalProperties: false },
      ),
    }),
    async (request) =>
      payouts.setSpread(request.params.environment, request.body.spreadBps, actorOf(request)),
  );
}
