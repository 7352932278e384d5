import nodemailer, { type Transporter } from 'nodemailer';
import type { Kdb } from '../../db/database.js';
import type { BatchReport } from '../../worker/queue.js';
import { deliverDue, deliverDueBatch, nudge, openOutbox } from './delivery.js';
import type { EmailServiceDeps, MailerRuntime } from './deps.js';
import { enqueueEmail } from './enqueue.js';
import { listEmails, readEmail, type StoredEmail } from './mailbox.js';
import type { RenderedEmail } from './templates.js';

export interface EmailService {
  readonly transport: 'smtp' | 'dev_mailbox';
  /** Writes the message in the caller's transaction; it is sent after commit (call `nudge`). */
  enqueue(db: Kdb, to: string, email: RenderedEmail): Promise<string>;
  /** Sends what is due; safe on several workers (rows are leased with SKIP LOCKED). */
  deliverDue(limit?: number): Promise<number>;
  /** One batch of the delivery job, and what became of it. */
  deliverDueBatch(limit?: number): Promise<BatchReport>;
  /** Starts a delivery round soon without waiting for it. */
  nudge(): void;
  list(options: { limit: number; before?: { createdAt: Date; id: string } }): Promise<StoredEmail[]>;
  read(id: string): Promise<(StoredEmail & { text: string; html: string }) | undefined>;
}

/**
 * The e-mail outbox. With SMTP_URL, messages go out over SMTP and failures are retried with backoff;
 * without it they land in the dev mailbox that the operator console shows. Never silently dropped.
 * Bodies are sealed with the secret box: an approval e-mail carries a sandbox key and a one-time link.
 */
export function createEmailService(deps: EmailServiceDeps): EmailService {
  const transporter: Transporter | undefined = deps.smtpUrl
    ? nodemailer.createTransport(deps.smtpUrl, { connectionTimeout: 10_000, socketTimeout: 20_000 })
    : undefined;
  const mail: MailerRuntime = { deps, transporter, outbox: openOutbox(deps) };
  return {
    transport: transporter ? 'smtp' : 'dev_mailbox',
    enqueue: (db, to, email) => enqueueEmail(mail, db, to, email),
    deliverDue: (limit) => deliverDue(mail, limit),
    deliverDueBatch: (limit) => deliverDueBatch(mail, limit),
    nudge: () => nudge(mail),
    list: (options) => listEmails(deps, options),
    read: (id) => readEmail(deps, id),
  };
}
