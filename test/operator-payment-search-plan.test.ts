/**
 * Issue 15 item 7: the operator console's payment search reads one index per kind (migration 0022), never
 * every charge. The statements of real searches through the operator listener are captured (a Kysely
 * plugin on the gateway's own database handle), then explained against a table seeded with 10,000 charges
 * of 20 organizations, analysed: a sequential scan of `charges` fails the test, on PGlite and PostgreSQL.
 */
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import {
  analyze,
  indexesOf,
  planOf,
  recordWhile,
  seqScansOn,
  recordedSuite,
  seededChargeTimes,
  t,
  raw,
} from './helpers/plans.js';
import { type CapturedStatement } from './helpers/statements.js';
import { createOrganization } from './helpers/merchants.js';
import { createStaffUser, loginStaff, type StaffSession } from './helpers/operator.js';

const SEEDED = 10_000;
const ORGANIZATIONS = 20;

let support: StaffSession;

const recorder = recordedSuite(
  { env: { ROLES: 'api,operator,sandbox-acquirer' }, readDb: true },
  async () => {
    const organizations: string[] = [];
    for (let i = 0; i < ORGANIZATIONS; i++) organizations.push(await createOrganization(raw.db, t.clock));
    // Spread over the organizations and both environments; a third paid by card (one of 50 last fours),
    // most with a customer e-mail (one of 500), every reference used by two organizations.
    await sql`
    INSERT INTO charges (id, organization_id, environment, amount, currency, payment_method, merchant_reference,
                         status, creation_state, provider, provider_request, provider_payment_id,
                         provider_status, customer_email, card_brand, card_last4, expires_at, created_at, updated_at)
    SELECT 'ch_seed' || i,
           (${organizations}::text[])[1 + i % ${ORGANIZATIONS}],
           CASE WHEN i % 2 = 0 THEN 'sandbox' ELSE 'live' END,
           1000 + i, 'TRY', 'credit_card_tr', 'seed-' || (i / 2),
           CASE WHEN i % 3 = 0 THEN 'succeeded' ELSE 'pending' END,
           'created', 'sandbox', '{}'::jsonb, 'pay_seed' || i, 'awaiting_payment',
           CASE WHEN i % 10 = 0 THEN NULL ELSE 'Buyer' || (i % 500) || '@Example.test' END,
           CASE WHEN i % 3 = 0 THEN 'visa' END,
           CASE WHEN i % 3 = 0 THEN lpad((1000 + i % 50)::text, 4, '0') END,
           ${seededChargeTimes(t.clock.now(), 720)}
    FROM generate_series(1, ${SEEDED}) AS i
  `.execute(raw.db);
    await analyze(raw.db, 'charges');
    support = await loginStaff(t, await createStaffUser(t, 'support'));
  },
);

/** The search's statement on `charges` for this query, with the indexes its plan reads. */
async function searched(query: string): Promise<{ html: string; indexes: string[]; seqScan: boolean }> {
  const { result: html, statements: sent } = await recordWhile(recorder, async () => {
    const response = await fetch(`${t.urls.operator}/payments?${query}`, {
      headers: { cookie: support.cookie },
    });
    expect(response.status, query).toBe(200);
    return response.text();
  });
  const statements = sent.filter((s) => /^select .* from "charges"/i.test(s.sql));
  expect(statements, query).toHaveLength(1);
  const nodes = await planOf(raw.db, statements[0] as CapturedStatement);
  return { html, indexes: indexesOf(nodes), seqScan: seqScansOn(nodes, /^charges$/).length > 0 };
}

const rows = (html: string) => [...html.matchAll(/<tr data-charge-id="/g)].length;

describe('the payment search’s statements', () => {
  it('read one index per kind and never scan every charge', async () => {
    const byId = await searched('q=ch_seed4242');
    expect(byId.seqScan).toBe(false);
    expect(byId.indexes).toEqual(['charges_pkey']);
    expect(rows(byId.html)).toBe(1);

    const byReference = await searched('q=seed-77&kind=reference');
    expect(byReference.seqScan).toBe(false);
    expect(byReference.indexes).toEqual(['charges_reference_search_idx']);
    expect(rows(byReference.html)).toBe(2);

    const byEmail = await searched(`q=${encodeURIComponent('BUYER7@example.TEST')}`);
    expect(byEmail.seqScan).toBe(false);
    expect(byEmail.indexes).toEqual(['charges_email_search_idx']);
    expect(rows(byEmail.html)).toBe(SEEDED / 500);

    // 1 in 150 charges: more than the page holds; the 50 newest read from the index, in its order.
    const byLast4 = await searched('q=1012');
    expect(byLast4.seqScan).toBe(false);
    expect(byLast4.indexes).toEqual(['charges_last4_search_idx']);
    expect(rows(byLast4.html)).toBe(50);
    expect(byLast4.html).toContain('only the 50 newest are shown');
  }, 60_000);
});
