import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { TEST_CARDS } from './cards.js';
import type { NotificationView } from './notifier.js';
import {
  authorize,
  cardAttempt,
  createPayment,
  startReceiver,
  startTestAcquirer,
  uniqueReference,
  waitFor,
  type PaymentBody,
} from './test-support.js';

const directory = mkdtempSync(join(tmpdir(), 'sandbox-acquirer-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

describe('the journal', () => {
  it('keeps payments, refunds, challenges and idempotency keys across a restart, and no card data', async () => {
    const journalFile = join(directory, 'nested', 'acquirer.jsonl');
    const first = await startTestAcquirer({ journalFile });
    const key = uniqueReference();
    const createBody = { amount: '20000', currency: 'TRY', method: 'card', reference: uniqueReference() };
    const created = await first.api.request<PaymentBody>('POST', '/v1/payments', {
      headers: { 'idempotency-key': key },
      body: createBody,
    });
    await first.api.request('POST', `/v1/payments/${created.body.id}/authorize`, {
      body: cardAttempt(TEST_CARDS.visa.number, { cvc: '987' }),
    });
    const refundKey = uniqueReference();
    const refund = await first.api.request<{ id: string }>(
      'POST',
      `/v1/payments/${created.body.id}/refunds`,
      {
        headers: { 'idempotency-key': refundKey },
        body: { amount: '5000' },
      },
    );
    const transfer = await createPayment(first.api, { method: 'bank_transfer' });
    const challenged = await createPayment(first.api);
    const opened = await authorize(first.api, challenged.id, TEST_CARDS.challenge.number);
    const before = await first.api.request<PaymentBody>('GET', `/v1/payments/${created.body.id}`);
    await first.close();

    const text = readFileSync(journalFile, 'utf8');
    expect(text).not.toContain(TEST_CARDS.visa.number);
    expect(text).not.toContain(TEST_CARDS.challenge.number);
    expect(text).not.toMatch(/"(cvc|number|holderName)"/);
    expect(text).not.toContain('"987"');
    for (const line of text.trim().split('\n')) expect(() => JSON.parse(line)).not.toThrow();

    const second = await startTestAcquirer({ journalFile });
    try {
      const after = await second.api.request<PaymentBody>('GET', `/v1/payments/${created.body.id}`);
      expect(after.body).toEqual(before.body);
      expect(after.body).toMatchObject({ status: 'partially_refunded', refundedAmount: '5000' });
      const replay = await second.api.request<PaymentBody>('POST', '/v1/payments', {
        headers: { 'idempotency-key': key },
        body: createBody,
      });
      expect(replay.status).toBe(200);
      expect(replay.body.id).toBe(created.body.id);
      const conflict = await second.api.request('POST', '/v1/payments', {
        headers: { 'idempotency-key': key },
        body: { ...createBody, amount: '1' },
      });
      expect(conflict.status).toBe(409);
      const refundReplay = await second.api.request<{ id: string }>(
        'POST',
        `/v1/payments/${created.body.id}/refunds`,
        {
          headers: { 'idempotency-key': refundKey },
          body: { amount: '5000' },
        },
      );
      expect(refundReplay.status).toBe(200);
      expect(refundReplay.body.id).toBe(refund.body.id);
      const found = await second.api.request<{ data: PaymentBody[] }>(
        'GET',
        `/v1/payments?reference=${transfer.reference}`,
      );
      expect(found.body.data).toEqual([transfer]);

      // The challenge opened before the restart is answered on the new address.
      const challengeId = opened.body.challenge?.id ?? '';
      const page = await fetch(`${second.acquirer.url}/3ds/${challengeId}`);
      expect(page.status).toBe(200);
      const reread = await second.api.request<PaymentBody>('GET', `/v1/payments/${challenged.id}`);
      expect(reread.body.challenge?.url).toBe(`${second.acquirer.url}/3ds/${challengeId}`);
    } finally {
      await second.close();
    }
  });

  it('resumes pending notifications after a restart', async () => {
    const journalFile = join(directory, 'notifications.jsonl');
    const receiver = await startReceiver(() => 500);
    const retry = {
      initialDelayMs: 60_000,
      maxDelayMs: 60_000,
      giveUpAfterMs: 600_000,
      attemptTimeoutMs: 500,
    };
    const first = await startTestAcquirer({
      journalFile,
      defaultNotificationUrl: receiver.url,
      notificationRetry: retry,
    });
    let paymentId = '';
    try {
      const payment = await createPayment(first.api);
      paymentId = payment.id;
      await authorize(first.api, payment.id, TEST_CARDS.visa.number);
      await waitFor(async () => {
        const list = await first.api.request<{ data: NotificationView[] }>('GET', '/_control/notifications');
        return list.body.data[0]?.attempts.length === 1 ? true : undefined;
      });
    } finally {
      await first.close();
    }
    receiver.behaviour = () => 200;
    const second = await startTestAcquirer({
      journalFile,
      defaultNotificationUrl: receiver.url,
      notificationRetry: retry,
    });
    try {
      const [record] = await waitFor(async () => {
        const list = await second.api.request<{ data: NotificationView[] }>(
          'GET',
          `/_control/notifications?paymentId=${paymentId}`,
        );
        return list.body.data[0]?.acknowledged ? list.body.data : undefined;
      });
      expect(record?.attempts.map((a) => a.status)).toEqual([500, 200]);
      expect(receiver.received).toHaveLength(2);
      expect(receiver.received[0]?.rawBody).toBe(receiver.received[1]?.rawBody);
    } finally {
      await second.close();
      await receiver.close();
    }
  });

  it('skips a torn last line and goes on appending', async () => {
    const journalFile = join(directory, 'torn.jsonl');
    const first = await startTestAcquirer({ journalFile });
    const payment = await createPayment(first.api);
    await first.close();
    appendFileSync(journalFile, '{"kind":"payment","data":{"id":"pay_to');

    const second = await startTestAcquirer({ journalFile });
    const other = await createPayment(second.api);
    expect((await second.api.request('GET', `/v1/payments/${payment.id}`)).status).toBe(200);
    await second.close();

    const third = await startTestAcquirer({ journalFile });
    try {
      expect((await third.api.request('GET', `/v1/payments/${payment.id}`)).status).toBe(200);
      expect((await third.api.request('GET', `/v1/payments/${other.id}`)).status).toBe(200);
    } finally {
      await third.close();
    }
  });

  it('without a journal file the acquirer keeps nothing', async () => {
    const first = await startTestAcquirer();
    const payment = await createPayment(first.api);
    await first.close();
    const second = await startTestAcquirer();
    try {
      expect((await second.api.request('GET', `/v1/payments/${payment.id}`)).status).toBe(404);
    } finally {
      await second.close();
    }
  });
});
