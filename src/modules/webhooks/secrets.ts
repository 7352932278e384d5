import { err, ok, type Result } from '../../shared/result.js';
import type { WebhookError } from './errors.js';
import { findEndpoint, updateLiveEndpoint } from './repository.js';
import type { RotateSecret, SwitchSecret, WebhookEndpointView } from './schemas.js';
import type { ByIdUseCase } from './endpoint-types.js';
import { generateWebhookSecret } from './signing.js';
import { endpointView, notFound } from './views.js';

export const DEFAULT_GRACE_SECONDS = 86_400;
/** How long a switch of secrets holds the endpoint's deliveries by default (ADR 0068). */
export const DEFAULT_PAUSE_SECONDS = 900;

export const rotateSecret: ByIdUseCase<
  WebhookEndpointView & { secret: string },
  [input: RotateSecret]
> = async ({ db, clock, box }, owner, id, input) => {
  const graceSeconds = input.gracePeriodSeconds ?? DEFAULT_GRACE_SECONDS;
  return db
    .transaction()
    .execute(async (trx): Promise<Result<WebhookEndpointView & { secret: string }, WebhookError>> => {
      const row = await findEndpoint(trx, owner, id, true);
      if (!row) return notFound;
      const now = clock.now();
      const secret = generateWebhookSecret();
      // The secret being replaced signs `Service-Signature` until the grace period ends. A rotation
      // during a grace period drops the secret before it: receivers hold at most two.
      const updated = await trx
        .updateTable('webhook_endpoints')
        .set({
          secret_enc: box.seal(secret),
          previous_secret_enc: graceSeconds > 0 ? row.secret_enc : null,
          previous_secret_expires_at: graceSeconds > 0 ? new Date(now.getTime() + graceSeconds * 1000) : null,
          updated_at: now,
        })
        .where('id', '=', row.id)
        .returningAll()
        .executeTakeFirstOrThrow();
      return ok({ ...endpointView(updated, now), secret });
    });
};

export const switchSecret: ByIdUseCase<WebhookEndpointView, [input: SwitchSecret]> = async (
  { db, clock },
  owner,
  id,
  input,
) => {
  const pauseSeconds = input.pauseSeconds ?? DEFAULT_PAUSE_SECONDS;
  return db.transaction().execute(async (trx): Promise<Result<WebhookEndpointView, WebhookError>> => {
    const row = await findEndpoint(trx, owner, id, true);
    if (!row) return notFound;
    const now = clock.now();
    const rotating =
      row.previous_secret_enc !== null &&
      row.previous_secret_expires_at !== null &&
      row.previous_secret_expires_at.getTime() > now.getTime();
    if (!rotating) return err({ code: 'no_rotation' as const });
    // A claim reads the secrets with the pause: what was claimed before this commits goes out
    // within the attempt's timeout signed with the replaced secret, which the receiver still holds
    // (it is deployed with the new one after the switch); what is due after waits for the pause.
    const updated = await trx
      .updateTable('webhook_endpoints')
      .set({
        previous_secret_enc: null,
        previous_secret_expires_at: null,
        paused_until: pauseSeconds > 0 ? new Date(now.getTime() + pauseSeconds * 1000) : null,
        updated_at: now,
      })
      .where('id', '=', row.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    return ok(endpointView(updated, now));
  });
};

export const resumeDeliveries: ByIdUseCase<WebhookEndpointView> = async ({ db, clock }, owner, id) => {
  const now = clock.now();
  const updated = await updateLiveEndpoint(db, owner, id, { paused_until: null, updated_at: now });
  return updated ? ok(endpointView(updated, now)) : notFound;
};
