import type { Kdb } from '../../db/database.js';
import { newId } from '../../shared/ids.js';
import type { MailerRuntime } from './deps.js';
import type { RenderedEmail } from './templates.js';

/** Writes the message in the caller's transaction; it is sent after commit (`nudge`). */
export async function enqueueEmail(
  mail: MailerRuntime,
  db: Kdb,
  to: string,
  email: RenderedEmail,
): Promise<string> {
  const { deps, transporter } = mail;
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
}
