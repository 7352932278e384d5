import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { PayoutError } from '../payouts/errors.js';
import { contextOf, localeOf, type SignedIn } from '../users/http.js';
import type { BalanceMessages, PayoutProblem } from './balance-i18n.js';
import { activeDefaultWallet, balanceOf, balancePage, bm, pageData, refusedPage } from './balance-pages.js';
import type { DashboardBalancePagesOptions } from './balance-options.js';
import {
  AmountQuerySchema,
  confirmationOf,
  confirmedAmountValid,
  CONFIRMED_FORM,
  notTheConfirmationForm,
  ownerOf,
  pageSchema,
  type PageKit,
  type PageRequest,
} from './kit.js';
import { formatMoney } from './money.js';
import { amountToConfirm } from './payment-views.js';

const PayoutFormSchema = Type.Object(
  {
    ...CONFIRMED_FORM,
    /** The wallet the confirmation showed: paid even if another became the default since. */
    walletId: Type.Optional(Type.String({ maxLength: 64 })),
  },
  { additionalProperties: false },
);
/** The HTTP status of each refusal of the payout button, as `POST /v1/payouts` answers it. */
const PAYOUT_PROBLEM_STATUS: Record<PayoutProblem, number> = {
  amount: 400,
  insufficient: 400,
  below_minimum: 400,
  no_wallet: 400,
  rate: 503,
  not_enabled: 503,
  frozen: 403,
  kyc: 403,
  not_permitted: 403,
};

export const PayoutConfirmRoute = { hide: true, querystring: AmountQuerySchema };
export const PayoutCreateRoute = pageSchema({ body: PayoutFormSchema });

/**
 * A refusal of the payout button, on the balance page with the status `POST /v1/payouts` would answer;
 * `typed` is kept in the amount field.
 */
const payoutProblem = (
  options: DashboardBalancePagesOptions,
  request: FastifyRequest,
  reply: FastifyReply,
  current: SignedIn,
  key: PayoutProblem,
  values: Record<string, string> = {},
  typed = '',
) =>
  balancePage(options, request, reply, current, PAYOUT_PROBLEM_STATUS[key], undefined, {
    payoutProblem: { key, values },
    payoutAmount: typed,
  });

/** Why this user cannot pay out from here, before anything is read: the flag, the role, a freeze, KYC. */
function payoutRefusal(kit: PageKit, current: SignedIn): PayoutProblem | undefined {
  // As the API: without the flag the payouts routes answer 503 payouts_unavailable.
  if (!kit.hasFeature(current, 'payouts')) return 'not_enabled';
  if (!kit.may(current, 'createPayouts')) return 'not_permitted';
  // As the API: a frozen organization's requests answer 403 organization_frozen.
  if (current.account.organization.frozen) return 'frozen';
  // As the API: live keys are refused until the organization's KYC review is approved.
  if (current.session.environment === 'live' && current.account.organization.kycStatus !== 'APPROVED')
    return 'kyc';
  return undefined;
}

/** A refusal of the payouts service, in the page's words (the API's codes, one message each). */
function problemOf(
  error: PayoutError,
  locale: 'en' | 'tr',
  messages: BalanceMessages,
): { key: PayoutProblem; values: Record<string, string> } {
  switch (error.code) {
    case 'wallet_not_configured':
      return { key: 'no_wallet', values: {} };
    case 'amount_below_minimum':
      return {
        key: 'below_minimum',
        values: {
          amount: formatMoney(error.minimum, 'TRY', locale),
          network: messages.payout.networks[error.network as 'tron' | 'ethereum'] ?? error.network,
        },
      };
    case 'insufficient_balance':
      return { key: 'insufficient', values: { amount: formatMoney(error.available, 'TRY', locale) } };
    case 'rate_unavailable':
      return { key: 'rate', values: {} };
    case 'idempotency_key_reuse':
      // The confirmation page's key with another amount, or another user's: a forged or broken form.
      throw notTheConfirmationForm();
    default:
      throw new Error(`a payout creation answered ${error.code}`);
  }
}

// ---------------------------------------------------------------- a manual payout: the confirmation

export async function confirmPayout(
  options: DashboardBalancePagesOptions,
  request: PageRequest<typeof PayoutConfirmRoute>,
  reply: FastifyReply,
  current: SignedIn,
) {
  const { kit } = options;
  const typed = request.query.amount?.trim() ?? '';
  const refused = payoutRefusal(kit, current);
  if (refused) return payoutProblem(options, request, reply, current, refused, {}, typed);
  const owner = ownerOf(current);
  const locale = localeOf(request);
  const [balance, wallet] = await Promise.all([
    balanceOf(options, owner),
    activeDefaultWallet(options, owner),
  ]);
  if (!wallet) return payoutProblem(options, request, reply, current, 'no_wallet', {}, typed);
  const available = BigInt(balance.available);
  const amount = amountToConfirm(typed, available);
  if (amount === undefined) return payoutProblem(options, request, reply, current, 'amount', {}, typed);
  // The service checks it again under its lock; said here first so the confirmation never promises it.
  if (amount <= 0n || amount > available) {
    return payoutProblem(
      options,
      request,
      reply,
      current,
      'insufficient',
      { amount: formatMoney(balance.available, 'TRY', locale) },
      typed,
    );
  }
  const data = pageData(request, current);
  return kit.render(request, reply, 'dashboard-payout-new', 200, {
    ...data,
    title: () => data.bm.create.confirmTitle,
    csrf: current.session.csrfToken,
    ...confirmationOf(amount),
    balance,
    wallet,
  });
}

// ---------------------------------------------------------------- a manual payout: the confirmed form

export async function createPayout(
  options: DashboardBalancePagesOptions,
  request: PageRequest<typeof PayoutCreateRoute>,
  reply: FastifyReply,
) {
  const { kit } = options;
  return kit.command(request, reply, {
    permission: 'readSettlements',
    refused: (current) => refusedPage(options, request, reply, current),
    run: async (current) => {
      const problem = async (key: PayoutProblem, values?: Record<string, string>) => ({
        reply: await payoutProblem(options, request, reply, current, key, values),
      });
      const refused = payoutRefusal(kit, current);
      if (refused) return problem(refused);
      const { amount, key, walletId } = request.body;
      // The confirmation page's key, unchanged: anything else is a forged or broken form (thrown).
      if (!confirmedAmountValid(amount, key)) return problem('amount');
      const owner = ownerOf(current);
      const made = await options.payouts.create(
        // The user who made it is recorded where an API payout records its key: a retry by another
        // user of the same form is refused, never answered another's payout (ADR 0051).
        { ...owner, keyId: current.account.user.id },
        // The wallet the confirmation named, never whichever is the default by the time it is posted.
        { amount: Number(amount), ...(walletId ? { walletId } : {}) },
        // The confirmation page's own key: a second submission of the same form is the same payout,
        // audited once, by the transaction that makes it.
        {
          idempotencyKey: `dashboard:${key}`,
          audit: { actor: `user:${current.account.user.id}`, ...contextOf(request) },
        },
      );
      if (!made.ok) {
        const found = problemOf(made.error, localeOf(request), bm(request));
        return problem(found.key, found.values);
      }
      const payout = made.value;
      return { path: `/dashboard/payouts/${encodeURIComponent(payout.id)}`, notice: 'created' };
    },
  });
}
