import type { Insertable } from 'kysely';
import type { Logger } from 'pino';
import type { Kdb, Trx } from '../../db/database.js';
import { payoutsCreated } from '../../observability/metrics.js';
import { isUniqueViolation } from '../../db/errors.js';
import type { Environment, PayoutsTable } from '../../db/schema.js';
import { keyReuseOf, requestFingerprint } from '../../http/idempotency.js';
import type { RequestFingerprint, RequestFingerprints } from '../../http/idempotency-store.js';
import { DAY, type Clock } from '../../shared/clock.js';
import { newId } from '../../shared/ids.js';
import {
  convert,
  formatMinor,
  formatRate,
  lessSpread,
  minor,
  neededFor,
  type Minor,
  parseRate,
} from '../../shared/money.js';
import { toPage, type CreatedWindow, type Cursor, type CursorCodec } from '../../shared/pagination.js';
import { err, ok, type Result } from '../../shared/result.js';
import type { AuditLog } from '../audit/service.js';
import type { EventRecorder, EventType } from '../events/service.js';
import type { PayoutDebit } from '../ledger/service.js';
import { addDays, createBusinessCalendar, utcDateOf } from '../settlement/calendar.js';
import type { PayoutError } from './errors.js';
import type { PayoutRow } from './model.js';
import type {
  PayoutActor,
  PayoutClosures,
  PayoutContents,
  PayoutDestination,
  PayoutOwner,
  PayoutWallets,
} from './ports.js';
import { RateUnavailableError, type RateQuote, type RateSource } from './rates.js';
import * as payouts from './repository.js';
import { exportLine, normalizeTxHash, type TreasuryExportLine } from './treasury.js';
import {
  payoutView,
  type PayoutCreate,
  type PayoutListQuery,
  type PayoutTransactionList,
  type PayoutView,
} from './schemas.js';

/** A payout as the ledger posts it: TRY debited, and the part of it kept as the FX spread. */
type LedgerPayout = { id: string; amount: string; spread?: string } & PayoutOwner;

/** What payouts need of the ledger (src/modules/ledger): the three entries of a payout's life. */
export interface PayoutLedger {
  /**
   * Takes the owner's available-balance lock (the one `postPayoutCreated` takes) for the rest of the
   * caller's transaction and answers the available balance under it.
   */
  lockedAvailable(trx: Trx, owner: PayoutOwner): Promise<string>;
  postPayoutCreated(trx: Trx, payout: LedgerPayout): Promise<PayoutDebit>;
  postPayoutPaid(trx: Trx, payout: LedgerPayout): Promise<{ created: boolean }>;
  postPayoutReturned(trx: Trx, payout: LedgerPayout): Promise<{ created: boolean }>;
  /** `postPayoutCreated` of many new payouts, under the owners' locks taken by the caller. */
  postPayoutsCreated(trx: Trx, payouts: readonly LedgerPayout[]): Promise<void>;
}

/**
 * A settlement chunk's automatic payout, planned under the owner's available-balance lock before the
 * chunk writes anything (`planAutomatic`), then made with the others of the chunk (`createPlanned`).
 */
export interface AutomaticPayoutPlan {
  owner: PayoutOwner;
  wallet: PayoutDestination;
  /** TRY minor units leaving the available balance, USDT sent, the spread kept; the applied rate. */
  covered: Minor<'TRY'>;
  converted: Minor<'USDT'>;
  spread: bigint;
  spreadBps: number;
  rate: string;
}

/** Why the settlement batch made no automatic payout. */
export type AutomaticPayoutRefusal = 'no_default_wallet' | 'below_minimum' | 'nothing_available';

export type RecordSentOutcome = 'recorded' | 'already_recorded' | 'hash_in_use' | 'not_pending';

/** The operator's view of a payout: the merchant's view plus whose it is and where the queue stands. */
export type OperatorPayoutView = PayoutView & {
  organizationId: string;
  /** When it was first handed to a rail (sent to the sandbox chain, or exported to the treasury). */
  handedOverAt: string | null;
  attempts: number;
  lastError: string | null;
  /** Set when the job gave up asking and the payout waits for the operator. */
  parkedAt: string | null;
};

export interface PayoutMinimumView {
  network: 'tron' | 'ethereum';
  environment: Environment;
  /** TRY minor units, decimal string. */
  amount: string;
  updatedBy: string;
  updatedAt: string;
}

/** How long a key names its payout: as long as the idempotency store remembers the key (spec section 4). */
const IDEMPOTENCY_WINDOW_MS = DAY;

/** A request's `X-Idempotency-Key` and the fingerprint of its body in canonical JSON (ADR 0054). */
interface KeyedRequest {
  key: string;
  fingerprint: RequestFingerprint;
}

/** How far ahead a payout's arrival date looks for declared closures (the calendar's own limit). */
const ARRIVAL_LOOKAHEAD_DAYS = 366;

/** The most payouts one treasury export carries; the rest wait for the next export. */
export const TREASURY_EXPORT_LIMIT = 1000;

