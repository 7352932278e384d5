import { randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { ApiError } from '../../http/errors.js';
import type { App } from '../../http/server.js';
import type { Ledger } from '../ledger/index.js';
import type { PayoutError } from '../payouts/errors.js';
import type { PayoutService } from '../payouts/service.js';
import type { SettlementBatches } from '../settlement/batch.js';
import { contextOf, DASHBOARD_RATE_LIMITS, localeOf, type SignedIn } from '../users/http.js';
import type { WalletService } from '../wallets/service.js';
import { BALANCE_MESSAGES, type BalanceMessages, type PayoutProblem } from './balance-i18n.js';
import { format } from './i18n.js';
import { PageQuerySchema, type PageKit } from './kit.js';
import { formatMoney } from './money.js';
import { parseAmount } from './payments.js';
import { SETTLEMENT_MESSAGES } from './settlement-i18n.js';

export interface DashboardBalancePagesOptions {
  kit: PageKit;
  /** The same read as `GET /v1/balance`. */
  ledger: Pick<Ledger, 'balance'>;
  /**
   * The same reads as `GET /v1/payouts`, `GET /v1/payouts/{id}` and `…/transactions`, and the same
   * creation as `POST /v1/payouts`: every payout rule applies to the page's payout button.
   */
  payouts: Pick<PayoutService, 'list' | 'retrieve' | 'transactions' | 'create'>;
  /** The next batch, and the batch (and statement) a payout came from. */
  settlements: Pick<SettlementBatches, 'nextBatch' | 'batchOfPayout' | 'statement'>;
  /** Whether an automatic payout has somewhere to go. */
  wallets: Pick<WalletService, 'defaultWallet'>;
}

/** Payouts per page of the list, and transactions per page of a payout. */
const PAYOUT_PAGE_LIMIT = 20;
const TRANSACTION_PAGE_LIMIT = 50;

const CursorQuerySchema = Type.Object({
  ...PageQuerySchema.properties,
  cursor: Type.Optional(Type.String({ maxLength: 512 })),
});
const IdParamsSchema = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });
const PayoutQuerySchema = Type.Object({
  ...PageQuerySchema.properties,
  amount: Type.Optional(Type.String({ maxLength: 1000 })),
});
const PayoutFormSchema = Type.Object(
  {
    _csrf: Type.Optional(Type.String({ maxLength: 200 })),
    amount: Type.String({ maxLength: 20 }),
    key: Type.String({ maxLength: 64 }),
    /** The wallet the confirmation showed: paid even if another became the default since. */
    walletId: Type.Optional(Type.String({ maxLength: 64 })),
  },
  { additionalProperties: false },
);
/** Where a payout page's notice comes from: the redirect after the page's payout button. */
const PAYOUT_NOTICES = ['created'] as const;
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

/** Basis points as a percentage: 1000 -> "10", 250 -> "2.50" (the Turkish page writes "2,50"). */
function percentOf(bps: number, locale: 'en' | 'tr'): string {
  const text =
    bps % 100 === 0 ? String(bps / 100) : `${Math.floor(bps / 100)}.${String(bps % 100).padStart(2, '0')}`;
  return locale === 'tr' ? text.replace('.', ',') : text;
}

/**
 * "Balance and payouts" of the merchant dashboard (issue 15 item 2): the balance cards of the session's
 * environment (the ledger's `balance`, as `GET /v1/balance`), the next batch with its cut-off from the
 * settlement calendar and what it is expected to settle, the payouts (as `GET /v1/payouts`), and each
 * payout with its status history, the batch it came from, its statement and the transactions it carries.
 * The roles of `readSettlements`; another organization's or environment's payout is 404. With the
 * `payouts` flag, owners and admins (`createPayouts`) also get a payout button: an amount, a confirmation
 * step, then the payouts service `POST /v1/payouts` uses, with the confirmation's one-time key as the
 * payout's idempotency key (docs/decisions/0069-money-pages.md).
 */
