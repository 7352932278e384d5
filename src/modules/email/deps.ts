import type { Transporter } from 'nodemailer';
import type { Logger } from 'pino';
import type { Kdb } from '../../db/database.js';
import type { Clock } from '../../shared/clock.js';
import type { SecretBox } from '../../shared/secret-box.js';
import type { JobKit } from '../../worker/kit.js';
import type { DueQueue } from '../../worker/queue.js';

export interface EmailServiceDeps {
  db: Kdb;
  clock: Clock;
  box: SecretBox;
  smtpUrl: string | undefined;
  from: string;
  logger: Logger;
  jobs: JobKit;
}

/** One mailer's transport, its outbox queue and the delivery round under way (`nudge` starts one). */
export interface MailerRuntime {
  deps: EmailServiceDeps;
  /** Absent without SMTP_URL: messages then land in the dev mailbox. */
  transporter: Transporter | undefined;
  outbox: DueQueue;
  delivering?: Promise<number> | undefined;
}