export interface PayoutService {
  /**
   * With `idempotencyKey`, the payout carries the key (docs/decisions/0051-payout-idempotency.md): while
   * a payout made in the last 24 hours holds it, the request answers that payout when its body and API
   * key are the same, `idempotency_key_reuse` otherwise; it never makes a second payout.
   * With `audit`, the payout's `payout.created` audit entry is written by the transaction that makes it
   * (never by a retry answered the payout already made): `actor` and where the request came from.
   */
  create(
    owner: PayoutOwner & { keyId?: string },
    input: PayoutCreate,
    options?: {
      idempotencyKey?: string | undefined;
      audit?: { actor: string; requestId: string | null; ip: string | null };
    },
  ): Promise<Result<PayoutView, PayoutError>>;
  retrieve(owner: PayoutOwner, id: string): Promise<Result<PayoutView, PayoutError>>;
  list(
    owner: PayoutOwner,
    query: PayoutListQuery,
  ): Promise<Result<{ data: PayoutView[]; nextCursor: string | null }, PayoutError>>;
  /**
   * One page of an export (issue 15 item 4): the payouts made in `window`, oldest first, after the
   * (createdAt, id) of the previous page's last one; at most `limit`.
   */
  pageCreatedIn(
    owner: PayoutOwner,
    window: CreatedWindow,
    after: Cursor | undefined,
    limit: number,
  ): Promise<PayoutView[]>;
  transactions(
    owner: PayoutOwner,
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
    owner: PayoutOwner,
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
    requests: ReadonlyArray<{ owner: PayoutOwner; available: bigint }>,
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

export interface FxSpreadView {
  environment: Environment;
  spreadBps: number;
  /** `operator`: set by `updatedBy`; `default`: `PAYOUT_FX_SPREAD_BPS`. */
  source: 'operator' | 'default';
  updatedBy: string | null;
  updatedAt: string | null;
}

/** The live rate source operators chose (docs/decisions/0050-live-rate-source.md). */
export interface FxRateSourceView {
  environment: 'live';
  /** `ticker`: the live ticker, the operators' rate its fallback; `operator`: the operators' rate alone. */
  source: 'ticker' | 'operator';
  /** Whether `FX_TICKER_URL` is set: without it, `ticker` means the operators' rate alone. */
  tickerConfigured: boolean;
  /** Null while no operator has chosen (the default, `ticker`). */
  reason: string | null;
  updatedBy: string | null;
  updatedAt: string | null;
}

/** The longest reason an entered rate or a rate source choice keeps (the console's field says as much). */
export const FX_REASON_MAX_LENGTH = 500;

/** An operator's reason for an FX change, trimmed; undefined when empty or longer than the limit. */
function fxReasonOf(text: string): string | undefined {
  const reason = text.trim();
  return reason === '' || reason.length > FX_REASON_MAX_LENGTH ? undefined : reason;
}

export interface FxRateView {
  id: string;
  environment: Environment;
  rate: string;
  reason: string;
  enteredBy: string;
  enteredAt: string;
}

export interface PayoutServiceDeps {
  db: Kdb;
  /** Stale-tolerant reads, lists and exports: `DATABASE_READ_URL`'s pool (ADR 0040); `db` when unset. */
  readDb?: Kdb;
  clock: Clock;
  logger: Logger;
  cursors: CursorCodec;
  /** The keyed hash a payout records of the request that made it (ADR 0054). */
  fingerprints: RequestFingerprints;
  ledger: PayoutLedger;
  events: EventRecorder;
  wallets: PayoutWallets;
  contents: PayoutContents;
  /** The operators' declared closures, which a payout's arrival date skips. */
  closures: PayoutClosures;
  audit: AuditLog;
  /** The rate source of an environment; undefined: payouts there answer 503 `payouts_unavailable`. */
  rates: (environment: Environment) => RateSource | undefined;
  /** The FX spread in basis points (`PAYOUT_FX_SPREAD_BPS`): the merchant is paid at the rate less it. */
  spreadBps?: number;
  /** Whether a live ticker is configured (`FX_TICKER_URL`): shown beside the live rate source. */
  tickerConfigured?: boolean;
}

/**
 * Payouts (issue 13, docs/decisions/0028-payouts.md): the available balance paid as USDT to a wallet.
 * Creation checks, in the spec's order, a destination wallet, the network minimum and the available
 * balance, in one transaction whose ledger entry serialises the owner's payouts; the rate is quoted
 * before it (no transaction spans a call to another system).
 */
export function createPayoutService(deps: PayoutServiceDeps): PayoutService {
  const { db, clock } = deps;
  const readDb = deps.readDb ?? db;
  const calendar = createBusinessCalendar();
  const ownerOfRow = (row: PayoutRow): PayoutOwner => ({
    organizationId: row.organization_id,
    environment: row.environment,
  });
  const ledgerPayout = (row: PayoutRow) => ({
    id: row.id,
    amount: row.amount,
    spread: row.spread_amount,
    ...ownerOfRow(row),
  });

  async function announce(trx: Trx, row: PayoutRow, type: EventType): Promise<void> {
    await deps.events.record(trx, {
      organizationId: row.organization_id,
      environment: row.environment,
      type,
      resourceId: row.id,
      data: payoutView(row),
    });
  }

  async function quote(environment: Environment): Promise<Result<RateQuote, PayoutError>> {
    const source = deps.rates(environment);
    if (!source) return err({ code: 'rate_unavailable', reason: 'not_configured' });
    try {
      return ok(await source.quote());
    } catch (error) {
      if (error instanceof RateUnavailableError) {
        deps.logger.warn({ environment, reason: error.reason, err: error }, 'payout refused: no usable rate');
        return err({ code: 'rate_unavailable', reason: error.reason });
      }
      throw error;
    }
  }

  async function audit(
    trx: Trx,
    by: PayoutActor,
    row: PayoutRow,
    action: string,
    after: Record<string, unknown>,
  ): Promise<void> {
    await deps.audit.record(trx, {
      actor: by.actor,
      action,
      targetType: 'payout',
      targetId: row.id,
      organizationId: row.organization_id,
      after: { status: row.status, ...after },
      requestId: by.requestId ?? null,
      ip: by.ip ?? null,
    });
  }

  /** pending -> in_transit with the hash, under the caller's row lock; one payout per hash. */
  async function recordSentIn(
    trx: Trx,
    row: PayoutRow,
    txHash: string,
  ): Promise<{ outcome: 'recorded'; row: PayoutRow } | { outcome: 'hash_in_use'; heldBy: string }> {
    const holder = await payouts.findByTxHash(trx, txHash);
    if (holder) {
      deps.logger.error(
        { payoutId: row.id, txHash, heldBy: holder.id },
        'a transaction hash reported for a payout already belongs to another payout; nothing recorded',
      );
      return { outcome: 'hash_in_use', heldBy: holder.id };
    }
    const now = clock.now();
    const moved = await payouts.transition(trx, row.id, ['pending'], 'in_transit', {
      tx_hash: txHash,
      in_transit_at: now,
      updated_at: now,
      submitted_at: row.submitted_at ?? now,
      // Due at once for the confirmation job; a fresh count of its attempts.
      next_attempt_at: now,
      attempts: 0,
      lease_token: null,
      last_error: null,
      parked_at: null,
    });
    if (!moved) throw new Error(`payout ${row.id} left pending under its row lock`);
    return { outcome: 'recorded', row: moved };
  }

  async function failIn(
    trx: Trx,
    payoutId: string,
    failure: { code: string; message: string },
  ): Promise<'failed' | 'already' | 'final'> {
    const row = await payouts.lockById(trx, payoutId);
    if (!row) throw new Error(`payout ${payoutId} does not exist`);
    if (row.status === 'failed') return 'already';
    if (row.status !== 'pending' && row.status !== 'in_transit') return 'final';
    const now = clock.now();
    const failed = await payouts.transition(trx, payoutId, ['pending', 'in_transit'], 'failed', {
      failure_code: failure.code.slice(0, 100),
      failure_message: failure.message.slice(0, 500),
      failed_at: now,
      updated_at: now,
    });
    if (!failed) throw new Error(`payout ${payoutId} changed under its row lock`);
    await deps.ledger.postPayoutReturned(trx, ledgerPayout(failed));
    await deps.contents.detach(trx, failed.id);
    await announce(trx, failed, 'payout.failed');
    return 'failed';
  }

  /** A pending payout never handed to a rail -> canceled, under the caller's row lock; audited. */
  async function cancelIn(
    trx: Trx,
    row: PayoutRow,
    reason: string,
    by: PayoutActor,
  ): Promise<'canceled' | 'already' | 'not_cancelable'> {
    if (row.status === 'canceled') return 'already';
    if (row.status !== 'pending' || row.submitted_at !== null) return 'not_cancelable';
    const now = clock.now();
    const canceled = await payouts.transition(trx, row.id, ['pending'], 'canceled', {
      canceled_at: now,
      updated_at: now,
    });
    if (!canceled) throw new Error(`payout ${row.id} left pending under its row lock`);
    await deps.ledger.postPayoutReturned(trx, ledgerPayout(canceled));
    await deps.contents.detach(trx, canceled.id);
    await announce(trx, canceled, 'payout.canceled');
    await audit(trx, by, canceled, 'payout.canceled', { reason });
    deps.logger.info({ payoutId: row.id, by: by.actor }, 'payout canceled');
    return 'canceled';
  }

  const defaultSpreadBps = deps.spreadBps ?? 0;
  /** The live rate source as operators chose it (`row`), or the default `ticker` when none did. */
  const rateSourceView = (
    row: { source: 'ticker' | 'operator'; reason: string; updated_by: string; updated_at: Date } | undefined,
  ): FxRateSourceView => ({
    environment: 'live',
    source: row?.source ?? 'ticker',
    tickerConfigured: deps.tickerConfigured ?? false,
    reason: row?.reason ?? null,
    updatedBy: row?.updated_by ?? null,
    updatedAt: row?.updated_at.toISOString() ?? null,
  });
  /** The environment's spread, read in the payout's transaction. */
  const spreadOf = async (trx: Trx, environment: Environment) =>
    (await payouts.findSpread(trx, environment)) ?? defaultSpreadBps;

  /**
   * A quote converted as the merchant is paid: at the market rate less the spread. `covered` TRY leave
   * the available balance; `converted` USDT is sent, rounded down; `spread` is the part of `covered` kept
   * as FX revenue (what the USDT sent is worth at the market rate is the rest).
   */
  function conversion(amount: bigint, quote: RateQuote, spreadBps: number) {
    const market = parseRate('TRY', 'USDT', quote.rate);
    const applied = lessSpread(market, spreadBps);
    const { converted, covered } = convert(minor('TRY', amount), applied, 'down');
    const atMarket = neededFor(converted, market);
    const spread = covered > atMarket ? covered - atMarket : 0n;
    // Without a spread the quote's own text is kept as it came.
    return {
      converted,
      covered,
      spread,
      spreadBps,
      rate: spreadBps === 0 ? quote.rate : formatRate(applied, 18),
    };
  }

  /**
   * A payout's `arrivalDate`: the first business day after the UTC date of `now` (ADR 0017: Monday to
   * Friday, not a Turkish public holiday, not a closure the operators declared), read in `trx`.
   */
  async function arrivalDateOf(trx: Trx, now: Date): Promise<string> {
    const today = utcDateOf(now);
    const closures = await deps.closures.between(
      trx,
      addDays(today, 1),
      addDays(today, ARRIVAL_LOOKAHEAD_DAYS),
    );
    return calendar.nextBusinessDay(today, closures);
  }

  /** The row of a new pending payout of `covered` TRY (`converted` USDT) to `wallet` at `quote`. */
  function payoutRowOf(
    owner: PayoutOwner & { keyId?: string },
    payout: {
      id: string;
      now: Date;
      wallet: PayoutDestination;
      quote: RateQuote;
      conversion: Pick<
        ReturnType<typeof conversion>,
        'converted' | 'covered' | 'spread' | 'spreadBps' | 'rate'
      >;
      automatic: boolean;
      description: string | null;
      metadata: Record<string, string>;
      idempotency?: KeyedRequest | undefined;
      arrivalDate: string;
    },
  ): Insertable<PayoutsTable> {
    const { now, wallet, quote, conversion: converted } = payout;
    return {
      id: payout.id,
      organization_id: owner.organizationId,
      environment: owner.environment,
      amount: converted.covered.toString(),
      currency: 'TRY',
      payout_amount: converted.converted.toString(),
      payout_currency: 'USDT',
      rate: converted.rate,
      rate_source: quote.source,
      rate_at: quote.at,
      market_rate: quote.rate,
      spread_bps: converted.spreadBps,
      spread_amount: converted.spread.toString(),
      network: wallet.network,
      wallet_id: wallet.walletId,
      address: wallet.address,
      rail: owner.environment === 'live' ? 'treasury' : 'sandbox_chain',
      status: 'pending',
      automatic: payout.automatic,
      tx_hash: null,
      arrival_date: payout.arrivalDate,
      failure_code: null,
      failure_message: null,
      description: payout.description,
      metadata: JSON.stringify(payout.metadata),
      created_by: owner.keyId ?? null,
      idempotency_key: payout.idempotency?.key ?? null,
      request_fingerprint: payout.idempotency?.fingerprint.value ?? null,
      created_at: now,
      updated_at: now,
      // The sandbox chain's submission queue takes it at once; the treasury waits for an operator.
      next_attempt_at: owner.environment === 'live' ? null : now,
    };
  }

  /** Inserts a pending payout of `covered` TRY (`converted` USDT) and attaches what it carries; announced. */
  async function insertPayout(
    trx: Trx,
    owner: PayoutOwner & { keyId?: string },
    payout: {
      id: string;
      now: Date;
      wallet: PayoutDestination;
      quote: RateQuote;
      conversion: ReturnType<typeof conversion>;
      automatic: boolean;
      description: string | null;
      metadata: Record<string, string>;
      idempotency?: KeyedRequest | undefined;
    },
  ): Promise<PayoutRow> {
    const arrivalDate = await arrivalDateOf(trx, payout.now);
    const row = await payouts.insert(trx, payoutRowOf(owner, { ...payout, arrivalDate }));
    await deps.contents.attach(trx, owner, row.id);
    await announce(trx, row, 'payout.created');
    // Counted before the commit: a rolled-back creation is counted too (a rare over-count, never a miss).
    payoutsCreated.inc({ environment: owner.environment, kind: row.automatic ? 'automatic' : 'manual' });
    return row;
  }

  /**
   * The answer to a request whose idempotency key a payout made within the window holds: that payout
   * when the request is a retry of the one that made it (same body, same API key), else
   * `idempotency_key_reuse`. Never a second payout.
   */
  function answerOfHolder(
    holder: PayoutRow,
    owner: PayoutOwner & { keyId?: string },
    request: KeyedRequest,
  ): Result<PayoutView, PayoutError> {
    const reason = keyReuseOf(
      { createdBy: holder.created_by, fingerprint: holder.request_fingerprint },
      { caller: owner.keyId ?? null, fingerprint: request.fingerprint },
      // A payout holds a key only with its fingerprint (migration 0031 added both).
      () => false,
    );
    return reason === undefined ? ok(payoutView(holder)) : err({ code: 'idempotency_key_reuse', reason });
  }

  return {
    async create(owner, input, options = {}) {
      const keyed: KeyedRequest | undefined =
        options.idempotencyKey === undefined
          ? undefined
          : { key: options.idempotencyKey, fingerprint: requestFingerprint(deps.fingerprints, input) };
      let releaseBefore: Date | undefined;
      if (keyed) {
        // A retry of a request that made its payout (before a crash, or after its idempotency claim
        // lapsed) answers that payout, before a rate is even asked for.
        const holder = await payouts.findByIdempotencyKey(db, owner, keyed.key);
        const rememberedSince = new Date(clock.now().getTime() - IDEMPOTENCY_WINDOW_MS);
        if (holder && holder.created_at > rememberedSince) return answerOfHolder(holder, owner, keyed);
        // Forgotten after the idempotency window: the old payout lets go of it as the new one takes it.
        if (holder) releaseBefore = rememberedSince;
      }
      const quoted = await quote(owner.environment);
      if (!quoted.ok) return quoted;
      try {
        return await db.transaction().execute(async (trx): Promise<Result<PayoutView, PayoutError>> => {
          const destination = await deps.wallets.destination(trx, owner, input.walletId);
          if (!destination.ok) {
            return err({
              code: 'wallet_not_configured',
              reason: destination.reason,
              ...(input.walletId !== undefined ? { walletId: input.walletId } : {}),
            });
          }
          const { wallet } = destination;
          const minimum = await payouts.minimumFor(trx, wallet.network, owner.environment);
          const converted = conversion(
            BigInt(input.amount),
            quoted.value,
            await spreadOf(trx, owner.environment),
          );
          if (BigInt(input.amount) < BigInt(minimum) || converted.converted === 0n) {
            return err({ code: 'amount_below_minimum', minimum, network: wallet.network });
          }
          const now = clock.now();
          const id = newId('po', now);
          const debit = await deps.ledger.postPayoutCreated(trx, {
            id,
            amount: formatMinor(converted.covered),
            spread: converted.spread.toString(),
            ...owner,
          });
          if (!debit.ok) {
            // The same request sent twice at once (a double click on the dashboard's confirmation): the
            // other one took the balance under the lock this one waited on, and its payout is the answer.
            const holder = keyed ? await payouts.findByIdempotencyKey(trx, owner, keyed.key) : undefined;
            if (keyed && holder && releaseBefore === undefined) return answerOfHolder(holder, owner, keyed);
            return err({ code: 'insufficient_balance', available: debit.available });
          }
          if (keyed && releaseBefore)
            await payouts.releaseIdempotencyKey(trx, owner, keyed.key, releaseBefore);
          const row = await insertPayout(trx, owner, {
            id,
            now,
            wallet,
            quote: quoted.value,
            conversion: converted,
            automatic: false,
            description: input.description ?? null,
            metadata: input.metadata ?? {},
            idempotency: keyed,
          });
          const view = payoutView(row);
          if (options.audit) {
            await deps.audit.record(trx, {
              ...options.audit,
              action: 'payout.created',
              targetType: 'payout',
              targetId: view.id,
              organizationId: owner.organizationId,
              after: {
                amount: view.amount,
                payoutAmount: view.payoutAmount,
                walletId: view.walletId,
                environment: owner.environment,
              },
            });
          }
          return ok(view);
        });
      } catch (error) {
        // Two requests with one key got past the idempotency store at once (the first outlived its claim):
        // the later insert rolled its transaction back, and it answers the payout the other one made.
        if (keyed && isUniqueViolation(error, 'payouts_idempotency_key')) {
          const holder = await payouts.findByIdempotencyKey(db, owner, keyed.key);
          if (holder) return answerOfHolder(holder, owner, keyed);
        }
        throw error;
      }
    },

    quote,

    async createAutomatic(trx, owner, options) {
      const destination = await deps.wallets.destination(trx, owner, undefined);
      if (!destination.ok) return { ok: false, reason: 'no_default_wallet' };
      const { wallet } = destination;
      const available = BigInt(await deps.ledger.lockedAvailable(trx, owner));
      if (available <= 0n) return { ok: false, reason: 'nothing_available' };
      const minimum = BigInt(await payouts.minimumFor(trx, wallet.network, owner.environment));
      // USDT rounded down to 6 decimals: only the TRY it accounts for leaves; the remainder stays available.
      const converted = conversion(available, options.quote, await spreadOf(trx, owner.environment));
      if (available < minimum || converted.converted === 0n) {
        return { ok: false, reason: 'below_minimum', minimum: minimum.toString() };
      }
      const now = clock.now();
      const id = newId('po', now);
      const debit = await deps.ledger.postPayoutCreated(trx, {
        id,
        amount: formatMinor(converted.covered),
        spread: converted.spread.toString(),
        ...owner,
      });
      if (!debit.ok) throw new Error(`payout ${id}: the available balance moved under its lock`);
      const row = await insertPayout(trx, owner, {
        id,
        now,
        wallet,
        quote: options.quote,
        conversion: converted,
        automatic: true,
        description: options.description,
        metadata: {},
      });
      return { ok: true, payout: payoutView(row) };
    },

    async planAutomatic(trx, requests, quote) {
      const owners = requests.map((request) => request.owner);
      const wallets = await deps.wallets.defaultDestinations(trx, owners);
      const minimums = new Map<string, bigint>();
      const spreads = new Map<Environment, number>();
      const plans = new Map<
        string,
        { ok: true; plan: AutomaticPayoutPlan } | { ok: false; reason: AutomaticPayoutRefusal }
      >();
      for (const { owner, available } of requests) {
        const key = `${owner.organizationId}:${owner.environment}`;
        const wallet = wallets.get(key);
        if (!wallet) {
          plans.set(key, { ok: false, reason: 'no_default_wallet' });
          continue;
        }
        if (available <= 0n) {
          plans.set(key, { ok: false, reason: 'nothing_available' });
          continue;
        }
        const minimumKey = `${wallet.network}:${owner.environment}`;
        let minimum = minimums.get(minimumKey);
        if (minimum === undefined) {
          minimum = BigInt(await payouts.minimumFor(trx, wallet.network, owner.environment));
          minimums.set(minimumKey, minimum);
        }
        let spreadBps = spreads.get(owner.environment);
        if (spreadBps === undefined) {
          spreadBps = await spreadOf(trx, owner.environment);
          spreads.set(owner.environment, spreadBps);
        }
        const converted = conversion(available, quote, spreadBps);
        if (available < minimum || converted.converted === 0n) {
          plans.set(key, { ok: false, reason: 'below_minimum' });
          continue;
        }
        plans.set(key, {
          ok: true,
          plan: {
            owner,
            wallet,
            covered: converted.covered,
            converted: converted.converted,
            spread: converted.spread,
            spreadBps: converted.spreadBps,
            rate: converted.rate,
          },
        });
      }
      return plans;
    },

    async createPlanned(trx, plans, quote) {
      if (plans.length === 0) return new Map();
      const now = clock.now();
      const made = plans.map((plan) => ({ ...plan, id: newId('po', now) }));
      await deps.ledger.postPayoutsCreated(
        trx,
        made.map((plan) => ({
          id: plan.id,
          amount: formatMinor(plan.covered),
          spread: plan.spread.toString(),
          ...plan.owner,
        })),
      );
      const arrivalDate = await arrivalDateOf(trx, now);
      const rows = await payouts.insertMany(
        trx,
        made.map((plan) =>
          payoutRowOf(plan.owner, {
            id: plan.id,
            now,
            wallet: plan.wallet,
            quote,
            conversion: plan,
            automatic: true,
            description: plan.description,
            metadata: {},
            arrivalDate,
          }),
        ),
      );
      if (rows.length !== made.length) throw new Error('a planned payout was not inserted');
      await deps.contents.attachMany(
        trx,
        rows.map((row) => ({ ...ownerOfRow(row), payoutId: row.id })),
      );
      const views = new Map(
        rows.map((row) => [`${row.organization_id}:${row.environment}`, payoutView(row)]),
      );
      await deps.events.recordMany(
        trx,
        rows.map((row) => ({
          organizationId: row.organization_id,
          environment: row.environment,
          type: 'payout.created' as const,
          resourceId: row.id,
          data: views.get(`${row.organization_id}:${row.environment}`) ?? payoutView(row),
        })),
      );
      for (const row of rows) payoutsCreated.inc({ environment: row.environment, kind: 'automatic' });
      return views;
    },

    async retrieve(owner, id) {
      const row = await payouts.findVisible(db, owner, id);
      return row ? ok(payoutView(row)) : err({ code: 'not_found' });
    },

    async pageCreatedIn(owner, window, after, limit) {
      return (await payouts.pageCreatedIn(readDb, owner, window, after, limit)).map(payoutView);
    },

    async list(owner, query) {
      const filter = { status: query.status, createdFrom: query.createdFrom, createdTo: query.createdTo };
      const pages = deps.cursors.for({
        list: 'payouts',
        organizationId: owner.organizationId,
        environment: owner.environment,
        filter: JSON.stringify(filter),
      });
      const after = query.cursor === undefined ? undefined : pages.decode(query.cursor);
      if (after && !after.ok) return after;
      const rows = await payouts.listVisible(
        readDb,
        owner,
        {
          status: query.status,
          createdFrom: query.createdFrom === undefined ? undefined : new Date(query.createdFrom),
          createdTo: query.createdTo === undefined ? undefined : new Date(query.createdTo),
        },
        after?.value,
        query.limit + 1,
      );
      const page = toPage(rows, query.limit, (row) => pages.encode(row.created_at, row.id));
      return ok({ data: page.data.map(payoutView), nextCursor: page.nextCursor });
    },

    async transactions(owner, id, page) {
      const row = await payouts.findVisible(db, owner, id);
      if (!row) return err({ code: 'not_found' });
      const pages = deps.cursors.for({
        list: 'payout_transactions',
        organizationId: owner.organizationId,
        environment: owner.environment,
        filter: id,
      });
      const after = page.cursor === undefined ? undefined : pages.decode(page.cursor);
      if (after && !after.ok) return after;
      const items = await deps.contents.list(id, {
        limit: page.limit + 1,
        ...(after ? { after: after.value.id } : {}),
      });
      const result = toPage(items, page.limit, (item) => pages.encode(new Date(item.availableAt), item.id));
      return ok(result);
    },

    async markSubmitting(payoutId) {
      return db.transaction().execute((trx) => payouts.markSubmitting(trx, payoutId, clock.now()));
    },

    async recordSent(payoutId, txHash) {
      return db.transaction().execute(async (trx): Promise<RecordSentOutcome> => {
        const row = await payouts.lockById(trx, payoutId);
        if (!row) throw new Error(`payout ${payoutId} does not exist`);
        if (row.tx_hash === txHash) return 'already_recorded';
        if (row.status !== 'pending') return 'not_pending';
        return (await recordSentIn(trx, row, txHash)).outcome;
      });
    },

    async complete(payoutId, { confirmedAt }) {
      return db.transaction().execute(async (trx) => {
        const row = await payouts.lockById(trx, payoutId);
        if (!row) throw new Error(`payout ${payoutId} does not exist`);
        if (row.status === 'completed') return 'already' as const;
        if (row.status !== 'in_transit') return 'not_in_transit' as const;
        const done = await payouts.transition(trx, payoutId, ['in_transit'], 'completed', {
          completed_at: confirmedAt,
          updated_at: clock.now(),
        });
        if (!done) throw new Error(`payout ${payoutId} left in_transit under its row lock`);
        await deps.ledger.postPayoutPaid(trx, ledgerPayout(done));
        await announce(trx, done, 'payout.completed');
        return 'completed' as const;
      });
    },

    async fail(payoutId, failure) {
      return db.transaction().execute((trx) => failIn(trx, payoutId, failure));
    },

    async cancel(payoutId, options) {
      return db.transaction().execute(async (trx) => {
        const row = await payouts.lockById(trx, payoutId);
        if (!row) throw new Error(`payout ${payoutId} does not exist`);
        return cancelIn(trx, row, options.reason, {
          actor: options.by,
          requestId: options.requestId ?? null,
          ip: options.ip ?? null,
        });
      });
    },

    async operatorList(filter, page) {
      const pages = deps.cursors.for({ list: 'operator_payouts', filter: JSON.stringify(filter) });
      const after = page.cursor === undefined ? undefined : pages.decode(page.cursor);
      if (after && !after.ok) return after;
      const rows = await payouts.listAll(db, filter, after?.value, page.limit + 1);
      const result = toPage(rows, page.limit, (row) => pages.encode(row.created_at, row.id));
      return ok({ data: result.data.map(operatorView), nextCursor: result.nextCursor });
    },

    async operatorGet(id) {
      const row = await payouts.findById(db, id);
      return row ? ok(operatorView(row)) : err({ code: 'not_found' });
    },

    async exportTreasury(filter, by) {
      return db.transaction().execute(async (trx) => {
        const due = await payouts.lockTreasuryDue(trx, filter, TREASURY_EXPORT_LIMIT);
        const now = clock.now();
        const fresh = due.filter((row) => row.submitted_at === null).map((row) => row.id);
        await payouts.markHandedOver(trx, fresh, now);
        const firstExport = new Set(fresh);
        for (const row of due) {
          await audit(trx, by, row, 'payout.exported', {
            firstExport: firstExport.has(row.id),
            network: row.network,
            address: row.address,
            payoutAmount: row.payout_amount,
          });
        }
        return due.map((row) => exportLine(firstExport.has(row.id) ? { ...row, submitted_at: now } : row));
      });
    },

    async recordTreasuryTransaction(id, input, by) {
      const found = await payouts.findById(db, id);
      if (!found) return err({ code: 'not_found' });
      const hash = normalizeTxHash(found.network, input);
      if (!hash.ok) return err({ code: 'invalid_tx_hash', network: found.network, expected: hash.expected });
      // Two payouts recorded with one hash at the same moment: the unique constraint refuses the second.
      const heldElsewhere = async (): Promise<Result<OperatorPayoutView, PayoutError>> => {
        const holder = await payouts.findByTxHash(db, hash.txHash);
        return err({ code: 'tx_hash_in_use', payoutId: holder?.id ?? 'unknown' });
      };
      return db
        .transaction()
        .execute(async (trx): Promise<Result<OperatorPayoutView, PayoutError>> => {
          const row = await payouts.lockById(trx, id);
          if (!row) return err({ code: 'not_found' });
          if (row.rail !== 'treasury') {
            return err({
              code: 'invalid_state',
              message:
                'Only treasury (live) payouts are recorded by hand; the sandbox chain reports its own.',
            });
          }
          if (row.tx_hash === hash.txHash) return ok(operatorView(row));
          if (row.status !== 'pending') {
            return err({
              code: 'invalid_state',
              message: `The payout is ${row.status}${row.tx_hash ? ` with transaction ${row.tx_hash}` : ''}; its hash cannot change.`,
            });
          }
          const outcome = await recordSentIn(trx, row, hash.txHash);
          if (outcome.outcome === 'hash_in_use')
            return err({ code: 'tx_hash_in_use', payoutId: outcome.heldBy });
          const recorded = outcome.row;
          await audit(trx, by, recorded, 'payout.transaction_recorded', { txHash: hash.txHash });
          return ok(operatorView(recorded));
        })
        .catch((error: unknown) => {
          if (isUniqueViolation(error, 'payouts_tx_hash_key')) return heldElsewhere();
          throw error;
        });
    },

    async operatorCancel(id, reason, by) {
      const trimmed = reason.trim();
      if (trimmed === '') return err({ code: 'reason_required' });
      return db.transaction().execute(async (trx): Promise<Result<OperatorPayoutView, PayoutError>> => {
        const row = await payouts.lockById(trx, id);
        if (!row) return err({ code: 'not_found' });
        const outcome = await cancelIn(trx, row, trimmed, by);
        if (outcome === 'not_cancelable') {
          return err({
            code: 'invalid_state',
            message:
              row.status !== 'pending'
                ? `The payout is ${row.status}.`
                : row.rail === 'treasury'
                  ? 'The payout was exported to the treasury: record its transaction, or mark it not sent.'
                  : 'The payout was handed to the sandbox chain.',
          });
        }
        const after = await payouts.findById(trx, id);
        return ok(operatorView(after ?? row));
      });
    },

    async markNotSent(id, reason, by) {
      const trimmed = reason.trim();
      if (trimmed === '') return err({ code: 'reason_required' });
      return db.transaction().execute(async (trx): Promise<Result<OperatorPayoutView, PayoutError>> => {
        const row = await payouts.lockById(trx, id);
        if (!row) return err({ code: 'not_found' });
        if (row.rail !== 'treasury' || row.status !== 'pending') {
          return err({
            code: 'invalid_state',
            message:
              row.rail !== 'treasury'
                ? 'Only treasury payouts are marked not sent; the sandbox chain reports its own failures.'
                : `The payout is ${row.status}: only a pending payout without a transaction can be marked not sent.`,
          });
        }
        await failIn(trx, id, {
          code: 'treasury_not_sent',
          message: 'The treasury did not send this payout; the funds are available again.',
        });
        const failed = await payouts.findById(trx, id);
        if (!failed) throw new Error(`payout ${id} vanished`);
        await audit(trx, by, failed, 'payout.marked_not_sent', { reason: trimmed });
        return ok(operatorView(failed));
      });
    },

    async minimums() {
      return (await payouts.listMinimums(db)).map(minimumView);
    },

    async setMinimum(key, amount, by) {
      return db.transaction().execute(async (trx) => {
        const now = clock.now();
        const { before } = await payouts.setMinimum(trx, key, amount, by.actor, now);
        await deps.audit.record(trx, {
          actor: by.actor,
          action: 'payout_minimum.updated',
          targetType: 'payout_minimum',
          targetId: `${key.environment}:${key.network}`,
          organizationId: null,
          before: { amount: before },
          after: { amount: amount.toString() },
          requestId: by.requestId ?? null,
          ip: by.ip ?? null,
        });
        return minimumView({ ...key, amount: amount.toString(), updated_by: by.actor, updated_at: now });
      });
    },

    async enterRate(environment, input, by) {
      const reason = fxReasonOf(input.reason);
      if (reason === undefined) return err({ code: 'reason_required' });
      try {
        parseRate('TRY', 'USDT', input.rate);
      } catch {
        return err({ code: 'invalid_rate' });
      }
      return db.transaction().execute(async (trx) => {
        const now = clock.now();
        const row = await payouts.insertFxRate(trx, {
          id: newId('fxr', now),
          environment,
          rate: input.rate,
          reason,
          entered_by: by.actor,
          entered_at: now,
        });
        await deps.audit.record(trx, {
          actor: by.actor,
          action: 'fx_rate.entered',
          targetType: 'fx_rate',
          targetId: row.id,
          organizationId: null,
          after: { environment, rate: row.rate, reason },
          requestId: by.requestId ?? null,
          ip: by.ip ?? null,
        });
        return ok(fxRateView(row));
      });
    },

    async enteredRates(environment, limit) {
      return (await payouts.latestFxRates(db, environment, limit)).map(fxRateView);
    },

    async spreads() {
      const rows = await payouts.listSpreads(db);
      return (['sandbox', 'live'] as const).map((environment) => {
        const row = rows.find((candidate) => candidate.environment === environment);
        return row
          ? {
              environment,
              spreadBps: row.spread_bps,
              source: 'operator' as const,
              updatedBy: row.updated_by,
              updatedAt: row.updated_at.toISOString(),
            }
          : {
              environment,
              spreadBps: defaultSpreadBps,
              source: 'default' as const,
              updatedBy: null,
              updatedAt: null,
            };
      });
    },

    async rateSource() {
      return rateSourceView(await payouts.findRateSource(db));
    },

    async setRateSource(input, by) {
      const reason = fxReasonOf(input.reason);
      if (reason === undefined) return err({ code: 'reason_required' });
      return db.transaction().execute(async (trx) => {
        const now = clock.now();
        const before = await payouts.setRateSource(trx, {
          source: input.source,
          reason,
          by: by.actor,
          now,
        });
        await deps.audit.record(trx, {
          actor: by.actor,
          action: 'fx_rate_source.updated',
          targetType: 'fx_rate_source',
          targetId: 'live',
          organizationId: null,
          before: { source: before?.source ?? 'ticker' },
          after: { source: input.source, reason },
          requestId: by.requestId ?? null,
          ip: by.ip ?? null,
        });
        return ok(rateSourceView({ source: input.source, reason, updated_by: by.actor, updated_at: now }));
      });
    },

    async setSpread(environment, spreadBps, by) {
      return db.transaction().execute(async (trx) => {
        const now = clock.now();
        const before = await payouts.setSpread(trx, environment, spreadBps, by.actor, now);
        await deps.audit.record(trx, {
          actor: by.actor,
          action: 'fx_spread.updated',
          targetType: 'fx_spread',
          targetId: environment,
          organizationId: null,
          before: {
            spreadBps: before ?? defaultSpreadBps,
            source: before === undefined ? 'default' : 'operator',
          },
          after: { spreadBps },
          requestId: by.requestId ?? null,
          ip: by.ip ?? null,
        });
        return {
          environment,
          spreadBps,
          source: 'operator' as const,
          updatedBy: by.actor,
          updatedAt: now.toISOString(),
        };
      });
    },
  };
}

function fxRateView(row: payouts.FxRateRow): FxRateView {
  return {
    id: row.id,
    environment: row.environment,
    rate: row.rate,
    reason: row.reason,
    enteredBy: row.entered_by,
    enteredAt: row.entered_at.toISOString(),
  };
}

function operatorView(row: PayoutRow): OperatorPayoutView {
  return {
    ...payoutView(row),
    organizationId: row.organization_id,
    handedOverAt: row.submitted_at?.toISOString() ?? null,
    attempts: row.attempts,
    lastError: row.last_error,
    parkedAt: row.parked_at?.toISOString() ?? null,
  };
}

function minimumView(row: payouts.PayoutMinimumRow): PayoutMinimumView {
  return {
    network: row.network,
    environment: row.environment,
    amount: String(row.amount),
    updatedBy: row.updated_by,
    updatedAt: row.updated_at.toISOString(),
  };
}
