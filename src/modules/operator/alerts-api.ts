import { Type } from 'typebox';
import { errorResponses } from '../../http/errors.js';
import type { App } from '../../http/server.js';
import type { LedgerService } from '../ledger/service.js';
import { apiRoute, ListOf, PageOf } from './api-kit.js';
import { OperatorAlertViewSchema } from './alert-view.js';
import type { OperatorAlerts } from './alerts.js';
import { actorOf } from './auth.js';
import type { OperatorCommands } from './commands.js';
import { valueOf } from './errors.js';
import { IdParamsSchema, PageQuerySchema } from './schemas.js';

const errors = errorResponses(400, 401, 403, 404, 429);

const NegativeBalanceSchema = Type.Object({
  organizationId: Type.String(),
  environment: Type.Enum(['sandbox', 'live']),
  currency: Type.Enum(['TRY']),
  pending: Type.String({ description: 'Below zero: decimal string of minor units.' }),
  debt: Type.String({ description: 'What the merchant owes: `-pending`.' }),
});

const AlertsQuerySchema = Type.Object(
  {
    ...PageQuerySchema.properties,
    open: Type.Optional(Type.Boolean({ description: 'Only alerts nobody has acknowledged.' })),
  },
  { additionalProperties: false },
);

/**
 * Money problems for the operator as JSON (docs/decisions/0013 and 0014): alerts raised by refused
 * provider notifications and by refunds that left a pending balance below zero, and the balances below
 * zero right now.
 */
export async function operatorAlertApi(
  app: App,
  deps: {
    alerts: OperatorAlerts;
    ledger: Pick<LedgerService, 'negativePendingBalances'>;
    commands: Pick<OperatorCommands, 'acknowledgeAlert'>;
  },
): Promise<void> {
  const { alerts, ledger, commands } = deps;

  app.get(
    '/operator/v1/alerts',
    apiRoute('read', PageOf(OperatorAlertViewSchema), { querystring: AlertsQuerySchema }, { errors }),
    async (request) => valueOf(await alerts.list(request.query)),
  );

  app.post(
    '/operator/v1/alerts/:id/acknowledge',
    apiRoute('administer', OperatorAlertViewSchema, { params: IdParamsSchema }, { errors }),
    async (request) => valueOf(await commands.acknowledgeAlert(request.params.id, actorOf(request))),
  );

  app.get(
    '/operator/v1/balances/negative',
    apiRoute('read', ListOf(NegativeBalanceSchema), {}, { errors }),
    async () => ({ data: await ledger.negativePendingBalances() }),
  );
}
