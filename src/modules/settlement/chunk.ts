import type { Logger } from 'pino';
import type { Kdb, Trx } from '../../db/database.js';
import type { Environment } from '../../db/schema.js';
import type { Clock } from '../../shared/clock.js';
import { canonicalJson } from '../../shared/canonical-json.js';
import { newId } from '../../shared/ids.js';
import type { Result } from '../../shared/result.js';
import type { EventRecorder } from '../events/service.js';
import type { PendingCredit } from '../ledger/service.js';
import type { RateQuote } from '../payouts/rates.js';
import type { PayoutView } from '../payouts/schemas.js';
import type { AutomaticPayoutPlan } from '../payouts/automatic.js';
import { eventOfRow } from '../payouts/views.js';
import type { ChunkLedger, ChunkPayouts } from './batch-types.js';
import type { BusinessDate } from '../../shared/business-calendar.js';
import {
  LATE_COMMIT_WINDOW_MS,
  refundIdsOf,
  releaseLines,
  sourcesToCheck,
  unrecordedChargeIds,
} from './release.js';
import type { BatchRow, ItemRow } from './model.js';
import type { SettlementSources } from './release-types.js';
import * as settlement from './repository.js';
import { statementContent, statementHash } from './statement.js';
import { batchView } from './views.js';
import type { Owner } from '../../shared/owner.js';

/**
 * The set-based path of a settlement run (docs/decisions/0041-settlement-chunks.md): a chunk of a few
 * hundred owners released and paid out in one transaction of a fixed number of statements, instead of
 * some forty statements in two transactions per owner. It settles only the owners whose batch is the
 * plain case, decided under their locks before anything is written: no scheduled batch of the date
 * yet, credits whose net is positive, no reserve (none set, none due), the daily schedule, no carry notice to clear,
 * an organization that is not frozen, an active default wallet with no change due, and a balance the
 * payout engine would pay out at the run's rate. Every other owner is left untouched and answered back: the run settles it through the
 * per-owner path (`settleOwner`), which carries, holds, nets refund debt and releases reserves.
 *
 * Exactly once holds as on the per-owner path: the chunk takes each owner's settlement lock (the one
 * `release` and the payout phase take) in a fixed order before it reads, skips an owner with a batch of
 * the date, and inserts its batches with ON CONFLICT on their unique key, checking that each was new. The
 * chunk commits whole or not at all: a crash anywhere leaves nothing of it, and the next run does it again.
 */

export interface ChunkDeps {
  db: Kdb;
  clock: Clock;
  logger: Logger;
  ledger: ChunkLedger;
  payouts: ChunkPayouts;
  events: EventRecorder;
  sources: SettlementSources;
  /** The frozen ones of these organizations, under a share lock on their rows (see `BatchOrganizations`). */
  organizations: { frozen(trx: Trx, organizationIds: readonly string[]): Promise<Set<string>> };
}

export interface ChunkOutcome {
  /** The owners this chunk settled (key `organizationId:environment`), with their paid-out batch. */
  settled: Map<string, BatchRow>;
  /** The owners it left for the per-owner path, in the order given. */
  rest: Owner[];
}

/** Owners in one chunk's transaction. */
export const CHUNK_OWNERS = 200;
/** Ids per statement when a list is passed as parameters (far below PostgreSQL's 65 535). */
const IDS_PER_STATEMENT = 10_000;

const keyOf = (owner: Owner) => `${owner.organizationId}:${owner.environment}`;

async function inPieces<K, V>(
  ids: readonly K[],
  read: (piece: K[]) => Promise<Map<K, V>>,
): Promise<Map<K, V>> {
  const all = new Map<K, V>();
  for (let start = 0; start < ids.length; start += IDS_PER_STATEMENT)
    for (const [key, value] of await read(ids.slice(start, start + IDS_PER_STATEMENT))) all.set(key, value);
  return all;
}

export interface ChunkOptions {
  cutoff: Date;
  businessDate: BusinessDate;
}

/** The run's rate per environment, asked before the chunk's transaction. */
export type ChunkQuotes = ReadonlyMap<Environment, Result<RateQuote, { code: string }>>;

export function createChunkSettler(deps: ChunkDeps) {
  return {
    settleChunk: (owners: readonly Owner[], options: ChunkOptions, quotes: ChunkQuotes) =>
      settleChunk(deps, owners, options, quotes),
  };
}

/**
 * Settles what it can of `owners` (sorted by the caller) as the batch of `businessDate`, in one
 * transaction. `quotes`: the run's rate per environment, asked before the transaction.
 */
