import { randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { ApiError } from '../../http/errors.js';
import type { App } from '../../http/server.js';
import type { Locale } from '../../web/i18n.js';
import { formatAmount } from '../checkout/format.js';
import type { ChargeDetails, ChargeSearch, ChargeService, ChargeSort } from '../charges/service.js';
import { CHARGE_LIMITS, CHARGE_STATUSES, PAYMENT_METHODS } from '../charges/schemas.js';
import type { EventLookup } from '../events/lookup.js';
import type { Ledger } from '../ledger/index.js';
import type { RefundError } from '../refunds/errors.js';
import type { RefundView } from '../refunds/schemas.js';
import type { RefundService } from '../refunds/service.js';
import { contextOf, DASHBOARD_RATE_LIMITS, localeOf, type SignedIn } from '../users/http.js';
import type { UserService } from '../users/service.js';
import { webhookRefusal } from '../webhooks/errors.js';
import type { WebhookEndpointService } from '../webhooks/service.js';
import { format } from './i18n.js';
import { PageQuerySchema, type PageKit } from './kit.js';
import {
  PAYMENT_MESSAGES,
  type FilterProblem,
  type PaymentMessages,
  type RefundProblem,
} from './payment-i18n.js';

export interface DashboardPaymentPagesOptions {
  kit: PageKit;
  users: Pick<UserService, 'recordAudit'>;
  /** The charges of the session's environment: the list's search and the charge page's details. */
  charges: Pick<ChargeService, 'search' | 'details'>;
  /** The same service as `POST /v1/charges/{id}/refunds`: every refund rule applies. */
  refunds: Pick<RefundService, 'create' | 'list' | 'pendingTotal'>;
  /** The charge's fee, net and ledger lines. */
  ledger: Pick<Ledger, 'chargeEntries'>;
  /** The charge's webhook deliveries and their retry (the same as `POST /v1/webhook-deliveries/{id}/retry`). */
  webhooks: Pick<WebhookEndpointService, 'deliveriesForCharge' | 'retry'>;
  /** The events about the charge. */
  events: Pick<EventLookup, 'idsAboutCharge' | 'byIds'>;
}

/** Charges per page of the list. */
export const PAYMENT_PAGE_LIMIT = 25;
/** The newest refunds a payment's page lists; the API pages through all of them. */
export const REFUNDS_SHOWN = 100;
const SORTS = ['newest', 'oldest', 'amount_desc', 'amount_asc'] as const satisfies readonly ChargeSort[];
/** The list's refund filter: the status stays `succeeded` after a refund, so refunds have their own. */
const REFUND_FILTERS = ['any', 'full', 'partial', 'none'] as const satisfies readonly NonNullable<
  ChargeSearch['refunded']
>[];
const EMAIL_MAX = CHARGE_LIMITS.customerEmail;
const REFERENCE_MAX = CHARGE_LIMITS.merchantReference;
/** A form's free text is bounded before it is looked at; the checks below give the precise errors. */
const Text = Type.Optional(Type.String({ maxLength: 1000 }));
const NOTICES = ['refunded', 'refundPending', 'retried'] as const;
type Notice = (typeof NOTICES)[number];

const PaymentListQuerySchema = Type.Object({
  ...PageQuerySchema.properties,
  cursor: Type.Optional(Type.String({ maxLength: 512 })),
  status: Text,
  method: Text,
  from: Text,
  to: Text,
  min: Text,
  max: Text,
  reference: Text,
  email: Text,
  refunded: Text,
  q: Text,
  sort: Text,
});
const IdParamsSchema = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });
const RetryParamsSchema = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 64 }),
  deliveryId: Type.String({ minLength: 1, maxLength: 64 }),
});
const RefundQuerySchema = Type.Object({ ...PageQuerySchema.properties, amount: Text });
const Csrf = Type.Optional(Type.String({ maxLength: 200 }));
const RefundFormSchema = Type.Object(
  { _csrf: Csrf, amount: Type.String({ maxLength: 20 }), key: Type.String({ maxLength: 64 }) },
  { additionalProperties: false },
);
const CsrfFormSchema = Type.Object({ _csrf: Csrf }, { additionalProperties: false });

