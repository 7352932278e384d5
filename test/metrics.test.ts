/**
 * Issue 16 item 1: `/metrics` on the operator listener, in the Prometheus text format, behind
 * `METRICS_TOKEN`: HTTP requests by route template (never a raw path), database statements and the pool,
 * calls to the acquirer, charge creations, the webhook backlog per endpoint, and background job runs;
 * the due rows of each queue job, refunds and events by outcome, and rate ticker calls. The gateway runs
 * without its worker role, so the test decides when a queue job works (nothing races the scrapes).
 */
import { createServer, type Server } from 'node:net';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorker } from '../src/worker/worker.js';
import { acquirerControl, errorFault } from './helpers/acquirer.js';
import { chainControl } from './helpers/chain.js';
import { apiRequest } from './helpers/client.js';
import { onPostgres } from './helpers/database.js';
import { startTestGateway, type TestGateway } from './helpers/gateway.js';
import { request, validCharge } from './helpers/http.js';
import { createMerchant, type Merchant } from './helpers/merchants.js';
import { merchantApi, paidCharge } from './helpers/payouts.js';

const TOKEN = 'metrics-token-for-the-test-0123';

let t: TestGateway;
let merchant: Merchant;

beforeAll(async () => {
  t = await startTestGateway({
    env: {
      METRICS_TOKEN: TOKEN,
      ROLES: 'api,operator,sandbox-acquirer,sandbox-chain',
      CHARGE_EXPIRY_MINUTES: '1',
    },
  });
  merchant = await createMerchant(t, {});
});
afterAll(async () => t?.close());

/** `null`: no Authorization header. */
async function scrape(token: string | null = TOKEN) {
  return request(`${t.urls.operator}/metrics`, {
    headers: token === null ? {} : { authorization: `Bearer ${token}` },
  });
}

/** The value of one sample line (`name{labels} value`), or undefined. */
function sample(text: string, name: string, labels: RegExp = /.*/): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const match = /^([a-z_]+)(\{[^}]*\})? ([0-9.e+-]+|NaN)$/.exec(line);
    if (!match || match[1] !== name || !labels.test(match[2] ?? '')) continue;
    return Number(match[3]);
  }
  return undefined;
}

/** A loopback port nothing listens on: deliveries there fail and stay undelivered. */
async function closedPort(): Promise<number> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

