import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, envelope, errorResponses } from '../../http/errors.js';
import { toApiError, type App } from '../../http/server.js';
import { MINUTE, type Clock } from '../../shared/clock.js';
import { pickLocale, type Locale } from '../../web/i18n.js';
import { jsonForScript, type Renderer } from '../../web/render.js';
import type { ChargeRow } from '../charges/service.js';
import { CARD_LIMITS, type CardField, type CardIssue } from './card.js';
import type { BrandingService } from '../organizations/branding.js';
import { merchantHeader } from './brand.js';
import { formatAmount, formatIban, returnLink } from './format.js';
import { CHECKOUT_MESSAGES, failureReason, fill, type CheckoutMessages } from './i18n.js';
import {
  CardFormSchema,
  CheckoutParamsSchema,
  CheckoutStatusSchema,
  LangQuerySchema,
  ReturnQuerySchema,
} from './schemas.js';
import type {
  AcquirerProblem,
  BankTransferPage,
  CardPage,
  CheckoutPage,
  CheckoutService,
} from './service.js';

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

/** How often the "payment in progress" page reloads itself in a browser without JavaScript. */
const IN_PROGRESS_REFRESH_SECONDS = 3;

/** The routes live under this prefix (index.ts), so that every unknown `/c/…` path gets the 404 page. */
export const CHECKOUT_PREFIX = '/c';
const STATUS_ROUTE = '/:paymentId/status';
const BRANDS: Record<string, string> = {
  visa: 'Visa',
  mastercard: 'Mastercard',
  amex: 'American Express',
  troy: 'Troy',
};

interface CardFormState {
  issues?: Partial<Record<CardField, CardIssue>>;
  keep?: { holderName: string; expiry: string };
  formError?: string;
}

