import { errorResponses } from '../../http/errors.js';
import type { App } from '../../http/server.js';
import { ownerOf } from '../api-keys/context.js';
import { SettleResultSchema, type SettleResult } from './schemas.js';
import type { SettlementService } from './service.js';

/**
 * `POST /v1/test-helpers/settle`: registered on the sandbox listener only, so the live listener answers
 * 404 (like Stripe's test helpers).
 */
export async function settlementTestHelperRoutes(
  app: App,
  options: { settlement: Pick<SettlementService, 'releaseNow'> },
): Promise<void> {
  app.post(
    '/v1/test-helpers/settle',
    {
      schema: {
        operationId: 'testHelperSettle',
        summary: 'Release the sandbox pending balance now (test helper)',
        description:
          "Sandbox only (404 on the live API). Releases everything credited to this organization's sandbox " +
          '`pending` balance and not released before into `available`, as the settlement batch of today ' +
          '(UTC) or, when today already has one, of the next date without one, so that payouts can be tried ' +
          'in the sandbox. Refunds beyond the new credits hold the release (`released: false`). Needs scope ' +
          '`write`. The daily batch (issue 14) will run through the same release.',
        tags: ['Balance'],
        response: { 200: SettleResultSchema, ...errorResponses(401, 403, 429, 500) },
      },
      config: { auth: 'write' },
    },
    async (request): Promise<SettleResult> => {
      const { organizationId, environment } = ownerOf(request);
      const outcome = await options.settlement.releaseNow({ organizationId, environment });
      return outcome.released
        ? { released: true, batch: outcome.batch }
        : { released: false, reason: outcome.reason, batch: null };
    },
  );
}
