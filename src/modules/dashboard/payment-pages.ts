import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { ApiError } from '../../http/errors.js';
import { contextOf, localeOf, type SignedIn } from '../users/http.js';
import { webhookRefusal } from '../webhooks/errors.js';
import { format } from './i18n.js';
import { CsrfFormSchema, IdParamsSchema, ownerOf, pageSchema, type PageRequest } from './kit.js';
import { PAYMENT_MESSAGES, type PaymentMessages, type RefundProblem } from './payment-i18n.js';
import { formatSigned, moneyLinesOf, negate, refundStateOf, timelineOf } from './payment-views.js';
import type { DashboardPaymentPagesOptions } from './payment-options.js';

/** The newest refunds a payment's page lists; the API pages through all of them. */
export const REFUNDS_SHOWN = 100;
const NOTICES = ['refunded', 'refundPending', 'retried'] as const;
type Notice = (typeof NOTICES)[number];

const RetryParamsSchema = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 64 }),
  deliveryId: Type.String({ minLength: 1, maxLength: 64 }),
});

export const ChargeRoute = pageSchema({ params: IdParamsSchema });
export const ChargeRetryRoute = pageSchema({ params: RetryParamsSchema, body: CsrfFormSchema });

export const pm = (request: FastifyRequest): PaymentMessages => PAYMENT_MESSAGES[localeOf(request)];
export const noSuchCharge = () => new ApiError('not_found', 'No such charge.');
export const chargePath = (id: string) => `/dashboard/payments/${encodeURIComponent(id)}`;

export function pageData({ kit }: DashboardPaymentPagesOptions, request: FastifyRequest, current: SignedIn) {
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
}

/** The signed-in user who may read payments; otherwise the redirect to login or the refusal page. */
export const reader = ({ kit }: DashboardPaymentPagesOptions, request: FastifyRequest, reply: FastifyReply) =>
  kit.reader(request, reply, {
    permission: 'readPayments',
    refused: () =>
      kit.render(request, reply, 'dashboard-message', 403, {
        title: () => pm(request).title,
        text: () => ({ title: pm(request).title, body: pm(request).notPermitted }),
        link: 'none',
      }),
  });

// ---------------------------------------------------------------- the charge page

interface ChargePageExtra {
  notice?: Notice;
  refundProblem?: { key: RefundProblem; values: Record<string, string> };
  refundAmount?: string;
  /** The user's role cannot refund: said where the refund form would be. */
  refused?: boolean;
}

export async function chargePage(
  options: DashboardPaymentPagesOptions,
  request: FastifyRequest,
  reply: FastifyReply,
  current: SignedIn,
  id: string,
  status: number,
  extra: ChargePageExtra = {},
) {
  const { kit, charges, refunds, ledger, webhooks, events } = options;
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
  const data = pageData(options, request, current);
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
}

export async function showCharge(
  options: DashboardPaymentPagesOptions,
  request: PageRequest<typeof ChargeRoute>,
  reply: FastifyReply,
  current: SignedIn,
) {
  const notice = NOTICES.find((value) => value === request.query.notice);
  return chargePage(options, request, reply, current, request.params.id, 200, notice ? { notice } : {});
}

// ---------------------------------------------------------------- webhook delivery retry

export async function retryChargeDelivery(
  options: DashboardPaymentPagesOptions,
  request: PageRequest<typeof ChargeRetryRoute>,
  reply: FastifyReply,
) {
  const { kit, charges, webhooks, users } = options;
  const { id, deliveryId } = request.params;
  return kit.command(request, reply, {
    permission: 'manageWebhooks',
    refused: async () => {
      await kit.message(
        request,
        reply,
        403,
        (m) => ({ title: m.brand, body: pm(request).notPermitted }),
        'none',
      );
      return reply;
    },
    run: async (current) => {
      const owner = ownerOf(current);
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
      return { path: chargePath(id), notice: 'retried' };
    },
  });
}
