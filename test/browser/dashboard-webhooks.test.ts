import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { SECOND } from '../../src/shared/clock.js';
import { createActiveUser } from '../helpers/accounts.js';
import { expectStrictPhonePage } from '../helpers/browser.js';
import { PHONE, useBrowserSuite } from '../helpers/browser-suite.js';
import type { TestGateway } from '../helpers/gateway.js';
import { request, validCharge } from '../helpers/http.js';
import { issueKey } from '../helpers/merchants.js';
import { payByCard } from '../helpers/charges.js';

// Webhook endpoints in the dashboard, in a real Chromium at phone width: create one, see its secret once,
// reload and it is gone, a real delivery shows on the endpoint's page, retry it, rotate the secret, delete.

interface Received {
  headers: http.IncomingHttpHeaders;
  raw: Buffer;
}

let t: TestGateway;
let server: http.Server;
let receiverUrl = '';
const received: Received[] = [];

const { newPage, signIn, submit } = useBrowserSuite({
  // No worker: deliveries go when the test runs the delivery job.
  gateway: { env: { ROLES: 'api,sandbox-acquirer' } },
  async setUp(started) {
    t = started;
    server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        received.push({ headers: req.headers, raw: Buffer.concat(chunks) });
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end('stored <ok>');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  },
  async tearDown() {
    server?.closeAllConnections();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  },
});

/** A charge of `key` paid by card and completed: its `charge.succeeded` event is due. */
async function succeededCharge(key: string): Promise<void> {
  const charge = await request<{ id: string; providerPaymentId: string }>(`${t.urls.sandboxApi}/v1/charges`, {
    method: 'POST',
    body: validCharge(),
    headers: { 'x-api-key': key },
  });
  expect(charge.status, charge.text).toBe(201);
  await payByCard(t.gateway.services, charge.body, 'X', { returnUrl: 'https://x.example/' });
}

function signature(secret: string, delivery: Received, header = 'service-signature'): boolean {
  const timestamp = String(delivery.headers['service-timestamp']);
  const expected = createHmac('sha256', secret).update(`${timestamp}.`).update(delivery.raw).digest('hex');
  return delivery.headers[header] === expected;
}

