/**
 * What the tests that drive a webhook dispatcher by hand share: a dispatcher of their own beside the
 * gateway's (its limits set by the test), the merchant's endpoints, paid charges and recorded events
 * made in the gateway's process, and a clean slate before each test.
 */
import { expect } from 'vitest';
import type { Kdb } from '../../src/db/database.js';
import {
  createWebhookDispatcher,
  type HostResolver,
  type WebhookDispatcher,
} from '../../src/modules/webhooks/index.js';
import type { TestGateway } from './gateway.js';
import { request, type ErrorBody } from './http.js';
import type { Merchant } from './merchants.js';
import { payByCard, serviceCharge } from './charges.js';

/** A dispatcher on the gateway's services, with the test's timeout and slots; private targets allowed. */
export function dispatcherOf(
  t: TestGateway,
  options: { timeoutMs: number; concurrency: number; perEndpoint?: number; resolver?: HostResolver },
): WebhookDispatcher {
  const { services } = t.gateway;
  return createWebhookDispatcher({
    db: services.db,
    clock: t.clock,
    box: services.box,
    mailer: services.mailer,
    ownerEmails: (trx, organizationId) => services.users.activeOwnerEmails(trx, organizationId),
    events: services.eventLookup,
    logger: services.logger,
    resolver: options.resolver ?? services.webhooks.resolver,
    allowPrivateTargets: true,
    timeoutMs: options.timeoutMs,
    concurrency: options.concurrency,
    perEndpoint: options.perEndpoint,
    dashboardUrl: () => t.urls.web,
  });
}

/** Each test starts with no endpoint and nothing due. */
export async function retireEndpoints(t: TestGateway, db: Kdb): Promise<void> {
  await db.updateTable('webhook_endpoints').set({ deleted_at: t.clock.now(), status: 'disabled' }).execute();
  await db
    .updateTable('webhook_deliveries')
    .set({ status: 'failed' })
    .where('status', '=', 'pending')
    .execute();
}

/** An endpoint of the merchant's sandbox for `charge.succeeded`, through the API (201 expected). */
export async function createEndpoint(
  t: TestGateway,
  merchant: Merchant,
  url: string,
): Promise<{ id: string; secret: string }> {
  const res = await request<{ id: string; secret: string } & ErrorBody>(
    `${t.urls.sandboxApi}/v1/webhook-endpoints`,
    {
      body: { url, enabledEvents: ['charge.succeeded'] },
      headers: { 'x-api-key': merchant.keys.sandbox.secret },
    },
  );
  expect(res.status, res.text).toBe(201);
  return res.body;
}

/** A sandbox charge of the merchant paid by card in the gateway's process: its `charge.succeeded` is due. */
export async function paidCharge(t: TestGateway, merchant: Merchant, holderName: string): Promise<string> {
  const { services } = t.gateway;
  const created = await serviceCharge(services, merchant.organizationId);
  await payByCard(services, created, holderName);
  return created.id;
}

/** `count` `charge.succeeded` events in one transaction: one delivery each to every enabled endpoint. */
export async function recordEvents(
  t: TestGateway,
  merchant: Merchant,
  count: number,
  prefix: string,
): Promise<void> {
  await t.gateway.database.db.transaction().execute(async (trx) => {
    for (let i = 0; i < count; i += 1) {
      await t.gateway.services.events.record(trx, {
        organizationId: merchant.organizationId,
        environment: 'sandbox',
        type: 'charge.succeeded',
        resourceId: `ch_${prefix}${i}`,
        data: { id: `ch_${prefix}${i}` },
      });
    }
  });
}
