import type { Trx } from '../../db/database.js';
import type { CarryReason, Environment } from '../../db/schema.js';
import { settlementFundsWaitingEmail } from '../email/templates.js';
import type { BatchDeps, BatchPayouts } from './batch-types.js';
import { FROZEN_HOLD, type BatchRow } from './model.js';
import * as settlement from './repository.js';
import { scheduleOf } from './schedules.js';
import { statementContent, statementHash } from './statement.js';
import { batchView } from './views.js';
import type { Owner } from '../../shared/owner.js';

/**
 * The payout phase of a released or held batch: paid out to the default wallet at a rate quoted for it,
 * carried (the reason on the batch; its funds stay available), or held while there is no usable rate or
 * its organization is frozen. It moves the batch row under its lock in the transaction that creates the
 * payout, so it never pays twice.
 */

/**
 * How long a run converts at the quote it took (per environment) before it asks the source again: the
 * batches of a run share one rate, and 10,000 owners do not ask the ticker 10,000 times. Far below the
 * staleness limit (`FX_MAX_AGE_SECONDS`), which the source checked when it quoted.
 */
const RUN_QUOTE_REUSE_MS = 60_000;

export type Quoted = Awaited<ReturnType<BatchPayouts['quote']>>;
export type QuoteOf = (environment: Environment) => Promise<Quoted>;

/** A run's quotes: one per environment, asked again after `RUN_QUOTE_REUSE_MS`; a failure is not kept. */
export function runQuotes(deps: Pick<BatchDeps, 'clock' | 'payouts'>): QuoteOf {
  const taken = new Map<Environment, { at: number; quoted: Promise<Quoted> }>();
  return (environment) => {
    const now = deps.clock.now().getTime();
    const kept = taken.get(environment);
    if (kept && now - kept.at < RUN_QUOTE_REUSE_MS) return kept.quoted;
    const quoted = deps.payouts.quote(environment);
    taken.set(environment, { at: now, quoted });
    quoted.then(
      (result) => {
        if (!result.ok && taken.get(environment)?.quoted === quoted) taken.delete(environment);
      },
      () => {
        if (taken.get(environment)?.quoted === quoted) taken.delete(environment);
      },
    );
    return quoted;
  };
}

/** The payout phase of a released or held batch; a batch already paid out or carried is left as it is. */
export async function payOut(
  deps: BatchDeps,
  batchId: string,
  owner: Owner,
  quoteOf: QuoteOf,
): Promise<{ batch: BatchRow; settled: boolean }> {
  const schedule = await scheduleOf(deps, owner.organizationId);
  // The rate is asked before the transaction: no transaction spans a call to another system.
  const quoted = schedule === 'manual' ? undefined : await quoteOf(owner.environment);
  return deps.db.transaction().execute(async (trx) => {
    // The owner's lock (the release's) orders the statements of its batches: one chain, no fork.
    await settlement.lockOwner(trx, owner);
    const batch = await settlement.lockBatch(trx, batchId);
    if (!batch) throw new Error(`settlement batch ${batchId} does not exist`);
    if (batch.status !== 'released' && batch.status !== 'held') return { batch, settled: false };
    return { batch: await payOutLocked(deps, trx, batch, owner, quoted), settled: true };
  });
}

async function payOutLocked(
  deps: BatchDeps,
  trx: Trx,
  batch: BatchRow,
  owner: Owner,
  quoted: Quoted | undefined,
): Promise<BatchRow> {
  const { logger } = deps;
  if (quoted === undefined) return carry(deps, trx, batch, 'manual_schedule');
  const now = deps.clock.now();
  // An operator froze the organization to stop money leaving it: nothing is paid out automatically;
  // the batch waits, open, for a run after the organization is unfrozen (no alert: the operator froze it).
  if ((await deps.organizations.frozen(trx, [batch.organization_id])).has(batch.organization_id)) {
    const held = await hold(deps, trx, batch, FROZEN_HOLD);
    logger.info({ batchId: batch.id }, 'settlement batch held: the organization is frozen');
    return held;
  }
  if (!quoted.ok) {
    const reason = `rate_unavailable:${quoted.error.reason ?? quoted.error.code}`;
    const held = await hold(deps, trx, batch, reason);
    await deps.alerts.raise(trx, {
      kind: 'settlement_held',
      organizationId: batch.organization_id,
      environment: batch.environment,
      subjectId: batch.id,
      message:
        `The settlement batch ${batch.id} of ${batch.business_date} is held: no usable TRY to USDT rate ` +
        `(${reason}). It is paid out when a rate is available again; nothing is paid at a guessed rate.`,
      details: { batchId: batch.id, businessDate: batch.business_date, reason },
    });
    logger.warn({ batchId: batch.id, reason }, 'settlement batch held: no usable rate');
    return held;
  }
  const made = await deps.payouts.createAutomatic(trx, owner, {
    quote: quoted.value,
    description: `Settlement of ${batch.business_date}`,
  });
  if (!made.ok) {
    const carried = await carry(deps, trx, batch, made.reason);
    if (made.reason !== 'nothing_available')
      await noticeCarried(deps, trx, carried, made.reason, made.minimum);
    return carried;
  }
  const rate = { value: made.payout.rate.value, source: quoted.value.source, at: quoted.value.at };
  const payout = {
    id: made.payout.id,
    amount: made.payout.amount,
    payoutAmount: made.payout.payoutAmount,
  };
  const statement = await statementOf(trx, batch, { status: 'paid_out', carryReason: null, rate, payout });
  const paid = await settlement.transitionBatch(trx, batch.id, ['released', 'held'], 'paid_out', {
    payout_id: made.payout.id,
    payout_amount: made.payout.amount,
    payout_usdt: made.payout.payoutAmount,
    ...statement,
    rate: rate.value,
    rate_source: quoted.value.source,
    rate_at: quoted.value.at,
    hold_reason: null,
    payout_attempts: batch.payout_attempts + 1,
    updated_at: now,
  });
  if (!paid) throw new Error(`settlement batch ${batch.id} left its open states under its lock`);
  await clearNotice(trx, paid);
  await announce(deps, trx, paid);
  return paid;
}

