import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createManualClock } from '../src/shared/clock.js';
import { TEST_CARDS } from './cards.js';
import type { NotificationView } from './notifier.js';
import { verifyNotificationSignature } from './signature.js';
import {
  authorize,
  createPayment,
  NOTIFICATION_SECRET,
  startReceiver,
  startTestAcquirer,
  waitFor,
  type AcquirerClient,
  type ReceivedRequest,
  type Receiver,
  type TestAcquirer,
} from './test-support.js';

const FAST = { initialDelayMs: 30, maxDelayMs: 120, giveUpAfterMs: 10_000, attemptTimeoutMs: 250 };
const clock = createManualClock(new Date('2026-11-23T10:05:00.000Z'));
let receiver: Receiver;
let t: TestAcquirer;

beforeAll(async () => {
  receiver = await startReceiver();
  t = await startTestAcquirer({ clock, defaultNotificationUrl: receiver.url, notificationRetry: FAST });
});
afterAll(async () => {
  await t?.close();
  await receiver?.close();
});
afterEach(async () => {
  receiver.behaviour = () => 200;
  await t.api.request('DELETE', '/_control/faults');
});

async function notificationsOf(api: AcquirerClient, paymentId: string): Promise<NotificationView[]> {
  const response = await api.request<{ data: NotificationView[] }>(
    'GET',
    `/_control/notifications?paymentId=${paymentId}`,
  );
  return response.body.data;
}

function receivedFor(paymentId: string, from: Receiver = receiver): ReceivedRequest[] {
  return from.received.filter((request) => request.body?.payment.id === paymentId);
}

async function paid(api: AcquirerClient = t.api, fields: Record<string, unknown> = {}) {
  const payment = await createPayment(api, fields);
  return (await authorize(api, payment.id, TEST_CARDS.visa.number)).body;
}

function expectSigned(request: ReceivedRequest) {
  const timestamp = String(request.headers['acquirer-timestamp']);
  const signature = String(request.headers['acquirer-signature']);
  expect(timestamp).toMatch(/^[0-9]+$/);
  expect(signature).toMatch(/^[0-9a-f]{64}$/);
  expect(verifyNotificationSignature(NOTIFICATION_SECRET, timestamp, request.rawBody, signature)).toBe(true);
}