/** The filters as typed (shown back in the form) and as understood. */
interface ListForm {
  status: string;
  method: string;
  from: string;
  to: string;
  min: string;
  max: string;
  reference: string;
  email: string;
  refunded: string;
  /** The search box. */
  q: string;
  sort: string;
}

/**
 * The Payments pages of the merchant dashboard (issue 15 item 1): the charges of the session's
 * environment, filtered, sorted and cursor paged; the charge page with its timeline, refunds, events,
 * webhook deliveries (with retry) and ledger lines; and a refund of all or part of it, with a
 * confirmation step, for owners and admins, through the refunds service the API uses. Every role reads;
 * another organization's or environment's charge is 404. Card numbers and ID numbers are never shown:
 * the card is its brand and last four digits.
 */
export async function paymentPages(app: App, options: DashboardPaymentPagesOptions): Promise<void> {
  const { kit, charges, refunds, ledger, webhooks, events, users } = options;
  kit.handleErrors(app);

  const ownerOf = ({ account, session }: SignedIn) => ({
    organizationId: account.organization.id,
    environment: session.environment,
  });
  const pm = (request: FastifyRequest): PaymentMessages => PAYMENT_MESSAGES[localeOf(request)];
  const noSuchCharge = () => new ApiError('not_found', 'No such charge.');
  const chargePath = (id: string) => `/dashboard/payments/${encodeURIComponent(id)}`;

  const pageData = (request: FastifyRequest, current: SignedIn) => {
    const messages = pm(request);
    const locale = localeOf(request);
    return {
      title: () => messages.title,
      nav: true,
      csrf: current.session.csrfToken,
      environment: current.session.environment,
      pm: messages,
      money: (amount: string) => formatSigned(amount, locale),
      canRefund: kit.may(current, 'refundCharges'),
      canRetry: kit.may(current, 'manageWebhooks'),
    };
  };

  /** The signed-in user who may read payments; otherwise the redirect to login or the refusal page. */
  const reader = async (request: FastifyRequest, reply: FastifyReply): Promise<SignedIn | undefined> => {
    const current = await kit.signedIn(request, reply);
    if (!current) return undefined;
    if (kit.may(current, 'readPayments')) return current;
    await kit.render(request, reply, 'dashboard-message', 403, {
      title: () => pm(request).title,
      text: () => ({ title: pm(request).title, body: pm(request).notPermitted }),
      link: 'none',
    });
    return undefined;
  };

  // ---------------------------------------------------------------- the list

  app.get(
    '/dashboard/payments',
    { schema: { hide: true, querystring: PaymentListQuerySchema } },
    async (request, reply) => {
      const current = await reader(request, reply);
      if (!current) return reply;
      const q = request.query;
      const form: ListForm = {
        status: q.status?.trim() ?? '',
        method: q.method?.trim() ?? '',
        from: q.from?.trim() ?? '',
        to: q.to?.trim() ?? '',
        min: q.min?.trim() ?? '',
        max: q.max?.trim() ?? '',
        reference: q.reference?.trim() ?? '',
        email: q.email?.trim() ?? '',
        refunded: q.refunded?.trim() ?? '',
        q: q.q?.trim() ?? '',
        sort: q.sort?.trim() ?? '',
      };
      const parsed = parseFilters(form);
      const cursor = q.cursor === '' ? undefined : q.cursor;
      // Only what the user typed travels in the links: an empty filter is no filter.
      const filterParams = Object.fromEntries(
        Object.entries(form).filter(([, value]) => value !== ''),
      ) as Record<string, string>;
      const render = (status: number, extra: Record<string, unknown>) =>
        kit.render(request, reply, 'dashboard-payments', status, {
          ...pageData(request, current),
          form,
          filterParams,
          filtered: Object.keys(filterParams).some((key) => key !== 'sort'),
          statuses: CHARGE_STATUSES,
          refundFilters: REFUND_FILTERS,
          methods: PAYMENT_METHODS,
          sorts: SORTS,
          limits: { email: EMAIL_MAX, reference: REFERENCE_MAX },
          amountExample: localeOf(request) === 'tr' ? '125,50' : '125.50',
          problems: [],
          charges: [],
          nextCursor: null,
          paged: false,
          ...extra,
        });
      if (!parsed.ok) return render(400, { problems: parsed.problems });
      const listed = await charges.search(ownerOf(current), {
        limit: PAYMENT_PAGE_LIMIT,
        filter: parsed.filter,
        sort: parsed.sort,
        ...(cursor === undefined ? {} : { cursor }),
      });
      if (!listed.ok) return render(400, { problems: ['cursor'] satisfies FilterProblem[] });
      return render(200, {
        charges: listed.value.data.map((charge) => ({ ...charge, refundState: refundStateOf(charge) })),
        nextCursor: listed.value.nextCursor,
        paged: cursor !== undefined,
      });
    },
  );

  // ---------------------------------------------------------------- the charge page

  interface ChargePageExtra {
    notice?: Notice;
    refundProblem?: { key: RefundProblem; values: Record<string, string> };
    refundAmount?: string;
    /** The user's role cannot refund: said where the refund form would be. */
    refused?: boolean;
  }

  const chargePage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    current: SignedIn,
    id: string,
    status: number,
    extra: ChargePageExtra = {},
  ) => {
    const owner = ownerOf(current);
    const found = await charges.details(owner, id);
    if (!found.ok) throw noSuchCharge();
    const details = found.value;
    const charge = details.charge;
    const [listedRefunds, pendingRefunds] = await Promise.all([
      refunds.list(owner, charge.id, { limit: REFUNDS_SHOWN }),
      refunds.pendingTotal(owner, charge.id).then(BigInt),
    ]);
    const chargeRefunds = listedRefunds.ok ? listedRefunds.value.data : [];
    const moreRefunds = listedRefunds.ok && listedRefunds.value.nextCursor !== null;
    const [entries, deliveries, eventIds] = await Promise.all([
      ledger.chargeEntries(
        owner,
        charge.id,
        chargeRefunds.map((refund) => refund.id),
      ),
      webhooks.deliveriesForCharge(owner, charge.id),
      events.idsAboutCharge(owner.organizationId, charge.id),
    ]);
    const eventRows = await events.byIds(eventIds);
    const chargeEvents = [...eventRows.entries()]
      .map(([eventId, event]) => ({
        id: eventId,
        type: event.type,
        createdAt: typeof event.payload.createdAt === 'string' ? event.payload.createdAt : '',
      }))
      .sort((a, b) =>
        a.createdAt === b.createdAt ? a.id.localeCompare(b.id) : a.createdAt < b.createdAt ? -1 : 1,
      );
    const booked = entries.find((entry) => entry.kind === 'charge_succeeded');
    const postingOf = (account: string) =>
      booked?.postings.find((posting) => posting.account === account)?.amount;
    const feePosting = postingOf('fee_revenue');
    const netPosting = postingOf('merchant_pending');
    const locale = localeOf(request);
    const refundable =
      charge.status === 'succeeded'
        ? BigInt(charge.amount) - BigInt(charge.amountRefunded) - pendingRefunds
        : 0n;
    const data = pageData(request, current);
    const messages = data.pm;
    return kit.render(request, reply, 'dashboard-payment', status, {
      ...data,
      title: () => `${data.money(charge.amount)} · ${charge.merchantReference}`,
      charge,
      details,
      refunds: chargeRefunds,
      moreRefunds: moreRefunds ? format(messages.moreRefunds, { count: chargeRefunds.length }) : undefined,
      entries,
      deliveries,
      events: chargeEvents,
      fee: feePosting === undefined ? null : negate(feePosting),
      net: netPosting === undefined ? null : negate(netPosting),
      lines: moneyLinesOf(entries, messages, locale),
      refundState: refundStateOf(charge),
      refundable: refundable > 0n ? refundable.toString() : '0',
      timeline: timelineOf(details, chargeRefunds, messages, data.money),
      notice: extra.notice,
      refundProblem: extra.refundProblem
        ? format(messages.refund.problems[extra.refundProblem.key], extra.refundProblem.values)
        : undefined,
      refundAmount: extra.refundAmount ?? '',
      refused: extra.refused ?? false,
    });
  };

  app.get(
    '/dashboard/payments/:id',
    { schema: { hide: true, querystring: PageQuerySchema, params: IdParamsSchema } },
    async (request, reply) => {
      const current = await reader(request, reply);
      if (!current) return reply;
      const notice = NOTICES.find((value) => value === request.query.notice);
      return chargePage(request, reply, current, request.params.id, 200, notice ? { notice } : {});
    },
  );

  // ---------------------------------------------------------------- refund: the confirmation step

  /** The owner or admin refunding; otherwise the charge page (404 if it is not theirs) with the refusal. */
  const refunder = async (
    request: FastifyRequest,
    reply: FastifyReply,
    current: SignedIn,
    id: string,
  ): Promise<boolean> => {
    if (kit.may(current, 'refundCharges')) return true;
    await chargePage(request, reply, current, id, 403, { refused: true });
    return false;
  };

  app.get(
    '/dashboard/payments/:id/refund',
    { schema: { hide: true, querystring: RefundQuerySchema, params: IdParamsSchema } },
    async (request, reply) => {
      const current = await reader(request, reply);
      if (!current) return reply;
      const { id } = request.params;
      if (!(await refunder(request, reply, current, id))) return reply;
      const found = await charges.details(ownerOf(current), id);
      if (!found.ok) throw noSuchCharge();
      const charge = found.value.charge;
      const typed = request.query.amount?.trim() ?? '';
      const pending = BigInt(await refunds.pendingTotal(ownerOf(current), charge.id));
      const remaining = BigInt(charge.amount) - BigInt(charge.amountRefunded) - pending;
      const locale = localeOf(request);
      const problem = (key: RefundProblem, values: Record<string, string> = {}) =>
        chargePage(request, reply, current, id, key === 'exceeds' || key === 'amount' ? 400 : 409, {
          refundProblem: { key, values },
          refundAmount: typed,
        });
      if (charge.status !== 'succeeded') return problem('not_refundable');
      if (remaining <= 0n) return problem('nothing_left');
      let amount = remaining;
      if (typed !== '') {
        const parsed = parseAmount(typed);
        if (parsed === undefined || parsed <= 0n) return problem('amount');
        if (parsed > remaining)
          return problem('exceeds', { amount: formatSigned(remaining.toString(), locale) });
        amount = parsed;
      }
      const messages = pm(request);
      // The charge's fee as its ledger entry recorded it: what this refund does not give back.
      const [booked] = await ledger.chargeEntries(ownerOf(current), charge.id, []);
      const fee = booked?.postings.find((posting) => posting.account === 'fee_revenue')?.amount;
      return kit.render(request, reply, 'dashboard-payment-refund', 200, {
        ...pageData(request, current),
        title: () => messages.refund.confirmTitle,
        charge,
        amount: amount.toString(),
        fee: fee === undefined ? '0' : negate(fee),
        key: randomBytes(18).toString('base64url'),
      });
    },
  );

  app.post(
    '/dashboard/payments/:id/refund',
    {
      schema: { hide: true, querystring: PageQuerySchema, params: IdParamsSchema, body: RefundFormSchema },
      config: { rateLimit: DASHBOARD_RATE_LIMITS.accountSettings },
    },
    async (request, reply) => {
      const current = await kit.signedInPost(request, reply);
      if (!current) return reply;
      const { id } = request.params;
      if (!(await refunder(request, reply, current, id))) return reply;
      const locale = localeOf(request);
      const { amount, key } = request.body;
      const problem = (status: number, key: RefundProblem, values: Record<string, string> = {}) =>
        chargePage(request, reply, current, id, status, { refundProblem: { key, values } });
      if (!/^[1-9][0-9]{0,15}$/.test(amount) || BigInt(amount) > BigInt(Number.MAX_SAFE_INTEGER))
        return problem(400, 'amount');
      // The confirmation page's key, unchanged: anything else is a forged or broken form.
      if (!/^[A-Za-z0-9_-]{16,64}$/.test(key)) {
        throw ApiError.validation([
          { path: 'key', in: 'body', code: 'invalid_value', message: 'not the confirmation form' },
        ]);
      }
      const made = await refunds.create(
        ownerOf(current),
        id,
        { amount: Number(amount) },
        // The confirmation page's own key: a second submission of the same form is the same refund.
        { idempotencyKey: `dashboard:${key}` },
      );
      if (!made.ok) {
        const error: RefundError = made.error;
        switch (error.code) {
          case 'charge_not_found':
            throw noSuchCharge();
          case 'idempotency_key_reuse':
            // The confirmation page's key with another amount: a forged or broken form.
            throw ApiError.validation([
              { path: 'key', in: 'body', code: 'invalid_value', message: 'not the confirmation form' },
            ]);
          case 'exceeds_refundable':
            return problem(400, 'exceeds', { amount: formatSigned(error.remaining, locale) });
          case 'nothing_to_refund':
            return problem(409, 'nothing_left');
          case 'charge_not_refundable':
            return problem(409, 'not_refundable');
          case 'provider_rejected':
            return problem(502, 'rejected', { message: error.message });
          case 'provider_unavailable':
            await audit(request, current, id, error.refundId, amount);
            return kit.redirect(request, reply, chargePath(id), { notice: 'refundPending' });
          case 'acquirer_not_configured':
            return problem(503, 'not_configured');
        }
      }
      await audit(request, current, id, made.value.id, made.value.amount);
      return kit.redirect(request, reply, chargePath(id), {
        notice: made.value.status === 'succeeded' ? 'refunded' : 'refundPending',
      });
    },
  );

  const audit = (
    request: FastifyRequest,
    current: SignedIn,
    chargeId: string,
    refundId: string,
    amount: string,
  ) =>
    users.recordAudit(current.account.user, 'charge.refunded', contextOf(request), {
      targetType: 'refund',
      targetId: refundId,
      after: { chargeId, amount, environment: current.session.environment },
    });

  // ---------------------------------------------------------------- webhook delivery retry

  app.post(
    '/dashboard/payments/:id/deliveries/:deliveryId/retry',
    {
      schema: { hide: true, querystring: PageQuerySchema, params: RetryParamsSchema, body: CsrfFormSchema },
      config: { rateLimit: DASHBOARD_RATE_LIMITS.accountSettings },
    },
    async (request, reply) => {
      const current = await kit.signedInPost(request, reply);
      if (!current) return reply;
      const { id, deliveryId } = request.params;
      const owner = ownerOf(current);
      if (!kit.may(current, 'manageWebhooks')) {
        await kit.message(
          request,
          reply,
          403,
          (m) => ({ title: m.brand, body: pm(request).notPermitted }),
          'none',
        );
        return reply;
      }
      const found = await charges.details(owner, id);
      if (!found.ok) throw noSuchCharge();
      // Only a delivery of an event about this charge is this page's to retry.
      const deliveries = await webhooks.deliveriesForCharge(owner, found.value.charge.id);
      const delivery = deliveries.find((candidate) => candidate.id === deliveryId && candidate.retryable);
      if (!delivery) throw new ApiError('not_found', 'No such webhook delivery.');
      const result = await webhooks.retry(owner, delivery.id);
      if (!result.ok) throw webhookRefusal(result.error);
      await users.recordAudit(current.account.user, 'webhook_delivery.retried', contextOf(request), {
        targetType: 'webhook_delivery',
        targetId: result.value.id,
        after: { endpointId: result.value.endpointId, eventId: result.value.eventId, chargeId: id },
      });
      return kit.redirect(request, reply, chargePath(id), { notice: 'retried' });
    },
  );
}

