import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_CARDS } from './cards.js';
import {
  authorize,
  cardAttempt,
  createPayment,
  startReceiver,
  startTestAcquirer,
  type ErrorBody,
  type PaymentBody,
  type Receiver,
  type TestAcquirer,
} from './test-support.js';

let t: TestAcquirer;
let shop: Receiver;

beforeAll(async () => {
  t = await startTestAcquirer();
  shop = await startReceiver();
});
afterAll(async () => {
  await t?.close();
  await shop?.close();
});

async function challenged(
  number: string = TEST_CARDS.challenge.number,
  fields: Record<string, unknown> = {},
  returnUrl = 'https://shop.example/return?order=42',
): Promise<PaymentBody> {
  const payment = await createPayment(t.api, fields);
  const response = await t.api.request<PaymentBody>('POST', `/v1/payments/${payment.id}/authorize`, {
    body: cardAttempt(number, { returnUrl }),
  });
  expect(response.body.status).toBe('requires_action');
  return response.body;
}

function postForm(url: string, code: string, redirect: 'manual' | 'follow' = 'manual') {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ code }).toString(),
    redirect,
  });
}

const getPayment = async (id: string) => (await t.api.request<PaymentBody>('GET', `/v1/payments/${id}`)).body;

describe('the challenge page', () => {
  it('is served without an API key, with a strict CSP, no script, and everything escaped', async () => {
    const payment = await challenged(TEST_CARDS.challenge.number, {
      description: '<script>alert("x")</script> & co',
      reference: `ch_<b>"quoted"</b>_${Date.now()}`,
    });
    const url = payment.challenge?.url ?? '';
    expect(url).toBe(`${t.acquirer.url}/3ds/${payment.challenge?.id}`);
    const page = await fetch(url);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toMatch(/^default-src 'none'; /);
    expect(csp).toContain("form-action 'self' https://shop.example;");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(page.headers.get('cache-control')).toBe('no-store');
    const html = await page.text();
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/\son[a-z]+=/i);
    expect(html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; co');
    expect(html).toContain('ch_&lt;b&gt;&quot;quoted&quot;&lt;/b&gt;');
    // The reference is the gateway's charge id, and the page says so.
    expect(html).toMatch(/<dt>Charge ID<\/dt><dd>ch_&lt;b&gt;/);
    expect(html).not.toContain('Merchant reference');
    expect(html).toContain('125.50 TRY');
    expect(html).toContain('visa •••• 3220');
    expect(html).toMatch(/<form method="post">/);
    expect(html).toMatch(/<input[^>]+name="code"/);
  });

  it('the right code: 303 to the return URL with payment=<id>; the payment succeeded; only once', async () => {
    const payment = await challenged();
    const url = payment.challenge?.url ?? '';
    const response = await postForm(url, '123456');
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe(
      `https://shop.example/return?order=42&payment=${payment.id}`,
    );
    expect(await getPayment(payment.id)).toMatchObject({ status: 'succeeded', challenge: null, attempts: 0 });

    const again = await postForm(url, '123456');
    expect(again.status).toBe(409);
    expect(((await again.json()) as ErrorBody).error).toMatchObject({
      code: 'invalid_state',
      status: 'succeeded',
    });
    expect((await fetch(url)).status).toBe(409);
  });

  it('a browser following the redirect lands on the return URL', async () => {
    const payment = await challenged(TEST_CARDS.challenge.number, {}, `${shop.url}?from=3ds`);
    const response = await postForm(payment.challenge?.url ?? '', '123456', 'follow');
    expect(response.status).toBe(200);
    expect(response.url).toBe(`${shop.url}?from=3ds&payment=${payment.id}`);
    expect(shop.received.at(-1)).toMatchObject({
      method: 'GET',
      url: `/notifications?from=3ds&payment=${payment.id}`,
    });
  });

  it('a wrong code is a declined attempt (authentication_failed), redirected all the same', async () => {
    const payment = await challenged();
    const response = await postForm(payment.challenge?.url ?? '', '000000');
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toContain(`payment=${payment.id}`);
    expect(await getPayment(payment.id)).toMatchObject({
      status: 'awaiting_payment',
      challenge: null,
      attempts: 1,
      failure: { code: 'authentication_failed' },
    });
    // The customer may try again, with a new challenge.
    const retry = await authorize(t.api, payment.id, TEST_CARDS.challenge.number);
    expect(retry.body.challenge?.id).not.toBe(payment.challenge?.id);
  });

  it('the always-failing card fails even with the right code; at maxAttempts the payment fails', async () => {
    const payment = await challenged(TEST_CARDS.challengeFails.number, { maxAttempts: 1 });
    const response = await postForm(payment.challenge?.url ?? '', '123456');
    expect(response.status).toBe(303);
    expect(await getPayment(payment.id)).toMatchObject({
      status: 'failed',
      attempts: 1,
      failure: { code: 'authentication_failed' },
    });
  });

  it('unknown challenges 404; a form that is not urlencoded or has no code: 400', async () => {
    expect((await fetch(`${t.acquirer.url}/3ds/3ds_nope`)).status).toBe(404);
    const payment = await challenged();
    const url = payment.challenge?.url ?? '';
    const json = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"code":"123456"}',
    });
    expect(json.status).toBe(400);
    const empty = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'other=1',
    });
    expect(empty.status).toBe(400);
    expect((await getPayment(payment.id)).status).toBe('requires_action');
  });
});