describe('notifications', () => {
  it('a succeeded payment is notified, signed with the timestamp of the clock', async () => {
    const payment = await paid();
    const [request] = await waitFor(() =>
      receivedFor(payment.id).length > 0 ? receivedFor(payment.id) : undefined,
    );
    expect(request?.method).toBe('POST');
    expect(request?.headers['content-type']).toBe('application/json');
    expect(request?.headers['acquirer-timestamp']).toBe(String(Math.floor(clock.now().getTime() / 1000)));
    expectSigned(request!);
    expect(request?.body).toEqual({
      id: expect.stringMatching(/^ntf_[0-9a-z]{26}$/),
      type: 'payment.succeeded',
      createdAt: clock.now().toISOString(),
      payment: { ...payment, attempt: undefined },
      refund: null,
    });
    expect(Object.keys(request?.body ?? {})).toEqual(['id', 'type', 'createdAt', 'payment', 'refund']);
    const [record] = await waitFor(async () => {
      const list = await notificationsOf(t.api, payment.id);
      return list[0]?.acknowledged ? list : undefined;
    });
    expect(record).toMatchObject({
      status: 'acknowledged',
      url: receiver.url,
      attempts: [{ status: 200, error: null }],
    });
  });

  it('goes to the payment notificationUrl when it has one; failed and canceled are notified', async () => {
    const own = await startReceiver();
    try {
      const failed = await createPayment(t.api, { notificationUrl: own.url, maxAttempts: 1 });
      await authorize(t.api, failed.id, TEST_CARDS.stolenCard.number);
      const canceled = await createPayment(t.api, { notificationUrl: own.url });
      await t.api.request('POST', `/v1/payments/${canceled.id}/cancel`, { body: {} });
      await waitFor(() => (own.received.length >= 2 ? true : undefined));
      expect(receivedFor(failed.id, own).map((r) => r.body.type)).toEqual(['payment.failed']);
      expect(receivedFor(failed.id, own)[0]?.body.payment.failure?.code).toBe('stolen_card');
      expect(receivedFor(canceled.id, own).map((r) => r.body.type)).toEqual(['payment.canceled']);
      expect(receivedFor(failed.id)).toEqual([]);
    } finally {
      await own.close();
    }
  });

  it('declines that leave the payment open and challenges are not notified', async () => {
    const payment = await createPayment(t.api);
    await authorize(t.api, payment.id, TEST_CARDS.cardDeclined.number);
    await authorize(t.api, payment.id, TEST_CARDS.challenge.number);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await notificationsOf(t.api, payment.id)).toEqual([]);
  });

  it('is retried with backoff after 500s, with the same id and body and a fresh signature', async () => {
    receiver.behaviour = (request) => (receivedFor(request.body.payment.id).length <= 2 ? 500 : 200);
    const payment = await paid();
    const deliveries = await waitFor(() =>
      receivedFor(payment.id).length >= 3 ? receivedFor(payment.id) : undefined,
    );
    expect(new Set(deliveries.map((d) => d.body.id)).size).toBe(1);
    expect(new Set(deliveries.map((d) => d.rawBody)).size).toBe(1);
    deliveries.forEach(expectSigned);
    const gaps = deliveries.slice(1).map((d, i) => d.at - (deliveries[i]?.at ?? 0));
    expect(gaps[0]).toBeGreaterThanOrEqual(25);
    expect(gaps[1]).toBeGreaterThanOrEqual(55);
    const [record] = await waitFor(async () => {
      const list = await notificationsOf(t.api, payment.id);
      return list[0]?.acknowledged ? list : undefined;
    });
    expect(record?.attempts.map((a) => a.status)).toEqual([500, 500, 200]);
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(receivedFor(payment.id)).toHaveLength(3);
  });

  it('a receiver that never answers times out and is retried', async () => {
    receiver.behaviour = (request) => (receivedFor(request.body.payment.id).length === 1 ? 'hang' : 204);
    const payment = await paid();
    const [record] = await waitFor(async () => {
      const list = await notificationsOf(t.api, payment.id);
      return list[0]?.acknowledged ? list : undefined;
    });
    expect(record?.attempts).toEqual([
      { at: expect.any(String), status: null, error: 'No answer within 250 ms.' },
      { at: expect.any(String), status: 204, error: null },
    ]);
  });

  it('a refused connection is retried too', async () => {
    const gone = await startReceiver();
    await gone.close();
    const own = await startTestAcquirer({ defaultNotificationUrl: gone.url, notificationRetry: FAST });
    try {
      const payment = await paid(own.api);
      const [record] = await waitFor(async () => {
        const list = await notificationsOf(own.api, payment.id);
        return (list[0]?.attempts.length ?? 0) >= 2 ? list : undefined;
      });
      expect(record?.status).toBe('pending');
      expect(record?.attempts[0]).toMatchObject({
        status: null,
        error: expect.stringContaining('Connection failed'),
      });
    } finally {
      await own.close();
    }
  });

  it('one payment in order: a later notification waits for the earlier one', async () => {
    receiver.behaviour = (request) =>
      request.body.type === 'payment.succeeded' && receivedFor(request.body.payment.id).length <= 2
        ? 500
        : 200;
    const payment = await paid(t.api, { amount: '3000' });
    for (const key of ['r1', 'r2']) {
      await t.api.request('POST', `/v1/payments/${payment.id}/refunds`, {
        headers: { 'idempotency-key': `${payment.id}-${key}` },
        body: { amount: '1000' },
      });
    }
    const deliveries = await waitFor(() =>
      receivedFor(payment.id).length >= 5 ? receivedFor(payment.id) : undefined,
    );
    expect(deliveries.map((d) => d.body.type)).toEqual([
      'payment.succeeded',
      'payment.succeeded',
      'payment.succeeded',
      'refund.succeeded',
      'refund.succeeded',
    ]);
    expect(deliveries.map((d) => d.body.payment.status)).toEqual([
      'succeeded',
      'succeeded',
      'succeeded',
      'partially_refunded',
      'partially_refunded',
    ]);
    expect(deliveries[3]?.body.refund?.id).not.toBe(deliveries[4]?.body.refund?.id);
    expect(deliveries[3]?.body.payment.refundedAmount).toBe('1000');
    expect(deliveries[4]?.body.payment.refundedAmount).toBe('2000');
  });

  it('a drop fault loses a notification; the next one of the payment still goes', async () => {
    const payment = await createPayment(t.api);
    const rule = await t.api.request<{ id: string }>('POST', '/_control/faults', {
      body: { operation: 'notification', action: 'drop', times: 1, match: { reference: payment.reference } },
    });
    expect(rule.status).toBe(201);
    await authorize(t.api, payment.id, TEST_CARDS.visa.number);
    const [dropped] = await waitFor(async () => {
      const list = await notificationsOf(t.api, payment.id);
      return list[0]?.status === 'dropped' ? list : undefined;
    });
    expect(dropped).toMatchObject({ acknowledged: false, attempts: [] });
    await t.api.request('POST', `/v1/payments/${payment.id}/refunds`, {
      headers: { 'idempotency-key': `${payment.id}-refund` },
      body: { amount: '100' },
    });
    await waitFor(() => (receivedFor(payment.id).length > 0 ? true : undefined));
    expect(receivedFor(payment.id).map((r) => r.body.type)).toEqual(['refund.succeeded']);
  });

  it('a drop fault can match one payment', async () => {
    const other = await createPayment(t.api);
    await t.api.request('POST', '/_control/faults', {
      body: { operation: '*', action: 'drop', match: { reference: other.reference } },
    });
    const kept = await paid();
    await authorize(t.api, other.id, TEST_CARDS.visa.number);
    await waitFor(() => (receivedFor(kept.id).length > 0 ? true : undefined));
    const [record] = await waitFor(async () => {
      const list = await notificationsOf(t.api, other.id);
      return list[0]?.status === 'dropped' ? list : undefined;
    });
    expect(record?.status).toBe('dropped');
  });

  it('a latency fault delays the notification', async () => {
    const payment = await createPayment(t.api);
    await t.api.request('POST', '/_control/faults', {
      body: {
        operation: 'notification',
        action: 'latency',
        latencyMs: 300,
        times: 1,
        match: { reference: payment.reference },
      },
    });
    const started = Date.now();
    await authorize(t.api, payment.id, TEST_CARDS.visa.number);
    await waitFor(() => (receivedFor(payment.id).length > 0 ? true : undefined));
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
  });
});

