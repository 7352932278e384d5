import type { Insertable } from 'kysely';
import type { Trx } from '../../db/database.js';
import type { PayoutsTable } from '../../db/schema.js';
import type { RequestFingerprint } from '../../shared/idempotent-write.js';
import { payoutsCreated } from '../../metrics/registry.js';
import { newId } from '../../shared/ids.js';
import { formatMinor, type Minor } from '../../shared/money.js';
import { addDays, createBusinessCalendar, utcDateOf } from '../../shared/business-calendar.js';
import type { PayoutServiceDeps } from './deps.js';
import type { PayoutRow } from './model.js';
import type { LedgerPayout, PayoutDestination, PayoutLedger } from './ports.js';
import type { conversion, RateQuote } from './rates.js';
import * as payouts from './repository.js';
import { announce } from './views.js';
import type { Owner } from '../../shared/owner.js';

/** How a new payout's row is made: by the merchant's request (create.ts) and by settlement (automatic.ts). */

/** A request's `X-Idempotency-Key` and the fingerprint of its body in canonical JSON (ADR 0054). */
export interface KeyedRequest {
  key: string;
  fingerprint: RequestFingerprint;
}

/** How far ahead a payout's arrival date looks for declared closures (the calendar's own limit). */
const ARRIVAL_LOOKAHEAD_DAYS = 366;

const calendar = createBusinessCalendar();

/**
 * A payout's `arrivalDate`: the first business day after the UTC date of `now` (ADR 0017: Monday to
 * Friday, not a Turkish public holiday, not a closure the operators declared), read in `trx`.
 */
export async function arrivalDateOf(
  deps: Pick<PayoutServiceDeps, 'closures'>,
  trx: Trx,
  now: Date,
): Promise<string> {
  const today = utcDateOf(now);
  const closures = await deps.closures.between(
    trx,
    addDays(today, 1),
    addDays(today, ARRIVAL_LOOKAHEAD_DAYS),
  );
  return calendar.nextBusinessDay(today, closures);
}

/** A new pending payout of `covered` TRY (`converted` USDT) to `wallet` at `quote`, as its maker gives it. */
export interface NewPayout {
  id: string;
  now: Date;
  wallet: PayoutDestination;
  quote: RateQuote;
  conversion: Pick<ReturnType<typeof conversion>, 'converted' | 'covered' | 'spread' | 'spreadBps' | 'rate'>;
  automatic: boolean;
  description: string | null;
  metadata: Record<string, string>;
  idempotency?: KeyedRequest | undefined;
}

/** What the ledger's `payout_created` entry of a new payout carries: the TRY it covers, its FX spread. */
export function payoutForLedger(
  id: string,
  converted: { covered: Minor<'TRY'>; spread: bigint },
  owner: Owner,
): LedgerPayout {
  return { id, amount: formatMinor(converted.covered), spread: converted.spread.toString(), ...owner };
}

/**
 * A new payout's id and time, and the ledger's debit of what it covers from the owner's available
 * balance (under the owner's lock, in `trx`): `ok: false` when the balance no longer holds it.
 */
export async function debitNewPayout(
  deps: Pick<PayoutServiceDeps, 'clock' | 'ledger'>,
  trx: Trx,
  owner: Owner,
  converted: { covered: Minor<'TRY'>; spread: bigint },
): Promise<{ id: string; now: Date; debit: Awaited<ReturnType<PayoutLedger['postPayoutCreated']>> }> {
  const now = deps.clock.now();
  const id = newId('po', now);
  const debit = await deps.ledger.postPayoutCreated(trx, payoutForLedger(id, converted, owner));
  return { id, now, debit };
}

/** The row of a new pending payout of `covered` TRY (`converted` USDT) to `wallet` at `quote`. */
export function payoutRowOf(
  owner: Owner & { keyId?: string },
  payout: NewPayout & { arrivalDate: string },
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
export async function insertPayout(
  deps: PayoutServiceDeps,
  trx: Trx,
  owner: Owner & { keyId?: string },
  payout: NewPayout,
): Promise<PayoutRow> {
  const arrivalDate = await arrivalDateOf(deps, trx, payout.now);
  const row = await payouts.insert(trx, payoutRowOf(owner, { ...payout, arrivalDate }));
  await deps.contents.attach(trx, owner, row.id);
  await announce(deps, trx, row, 'payout.created');
  // Counted before the commit: a rolled-back creation is counted too (a rare over-count, never a miss).
  payoutsCreated.inc({ environment: owner.environment, kind: row.automatic ? 'automatic' : 'manual' });
  return row;
}
