import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { toApiError } from '../../http/errors.js';
import type { App } from '../../http/server.js';
import { PAYOUT_ERRORS } from '../payouts/errors.js';
import { PAYOUT_STATUSES } from '../payouts/schemas.js';
import type { OperatorPayoutView } from '../payouts/operator-commands.js';
import type { PayoutService } from '../payouts/service.js';
import { exportCsv } from '../payouts/treasury.js';
import { actorOf } from './auth.js';
import {
  backTo,
  consoleRoute,
  EnvironmentField,
  FormBody,
  freshPage,
  ReasonField,
  recordForm,
  recordPage,
  redirectTo,
  ShortText,
  type ConsoleKit,
  type PageExtra,
} from './console-kit.js';
import { NETWORKS, RAILS, payoutValue, sendCsv } from './payout-helpers.js';
import { ENVIRONMENTS } from './schemas.js';

/** TRY minor units of a minimum: at most 16 digits, as the fee schedule's fixed fees. */
const MINIMUM_MAX = 10n ** 16n - 1n;

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

const NOTICES: Record<string, string> = {
  recorded: 'Transaction recorded: the payout is in transit until the chain confirms it.',
  canceled: 'Payout canceled: the funds are available again.',
  not_sent: 'Marked not sent: the payout failed and the funds are available again.',
};

const RATE_NOTICES: Record<string, string> = {
  entered: 'Rate entered.',
  spread: 'Spread saved.',
  source: 'Rate source saved.',
};

type PayoutConsole = { kit: ConsoleKit; payouts: PayoutService };

/**
 * The operator's payouts as console pages at `/payouts…`, `/payout-minimums` and `/fx-rates`: the queue,
 * a payout and its commands, the treasury export, the minimums, the live rates, their source and spreads.
 */
export async function operatorPayoutConsole(app: App, deps: PayoutConsole): Promise<void> {
  payoutQueuePages(app, deps);
  payoutCommandForms(app, deps);
  payoutMinimumPages(app, deps);
  fxRatePages(app, deps);
}

/** A payout's page; no such payout: a page that says so (404), not the API's JSON. */
async function showPayout(
  { kit, payouts }: PayoutConsole,
  request: FastifyRequest,
  reply: FastifyReply,
  id: string,
  extra: PageExtra = {},
) {
  const found = await payouts.operatorGet(id);
  if (!found.ok) {
    const error = toApiError(PAYOUT_ERRORS, found.error);
    return kit.refused(request, reply, error.statusCode, {
      title: 'Not found',
      heading: error.message,
      backTo: '/payouts',
    });
  }
  const payout: OperatorPayoutView = found.value;
  return kit.show(request, reply, 'operator/payout', { title: `Payout ${payout.id}`, payout }, extra);
}