describe('giving up and retrying now', () => {
  it('abandons after giveUpAfterMs', async () => {
    const failing = await startReceiver(() => 503);
    const short = await startTestAcquirer({
      defaultNotificationUrl: failing.url,
      notificationRetry: { ...FAST, giveUpAfterMs: 200 },
    });
    try {
      const payment = await paid(short.api);
      const [record] = await waitFor(async () => {
        const list = await notificationsOf(short.api, payment.id);
        return list[0]?.status === 'abandoned' ? list : undefined;
      });
      expect(record?.attempts.length).toBeGreaterThanOrEqual(2);
      expect(record?.attempts.every((a) => a.status === 503)).toBe(true);
      expect(record?.lastError).toBe('HTTP 503');
    } finally {
      await short.close();
      await failing.close();
    }
  });

  it('no URL at all: abandoned at once', async () => {
    const nowhere = await startTestAcquirer();
    try {
      const payment = await paid(nowhere.api);
      const [record] = await waitFor(async () => {
        const list = await notificationsOf(nowhere.api, payment.id);
        return list[0]?.status === 'abandoned' ? list : undefined;
      });
      expect(record).toMatchObject({
        url: null,
        attempts: [],
        lastError: expect.stringContaining('No notification URL'),
      });
    } finally {
      await nowhere.close();
    }
  });

  it('POST /_control/notifications/retry sends pending notifications now; close() stops the retries', async () => {
    const flaky = await startReceiver((_request, n) => (n === 1 ? 500 : 200));
    const slow = await startTestAcquirer({
      defaultNotificationUrl: flaky.url,
      notificationRetry: { ...FAST, initialDelayMs: 60_000, maxDelayMs: 60_000 },
    });
    try {
      const payment = await paid(slow.api);
      await waitFor(async () =>
        (await notificationsOf(slow.api, payment.id))[0]?.attempts.length === 1 ? true : undefined,
      );
      const retried = await slow.api.request<{ data: NotificationView[] }>(
        'POST',
        '/_control/notifications/retry',
      );
      expect(retried.status).toBe(200);
      expect(retried.body.data).toHaveLength(1);
      expect(retried.body.data[0]).toMatchObject({ status: 'acknowledged', acknowledged: true });
      expect(retried.body.data[0]?.attempts.map((a) => a.status)).toEqual([500, 200]);
      expect(flaky.received).toHaveLength(2);

      flaky.behaviour = () => 500;
      const second = await paid(slow.api);
      await waitFor(async () =>
        (await notificationsOf(slow.api, second.id))[0]?.attempts.length === 1 ? true : undefined,
      );
      const started = Date.now();
      await slow.close();
      expect(Date.now() - started).toBeLessThan(1000);
    } finally {
      await slow.close();
      await flaky.close();
    }
  });
});
