import { toApiError } from '../../http/errors.js';
import type { App } from '../../http/server.js';
import { RATIO_SETTINGS_ERRORS } from '../disputes/ratios/errors.js';
import {
  DisputeRatiosSchema,
  OrganizationRatiosQuerySchema,
  RatioSettingsBodySchema,
  RatioSettingsSchema,
  WatchlistQuerySchema,
  WatchlistSchema,
} from '../disputes/ratios/schemas.js';
import type { DisputeRatioService } from '../disputes/ratios/service.js';
import type { OrganizationAdminService } from '../organizations/service.js';
import { apiRoute } from './api-kit.js';
import { actorOf } from './auth.js';
import { valueOf } from './errors.js';
import { IdParamsSchema } from './schemas.js';

/**
 * The card schemes' ratios for the operator (docs/dispute-ratios.md): the watchlist across merchants, one
 * organization's figures, and the platform's thresholds, minimum counts and count-once setting (admin,
 * audited).
 */
export async function operatorDisputeRatioApi(
  app: App,
  deps: { ratios: DisputeRatioService; organizations: Pick<OrganizationAdminService, 'get'> },
): Promise<void> {
  const { ratios } = deps;
  app.get(
    '/operator/v1/dispute-ratios/watchlist',
    apiRoute('read', WatchlistSchema, {
      description:
        'Organizations with card activity this month (UTC), ordered by how close they are to a threshold: ' +
        'for each, the level of any scheme and ratio it is closest to (proximity: the lesser of the ratio’s ' +
        'share of the level’s threshold and the count’s share of its minimum, 100.00 once crossed), that ' +
        'ratio so far and projected, and every level crossed this month.',
      querystring: WatchlistQuerySchema,
    }),
    async (request) =>
      ratios.watchlist({ environment: request.query.environment, limit: request.query.limit ?? 50 }),
  );
  app.get(
    '/operator/v1/organizations/:id/dispute-ratios',
    apiRoute('read', DisputeRatiosSchema, {
      description:
        'One organization’s ratios, as the merchant sees them (`GET /v1/dispute-ratios`), in `environment` ' +
        '(default `live`). An unknown organization is 404.',
      params: IdParamsSchema,
      querystring: OrganizationRatiosQuerySchema,
    }),
    async (request) => {
      const organization = valueOf(await deps.organizations.get(request.params.id));
      return ratios.ratios({
        organizationId: organization.id,
        environment: request.query.environment ?? 'live',
      });
    },
  );
  app.get(
    '/operator/v1/dispute-ratio-settings',
    apiRoute('read', RatioSettingsSchema, {
      description: 'The thresholds and minimum counts of each scheme’s levels, and the count-once setting.',
    }),
    async () => ratios.settings(),
  );
  app.put(
    '/operator/v1/dispute-ratio-settings',
    apiRoute('administer', RatioSettingsSchema, {
      description:
        'Replaces the levels and the count-once setting, effective at the next read and the next hourly ' +
        'evaluation. A threshold is a percentage above 0 and at most 100 with at most four decimals; a ' +
        'level’s months are in order; a level is named once per scheme in any month. Audited ' +
        '(`dispute_ratio_settings.updated`, with the reason).',
      body: RatioSettingsBodySchema,
    }),
    async (request) => {
      const updated = await ratios.updateSettings(request.body, actorOf(request));
      if (!updated.ok) throw toApiError(RATIO_SETTINGS_ERRORS, updated.error);
      return updated.value;
    },
  );
}
