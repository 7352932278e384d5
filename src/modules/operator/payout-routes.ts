import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type, type Static, type TSchema } from 'typebox';
import { errorResponses, toApiError } from '../../http/errors.js';
import type { App } from '../../http/server.js';
import type { Result } from '../../shared/result.js';
import type { Renderer } from '../../web/render.js';
import { PAYOUT_ERRORS, type PayoutError } from '../payouts/errors.js';
import { PAYOUT_STATUSES, PayoutViewSchema } from '../payouts/schemas.js';
import { FX_REASON_MAX_LENGTH, type OperatorPayoutView, type PayoutService } from '../payouts/service.js';
import { EXPORT_COLUMNS, exportCsv } from '../payouts/treasury.js';
import { actorOf } from './auth.js';
import { REASON_MAX_LENGTH } from './commands.js';
import { IdParamsSchema } from './schemas.js';
import { consolePage, refusalText } from './console-page.js';

const errors = errorResponses(400, 401, 403, 404, 409, 429);
const NETWORKS = ['tron', 'ethereum'] as const;
const RAILS = ['sandbox_chain', 'treasury'] as const;
const ENVIRONMENTS = ['sandbox', 'live'] as const;
/** TRY minor units of a minimum: at most 16 digits, as the fee schedule's fixed fees. */
const MINIMUM_MAX = 10n ** 16n - 1n;

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

function valueOf<T>(result: Result<T, PayoutError>): T {
  if (result.ok) return result.value;
  throw toApiError(PAYOUT_ERRORS, result.error);
}

function filterOf(query: Partial<QueueQuery>) {
  return {
    status: query.status,
    rail: query.rail,
    network: query.network,
    environment: query.environment,
    organizationId: query.organizationId,
  };
}

/**
 * The operator's payouts (issue 13 item 8, docs/payouts.md "Operating payouts"): the queue by status,
 * rail and network; the treasury rail's export and transaction recording; cancelation; the per-network
 * minimums. JSON under `/operator/v1/…`, console pages at `/payouts…`. Every write is audited.
 */