export async function settleChunk(
  deps: ChunkDeps,
  owners: readonly Owner[],
  options: ChunkOptions,
  quotes: ChunkQuotes,
): Promise<ChunkOutcome> {
  const quoted = owners.filter((owner) => quoteOf(quotes, owner) !== undefined);
  const settled = await deps.db
    .transaction()
    .execute((trx) => settleInTransaction(deps, trx, quoted, options, quotes));
  deps.logger.debug({ owners: owners.length, settled: settled.size }, 'settlement chunk committed');
  return { settled, rest: owners.filter((owner) => !settled.has(keyOf(owner))) };
}

const quoteOf = (quotes: ChunkQuotes, owner: Owner) => {
  const quoted = quotes.get(owner.environment);
  return quoted?.ok ? quoted.value : undefined;
};

const quoteByEnvironment = (quotes: ChunkQuotes, environment: Environment) => {
  const quote = quotes.get(environment);
  if (!quote?.ok) throw new Error(`no quote for ${environment}`);
  return quote.value;
};

/** The chunk's transaction, step by step: each step reads or writes for all its owners at once. */
async function settleInTransaction(
  deps: ChunkDeps,
  trx: Trx,
  quoted: readonly Owner[],
  options: ChunkOptions,
  quotes: ChunkQuotes,
): Promise<Map<string, BatchRow>> {
  let candidates = await plainOwners(deps, trx, quoted, options.businessDate);
  if (candidates.length === 0) return new Map<string, BatchRow>();
  const credits = await freshCredits(deps, trx, candidates, options.cutoff);
  // Nothing new, or refunds exceed the new credits (a debt): the per-owner path says so.
  candidates = candidates.filter((owner) => credits.netOf(keyOf(owner)) > 0n);
  if (candidates.length === 0) return new Map<string, BatchRow>();
  const plans = await planPayouts(deps, trx, candidates, credits, options.businessDate, quotes);
  if (plans.length === 0) return new Map<string, BatchRow>();
  const written = await writeRelease(deps, trx, plans, credits, quotes);
  const rows = batchRows(
    plans.map((plan) => plan.owner),
    written,
    credits,
    options,
    quotes,
  );
  return insertChecked(deps, trx, rows);
}

/**
 * Locks first, then the owners whose batch is the plain case: no scheduled batch of the date, no reserve
 * due or set, not frozen, the daily schedule and no carry notice to clear.
 */
async function plainOwners(
  deps: ChunkDeps,
  trx: Trx,
  quoted: readonly Owner[],
  businessDate: BusinessDate,
): Promise<Owner[]> {
  // Locks first, in the owners' order: the settlement locks (release and payout phase), then the
  // pending and available balance locks (the ledger's writers'): the per-owner path takes them in
  // the same classes in the same order, one owner at a time.
  await settlement.lockOwners(trx, quoted);
  await deps.ledger.lockBalances(trx, quoted);
  const organizations = [...new Set(quoted.map((owner) => owner.organizationId))];
  const [batched, settings, reserved, frozen] = [
    await settlement.ownersWithBatchOn(trx, quoted, businessDate),
    await settlement.settingsOf(trx, organizations),
    await settlement.ownersWithDueReservesOf(trx, quoted, businessDate),
    await deps.organizations.frozen(trx, organizations),
  ];
  return quoted.filter((owner) => {
    const key = keyOf(owner);
    if (batched.has(key) || reserved.has(key) || frozen.has(owner.organizationId)) return false;
    const row = settings.get(owner.organizationId);
    if (!row) return true;
    const notice = owner.environment === 'live' ? row.carry_notice_live : row.carry_notice_sandbox;
    return row.payout_schedule === 'daily' && row.reserve_bps === 0 && notice === null;
  });
}

/** Each owner's credits no batch released yet (key `organizationId:environment`), and their net. */
interface FreshCredits {
  fresh: Map<string, PendingCredit[]>;
  netOf: (key: string) => bigint;
}

