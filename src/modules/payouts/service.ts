import type { Trx } from '../../db/database.js';
import type { Environment } from '../../db/schema.js';
import type { CreatedWindow, Cursor } from '../../shared/pagination.js';
import type { Result } from '../../shared/result.js';
import {
  createAutomatic,
  createPlanned,
  planAutomatic,
  type AutomaticPayoutPlan,
  type AutomaticPayoutRefusal,
} from './automatic.js';
import { createPayout } from './create.js';
import type { PayoutServiceDeps } from './deps.js';
import type { PayoutError } from './errors.js';
import { cancel, complete, fail, markSubmitting, recordSent, type RecordSentOutcome } from './lifecycle.js';
import type { PayoutRow } from './model.js';
import {
  exportTreasury,
  markNotSent,
  minimums,
  operatorCancel,
  operatorGet,
  operatorList,
  recordTreasuryTransaction,
  setMinimum,
  type OperatorPayoutView,
  type PayoutMinimumView,
} from './operator-commands.js';
import type { PayoutActor } from './ports.js';
import {
  enteredRates,
  enterRate,
  quote,
  rateSource,
  setRateSource,
  setSpread,
  spreads,
  type FxRateSourceView,
  type FxRateView,
  type FxSpreadView,
  type RateQuote,
} from './rates.js';
import { list, pageCreatedIn, retrieve, transactions } from './reads.js';
import type * as payouts from './repository.js';
import type { PayoutCreate, PayoutListQuery, PayoutTransactionList, PayoutView } from './schemas.js';
import type { TreasuryExportLine } from './treasury.js';
import type { Owner } from '../../shared/owner.js';

export interface PayoutService {
  /**
   * With `idempotencyKey`, the payout carries the key (docs/decisions/0051-payout-idempotency.md): while
   * a payout made in the last 24 hours holds it, the request answers that payout when its body and API
   * key are the same, `idempotency_key_reuse` otherwise; it never makes a second payout.
   * With `audit`, the payout's `payout.created` audit entry is written by the transaction that makes it
   * (never by a retry answered the payout already made): `actor` and where the request came from.
   */
  create(
    owner: Owner & { keyId?: string },
    input: PayoutCreate,
    options?: {
      idempotencyKey?: string | undefined;
      audit?: { actor: string; requestId: string | null; ip: string | null };
    },
  ): Promise<Result<PayoutView, PayoutError>>;
  retrieve(owner: Owner, id: string): Promise<Result<PayoutView, PayoutError>>;
  list(
    owner: Owner,
    query: PayoutListQuery,
  ): Promise<Result<{ data: PayoutView[]; nextCursor: string | null }, PayoutError>>;
  /**
   * One page of an export: the payouts made in `window`, oldest first, after the
   * (createdAt, id) of the previous page's last one; at most `limit`.
   */
  pageCreatedIn(
    owner: Owner,
    window: CreatedWindow,
    after: Cursor | undefined,
    limit: number,
  ): Promise<PayoutView[]>;
  transactions(
    owner: Owner,
    id: string,
    page: { limit: number; cursor?: string | undefined },
  ): Promise<Result<PayoutTransactionList, PayoutError>>;

  /**
   * The current TRY -> USDT quote of an environment, asked outside any transaction (the settlement batch
   * asks it before its payout transaction); `rate_unavailable` when there is none or it is stale.
   */
  quote(environment: Environment): Promise<Result<RateQuote, PayoutError>>;
  /**
   * In the caller's transaction (the settlement batch's payout phase): an automatic payout of the owner's
   * whole available balance to its default wallet at `quote`, or why none was made (the funds stay
   * available).
   */
  createAutomatic(
    trx: Trx,
    owner: Owner,
    options: { quote: RateQuote; description: string },
  ): Promise<
    { ok: true; payout: PayoutView } | { ok: false; reason: AutomaticPayoutRefusal; minimum?: string }
  >;