/** The filters of the list, each checked: the precise problems, never a server error. */
function parseFilters(
  form: ListForm,
): { ok: true; filter: ChargeSearch; sort: ChargeSort } | { ok: false; problems: FilterProblem[] } {
  const problems: FilterProblem[] = [];
  const filter: ChargeSearch = {};
  if (form.status !== '') {
    const status = CHARGE_STATUSES.find((value) => value === form.status);
    if (status) filter.status = status;
    else problems.push('status');
  }
  if (form.method !== '') {
    const method = PAYMENT_METHODS.find((value) => value === form.method);
    if (method) filter.method = method;
    else problems.push('method');
  }
  const from = form.from === '' ? undefined : parseDay(form.from);
  const to = form.to === '' ? undefined : parseDay(form.to);
  if (from === null) problems.push('createdFrom');
  if (to === null) problems.push('createdTo');
  if (from && to && from.getTime() > to.getTime()) problems.push('dateOrder');
  if (from) filter.createdFrom = from;
  // The last day is included: created before the next midnight (UTC, as the dashboard shows times).
  if (to) filter.createdBefore = new Date(to.getTime() + 86_400_000);
  const min = form.min === '' ? undefined : (parseAmount(form.min) ?? null);
  const max = form.max === '' ? undefined : (parseAmount(form.max) ?? null);
  if (min === null) problems.push('amountMin');
  if (max === null) problems.push('amountMax');
  if (typeof min === 'bigint' && typeof max === 'bigint' && min > max) problems.push('amountOrder');
  if (typeof min === 'bigint') filter.amountMin = min.toString();
  if (typeof max === 'bigint') filter.amountMax = max.toString();
  if (form.reference !== '') {
    if (form.reference.length > REFERENCE_MAX) problems.push('reference');
    else filter.reference = form.reference;
  }
  if (form.email !== '') {
    if (form.email.length > EMAIL_MAX) problems.push('email');
    else filter.email = form.email;
  }
  if (form.refunded !== '') {
    const refunded = REFUND_FILTERS.find((value) => value === form.refunded);
    if (refunded) filter.refunded = refunded;
    else problems.push('refunded');
  }
  if (form.q !== '') {
    if (form.q.length > EMAIL_MAX) problems.push('search');
    else filter.search = { kind: searchKindOf(form.q), value: form.q };
  }
  let sort: ChargeSort = 'newest';
  if (form.sort !== '') {
    const chosen = SORTS.find((value) => value === form.sort);
    if (chosen) sort = chosen;
    else problems.push('sort');
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, filter, sort };
}

