/**
 * The event pages of the merchant dashboard (the Developers area of issue 15 item 0, flag `events` as
 * for `GET /v1/events`): the events of the session's environment newest first, by type, each with its
 * payload exactly as the API and webhooks carry it (escaped), linked to the payment it is about. Another
 * organization's or environment's event is 404; without the flag there is neither a link nor a page; a
 * type that does not exist is a 400 page; signed out is the login page.
 */
import { describe, expect, it } from 'vitest';
import type { UserRole } from '../src/db/schema.js';
import { createActiveUser, textOf, WebClient } from './helpers/accounts.js';
import { accountGateway, t, useTestGateway } from './helpers/suite.js';
import { validCharge } from './helpers/http.js';
import { createMerchant, type Merchant } from './helpers/merchants.js';
import { merchantApi, paidCharge } from './helpers/payouts.js';
import { payByCard } from './helpers/charges.js';

interface EventBody {
  id: string;
  eventType: string;
  createdAt: string;
  data: Record<string, unknown>;
}

useTestGateway(accountGateway('api,sandbox-acquirer'));

async function signedIn(merchant: Merchant, role: UserRole = 'viewer'): Promise<WebClient> {
  const user = await createActiveUser(t, { organizationId: merchant.organizationId, role });
  const client = new WebClient(t.urls.web);
  expect((await client.login(user.email, user.password)).status).toBe(303);
  return client;
}

function eventIdsIn(html: string): string[] {
  return [...html.matchAll(/<tr data-event-id="([^"]+)"/g)].map((match) => match[1] ?? '');
}

function unescape(html: string): string {
  return html
    .replaceAll('&quot;', '"')
    .replaceAll('&#39;', "'")
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&amp;', '&');
}

describe('the event pages', () => {
  it('list what GET /v1/events lists, by type, and show each payload as the API carries it', async () => {
    const merchant = await createMerchant(t, { featureFlags: ['events'] });
    // A pending charge has no event yet.
    const pending = await merchantApi(t, merchant, 'sandbox', '/v1/charges', validCharge({ amount: 10_000 }));
    expect(pending.status, pending.text).toBe(201);
    const paid = await paidCharge(t, merchant, 'sandbox', 20_000);
    t.clock.advance(1000);
    const refund = await merchantApi(t, merchant, 'sandbox', `/v1/charges/${paid.id}/refunds`, {
      amount: 500,
    });
    expect(refund.status, refund.text).toBe(201);
    await paidCharge(t, merchant, 'live', 30_000);
    const stranger = await createMerchant(t, { featureFlags: ['events'] });
    await paidCharge(t, stranger, 'sandbox', 40_000);

    const api = await merchantApi<{ data: EventBody[] }>(t, merchant, 'sandbox', '/v1/events?limit=100');
    expect(api.status, api.text).toBe(200);
    expect(api.body.data.map((event) => event.eventType)).toEqual(['charge.refunded', 'charge.succeeded']);

    const client = await signedIn(merchant);
    const list = await client.get('/dashboard/events?lang=en');
    expect(list.status).toBe(200);
    expect(eventIdsIn(list.text)).toEqual(api.body.data.map((event) => event.id));
    expect(list.text).toContain(
      '<a href="/dashboard/events?lang=en" id="events-link" aria-current="page">Events</a>',
    );
    expect(list.text).toContain(`href="/dashboard/payments/${paid.id}?lang=en"`);

    // By type.
    const refunds = await client.get('/dashboard/events?lang=en&type=charge.refunded');
    expect(eventIdsIn(refunds.text)).toEqual([api.body.data[0]?.id]);
    const none = await client.get('/dashboard/events?lang=en&type=payout.created');
    expect(eventIdsIn(none.text)).toEqual([]);
    expect(textOf(none.text, 'no-events')).toBe('No events of this type.');
    const bad = await client.get('/dashboard/events?lang=en&type=charge.stolen');
    expect(bad.status).toBe(400);
    expect(textOf(bad.text, 'form-error')).toBe('There is no such event type.');

    // One event: its payload is the API's, escaped in the page.
    const succeeded = api.body.data[1];
    if (!succeeded) throw new Error('no charge.succeeded event');
    const fromApi = await merchantApi<EventBody>(t, merchant, 'sandbox', `/v1/events/${succeeded.id}`);
    const page = await client.get(`/dashboard/events/${succeeded.id}?lang=en`);
    expect(page.status).toBe(200);
    const payload =
      /<pre class="payload" id="event-payload"[^>]*>([\s\S]*?)<\/pre>/.exec(page.text)?.[1] ?? '';
    expect(JSON.parse(unescape(payload))).toEqual(fromApi.body);
    expect(page.text).toContain(`id="event-about" href="/dashboard/payments/${paid.id}?lang=en"`);

    // Another organization's event, the other environment's, and an unknown one are 404.
    const theirs = await merchantApi<{ data: EventBody[] }>(t, stranger, 'sandbox', '/v1/events');
    const live = await merchantApi<{ data: EventBody[] }>(t, merchant, 'live', '/v1/events');
    for (const id of [theirs.body.data[0]?.id, live.body.data[0]?.id, 'evt_nothing']) {
      const res = await client.get(`/dashboard/events/${id}?lang=en`);
      expect(res.status, id).toBe(404);
    }

    // Turkish.
    const turkish = await client.get('/dashboard/events?lang=tr');
    expect(turkish.text).toContain('<h1>Olaylar</h1>');
  });

  it('escape what a payload carries', async () => {
    const merchant = await createMerchant(t, { featureFlags: ['events'] });
    const res = await merchantApi<{ id: string; providerPaymentId: string }>(
      t,
      merchant,
      'sandbox',
      '/v1/charges',
      validCharge({ amount: 12_000, metadata: { note: '<img src=x onerror=alert(1)>' } }),
    );
    expect(res.status, res.text).toBe(201);
    await payByCard(t.gateway.services, res.body, 'Escape Test');
    const api = await merchantApi<{ data: EventBody[] }>(t, merchant, 'sandbox', '/v1/events');
    const id = api.body.data[0]?.id;
    expect(api.body.data[0]?.data).toMatchObject({ metadata: { note: '<img src=x onerror=alert(1)>' } });
    const client = await signedIn(merchant);
    const page = await client.get(`/dashboard/events/${id}?lang=en`);
    expect(page.status).toBe(200);
    expect(page.text).not.toContain('<img src=x');
    expect(page.text).toContain('&lt;img src=x onerror=alert(1)&gt;');
  });

  it('are not served, nor linked, without the flag; every role reads them; signed out is the login page', async () => {
    const without = await createMerchant(t);
    const client = await signedIn(without, 'owner');
    const home = await client.get('/dashboard?lang=en');
    expect(home.status).toBe(200);
    expect(home.text).not.toContain('id="events-link"');
    expect((await client.get('/dashboard/events?lang=en')).status).toBe(404);

    const merchant = await createMerchant(t, { featureFlags: ['events'] });
    for (const role of ['owner', 'admin', 'developer', 'viewer'] as const) {
      const member = await signedIn(merchant, role);
      const page = await member.get('/dashboard/events?lang=en');
      expect(page.status, role).toBe(200);
      expect(page.text, role).toContain('id="events-link"');
    }

    const anonymous = new WebClient(t.urls.web);
    const res = await anonymous.get('/dashboard/events?lang=en');
    expect(res.status).toBe(303);
    expect(res.location).toBe('/login?lang=en');
  });
});
