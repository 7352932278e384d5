/**
 * Issue 12 item 3: the database refuses a status or state outside its union, on PGlite and PostgreSQL
 * (docs/decisions/0022-state-machines.md, migration 0013). The catalog test keeps every such column,
 * including ones added later, under a CHECK constraint; the write tests show the constraints refusing.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Kdb } from '../src/db/database.js';
import { migrate, readMigrations } from '../src/db/migrator.js';
import { migrationsDir } from '../src/paths.js';
import { createManualClock } from '../src/shared/clock.js';
import { newId } from '../src/shared/ids.js';
import { createTestDatabase, type TestDatabase } from './helpers/database.js';
import { createOrganization } from './helpers/merchants.js';

const clock = createManualClock(new Date('2026-11-23T10:00:00.000Z'));
let testDb: TestDatabase;
let db: Kdb;

beforeAll(async () => {
  testDb = await createTestDatabase({ migrated: true });
  await migrate(testDb.database, readMigrations(migrationsDir));
  db = testDb.database.db;
});
afterAll(async () => testDb?.drop());

/** SQLSTATE 23514, check_violation, naming the constraint that refused. */
async function refusedBy(write: Promise<unknown>): Promise<string | undefined> {
  try {
    await write;
  } catch (error) {
    const { code, constraint } = error as { code?: string; constraint?: string };
    if (code === '23514') return constraint ?? 'unnamed';
    throw error;
  }
  return undefined;
}

async function newCharge(): Promise<string> {
  const now = clock.now();
  const id = newId('ch', now);
  await db
    .insertInto('charges')
    .values({
      id,
      organization_id: await createOrganization(db, clock),
      environment: 'sandbox',
      amount: '1000',
      currency: 'TRY',
      payment_method: 'credit_card_tr',
      merchant_reference: id,
      creation_state: 'created',
      creation_locked_until: null,
      idempotency_key: null,
      provider: 'sandbox',
      provider_request: '{}',
      provider_payment_id: `pay_${id}`,
      provider_status: 'awaiting_payment',
      provider_error: null,
      customer_name: null,
      customer_email: null,
      customer_phone: null,
      customer_reference: null,
      customer_id_number_enc: null,
      metadata: null,
      return_url: null,
      expires_at: now,
      created_at: now,
      updated_at: now,
    })
    .execute();
  return id;
}

describe('status and state columns', () => {
  it('each has a CHECK constraint that names it', async () => {
    const columns = await sql<{ table_name: string; column_name: string }>`
      SELECT table_name, column_name FROM information_schema.columns
      WHERE table_schema = current_schema() AND data_type = 'text'
        AND (column_name IN ('status', 'state', 'stage', 'outcome')
             OR column_name LIKE '%\\_status' OR column_name LIKE '%\\_state')
      ORDER BY table_name, column_name`.execute(db);
    const checks = await sql<{ table_name: string; definition: string }>`
      SELECT conrelid::regclass::text AS table_name, pg_get_constraintdef(oid) AS definition
      FROM pg_constraint WHERE contype = 'c'`.execute(db);
    const unchecked = columns.rows
      .filter(
        ({ table_name, column_name }) =>
          !checks.rows.some(
            (check) =>
              check.table_name.replace(/^.*\./, '') === table_name &&
              new RegExp(`\\b${column_name}\\b`).test(check.definition),
          ),
      )
      .map(({ table_name, column_name }) => `${table_name}.${column_name}`);
    // The catalog query finds the columns it is about (guards against a query that finds nothing).
    expect(columns.rows.map((row) => `${row.table_name}.${row.column_name}`)).toEqual(
      expect.arrayContaining([
        'charges.status',
        'charges.creation_state',
        'charges.provider_status',
        'refunds.status',
        'provider_notifications.outcome',
        'webhook_deliveries.status',
        'emails.status',
        'applications.status',
      ]),
    );
    expect(unchecked).toEqual([]);
  });

  it('a charge refuses an unknown status, creation state or provider status', async () => {
    const id = await newCharge();
    const set = (column: string) =>
      sql`UPDATE charges SET ${sql.ref(column)} = 'bogus' WHERE id = ${id}`.execute(db);
    expect(await refusedBy(set('status'))).toBe('charges_status_check');
    expect(await refusedBy(set('creation_state'))).toBe('charges_creation_state_check');
    expect(await refusedBy(set('provider_status'))).toBe('charges_provider_status_check');
    // Every state of the unions is accepted.
    for (const status of ['pending', 'succeeded', 'failed', 'expired'] as const) {
      await db.updateTable('charges').set({ status }).where('id', '=', id).execute();
    }
    for (const providerStatus of [
      'awaiting_payment',
      'requires_action',
      'succeeded',
      'failed',
      'canceled',
      'partially_refunded',
      'refunded',
    ] as const) {
      await db.updateTable('charges').set({ provider_status: providerStatus }).where('id', '=', id).execute();
    }
  });

  it('a refund refuses an unknown status', async () => {
    const chargeId = await newCharge();
    const charge = await db
      .selectFrom('charges')
      .select('organization_id')
      .where('id', '=', chargeId)
      .executeTakeFirstOrThrow();
    const id = newId('re', clock.now());
    await db
      .insertInto('refunds')
      .values({
        id,
        charge_id: chargeId,
        organization_id: charge.organization_id,
        environment: 'sandbox',
        amount: '100',
        currency: 'TRY',
        status: 'pending',
        reason: null,
        idempotency_key: null,
        provider_refund_id: null,
        failure_code: null,
        failure_message: null,
        created_at: clock.now(),
        updated_at: clock.now(),
      })
      .execute();
    expect(await refusedBy(sql`UPDATE refunds SET status = 'refunded' WHERE id = ${id}`.execute(db))).toBe(
      'refunds_status_check',
    );
  });

  it('a provider notification refuses an unknown outcome', async () => {
    const chargeId = await newCharge();
    const insert = (outcome: string) =>
      sql`INSERT INTO provider_notifications (provider, id, type, payment_id, charge_id, body, outcome, received_at)
          VALUES ('sandbox', ${newId('evt', clock.now())}, 'payment.updated', ${`pay_${chargeId}`}, ${chargeId},
                  '{}'::jsonb, ${outcome}, ${clock.now()})`.execute(db);
    expect(await refusedBy(insert('duplicate'))).toBe('provider_notifications_outcome_check');
    expect(await refusedBy(insert('applied'))).toBeUndefined();
  });
});
