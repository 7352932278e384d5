/**
 * The webhook fan-out of many events at once (recordMany, as a settlement chunk records the
 * `payout.created` and `balance.settled` events of hundreds of owners): each event gets exactly one
 * pending delivery per enabled endpoint of its own organization and environment that selected its kind,
 * and the endpoints are read once for the whole call, not once per event.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventInput } from '../src/modules/events/service.js';
import { apiRequest } from './helpers/client.js';
import { startTestGateway, type TestGateway } from './helpers/gateway.js';
import { createMerchant, type Merchant } from './helpers/merchants.js';
import { statementRecorder } from './helpers/statements.js';

let t: TestGateway;
const recorder = statementRecorder();

beforeAll(async () => {
  t = await startTestGateway({
    // No worker: the deliveries stay pending for the test to read.
    env: { ROLES: 'api,sandbox-acquirer' },
    wrapDatabase: (database) => ({ ...database, db: recorder.track(database.db) }),
  });
});
afterAll(async () => {
  await t?.close();
});

async function endpoint(
  merchant: Merchant,
  environment: 'sandbox' | 'live',
  enabledEvents: string[],
): Promise<string> {
  const res = await apiRequest<{ id: string }>(t.urls, '/v1/webhook-endpoints', {
    environment,
    key: merchant.keys[environment].secret,
    body: { url: 'https://hooks.merchant.example/gateway', enabledEvents },
  });
  expect(res.status, res.text).toBe(201);
  return res.body.id;
}

describe('the fan-out of a batch of events', () => {
  it('gives each event one delivery per matching endpoint of its owner, reading the endpoints once', async () => {
    const a = await createMerchant(t);
    const b = await createMerchant(t);
    const aSandboxAll = await endpoint(a, 'sandbox', ['*']);
    const aSandboxPayouts = await endpoint(a, 'sandbox', ['payout.created']);
    const aLiveSettled = await endpoint(a, 'live', ['balance.settled']);
    const bSandboxSettled = await endpoint(b, 'sandbox', ['balance.settled', 'charge.succeeded']);
    // A disabled endpoint gets nothing.
    const bDisabled = await endpoint(b, 'sandbox', ['*']);
    const disabled = await apiRequest(t.urls, `/v1/webhook-endpoints/${bDisabled}`, {
      key: b.keys.sandbox.secret,
      body: { disabled: true },
    });
    expect(disabled.status, disabled.text).toBe(200);

    const event = (
      merchant: Merchant,
      environment: 'sandbox' | 'live',
      type: EventInput['type'],
      resourceId: string,
    ): EventInput => ({
      organizationId: merchant.organizationId,
      environment,
      type,
      resourceId,
      data: { id: resourceId },
    });
    const inputs = [
      event(a, 'sandbox', 'payout.created', 'po_fanout_a1'),
      event(a, 'sandbox', 'balance.settled', 'stl_fanout_a1'),
      event(a, 'live', 'balance.settled', 'stl_fanout_a2'),
      event(a, 'live', 'payout.created', 'po_fanout_a2'),
      event(b, 'sandbox', 'balance.settled', 'stl_fanout_b1'),
      event(b, 'sandbox', 'payout.created', 'po_fanout_b1'),
    ];
    const { db, events } = t.gateway.services;
    recorder.captured.length = 0;
    recorder.recording = true;
    const recorded = await db.transaction().execute((trx) => events.recordMany(trx, inputs));
    recorder.recording = false;
    expect(recorded).toHaveLength(inputs.length);
    const endpointReads = recorder.captured.filter((s) => /from "webhook_endpoints"/.test(s.sql));
    expect(endpointReads).toHaveLength(1);
    const deliveryInserts = recorder.captured.filter((s) => /insert into "webhook_deliveries"/.test(s.sql));
    expect(deliveryInserts).toHaveLength(1);

    const idOf = (resourceId: string) => {
      const index = inputs.findIndex((input) => input.resourceId === resourceId);
      return recorded[index]?.id;
    };
    const deliveries = await db
      .selectFrom('webhook_deliveries')
      .select(['event_id', 'endpoint_id', 'status'])
      .where(
        'event_id',
        'in',
        recorded.map((r) => r.id),
      )
      .execute();
    const pairs = deliveries.map((d) => `${d.event_id}>${d.endpoint_id}`).sort();
    expect(pairs).toEqual(
      [
        `${idOf('po_fanout_a1')}>${aSandboxAll}`,
        `${idOf('po_fanout_a1')}>${aSandboxPayouts}`,
        `${idOf('stl_fanout_a1')}>${aSandboxAll}`,
        `${idOf('stl_fanout_a2')}>${aLiveSettled}`,
        `${idOf('stl_fanout_b1')}>${bSandboxSettled}`,
      ].sort(),
    );
    expect(deliveries.every((d) => d.status === 'pending')).toBe(true);
  });
});
