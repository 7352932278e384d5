/**
 * Every call to another system fits a request's time budget (docs/decisions/0064): with the acquirer,
 * the rate ticker or a merchant's name servers hanging, each request on a path that calls them answers
 * (502 provider_unavailable, the page saying the acquirer is unreachable, 503 payouts_unavailable, the
 * URL refused) before the listener's own timeout cuts the connection, and a retry once the other side
 * answers again finishes what the first request began. The timeouts are small so that each case takes
 * seconds: a request may spend 3750 ms of its 5000 on outbound calls, while one acquirer call could take
 * 3 x 2000 ms plus backoff.
 */
import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';
import {
  outboundDeadline,
  withoutOutboundDeadline,
  withOutboundDeadline,
} from '../src/shared/request-budget.js';
import { TEST_CARDS } from '../sandbox-acquirer/cards.js';
import { acquirerControl, type AcquirerPaymentBody } from './helpers/acquirer.js';
import { apiRequest } from './helpers/client.js';
import { startTestGateway, type TestGateway } from './helpers/gateway.js';
import { request, validCharge, type ErrorBody, type HttpResult } from './helpers/http.js';
import { apiUrl, createMerchant, type Merchant } from './helpers/merchants.js';
import { liveFundedMerchant, paidCharge } from './helpers/payouts.js';

const REQUEST_TIMEOUT_MS = 5000;
/** REQUEST_TIMEOUT_MS less its reply margin (a quarter). */
const OUTBOUND_BUDGET_MS = 3750;
const ACQUIRER_TIMEOUT_MS = 2000;
const ACQUIRER_MAX_ATTEMPTS = 3;

interface ChargeBody {
  id: string;
  status: string;
  providerPaymentId: string;
  paymentPageUrl: string;
}
type Body<T = unknown> = T & ErrorBody & { error: { details?: Record<string, unknown> } };

let t: TestGateway;
let merchant: Merchant;
/** The live rate ticker: answers a fresh rate, or holds every request while `tickerHangs`. */
let ticker: Server;
let tickerHangs = false;

beforeAll(async () => {
  ticker = createServer((_request, response) => {
    if (tickerHangs) return;
    response.setHeader('content-type', 'application/json');
    response.end(JSON.stringify({ rate: '0.0290', at: t.clock.now().toISOString() }));
  });
  await new Promise<void>((resolve) => ticker.listen(0, '127.0.0.1', resolve));
  t = await startTestGateway({
    env: {
      // No worker: nothing but the requests of the test calls the acquirer.
      ROLES: 'api,sandbox-acquirer,sandbox-chain',
      REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
      ACQUIRER_TIMEOUT_MS: String(ACQUIRER_TIMEOUT_MS),
      ACQUIRER_MAX_ATTEMPTS: String(ACQUIRER_MAX_ATTEMPTS),
      IDEMPOTENCY_LOCK_MS: '10000',
      PAYOUT_RAIL_TIMEOUT_MS: '3000',
      FX_TICKER_URL: `http://127.0.0.1:${(ticker.address() as AddressInfo).port}/rate`,
      FX_TICKER_TIME_FIELD: 'at',
      // Longer than a request may wait: a registration's lookup is cut by the request's budget first.
      WEBHOOK_TIMEOUT_MS: '10000',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'false',
    },
  });
  merchant = await createMerchant(t);
});
afterAll(async () => {
  await t?.close();
  ticker?.closeAllConnections();
  await new Promise((resolve) => ticker?.close(resolve));
});
afterEach(async () => {
  tickerHangs = false;
  await acquirer().clearFaults();
});

const acquirer = () => acquirerControl(t.sandboxAcquirer);

function postCharge(body: Record<string, unknown>, key: string): Promise<HttpResult<Body<ChargeBody>>> {
  return request<Body<ChargeBody>>(`${apiUrl(t.urls, 'sandbox')}/v1/charges`, {
    body,
    headers: { 'x-api-key': merchant.keys.sandbox.secret, 'x-idempotency-key': key },
  });
}