export async function operatorPayoutRoutes(
  app: App,
  deps: { payouts: PayoutService; renderer: Renderer },
): Promise<void> {
  const { payouts } = deps;

  app.get(
    '/operator/v1/payouts',
    {
      schema: {
        description:
          'Every organization’s payouts, newest first, filtered by status, rail, network, environment or ' +
          'organization; cursor paged.',
        querystring: QueueQuerySchema,
        response: {
          200: Type.Object({
            data: Type.Array(OperatorPayoutSchema),
            nextCursor: Type.Union([Type.String(), Type.Null()]),
          }),
          ...errors,
        },
      },
      config: { operator: 'read' },
    },
    async (request) =>
      valueOf(
        await payouts.operatorList(filterOf(request.query), {
          limit: request.query.limit,
          cursor: request.query.cursor,
        }),
      ),
  );

  app.get(
    '/operator/v1/payouts/:id',
    {
      schema: {
        description: 'One payout of any organization.',
        params: IdParamsSchema,
        response: { 200: OperatorPayoutSchema, ...errors },
      },
      config: { operator: 'read' },
    },
    async (request) => valueOf(await payouts.operatorGet(request.params.id)),
  );

  app.post(
    '/operator/v1/payouts/treasury-exports',
    {
      schema: {
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
        response: {
          200: Type.Object({ data: Type.Array(ExportLineSchema), count: Type.Integer() }),
          ...errors,
        },
      },
      config: { operator: 'administer' },
    },
    async (request, reply) => {
      const lines = await payouts.exportTreasury({ network: request.body.network }, actorOf(request));
      if (request.body.format === 'csv') return sendCsv(reply, exportCsv(lines));
      return { data: lines, count: lines.length };
    },
  );

  app.post(
    '/operator/v1/payouts/:id/transaction',
    {
      schema: {
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
        response: { 200: OperatorPayoutSchema, ...errors },
      },
      config: { operator: 'administer' },
    },
    async (request) =>
      valueOf(
        await payouts.recordTreasuryTransaction(request.params.id, request.body.txHash, actorOf(request)),
      ),
  );

  app.post(
    '/operator/v1/payouts/:id/cancel',
    {
      schema: {
        description:
          'Cancels a pending payout never handed to a rail: the funds return to available and ' +
          '`payout.canceled` is sent. Otherwise 409 `invalid_state_transition`. Audited with the reason.',
        params: IdParamsSchema,
        body: ReasonBody,
        response: { 200: OperatorPayoutSchema, ...errors },
      },
      config: { operator: 'administer' },
    },
    async (request) =>
      valueOf(await payouts.operatorCancel(request.params.id, request.body.reason, actorOf(request))),
  );

  app.post(
    '/operator/v1/payouts/:id/not-sent',
    {
      schema: {
        description:
          'The treasury did not send a pending treasury payout (exported or not) and will not: it fails ' +
          'with `treasury_not_sent`, the funds return to available and `payout.failed` is sent. Audited.',
        params: IdParamsSchema,
        body: ReasonBody,
        response: { 200: OperatorPayoutSchema, ...errors },
      },
      config: { operator: 'administer' },
    },
    async (request) =>
      valueOf(await payouts.markNotSent(request.params.id, request.body.reason, actorOf(request))),
  );

  app.get(
    '/operator/v1/payout-minimums',
    {
      schema: {
        description: 'The smallest payout per network and environment, in TRY minor units.',
        response: { 200: Type.Object({ data: Type.Array(MinimumSchema) }), ...errors },
      },
      config: { operator: 'read' },
    },
    async () => ({ data: await payouts.minimums() }),
  );

  app.put(
    '/operator/v1/payout-minimums/:environment/:network',
    {
      schema: {
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
        response: { 200: MinimumSchema, ...errors },
      },
      config: { operator: 'administer' },
    },
    async (request) => payouts.setMinimum(request.params, BigInt(request.body.amount), actorOf(request)),
  );

  const FxRateSchema = Type.Object({
    id: Type.String({ pattern: '^fxr_' }),
    environment: Type.Enum([...ENVIRONMENTS]),
    rate: Type.String({ description: 'USDT per TRY.' }),
    reason: Type.String(),
    enteredBy: Type.String(),
    enteredAt: Type.String({ format: 'date-time' }),
  });

  app.get(
    '/operator/v1/fx-rates',
    {
      schema: {
        description:
          'The live TRY -> USDT rates operators entered, newest first (at most 50). The newest, while younger ' +
          'than `FX_OPERATOR_RATE_MAX_AGE_SECONDS`, is the live ticker’s fallback (the live rate itself without ' +
          'a ticker). The sandbox converts at the sandbox chain’s rate feed.',
        response: { 200: Type.Object({ data: Type.Array(FxRateSchema) }), ...errors },
      },
      config: { operator: 'read' },
    },
    async () => ({ data: await payouts.enteredRates('live', 50) }),
  );

  app.post(
    '/operator/v1/fx-rates',
    {
      schema: {
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
        response: { 201: FxRateSchema, ...errors },
      },
      config: { operator: 'administer' },
    },
    async (request, reply) => {
      const { rate, reason } = request.body;
      const entered = valueOf(await payouts.enterRate('live', { rate, reason }, actorOf(request)));
      return reply.code(201).send(entered);
    },
  );

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

  app.get(
    '/operator/v1/fx-rate-source',
    {
      schema: {
        description:
          'The source live payouts and settlement batches convert at, as operators chose it ' +
          '(docs/decisions/0050-live-rate-source.md). The sandbox converts at the sandbox chain’s rate feed.',
        response: { 200: FxRateSourceSchema, ...errors },
      },
      config: { operator: 'read' },
    },
    async () => payouts.rateSource(),
  );

  app.put(
    '/operator/v1/fx-rate-source',
    {
      schema: {
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
        response: { 200: FxRateSourceSchema, ...errors },
      },
      config: { operator: 'administer' },
    },
    async (request) => valueOf(await payouts.setRateSource(request.body, actorOf(request))),
  );

  const FxSpreadSchema = Type.Object({
    environment: Type.Enum([...ENVIRONMENTS]),
    spreadBps: Type.Integer({ description: 'Basis points off the market rate.' }),
    source: Type.Enum(['operator', 'default'], {
      description: '`operator`: set here; `default`: `PAYOUT_FX_SPREAD_BPS` (no operator has set one).',
    }),
    updatedBy: Type.Union([Type.String(), Type.Null()]),
    updatedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  });

  app.get(
    '/operator/v1/fx-spreads',
    {
      schema: {
        description:
          'Each environment’s FX spread: payouts convert at the market rate less it, and what it is worth is ' +
          'booked as FX revenue when the payout is paid (docs/payouts.md).',
        response: { 200: Type.Object({ data: Type.Array(FxSpreadSchema) }), ...errors },
      },
      config: { operator: 'read' },
    },
    async () => ({ data: await payouts.spreads() }),
  );

  app.put(
    '/operator/v1/fx-spreads/:environment',
    {
      schema: {
        description:
          'Sets an environment’s FX spread (0 to 1000 basis points) for payouts created from now on; payouts ' +
          'already created keep theirs. Audited.',
        params: Type.Object({ environment: Type.Enum([...ENVIRONMENTS]) }, { additionalProperties: false }),
        body: Type.Object(
          { spreadBps: Type.Integer({ minimum: 0, maximum: 1000 }) },
          { additionalProperties: false },
        ),
        response: { 200: FxSpreadSchema, ...errors },
      },
      config: { operator: 'administer' },
    },
    async (request) =>
      payouts.setSpread(request.params.environment, request.body.spreadBps, actorOf(request)),
  );

  // The console.
  const page = consolePage(deps.renderer);

  const ConsoleQuery = Type.Object(
    {
      status: Type.Optional(Type.Union([Type.Enum([...PAYOUT_STATUSES]), Type.Literal('')])),
      rail: Type.Optional(Type.Union([Type.Enum([...RAILS]), Type.Literal('')])),
      network: Type.Optional(Type.Union([Type.Enum([...NETWORKS]), Type.Literal('')])),
      environment: Type.Optional(Type.Union([Type.Enum([...ENVIRONMENTS]), Type.Literal('')])),
      cursor: Type.Optional(Type.String({ maxLength: 500 })),
      notice: Type.Optional(Type.String({ maxLength: 40 })),
    },
    { additionalProperties: false },
  );

  app.get(
    '/payouts',
    { schema: { querystring: ConsoleQuery, hide: true }, config: { operator: 'read' } },
    async (request, reply) => {
      const query = request.query;
      const filter = {
        status: query.status || undefined,
        rail: query.rail || undefined,
        network: query.network || undefined,
        environment: query.environment || undefined,
      };
      const list = valueOf(
        await payouts.operatorList(filter, { limit: 50, cursor: query.cursor || undefined }),
      );
      const params: Array<[string, string]> = [];
      for (const [name, value] of Object.entries(filter)) if (value !== undefined) params.push([name, value]);
      return page(request, reply, 'operator/payouts', {
        title: 'Payouts',
        filter,
        payouts: list.data,
        nextUrl:
          list.nextCursor === null
            ? undefined
            : `/payouts?${new URLSearchParams([...params, ['cursor', list.nextCursor]]).toString()}`,
        notice: query.notice === 'canceled' ? 'Payout canceled.' : undefined,
        statuses: PAYOUT_STATUSES,
        rails: RAILS,
        networks: NETWORKS,
        environments: ENVIRONMENTS,
      });
    },
  );

  const NOTICES: Record<string, string> = {
    recorded: 'Transaction recorded: the payout is in transit until the chain confirms it.',
    canceled: 'Payout canceled: the funds are available again.',
    not_sent: 'Marked not sent: the payout failed and the funds are available again.',
  };

  const showPayout = async (
    request: FastifyRequest,
    reply: FastifyReply,
    id: string,
    extra: { notice?: string | undefined; error?: string | undefined; status?: number } = {},
  ) => {
    const found = await payouts.operatorGet(id);
    if (!found.ok) {
      // No such payout: a page that says so (404), not the API's JSON.
      const error = toApiError(PAYOUT_ERRORS, found.error);
      reply.code(error.statusCode);
      return page(request, reply, 'operator/refused', {
        title: 'Not found',
        heading: error.message,
        backTo: '/payouts',
      });
    }
    const payout: OperatorPayoutView = found.value;
    if (extra.status) reply.code(extra.status);
    return page(request, reply, 'operator/payout', {
      title: `Payout ${payout.id}`,
      payout,
      notice: extra.notice,
      error: extra.error,
    });
  };

  app.get(
    '/payouts/:id',
    {
      schema: {
        params: IdParamsSchema,
        querystring: Type.Object(
          { notice: Type.Optional(Type.String({ maxLength: 40 })) },
          { additionalProperties: false },
        ),
        hide: true,
      },
      config: { operator: 'read' },
    },
    async (request, reply) =>
      showPayout(request, reply, request.params.id, {
        notice: request.query.notice === undefined ? undefined : NOTICES[request.query.notice],
      }),
  );

  /** A console form: the command, then back to the payout; a refusal is shown on the payout's page. */
  const consoleCommand = async (
    request: FastifyRequest,
    reply: FastifyReply,
    id: string,
    run: () => Promise<Result<OperatorPayoutView, PayoutError>>,
    notice: string,
  ) => {
    const result = await run();
    if (result.ok) return reply.redirect(`/payouts/${encodeURIComponent(id)}?notice=${notice}`, 303);
    const error = toApiError(PAYOUT_ERRORS, result.error);
    return showPayout(request, reply, id, { error: refusalText(error), status: error.statusCode });
  };

  const FormBody = <T extends Record<string, TSchema>>(fields: T) =>
    Type.Object(
      { _csrf: Type.Optional(Type.String({ maxLength: 200 })), ...fields },
      { additionalProperties: false },
    );

  app.post(
    '/payouts/:id/transaction',
    {
      schema: {
        params: IdParamsSchema,
        body: FormBody({ txHash: Type.String({ maxLength: 200 }) }),
        hide: true,
      },
      config: { operator: 'administer' },
    },
    async (request, reply) =>
      consoleCommand(
        request,
        reply,
        request.params.id,
        () => payouts.recordTreasuryTransaction(request.params.id, request.body.txHash, actorOf(request)),
        'recorded',
      ),
  );

  app.post(
    '/payouts/:id/cancel',
    {
      schema: {
        params: IdParamsSchema,
        body: FormBody({ reason: Type.String({ maxLength: REASON_MAX_LENGTH }) }),
        hide: true,
      },
      config: { operator: 'administer' },
    },
    async (request, reply) =>
      consoleCommand(
        request,
        reply,
        request.params.id,
        () => payouts.operatorCancel(request.params.id, request.body.reason, actorOf(request)),
        'canceled',
      ),
  );

  app.post(
    '/payouts/:id/not-sent',
    {
      schema: {
        params: IdParamsSchema,
        body: FormBody({ reason: Type.String({ maxLength: REASON_MAX_LENGTH }) }),
        hide: true,
      },
      config: { operator: 'administer' },
    },
    async (request, reply) =>
      consoleCommand(
        request,
        reply,
        request.params.id,
        () => payouts.markNotSent(request.params.id, request.body.reason, actorOf(request)),
        'not_sent',
      ),
  );

  app.post(
    '/payouts/treasury-export',
    {
      schema: {
        body: FormBody({
          format: Type.Enum(['csv', 'json']),
          network: Type.Union([Type.Enum([...NETWORKS]), Type.Literal('')]),
        }),
        hide: true,
      },
      config: { operator: 'administer' },
    },
    async (request, reply) => {
      const lines = await payouts.exportTreasury(
        { network: request.body.network || undefined },
        actorOf(request),
      );
      const stamp = new Date().toISOString().replace(/[:.]/g, '-');
      if (request.body.format === 'csv') {
        reply.header('content-disposition', `attachment; filename="treasury-payouts-${stamp}.csv"`);
        return sendCsv(reply, exportCsv(lines));
      }
      return reply
        .header('content-disposition', `attachment; filename="treasury-payouts-${stamp}.json"`)
        .header('cache-control', 'no-store')
        .type('application/json; charset=utf-8')
        .send(JSON.stringify({ data: lines, count: lines.length }, null, 2));
    },
  );

  app.get('/payout-minimums', { config: { operator: 'read' } }, async (request, reply) => {
    const query = request.query as { notice?: string };
    return page(request, reply, 'operator/payout-minimums', {
      title: 'Payout minimums',
      minimums: await payouts.minimums(),
      notice: query.notice === 'saved' ? 'Minimum saved.' : undefined,
    });
  });

  app.post(
    '/payout-minimums',
    {
      schema: {
        body: FormBody({
          environment: Type.Enum([...ENVIRONMENTS]),
          network: Type.Enum([...NETWORKS]),
          amount: Type.String({ maxLength: 40 }),
        }),
        hide: true,
      },
      config: { operator: 'administer' },
    },
    async (request, reply) => {
      const amount = request.body.amount.trim();
      if (!/^[0-9]{1,16}$/.test(amount) || BigInt(amount) < 1n || BigInt(amount) > MINIMUM_MAX) {
        reply.code(400);
        return page(request, reply, 'operator/payout-minimums', {
          title: 'Payout minimums',
          minimums: await payouts.minimums(),
          error: 'A minimum is a whole number of TRY minor units (kuruş) from 1 to 16 digits.',
        });
      }
      await payouts.setMinimum(
        { environment: request.body.environment, network: request.body.network },
        BigInt(amount),
        actorOf(request),
      );
      return reply.redirect('/payout-minimums?notice=saved', 303);
    },
  );

  // Live rates operators entered (the ticker's fallback): the list, and a form for administrators.
  const showRates = async (
    request: FastifyRequest,
    reply: FastifyReply,
    extra: { notice?: string | undefined; error?: string | undefined; status?: number } = {},
  ) => {
    if (extra.status) reply.code(extra.status);
    return page(request, reply, 'operator/fx-rates', {
      title: 'FX rates',
      rates: await payouts.enteredRates('live', 50),
      spreads: await payouts.spreads(),
      rateSource: await payouts.rateSource(),
      notice: extra.notice,
      error: extra.error,
    });
  };

  app.get('/fx-rates', { config: { operator: 'read' } }, async (request, reply) => {
    const query = request.query as { notice?: string };
    const notices: Record<string, string> = {
      entered: 'Rate entered.',
      spread: 'Spread saved.',
      source: 'Rate source saved.',
    };
    return showRates(request, reply, { notice: notices[query.notice ?? ''] });
  });

  app.post(
    '/fx-spreads',
    {
      schema: {
        body: FormBody({
          environment: Type.Enum([...ENVIRONMENTS]),
          spreadBps: Type.String({ maxLength: 40 }),
        }),
        hide: true,
      },
      config: { operator: 'administer' },
    },
    async (request, reply) => {
      const text = request.body.spreadBps.trim();
      if (!/^[0-9]{1,4}$/.test(text) || Number(text) > 1000) {
        return showRates(request, reply, {
          error: 'A spread is a whole number of basis points from 0 to 1000.',
          status: 400,
        });
      }
      await payouts.setSpread(request.body.environment, Number(text), actorOf(request));
      return reply.redirect('/fx-rates?notice=spread', 303);
    },
  );

  app.post(
    '/fx-rate-source',
    {
      schema: {
        body: FormBody({
          source: Type.Enum(['ticker', 'operator']),
          reason: Type.String({ maxLength: REASON_MAX_LENGTH }),
        }),
        hide: true,
      },
      config: { operator: 'administer' },
    },
    async (request, reply) => {
      const chosen = await payouts.setRateSource(
        { source: request.body.source, reason: request.body.reason },
        actorOf(request),
      );
      if (chosen.ok) return reply.redirect('/fx-rates?notice=source', 303);
      return showRates(request, reply, { error: 'Give a reason of 1 to 500 characters.', status: 400 });
    },
  );

  app.post(
    '/fx-rates',
    {
      schema: {
        body: FormBody({
          rate: Type.String({ maxLength: 40 }),
          reason: Type.String({ maxLength: REASON_MAX_LENGTH }),
        }),
        hide: true,
      },
      config: { operator: 'administer' },
    },
    async (request, reply) => {
      const entered = await payouts.enterRate(
        'live',
        { rate: request.body.rate.trim(), reason: request.body.reason },
        actorOf(request),
      );
      if (entered.ok) return reply.redirect('/fx-rates?notice=entered', 303);
      return showRates(request, reply, {
        error:
          entered.error.code === 'invalid_rate'
            ? 'The rate is a positive decimal, USDT per TRY (for example 0.0291).'
            : 'Give a reason of 1 to 500 characters.',
        status: 400,
      });
    },
  );
}

function sendCsv(reply: FastifyReply, csv: string) {
  return reply.header('cache-control', 'no-store').type('text/csv; charset=utf-8').send(csv);
}
