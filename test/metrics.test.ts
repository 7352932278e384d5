/**
 * Issue 16 item 1: `/metrics` on the operator listener, in the Prometheus text format, behind
 * `METRICS_TOKEN`: HTTP requests by route template (never a raw path), database statements and the pool,
 * calls to the acquirer, charge creations, the webhook backlog per endpoint, and background job runs.
 */
import { createServer, type Server } from 'node:net';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorker } from '../src/worker/worker.js';
import { apiRequest } from './helpers/client.js';
import { onPostgres } from './helpers/database.js';
import { startTestGateway, type TestGateway } from './helpers/gateway.js';
import { request } from './helpers/http.js';
import { createMerchant, type Merchant } from './helpers/merchants.js';
import { paidCharge } from './helpers/payouts.js';

const TOKEN = 'metrics-token-for-the-test-0123';

let t: TestGateway;
let merchant: Merchant;

beforeAll(async () => {
  t = await startTestGateway({ env: { METRICS_TOKEN: TOKEN } });
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