/** The calls of `operation` a `timeout` rule held (never answered) that `match` picks. */
async function heldCalls(
  operation: string,
  match: (call: { reference: string | null; paymentId: string | null }) => boolean,
) {
  return (await acquirer().calls(operation)).filter((call) => call.status === null && match(call));
}

/** `work`'s answer and how long it took, in milliseconds. */
async function timed<T>(work: () => Promise<T>): Promise<{ answer: T; ms: number }> {
  const started = performance.now();
  const answer = await work();
  return { answer, ms: performance.now() - started };
}

/** The answer came before the listener's timeout, and no later than the budget and the reply margin. */
function expectAnsweredInTime(ms: number) {
  expect(ms).toBeLessThan(REQUEST_TIMEOUT_MS);
}

describe('the request budget in the configuration', () => {
  const env = {
    NODE_ENV: 'test',
    SANDBOX_ACQUIRER_URL: 'http://127.0.0.1:3999',
    SANDBOX_ACQUIRER_API_KEY: 'k',
    SANDBOX_ACQUIRER_NOTIFICATION_SECRET: 's',
  };
  const problems = (extra: Record<string, string>): string => {
    try {
      loadConfig({ ...env, ...extra });
    } catch (error) {
      if (error instanceof ConfigError) return error.message;
      throw error;
    }
    return '';
  };

  it('derives the outbound budget from REQUEST_TIMEOUT_MS, keeping a quarter (at least a second) to answer', () => {
    expect(loadConfig(env)).toMatchObject({ requestTimeoutMs: 30_000, outboundBudgetMs: 22_500 });
    const small = { ACQUIRER_TIMEOUT_MS: '1000', PAYOUT_RAIL_TIMEOUT_MS: '1000' };
    expect(loadConfig({ ...env, ...small, REQUEST_TIMEOUT_MS: '5000' })).toMatchObject({
      requestTimeoutMs: 5000,
      outboundBudgetMs: OUTBOUND_BUDGET_MS,
    });
    expect(loadConfig({ ...env, ...small, REQUEST_TIMEOUT_MS: '2000' })).toMatchObject({
      outboundBudgetMs: 1000,
    });
    expect(problems({ REQUEST_TIMEOUT_MS: '1000' })).toContain(
      'REQUEST_TIMEOUT_MS must be an integer from 2000 to 600000',
    );
  });

  it('leaves an operator command that runs a job’s work (a settlement run) outside the request’s deadline', async () => {
    await withOutboundDeadline(performance.now() + 1000, async () => {
      expect(outboundDeadline()).toBeDefined();
      expect(await withoutOutboundDeadline(async () => outboundDeadline())).toBeUndefined();
      // And the request's own calls after it are still bounded.
      expect(outboundDeadline()).toBeDefined();
    });
  });

  it('refuses a per-call timeout that a request could never wait for', () => {
    expect(problems({ ACQUIRER_TIMEOUT_MS: '25000' })).toContain(
      'ACQUIRER_TIMEOUT_MS (25000) must not exceed what a request may spend on calls to other systems, 22500 ms',
    );
    expect(problems({ REQUEST_TIMEOUT_MS: '10000', PAYOUT_RAIL_TIMEOUT_MS: '8000' })).toContain(
      'PAYOUT_RAIL_TIMEOUT_MS (8000) must not exceed what a request may spend on calls to other systems, 7500 ms',
    );
    // A longer request timeout makes room for it.
    expect(
      problems({ REQUEST_TIMEOUT_MS: '40000', ACQUIRER_TIMEOUT_MS: '25000', IDEMPOTENCY_LOCK_MS: '90000' }),
    ).toBe('');
  });

  it('is the listener timeout: a connection that stays silent is cut at REQUEST_TIMEOUT_MS, not 30 s later', async () => {
    const { port } = new URL(t.urls.sandboxApi);
    const socket = connect(Number(port), '127.0.0.1');
    const started = performance.now();
    const closed = new Promise<number>((resolve) => {
      socket.on('close', () => resolve(performance.now() - started));
      socket.on('error', () => undefined);
    });
    // A request whose headers never end: nothing is answered, so only the timeout closes it.
    socket.write('POST /v1/charges HTTP/1.1\r\nHost: x\r\n');
    const ms = await Promise.race([
      closed,
      new Promise<number>((resolve) => setTimeout(() => resolve(-1), 15_000)),
    ]);
    socket.destroy();
    expect(ms).toBeGreaterThan(REQUEST_TIMEOUT_MS - 500);
    expect(ms).toBeLessThan(REQUEST_TIMEOUT_MS + 5000);
  }, 20_000);
});