  /**
   * The set-based form of `createAutomatic` for a settlement chunk (docs/decisions/0041), in the caller's
   * transaction, which holds the owners' available-balance locks: for each owner (key
   * `organizationId:environment`) with `available` TRY (its balance under the lock plus what the chunk
   * releases into it), the payout `createAutomatic` would make, or why it would make none. Writes
   * nothing.
   */
  planAutomatic(
    trx: Trx,
    requests: ReadonlyArray<{ owner: Owner; available: bigint }>,
    quote: RateQuote,
  ): Promise<
    Map<string, { ok: true; plan: AutomaticPayoutPlan } | { ok: false; reason: AutomaticPayoutRefusal }>
  >;
  /**
   * Makes the planned payouts (ledger entries, payout rows, their contents attached, `payout.created`)
   * in a few statements; throws (the caller's transaction rolls back) unless every one is new.
   */
  createPlanned(
    trx: Trx,
    plans: ReadonlyArray<AutomaticPayoutPlan & { description: string }>,
    quote: RateQuote,
  ): Promise<Map<string, PayoutView>>;

  /** Sets `submitted_at` once, before a rail is first asked to send; undefined when not pending or already set. */
  markSubmitting(payoutId: string): Promise<PayoutRow | undefined>;
  /**
   * pending -> in_transit with the transaction hash. The same hash again changes nothing; a hash another
   * payout holds changes nothing and is `hash_in_use` (one payout per hash).
   */
  recordSent(payoutId: string, txHash: string): Promise<RecordSentOutcome>;
  /** in_transit -> completed: the ledger's `payout_paid` and `payout.completed`. */
  complete(
    payoutId: string,
    options: { confirmedAt: Date },
  ): Promise<'completed' | 'already' | 'not_in_transit'>;
  /** pending | in_transit -> failed: the funds return to available, and `payout.failed`. */
  fail(payoutId: string, failure: { code: string; message: string }): Promise<'failed' | 'already' | 'final'>;
  /**
   * A pending payout never handed to a rail -> canceled: the funds return, and `payout.canceled`; audited
   * with `by` and the reason.
   */
  cancel(
    payoutId: string,
    options: { by: string; reason: string; requestId?: string | null; ip?: string | null },
  ): Promise<'canceled' | 'already' | 'not_cancelable'>;

  // The operator's commands (the console, the operator API and the CLI); each audited in its transaction.
  operatorList(
    filter: payouts.OperatorPayoutFilter,
    page: { limit: number; cursor?: string | undefined },
  ): Promise<Result<{ data: OperatorPayoutView[]; nextCursor: string | null }, PayoutError>>;
  operatorGet(id: string): Promise<Result<OperatorPayoutView, PayoutError>>;
  /**
   * The treasury's due payouts (live, pending, oldest first, at most TREASURY_EXPORT_LIMIT), each marked
   * handed over the first time it is exported: from then on it cannot be canceled, only recorded with
   * its transaction or marked not sent.
   */
  exportTreasury(
    filter: { network?: 'tron' | 'ethereum' | undefined },
    by: PayoutActor,
  ): Promise<TreasuryExportLine[]>;
  /** The treasury sent a payout: its hash is recorded (pending -> in_transit) and the chain confirms it. */
  recordTreasuryTransaction(
    id: string,
    txHash: string,
    by: PayoutActor,
  ): Promise<Result<OperatorPayoutView, PayoutError>>;
  operatorCancel(
    id: string,
    reason: string,
    by: PayoutActor,
  ): Promise<Result<OperatorPayoutView, PayoutError>>;
  /**
   * The treasury did not send an exported payout and will not: pending -> failed (`treasury_not_sent`),
   * the funds return to available.
   */
  markNotSent(id: string, reason: string, by: PayoutActor): Promise<Result<OperatorPayoutView, PayoutError>>;
  minimums(): Promise<PayoutMinimumView[]>;
  setMinimum(
    key: { network: 'tron' | 'ethereum'; environment: Environment },
    amount: bigint,
    by: PayoutActor,
  ): Promise<PayoutMinimumView>;
  /**
   * An operator enters the TRY -> USDT rate of an environment (USDT per TRY, a positive decimal): the
   * source of `operator`-rate environments and the live ticker's fallback while it is fresh. Audited.
   */
  enterRate(
    environment: Environment,
    input: { rate: string; reason: string },
    by: PayoutActor,
  ): Promise<Result<FxRateView, PayoutError>>;
  /** The operators' latest rates of an environment, newest first. */
  enteredRates(environment: Environment, limit: number): Promise<FxRateView[]>;
  /** Each environment's FX spread: the one an operator set, or the configured default. */
  spreads(): Promise<FxSpreadView[]>;
  /** An operator sets an environment's FX spread (0 to 1000 basis points) for payouts from now on. Audited. */
  setSpread(environment: Environment, spreadBps: number, by: PayoutActor): Promise<FxSpreadView>;
  /** The live rate source operators chose. */
  rateSource(): Promise<FxRateSourceView>;
  /** An operator chooses the live rate source, with a reason; quotes from now on use it. Audited. */
  setRateSource(
    input: { source: 'ticker' | 'operator'; reason: string },
    by: PayoutActor,
  ): Promise<Result<FxRateSourceView, PayoutError>>;
}

