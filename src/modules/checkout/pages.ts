import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../../shared/clock.js';
import { pickLocale, type Locale } from '../../web/i18n.js';
import { jsonForScript, type Renderer } from '../../web/render.js';
import type { ChargeRow } from '../charges/service.js';
import type { BrandingService } from '../organizations/branding.js';
import type { AcquirerProblem } from './acquirer-problems.js';
import { merchantHeader } from './brand.js';
import { CARD_LIMITS, type CardField, type CardIssue } from './card.js';
import { formatAmount, formatIban, returnLink } from './format.js';
import { CHECKOUT_MESSAGES, failureReason, fill, type CheckoutMessages } from './i18n.js';
import type { BankTransferPage, CardPage, CheckoutPage } from './page.js';

/** The checkout's HTML pages, as its routes answer with them. */

/** What the pages are drawn with (the routes' options). */
export interface CheckoutPageKit {
  renderer: Renderer;
  /** The merchant a page shows in its header: the charge's organization's branding. */
  branding: Pick<BrandingService, 'get'>;
  clock: Clock;
}

/** The routes live under this prefix (index.ts), so that every unknown `/c/…` path gets the 404 page. */
export const CHECKOUT_PREFIX = '/c';

/** How often the "payment in progress" page reloads itself in a browser without JavaScript. */
const IN_PROGRESS_REFRESH_SECONDS = 3;

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

export const localeOf = (request: FastifyRequest): Locale => {
  const lang = (request.query as { lang?: unknown } | undefined)?.lang;
  return pickLocale(typeof lang === 'string' ? lang : undefined, request.headers['accept-language']);
};
export const pathOf = (paymentId: string, suffix = '') =>
  `${CHECKOUT_PREFIX}/${encodeURIComponent(paymentId)}${suffix}`;
export const localized = (path: string, locale: Locale) => `${path}?lang=${locale}`;

export const render = async (
  kit: CheckoutPageKit,
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
  const branding = charge ? await kit.branding.get(charge.organization_id) : undefined;
  const html = kit.renderer.render(`checkout/${view}`, {
    ...data,
    merchant: branding ? merchantHeader(branding) : undefined,
    locale,
    otherLocale,
    m,
    title: data.title(m),
    switchHref:
      data.paymentId === undefined ? `?lang=${otherLocale}` : localized(pathOf(data.paymentId), otherLocale),
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

export const message = (
  kit: CheckoutPageKit,
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  text: (m: CheckoutMessages) => { title: string; body: string },
  extra: { charge?: ChargeRow; paymentId?: string; retry?: boolean } = {},
) =>
  render(kit, request, reply, 'message', status, {
    ...extra,
    title: (m) => text(m).title,
    text,
    retryHref:
      extra.retry && extra.paymentId ? localized(pathOf(extra.paymentId), localeOf(request)) : undefined,
  });

/** The words of the 404 page: an unknown payment or path. */
export const notFoundText = (m: CheckoutMessages) => ({
  title: m.errors.notFoundTitle,
  body: m.errors.notFound,
});

export const showPage = (request: FastifyRequest, reply: FastifyReply, paymentId: string) =>
  reply
    .code(303)
    .header('cache-control', 'no-store')
    .redirect(localized(pathOf(paymentId), localeOf(request)), 303);

/** A step's answer when there is nothing else to say: the 404 page of an unknown payment, else its page. */
export const showStepOutcome = (
  kit: CheckoutPageKit,
  request: FastifyRequest,
  reply: FastifyReply,
  paymentId: string,
  outcome: 'not_found' | 'show_page',
) =>
  outcome === 'not_found'
    ? message(kit, request, reply, 404, notFoundText, { paymentId })
    : showPage(request, reply, paymentId);

export const renderCard = (
  kit: CheckoutPageKit,
  request: FastifyRequest,
  reply: FastifyReply,
  page: CardPage,
  status: number,
  state: CardFormState = {},
) => {
  const locale = localeOf(request);
  const m = CHECKOUT_MESSAGES[locale];
  const paymentId = page.charge.provider_payment_id ?? '';
  const now = kit.clock.now();
  return render(kit, request, reply, 'card', status, {
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

export const renderBankTransfer = (
  kit: CheckoutPageKit,
  request: FastifyRequest,
  reply: FastifyReply,
  page: BankTransferPage,
  status: number,
  formError?: string,
) => {
  const locale = localeOf(request);
  const paymentId = page.charge.provider_payment_id ?? '';
  return render(kit, request, reply, 'bank-transfer', status, {
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

export const problemText = (m: CheckoutMessages, problem: AcquirerProblem) =>
  problem === 'rejected' ? m.card.notProcessed : m.card.unavailable;
export const problemStatus = (problem: AcquirerProblem) => (problem === 'rejected' ? 502 : 503);

export const showCheckoutPage = (
  kit: CheckoutPageKit,
  request: FastifyRequest,
  reply: FastifyReply,
  paymentId: string,
  page: CheckoutPage,
) => {
  switch (page.kind) {
    case 'not_found':
      return message(kit, request, reply, 404, notFoundText, { paymentId });
    case 'card':
      return renderCard(kit, request, reply, page, 200);
    case 'bank_transfer':
      return renderBankTransfer(kit, request, reply, page, 200);
    case 'challenge':
      return render(kit, request, reply, 'challenge', 200, {
        title: (m) => m.challenge.title,
        charge: page.charge,
        paymentId,
        challengeUrl: page.url,
      });
    case 'in_progress':
      return render(kit, request, reply, 'in-progress', 200, {
        title: (m) => m.inProgress.title,
        charge: page.charge,
        paymentId,
        // checkout.js asks for the page again until the attempt's outcome is on the charge; without a
        // script, a <noscript> refresh reloads it.
        refreshSeconds: IN_PROGRESS_REFRESH_SECONDS,
        pageHref: localized(pathOf(paymentId), localeOf(request)),
      });
    case 'attempts_exhausted':
      return message(kit, request, reply, 200, (m) => m.attemptsExhausted, {
        charge: page.charge,
        paymentId,
      });
    case 'unavailable':
      return message(
        kit,
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
      return render(kit, request, reply, 'outcome', 200, {
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