async function freshCredits(
  deps: ChunkDeps,
  trx: Trx,
  candidates: readonly Owner[],
  cutoff: Date,
): Promise<FreshCredits> {
  // Each owner's credits since its last batch that released credits (as `release` reads them).
  const previous = await settlement.latestCreditCutoffs(trx, candidates);
  const afterOf = (owner: Owner) => {
    const cutoff = previous.get(keyOf(owner));
    return cutoff ? cutoff.getTime() - LATE_COMMIT_WINDOW_MS : 0;
  };
  const credits = await deps.ledger.pendingCreditsOf(
    trx,
    candidates.map((owner) => ({ ...owner, after: new Date(afterOf(owner)) })),
    cutoff,
  );
  const creditsOf = new Map<string, PendingCredit[]>();
  for (const credit of credits) {
    const key = keyOf(credit);
    const list = creditsOf.get(key);
    if (list) list.push(credit);
    else creditsOf.set(key, [credit]);
  }
  // Looked up among the items: only the credits an earlier batch may have released (`sourcesToCheck`).
  const released = new Set<string>();
  const sourceIds = candidates.flatMap((owner) =>
    sourcesToCheck(creditsOf.get(keyOf(owner)) ?? [], previous.get(keyOf(owner))),
  );
  for (let start = 0; start < sourceIds.length; start += IDS_PER_STATEMENT * 5)
    for (const id of await settlement.releasedSourcesOf(
      trx,
      sourceIds.slice(start, start + IDS_PER_STATEMENT * 5),
    ))
      released.add(id);
  const fresh = new Map<string, PendingCredit[]>();
  const nets = new Map<string, bigint>();
  for (const [key, list] of creditsOf) {
    const unreleased = released.size === 0 ? list : list.filter((c) => !released.has(c.sourceId));
    fresh.set(key, unreleased);
    nets.set(
      key,
      unreleased.reduce((total, credit) => total + BigInt(credit.net), 0n),
    );
  }
  return { fresh, netOf: (key: string) => nets.get(key) ?? 0n };
}

type PlannedPayout = AutomaticPayoutPlan & { description: string };

/** The payout each would make: on its balance under the lock plus what this batch releases. */
async function planPayouts(
  deps: ChunkDeps,
  trx: Trx,
  candidates: readonly Owner[],
  { netOf }: FreshCredits,
  businessDate: BusinessDate,
  quotes: ChunkQuotes,
): Promise<PlannedPayout[]> {
  const available = await deps.ledger.availableOf(trx, candidates);
  const plans: PlannedPayout[] = [];
  for (const environment of ['live', 'sandbox'] as const) {
    const ofEnvironment = candidates.filter((owner) => owner.environment === environment);
    const quote = ofEnvironment[0] && quoteOf(quotes, ofEnvironment[0]);
    if (!quote) continue;
    const planned = await deps.payouts.planAutomatic(
      trx,
      ofEnvironment.map((owner) => ({
        owner,
        available: (available.get(keyOf(owner)) ?? 0n) + netOf(keyOf(owner)),
      })),
      quote,
    );
    for (const owner of ofEnvironment) {
      const plan = planned.get(keyOf(owner));
      if (plan?.ok) plans.push({ ...plan.plan, description: `Settlement of ${businessDate}` });
    }
  }
  return plans;
}

/** What the release wrote (ledger entries, payouts) and read, for the batches' rows. */
interface WrittenRelease {
  chargeOfRefund: Map<string, string>;
  references: Map<string, string>;
  heads: Awaited<ReturnType<typeof settlement.latestStatements>>;
  now: Date;
  batchIds: Map<string, string>;
  payouts: Map<string, PayoutView>;
}

/** The release: ledger entries and payouts (as `release` writes them, for every owner at once). */
async function writeRelease(
  deps: ChunkDeps,
  trx: Trx,
  plans: readonly PlannedPayout[],
  { fresh, netOf }: FreshCredits,
  quotes: ChunkQuotes,
): Promise<WrittenRelease> {
  const settling = plans.map((plan) => plan.owner);
  const lines = settling.flatMap((owner) => fresh.get(keyOf(owner)) ?? []);
  const chargeOfRefund = await inPieces(refundIdsOf(lines), (piece) =>
    deps.sources.refundChargeIds(trx, piece),
  );
  const references = await inPieces(unrecordedChargeIds(lines, chargeOfRefund), (piece) =>
    deps.sources.chargeReferences(trx, piece),
  );
  const heads = await settlement.latestStatements(trx, settling);
  const now = deps.clock.now();
  const batchIds = new Map(settling.map((owner) => [keyOf(owner), newId('stl', now)]));
  await deps.ledger.postReleases(
    trx,
    settling.map((owner) => ({
      id: batchIds.get(keyOf(owner)) ?? '',
      amount: netOf(keyOf(owner)).toString(),
      ...owner,
    })),
  );
  const payouts = new Map<string, PayoutView>();
  for (const environment of ['live', 'sandbox'] as const) {
    const ofEnvironment = plans.filter((plan) => plan.owner.environment === environment);
    if (ofEnvironment.length === 0) continue;
    for (const [key, view] of await deps.payouts.createPlanned(
      trx,
      ofEnvironment,
      quoteByEnvironment(quotes, environment),
    ))
      payouts.set(key, view);
  }
  return { chargeOfRefund, references, heads, now, batchIds, payouts };
}