describe('/metrics', () => {
  it('needs the metrics token when one is set', async () => {
    for (const token of [null, 'wrong-token-wrong-token', `${TOKEN}x`]) {
      const res = await scrape(token);
      expect(res.status, `${String(token)} ${res.text.slice(0, 300)}`).toBe(401);
      expect((res.body as { error: { code: string } }).error.code).toBe('unauthorized');
    }
    // Not served on the public listeners.
    const api = await apiRequest(t.urls, '/metrics', { key: merchant.keys.sandbox.secret });
    expect(api.status).toBe(404);
  });

  it('counts requests by route template, statements, acquirer calls and charge creations', async () => {
    const charge = await paidCharge(t, merchant, 'sandbox', 10_000);
    const missing = await apiRequest(t.urls, `/v1/charges/${charge.id}x`, {
      key: merchant.keys.sandbox.secret,
    });
    expect(missing.status).toBe(404);
    const unmatched = await apiRequest(t.urls, '/v1/no-such-route', { key: merchant.keys.sandbox.secret });
    expect(unmatched.status).toBe(404);

    const res = await scrape();
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = res.text;
    expect(
      sample(
        text,
        'gateway_http_requests_total',
        /listener="sandbox-api",method="POST",route="\/v1\/charges",status="201"/,
      ),
    ).toBeGreaterThanOrEqual(1);
    expect(
      sample(text, 'gateway_http_requests_total', /method="GET",route="\/v1\/charges\/:id",status="404"/),
    ).toBeGreaterThanOrEqual(1);
    expect(
      sample(text, 'gateway_http_requests_total', /route="unmatched",status="404"/),
    ).toBeGreaterThanOrEqual(1);
    expect(
      sample(text, 'gateway_http_request_duration_seconds_count', /route="\/v1\/charges"/),
    ).toBeGreaterThanOrEqual(1);
    // Labels carry templates, never the ids of a path.
    expect(text).not.toContain(charge.id);
    expect(
      sample(text, 'gateway_charge_creations_total', /environment="sandbox",outcome="created"/),
    ).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'gateway_db_query_duration_seconds_count', /outcome="ok"/)).toBeGreaterThan(0);
    expect(
      sample(
        text,
        'gateway_upstream_call_duration_seconds_count',
        /peer="acquirer:[^"]+",operation="create_payment",outcome="ok"/,
      ),
    ).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'gateway_process_cpu_seconds_total')).toBeGreaterThan(0);
    if (onPostgres) {
      expect(sample(text, 'gateway_db_pool_connections', /state="total"/)).toBeGreaterThanOrEqual(1);
    }
  });

  it('shows the webhook backlog and its oldest delivery per endpoint', async () => {
    const port = await closedPort();
    const endpoint = await apiRequest<{ id: string }>(t.urls, '/v1/webhook-endpoints', {
      key: merchant.keys.sandbox.secret,
      body: { url: `http://127.0.0.1:${port}/hooks`, enabledEvents: ['*'] },
    });
    expect(endpoint.status, endpoint.text).toBe(201);
    await paidCharge(t, merchant, 'sandbox', 20_000);
    t.clock.advance(5_000);
    const text = (await scrape()).text;
    const labels = new RegExp(`endpoint="${endpoint.body.id}",environment="sandbox"`);
    expect(sample(text, 'gateway_webhook_backlog', labels)).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'gateway_webhook_oldest_undelivered_seconds', labels)).toBeGreaterThanOrEqual(5);
  });

  it('counts background job runs, their outcome and rows', async () => {
    let calls = 0;
    const worker = startWorker(
      [
        {
          name: 'metrics-test-job',
          intervalMs: 20,
          run: async () => {
            calls += 1;
            if (calls === 2) throw new Error('a failing run');
            return { rows: 3, errors: 1 };
          },
        },
      ],
      pino({ level: 'silent' }),
    );
    await new Promise((resolve) => setTimeout(resolve, 1_300));
    await worker.stop();
    const text = (await scrape()).text;
    expect(calls).toBeGreaterThanOrEqual(3);
    expect(sample(text, 'gateway_job_runs_total', /job="metrics-test-job",outcome="failed"/)).toBe(1);
    const ok = sample(text, 'gateway_job_runs_total', /job="metrics-test-job",outcome="ok"/) ?? 0;
    expect(ok).toBe(calls - 1);
    expect(sample(text, 'gateway_job_rows_total', /job="metrics-test-job",outcome="ok"/)).toBe(3 * ok);
    expect(sample(text, 'gateway_job_rows_total', /job="metrics-test-job",outcome="failed"/)).toBe(ok);
    expect(sample(text, 'gateway_job_run_duration_seconds_count', /job="metrics-test-job"/)).toBe(calls);
  });
});