/** The queue, filtered, and one payout. */
function payoutQueuePages(app: App, deps: PayoutConsole): void {
  const { kit, payouts } = deps;
  app.get('/payouts', consoleRoute('read', { querystring: ConsoleQuery }), async (request, reply) => {
    const query = request.query;
    const filter = {
      status: query.status || undefined,
      rail: query.rail || undefined,
      network: query.network || undefined,
      environment: query.environment || undefined,
    };
    const list = payoutValue(
      await payouts.operatorList(filter, { limit: 50, cursor: query.cursor || undefined }),
    );
    const params: Array<[string, string]> = [];
    for (const [name, value] of Object.entries(filter)) if (value !== undefined) params.push([name, value]);
    return kit.page(request, reply, 'operator/payouts', {
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
  });

  recordPage(app, '/payouts/:id', NOTICES, (request, reply, id, extra) =>
    showPayout(deps, request, reply, id, extra),
  );
}

/** A payout's forms (the command, then back to the payout; a refusal is shown there) and the export. */
function payoutCommandForms(app: App, deps: PayoutConsole): void {
  const { payouts } = deps;
  const backToPayout = (notice: string) => (request: FastifyRequest, reply: FastifyReply, id: string) =>
    backTo(PAYOUT_ERRORS, `/payouts/${encodeURIComponent(id)}`, notice, (extra) =>
      showPayout(deps, request, reply, id, extra),
    );

  recordForm(
    app,
    '/payouts/:id/transaction',
    { txHash: Type.String({ maxLength: 200 }) },
    {
      run: (id, form, by) => payouts.recordTreasuryTransaction(id, form.txHash, by),
      back: backToPayout('recorded'),
    },
  );

  recordForm(app, '/payouts/:id/cancel', ReasonField, {
    run: (id, form, by) => payouts.operatorCancel(id, form.reason, by),
    back: backToPayout('canceled'),
  });

  recordForm(app, '/payouts/:id/not-sent', ReasonField, {
    run: (id, form, by) => payouts.markNotSent(id, form.reason, by),
    back: backToPayout('not_sent'),
  });

  app.post(
    '/payouts/treasury-export',
    consoleRoute('administer', {
      body: FormBody({
        format: Type.Enum(['csv', 'json']),
        network: Type.Union([Type.Enum([...NETWORKS]), Type.Literal('')]),
      }),
    }),
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
}

/** The minimums, and the form that sets one. */
function payoutMinimumPages(app: App, { kit, payouts }: PayoutConsole): void {
  app.get('/payout-minimums', { config: { operator: 'read' } }, async (request, reply) => {
    const query = request.query as { notice?: string };
    return kit.page(request, reply, 'operator/payout-minimums', {
      title: 'Payout minimums',
      minimums: await payouts.minimums(),
      notice: query.notice === 'saved' ? 'Minimum saved.' : undefined,
    });
  });

  app.post(
    '/payout-minimums',
    consoleRoute('administer', {
      body: FormBody({ ...EnvironmentField, network: Type.Enum([...NETWORKS]), amount: ShortText }),
    }),
    async (request, reply) => {
      const amount = request.body.amount.trim();
      if (!/^[0-9]{1,16}$/.test(amount) || BigInt(amount) < 1n || BigInt(amount) > MINIMUM_MAX) {
        reply.code(400);
        return kit.page(request, reply, 'operator/payout-minimums', {
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
      return redirectTo(reply, '/payout-minimums', 'saved');
    },
  );
}

/** Live rates operators entered (the ticker's fallback), the spreads and the rate source. */
const ratesPage = ({ kit, payouts }: PayoutConsole) =>
  freshPage(kit, 'operator/fx-rates', async () => ({
    title: 'FX rates',
    rates: await payouts.enteredRates('live', 50),
    spreads: await payouts.spreads(),
    rateSource: await payouts.rateSource(),
  }));

/** The rates page, and the forms of administrators: a spread, the rate source, a rate. */
function fxRatePages(app: App, deps: PayoutConsole): void {
  const { payouts } = deps;
  const showRates = ratesPage(deps);
  app.get('/fx-rates', { config: { operator: 'read' } }, async (request, reply) => {
    const query = request.query as { notice?: string };
    return showRates(request, reply, { notice: RATE_NOTICES[query.notice ?? ''] });
  });

  app.post(
    '/fx-spreads',
    consoleRoute('administer', {
      body: FormBody({ ...EnvironmentField, spreadBps: ShortText }),
    }),
    async (request, reply) => {
      const text = request.body.spreadBps.trim();
      if (!/^[0-9]{1,4}$/.test(text) || Number(text) > 1000) {
        return showRates(request, reply, {
          error: 'A spread is a whole number of basis points from 0 to 1000.',
          status: 400,
        });
      }
      await payouts.setSpread(request.body.environment, Number(text), actorOf(request));
      return redirectTo(reply, '/fx-rates', 'spread');
    },
  );

  app.post(
    '/fx-rate-source',
    consoleRoute('administer', {
      body: FormBody({
        source: Type.Enum(['ticker', 'operator']),
        ...ReasonField,
      }),
    }),
    async (request, reply) => {
      const chosen = await payouts.setRateSource(
        { source: request.body.source, reason: request.body.reason },
        actorOf(request),
      );
      if (chosen.ok) return redirectTo(reply, '/fx-rates', 'source');
      return showRates(request, reply, { error: 'Give a reason of 1 to 500 characters.', status: 400 });
    },
  );

  app.post(
    '/fx-rates',
    consoleRoute('administer', {
      body: FormBody({ rate: ShortText, ...ReasonField }),
    }),
    async (request, reply) => {
      const entered = await payouts.enterRate(
        'live',
        { rate: request.body.rate.trim(), reason: request.body.reason },
        actorOf(request),
      );
      if (entered.ok) return redirectTo(reply, '/fx-rates', 'entered');
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