describe('charge creation with the acquirer hanging', () => {
  it('answers 502 provider_unavailable with Retry-After 30 in time, and the retry with the key creates the charge', async () => {
    const body = validCharge();
    const key = `budget-${Math.random().toString(36).slice(2)}`;
    await acquirer().addFault({ operation: 'create_payment', action: 'timeout' });
    const { answer: res, ms } = await timed(() => postCharge(body, key));
    expect(res.status, res.text).toBe(502);
    expect(res.body.error.code).toBe('provider_unavailable');
    expect(res.headers.get('retry-after')).toBe('30');
    expectAnsweredInTime(ms);
    const [row] = await t.gateway.database.db
      .selectFrom('charges')
      .selectAll()
      .where('merchant_reference', '=', String(body.merchantReference))
      .execute();
    expect(row?.creation_state).toBe('creating');
    // No attempt started past the budget: two of the three the call would have made.
    const hung = await heldCalls('create_payment', (call) => call.reference === row?.id);
    expect(hung.length).toBeGreaterThanOrEqual(1);
    expect(hung.length).toBeLessThan(ACQUIRER_MAX_ATTEMPTS);

    await acquirer().clearFaults();
    const retry = await postCharge(body, key);
    expect(retry.status, retry.text).toBe(201);
    expect(retry.body.id).toBe(row?.id);
    expect(await acquirer().paymentsFor(retry.body.id)).toHaveLength(1);
  }, 30_000);

  it('also when the acquirer made the payment but answers too late: the retry gets that one payment', async () => {
    const body = validCharge();
    const key = `budget-late-${Math.random().toString(36).slice(2)}`;
    await acquirer().addFault({ operation: 'create_payment', action: 'delay_response', latencyMs: 20_000 });
    const { answer: res, ms } = await timed(() => postCharge(body, key));
    expect(res.status, res.text).toBe(502);
    expect(res.body.error.code).toBe('provider_unavailable');
    expectAnsweredInTime(ms);

    await acquirer().clearFaults();
    const retry = await postCharge(body, key);
    expect(retry.status, retry.text).toBe(201);
    const payments = await acquirer().paymentsFor(retry.body.id);
    expect(payments).toHaveLength(1);
    expect(retry.body.providerPaymentId).toBe(payments[0]?.id);
  }, 30_000);
});

describe('refund creation with the acquirer hanging', () => {
  it('answers 502 provider_unavailable with Retry-After 30 in time; the retry with the key refunds once', async () => {
    const charge = await paidCharge(t, merchant, 'sandbox', 12_550);
    const key = `budget-refund-${Math.random().toString(36).slice(2)}`;
    const refund = () =>
      apiRequest<Body<{ id: string; status: string }>>(t.urls, `/v1/charges/${charge.id}/refunds`, {
        key: merchant.keys.sandbox.secret,
        environment: 'sandbox',
        body: { amount: 5000 },
        headers: { 'x-idempotency-key': key },
      } as Parameters<typeof apiRequest>[2]);
    await acquirer().addFault({ operation: 'refund', action: 'timeout' });
    const { answer: res, ms } = await timed(refund);
    expect(res.status, res.text).toBe(502);
    expect(res.body.error.code).toBe('provider_unavailable');
    expect(res.headers.get('retry-after')).toBe('30');
    expectAnsweredInTime(ms);
    const refundId = res.body.error.details?.refundId;
    expect(refundId).toMatch(/^re_/);
    const hung = await heldCalls('refund', (call) => call.paymentId === charge.providerPaymentId);
    expect(hung.length).toBeLessThan(ACQUIRER_MAX_ATTEMPTS);

    await acquirer().clearFaults();
    const retry = await refund();
    expect(retry.status, retry.text).toBe(201);
    expect(retry.body).toMatchObject({ id: refundId, status: 'succeeded' });
    const payment = await acquirer().payment(charge.providerPaymentId);
    expect(payment.refunds).toHaveLength(1);
    expect(payment.refundedAmount).toBe('5000');
  }, 30_000);
});

