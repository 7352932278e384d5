import nodemailer, { type Transporter } from 'nodemailer';
import { sql } from 'kysely';
import type { JobKit } from '../../worker/kit.js';
import type { BatchReport, Claimed } from '../../worker/queue.js';
import type { Logger } from 'pino';
import type { Kdb } from '../../db/database.js';
import type { EmailsTable } from '../../db/schema.js';
import type { Selectable } from 'kysely';
import type { Clock } from '../../shared/clock.js';
import { MINUTE, SECOND } from '../../shared/clock.js';
import { newId } from '../../shared/ids.js';
import type { SecretBox } from '../../shared/secret-box.js';
import type { RenderedEmail } from './templates.js';

export interface StoredEmail {
  id: string;
  to: string;
  subject: string;
  template: string;
  status: Selectable<EmailsTable>['status'];
  attempts: number;
  lastError: string | null;
  createdAt: string;
  sentAt: string | null;
}

export interface Mailer {
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

const LEASE_MS = 2 * MINUTE;
const MAX_ATTEMPTS = 8;
const BACKOFF_MS = [
  10 * SECOND,
  MINUTE,
  5 * MINUTE,
  15 * MINUTE,
  60 * MINUTE,
  3 * 60 * MINUTE,
  6 * 60 * MINUTE,
];

/**
 * The e-mail outbox. With SMTP_URL, messages go out over SMTP and failures are retried with backoff;
 * without it they land in the dev mailbox that the operator console shows. Never silently dropped.
 * Bodies are sealed with the secret box: an approval e-mail carries a sandbox key and a one-time link.
 */
export function createMailer(deps: {
  db: Kdb;
  clock: Clock;
  box: SecretBox;
  smtpUrl: string | undefined;
  from: string;
  logger: Logger;
  jobs: JobKit;
}): Mailer {
  const transporter: Transporter | undefined = deps.smtpUrl
    ? nodemailer.createTransport(deps.smtpUrl, { connectionTimeout: 10_000, socketTimeout: 20_000 })
    : undefined;
  let delivering: Promise<number> | undefined;
  // A message the server keeps refusing is parked after the last attempt (status `failed`, kept, raised to
  // the operator).
  const outbox = deps.jobs.queue({
    job: 'email-delivery',
    table: 'emails',
    eligible: sql`status = 'pending'`,
    leaseMs: LEASE_MS,
    retry: { schedule: BACKOFF_MS, jitter: 0, maxAttempts: MAX_ATTEMPTS },
  });

  const toStored = (row: Selectable<EmailsTable>): StoredEmail => ({
    id: row.id,
    to: row.to_address,
    subject: row.subject,
    template: row.template,
    status: row.status,
    attempts: row.attempts,
    lastError: row.last_error,
    createdAt: row.created_at.toISOString(),
    sentAt: row.sent_at?.toISOString() ?? null,
  });

  async function send(transport: Transporter, claimed: Claimed): Promise<boolean> {
    const row = await deps.db
      .selectFrom('emails')
      .selectAll()
      .where('id', '=', claimed.id)
      .executeTakeFirstOrThrow();
    const body = JSON.parse(deps.box.open(row.body_enc)) as { text: string; html: string };
    try {
      await transport.sendMail({
        from: deps.from,
        to: row.to_address,
        subject: row.subject,
        text: body.text,
        html: body.html,
      });
    } catch (error) {
      const message = (error as Error).message.slice(0, 500);
      deps.logger.warn(
        { emailId: row.id, attempts: claimed.attempt, err: message },
        'e-mail delivery failed',
      );
      await deps.db.transaction().execute(async (trx) => {
        if ((await outbox.fail(trx, claimed, message)) !== 'parked') return;
        await trx
          .updateTable('emails')
          .set({ status: 'failed', next_attempt_at: null })
          .where('id', '=', row.id)
          .execute();
      });
      return false;
    }
    // Sent is sent: recorded even when the claim lapsed meanwhile.
    await deps.db.transaction().execute(async (trx) => {
      await trx
        .updateTable('emails')
        .set({ status: 'sent', sent_at: deps.clock.now(), next_attempt_at: null, last_error: null })
        .where('id', '=', row.id)
        .execute();
      await outbox.succeed(trx, claimed);
    });
    return true;
  }

  const deliverDueBatch = async (limit = 20): Promise<BatchReport> => {
    if (!transporter) return { claimed: 0, done: 0, failed: 0 };
    const claimed = await outbox.claim(limit);
    const report: BatchReport = { claimed: claimed.length, done: 0, failed: 0 };
    for (const message of claimed) {
      if (await send(transporter, message)) report.done++;
      else report.failed++;
    }
    return report;
  };

  const deliverDue = async (limit = 20): Promise<number> => (await deliverDueBatch(limit)).done;

  return {
    transport: transporter ? 'smtp' : 'dev_mailbox',

    async enqueue(db, to, email) {
      const id = newId('eml', deps.clock.now());
      await db
        .insertInto('emails')
        .values({
          id,
          to_address: to,
          subject: email.subject,
          body_enc: deps.box.seal(JSON.stringify({ text: email.text, html: email.html })),
          template: email.template,
          locale: 'tr+en',
          status: transporter ? 'pending' : 'dev_mailbox',
          next_attempt_at: transporter ? deps.clock.now() : null,
          created_at: deps.clock.now(),
        })
        .execute();
      return id;
    },

    deliverDue,
    deliverDueBatch,

    nudge() {
      if (!transporter || delivering) return;
      delivering = deliverDue()
        .catch((error: unknown) => {
          deps.logger.error({ err: error }, 'e-mail delivery round failed');
          return 0;
        })
        .finally(() => {
          delivering = undefined;
        });
    },

    async list({ limit, before }) {
      let query = deps.db
        .selectFrom('emails')
        .selectAll()
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(limit);
      if (before) {
        query = query.where((eb) =>
          eb.or([
            eb('created_at', '<', before.createdAt),
            eb.and([eb('created_at', '=', before.createdAt), eb('id', '<', before.id)]),
          ]),
        );
      }
      return (await query.execute()).map(toStored);
    },

    async read(id) {
      const row = await deps.db.selectFrom('emails').selectAll().where('id', '=', id).executeTakeFirst();
      if (!row) return undefined;
      const body = JSON.parse(deps.box.open(row.body_enc)) as { text: string; html: string };
      return { ...toStored(row), ...body };
    },
  };
}
