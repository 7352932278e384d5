/**
 * The operator's mailbox when e-mail goes out over SMTP (ADR 0058): the outbox still lists every message
 * with its state, but its bodies went to the recipient and carry their one-time secrets (the approval's
 * sandbox key and activation link, a password reset link), so no staff member reads them there, through
 * the operator API or the console. Without SMTP it is the dev mailbox and shows them (operator-api tests).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from './helpers/gateway.js';
import {
  approvalSecrets,
  approvedOrganization,
  createStaffUser,
  loginStaff,
  uniqueEmail,
  type StaffSession,
} from './helpers/operator.js';
import { startSmtpServer, type TestSmtpServer } from './helpers/smtp.js';

let smtp: TestSmtpServer;
let t: TestGateway;
let admin: StaffSession;
let support: StaffSession;

beforeAll(async () => {
  smtp = await startSmtpServer();
  t = await startTestGateway({ env: { SMTP_URL: smtp.url, MAIL_FROM: 'Gateway <no-reply@gateway.test>' } });
  admin = await loginStaff(t, await createStaffUser(t, 'admin'));
  support = await loginStaff(t, await createStaffUser(t, 'support'));
});
afterAll(async () => {
  await t?.close();
  await smtp?.close();
});

describe('the mailbox of a gateway that sends e-mail over SMTP', () => {
  it('lists the approval e-mail with its state, and never shows its sandbox key or activation link', async () => {
    const contact = uniqueEmail('smtp-owner');
    const approval = await approvedOrganization(t, admin, { contactEmail: contact });
    const delivered = await smtp.waitFor(contact);
    const secrets = await approvalSecrets(t, approval.emailId);
    expect(delivered.text).toContain(secrets.sandboxKey);

    for (const staff of [support, admin]) {
      const listed = await staff.get<{ transport: string; data: Array<{ id: string }> }>(
        '/operator/v1/emails?limit=100',
      );
      expect(listed.status, listed.text).toBe(200);
      expect(listed.body.transport).toBe('smtp');
      expect(listed.body.data.map((email) => email.id)).toContain(approval.emailId);

      const one = await staff.get<Record<string, unknown>>(`/operator/v1/emails/${approval.emailId}`);
      expect(one.status, one.text).toBe(200);
      expect(one.body).toMatchObject({ id: approval.emailId, to: contact, text: null, html: null });
      for (const secret of [secrets.sandboxKey, secrets.activationToken]) {
        expect(one.text).not.toContain(secret);
      }

      const page = await staff.get(`/mailbox/${approval.emailId}`);
      expect(page.status, page.text).toBe(200);
      expect(page.text).toContain(contact);
      expect(page.text).toContain('not shown');
      for (const secret of [secrets.sandboxKey, secrets.activationToken]) {
        expect(page.text).not.toContain(secret);
      }
    }
  });
});
