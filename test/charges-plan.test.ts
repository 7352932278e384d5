/**
 * Issue 11 item 21: charge creation must not slow down as `charges` grows. Every statement the creation
 * path sends is captured (a recorder on the gateway's own database handle), then explained against
 * a table seeded with enough rows, analysed, for the planner to prefer an index wherever one applies. A
 * sequential scan of `charges` in any of those plans fails the test, on PGlite and on PostgreSQL alike:
 * a statement no index can serve is planned as a sequential scan at any table size.
 */
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import {
  analyze,
  planOf,
  recordWhile,
  seqScansOn,
  recordedSuite,
  seededChargeTimes,
  t,
  raw,
} from './helpers/plans.js';
import { request, validCharge } from './helpers/http.js';
import { apiUrl, createMerchant, createOrganization, type Merchant } from './helpers/merchants.js';

const SEEDED = 10_000;

let merchant: Merchant;

// No worker: only the requests' own statements are recorded.
// `track`: the creation's precompiled statements (ADR 0060) are sent past the plugin.
const recorder = recordedSuite(
  { env: { ROLES: 'api,operator,sandbox-acquirer' }, track: true, readDb: true },
  async () => {
    merchant = await createMerchant(t);
    const other = await createOrganization(raw.db, t.clock);
    // Half the rows belong to the merchant under test (so its organization alone is not selective), with
    // idempotency keys, some older than the 24-hour window; the rest to another organization.
    await sql`
    INSERT INTO charges (id, organization_id, environment, amount, currency, payment_method, merchant_reference,
                         status, creation_state, idempotency_key, provider, provider_request, provider_payment_id,
                         provider_status, expires_at, created_at, updated_at)
    SELECT 'ch_seed' || i,
           CASE WHEN i % 2 = 0 THEN ${merchant.organizationId} ELSE ${other} END,
           'sandbox', 1000 + i, 'TRY', 'credit_card_tr', 'seed-' || i,
           CASE WHEN i % 3 = 0 THEN 'succeeded' ELSE 'pending' END,
           CASE WHEN i % 10 = 0 THEN 'rejected' ELSE 'created' END,
           'seed-key-' || i, 'sandbox', '{}'::jsonb, 'pay_seed' || i, 'awaiting_payment',
           ${seededChargeTimes(t.clock.now(), 72)}
    FROM generate_series(1, ${SEEDED}) AS i
  `.execute(raw.db);
    await analyze(raw.db, 'charges');
  },
);

const post = (body: Record<string, unknown>, key?: string) =>
  request<{ id: string }>(`${apiUrl(t.urls, 'sandbox')}/v1/charges`, {
    body,
    headers: {
      'x-api-key': merchant.keys.sandbox.secret,
      ...(key !== undefined ? { 'x-idempotency-key': key } : {}),
    },
  });

describe('the statements of charge creation', () => {
  it('never scan the whole charges table, with a fresh key, a reused expired key, no key or a duplicate reference', async () => {
    const { statements } = await recordWhile(recorder, async () => {
      expect((await post(validCharge(), `plan-${Date.now()}`)).status).toBe(201);
      // Held by a seeded charge created 62 hours ago: the old holder lets go of it.
      const reused = await post(validCharge(), 'seed-key-62');
      expect(reused.status, reused.text).toBe(201);
      const none = await post(validCharge({ merchantReference: 'plan-dup' }));
      expect(none.status).toBe(201);
      expect(
        (await post(validCharge({ merchantReference: 'plan-dup' }), `plan-dup-${Date.now()}`)).status,
      ).toBe(409);
    });
    const onCharges = statements.filter((statement) =>
      /\b(?:from|update|into)\s+"charges"/i.test(statement.sql),
    );
    // The path was really taken: the insert, the release of an expired key, the lookup of a key.
    expect(onCharges.some((s) => /^insert into "charges"/i.test(s.sql))).toBe(true);
    expect(onCharges.some((s) => /^update "charges" set "idempotency_key" = \$1/i.test(s.sql))).toBe(true);
    expect(onCharges.some((s) => /^select .* from "charges" .*"idempotency_key" = /i.test(s.sql))).toBe(true);
    const scans: string[] = [];
    for (const statement of onCharges) {
      if (seqScansOn(await planOf(raw.db, statement), /^charges$/).length > 0) scans.push(statement.sql);
    }
    expect(scans, 'statements that scan every charge').toEqual([]);
    // The release of an expired key goes through the partial unique index of keys.
    const release = onCharges.find((s) => /^update "charges" set "idempotency_key" = \$1/i.test(s.sql));
    const releaseNodes = release ? await planOf(raw.db, release) : [];
    expect(releaseNodes.map((node) => node['Index Name'])).toContain('charges_idempotency_key');
    const released = await raw.db
      .selectFrom('charges')
      .select('idempotency_key')
      .where('id', '=', 'ch_seed62')
      .executeTakeFirstOrThrow();
    expect(released.idempotency_key).toBeNull();
  }, 60_000);
});