describe('/metrics: queues, outcomes and the rate ticker', () => {
  const QUEUE_JOBS = ['email-delivery', 'charge-expiry', 'payout-submit', 'payout-confirm', 'refund-retry'];

  it('shows the due rows and the oldest due age of each queue job', async () => {
    const before = (await scrape()).text;
    for (const job of QUEUE_JOBS) {
      expect(sample(before, 'gateway_job_due_rows', new RegExp(`job="${job}"`)), job).toBeGreaterThanOrEqual(
        0,
      );
      expect(sample(before, 'gateway_job_oldest_due_seconds', new RegExp(`job="${job}"`)), job).toBeDefined();
    }
    const dueRefunds = sample(before, 'gateway_job_due_rows', /job="refund-retry"/) ?? 0;
    const dueExpiries = sample(before, 'gateway_job_due_rows', /job="charge-expiry"/) ?? 0;

    // A refund left pending by an acquirer outage, and a checkout nobody pays (it expires in a minute).
    const charge = await paidCharge(t, merchant, 'sandbox', 4_000);
    await acquirerControl(t.sandboxAcquirer).addFault(errorFault('refund', 503, 'down'));
    const refund = await merchantApi(t, merchant, 'sandbox', `/v1/charges/${charge.id}/refunds`, {
      amount: 500,
    });
    await acquirerControl(t.sandboxAcquirer).clearFaults();
    expect(refund.status, refund.text).toBe(502);
    const unpaid = await merchantApi(t, merchant, 'sandbox', '/v1/charges', validCharge({ amount: 1_500 }));
    expect(unpaid.status, unpaid.text).toBe(201);
    // Not due yet: the refund waits for the request that may still be in flight, the charge its expiry.
    const fresh = (await scrape()).text;
    expect(sample(fresh, 'gateway_job_due_rows', /job="refund-retry"/)).toBe(dueRefunds);
    expect(sample(fresh, 'gateway_job_due_rows', /job="charge-expiry"/)).toBe(dueExpiries);

    // IDEMPOTENCY_LOCK_MS (60 s) and the one-minute expiry have passed, by 90 s.
    t.clock.advance(150_000);
    const due = (await scrape()).text;
    expect(sample(due, 'gateway_job_due_rows', /job="refund-retry"/)).toBe(dueRefunds + 1);
    expect(sample(due, 'gateway_job_due_rows', /job="charge-expiry"/)).toBe(dueExpiries + 1);
    expect(sample(due, 'gateway_job_oldest_due_seconds', /job="refund-retry"/)).toBeGreaterThanOrEqual(90);
    expect(sample(due, 'gateway_job_oldest_due_seconds', /job="charge-expiry"/)).toBeGreaterThanOrEqual(90);

    // The jobs' work takes the rows out of the queue.
    expect(await t.gateway.services.refunds.retryPending()).toBeGreaterThanOrEqual(1);
    await t.gateway.services.completion.expireDueBatch();
    const worked = (await scrape()).text;
    expect(sample(worked, 'gateway_job_due_rows', /job="refund-retry"/)).toBe(0);
    expect(sample(worked, 'gateway_job_due_rows', /job="charge-expiry"/)).toBe(0);
    expect(sample(worked, 'gateway_job_oldest_due_seconds', /job="refund-retry"/)).toBe(0);
  });

  it('counts refunds by outcome and events by type', async () => {
    const count = (text: string, name: string, labels: RegExp) => sample(text, name, labels) ?? 0;
    const before = (await scrape()).text;
    const charge = await paidCharge(t, merchant, 'sandbox', 6_000);
    const refunded = await merchantApi(t, merchant, 'sandbox', `/v1/charges/${charge.id}/refunds`, {
      amount: 1_000,
    });
    expect(refunded.status, refunded.text).toBe(201);
    await acquirerControl(t.sandboxAcquirer).addFault(
      errorFault('refund', 422, 'refund_window_closed', { times: 1 }),
    );
    const refused = await merchantApi(t, merchant, 'sandbox', `/v1/charges/${charge.id}/refunds`, {
      amount: 1_000,
    });
    await acquirerControl(t.sandboxAcquirer).clearFaults();
    expect(refused.status, refused.text).toBe(502);
    const after = (await scrape()).text;
    const delta = (name: string, labels: RegExp) => count(after, name, labels) - count(before, name, labels);
    expect(delta('gateway_refunds_total', /environment="sandbox",outcome="succeeded"/)).toBe(1);
    expect(delta('gateway_refunds_total', /environment="sandbox",outcome="failed"/)).toBe(1);
    expect(delta('gateway_events_total', /environment="sandbox",type="charge.succeeded"/)).toBe(1);
    expect(delta('gateway_events_total', /environment="sandbox",type="charge.refunded"/)).toBe(1);
  });

  it('times each rate ticker call by outcome', async () => {
    const count = (text: string, outcome: string) =>
      sample(
        text,
        'gateway_upstream_call_duration_seconds_count',
        new RegExp(`peer="ticker:live",operation="rate",outcome="${outcome}"`),
      ) ?? 0;
    const before = (await scrape()).text;
    // The live ticker (the stand-in chain's rate feed) with a fresh rate, then one from two days ago.
    await chainControl(t.liveChain).setRate('0.0290', t.clock.now().toISOString());
    expect((await t.gateway.services.payouts.quote('live')).ok).toBe(true);
    await chainControl(t.liveChain).setRate(
      '0.0290',
      new Date(t.clock.now().getTime() - 2 * 86_400_000).toISOString(),
    );
    const stale = await t.gateway.services.payouts.quote('live');
    expect(stale.ok).toBe(false);
    const after = (await scrape()).text;
    expect(count(after, 'ok') - count(before, 'ok')).toBe(1);
    expect(count(after, 'stale') - count(before, 'stale')).toBe(1);
  });
});
