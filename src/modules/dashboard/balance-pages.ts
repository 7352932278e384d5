import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../http/errors.js';
import { localeOf, type SignedIn } from '../users/http.js';
import { BALANCE_MESSAGES, type BalanceMessages, type PayoutProblem } from './balance-i18n.js';
import type { DashboardBalancePagesOptions } from './balance-options.js';
import { format } from './i18n.js';
import { CursorQuerySchema, cursorOf, IdParamsSchema, ownerOf, type PageRequest } from './kit.js';
import { moneyViews } from './money.js';
import { SETTLEMENT_MESSAGES } from './settlement-i18n.js';
import type { Owner } from '../../shared/owner.js';

/** Payouts per page of the list, and transactions per page of a payout. */
const PAYOUT_PAGE_LIMIT = 20;
const TRANSACTION_PAGE_LIMIT = 50;

/** Where a payout page's notice comes from: the redirect after the page's payout button. */
const PAYOUT_NOTICES = ['created'] as const;

export const BalanceRoute = { hide: true, querystring: CursorQuerySchema };
export const PayoutRoute = { hide: true, querystring: CursorQuerySchema, params: IdParamsSchema };

/** Basis points as a percentage: 1000 -> "10", 250 -> "2.50" (the Turkish page writes "2,50"). */
function percentOf(bps: number, locale: 'en' | 'tr'): string {
  const text =
    bps % 100 === 0 ? String(bps / 100) : `${Math.floor(bps / 100)}.${String(bps % 100).padStart(2, '0')}`;
  return locale === 'tr' ? text.replace('.', ',') : text;
}

export const bm = (request: FastifyRequest): BalanceMessages => BALANCE_MESSAGES[localeOf(request)];

export function pageData(request: FastifyRequest, current: SignedIn) {
  const messages = bm(request);
  const locale = localeOf(request);
  return {
    title: () => messages.title,
    environment: current.session.environment,
    bm: messages,
    sm: SETTLEMENT_MESSAGES[locale],
    ...moneyViews(locale),
    percent: (bps: number) => percentOf(bps, locale),
  };
}

/** The balance page saying the user's role may not read the money. */
export const refusedPage = (
  { kit }: DashboardBalancePagesOptions,
  request: FastifyRequest,
  reply: FastifyReply,
  current: SignedIn,
) =>
  kit.render(request, reply, 'dashboard-balance', 403, {
    ...pageData(request, current),
    refused: true,
  });

/** The signed-in user who may read the money; otherwise the redirect to login or the refusal page. */
export const reader = (options: DashboardBalancePagesOptions, request: FastifyRequest, reply: FastifyReply) =>
  options.kit.reader(request, reply, {
    permission: 'readSettlements',
    refused: (current) => refusedPage(options, request, reply, current),
  });

export async function balanceOf({ ledger }: DashboardBalancePagesOptions, owner: Owner) {
  const balances = await ledger.balance(owner);
  const balance = balances.find((row) => row.currency === 'TRY') ?? balances[0];
  if (!balance) throw new Error('the ledger answered no TRY balance');
  return balance;
}

export async function activeDefaultWallet({ wallets }: DashboardBalancePagesOptions, owner: Owner) {
  const wallet = await wallets.defaultWallet(owner);
  return wallet && wallet.status === 'active' ? wallet : undefined;
}

export interface BalancePageExtra {
  payoutProblem?: { key: PayoutProblem; values: Record<string, string> };
  payoutAmount?: string;
}

export async function balancePage(
  options: DashboardBalancePagesOptions,
  request: FastifyRequest,
  reply: FastifyReply,
  current: SignedIn,
  status: number,
  cursor: string | undefined,
  extra: BalancePageExtra = {},
) {
  const { kit, payouts, settlements } = options;
  const owner = ownerOf(current);
  const listed = await payouts.list(owner, { limit: PAYOUT_PAGE_LIMIT, ...(cursor ? { cursor } : {}) });
  if (!listed.ok) throw new ApiError('not_found', 'No such page of payouts.');
  const balance = await balanceOf(options, owner);
  const [next, wallet] = await Promise.all([
    settlements.nextBatch(owner, balance.pending),
    activeDefaultWallet(options, owner),
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
}

/** A payout with its status history, the batch it came from, its statement and its transactions. */
export async function showPayout(
  options: DashboardBalancePagesOptions,
  request: PageRequest<typeof PayoutRoute>,
  reply: FastifyReply,
  current: SignedIn,
) {
  const { kit, payouts, settlements } = options;
  const owner = ownerOf(current);
  const found = await payouts.retrieve(owner, request.params.id);
  if (!found.ok) throw new ApiError('not_found', 'No such payout.');
  const payout = found.value;
  const cursor = cursorOf(request.query.cursor);
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
}
