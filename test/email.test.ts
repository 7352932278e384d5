import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashApiKey } from '../src/modules/api-keys/key-format.js';
import { MINUTE, SECOND } from '../src/shared/clock.js';
import { startTestGateway, type TestGateway } from './helpers/gateway.js';
import { request, validApplication } from './helpers/http.js';
import { startSmtpServer, type TestSmtpServer } from './helpers/smtp.js';

let smtp: TestSmtpServer;
let t: TestGateway;

beforeAll(async () => {
  smtp = await startSmtpServer();
  t = await startTestGateway({ env: { SMTP_URL: smtp.url, MAIL_FROM: 'Gateway <no-reply@gateway.test>' } });
});
afterAll(async () => {
  await t?.close();
  await smtp?.close();
});

async function apply(email: string): Promise<string> {
  const res = await request<{ id: string }>(`${t.urls.sandboxApi}/v1/applications`, {
    body: validApplication({ contactEmail: email, companyName: 'Kapadokya Digital' }),
  });
  expect(res.status).toBe(201);
  return res.body.id;
}

const underwriting = () => t.gateway.services.underwriting;
/** The approval, which these tests expect to succeed. */
async function approve(id: string) {
  const approved = await underwriting().approve(id, { actor: 'test' });
  if (!approved.ok) throw new Error(`approval refused: ${approved.error.code}`);
  return approved.value;
}

describe('e-mail over SMTP', () => {
  it('sends the approval e-mail, Turkish and English, with the sandbox key and the activation link', async () => {
    const id = await apply('owner@kapadokya.example');
    const approval = await approve(id);
    const mail = await smtp.waitFor('owner@kapadokya.example');

    expect(mail.subject).toBe('Başvurunuz onaylandı / Your application is approved');
    expect(mail.from?.text).toContain('no-reply@gateway.test');
    const text = mail.text ?? '';
    expect(text).toContain('Kapadokya Digital');
    expect(text).toContain('Test (sandbox) API anahtarınız');
    expect(text).toContain('Your sandbox API key');
    const key = /sk_test_[0-9A-Za-z]{38}/.exec(text)?.[0];
    expect(key).toBeDefined();
    expect(hashApiKey(key ?? '')).toBe(
      (
        await t.testDb.database.db
          .selectFrom('api_keys')
          .select('secret_hash')
          .where('id', '=', approval.sandboxKey.id)
          .executeTakeFirstOrThrow()
      ).secret_hash,
    );
    expect(text).toContain(approval.activationUrl);
    expect(mail.html).toContain(approval.activationUrl.replace(/&/g, '&amp;'));

    const read = () =>
      t.testDb.database.db
        .selectFrom('emails')
        .selectAll()
        .where('id', '=', approval.emailId)
        .executeTakeFirstOrThrow();
    await expect.poll(async () => (await read()).status, { timeout: 10_000 }).toBe('sent');
    const row = await read();
    expect(row.sent_at).not.toBeNull();
    // The outbox keeps the body sealed: neither the key nor the link is readable in the database.
    expect(row.body_enc).not.toContain('sk_test_');
    expect(row.body_enc).not.toContain('/activate/');
  });

  it('sends the rejection e-mail with the reason', async () => {
    const id = await apply('rejected@kapadokya.example');
    await underwriting().reject(id, 'Unsupported jurisdiction', { actor: 'test' });
    const mail = await smtp.waitFor('rejected@kapadokya.example');
    expect(mail.subject).toBe('Başvurunuz hakkında / About your application');
    expect(mail.text).toContain('Unsupported jurisdiction');
  });

  it('retries a message the server refuses, with backoff, until it is delivered', async () => {
    smtp.refuseNext(1);
    const id = await apply('retry@kapadokya.example');
    const approval = await approve(id);
    const outbox = () =>
      t.testDb.database.db
        .selectFrom('emails')
        .selectAll()
        .where('id', '=', approval.emailId)
        .executeTakeFirstOrThrow();

    // The attempt is counted when the message is leased; the error is recorded when the server refuses.
    await expect.poll(async () => (await outbox()).last_error, { timeout: 15_000 }).not.toBeNull();
    expect((await outbox()).attempts).toBe(1);
    const refused = await outbox();
    expect(refused.status).toBe('pending');
    expect(refused.last_error).toMatch(/451|later/i);
    expect(refused.next_attempt_at?.getTime()).toBe(t.clock.now().getTime() + 10 * SECOND);

    // Not due yet: nothing is sent before the backoff has passed.
    expect(await t.gateway.services.mailer.deliverDue()).toBe(0);
    t.clock.advance(10 * SECOND);
    expect(await t.gateway.services.mailer.deliverDue()).toBe(1);
    await smtp.waitFor('retry@kapadokya.example');
    await expect.poll(async () => (await outbox()).status, { timeout: 10_000 }).toBe('sent');
  });

  it('leases due messages so that two delivery rounds at once send each message once', async () => {
    smtp.refuseNext(0);
    const ids = await Promise.all(['a', 'b', 'c'].map((name) => apply(`lease-${name}@kapadokya.example`)));
    // Enqueue without the immediate nudge racing us: approve, then run two rounds in parallel.
    for (const id of ids) await approve(id);
    t.clock.advance(MINUTE);
    await Promise.all([t.gateway.services.mailer.deliverDue(), t.gateway.services.mailer.deliverDue()]);
    for (const name of ['a', 'b', 'c']) await smtp.waitFor(`lease-${name}@kapadokya.example`);
    await new Promise((resolve) => setTimeout(resolve, 300));
    for (const name of ['a', 'b', 'c']) {
      const received = smtp.messages.filter(
        (m) => m.to && [m.to].flat().some((a) => a.text.includes(`lease-${name}@`)),
      );
      expect(received).toHaveLength(1);
    }
  });
});
