/**
 * `DELETE /v1/webhook-endpoints/{id}` soft-deletes the endpoint and fails its pending deliveries in one
 * transaction: a crash between the two can no longer leave an endpoint deleted with deliveries still
 * counted as due in the backlog. Every statement of the request is recorded (a Kysely plugin on the
 * gateway's handle, its transactions watched).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiRequest } from './helpers/client.js';
import { startTestGateway, type TestGateway } from './helpers/gateway.js';
import { createMerchant, type Merchant } from './helpers/merchants.js';
import { statementRecorder } from './helpers/statements.js';

const recorder = statementRecorder();

let t: TestGateway;
let merchant: Merchant;

beforeAll(async () => {
  t = await startTestGateway({
    env: { ROLES: 'api,sandbox-acquirer' },
    wrapDatabase: (database) => ({ ...database, db: recorder.track(database.db) }),
  });
  merchant = await createMerchant(t, { featureFlags: ['apiKeys', 'events'] });
});
afterAll(async () => t?.close());

const api = <T>(path: string, init: { method?: string; body?: unknown } = {}) =>
  apiRequest<T>(t.urls, path, { ...init, key: merchant.keys.sandbox.secret });

describe('deleting a webhook endpoint', () => {
  it('marks it deleted and fails its pending deliveries in one transaction', async () => {
    const created = await api<{ id: string }>('/v1/webhook-endpoints', {
      method: 'POST',
      body: { url: 'http://127.0.0.1:9/hook', enabledEvents: ['charge.succeeded'] },
    });
    expect(created.status, created.text).toBe(201);

    recorder.captured.length = 0;
    recorder.transactions = 0;
    recorder.recording = true;
    let removed: { status: number; text: string };
    try {
      removed = await api(`/v1/webhook-endpoints/${created.body.id}`, { method: 'DELETE' });
    } finally {
      recorder.recording = false;
    }
    expect(removed.status, removed.text).toBe(200);
    const writes = recorder.captured.filter((statement) =>
      /^update "webhook_(endpoints|deliveries)"/i.test(statement.sql),
    );
    expect(writes.map((statement) => /^update "(\w+)"/i.exec(statement.sql)?.[1])).toEqual([
      'webhook_endpoints',
      'webhook_deliveries',
    ]);
    expect(writes.every((statement) => statement.inTransaction === true)).toBe(true);
    expect(recorder.transactions).toBe(1);

    // Gone for the API; a second delete is 404 and opens no write.
    expect((await api(`/v1/webhook-endpoints/${created.body.id}`)).status).toBe(404);
    expect((await api(`/v1/webhook-endpoints/${created.body.id}`, { method: 'DELETE' })).status).toBe(404);
  });
});
