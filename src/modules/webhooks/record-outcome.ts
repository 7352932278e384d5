import { sql } from 'kysely';
import { newId } from '../../shared/ids.js';
import { retryDelay } from '../../worker/queue.js';
import { disableFailingIn } from './auto-disable.js';
import { RETRY } from './delivery-policy.js';
import type { DispatcherState, Finished, WebhookDispatcherDeps } from './dispatcher-types.js';

/** Outcomes written in one transaction at most. */
const WRITE_BATCH = 200;
/** How long the first outcome of a write waits for others to join it. */
const WRITE_GATHER_MS = 2;

/**
 * Records an outcome. Outcomes that end while a write is under way are written together in the next
 * one (one transaction for many attempts, ADR 0036): resolves once this one is committed.
 */
export function record(
  deps: WebhookDispatcherDeps,
  state: DispatcherState,
  finished: Finished,
): Promise<void> {
  return new Promise<void>((written, failed) => {
    state.unwritten.push({ ...finished, written, failed });
    if (state.writing) return;
    state.writing = true;
    // A moment for the outcomes ending at about the same time to join the first one's write.
    setTimeout(() => void writeAll(deps, state), WRITE_GATHER_MS);
  });
}

async function writeAll(deps: WebhookDispatcherDeps, state: DispatcherState): Promise<void> {
  try {
    while (state.unwritten.length > 0) {
      const batch = state.unwritten.splice(0, WRITE_BATCH);
      try {
        await write(deps, state, batch);
        for (const entry of batch) entry.written();
      } catch (error) {
        if (batch.length === 1) {
          batch[0]?.failed(error);
          continue;
        }
        // One outcome that cannot be written must not lose the others: each is written alone.
        for (const entry of batch) {
          await write(deps, state, [entry]).then(entry.written, entry.failed);
        }
      }
    }
  } finally {
    state.writing = false;
  }
}

/** The outcomes in one transaction, each as the single-attempt rules say (product decision 29). */
async function write(
  deps: WebhookDispatcherDeps,
  state: DispatcherState,
  batch: readonly Finished[],
): Promise<void> {
  const disabled = await deps.db.transaction().execute(async (trx) => {
    const now = deps.clock.now();
    await trx
      .insertInto('webhook_attempts')
      .values(
        batch.map(({ delivery, attemptedAt, outcome }) => ({
          id: newId('whd', attemptedAt),
          delivery_id: delivery.id,
          event_id: delivery.eventId,
          endpoint_id: delivery.endpointId,
          organization_id: delivery.organizationId,
          environment: delivery.environment,
          url: delivery.url,
          succeeded: outcome.succeeded,
          status_code: outcome.statusCode,
          latency_ms: outcome.latencyMs,
          error: outcome.error,
          response_excerpt: outcome.responseExcerpt,
          attempted_at: attemptedAt,
        })),
      )
      .execute();
    // Only the holder of the claim moves the delivery on: after a lapsed lease or a manual retry,
    // another worker owns it, and this attempt is only logged.
    const moves = batch.map(({ delivery, attemptedAt, outcome }) => {
      const attempts = delivery.attempts + 1;
      const status = outcome.succeeded ? 'succeeded' : attempts >= RETRY.maxAttempts ? 'failed' : 'pending';
      const next =
        status === 'pending' ? new Date(now.getTime() + retryDelay(RETRY, attempts, state.random)) : null;
      return sql`(${delivery.id}, ${delivery.leaseToken}, ${status}, ${attemptedAt}::timestamptz,
        ${next}::timestamptz)`;
    });
    await sql`
      update webhook_deliveries as d set
        attempts = d.attempts + 1,
        last_attempt_at = m.attempted_at,
        lease_token = null,
        updated_at = ${now},
        status = m.status,
        next_attempt_at = coalesce(m.next_attempt_at, d.next_attempt_at)
      from (values ${sql.join(moves)}) as m (id, lease_token, status, attempted_at, next_attempt_at)
      where d.id = m.id and d.lease_token = m.lease_token`.execute(trx);
    // An endpoint's health follows its attempts in the order they ended: `failing_since` is the first
    // failure after the last success, and a success clears it.
    const healed: string[] = [];
    const failingAfterSuccess = new Map<string, Date>();
    const failing = new Map<string, Date>();
    for (const endpointId of new Set(batch.map((entry) => entry.delivery.endpointId))) {
      const own = batch.filter((entry) => entry.delivery.endpointId === endpointId);
      const lastSuccess = own.findLastIndex((entry) => entry.outcome.succeeded);
      const firstFailureAfter = own.slice(lastSuccess + 1)[0]?.attemptedAt;
      if (firstFailureAfter === undefined) healed.push(endpointId);
      else if (lastSuccess >= 0) failingAfterSuccess.set(endpointId, firstFailureAfter);
      else failing.set(endpointId, firstFailureAfter);
    }
    if (healed.length > 0) {
      await trx
        .updateTable('webhook_endpoints')
        .set({ failing_since: null })
        .where('id', 'in', healed)
        .where('failing_since', 'is not', null)
        .execute();
    }
    for (const [endpointId, since] of [...failingAfterSuccess, ...failing]) {
      let update = trx
        .updateTable('webhook_endpoints')
        .set({ failing_since: since })
        .where('id', '=', endpointId);
      // Without a success in the batch, an endpoint already failing keeps the start of its failure.
      if (!failingAfterSuccess.has(endpointId)) update = update.where('failing_since', 'is', null);
      await update.execute();
    }
    const failed = [...failing.keys(), ...failingAfterSuccess.keys()];
    return failed.length > 0 ? disableFailingIn(deps, trx, failed) : 0;
  });
  if (disabled > 0) deps.mailer.nudge();
}
