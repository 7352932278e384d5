import { errorResponses } from '../../http/errors.js';
import type { App } from '../../http/server.js';
import { callerOf } from '../api-keys/context.js';
import { BalanceViewSchema, type BalanceView } from './schemas.js';
import type { LedgerService } from './service.js';

export interface BalanceRoutesOptions {
  ledger: LedgerService;
}

/** GET /v1/balance (product decision 23). */
export async function balanceRoutes(app: App, options: BalanceRoutesOptions): Promise<void> {
  const { ledger } = options;

  app.get(
    '/v1/balance',
    {
      schema: {
        operationId: 'getBalance',
        summary: 'Retrieve the balance',
        description:
          'What this environment owes your organization, per currency, as decimal strings of minor units, ' +
          'never negative: `pending` (succeeded charges net of fees, less refunds, awaiting the next daily ' +
          'batch), `available` (batched, not paid out), `inTransit` (in a payout not yet completed), ' +
          '`reserve` (held back by a rolling reserve until a later batch releases it) and `debt` (what you ' +
          'owe). A refund beyond what is left to settle (its card fee is not returned) makes `pending` `0` ' +
          'and the rest `debt`: each kuruş is counted once, so what you hold is `pending + available + ' +
          'inTransit + reserve - debt`. The next settlement recovers a debt from new credits before paying ' +
          'anything. Sandbox ' +
          'balances never settle to a real wallet (`POST /v1/test-helpers/settle` runs their batch now, paid ' +
          'out on the sandbox chain). Needs scope `read` (any key holding `read` or `all`).',
        tags: ['Balance'],
        response: { 200: BalanceViewSchema, ...errorResponses(401, 403, 429, 500) },
      },
      config: { auth: 'read' },
    },
    async (request): Promise<BalanceView> => {
      const caller = callerOf(request);
      const balances = await ledger.balance({
        organizationId: caller.organizationId,
        environment: caller.environment,
      });
      return { livemode: caller.environment === 'live', balances };
    },
  );
}
