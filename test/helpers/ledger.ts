// The ledger tests' database and builders (src/modules/ledger/service*.test.ts): each test file gets a
// migrated database of its own.
import { afterAll, beforeAll } from 'vitest';
import type { Kdb } from '../../src/db/database.js';
import { migrate, readMigrations } from '../../src/db/migrator.js';
import type { Environment, LedgerAccount, PaymentMethod } from '../../src/db/schema.js';
import { createLedgerService, type LedgerService } from '../../src/modules/ledger/service.js';
import type { ChargeForLedger, RefundForLedger } from '../../src/modules/ledger/types.js';
import { feeRateIn } from '../../src/modules/organizations/fee-rates.js';
import { migrationsDir } from '../../src/paths.js';
import { createManualClock } from '../../src/shared/clock.js';
import type { Owner } from '../../src/shared/owner.js';
import { createTestDatabase, type TestDatabase } from './database.js';
import { createOrganization } from './merchants.js';

export const clock = createManualClock(new Date('2026-11-23T10:00:00.000Z'));
let testDb: TestDatabase | undefined;
/** The database and ledger of the test file that called `useLedgerDatabase` (live bindings). */
export let db: Kdb;
export let ledger: LedgerService;

/** A migrated database of its own for the calling test file, and a ledger on it. */
export function useLedgerDatabase(): void {
  beforeAll(async () => {
    testDb = await createTestDatabase({ migrated: true });
    await migrate(testDb.database, readMigrations(migrationsDir));
    db = testDb.database.db;
    ledger = createLedgerService({ db, clock, feesFor: feeRateIn });
  });
  afterAll(async () => testDb?.drop());
}

let sequence = 0;
export const uniqueId = (prefix: string) => `${prefix}_test_${Date.now().toString(36)}_${(sequence += 1)}`;

export async function newOwner(environment: Environment = 'sandbox'): Promise<Owner> {
  return { organizationId: await createOrganization(db, clock), environment };
}

export function chargeOf(
  owner: Owner,
  amount: bigint | string,
  paymentMethod: PaymentMethod = 'credit_card_tr',
) {
  return {
    id: uniqueId('ch'),
    ...owner,
    amount: String(amount),
    paymentMethod,
    merchantReference: null,
  } satisfies ChargeForLedger;
}

export function refundOf(charge: ChargeForLedger, amount: bigint | string): RefundForLedger {
  const { organizationId, environment } = charge;
  return {
    id: uniqueId('re'),
    chargeId: charge.id,
    organizationId,
    environment,
    amount: String(amount),
    merchantReference: charge.merchantReference,
  };
}

export const postCharge = (charge: ChargeForLedger) =>
  db.transaction().execute((trx) => ledger.postChargeSucceeded(trx, charge));
export const postRefund = (refund: RefundForLedger) =>
  db.transaction().execute((trx) => ledger.postRefund(trx, refund));

export async function setFee(
  organizationId: string,
  method: PaymentMethod,
  basisPoints: number,
  fixedMinor: bigint,
) {
  await db
    .insertInto('fee_schedules')
    .values({
      organization_id: organizationId,
      payment_method: method,
      basis_points: basisPoints,
      fixed_minor: fixedMinor,
      updated_at: clock.now(),
    })
    .onConflict((oc) =>
      oc
        .columns(['organization_id', 'payment_method'])
        .doUpdateSet({ basis_points: basisPoints, fixed_minor: fixedMinor }),
    )
    .execute();
}

export async function postingsOf(
  sourceId: string,
): Promise<Array<{ account: LedgerAccount; amount: string }>> {
  return db
    .selectFrom('ledger_postings')
    .innerJoin('journal_entries', 'journal_entries.id', 'ledger_postings.entry_id')
    .select(['ledger_postings.account', 'ledger_postings.amount'])
    .where('journal_entries.source_id', '=', sourceId)
    .orderBy('ledger_postings.id')
    .execute();
}

export async function entryCount(sourceId: string): Promise<number> {
  const rows = await db
    .selectFrom('journal_entries')
    .select('id')
    .where('source_id', '=', sourceId)
    .execute();
  return rows.length;
}

export const pendingOf = async (owner: Owner) => (await ledger.balance(owner))[0]?.pending;