export async function balancePages(app: App, options: DashboardBalancePagesOptions): Promise<void> {
  const { kit, ledger, payouts, settlements, wallets } = options;
  kit.handleErrors(app);

  const ownerOf = ({ account, session }: SignedIn) => ({
    organizationId: account.organization.id,
    environment: session.environment,
  });
  const bm = (request: FastifyRequest): BalanceMessages => BALANCE_MESSAGES[localeOf(request)];

  const pageData = (request: FastifyRequest, current: SignedIn) => {
    const messages = bm(request);
    const locale = localeOf(request);
    return {
      title: () => messages.title,
      environment: current.session.environment,
      bm: messages,
      sm: SETTLEMENT_MESSAGES[locale],
      money: (amount: string, currency: 'TRY' | 'USDT' = 'TRY') => formatMoney(amount, currency, locale),
      rate: (value: string) => (locale === 'tr' ? value.replace('.', ',') : value),
      percent: (bps: number) => percentOf(bps, locale),
    };
  };

  /** The signed-in user who may read the money; otherwise the redirect to login or the refusal page. */
  const reader = async (request: FastifyRequest, reply: FastifyReply): Promise<SignedIn | undefined> => {
    const current = await kit.signedIn(request, reply);
    if (!current) return undefined;
    if (kit.may(current, 'readSettlements')) return current;
    await kit.render(request, reply, 'dashboard-balance', 403, {
      ...pageData(request, current),
      refused: true,
    });
    return undefined;
  };

  const balanceOf = async (owner: ReturnType<typeof ownerOf>) => {
    const balances = await ledger.balance(owner);
    const balance = balances.find((row) => row.currency === 'TRY') ?? balances[0];
    if (!balance) throw new Error('the ledger answered no TRY balance');
    return balance;
  };

  const activeDefaultWallet = async (owner: ReturnType<typeof ownerOf>) => {
    const wallet = await wallets.defaultWallet(owner);
    return wallet && wallet.status === 'active' ? wallet : undefined;
  };

  interface BalancePageExtra {
    payoutProblem?: { key: PayoutProblem; values: Record<string, string> };
    payoutAmount?: string;
  }

  const balancePage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    current: SignedIn,
    status: number,
    cursor: string | undefined,
    extra: BalancePageExtra = {},
  ) => {
    const owner = ownerOf(current);
    const listed = await payouts.list(owner, { limit: PAYOUT_PAGE_LIMIT, ...(cursor ? { cursor } : {}) });
    if (!listed.ok) throw new ApiError('not_found', 'No such page of payouts.');
    const balance = await balanceOf(owner);
    const [next, wallet] = await Promise.all([
      settlements.nextBatch(owner, balance.pending),
      activeDefaultWallet(owner),
    ]);
    const data = pageData(request, current);
    const position =
      BigInt(balance.pending) +
      BigInt(balance.available) +
      BigInt(balance.inTransit) +
      BigInt(balance.reserve) -
      BigInt(balance.debt);
    return kit.render(request, reply, 'dashboard-balance', status, {
      ...data,
      balance,
      position: position.toString(),
      next,
      wallet,
      payouts: listed.value.data,
      nextCursor: listed.value.nextCursor,
      paged: cursor !== undefined,
      // The payout button: behind the organization's `payouts` flag, for the roles that may pay out.
      payoutsEnabled: kit.hasFeature(current, 'payouts'),
      canPayOut: kit.may(current, 'createPayouts'),
      payoutProblem: extra.payoutProblem
        ? format(data.bm.create.problems[extra.payoutProblem.key], extra.payoutProblem.values)
        : undefined,
      payoutProblemKey: extra.payoutProblem?.key,
      payoutAmount: extra.payoutAmount ?? '',
      amountExample: localeOf(request) === 'tr' ? '125,50' : '125.50',
    });
  };

  app.get(
    '/dashboard/balance',
    { schema: { hide: true, querystring: CursorQuerySchema } },
    async (request, reply) => {
      const current = await reader(request, reply);
      if (!current) return reply;
      const cursor = request.query.cursor === '' ? undefined : request.query.cursor;
      return balancePage(request, reply, current, 200, cursor);
    },
  );

  // ---------------------------------------------------------------- a manual payout

  /**
   * A refusal of the payout button, on the balance page with the status `POST /v1/payouts` would answer;
   * `typed` is kept in the amount field.
   */
  const payoutProblem = (
    request: FastifyRequest,
    reply: FastifyReply,
    current: SignedIn,
    key: PayoutProblem,
    values: Record<string, string> = {},
    typed = '',
  ) =>
    balancePage(request, reply, current, PAYOUT_PROBLEM_STATUS[key], undefined, {
      payoutProblem: { key, values },
      payoutAmount: typed,
    });

  /** Why this user cannot pay out from here, before anything is read: the flag, the role, a freeze, KYC. */
  const payoutRefusal = (current: SignedIn): PayoutProblem | undefined => {
    // As the API: without the flag the payouts routes answer 503 payouts_unavailable.
    if (!kit.hasFeature(current, 'payouts')) return 'not_enabled';
    if (!kit.may(current, 'createPayouts')) return 'not_permitted';
    // As the API: a frozen organization's requests answer 403 organization_frozen.
    if (current.account.organization.frozen) return 'frozen';
    // As the API: live keys are refused until the organization's KYC review is approved.
    if (current.session.environment === 'live' && current.account.organization.kycStatus !== 'APPROVED')
      return 'kyc';
    return undefined;
  };

  /** A refusal of the payouts service, in the page's words (the API's codes, one message each). */
  const problemOf = (
    error: PayoutError,
    locale: 'en' | 'tr',
    messages: BalanceMessages,
  ): { key: PayoutProblem; values: Record<string, string> } => {
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
        throw ApiError.validation([
          { path: 'key', in: 'body', code: 'invalid_value', message: 'not the confirmation form' },
        ]);
      default:
        throw new Error(`a payout creation answered ${error.code}`);
    }
  };

  app.get(
    '/dashboard/payouts/new',
    { schema: { hide: true, querystring: PayoutQuerySchema } },
    async (request, reply) => {
      const current = await reader(request, reply);
      if (!current) return reply;
      const typed = request.query.amount?.trim() ?? '';
      const refused = payoutRefusal(current);
      if (refused) return payoutProblem(request, reply, current, refused, {}, typed);
      const owner = ownerOf(current);
      const locale = localeOf(request);
      const [balance, wallet] = await Promise.all([balanceOf(owner), activeDefaultWallet(owner)]);
      if (!wallet) return payoutProblem(request, reply, current, 'no_wallet', {}, typed);
      const available = BigInt(balance.available);
      let amount = available;
      if (typed !== '') {
        const parsed = parseAmount(typed);
        if (parsed === undefined || parsed <= 0n)
          return payoutProblem(request, reply, current, 'amount', {}, typed);
        amount = parsed;
      }
      // The service checks it again under its lock; said here first so the confirmation never promises it.
      if (amount <= 0n || amount > available) {
        return payoutProblem(
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
        amount: amount.toString(),
        balance,
        wallet,
        key: randomBytes(18).toString('base64url'),
      });
    },
  );

  app.post(
    '/dashboard/payouts',
    {
      schema: { hide: true, querystring: PageQuerySchema, body: PayoutFormSchema },
      config: { rateLimit: DASHBOARD_RATE_LIMITS.accountSettings },
    },
    async (request, reply) => {
      const current = await kit.signedInPost(request, reply);
      if (!current) return reply;
      if (!kit.may(current, 'readSettlements')) {
        return kit.render(request, reply, 'dashboard-balance', 403, {
          ...pageData(request, current),
          refused: true,
        });
      }
      const refused = payoutRefusal(current);
      if (refused) return payoutProblem(request, reply, current, refused);
      const { amount, key, walletId } = request.body;
      if (!/^[1-9][0-9]{0,15}$/.test(amount) || BigInt(amount) > BigInt(Number.MAX_SAFE_INTEGER))
        return payoutProblem(request, reply, current, 'amount');
      // The confirmation page's key, unchanged: anything else is a forged or broken form.
      if (!/^[A-Za-z0-9_-]{16,64}$/.test(key)) {
        throw ApiError.validation([
          { path: 'key', in: 'body', code: 'invalid_value', message: 'not the confirmation form' },
        ]);
      }
      const owner = ownerOf(current);
      const made = await payouts.create(
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
        const problem = problemOf(made.error, localeOf(request), bm(request));
        return payoutProblem(request, reply, current, problem.key, problem.values);
      }
      const payout = made.value;
      return kit.redirect(request, reply, `/dashboard/payouts/${encodeURIComponent(payout.id)}`, {
        notice: 'created',
      });
    },
  );

  app.get(
    '/dashboard/payouts/:id',
    { schema: { hide: true, querystring: CursorQuerySchema, params: IdParamsSchema } },
    async (request, reply) => {
      const current = await reader(request, reply);
      if (!current) return reply;
      const owner = ownerOf(current);
      const found = await payouts.retrieve(owner, request.params.id);
      if (!found.ok) throw new ApiError('not_found', 'No such payout.');
      const payout = found.value;
      const cursor = request.query.cursor === '' ? undefined : request.query.cursor;
      const carried = await payouts.transactions(owner, payout.id, {
        limit: TRANSACTION_PAGE_LIMIT,
        ...(cursor ? { cursor } : {}),
      });
      if (!carried.ok) throw new ApiError('not_found', 'No such page of transactions.');
      const batch = await settlements.batchOfPayout(owner, payout.id);
      const statement = batch ? await settlements.statement(owner, batch.id) : undefined;
      const data = pageData(request, current);
      const history = [
        { key: 'created', at: payout.createdAt },
        { key: 'inTransit', at: payout.inTransitAt },
        { key: 'completed', at: payout.completedAt },
        { key: 'failed', at: payout.failedAt },
        { key: 'canceled', at: payout.canceledAt },
      ].filter(
        (event): event is { key: keyof BalanceMessages['payout']['events']; at: string } => event.at !== null,
      );
      return kit.render(request, reply, 'dashboard-payout', 200, {
        ...data,
        title: () => format(data.bm.payout.title, { id: payout.id }),
        payout,
        history,
        batch,
        statementReady: statement?.ok === true,
        notice: PAYOUT_NOTICES.find((value) => value === request.query.notice),
        transactions: carried.value.data,
        nextCursor: carried.value.nextCursor,
        paged: cursor !== undefined,
      });
    },
  );
}