/** What the search box was given, by its shape: a charge id, a card's last four, an e-mail, or a reference. */
function searchKindOf(text: string): 'id' | 'last4' | 'email' | 'reference' {
  if (/^ch_[0-9a-z]+$/.test(text)) return 'id';
  if (/^[0-9]{4}$/.test(text)) return 'last4';
  if (text.includes('@')) return 'email';
  return 'reference';
}

/** A day as `<input type="date">` sends it (YYYY-MM-DD), as midnight UTC; null when it is no such day. */
function parseDay(text: string): Date | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!match) return null;
  const date = new Date(`${text}T00:00:00.000Z`);
  if (Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== text) return null;
  return date;
}

/**
 * An amount of TRY as a merchant types it ("125.50", "125,50", "125"), in minor units; undefined when it
 * is not one. No thousands separators, at most two decimals, at most 2^53 - 1 minor units; never a float.
 */
export function parseAmount(text: string): bigint | undefined {
  const match = /^([0-9]{1,14})(?:[.,]([0-9]{1,2}))?$/.exec(text.trim());
  if (!match) return undefined;
  const value = BigInt(match[1] ?? '0') * 100n + BigInt((match[2] ?? '').padEnd(2, '0') || '0');
  return value > BigInt(Number.MAX_SAFE_INTEGER) ? undefined : value;
}