describe('the read-back of a notification with the acquirer hanging', () => {
  const secret = () => t.gateway.services.acquirers.sandbox.notificationSecret;
  const notify = (body: string) => {
    const timestamp = Math.floor(t.clock.now().getTime() / 1000);
    return request<Body<{ received: boolean; outcome: string }>>(
      `${t.urls.sandboxApi}/webhooks/v1/payments`,
      {
        rawBody: body,
        headers: {
          'acquirer-timestamp': String(timestamp),
          'acquirer-signature': createHmac('sha256', secret()).update(`${timestamp}.${body}`).digest('hex'),
          'content-type': 'application/json',
        },
      },
    );
  };

  it('answers 502 provider_unavailable in time and records nothing; the acquirer’s retry applies it', async () => {
    const created = await postCharge(validCharge(), `budget-ntf-${Math.random().toString(36).slice(2)}`);
    expect(created.status, created.text).toBe(201);
    const charge = created.body;
    // Paid at the acquirer with its own notifications dropped: the test's signed one is the only one.
    await acquirer().addFault({ operation: 'notification', action: 'drop', match: { reference: charge.id } });
    const paid = await acquirer().authorize(charge.providerPaymentId, TEST_CARDS.visa.number);
    expect(paid.status, paid.text).toBe(200);
    const payment: AcquirerPaymentBody = await acquirer().payment(charge.providerPaymentId);
    const notification = JSON.stringify({
      id: `ntf_budget${Math.random().toString(36).slice(2)}`,
      type: `payment.${payment.status}`,
      createdAt: t.clock.now().toISOString(),
      payment,
      refund: null,
    });
    await acquirer().addFault({
      operation: 'get_payment',
      action: 'timeout',
      match: { reference: charge.id },
    });
    const { answer: res, ms } = await timed(() => notify(notification));
    expect(res.status, res.text).toBe(502);
    expect(res.body.error.code).toBe('provider_unavailable');
    expectAnsweredInTime(ms);
    const hung = await heldCalls('get_payment', (call) => call.paymentId === charge.providerPaymentId);
    expect(hung.length).toBeLessThan(ACQUIRER_MAX_ATTEMPTS);
    const recorded = await t.gateway.database.db
      .selectFrom('provider_notifications')
      .select('id')
      .where('charge_id', '=', charge.id)
      .execute();
    expect(recorded).toHaveLength(0);

    await acquirer().clearFaults();
    const again = await notify(notification);
    expect(again.status, again.text).toBe(200);
    const view = await request<ChargeBody>(`${apiUrl(t.urls, 'sandbox')}/v1/charges/${charge.id}`, {
      headers: { 'x-api-key': merchant.keys.sandbox.secret },
    });
    expect(view.body.status).toBe('succeeded');
  }, 30_000);
});

