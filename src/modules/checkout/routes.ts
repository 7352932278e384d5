import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { TSchema } from 'typebox';
import { ApiError, envelope, errorResponses } from '../../http/errors.js';
import { toApiError, type App } from '../../http/server.js';
import { MINUTE, type Clock } from '../../shared/clock.js';
import type { Renderer } from '../../web/render.js';
import type { BrandingService } from '../organizations/branding.js';
import { CHECKOUT_MESSAGES, type CheckoutMessages } from './i18n.js';
import {
  CHECKOUT_PREFIX,
  localeOf,
  localized,
  message,
  notFoundText,
  pathOf,
  problemStatus,
  problemText,
  renderBankTransfer,
  renderCard,
  showCheckoutPage,
  showStepOutcome,
} from './pages.js';
import {
  CardFormSchema,
  CheckoutParamsSchema,
  CheckoutStatusSchema,
  LangQuerySchema,
  ReturnQuerySchema,
} from './schemas.js';
import type { CheckoutService } from './service.js';

export interface CheckoutRoutesOptions {
  checkout: CheckoutService;
  /** The merchant a page shows in its header: the charge's organization's branding. */
  branding: Pick<BrandingService, 'get'>;
  renderer: Renderer;
  clock: Clock;
  /** `{checkout_url}`: the origin the pages are served from, and the base of the 3-D Secure return URL. */
  checkoutUrl: () => string;
}

/**
 * Per-IP limits (requests per minute), on top of the per-charge card attempts: the card form is what a
 * card tester would hammer; the status endpoint is polled every 2 seconds by an open bank-transfer page.
 */
export const CHECKOUT_RATE_LIMITS = {
  card: { max: 30, timeWindow: MINUTE },
  simulateTransfer: { max: 30, timeWindow: MINUTE },
  status: { max: 120, timeWindow: MINUTE },
} as const;

const STATUS_ROUTE = '/:paymentId/status';

/** The hosted checkout's pages (product decision 18): server-rendered, Turkish and English, no inline code. */
export async function checkoutRoutes(app: App, options: CheckoutRoutesOptions): Promise<void> {
  const sameOrigin = sameOriginOnly(options.checkoutUrl);
  errorPages(app, options);
  pageRoute(app, options);
  cardStepRoute(app, options, sameOrigin);
  challengeReturnRoute(app, options);
  bankTransferRoutes(app, options, sameOrigin);
}

/**
 * Refuses form posts from another site (there is no session to protect, but nobody else's page may
 * drive a customer's payment). `Sec-Fetch-Site`, when sent, must say same-origin; `Origin`, when sent,
 * must be ours. `Origin: null` is what a browser sends for our own pages' posts under
 * `Referrer-Policy: no-referrer`, so it proves nothing either way: `Sec-Fetch-Site` decides then.
 */
function sameOriginOnly(checkoutUrl: () => string) {
  return async (request: FastifyRequest) => {
    const site = request.headers['sec-fetch-site'];
    if (site !== undefined && site !== 'same-origin') {
      throw new ApiError('forbidden', 'Cross-site form posts are refused.');
    }
    const origin = request.headers.origin;
    if (origin === undefined || origin === 'null') return;
    const ours = [new URL(checkoutUrl()).origin, `${request.protocol}://${request.host}`];
    if (!ours.includes(origin)) throw new ApiError('forbidden', 'Cross-site form posts are refused.');
  };
}

type SameOriginHook = ReturnType<typeof sameOriginOnly>;

// Failures of these routes (a cross-site post, the rate limit, a malformed form, a bug) are pages too;
// the status endpoint answers the JSON envelope.
function errorPages(app: App, options: CheckoutRoutesOptions): void {
  app.setErrorHandler((error: FastifyError | ApiError, request, reply) => {
    const apiError = toApiError(error);
    if (apiError.statusCode >= 500) request.log.error({ err: error, code: apiError.code }, 'request failed');
    else request.log.info({ code: apiError.code, statusCode: apiError.statusCode }, 'request refused');
    if (request.routeOptions.url === `${CHECKOUT_PREFIX}${STATUS_ROUTE}`) {
      return reply
        .code(apiError.statusCode)
        .type('application/json; charset=utf-8')
        .header('cache-control', 'no-store')
        .send(envelope(apiError, request.id));
    }
    const body = (m: CheckoutMessages) => {
      switch (apiError.code) {
        case 'forbidden':
          return { title: m.errors.errorTitle, body: m.errors.crossSite };
        case 'too_many_requests':
          return { title: m.errors.errorTitle, body: m.errors.rateLimited };
        case 'not_found':
          return notFoundText(m);
        case 'validation_failed':
        case 'unsupported_media_type':
        case 'payload_too_large':
          return { title: m.errors.errorTitle, body: m.errors.invalidRequest };
        default:
          return { title: m.errors.errorTitle, body: `${m.errors.generic} ${request.id}` };
      }
    };
    const paymentId = (request.params as { paymentId?: unknown } | undefined)?.paymentId;
    return message(options, request, reply, apiError.statusCode, body, {
      ...(typeof paymentId === 'string' && paymentId.length <= 255 ? { paymentId } : {}),
    });
  });

  // Any other path under /c/ (a mangled link, an id longer than a route parameter may be) is a page too.
  app.setNotFoundHandler((request, reply) => message(options, request, reply, 404, notFoundText));
}

