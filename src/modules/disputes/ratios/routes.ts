import { routeKit, failures } from '../../../http/api-routes.js';
import type { App } from '../../../http/server.js';
import { ownerOf } from '../../api-keys/context.js';
import { DisputeRatiosSchema } from './schemas.js';
import type { DisputeRatioService } from './service.js';

/** `GET /v1/dispute-ratios` (flag `disputes`, docs/dispute-ratios.md). */
export async function disputeRatioRoutes(
  app: App,
  options: { service: Pick<DisputeRatioService, 'ratios'> },
): Promise<void> {
  const kit = routeKit({ tags: ['Dispute ratios'], feature: 'disputes' });
  app.get(
    '/v1/dispute-ratios',
    kit.route(
      {
        operationId: 'getDisputeRatios',
        summary: 'Retrieve the card schemes’ ratios',
        description:
          'The ratios the card schemes watch, per scheme (the charge’s card brand), for this calendar month ' +
          '(UTC) so far: the Visa-style ratio (fraud warnings and disputes of the month over its settled ' +
          'card-not-present sales; a charge with both counts once unless the platform counts both) and the ' +
          'Mastercard-style ratio (chargebacks of the month over the previous month’s card sales), each with ' +
          'its counts, a projection to the month end (linear by elapsed time), the programme levels with ' +
          'whether they are crossed, and the six complete months before. Ratios are exact decimal strings. ' +
          'Needs scope `read`. Needs the `disputes` feature of the organization (403 `forbidden` without it).',
      },
      { response: { 200: DisputeRatiosSchema, ...failures('list') } },
    ),
    async (request) => options.service.ratios(ownerOf(request)),
  );
}
