import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { RefundError } from '../refunds/errors.js';
import { contextOf, localeOf, type SignedIn } from '../users/http.js';
import {
  AmountQuerySchema,
  confirmationOf,
  confirmedAmountValid,
  CONFIRMED_FORM,
  IdParamsSchema,
  notTheConfirmationForm,
  ownerOf,
  pageSchema,
  type PageRequest,
} from './kit.js';
import type { RefundProblem } from './payment-i18n.js';
import { chargePage, chargePath, noSuchCharge, pageData, pm } from './payment-pages.js';
import { amountToConfirm, formatSigned, negate } from './payment-views.js';
import type { DashboardPaymentPagesOptions } from './payment-options.js';

const RefundFormSchema = Type.Object(CONFIRMED_FORM, { additionalProperties: false });

export const RefundConfirmRoute = { hide: true, querystring: AmountQuerySchema, params: IdParamsSchema };
export const RefundRoute = pageSchema({ params: IdParamsSchema, body: RefundFormSchema });

/** The charge page (404 if it is not theirs) with the refusal, for a role that may not refund. */
const refusedRefund = (
  options: DashboardPaymentPagesOptions,
  request: FastifyRequest,
  reply: FastifyReply,
  current: SignedIn,
  id: string,
) => chargePage(options, request, reply, current, id, 403, { refused: true });

// ---------------------------------------------------------------- refund: the confirmation step

export async function confirmRefund(
  options: DashboardPaymentPagesOptions,
  request: PageRequest<typeof RefundConfirmRoute>,
  reply: FastifyReply,
  current: SignedIn,
) {
  const { kit, charges, refunds, ledger } = options;
  const { id } = request.params;
  // The owner or admin refunding; otherwise the refusal.
  if (!kit.may(current, 'refundCharges')) {
    await refusedRefund(options, request, reply, current, id);
    return reply;
  }
  const found = await charges.details(ownerOf(current), id);
  if (!found.ok) throw noSuchCharge();
  const charge = found.value.charge;
  const typed = request.query.amount?.trim() ?? '';
  const pending = BigInt(await refunds.pendingTotal(ownerOf(current), charge.id));
  const remaining = BigInt(charge.amount) - BigInt(charge.amountRefunded) - pending;
  const locale = localeOf(request);
  const problem = (key: RefundProblem, values: Record<string, string> = {}) =>
    chargePage(options, request, reply, current, id, key === 'exceeds' || key === 'amount' ? 400 : 409, {
      refundProblem: { key, values },
      refundAmount: typed,
    });
  if (charge.status !== 'succeeded') return problem('not_refundable');
  if (remaining <= 0n) return problem('nothing_left');
  const amount = amountToConfirm(typed, remaining);
  if (amount === undefined) return problem('amount');
  if (amount > remaining) return problem('exceeds', { amount: formatSigned(remaining.toString(), locale) });
  const messages = pm(request);
  // The charge's fee as its ledger entry recorded it: what this refund does not give back.
  const [booked] = await ledger.chargeEntries(ownerOf(current), charge.id, []);
  const fee = booked?.postings.find((posting) => posting.account === 'fee_revenue')?.amount;
  return kit.render(request, reply, 'dashboard-payment-refund', 200, {
    ...pageData(options, request, current),
    title: () => messages.refund.confirmTitle,
    charge,
    ...confirmationOf(amount),
    fee: fee === undefined ? '0' : negate(fee),
  });
}

// ---------------------------------------------------------------- refund: the confirmed form

export async function refund(
  options: DashboardPaymentPagesOptions,
  request: PageRequest<typeof RefundRoute>,
  reply: FastifyReply,
) {
  const { kit } = options;
  const { id } = request.params;
  return kit.command(request, reply, {
    permission: 'refundCharges',
    refused: async (current) => {
      await refusedRefund(options, request, reply, current, id);
      return reply;
    },
    run: (current) => makeRefund(options, request, reply, current, id),
  });
}

async function makeRefund(
  options: DashboardPaymentPagesOptions,
  request: PageRequest<typeof RefundRoute>,
  reply: FastifyReply,
  current: SignedIn,
  id: string,
) {
  const locale = localeOf(request);
  const { amount, key } = request.body;
  const problem = async (status: number, key: RefundProblem, values: Record<string, string> = {}) => ({
    reply: await chargePage(options, request, reply, current, id, status, { refundProblem: { key, values } }),
  });
  // The confirmation page's key, unchanged: anything else is a forged or broken form (thrown).
  if (!confirmedAmountValid(amount, key)) return problem(400, 'amount');
  const made = await options.refunds.create(
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
        throw notTheConfirmationForm();
      case 'exceeds_refundable':
        return problem(400, 'exceeds', { amount: formatSigned(error.remaining, locale) });
      case 'nothing_to_refund':
        return problem(409, 'nothing_left');
      case 'charge_not_refundable':
        return problem(409, 'not_refundable');
      case 'charge_disputed':
        return problem(409, 'disputed', { amount: formatSigned(error.refundable, locale) });
      case 'provider_rejected':
        return problem(502, 'rejected', { message: error.message });
      case 'provider_unavailable':
        await audit(options, request, current, id, error.refundId, amount);
        return { path: chargePath(id), notice: 'refundPending' };
      case 'acquirer_not_configured':
        return problem(503, 'not_configured');
    }
  }
  await audit(options, request, current, id, made.value.id, made.value.amount);
  return { path: chargePath(id), notice: made.value.status === 'succeeded' ? 'refunded' : 'refundPending' };
}

function audit(
  { users }: DashboardPaymentPagesOptions,
  request: FastifyRequest,
  current: SignedIn,
  chargeId: string,
  refundId: string,
  amount: string,
) {
  return users.recordAudit(current.account.user, 'charge.refunded', contextOf(request), {
    targetType: 'refund',
    targetId: refundId,
    after: { chargeId, amount, environment: current.session.environment },
  });
}
