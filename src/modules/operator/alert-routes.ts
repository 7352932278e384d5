import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { errorResponses, toApiError } from '../../http/errors.js';
import type { App } from '../../http/server.js';
import type { Renderer } from '../../web/render.js';
import type { Ledger } from '../ledger/service.js';
import { OperatorAlertViewSchema, type OperatorAlerts } from './alerts.js';
import { actorOf } from './auth.js';
import type { OperatorCommands } from './commands.js';
import { OPERATOR_ERRORS, valueOf } from './errors.js';
import { CsrfFormSchema, IdParamsSchema, PageQuerySchema } from './schemas.js';
import { can } from './staff.js';

const errors = errorResponses(400, 401, 403, 404, 429);

const NegativeBalanceSchema = Type.Object({
  organizationId: Type.String(),
  environment: Type.Enum(['sandbox', 'live']),
  currency: Type.Enum(['TRY']),
  pending: Type.String({ description: 'Below zero: decimal string of minor units.' }),
  debt: Type.String({ description: 'What the merchant owes: `-pending`.' }),
});

/**
 * Money problems for the operator (docs/decisions/0013 and 0014): alerts raised by refused provider
 * notifications and by refunds that left a pending balance below zero, and the balances below zero
 * right now. JSON under `/operator/v1/…`, a console page at `/alerts`.
 */
export async function operatorAlertRoutes(
  app: App,
  deps: {
    alerts: OperatorAlerts;
    ledger: Pick<Ledger, 'negativePendingBalances'>;
    commands: Pick<OperatorCommands, 'acknowledgeAlert'>;
    renderer: Renderer;
  },
): Promise<void> {
  const { alerts, ledger, commands } = deps;

  app.get(
    '/operator/v1/alerts',
    {
      schema: {
        querystring: Type.Object(
          {
            ...PageQuerySchema.properties,
            open: Type.Optional(Type.Boolean({ description: 'Only alerts nobody has acknowledged.' })),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            data: Type.Array(OperatorAlertViewSchema),
            nextCursor: Type.Union([Type.String(), Type.Null()]),
          }),
          ...errors,
        },
      },
      config: { operator: 'read' },
    },
    async (request) => valueOf(await alerts.list(request.query)),
  );

  app.post(
    '/operator/v1/alerts/:id/acknowledge',
    {
      schema: { params: IdParamsSchema, response: { 200: OperatorAlertViewSchema, ...errors } },
      config: { operator: 'administer' },
    },
    async (request) => valueOf(await commands.acknowledgeAlert(request.params.id, actorOf(request))),
  );

  app.get(
    '/operator/v1/balances/negative',
    {
      schema: {
        response: { 200: Type.Object({ data: Type.Array(NegativeBalanceSchema) }), ...errors },
      },
      config: { operator: 'read' },
    },
    async () => ({ data: await ledger.negativePendingBalances() }),
  );

  const page = (request: FastifyRequest, reply: FastifyReply, data: Record<string, unknown>) =>
    reply
      .type('text/html; charset=utf-8')
      .header('cache-control', 'no-store')
      .send(
        deps.renderer.render('operator/alerts', {
          title: 'Alerts',
          staff: request.staff,
          csrf: request.operatorSession?.csrfToken ?? '',
          notice: undefined,
          error: undefined,
          ...data,
        }),
      );

  /** The open alerts (or all of them), newest first, and the balances below zero. */
  const showAlerts = async (
    request: FastifyRequest,
    reply: FastifyReply,
    view: { all: boolean; cursor?: string | undefined; notice?: string | undefined; error?: string },
  ) => {
    const list = valueOf(await alerts.list({ limit: 50, open: !view.all, cursor: view.cursor }));
    return page(request, reply, {
      all: view.all,
      alerts: list.data,
      nextCursor: list.nextCursor,
      debts: await ledger.negativePendingBalances(),
      canAcknowledge: request.staff ? can(request.staff, 'administer') : false,
      notice: view.notice,
      error: view.error,
    });
  };

  app.get('/alerts', { config: { operator: 'read' } }, async (request, reply) => {
    const query = request.query as { all?: string; cursor?: string; notice?: string };
    const cursor = query.cursor !== undefined && /^\d{1,18}$/.test(query.cursor) ? query.cursor : undefined;
    return showAlerts(request, reply, {
      all: query.all === '1',
      cursor,
      notice: query.notice === 'acknowledged' ? 'Alert acknowledged.' : undefined,
    });
  });

  app.post(
    '/alerts/:id/acknowledge',
    {
      schema: { params: IdParamsSchema, body: CsrfFormSchema, hide: true },
      config: { operator: 'administer' },
    },
    async (request, reply) => {
      const acknowledged = await commands.acknowledgeAlert(request.params.id, actorOf(request));
      if (acknowledged.ok) return reply.redirect('/alerts?notice=acknowledged', 303);
      // A refusal (an alert that does not exist) is the list page with the reason, not the API's JSON.
      const error = toApiError(OPERATOR_ERRORS, acknowledged.error);
      reply.code(error.statusCode);
      return showAlerts(request, reply, { all: false, error: error.message });
    },
  );
}
