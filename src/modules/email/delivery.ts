import { sql } from 'kysely';
import type { Transporter } from 'nodemailer';
import { MINUTE, SECOND } from '../../shared/clock.js';
import type { BatchReport, Claimed, DueQueue } from '../../worker/queue.js';
import type { EmailServiceDeps, MailerRuntime } from './deps.js';

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

/** The delivery job's queue over the `emails` table. */
export function openOutbox(deps: EmailServiceDeps): DueQueue {
  // A message the server keeps refusing is parked after the last attempt (status `failed`, kept, raised to
  // the operator).
  return deps.jobs.queue({
    job: 'email-delivery',
    table: 'emails',
    eligible: sql`status = 'pending'`,
    leaseMs: LEASE_MS,
    retry: { schedule: BACKOFF_MS, jitter: 0, maxAttempts: MAX_ATTEMPTS },
  });
}

async function send(mail: MailerRuntime, transport: Transporter, claimed: Claimed): Promise<boolean> {
  const { deps, outbox } = mail;
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
    deps.logger.warn({ emailId: row.id, attempts: claimed.attempt, err: message }, 'e-mail delivery failed');
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

/** Sends one batch of what is due; safe on several workers (rows are leased with SKIP LOCKED). */
export async function deliverDueBatch(mail: MailerRuntime, limit = 20): Promise<BatchReport> {
  const { transporter, outbox } = mail;
  if (!transporter) return { claimed: 0, done: 0, failed: 0 };
  const claimed = await outbox.claim(limit);
  const report: BatchReport = { claimed: claimed.length, done: 0, failed: 0 };
  for (const message of claimed) {
    if (await send(mail, transporter, message)) report.done++;
    else report.failed++;
  }
  return report;
}

export async function deliverDue(mail: MailerRuntime, limit = 20): Promise<number> {
  return (await deliverDueBatch(mail, limit)).done;
}

/** Starts a delivery round soon without waiting for it (one at a time per mailer). */
export function nudge(mail: MailerRuntime): void {
  if (!mail.transporter || mail.delivering) return;
  mail.delivering = deliverDue(mail)
    .catch((error: unknown) => {
      mail.deps.logger.error({ err: error }, 'e-mail delivery round failed');
      return 0;
    })
    .finally(() => {
      mail.delivering = undefined;
    });
}