async function hold(deps: BatchDeps, trx: Trx, batch: BatchRow, reason: string): Promise<BatchRow> {
  const held = await settlement.transitionBatch(trx, batch.id, ['released', 'held'], 'held', {
    hold_reason: reason,
    payout_attempts: batch.payout_attempts + 1,
    updated_at: deps.clock.now(),
  });
  if (!held) throw new Error(`settlement batch ${batch.id} left its open states under its lock`);
  return held;
}

async function carry(deps: BatchDeps, trx: Trx, batch: BatchRow, reason: CarryReason): Promise<BatchRow> {
  const statement = await statementOf(trx, batch, {
    status: 'carried',
    carryReason: reason,
    rate: null,
    payout: null,
  });
  const carried = await settlement.transitionBatch(trx, batch.id, ['released', 'held'], 'carried', {
    carry_reason: reason,
    hold_reason: null,
    ...statement,
    updated_at: deps.clock.now(),
  });
  if (!carried) throw new Error(`settlement batch ${batch.id} left its open states under its lock`);
  await announce(deps, trx, carried);
  deps.logger.info({ batchId: batch.id, reason }, 'settlement batch carried: no automatic payout');
  return carried;
}

async function announce(deps: BatchDeps, trx: Trx, batch: BatchRow): Promise<void> {
  await deps.events.record(trx, {
    organizationId: batch.organization_id,
    environment: batch.environment,
    type: 'balance.settled',
    resourceId: batch.id,
    data: batchView(batch) as unknown as Record<string, unknown>,
  });
}

/** Owners and admins hear once that the batch's funds wait, per environment and reason. */
async function noticeCarried(
  deps: BatchDeps,
  trx: Trx,
  batch: BatchRow,
  reason: 'no_default_wallet' | 'below_minimum',
  minimum: string | undefined,
): Promise<void> {
  const owner = { organizationId: batch.organization_id, environment: batch.environment };
  const settings = await settlement.lockSettings(trx, batch.organization_id);
  const noticed = batch.environment === 'live' ? settings?.carry_notice_live : settings?.carry_notice_sandbox;
  if (noticed === reason) return;
  const now = deps.clock.now();
  const column = batch.environment === 'live' ? 'carry_notice_live' : 'carry_notice_sandbox';
  await settlement.upsertSettings(
    trx,
    {
      organization_id: batch.organization_id,
      payout_schedule: settings?.payout_schedule ?? 'daily',
      [column]: reason,
      updated_by: 'system',
      updated_at: now,
    },
    { [column]: reason },
  );
  const email = settlementFundsWaitingEmail({
    reason,
    environment: batch.environment,
    businessDate: batch.business_date,
    available: await deps.ledger.lockedAvailable(trx, owner),
    ...(minimum !== undefined ? { minimum } : {}),
    dashboardUrl: `${deps.webUrl()}/dashboard`,
  });
  const recipients = await deps.team.activeMemberEmails(trx, batch.organization_id, ['owner', 'admin']);
  for (const to of recipients) await deps.mailer.enqueue(trx, to, email);
}

async function clearNotice(trx: Trx, batch: BatchRow): Promise<void> {
  const settings = await settlement.findSettings(trx, batch.organization_id);
  if (!settings) return;
  const column = batch.environment === 'live' ? 'carry_notice_live' : 'carry_notice_sandbox';
  if (settings[column] === null) return;
  await settlement.upsertSettings(trx, { ...settings, [column]: null }, { [column]: null });
}

/** The statement of a batch that ends now: the next link of its owner's chain (statement.ts). */
async function statementOf(
  trx: Trx,
  batch: BatchRow,
  ending: Omit<Parameters<typeof statementContent>[1], 'sequence'>,
) {
  const owner = { organizationId: batch.organization_id, environment: batch.environment };
  const head = await settlement.latestStatement(trx, owner);
  const sequence = (head?.statement_seq ?? 0) + 1;
  const previous = head?.statement_hash ?? null;
  const items = await settlement.itemsOfBatch(trx, batch.id);
  const releases = await settlement.reserveReleasesIn(trx, batch.id);
  const hash = statementHash(previous, statementContent(batch, { ...ending, sequence }, items, releases));
  return { statement_seq: sequence, statement_hash: hash, previous_hash: previous };
}
