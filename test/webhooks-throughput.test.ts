/**
 * Issue 16 item 5 (docs/decisions/0036-webhook-throughput.md): many attempts in flight per endpoint, bounded
 * by the per-endpoint limit; a slow endpoint with a backlog does not starve a fast one; attempts reuse
 * kept-alive connections, and a pooled connection only ever goes to the address checked for the attempt
 * (DNS rebinding); the per-charge lookup and the claim are index lookups (their plans, on a seeded table).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Database } from '../src/db/database.js';
import type { WebhookDispatcher } from '../src/modules/webhooks/index.js';
import type { TestGateway } from './helpers/gateway.js';
import { request } from './helpers/http.js';
import { createMerchant, type Merchant } from './helpers/merchants.js';
import { analyze, planOf, recordWhile, startRecordedGateway } from './helpers/plans.js';
import { statementRecorder, type CapturedStatement } from './helpers/statements.js';
import {
  createEndpoint as createEndpointOf,
  dispatcherOf,
  paidCharge,
  recordEvents as recordEventsOf,
  retireEndpoints,
} from './helpers/webhook-dispatch.js';

/** A loopback receiver: counts TCP connections and requests in flight; `hold` keeps answers back. */
async function startReceiver(options: { host?: string; port?: number; hold?: boolean } = {}) {
  const received: string[] = [];
  const held: http.ServerResponse[] = [];
  let hold = options.hold ?? false;
  let connections = 0;
  let inFlight = 0;
  let maxInFlight = 0;
  const server = http.createServer((req, res) => {
    inFlight += 1;
    maxInFlight = Math.max(maxInFlight, inFlight);
    res.on('close', () => (inFlight -= 1));
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push((JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: string }).id);
      if (hold) held.push(res);
      else res.end('ok');
    });
  });
  server.on('connection', () => (connections += 1));
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, host, resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: `http://${host}:${port}/hooks`,
    received,
    connections: () => connections,
    maxInFlight: () => maxInFlight,
    inFlight: () => inFlight,
    release() {
      hold = false;
      for (const res of held.splice(0)) res.end('ok');
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const recorder = statementRecorder();
let t: TestGateway;
let raw: Database;
let merchant: Merchant;

beforeAll(async () => {
  ({ t, raw } = await startRecordedGateway(recorder, { env: { ROLES: 'api,sandbox-acquirer' } }));
  merchant = await createMerchant(t);
});
afterAll(async () => t?.close());
beforeEach(async () => retireEndpoints(t, raw.db));

const dispatcherWith = (concurrency: number, perEndpoint: number): WebhookDispatcher =>
  dispatcherOf(t, { timeoutMs: 5000, concurrency, perEndpoint });
const createEndpoint = (url: string) => createEndpointOf(t, merchant, url);
/** `count` events in one transaction: one delivery each to every enabled endpoint. */
const recordEvents = (count: number, prefix: string) => recordEventsOf(t, merchant, count, prefix);

describe('delivery throughput', () => {
  it('keeps many attempts in flight to one endpoint, never more than the per-endpoint limit', async () => {
    const receiver = await startReceiver({ hold: true });
    const worker = dispatcherWith(20, 6);
    try {
      await createEndpoint(receiver.url);
      await recordEvents(15, 'many');
      const pump = worker.pump(60_000);
      await expect.poll(() => receiver.received.length, { timeout: 5000 }).toBe(6);
      // Held answers keep the six slots of the endpoint: nothing more goes out.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(receiver.received).toHaveLength(6);
      receiver.release();
      expect(await pump).toBe(15);
      expect(new Set(receiver.received).size).toBe(15);
      expect(receiver.maxInFlight()).toBe(6);
    } finally {
      await worker.stop();
      await receiver.close();
    }
  });

  it('a slow endpoint with a backlog due first does not starve a fast one', async () => {
    const slow = await startReceiver({ hold: true });
    const fast = await startReceiver();
    const worker = dispatcherWith(8, 3);
    try {
      await createEndpoint(slow.url);
      // More than the worker's 8 slots, all due before the fast endpoint's.
      await recordEvents(12, 'backlog');
      t.clock.advance(1000);
      await createEndpoint(fast.url);
      await recordEvents(8, 'fresh');
      const pump = worker.pump(60_000);
      await expect.poll(() => fast.received.length, { timeout: 5000 }).toBe(8);
      // The slow endpoint holds at most its three slots all along.
      expect(slow.received).toHaveLength(3);
      expect(slow.maxInFlight()).toBe(3);
      slow.release();
      // The backlog drains too (the 8 fresh events went to both endpoints).
      expect(await pump).toBe(12 + 8 + 8);
      expect(slow.received).toHaveLength(20);
    } finally {
      await worker.stop();
      await slow.close();
      await fast.close();
    }
  });

  it('sends many deliveries over a few kept-alive connections', async () => {
    const receiver = await startReceiver();
    const worker = dispatcherWith(16, 4);
    try {
      await createEndpoint(receiver.url);
      await recordEvents(30, 'reuse');
      expect(await worker.pump(60_000)).toBe(30);
      expect(new Set(receiver.received).size).toBe(30);
      expect(receiver.connections()).toBeLessThanOrEqual(4);
    } finally {
      await worker.stop();
      await receiver.close();
    }
  });

  it('never reuses a connection to an address the host no longer resolves to (DNS rebinding)', async () => {
    const first = await startReceiver({ host: '127.0.0.1' });
    // The same port on another loopback address: only the checked address tells them apart.
    const second = await startReceiver({ host: '127.0.0.2', port: first.port });
    const resolver = t.gateway.services.webhooks.resolver;
    const worker = dispatcherWith(4, 2);
    try {
      resolver.pin('rebind.example', ['127.0.0.1']);
      await createEndpoint(`http://rebind.example:${first.port}/hooks`);
      await recordEvents(1, 'before');
      expect(await worker.deliverDue()).toBe(1);
      expect(first.received).toHaveLength(1);
      // The name now answers another address; the kept-alive connection to the first stays in the pool.
      resolver.pin('rebind.example', ['127.0.0.2']);
      await recordEvents(2, 'after');
      expect(await worker.pump(60_000)).toBe(2);
      expect(first.received).toHaveLength(1);
      expect(second.received).toHaveLength(2);
    } finally {
      resolver.unpin('rebind.example');
      await worker.stop();
      await first.close();
      await second.close();
    }
  });
});

/** The statements `work` sends. */
async function recorded(work: () => Promise<unknown>): Promise<CapturedStatement[]> {
  return (await recordWhile(recorder, work)).statements;
}

const isProbe = (statement: CapturedStatement) =>
  /^\s*select endpoint_id from webhook_deliveries where status = 'pending'/i.test(statement.sql);
const isClaim = (statement: CapturedStatement) => /with recursive pending_endpoints/i.test(statement.sql);

describe('the idle poll (ADR 0048)', () => {
  it('is one probe when nothing is pending; a worker that just took deliveries claims without one', async () => {
    const receiver = await startReceiver();
    const worker = dispatcherWith(1, 1);
    try {
      const count = (statements: CapturedStatement[]) => ({
        probes: statements.filter(isProbe).length,
        claims: statements.filter(isClaim).length,
      });
      // Nothing pending: the probe alone, no claim.
      expect(count(await recorded(() => worker.deliverDue()))).toEqual({ probes: 1, claims: 0 });
      await createEndpoint(receiver.url);
      await recordEvents(2, 'drain');
      // After an empty round the probe comes first; after a round that took a delivery, the claim alone.
      expect(count(await recorded(() => worker.deliverDue()))).toEqual({ probes: 1, claims: 1 });
      expect(count(await recorded(() => worker.deliverDue()))).toEqual({ probes: 0, claims: 1 });
      // The backlog is drained: one more claim finds nothing, and the next round is the probe alone again.
      expect(count(await recorded(() => worker.deliverDue()))).toEqual({ probes: 0, claims: 1 });
      expect(count(await recorded(() => worker.deliverDue()))).toEqual({ probes: 1, claims: 0 });
      expect(new Set(receiver.received).size).toBe(2);
    } finally {
      await worker.stop();
      await receiver.close();
    }
  });
});

const SEEDED = 5000;

describe('the plans, on a seeded table', () => {
  it('the attempts of a charge and the claim read indexes, not the whole tables', async () => {
    const receiver = await startReceiver();
    try {
      const endpoint = await createEndpoint(receiver.url);
      const chargeId = await paidCharge(t, merchant, 'Plan');
      // The merchant's history: SEEDED other events, each delivered once and attempted once, and as many
      // pending deliveries waiting for their retry.
      const now = t.clock.now();
      await sql`
        INSERT INTO events (id, organization_id, environment, type, resource_id, payload, created_at)
        SELECT 'evt_seed' || i, ${merchant.organizationId}, 'sandbox', 'charge.succeeded', 'ch_seed' || i,
               jsonb_build_object('id', 'evt_seed' || i, 'data', jsonb_build_object('id', 'ch_seed' || i)),
               ${now}::timestamptz - i * interval '1 second'
        FROM generate_series(1, ${SEEDED}) AS i`.execute(raw.db);
      await sql`
        INSERT INTO webhook_deliveries (id, event_id, endpoint_id, organization_id, environment, status,
                                        attempts, next_attempt_at, created_at, updated_at)
        SELECT 'whd_seed' || i, 'evt_seed' || i, ${endpoint.id}, ${merchant.organizationId}, 'sandbox',
               CASE WHEN i % 2 = 0 THEN 'pending' ELSE 'succeeded' END, 1,
               ${now}::timestamptz + interval '1 hour', ${now}::timestamptz, ${now}::timestamptz
        FROM generate_series(1, ${SEEDED}) AS i`.execute(raw.db);
      await sql`
        INSERT INTO webhook_attempts (id, delivery_id, event_id, endpoint_id, organization_id, environment, url,
                                      succeeded, status_code, latency_ms, attempted_at)
        SELECT 'wha_seed' || i, 'whd_seed' || i, 'evt_seed' || i, ${endpoint.id}, ${merchant.organizationId},
               'sandbox', ${receiver.url}, true, 200, 3, ${now}::timestamptz - i * interval '1 second'
        FROM generate_series(1, ${SEEDED}) AS i`.execute(raw.db);
      await analyze(raw.db, 'events', 'webhook_deliveries', 'webhook_attempts');

      const worker = dispatcherWith(8, 4);
      const claimStatements = await recorded(() => worker.deliverDue());
      await worker.stop();
      const lookup = await recorded(async () => {
        const res = await request<{ data: Array<{ eventType: string }> }>(
          `${t.urls.sandboxApi}/v1/charges/${chargeId}/webhook-deliveries`,
          { method: 'GET', headers: { 'x-api-key': merchant.keys.sandbox.secret } },
        );
        expect(res.status).toBe(200);
        expect(res.body.data.map((attempt) => attempt.eventType)).toEqual(['charge.succeeded']);
      });

      const claim = claimStatements.find(isClaim);
      // The idle poll's probe, sent before a worker's first claim.
      const probe = claimStatements.find(isProbe);
      const ofCharge = lookup.filter((statement) =>
        /from "(events|webhook_attempts|webhook_deliveries)"/i.test(statement.sql),
      );
      expect(claim, 'the claim statement').toBeDefined();
      expect(probe, 'the probe for pending deliveries').toBeDefined();
      expect(ofCharge.length).toBeGreaterThanOrEqual(2);
      const scans: string[] = [];
      const indexes = new Set<string>();
      for (const statement of [probe!, claim!, ...ofCharge]) {
        for (const node of await planOf(raw.db, statement)) {
          if (node['Index Name']) indexes.add(node['Index Name']);
          if (
            node['Node Type'] === 'Seq Scan' &&
            /^(events|webhook_attempts|webhook_deliveries)$/.test(node['Relation Name'] ?? '')
          )
            scans.push(`${node['Relation Name']}: ${statement.sql}`);
        }
      }
      expect(scans, 'statements that read a whole table').toEqual([]);
      expect(indexes).toContain('events_resource_idx');
      expect(indexes).toContain('webhook_attempts_event_idx');
      expect(indexes).toContain('webhook_deliveries_endpoint_due_idx');
    } finally {
      await receiver.close();
    }
  }, 60_000);
});