/** The hosted checkout's pages (product decision 18): server-rendered, Turkish and English, no inline code. */
export async function checkoutRoutes(app: App, options: CheckoutRoutesOptions): Promise<void> {
  const { checkout, renderer, clock } = options;

  const localeOf = (request: FastifyRequest): Locale => {
    const lang = (request.query as { lang?: unknown } | undefined)?.lang;
    return pickLocale(typeof lang === 'string' ? lang : undefined, request.headers['accept-language']);
  };
  const pathOf = (paymentId: string, suffix = '') =>
    `${CHECKOUT_PREFIX}/${encodeURIComponent(paymentId)}${suffix}`;
  const localized = (path: string, locale: Locale) => `${path}?lang=${locale}`;

  /**
   * Refuses form posts from another site (there is no session to protect, but nobody else's page may
   * drive a customer's payment). `Sec-Fetch-Site`, when sent, must say same-origin; `Origin`, when sent,
   * must be ours. `Origin: null` is what a browser sends for our own pages' posts under
   * `Referrer-Policy: no-referrer`, so it proves nothing either way: `Sec-Fetch-Site` decides then.
   */
  const sameOriginOnly = async (request: FastifyRequest) => {
    const site = request.headers['sec-fetch-site'];
    if (site !== undefined && site !== 'same-origin') {
      throw new ApiError('forbidden', 'Cross-site form posts are refused.');
    }
    const origin = request.headers.origin;
    if (origin === undefined || origin === 'null') return;
    const ours = [new URL(options.checkoutUrl()).origin, `${request.protocol}://${request.host}`];
    if (!ours.includes(origin)) throw new ApiError('forbidden', 'Cross-site form posts are refused.');
  };

  const render = async (
    request: FastifyRequest,
    reply: FastifyReply,
    view: string,
    status: number,
    data: {
      title: (m: CheckoutMessages) => string;
      charge?: ChargeRow;
      /** Where the language switch goes: the payment's page, or (unknown payment) this URL. */
      paymentId?: string;
    } & Record<string, unknown>,
  ) => {
    const locale = localeOf(request);
    const otherLocale: Locale = locale === 'en' ? 'tr' : 'en';
    const m = CHECKOUT_MESSAGES[locale];
    const { charge } = data;
    const branding = charge ? await options.branding.get(charge.organization_id) : undefined;
    const html = renderer.render(`checkout/${view}`, {
      ...data,
      merchant: branding ? merchantHeader(branding) : undefined,
      locale,
      otherLocale,
      m,
      title: data.title(m),
      switchHref:
        data.paymentId === undefined
          ? `?lang=${otherLocale}`
          : localized(pathOf(data.paymentId), otherLocale),
      sandbox: charge?.environment === 'sandbox',
      amount: charge ? formatAmount(charge.amount, charge.currency, locale) : undefined,
      fill,
    });
    return reply
      .code(status)
      .type('text/html; charset=utf-8')
      .header('cache-control', 'no-store')
      .header('content-language', locale)
      .header('x-robots-tag', 'noindex, nofollow')
      .send(html);
  };

  const message = (
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    text: (m: CheckoutMessages) => { title: string; body: string },
    extra: { charge?: ChargeRow; paymentId?: string; retry?: boolean } = {},
  ) =>
    render(request, reply, 'message', status, {
      ...extra,
      title: (m) => text(m).title,
      text,
      retryHref:
        extra.retry && extra.paymentId ? localized(pathOf(extra.paymentId), localeOf(request)) : undefined,
    });

  const showPage = (request: FastifyRequest, reply: FastifyReply, paymentId: string) =>
    reply
      .code(303)
      .header('cache-control', 'no-store')
      .redirect(localized(pathOf(paymentId), localeOf(request)), 303);

  const renderCard = (
    request: FastifyRequest,
    reply: FastifyReply,
    page: CardPage,
    status: number,
    state: CardFormState = {},
  ) => {
    const locale = localeOf(request);
    const m = CHECKOUT_MESSAGES[locale];
    const paymentId = page.charge.provider_payment_id ?? '';
    const now = clock.now();
    return render(request, reply, 'card', status, {
      title: (messages) => messages.card.title,
      charge: page.charge,
      paymentId,
      action: localized(pathOf(paymentId, '/card'), locale),
      attemptsLeft: page.attemptsLeft,
      decline: page.lastDecline ? failureReason(m, page.lastDecline) : undefined,
      issues: state.issues ?? {},
      values: state.keep ?? { holderName: '', expiry: '' },
      formError: state.formError ?? (state.issues ? m.card.fix : undefined),
      limits: CARD_LIMITS,
      clientData: jsonForScript({
        issues: m.card.issues,
        fix: m.card.fix,
        paying: m.card.paying,
        // The server's month, so that the browser's expiry check agrees with the acquirer's clock.
        month: `${now.getUTCFullYear()}-${String(now.getUTCMonth() + 1).padStart(2, '0')}`,
      }),
    });
  };

  const renderBankTransfer = (
    request: FastifyRequest,
    reply: FastifyReply,
    page: BankTransferPage,
    status: number,
    formError?: string,
  ) => {
    const locale = localeOf(request);
    const paymentId = page.charge.provider_payment_id ?? '';
    return render(request, reply, 'bank-transfer', status, {
      title: (m) => m.bankTransfer.title,
      charge: page.charge,
      paymentId,
      instructions: page.instructions,
      iban: page.instructions ? formatIban(page.instructions.iban) : undefined,
      showSimulate: page.sandbox,
      simulateAction: localized(pathOf(paymentId, '/simulate-transfer'), locale),
      statusUrl: pathOf(paymentId, '/status'),
      pageUrl: localized(pathOf(paymentId), locale),
      formError,
    });
  };

  const problemText = (m: CheckoutMessages, problem: AcquirerProblem) =>
    problem === 'rejected' ? m.card.notProcessed : m.card.unavailable;
  const problemStatus = (problem: AcquirerProblem) => (problem === 'rejected' ? 502 : 503);

  const showCheckoutPage = (
    request: FastifyRequest,
    reply: FastifyReply,
    paymentId: string,
    page: CheckoutPage,
  ) => {
    switch (page.kind) {
      case 'not_found':
        return message(
          request,
          reply,
          404,
          (m) => ({ title: m.errors.notFoundTitle, body: m.errors.notFound }),
          {
            paymentId,
          },
        );
      case 'card':
        return renderCard(request, reply, page, 200);
      case 'bank_transfer':
        return renderBankTransfer(request, reply, page, 200);
      case 'challenge':
        return render(request, reply, 'challenge', 200, {
          title: (m) => m.challenge.title,
          charge: page.charge,
          paymentId,
          challengeUrl: page.url,
        });
      case 'in_progress':
        return render(request, reply, 'in-progress', 200, {
          title: (m) => m.inProgress.title,
          charge: page.charge,
          paymentId,
          // checkout.js asks for the page again until the attempt's outcome is on the charge; without a
          // script, a <noscript> refresh reloads it.
          refreshSeconds: IN_PROGRESS_REFRESH_SECONDS,
          pageHref: localized(pathOf(paymentId), localeOf(request)),
        });
      case 'attempts_exhausted':
        return message(
          request,
          reply,
          200,
          (m) => ({ title: m.attemptsExhausted.title, body: m.attemptsExhausted.body }),
          { charge: page.charge, paymentId },
        );
      case 'unavailable':
        return message(
          request,
          reply,
          503,
          (m) => ({ title: m.errors.unavailableTitle, body: m.errors.unavailable }),
          { charge: page.charge, paymentId, retry: true },
        );
      case 'succeeded':
      case 'failed':
      case 'expired': {
        const m = CHECKOUT_MESSAGES[localeOf(request)];
        const { charge } = page;
        return render(request, reply, 'outcome', 200, {
          title: (messages) => messages[page.kind === 'succeeded' ? 'paid' : page.kind].title,
          outcome: page.kind,
          charge,
          paymentId,
          paidWith:
            charge.payment_method === 'bank_transfer'
              ? m.paid.bankTransfer
              : charge.card_last4 !== null
                ? `${BRANDS[charge.card_brand ?? ''] ?? m.paid.card} •••• ${charge.card_last4}`
                : m.paid.card,
          reason:
            page.kind === 'failed'
              ? failureReason(m, { code: charge.failure_code, message: charge.failure_message })
              : undefined,
          returnHref: returnLink(charge.return_url, charge.id, page.kind),
        });
      }
    }
  };

  // Failures of these routes (a cross-site post, the rate limit, a malformed form, a bug) are pages too;
  // the status endpoint answers the JSON envelope.
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
          return { title: m.errors.notFoundTitle, body: m.errors.notFound };
        case 'validation_failed':
        case 'unsupported_media_type':
        case 'payload_too_large':
          return { title: m.errors.errorTitle, body: m.errors.invalidRequest };
        default:
          return { title: m.errors.errorTitle, body: `${m.errors.generic} ${request.id}` };
      }
    };
    const paymentId = (request.params as { paymentId?: unknown } | undefined)?.paymentId;
    return message(request, reply, apiError.statusCode, body, {
      ...(typeof paymentId === 'string' && paymentId.length <= 255 ? { paymentId } : {}),
    });
  });

  // Any other path under /c/ (a mangled link, an id longer than a route parameter may be) is a page too.
  app.setNotFoundHandler((request, reply) =>
    message(request, reply, 404, (m) => ({ title: m.errors.notFoundTitle, body: m.errors.notFound })),
  );

  app.get(
    '/:paymentId',
    { schema: { hide: true, params: CheckoutParamsSchema, querystring: LangQuerySchema } },
    async (request, reply) => {
      const { paymentId } = request.params;
      return showCheckoutPage(request, reply, paymentId, await checkout.page(paymentId));
    },
  );

  app.post(
    '/:paymentId/card',
    {
      schema: {
        hide: true,
        params: CheckoutParamsSchema,
        querystring: LangQuerySchema,
        body: CardFormSchema,
      },
      onRequest: sameOriginOnly,
      config: { rateLimit: CHECKOUT_RATE_LIMITS.card },
    },
    async (request, reply) => {
      const { paymentId } = request.params;
      const locale = localeOf(request);
      const returnUrl = `${options.checkoutUrl()}${localized(pathOf(paymentId, '/return'), locale)}`;
      const result = await checkout.payByCard(paymentId, request.body, returnUrl);
      switch (result.outcome) {
        case 'not_found':
          return showCheckoutPage(request, reply, paymentId, { kind: 'not_found' });
        case 'show_page':
          return showPage(request, reply, paymentId);
        case 'invalid':
          // Shown again without the number and the CVC.
          return renderCard(request, reply, result.page, 422, { issues: result.issues, keep: result.keep });
        case 'acquirer_error':
          return renderCard(request, reply, result.page, problemStatus(result.problem), {
            formError: problemText(CHECKOUT_MESSAGES[locale], result.problem),
          });
      }
    },
  );

  app.get(
    '/:paymentId/return',
    { schema: { hide: true, params: CheckoutParamsSchema, querystring: ReturnQuerySchema } },
    async (request, reply) => {
      const { paymentId } = request.params;
      if ((await checkout.returned(paymentId)) === 'not_found') {
        return showCheckoutPage(request, reply, paymentId, { kind: 'not_found' });
      }
      return showPage(request, reply, paymentId);
    },
  );

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

  app.post(
    '/:paymentId/simulate-transfer',
    {
      schema: { hide: true, params: CheckoutParamsSchema, querystring: LangQuerySchema },
      onRequest: sameOriginOnly,
      config: { rateLimit: CHECKOUT_RATE_LIMITS.simulateTransfer },
    },
    async (request, reply) => {
      const { paymentId } = request.params;
      const result = await checkout.simulateTransfer(paymentId);
      switch (result.outcome) {
        case 'not_found':
          return showCheckoutPage(request, reply, paymentId, { kind: 'not_found' });
        case 'show_page':
          return showPage(request, reply, paymentId);
        case 'acquirer_error':
          return renderBankTransfer(
            request,
            reply,
            result.page,
            problemStatus(result.problem),
            problemText(CHECKOUT_MESSAGES[localeOf(request)], result.problem),
          );
      }
    },
  );
}