/**
 * Payouts (docs/decisions/0028-payouts.md): the available balance paid as USDT to a wallet. The factory
 * binds the dependencies to each use case: the merchant API (create.ts, reads.ts), the settlement
 * batch's automatic payouts (automatic.ts), a payout's life on its rail (lifecycle.ts), the FX rates and
 * spreads (rates.ts) and the operator's commands (operator-commands.ts).
 */
export function createPayoutService(deps: PayoutServiceDeps): PayoutService {
  return {
    create: (owner, input, options) => createPayout(deps, owner, input, options),
    retrieve: (owner, id) => retrieve(deps, owner, id),
    list: (owner, query) => list(deps, owner, query),
    pageCreatedIn: (owner, window, after, limit) => pageCreatedIn(deps, owner, window, after, limit),
    transactions: (owner, id, page) => transactions(deps, owner, id, page),
    quote: (environment) => quote(deps, environment),
    createAutomatic: (trx, owner, options) => createAutomatic(deps, trx, owner, options),
    planAutomatic: (trx, requests, rate) => planAutomatic(deps, trx, requests, rate),
    createPlanned: (trx, plans, rate) => createPlanned(deps, trx, plans, rate),
    markSubmitting: (payoutId) => markSubmitting(deps, payoutId),
    recordSent: (payoutId, txHash) => recordSent(deps, payoutId, txHash),
    complete: (payoutId, options) => complete(deps, payoutId, options),
    fail: (payoutId, failure) => fail(deps, payoutId, failure),
    cancel: (payoutId, options) => cancel(deps, payoutId, options),
    operatorList: (filter, page) => operatorList(deps, filter, page),
    operatorGet: (id) => operatorGet(deps, id),
    exportTreasury: (filter, by) => exportTreasury(deps, filter, by),
    recordTreasuryTransaction: (id, txHash, by) => recordTreasuryTransaction(deps, id, txHash, by),
    operatorCancel: (id, reason, by) => operatorCancel(deps, id, reason, by),
    markNotSent: (id, reason, by) => markNotSent(deps, id, reason, by),
    minimums: () => minimums(deps),
    setMinimum: (key, amount, by) => setMinimum(deps, key, amount, by),
    enterRate: (environment, input, by) => enterRate(deps, environment, input, by),
    enteredRates: (environment, limit) => enteredRates(deps, environment, limit),
    spreads: () => spreads(deps),
    setSpread: (environment, spreadBps, by) => setSpread(deps, environment, spreadBps, by),
    rateSource: () => rateSource(deps),
    setRateSource: (input, by) => setRateSource(deps, input, by),
  };
}