describe('webhook endpoints in Chromium', () => {
  it('create -> the secret once -> reload: gone -> a delivery -> retry -> rotate -> delete', async () => {
    const user = await createActiveUser(t, { role: 'developer' });
    const { page } = await newPage(PHONE);

    await signIn(page, user);
    expect(page.url()).toBe(`${t.urls.web}/dashboard?lang=en`);

    await submit(page, '#webhooks-link');
    expect(page.url()).toBe(`${t.urls.web}/dashboard/webhooks?lang=en`);
    expect(await page.locator('h1').textContent()).toBe('Webhook endpoints');
    expect(await page.locator('#no-endpoints').isVisible()).toBe(true);
    await expectStrictPhonePage(page, 'empty list');

    // Create: URL, two event kinds, a description.
    await page.fill('#endpoint-url', receiverUrl);
    await page.check('#event-charge-succeeded');
    await page.check('#event-charge-refunded');
    await page.fill('#endpoint-description', 'Order service <prod>');
    await submit(page, '#create-endpoint');
    expect(await page.locator('h1').textContent()).toBe('Your new webhook endpoint');
    const secret = (await page.locator('#webhook-secret').textContent()) ?? '';
    expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{43,}$/);
    expect(await page.locator('#secret-endpoint-events').textContent()).toBe(
      'charge.succeeded, charge.refunded',
    );
    // No language link: it would reload the page and the secret would be gone.
    expect(await page.locator('a.lang').count()).toBe(0);
    await expectStrictPhonePage(page, 'secret once');

    // Back to the endpoint, reload: the secret is nowhere; the list shows the endpoint.
    await submit(page, '#back-to-endpoint');
    await page.reload();
    expect(await page.content()).not.toContain(secret);
    expect(await page.locator('#endpoint-url').textContent()).toBe(receiverUrl);
    expect(await page.locator('#endpoint-description').textContent()).toBe('Order service <prod>');
    expect(await page.locator('#no-attempts').isVisible()).toBe(true);
    const endpointUrl = page.url();
    await submit(page, '#back-to-list');
    const item = page.locator('#webhook-endpoints li');
    expect(await item.count()).toBe(1);
    expect(await item.getAttribute('data-status')).toBe('enabled');
    expect(await page.content()).not.toContain(secret);

    // A charge succeeds: its event is delivered to the receiver, signed with the secret shown once.
    const key = await issueKey(t.gateway.database.db, t.clock, user.organizationId);
    await succeededCharge(key.secret);
    expect(await t.gateway.services.webhooks.dispatcher.deliverDue()).toBe(1);
    expect(received).toHaveLength(1);
    const first = received[0];
    if (!first) throw new Error('nothing received');
    expect(signature(secret, first)).toBe(true);
    const eventId = (JSON.parse(first.raw.toString('utf8')) as { id: string }).id;

    await page.goto(endpointUrl);
    const attempts = page.locator('#webhook-attempts li');
    expect(await attempts.count()).toBe(1);
    const attempt = attempts.first();
    expect(await attempt.locator('.attempt-event-type').textContent()).toBe('charge.succeeded');
    expect(await attempt.locator('.attempt-event-id').textContent()).toBe(eventId);
    expect(await attempt.locator('.attempt-http-status').textContent()).toBe('200');
    expect(await attempt.locator('.attempt-latency').textContent()).toMatch(/^\d+ ms$/);
    expect(await attempt.locator('.attempt-error').textContent()).toBe('None');
    expect(await attempt.locator('.attempt-response').textContent()).toBe('stored <ok>');
    expect(await attempt.locator('.attempt-delivery-status').getAttribute('data-status')).toBe('succeeded');
    await expectStrictPhonePage(page, 'endpoint with an attempt');

    // Retry: the same event goes again.
    t.clock.advance(SECOND);
    await submit(page, '#webhook-attempts li .retry-form button');
    expect(await page.locator('#notice').textContent()).toBe(
      'The delivery is due again now, with the same event id.',
    );
    expect(await t.gateway.services.webhooks.dispatcher.deliverDue()).toBe(1);
    expect(received).toHaveLength(2);
    expect((JSON.parse(received[1]?.raw.toString('utf8') ?? '{}') as { id: string }).id).toBe(eventId);
    await page.reload();
    expect(await attempts.count()).toBe(2);
    expect(await page.locator('#webhook-attempts .retry-form').count()).toBe(1);

    // Rotate with a grace period of a day: the new secret once, and what to verify until the switch.
    await page.selectOption('#grace-period', '86400');
    await submit(page, '#rotate-secret');
    expect(await page.locator('h1').textContent()).toBe('The new signing secret');
    const next = (await page.locator('#webhook-secret').textContent()) ?? '';
    expect(next).toMatch(/^whsec_/);
    expect(next).not.toBe(secret);
    const explained = (await page.locator('#rotation-grace').textContent()) ?? '';
    expect(explained).toContain('Service-Signature is made with your current secret, as before');
    expect(explained).toContain('Service-Signature-Next, made with this new one');
    expect(await page.locator('#rotation-steps li').count()).toBe(4);
    await expectStrictPhonePage(page, 'rotated secret');

    // During the grace period a delivery carries both signatures, as the page says.
    t.clock.advance(SECOND);
    await submit(page, '#back-to-endpoint');
    expect(await page.content()).not.toContain(next);
    expect(await page.locator('#endpoint-grace').isVisible()).toBe(true);
    await submit(page, '#webhook-attempts li .retry-form button');
    expect(await t.gateway.services.webhooks.dispatcher.deliverDue()).toBe(1);
    const third = received[2];
    if (!third) throw new Error('retry not received');
    expect(signature(secret, third)).toBe(true);
    expect(signature(next, third, 'service-signature-next')).toBe(true);

    // Delete: a confirmation page first.
    await submit(page, '#delete-link');
    expect(await page.locator('h1').textContent()).toBe('Delete this webhook endpoint?');
    await expectStrictPhonePage(page, 'delete confirmation');
    await submit(page, '#confirm-delete');
    expect(page.url()).toBe(`${t.urls.web}/dashboard/webhooks?lang=en&notice=deleted`);
    expect(await page.locator('#notice').textContent()).toBe('The endpoint is deleted.');
    expect(await page.locator('#no-endpoints').isVisible()).toBe(true);
    expect(await page.locator('#webhook-endpoints li').count()).toBe(0);

    // In Turkish too.
    await page.goto(`${t.urls.web}/dashboard/webhooks?lang=tr`);
    expect(await page.locator('h1').textContent()).toBe('Webhook uç noktaları');
    expect(await page.locator('#webhooks-link').textContent()).toBe('Webhook’lar');
    await expectStrictPhonePage(page, 'Turkish list');
  });

  it('switch to the new secret when ready: deliveries wait, then resume signed with it', async () => {
    const user = await createActiveUser(t, { role: 'developer' });
    const owner = { organizationId: user.organizationId, environment: 'sandbox' as const };
    const endpoints = t.gateway.services.webhooks.endpoints;
    const created = await endpoints.create(owner, { url: receiverUrl, enabledEvents: ['charge.succeeded'] });
    if (!created.ok) throw new Error('no endpoint');
    const rotated = await endpoints.rotateSecret(owner, created.value.id, { gracePeriodSeconds: 86_400 });
    if (!rotated.ok) throw new Error('no rotation');
    const { page } = await newPage(PHONE);
    await signIn(page, user);

    // During the rotation the page says the previous secret signs, and offers the switch.
    const endpointUrl = `${t.urls.web}/dashboard/webhooks/${created.value.id}?lang=en`;
    await page.goto(endpointUrl);
    expect(await page.locator('#endpoint-signing').getAttribute('data-signing')).toBe('previous');
    expect(await page.locator('#switch-intro').textContent()).toContain(
      'Service-Signature is still made with the previous secret',
    );
    await expectStrictPhonePage(page, 'endpoint during a rotation');
    await page.selectOption('#pause-seconds', '900');
    await submit(page, '#switch-secret');
    expect(page.url()).toBe(`${endpointUrl}&notice=switched`);
    expect(await page.locator('#endpoint-signing').getAttribute('data-signing')).toBe('current');
    expect(await page.locator('#endpoint-paused').isVisible()).toBe(true);
    expect(await page.locator('#switch-form').count()).toBe(0);

    // A charge succeeds while paused: nothing is sent; resumed, it arrives signed with the new secret.
    const key = await issueKey(t.gateway.database.db, t.clock, user.organizationId);
    await succeededCharge(key.secret);
    const before = received.length;
    expect(await t.gateway.services.webhooks.dispatcher.deliverDue()).toBe(0);
    await submit(page, '#resume-deliveries');
    expect(await page.locator('#notice').textContent()).toBe(
      'Deliveries are resumed, signed with the new secret.',
    );
    expect(await page.locator('#endpoint-paused').count()).toBe(0);
    expect(await t.gateway.services.webhooks.dispatcher.deliverDue()).toBe(1);
    const resumed = received[before];
    if (!resumed) throw new Error('resumed delivery not received');
    expect(signature(rotated.value.secret, resumed)).toBe(true);
    expect(resumed.headers['service-signature-next']).toBeUndefined();
  });
});
