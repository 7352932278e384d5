import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../../http/server.js';
import type { DisputeRatioService } from '../disputes/ratios/service.js';
import { localeOf, type SignedIn } from '../users/http.js';
import { DISPUTE_RATIO_MESSAGES, type DisputeRatioMessages } from './dispute-ratio-i18n.js';
import { RATIO_CHART_HEIGHT, RATIO_CHART_WIDTH } from './dispute-ratio-chart.js';
import { ratioPageView } from './dispute-ratio-views.js';
import {
  displayTime,
  guardedRoute,
  ownerOf,
  pageSchema,
  readerGuard,
  registerPages,
  type PageKit,
} from './kit.js';

export interface DisputeRatioPagesOptions {
  kit: PageKit;
  /** The same figures as `GET /v1/dispute-ratios`. */
  ratios: Pick<DisputeRatioService, 'ratios'>;
}

export const DISPUTE_RATIOS_PATH = '/dashboard/dispute-ratios';

const RatiosRoute = pageSchema({});

const rm = (request: FastifyRequest): DisputeRatioMessages => DISPUTE_RATIO_MESSAGES[localeOf(request)];

/** Every role that reads payments reads the ratios, of an organization with the `disputes` flag (else 404). */
const reader = readerGuard<DisputeRatioPagesOptions>(
  { permission: 'readPayments', feature: 'disputes' },
  ({ kit }, request, reply) =>
    kit.render(request, reply, 'dashboard-dispute-ratios', 403, {
      title: () => rm(request).title,
      rm: rm(request),
      refused: true,
    }),
);

/**
 * The chargeback-ratio page (issue 37 item 7, docs/dispute-ratios.md): for the session's organization
 * and environment, per card scheme, the Visa-style and Mastercard-style ratios of the month so far with
 * their counts, the projection to the month end, each level with how close the month is, and six months
 * of history drawn as a server-side SVG chart. The figures are `GET /v1/dispute-ratios`' own.
 */
export async function disputeRatioPages(app: App, options: DisputeRatioPagesOptions): Promise<void> {
  registerPages(app, options, [guardedRoute('GET', DISPUTE_RATIOS_PATH, RatiosRoute, reader, showRatios)]);
}

async function showRatios(
  { kit, ratios }: DisputeRatioPagesOptions,
  request: FastifyRequest,
  reply: FastifyReply,
  current: SignedIn,
) {
  const messages = rm(request);
  const locale = localeOf(request);
  const figures = ratioPageView(await ratios.ratios(ownerOf(current)), locale, messages);
  return kit.render(request, reply, 'dashboard-dispute-ratios', 200, {
    title: () => messages.title,
    rm: messages,
    refused: false,
    environment: current.session.environment,
    figures,
    asOfShown: displayTime(figures.asOf),
    chartWidth: RATIO_CHART_WIDTH,
    chartHeight: RATIO_CHART_HEIGHT,
  });
}