/** TRY minor units as the dashboard shows money, with a sign for a negative amount (a ledger debit). */
function formatSigned(amount: string, locale: Locale): string {
  const negative = amount.startsWith('-');
  return `${negative ? '-' : ''}${formatAmount(negative ? amount.slice(1) : amount, 'TRY', locale)}`;
}

function negate(amount: string): string {
  return (-BigInt(amount)).toString();
}

/** What refunds did to a charge whose status stays `succeeded`: all of it, part of it, or nothing. */
export function refundStateOf(charge: {
  amount: string;
  amountRefunded: string;
}): 'full' | 'partial' | undefined {
  const refunded = BigInt(charge.amountRefunded);
  if (refunded <= 0n) return undefined;
  return refunded >= BigInt(charge.amount) ? 'full' : 'partial';
}

interface MoneyLine {
  kind: string;
  account: string;
  /** The posting as the ledger holds it: debits positive, credits negative. */
  amount: string;
  createdAt: Date | string;
  label: string;
  /** From the merchant's side: a change of its balance signed (+ credited, − taken), other lines unsigned. */
  shown: string;
}

/**
 * The charge's ledger lines as the merchant reads them. A posting's sign is the ledger's (a credit to the
 * merchant's pending account is negative), which read as "-TRY 120.11" for the merchant's own money: the
 * merchant's lines are signed from its side, the customer's and the fee's are amounts without a sign.
 */