/**
 * A route of one payment (`:paymentId` in its path), hidden from the API document: a page (GET) or a
 * step without a form body (POST, with its same-origin check and per-IP limit).
 */
function paymentRoute(
  app: App,
  route: {
    method: 'GET' | 'POST';
    url: string;
    querystring: TSchema;
    onRequest?: SameOriginHook;
    rateLimit?: (typeof CHECKOUT_RATE_LIMITS)[keyof typeof CHECKOUT_RATE_LIMITS];
  },
  answer: (request: FastifyRequest, reply: FastifyReply, paymentId: string) => Promise<unknown>,
): void {
  app.route({
    method: route.method,
    url: route.url,
    schema: { hide: true, params: CheckoutParamsSchema, querystring: route.querystring },
    ...(route.onRequest ? { onRequest: route.onRequest } : {}),
    ...(route.rateLimit ? { config: { rateLimit: route.rateLimit } } : {}),
    handler: async (request, reply) => answer(request, reply, request.params.paymentId),
  });
}

/** `/c/<paymentId>`: whatever the charge is at, its page. */
function pageRoute(app: App, options: CheckoutRoutesOptions): void {
  const { checkout } = options;
  paymentRoute(
    app,
    { method: 'GET', url: '/:paymentId', querystring: LangQuerySchema },
    async (request, reply, paymentId) =>
      showCheckoutPage(options, request, reply, paymentId, await checkout.page(paymentId)),
  );
}

/** The card step: the form posted, the card sent to the acquirer. */
function cardStepRoute(app: App, options: CheckoutRoutesOptions, sameOrigin: SameOriginHook): void {
  const { checkout } = options;
  app.post(
    '/:paymentId/card',
    {
      schema: {
        hide: true,
        params: CheckoutParamsSchema,
        querystring: LangQuerySchema,
        body: CardFormSchema,
      },
      onRequest: sameOrigin,
      config: { rateLimit: CHECKOUT_RATE_LIMITS.card },
    },
    async (request, reply) => {
      const { paymentId } = request.params;
      const locale = localeOf(request);
      const returnUrl = `${options.checkoutUrl()}${localized(pathOf(paymentId, '/return'), locale)}`;
      const result = await checkout.payByCard(paymentId, request.body, returnUrl);
      switch (result.outcome) {
        case 'not_found':
        case 'show_page':
          return showStepOutcome(options, request, reply, paymentId, result.outcome);
        case 'invalid':
          // Shown again without the number and the CVC.
          return renderCard(options, request, reply, result.page, 422, {
            issues: result.issues,
            keep: result.keep,
          });
        case 'acquirer_error':
          return renderCard(options, request, reply, result.page, problemStatus(result.problem), {
            formError: problemText(CHECKOUT_MESSAGES[locale], result.problem),
          });
      }
    },
  );
}

/** Where the 3-D Secure page sends the customer back. */
function challengeReturnRoute(app: App, options: CheckoutRoutesOptions): void {
  const { checkout } = options;
  paymentRoute(
    app,
    { method: 'GET', url: '/:paymentId/return', querystring: ReturnQuerySchema },
    async (request, reply, paymentId) => {
      const found = (await checkout.returned(paymentId)) === 'found';
      return showStepOutcome(options, request, reply, paymentId, found ? 'show_page' : 'not_found');
    },
  );
}

/** The bank transfer: the status the open page polls, and the sandbox's simulated transfer. */
function bankTransferRoutes(app: App, options: CheckoutRoutesOptions, sameOrigin: SameOriginHook): void {
  const { checkout } = options;
  app.get(
    STATUS_ROUTE,
    {
      schema: {
        hide: true,
        params: CheckoutParamsSchema,
        response: { 200: CheckoutStatusSchema, ...errorResponses(404, 429) },
      },
      config: { rateLimit: CHECKOUT_RATE_LIMITS.status },
    },
    async (request, reply) => {
      const status = await checkout.status(request.params.paymentId);
      if (!status) throw new ApiError('not_found', 'No such payment.');
      return reply.header('cache-control', 'no-store').send(status);
    },
  );

  paymentRoute(
    app,
    {
      method: 'POST',
      url: '/:paymentId/simulate-transfer',
      querystring: LangQuerySchema,
      onRequest: sameOrigin,
      rateLimit: CHECKOUT_RATE_LIMITS.simulateTransfer,
    },
    async (request, reply, paymentId) => {
      const result = await checkout.simulateTransfer(paymentId);
      if (result.outcome !== 'acquirer_error') {
        return showStepOutcome(options, request, reply, paymentId, result.outcome);
      }
      return renderBankTransfer(
        options,
        request,
        reply,
        result.page,
        problemStatus(result.problem),
        problemText(CHECKOUT_MESSAGES[localeOf(request)], result.problem),
      );
    },
  );
}