describe('the checkout card form with the acquirer hanging', () => {
  it('shows the acquirer unreachable in time, whatever the calls it chains; the next attempt pays', async () => {
    const created = await postCharge(validCharge(), `budget-card-${Math.random().toString(36).slice(2)}`);
    expect(created.status, created.text).toBe(201);
    const charge = created.body;
    const postCard = () =>
      fetch(`${t.urls.web}/c/${charge.providerPaymentId}/card?lang=en`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          holderName: 'Ayşe Yılmaz',
          cardNumber: TEST_CARDS.visa.number,
          expiry: '12/30',
          cvc: '123',
        }).toString(),
      });
    // Every call about this payment hangs: the authorization, then the read-back after it.
    await acquirer().addFault({ operation: '*', action: 'timeout', match: { reference: charge.id } });
    const { answer: res, ms } = await timed(async () => {
      const response = await postCard();
      return { status: response.status, text: await response.text() };
    });
    expect(res.status, res.text).toBe(503);
    expect(res.text).toContain('The payment service is not reachable right now.');
    expect(res.text).not.toContain(TEST_CARDS.visa.number);
    expectAnsweredInTime(ms);
    // One authorization (never retried), and no more of the read-back than the budget had room for.
    const about = (call: { paymentId: string | null }) => call.paymentId === charge.providerPaymentId;
    expect(await heldCalls('authorize', about)).toHaveLength(1);
    expect((await heldCalls('get_payment', about)).length).toBeLessThan(ACQUIRER_MAX_ATTEMPTS);

    await acquirer().clearFaults();
    const next = await postCard();
    expect(next.status).toBe(303);
    const view = await request<ChargeBody>(`${apiUrl(t.urls, 'sandbox')}/v1/charges/${charge.id}`, {
      headers: { 'x-api-key': merchant.keys.sandbox.secret },
    });
    expect(view.body.status).toBe('succeeded');
  }, 30_000);
});

describe('payout creation with the rate ticker hanging', () => {
  it('answers 503 payouts_unavailable in time, and the retry with the key pays out once the ticker answers', async () => {
    const funded = await liveFundedMerchant(t);
    const key = `budget-payout-${Math.random().toString(36).slice(2)}`;
    const payout = () =>
      apiRequest<Body<{ id: string; status: string }>>(t.urls, '/v1/payouts', {
        key: funded.keys.live.secret,
        environment: 'live',
        body: { amount: 1_000_000 },
        headers: { 'x-idempotency-key': key },
      } as Parameters<typeof apiRequest>[2]);
    tickerHangs = true;
    const { answer: res, ms } = await timed(payout);
    expect(res.status, res.text).toBe(503);
    expect(res.body.error.code).toBe('payouts_unavailable');
    expectAnsweredInTime(ms);
    expect(ms).toBeGreaterThan(OUTBOUND_BUDGET_MS - 1500);

    tickerHangs = false;
    const retry = await payout();
    expect(retry.status, retry.text).toBe(201);
    expect(retry.body.status).toBe('pending');
  }, 60_000);
});

describe('webhook endpoint registration with the name servers hanging', () => {
  it('refuses the URL as unresolvable in time, and registers it once the name resolves', async () => {
    const resolver = t.gateway.services.webhooks.resolver;
    const host = 'hanging-name-servers.example';
    const system = resolver.resolve;
    // The merchant's name servers never answer this name.
    resolver.resolve = (name) => (name === host ? new Promise(() => undefined) : system(name));
    const register = () =>
      apiRequest<Body<{ id: string; url: string }>>(t.urls, '/v1/webhook-endpoints', {
        key: merchant.keys.sandbox.secret,
        environment: 'sandbox',
        body: { url: `https://${host}/hooks`, enabledEvents: ['*'] },
      } as Parameters<typeof apiRequest>[2]);
    try {
      const { answer: res, ms } = await timed(register);
      expect(res.status, res.text).toBe(400);
      expect(res.body.error.code).toBe('validation_failed');
      expect(res.body.error.details?.issues).toEqual([
        expect.objectContaining({ path: 'url', message: 'has a host name that does not resolve' }),
      ]);
      expectAnsweredInTime(ms);
    } finally {
      resolver.resolve = system;
    }
    resolver.pin(host, ['93.184.216.34']);
    try {
      const res = await register();
      expect(res.status, res.text).toBe(201);
      expect(res.body.url).toBe(`https://${host}/hooks`);
    } finally {
      resolver.unpin(host);
    }
  }, 30_000);
});
