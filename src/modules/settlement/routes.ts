import { errorResponses } from '../../http/errors.js';
import type { App } from '../../http/server.js';
import { ownerOf } from '../api-keys/context.js';
import { SettleResultSchema, type SettleResult } from './schemas.js';
import type { SettlementBatches } from './batch.js';

/**
 * `POST /v1/test-helpers/settle`: registered on the sandbox listener only, so the live listener answers
 * 404 (like Stripe's test helpers).
 */
export async function settlementTestHelperRoutes(
  app: App,
  options: { settlement: Pick<SettlementBatches, 'settleNow'> },
): Promise<void> {
  app.post(
    '/v1/test-helpers/settle',
    {
      schema: {
        operationId: 'testHelperSettle',
        summary: "Run this organization's sandbox settlement batch now (test helper)",
        description:
          "Sandbox only (404 on the live API). Runs the sandbox balance's settlement batch now, through the " +
          'same code as the daily 03:00 UTC batch: everything credited to `pending` and not released before ' +
          'moves to `available` as the batch of today (UTC) or, when today already has one, of the next date ' +
          'without one; then the batch pays the available balance out automatically to the default sandbox ' +
          'wallet on the sandbox chain (`status: paid_out`, `payoutId`), or says why not (`carried` with ' +
          '`carryReason`: no default wallet, below the network minimum, manual payout schedule). Refunds ' +
          'beyond the new credits hold the release (`released: false`). Needs scope `write`. Sandbox funds ' +
          'never reach a real wallet.',
        tags: ['Balance'],
        response: { 200: SettleResultSchema, ...errorResponses(401, 403, 429, 500) },
      },
      config: { auth: 'write' },
    },
    async (request): Promise<SettleResult> => {
      const { organizationId, environment } = ownerOf(request);
      const outcome = await options.settlement.settleNow({ organizationId, environment });
      return outcome.batch !== null
        ? { released: true, batch: outcome.batch }
        : { released: false, reason: outcome.reason, batch: null };
    },
  );
}