describe('POST /v1/payments/{id}/challenge', () => {
  const complete = (id: string, body: unknown) =>
    t.api.request<PaymentBody & ErrorBody>('POST', `/v1/payments/${id}/challenge`, { body });

  it('the right code: 200 with the succeeded payment', async () => {
    const payment = await challenged();
    const response = await complete(payment.id, { code: '123456' });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ id: payment.id, status: 'succeeded', challenge: null });
    const again = await complete(payment.id, { code: '123456' });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: 'invalid_state', status: 'succeeded' });
  });

  it('a wrong code: 400 challenge_failed with the new payment status; the decline counts', async () => {
    const payment = await challenged(TEST_CARDS.challenge.number, { maxAttempts: 2 });
    const first = await complete(payment.id, { code: '654321' });
    expect(first.status).toBe(400);
    expect(first.body.error).toMatchObject({ code: 'challenge_failed', status: 'awaiting_payment' });
    expect(await getPayment(payment.id)).toMatchObject({
      attempts: 1,
      failure: { code: 'authentication_failed' },
    });

    await authorize(t.api, payment.id, TEST_CARDS.challengeFails.number);
    const second = await complete(payment.id, { code: '123456' });
    expect(second.body.error).toMatchObject({ code: 'challenge_failed', status: 'failed' });
    expect(await getPayment(payment.id)).toMatchObject({ status: 'failed', attempts: 2 });
  });

  it('no open challenge: 409; a bad body: 400; unknown payment: 404', async () => {
    const payment = await createPayment(t.api);
    expect((await complete(payment.id, { code: '123456' })).body.error).toMatchObject({
      code: 'invalid_state',
      status: 'awaiting_payment',
    });
    const open = await challenged();
    expect((await complete(open.id, { code: 123456 })).body.error.code).toBe('invalid_request');
    expect((await complete(open.id, {})).body.error.code).toBe('invalid_request');
    expect((await complete('pay_nope', { code: '123456' })).status).toBe(404);
  });
});

describe('publicUrl', () => {
  it('challenge URLs use it', async () => {
    const behindProxy = await startTestAcquirer({ publicUrl: 'https://acquirer.example/sandbox/' });
    try {
      const payment = await createPayment(behindProxy.api);
      const response = await authorize(behindProxy.api, payment.id, TEST_CARDS.challenge.number);
      expect(response.body.challenge?.url).toBe(
        `https://acquirer.example/sandbox/3ds/${response.body.challenge?.id}`,
      );
    } finally {
      await behindProxy.close();
    }
  });
});
