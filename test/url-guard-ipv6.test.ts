/**
 * Issue 11 item 4: the webhook URL guard refuses every IPv6 form that embeds a private IPv4 address
 * (IPv4-compatible, IPv4-mapped, SIIT, NAT64, 6to4, Teredo, ISATAP), at registration and at connect time.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from './helpers/gateway.js';
import { request, type ErrorBody } from './helpers/http.js';
import { createMerchant, type Merchant } from './helpers/merchants.js';
import { payByCard, serviceCharge } from './helpers/charges.js';

/** IPv6 literals that carry 127.0.0.1 or 10.0.0.1 (or are otherwise not global unicast). */
const EMBEDDING_PRIVATE_IPV4 = [
  '::127.0.0.1', // IPv4-compatible, dotted (URL parsing writes it as ::7f00:1)
  '::7f00:1', // IPv4-compatible, hexadecimal
  '::a00:1', // IPv4-compatible 10.0.0.1
  '::ffff:127.0.0.1', // IPv4-mapped
  '::ffff:0:7f00:1', // SIIT (RFC 6145)
  '64:ff9b::7f00:1', // NAT64 well-known prefix
  '64:ff9b:1::a00:1', // NAT64 local-use prefix
  '2002:7f00:1::1', // 6to4
  '2001:0:4136:e378:8000:63bf:80ff:fffe', // Teredo
  '2a00:1450:4001::5efe:a00:1', // ISATAP carrying 10.0.0.1
];

let t: TestGateway;
let m: Merchant;

beforeAll(async () => {
  t = await startTestGateway({
    env: {
      ROLES: 'api,sandbox-acquirer',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'false',
      WEBHOOK_TIMEOUT_MS: '1000',
    },
  });
  m = await createMerchant(t);
});
afterAll(async () => {
  await t?.close();
});

const register = (url: string) =>
  request<ErrorBody & { id: string }>(`${t.urls.sandboxApi}/v1/webhook-endpoints`, {
    body: { url, enabledEvents: ['*'] },
    headers: { 'x-api-key': m.keys.sandbox.secret },
  });

describe('registration', () => {
  it.each(EMBEDDING_PRIVATE_IPV4)('refuses the literal [%s] with 400 validation_failed', async (address) => {
    const res = await register(`https://[${address}]/hooks`);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_failed');
    expect(res.body.error.details?.issues?.[0]).toMatchObject({ path: 'url' });
  });

  it.each(EMBEDDING_PRIVATE_IPV4)('refuses a name that resolves to %s', async (address) => {
    const host = `embedded-${Buffer.from(address).toString('hex')}.example`;
    t.gateway.services.webhooks.resolver.pin(host, [address]);
    const res = await register(`https://${host}/hooks`);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_failed');
  });

  it('still accepts a global IPv6 address and an IPv4-mapped public address', async () => {
    expect((await register('https://[2606:4700:4700::1111]/hooks')).status).toBe(201);
    expect((await register('https://[::ffff:8.8.8.8]/hooks')).status).toBe(201);
  });
});

describe('connect time', () => {
  it('refuses to connect when the registered name now resolves to an embedded private IPv4', async () => {
    const db = t.gateway.database.db;
    await db.updateTable('webhook_endpoints').set({ status: 'disabled' }).execute();
    const resolver = t.gateway.services.webhooks.resolver;
    resolver.pin('rebinding6.example', ['2606:4700:4700::1111']);
    const created = await register('http://rebinding6.example:8443/hooks');
    expect(created.status).toBe(201);

    const seen = new Set<string>(['']);
    for (const address of EMBEDDING_PRIVATE_IPV4) {
      resolver.pin('rebinding6.example', [address]);
      const charge = await serviceCharge(t.gateway.services, m.organizationId);
      await payByCard(t.gateway.services, charge, 'Rebind');
      expect(await t.gateway.services.webhooks.dispatcher.deliverDue(), address).toBe(1);
      const attempts = await db
        .selectFrom('webhook_attempts')
        .selectAll()
        .where('endpoint_id', '=', created.body.id)
        .where('id', 'not in', [...seen])
        .execute();
      expect(attempts, address).toHaveLength(1);
      expect(attempts[0], address).toMatchObject({
        succeeded: false,
        error: 'private_target',
        status_code: null,
      });
      seen.add(attempts[0]?.id ?? '');
    }
  });
});
