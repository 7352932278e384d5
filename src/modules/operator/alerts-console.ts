import type { FastifyReply, FastifyRequest } from 'fastify';
import { toApiError } from '../../http/errors.js';
import type { App } from '../../http/server.js';
import type { LedgerService } from '../ledger/service.js';
import type { OperatorAlerts } from './alerts.js';
import { actorOf } from './auth.js';
import type { OperatorCommands } from './commands.js';
import { consoleRoute, redirectTo, staffMay, type ConsoleKit } from './console-kit.js';
import { OPERATOR_ERRORS, valueOf } from './errors.js';
import { CsrfFormSchema, IdParamsSchema } from './schemas.js';

type AlertConsole = {
  kit: ConsoleKit;
  alerts: OperatorAlerts;
  ledger: Pick<LedgerService, 'negativePendingBalances'>;
  commands: Pick<OperatorCommands, 'acknowledgeAlert'>;
};

/** The open alerts (or all of them), newest first, and the balances below zero. */
async function showAlerts(
  { kit, alerts, ledger }: AlertConsole,
  request: FastifyRequest,
  reply: FastifyReply,
  view: { all: boolean; cursor?: string | undefined; notice?: string | undefined; error?: string },
) {
  const list = valueOf(await alerts.list({ limit: 50, open: !view.all, cursor: view.cursor }));
  return kit.page(request, reply, 'operator/alerts', {
    title: 'Alerts',
    all: view.all,
    alerts: list.data,
    nextCursor: list.nextCursor,
    debts: await ledger.negativePendingBalances(),
    canAcknowledge: staffMay(request, 'administer'),
    notice: view.notice,
    error: view.error,
  });
}

/** Money problems for the operator as a console page at `/alerts`, and its acknowledge form. */
export async function operatorAlertConsole(app: App, deps: AlertConsole): Promise<void> {
  app.get('/alerts', { config: { operator: 'read' } }, async (request, reply) => {
    const query = request.query as { all?: string; cursor?: string; notice?: string };
    const cursor = query.cursor !== undefined && /^\d{1,18}$/.test(query.cursor) ? query.cursor : undefined;
    return showAlerts(deps, request, reply, {
      all: query.all === '1',
      cursor,
      notice: query.notice === 'acknowledged' ? 'Alert acknowledged.' : undefined,
    });
  });

  app.post(
    '/alerts/:id/acknowledge',
    consoleRoute('administer', { params: IdParamsSchema, body: CsrfFormSchema }),
    async (request, reply) => {
      const acknowledged = await deps.commands.acknowledgeAlert(request.params.id, actorOf(request));
      if (acknowledged.ok) return redirectTo(reply, '/alerts', 'acknowledged');
      // A refusal (an alert that does not exist) is the list page with the reason, not the API's JSON.
      const error = toApiError(OPERATOR_ERRORS, acknowledged.error);
      reply.code(error.statusCode);
      return showAlerts(deps, request, reply, { all: false, error: error.message });
    },
  );
}
