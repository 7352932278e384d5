/**
 * Issue 16 item 5: what one `POST /v1/charges` costs the database, so that round trips cannot creep back.
 * Every statement the gateway sends is recorded (a Kysely plugin on its own database handle, whose
 * transactions are watched), for a creation with a fresh key, and for one whose key an old charge still
 * holds (the forgotten-key path). The plans are read with sequential scans disabled: a statement that
 * still plans one on `charges` or `idempotency_keys` has no index that can serve it, at any table size.
 */
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { request, validCharge } from './helpers/http.js';
import { apiUrl, createMerchant, type Merchant } from './helpers/merchants.js';
import {
  analyze,
  planOf,
  recordWhile,
  seqScansOn,
  type PlanNode,
  recordedSuite,
  seededChargeTimes,
  t,
  raw,
} from './helpers/plans.js';
import { type CapturedStatement } from './helpers/statements.js';

let merchant: Merchant;

// No worker: only the requests' own statements are recorded.
const recorder = recordedSuite(
  { env: { ROLES: 'api,sandbox-acquirer' }, track: true, timeout: 60_000 },
  async () => {
    merchant = await createMerchant(t);
    // Enough rows of the merchant, analysed, that the planner's choice of index means something.
    await sql`
    INSERT INTO charges (id, organization_id, environment, amount, currency, payment_method, merchant_reference,
                         status, creation_state, idempotency_key, provider, provider_request, provider_payment_id,
                         provider_status, expires_at, created_at, updated_at)
    SELECT 'ch_seed' || i, ${merchant.organizationId}, 'sandbox', 1000 + i, 'TRY', 'credit_card_tr', 'seed-' || i,
           'pending', 'created', 'seed-key-' || i, 'sandbox', '{}'::jsonb, 'pay_seed' || i, 'awaiting_payment',
           ${seededChargeTimes(t.clock.now(), 72)}
    FROM generate_series(1, 2000) AS i
  `.execute(raw.db);
    await analyze(raw.db, 'charges', 'idempotency_keys');
    // The key's first request reads and touches the API key; the recorded ones find it cached.
    expect((await post(validCharge(), 'round-trips-warm-up')).status).toBe(201);
  },
);

const post = (body: Record<string, unknown>, key: string) =>
  request<{ id: string }>(`${apiUrl(t.urls, 'sandbox')}/v1/charges`, {
    body,
    headers: { 'x-api-key': merchant.keys.sandbox.secret, 'x-idempotency-key': key },
  });

/** The statements of one request, with the transactions it opened. */
async function recordOne(send: () => Promise<{ status: number; text: string }>) {
  const { result: response, statements, transactions } = await recordWhile(recorder, send);
  return { response, statements, transactions };
}

const CREATION_TABLES = /\b(?:from|update|into)\s+"(?:charges|idempotency_keys)"/i;
const shape = (statement: CapturedStatement) => statement.sql.split(/\s+/).slice(0, 3).join(' ');

/** The plan of a statement with sequential scans disabled. */
const planWithoutSeqScan = (statement: CapturedStatement): Promise<PlanNode[]> =>
  planOf(raw.db, statement, { seqScan: false });

const seqScans = (nodes: PlanNode[]) => seqScansOn(nodes, /^(charges|idempotency_keys)$/);

describe('one POST /v1/charges', () => {
  it('sends three creation statements, opens no transaction, and every one of them can use an index', async () => {
    const { response, statements, transactions } = await recordOne(() =>
      post(validCharge(), `round-trips-${Date.now()}`),
    );
    expect(response.status, response.text).toBe(201);
    const creation = statements.filter((statement) => CREATION_TABLES.test(statement.sql));
    // The idempotency claim, phase 1 (the charge, its key's holder found by the insert itself), then
    // after the acquirer phase 2 and the stored outcome in one statement (ADR 0046): each one statement
    // that commits on its own.
    expect(creation.map(shape)).toEqual([
      'insert into "idempotency_keys"',
      'insert into "charges"',
      'with companion as',
    ]);
    expect(creation[2]?.sql).toMatch(/^with companion as \(update "charges" set .*update idempotency_keys/s);
    expect(transactions).toBe(0);
    expect(statements.filter((statement) => statement.inTransaction)).toEqual([]);
    // Everything else the request sends (the API key's revocation epoch): at most one more. The request
    // log (`api_key_requests`) is written in batches off the request's path, whenever its timer fires.
    const others = statements.filter(
      (statement) => !CREATION_TABLES.test(statement.sql) && !/into "api_key_requests"/.test(statement.sql),
    );
    expect(others.length, others.map((statement) => statement.sql).join('\n')).toBeLessThanOrEqual(1);
    for (const statement of creation)
      expect(seqScans(await planWithoutSeqScan(statement)), statement.sql).toEqual([]);
  });

  it('releases a key an old charge still holds through the key index, in one transaction with the insert', async () => {
    const old = await post(validCharge(), 'round-trips-forgotten');
    expect(old.status, old.text).toBe(201);
    // The key's outcome and its charge are two days old: the store forgot it, the charge still holds it.
    const twoDaysAgo = new Date(t.clock.now().getTime() - 48 * 3_600_000);
    await raw.db
      .updateTable('charges')
      .set({ created_at: twoDaysAgo })
      .where('id', '=', old.body.id)
      .execute();
    await raw.db
      .updateTable('idempotency_keys')
      .set({ expires_at: twoDaysAgo })
      .where('key', '=', 'round-trips-forgotten')
      .execute();

    const { response, statements, transactions } = await recordOne(() =>
      post(validCharge(), 'round-trips-forgotten'),
    );
    expect(response.status, response.text).toBe(201);
    const fresh = response.text.includes(old.body.id)
      ? undefined
      : (JSON.parse(response.text) as { id: string });
    expect(fresh?.id).toBeDefined();
    expect(transactions).toBe(1);
    const release = statements.find((statement) =>
      /^update "charges" set "idempotency_key" = \$1/i.test(statement.sql),
    );
    expect(release?.inTransaction).toBe(true);
    const nodes = await planWithoutSeqScan(release ?? { sql: 'select 1', parameters: [] });
    expect(nodes.map((node) => node['Index Name'])).toContain('charges_idempotency_key');
    for (const statement of statements.filter((s) => CREATION_TABLES.test(s.sql)))
      expect(seqScans(await planWithoutSeqScan(statement)), statement.sql).toEqual([]);
    const holders = await raw.db
      .selectFrom('charges')
      .select(['id', 'idempotency_key'])
      .where('id', 'in', [old.body.id, fresh?.id ?? ''])
      .orderBy('created_at')
      .execute();
    expect(holders).toEqual([
      { id: old.body.id, idempotency_key: null },
      { id: fresh?.id, idempotency_key: 'round-trips-forgotten' },
    ]);
  });
});
