/**
 * Issue 13 item 7: a payout's events reach the merchant's webhook endpoint like charge events do, over a
 * real socket, signed: `wallet.created` when a wallet is added, `payout.created`, `payout.completed` once
 * the sandbox chain confirms the transfer, `payout.failed` when the chain fails it, `payout.canceled`
 * when it is canceled, each with the payout as `data` as `GET /v1/payouts/{id}` shows it then.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MINUTE } from '../src/shared/clock.js';
import { chainControl } from './helpers/chain.js';
import { apiRequest } from './helpers/client.js';
import { startTestGateway, type TestGateway } from './helpers/gateway.js';
import { createMerchant, type Merchant } from './helpers/merchants.js';
import { paidCharge } from './helpers/payouts.js';
import { startReceiver, type Received, signedWith } from './helpers/receivers.js';

interface Delivered {
  id: string;
  eventType: string;
  livemode: boolean;
  createdAt: string;
  data: Record<string, unknown> & { id: string; status: string };
}

const TRON_ADDRESS = 'TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL';
const PAYOUT_EVENTS = ['payout.created', 'payout.completed', 'payout.failed', 'payout.canceled'];

let t: TestGateway;
let receiver: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
  // No worker role: the test runs the payout engine and the webhook dispatcher itself, step by step.
  [t, receiver] = await Promise.all([
    startTestGateway({ env: { ROLES: 'api,sandbox-acquirer,sandbox-chain' } }),
    startReceiver(),
  ]);
});
afterAll(async () => {
  await t?.close();
  await receiver?.close();
});

const api = <T>(merchant: Merchant, path: string, body?: unknown) =>
  apiRequest<T & { error: { code: string } }>(t.urls, path, {
    key: merchant.keys.sandbox.secret,
    ...(body === undefined ? {} : { body }),
  });

const verifies = signedWith;

/** Sends every due delivery now and returns what the receiver got since `from`. */
async function deliver(from: number): Promise<Received[]> {
  await t.gateway.services.webhooks.dispatcher.pump();
  return receiver.received.slice(from);
}

const parse = (request: Received) => JSON.parse(request.raw.toString('utf8')) as Delivered;

describe('payout webhooks', () => {
  it('delivers wallet.created and every payout event, signed, with the payout as data', async () => {
    const merchant = await createMerchant(t, {
      featureFlags: ['apiKeys', 'events', 'payouts', 'wallets'],
      payoutSchedule: 'manual',
    });
    const endpoint = await api<{ id: string; secret: string }>(merchant, '/v1/webhook-endpoints', {
      url: receiver.url,
      enabledEvents: ['wallet.created', ...PAYOUT_EVENTS],
    });
    expect(endpoint.status, endpoint.text).toBe(201);
    const secret = endpoint.body.secret;

    let seen = receiver.received.length;
    const wallet = await api<{ id: string }>(merchant, '/v1/wallets', {
      network: 'tron',
      address: TRON_ADDRESS,
    });
    expect(wallet.status, wallet.text).toBe(201);
    const walletEvents = await deliver(seen);
    seen += walletEvents.length;
    expect(walletEvents.map(parse).map((event) => [event.eventType, event.data.id, event.livemode])).toEqual([
      ['wallet.created', wallet.body.id, false],
    ]);

    // Funds: a paid charge (charge.succeeded is not selected, so not sent), released to available.
    await paidCharge(t, merchant, 'sandbox', 1_000_000);
    expect((await api<{ released: boolean }>(merchant, '/v1/test-helpers/settle', {})).body.released).toBe(
      true,
    );

    // One payout that completes, one the chain fails, one canceled before it is sent.
    const chain = chainControl(t.sandboxChain);
    const completed = (await api<{ id: string }>(merchant, '/v1/payouts', { amount: 100_000 })).body.id;
    await t.gateway.services.payoutEngine.submitBatch();
    await chain.fault('fail');
    const failed = (await api<{ id: string }>(merchant, '/v1/payouts', { amount: 200_000 })).body.id;
    await t.gateway.services.payoutEngine.submitBatch();
    const canceled = (await api<{ id: string }>(merchant, '/v1/payouts', { amount: 300_000 })).body.id;
    expect(await t.gateway.services.payouts.cancel(canceled, { by: 'staff:test', reason: 'test' })).toBe(
      'canceled',
    );
    await chain.mine(3);
    t.clock.advance(MINUTE);
    await t.gateway.services.payoutEngine.confirmBatch();

    const payoutEvents = await deliver(seen);
    for (const request of payoutEvents) expect(verifies(request, secret)).toBe(true);
    const events = payoutEvents.map(parse);
    // Deliveries due together go out concurrently, in no promised order (docs/webhooks.md): by type.
    const byPayout = (id: string) =>
      events
        .filter((event) => event.data.id === id)
        .map((event) => [event.eventType, event.data.status])
        .sort(([a], [b]) => String(a).localeCompare(String(b)));
    expect(byPayout(completed)).toEqual([
      ['payout.completed', 'completed'],
      ['payout.created', 'pending'],
    ]);
    expect(byPayout(failed)).toEqual([
      ['payout.created', 'pending'],
      ['payout.failed', 'failed'],
    ]);
    expect(byPayout(canceled)).toEqual([
      ['payout.canceled', 'canceled'],
      ['payout.created', 'pending'],
    ]);
    expect(events).toHaveLength(6);
    expect(new Set(events.map((event) => event.id)).size).toBe(6);
    expect(events.every((event) => event.livemode === false)).toBe(true);

    // The data is the payout as the API shows it at that moment.
    const done = events.find((event) => event.eventType === 'payout.completed');
    const now = await api<Record<string, unknown>>(merchant, `/v1/payouts/${completed}`);
    expect(done?.data).toEqual(now.body);
    expect(done?.data).toMatchObject({ txHash: expect.stringMatching(/^[0-9a-f]{64}$/), amount: '100000' });
    const failure = events.find((event) => event.eventType === 'payout.failed');
    expect(failure?.data).toMatchObject({ failureCode: 'transaction_failed', txHash: expect.any(String) });
    const created = events.find(
      (event) => event.eventType === 'payout.created' && event.data.id === canceled,
    );
    expect(created?.data).toMatchObject({ amount: '300000', status: 'pending', walletId: wallet.body.id });

    // Delivered once: a second pump sends nothing more.
    expect(await deliver(receiver.received.length)).toEqual([]);
  });
});