function moneyLinesOf(
  entries: ReadonlyArray<{
    kind: string;
    createdAt: Date | string;
    postings: ReadonlyArray<{ account: string; amount: string }>;
  }>,
  m: PaymentMessages,
  locale: Locale,
): MoneyLine[] {
  return entries.flatMap((entry) =>
    entry.postings.map((posting) => {
      const amount = BigInt(posting.amount);
      const magnitude = (amount < 0n ? -amount : amount).toString();
      const ours = posting.account === 'merchant_pending';
      const sign = amount < 0n ? '+' : '-';
      return {
        kind: entry.kind,
        account: posting.account,
        amount: posting.amount,
        createdAt: entry.createdAt,
        label:
          m.moneyLines[`${entry.kind}:${posting.account}`] ??
          `${m.ledgerKinds[entry.kind] ?? entry.kind} · ${m.accounts[posting.account] ?? posting.account}`,
        shown: ours
          ? `${sign}${formatAmount(magnitude, 'TRY', locale)}`
          : formatAmount(magnitude, 'TRY', locale),
      };
    }),
  );
}

interface TimelineItem {
  at: string;
  kind: string;
  text: string;
}

/** What the charge's data says happened, oldest first. */
function timelineOf(
  details: ChargeDetails,
  chargeRefunds: RefundView[],
  m: PaymentMessages,
  money: (amount: string) => string,
): TimelineItem[] {
  const { charge } = details;
  const items: TimelineItem[] = [{ at: charge.createdAt, kind: 'created', text: m.timeline.created }];
  // Each card attempt as the checkout recorded it; a charge attempted before attempts were recorded
  // (migration 0023) shows the count and the last card instead.
  for (const attempt of details.attempts) {
    items.push({
      at: attempt.at,
      kind: `attempt-${attempt.outcome}`,
      text: [
        format(m.timeline.attempt, { number: attempt.number }),
        m.timeline.attemptOutcomes[attempt.outcome],
        attempt.card === null
          ? ''
          : attempt.card.brand === null
            ? format(m.timeline.attemptCardNoBrand, { last4: attempt.card.last4 })
            : format(m.timeline.attemptCard, { brand: attempt.card.brand, last4: attempt.card.last4 }),
        attempt.failureCode === null ? '' : format(m.timeline.declineCode, { code: attempt.failureCode }),
      ]
        .filter((part) => part !== '')
        .join(' · '),
    });
  }
  if (details.cardAttempts > 0 && details.attempts.length === 0) {
    const card = charge.card;
    // The gateway keeps the count and the last card, not each attempt's time: the last attempt is when a
    // pending charge last changed, or when a final one ended (a refund changes a charge later).
    items.push({
      at: charge.status === 'pending' ? charge.updatedAt : (details.finalizedAt ?? charge.updatedAt),
      kind: 'attempts',
      text: [
        format(m.timeline.attempts, { count: details.cardAttempts }),
        card ? format(m.timeline.lastCard, { brand: card.brand, last4: card.last4 }) : '',
      ]
        .filter((part) => part !== '')
        .join(' · '),
    });
  }
  if (charge.status === 'pending' && charge.providerStatus === 'requires_action') {
    items.push({ at: charge.updatedAt, kind: 'three-ds', text: m.timeline.threeDs });
  }
  for (const notification of details.notifications) {
    const card = notification.card;
    items.push({
      at: notification.receivedAt,
      kind: 'notification',
      text: [
        format(m.timeline.notification, { type: notification.type, outcome: notification.outcome }),
        card ? format(m.timeline.lastCard, { brand: card.brand, last4: card.last4 }) : '',
      ]
        .filter((part) => part !== '')
        .join(' · '),
    });
  }
  if (details.finalizedAt !== null && charge.status !== 'pending') {
    items.push({ at: details.finalizedAt, kind: charge.status, text: m.timeline[charge.status] });
  }
  for (const refund of chargeRefunds) {
    items.push({
      at: refund.createdAt,
      kind: 'refund',
      text: format(m.timeline.refund, {
        amount: money(refund.amount),
        status: m.refundStatuses[refund.status],
      }),
    });
  }
  if (charge.status === 'pending') {
    items.push({ at: charge.expiresAt, kind: 'expires', text: m.timeline.expires });
  }
  return items.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
}
