/**
 * Product decision 9 and 5: key secrets are stored only as hashes and never logged. Every text of
 * every row of every table, and every log line, is searched for the secrets this file issued and used.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOUR } from '../src/shared/clock.js';
import { startTestGateway, type TestGateway } from './helpers/gateway.js';
import { request } from './helpers/http.js';
import { createMerchant, createOrganization, issueKey } from './helpers/merchants.js';

let t: TestGateway;
const secrets: string[] = [];

beforeAll(async () => {
  t = await startTestGateway({ env: { LOG_LEVEL: 'trace' } });
});
afterAll(async () => t?.close());

describe('key secrets at rest and in logs', () => {
  it('appear in no column of any table and in no log line, whatever the key went through', async () => {
    const db = t.gateway.database.db;
    const merchant = await createMerchant(t);
    const reviewing = await createMerchant(t, { kycStatus: 'REVIEWING' });
    const restricted = await issueKey(db, t.clock, merchant.organizationId, { allowedIps: ['10.0.0.0/8'] });
    const expired = await issueKey(db, t.clock, merchant.organizationId, {
      expiresAt: new Date(t.clock.now().getTime() - HOUR),
    });
    const noFlag = await issueKey(db, t.clock, await createOrganization(db, t.clock, { featureFlags: [] }));
    secrets.push(
      merchant.keys.sandbox.secret,
      merchant.keys.live.secret,
      reviewing.keys.live.secret,
      restricted.secret,
      expired.secret,
      noFlag.secret,
    );
    const sandbox = (
      path: string,
      secret: string,
      init: { method?: string; body?: unknown; rawBody?: string; headers?: Record<string, string> } = {},
    ) =>
      request<{ id: string; secret?: string }>(`${t.urls.sandboxApi}${path}`, {
        ...init,
        headers: { 'x-api-key': secret, ...init.headers },
      });

    // Keys made through the API, one of them replayed from the idempotency store.
    const created = await sandbox('/v1/api-keys', merchant.keys.sandbox.secret, {
      body: { scopes: ['read'], name: 'made by the API' },
    });
    const idempotent = { 'x-idempotency-key': 'secret-scan' };
    const first = await sandbox('/v1/api-keys', merchant.keys.sandbox.secret, {
      body: { scopes: ['write'] },
      headers: idempotent,
    });
    const replay = await sandbox('/v1/api-keys', merchant.keys.sandbox.secret, {
      body: { scopes: ['write'] },
      headers: idempotent,
    });
    expect([created.status, first.status, replay.status]).toEqual([201, 201, 201]);
    expect(replay.body.secret).toBe(first.body.secret);
    secrets.push(created.body.secret as string, first.body.secret as string);

    // Every kind of use and refusal.
    for (const secret of secrets) {
      await sandbox('/v1/api-keys', secret);
      await request(`${t.urls.liveApi}/v1/api-keys`, { headers: { 'x-api-key': secret } });
      await sandbox('/v1/api-keys', secret, { body: { scopes: ['nope'] } });
      await sandbox('/v1/api-keys', secret, {
        rawBody: '{bad json',
        headers: { 'content-type': 'application/json' },
      });
      await sandbox('/v1/nothing-here', secret);
      await sandbox('/v1/applications', secret, { body: { companyName: 'x' } });
    }
    await sandbox(`/v1/api-keys/${created.body.id}/revoke`, merchant.keys.sandbox.secret, { method: 'POST' });
    await sandbox('/v1/api-keys', created.body.secret as string);
    // A mistyped key (bad checksum) is refused too, and must not be logged either.
    const mistyped = `${merchant.keys.sandbox.secret.slice(0, -1)}x`;
    await sandbox('/v1/api-keys', mistyped);

    const tables = await sql<{ table_name: string }>`
      SELECT table_name FROM information_schema.tables
      WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`.execute(db);
    expect(tables.rows.map((row) => row.table_name)).toEqual(
      expect.arrayContaining(['api_keys', 'audit_log', 'idempotency_keys', 'organizations']),
    );
    let rowsScanned = 0;
    let displayPrefixSeen = false;
    for (const { table_name: table } of tables.rows) {
      // The whole row as text: every column, whatever its type (text, jsonb, arrays).
      const rows = await sql<{ row: string }>`SELECT t::text AS row FROM ${sql.table(table)} AS t`.execute(
        db,
      );
      rowsScanned += rows.rows.length;
      for (const { row } of rows.rows) {
        // Control: the scan does see what is stored next to the secret's hash.
        if (row.includes(merchant.keys.sandbox.displayPrefix)) displayPrefixSeen = true;
        for (const secret of [...secrets, mistyped]) {
          expect(row.includes(secret), `${table} holds a key secret`).toBe(false);
        }
      }
    }
    expect(rowsScanned).toBeGreaterThan(10);
    expect(displayPrefixSeen).toBe(true);

    expect(t.logs.length).toBeGreaterThan(50);
    // Control: the refusals were logged, so the search below looks at the right lines.
    expect(t.logs.some((line) => line.includes('"code":"invalid_api_key"'))).toBe(true);
    const logText = t.logs.join('\n');
    for (const secret of [...secrets, mistyped]) {
      expect(logText.includes(secret), 'a log line holds a key secret').toBe(false);
    }
  });
});
