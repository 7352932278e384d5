import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { ApiError } from '../../http/errors.js';
import type { App } from '../../http/server.js';
import type { Ledger } from '../ledger/index.js';
import type { PayoutService } from '../payouts/service.js';
import type { SettlementBatches } from '../settlement/batch.js';
import { localeOf, type SignedIn } from '../users/http.js';
import type { WalletService } from '../wallets/service.js';
import { BALANCE_MESSAGES, type BalanceMessages } from './balance-i18n.js';
import { format } from './i18n.js';
import { PageQuerySchema, type PageKit } from './kit.js';
import { formatMoney } from './money.js';
import { SETTLEMENT_MESSAGES } from './settlement-i18n.js';

export interface DashboardBalancePagesOptions {
  kit: PageKit;
  /** The same read as `GET /v1/balance`. */
  ledger: Pick<Ledger, 'balance'>;
  /** The same reads as `GET /v1/payouts`, `GET /v1/payouts/{id}` and `…/transactions`. */
  payouts: Pick<PayoutService, 'list' | 'retrieve' | 'transactions'>;
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
 * The roles of `readSettlements`; another organization's or environment's payout is 404.
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

  app.get(
    '/dashboard/balance',
    { schema: { hide: true, querystring: CursorQuerySchema } },
    async (request, reply) => {
      const current = await reader(request, reply);
      if (!current) return reply;
      const owner = ownerOf(current);
      const cursor = request.query.cursor === '' ? undefined : request.query.cursor;
      const listed = await payouts.list(owner, { limit: PAYOUT_PAGE_LIMIT, ...(cursor ? { cursor } : {}) });
      if (!listed.ok) throw new ApiError('not_found', 'No such page of payouts.');
      const balances = await ledger.balance(owner);
      const balance = balances.find((row) => row.currency === 'TRY') ?? balances[0];
      if (!balance) throw new Error('the ledger answered no TRY balance');
      const [next, wallet] = await Promise.all([
        settlements.nextBatch(owner, balance.pending),
        wallets.defaultWallet(owner),
      ]);
      return kit.render(request, reply, 'dashboard-balance', 200, {
        ...pageData(request, current),
        balance,
        next,
        wallet: wallet && wallet.status === 'active' ? wallet : undefined,
        payouts: listed.value.data,
        nextCursor: listed.value.nextCursor,
        paged: cursor !== undefined,
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
        transactions: carried.value.data,
        nextCursor: carried.value.nextCursor,
        paged: cursor !== undefined,
      });
    },
  );
}