/** The chunk's batch rows (with their statement hashed), items and the statement each row must give. */
interface BatchRows {
  batches: Parameters<typeof settlement.insertBatches>[1];
  items: ItemRow[];
  expected: Map<string, string>;
}

function batchRows(
  settling: readonly Owner[],
  { chargeOfRefund, references, heads, now, batchIds, payouts }: WrittenRelease,
  { fresh, netOf }: FreshCredits,
  options: ChunkOptions,
  quotes: ChunkQuotes,
): BatchRows {
  const batches: BatchRows['batches'] = [];
  const items: ItemRow[] = [];
  const expected = new Map<string, string>();
  for (const owner of settling) {
    const key = keyOf(owner);
    const ownLines = fresh.get(key) ?? [];
    const payout = payouts.get(key);
    if (!payout) throw new Error(`the planned payout of ${key} was not made`);
    const quote = quoteByEnvironment(quotes, owner.environment);
    const id = batchIds.get(key) ?? '';
    const own = releaseLines(
      owner,
      ownLines,
      { id, now, payoutId: payout.id },
      { chargeOfRefund, references },
    );
    const ownItems = own.items;
    items.push(...ownItems);
    const head = heads.get(key);
    const release: BatchRow = {
      id,
      organization_id: owner.organizationId,
      environment: owner.environment,
      business_date: options.businessDate,
      origin: 'schedule',
      cutoff: options.cutoff,
      status: 'paid_out',
      gross: own.gross.toString(),
      fees: own.fees.toString(),
      refunds: own.refunds.toString(),
      net: netOf(key).toString(),
      item_count: ownLines.length,
      reserve_held: '0',
      reserve_release_date: null,
      reserve_released: '0',
      payout_id: payout.id,
      carry_reason: null,
      hold_reason: null,
      rate: payout.rate.value,
      rate_source: quote.source,
      rate_at: quote.at,
      payout_amount: payout.amount,
      payout_usdt: payout.payoutAmount,
      payout_attempts: 1,
      statement_seq: (head?.statement_seq ?? 0) + 1,
      statement_hash: null,
      previous_hash: head?.statement_hash ?? null,
      created_at: now,
      updated_at: now,
    };
    const content = statementContent(
      release,
      {
        status: 'paid_out',
        carryReason: null,
        rate: { value: payout.rate.value, source: quote.source, at: quote.at },
        payout: { id: payout.id, amount: payout.amount, payoutAmount: payout.payoutAmount },
        sequence: release.statement_seq ?? 0,
      },
      ownItems,
      [],
    );
    // What the stored row must give again (below): the statement's batch part. Its lines come from
    // these same items whichever row they are built beside.
    expected.set(id, canonicalJson({ batch: content.batch, sequence: content.sequence }));
    batches.push({ ...release, statement_hash: statementHash(release.previous_hash, content) });
  }
  return { batches, items, expected };
}

/** The batches, checked as verification will read them, their items and their events. */
async function insertChecked(
  deps: ChunkDeps,
  trx: Trx,
  { batches, items, expected }: BatchRows,
): Promise<Map<string, BatchRow>> {
  const inserted = await settlement.insertBatches(trx, batches);
  if (inserted.length !== batches.length)
    throw new Error(`${batches.length - inserted.length} batches of the chunk existed already`);
  // The statement of each batch as verification will rebuild it from the stored row: the same.
  for (const row of inserted) {
    const again = statementContent(
      row,
      {
        status: 'paid_out',
        carryReason: null,
        rate:
          row.rate !== null && row.rate_source !== null && row.rate_at !== null
            ? { value: row.rate, source: row.rate_source, at: row.rate_at }
            : null,
        payout: {
          id: row.payout_id ?? '',
          amount: row.payout_amount ?? '',
          payoutAmount: row.payout_usdt ?? '',
        },
        sequence: row.statement_seq ?? 0,
      },
      [],
      [],
    );
    if (canonicalJson({ batch: again.batch, sequence: again.sequence }) !== expected.get(row.id))
      throw new Error(`settlement batch ${row.id}: its stored row does not give the statement hashed`);
  }
  const written = await settlement.insertItemsMany(trx, items);
  if (written !== items.length) throw new Error('the items of the chunk were not all written');
  await deps.events.recordMany(
    trx,
    inserted.map((row) =>
      eventOfRow(row, 'balance.settled', batchView(row) as unknown as Record<string, unknown>),
    ),
  );
  return new Map(inserted.map((row) => [`${row.organization_id}:${row.environment}`, row]));
}
