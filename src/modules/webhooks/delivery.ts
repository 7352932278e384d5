import type { EventLookup } from '../events/lookup.js';
import { sql } from 'kysely';
import type { Logger } from 'pino';
import type { Kdb, Trx } from '../../db/database.js';
import type { Environment } from '../../db/schema.js';
import { DAY, HOUR, MINUTE, SECOND, type Clock } from '../../shared/clock.js';
import { newId } from '../../shared/ids.js';
import type { SecretBox } from '../../shared/secret-box.js';
import type { Mailer } from '../email/service.js';
import { webhookEndpointDisabledEmail } from '../email/templates.js';
import { sendWebhook, type AttemptOutcome } from './sender.js';
import { signatureHeaders } from './signing.js';
import type { HostResolver } from './url-guard.js';
import { newLeaseToken, retryDelay, type RetryPolicy } from '../../worker/queue.js';

/** Product decision 29: the waits after the 1st, 2nd, … failed attempt; after the last, `failed`. */
export const RETRY_SCHEDULE_MS = [
  5 * SECOND,
  MINUTE,
  5 * MINUTE,
  30 * MINUTE,
  2 * HOUR,
  5 * HOUR,
  10 * HOUR,
  10 * HOUR,
  24 * HOUR,
];
export const MAX_ATTEMPTS = RETRY_SCHEDULE_MS.length + 1;
/** Each wait is moved by up to this fraction either way, so failed endpoints do not retry in lockstep. */
export const JITTER = 0.15;
export const DISABLE_AFTER_MS = 5 * DAY;
const RETRY: RetryPolicy = { schedule: RETRY_SCHEDULE_MS, jitter: JITTER, maxAttempts: MAX_ATTEMPTS };
export const RETENTION_MS = 30 * DAY;

export interface WebhookDispatcher {
  /**
   * One round: claims the due deliveries its free slots allow (at most `perEndpoint` per endpoint) and
   * sends them concurrently; resolves when their outcomes are recorded, with how many were sent.
   */
  deliverDue(): Promise<number>;
  /**
   * The worker job: rounds until nothing is due (or `signal` is aborted), refilling each slot as soon as
   * its attempt ends; resolves with how many deliveries it claimed.
   */
  pump(budgetMs?: number, signal?: AbortSignal): Promise<number>;
  /**
   * Graceful stop (issue 17): claims nothing more, releases at once what it claimed but has not sent (so
   * another worker or the next start sends it without waiting for the lease), and waits until `deadline`
   * for the attempts already sent, so that each is recorded and never sent twice.
   */
  stop(deadline?: number): Promise<void>;
  /** Disables endpoints failing for 5 days and e-mails their organization's owners. */
  disableFailing(): Promise<number>;
  /** Deletes attempts older than 30 days and finished deliveries older than 30 days (one batch). */
  purgeExpired(batchSize?: number): Promise<number>;
}

export interface WebhookDispatcherDeps {
  db: Kdb;
  clock: Clock;
  box: SecretBox;
  mailer: Mailer;
  /** The payloads of the events to deliver, read through the events module. */
  events: Pick<EventLookup, 'byIds'>;
  /** The e-mail addresses of an organization's active owners, read by the users module in `trx`. */
  ownerEmails: (trx: Trx, organizationId: string) => Promise<string[]>;
  logger: Logger;
  resolver: HostResolver;
  allowPrivateTargets: boolean;
  timeoutMs: number;
  concurrency: number;
  perEndpoint?: number;
  dashboardUrl: () => string;
  /** In [0, 1); injectable for tests of the jitter bounds. */
  random?: () => number;
}

interface Claimed {
  id: string;
  leaseToken: string;
  endpointId: string;
  attempts: number;
  eventId: string;
  organizationId: string;
  environment: Environment;
  url: string;
  payload: unknown;
  secret: string;
  previousSecret: string | null;
}

export function createWebhookDispatcher(deps: WebhookDispatcherDeps): WebhookDispatcher {
  const { db, clock, box, logger } = deps;
  const perEndpoint = deps.perEndpoint ?? 2;
  const random = deps.random ?? Math.random;
  // A claim outlives the longest attempt; a worker that dies mid-attempt leaves it due again after this.
  // The attempt itself ends at timeoutMs (the sender's own deadline); the rest covers recording it.
  const leaseMs = 2 * deps.timeoutMs + 10 * SECOND;
  const inFlight = new Map<string, number>();
  let running = 0;
  let stopping = false;
  /** Every claim and attempt under way in this process, whichever call started it. */
  const attempts = new Set<Promise<unknown>>();

  /** Gives claimed, unsent deliveries back: due now, no lease, so nobody waits for the lease to lapse. */
  async function release(deliveries: Claimed[]): Promise<void> {
    if (deliveries.length === 0) return;
    const now = clock.now();
    for (const delivery of deliveries) {
      await db
        .updateTable('webhook_deliveries')
        .set({ next_attempt_at: now, lease_token: null, updated_at: now })
        .where('id', '=', delivery.id)
        .where('lease_token', '=', delivery.leaseToken)
        .where('status', '=', 'pending')
        .execute();
    }
    logger.info({ released: deliveries.length }, 'released unsent webhook deliveries for shutdown');
  }

  async function claim(slots: number): Promise<Claimed[]> {
    if (slots <= 0) return [];
    const now = clock.now();
    const leaseToken = newLeaseToken();
    const ids = await db.transaction().execute(async (trx) => {
      // At most `perEndpoint` candidates per endpoint, and none from endpoints this worker already has at
      // its cap: a backlog at one endpoint can never fill the window and starve the others.
      const capped = [...inFlight].filter(([, busy]) => busy >= perEndpoint).map(([id]) => id);
      const ranked = trx
        .selectFrom('webhook_deliveries as d')
        .innerJoin('webhook_endpoints as w', 'w.id', 'd.endpoint_id')
        .select([
          'd.id',
          'd.next_attempt_at',
          sql<number>`row_number() over (partition by d.endpoint_id order by d.next_attempt_at, d.id)`.as(
            'rank',
          ),
        ])
        .where('d.status', '=', 'pending')
        .where('d.next_attempt_at', '<=', now)
        .where('w.status', '=', 'enabled')
        .where('w.deleted_at', 'is', null)
        .$if(capped.length > 0, (query) => query.where('d.endpoint_id', 'not in', capped));
      const candidates = await trx
        .selectFrom('webhook_deliveries')
        .select(['id', 'endpoint_id'])
        .where('id', 'in', (eb) =>
          eb
            .selectFrom(ranked.as('ranked'))
            .select('ranked.id')
            .where('ranked.rank', '<=', perEndpoint)
            .orderBy('ranked.next_attempt_at')
            .limit(slots * 4),
        )
        .where('status', '=', 'pending')
        .where('next_attempt_at', '<=', now)
        .orderBy('next_attempt_at')
        .forUpdate()
        .skipLocked()
        .execute();
      const taken = new Map(inFlight);
      const chosen: string[] = [];
      for (const candidate of candidates) {
        if (chosen.length >= slots) break;
        const busy = taken.get(candidate.endpoint_id) ?? 0;
        if (busy >= perEndpoint) continue;
        taken.set(candidate.endpoint_id, busy + 1);
        chosen.push(candidate.id);
      }
      if (chosen.length === 0) return [];
      await trx
        .updateTable('webhook_deliveries')
        .set({ next_attempt_at: new Date(now.getTime() + leaseMs), lease_token: leaseToken, updated_at: now })
        .where('id', 'in', chosen)
        .execute();
      return chosen;
    });
    if (ids.length === 0) return [];
    const rows = await db
      .selectFrom('webhook_deliveries as d')
      .innerJoin('webhook_endpoints as w', 'w.id', 'd.endpoint_id')
      .select([
        'd.id',
        'd.endpoint_id',
        'd.attempts',
        'd.event_id',
        'd.organization_id',
        'd.environment',
        'w.url',
        'w.secret_enc',
        'w.previous_secret_enc',
        'w.previous_secret_expires_at',
      ])
      .where('d.id', 'in', ids)
      .execute();
    const events = await deps.events.byIds(rows.map((row) => row.event_id));
    // An event is never deleted while a delivery references it (foreign key), so each is found.
    return rows
      .flatMap((row) => {
        const event = events.get(row.event_id);
        return event === undefined ? [] : [{ row, payload: event.payload }];
      })
      .map(({ row, payload }) => ({
        id: row.id,
        leaseToken,
        endpointId: row.endpoint_id,
        attempts: row.attempts,
        eventId: row.event_id,
        organizationId: row.organization_id,
        environment: row.environment,
        url: row.url,
        payload,
        secret: box.open(row.secret_enc),
        previousSecret:
          row.previous_secret_enc !== null &&
          row.previous_secret_expires_at !== null &&
          row.previous_secret_expires_at.getTime() > now.getTime()
            ? box.open(row.previous_secret_enc)
            : null,
      }));
  }

  async function attempt(delivery: Claimed): Promise<void> {
    // The last moment before anything leaves this process: a stop from here on hands the delivery back.
    if (stopping) {
      await release([delivery]);
      return;
    }
    const attemptedAt = clock.now();
    const body = Buffer.from(JSON.stringify(delivery.payload));
    const timestamp = Math.floor(attemptedAt.getTime() / 1000);
    const outcome = await sendWebhook({
      url: delivery.url,
      body,
      headers: signatureHeaders(body, timestamp, {
        current: delivery.secret,
        previous: delivery.previousSecret,
      }),
      timeoutMs: deps.timeoutMs,
      resolver: deps.resolver,
      allowPrivate: deps.allowPrivateTargets,
    });
    await record(delivery, attemptedAt, outcome);
  }

  async function record(delivery: Claimed, attemptedAt: Date, outcome: AttemptOutcome): Promise<void> {
    const disabled = await db.transaction().execute(async (trx) => {
      const now = clock.now();
      await trx
        .insertInto('webhook_attempts')
        .values({
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
        })
        .execute();
      const attempts = delivery.attempts + 1;
      const exhausted = attempts >= RETRY.maxAttempts;
      // Only the holder of the claim moves the delivery on: after a lapsed lease or a manual retry,
      // another worker owns it, and this attempt is only logged.
      await trx
        .updateTable('webhook_deliveries')
        .set({
          attempts: sql`attempts + 1`,
          last_attempt_at: attemptedAt,
          lease_token: null,
          updated_at: now,
          ...(outcome.succeeded
            ? { status: 'succeeded' }
            : exhausted
              ? { status: 'failed' }
              : { next_attempt_at: new Date(now.getTime() + retryDelay(RETRY, attempts, random)) }),
        })
        .where('id', '=', delivery.id)
        .where('lease_token', '=', delivery.leaseToken)
        .execute();
      if (outcome.succeeded) {
        await trx
          .updateTable('webhook_endpoints')
          .set({ failing_since: null })
          .where('id', '=', delivery.endpointId)
          .where('failing_since', 'is not', null)
          .execute();
        return 0;
      }
      await trx
        .updateTable('webhook_endpoints')
        .set({ failing_since: attemptedAt })
        .where('id', '=', delivery.endpointId)
        .where('failing_since', 'is', null)
        .execute();
      return disableFailingIn(trx, delivery.endpointId);
    });
    if (disabled > 0) deps.mailer.nudge();
  }

  /** Disables endpoints (one, or every one due) failing for 5 days; e-mails are queued in the same transaction. */
  async function disableFailingIn(trx: Trx, endpointId?: string): Promise<number> {
    const now = clock.now();
    let query = trx
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('status', '=', 'enabled')
      .where('deleted_at', 'is', null)
      .where('failing_since', '<=', new Date(now.getTime() - DISABLE_AFTER_MS))
      .limit(100)
      .forUpdate()
      .skipLocked();
    if (endpointId !== undefined) query = query.where('id', '=', endpointId);
    const endpoints = await query.execute();
    for (const endpoint of endpoints) {
      await trx
        .updateTable('webhook_endpoints')
        .set({ status: 'disabled', disabled_reason: 'failing', updated_at: now })
        .where('id', '=', endpoint.id)
        .execute();
      const owners = await deps.ownerEmails(trx, endpoint.organization_id);
      for (const email of owners) {
        await deps.mailer.enqueue(
          trx,
          email,
          webhookEndpointDisabledEmail({
            url: endpoint.url,
            endpointId: endpoint.id,
            environment: endpoint.environment,
            failingSince: endpoint.failing_since ?? now,
            dashboardUrl: deps.dashboardUrl(),
          }),
        );
      }
      logger.warn(
        { endpointId: endpoint.id, organizationId: endpoint.organization_id, owners: owners.length },
        'webhook endpoint disabled after 5 days of failures',
      );
    }
    return endpoints.length;
  }

  async function round(onStarted: (work: Promise<void>) => void): Promise<number> {
    if (stopping) return 0;
    // The claim and the start of its attempts are one tracked step: a stop that arrives during the claim
    // finds every attempt (or hand-back) registered by the time the claim settles.
    const claiming = claim(deps.concurrency - running).then((claimed) => {
      for (const delivery of claimed) start(delivery, onStarted);
      return claimed.length;
    });
    attempts.add(claiming);
    return claiming.finally(() => attempts.delete(claiming));
  }

  function start(delivery: Claimed, onStarted: (work: Promise<void>) => void): void {
    running += 1;
    inFlight.set(delivery.endpointId, (inFlight.get(delivery.endpointId) ?? 0) + 1);
    const work = attempt(delivery)
      .catch((error: unknown) =>
        logger.error({ err: error, deliveryId: delivery.id }, 'webhook attempt could not be recorded'),
      )
      .finally(() => {
        running -= 1;
        const left = (inFlight.get(delivery.endpointId) ?? 1) - 1;
        if (left <= 0) inFlight.delete(delivery.endpointId);
        else inFlight.set(delivery.endpointId, left);
        attempts.delete(work);
      });
    attempts.add(work);
    onStarted(work);
  }

  return {
    async deliverDue() {
      const started: Promise<void>[] = [];
      const count = await round((work) => started.push(work));
      await Promise.all(started);
      return count;
    },

    async pump(budgetMs = 10 * SECOND, signal?: AbortSignal) {
      const deadline = Date.now() + budgetMs;
      const pending = new Set<Promise<void>>();
      let total = 0;
      for (;;) {
        // Past the budget it returns without waiting: attempts still in flight keep their slots (the next
        // run claims around them). A stop waits for them itself (stop()), up to the shutdown deadline.
        if (Date.now() >= deadline || stopping || signal?.aborted) return total;
        const claimed = await round((work) => {
          pending.add(work);
          void work.finally(() => pending.delete(work));
        });
        total += claimed;
        if (claimed === 0 && pending.size === 0) return total;
        if (claimed === 0 || running >= deps.concurrency) {
          await Promise.race([...pending, new Promise((resolve) => setTimeout(resolve, 250))]);
        }
      }
    },

    async stop(deadline = Number.POSITIVE_INFINITY) {
      stopping = true;
      // A claim under way when the stop came starts (and so releases) its deliveries afterwards: wait
      // until nothing is left, not only for what was running at the start.
      while (attempts.size > 0 && Date.now() < deadline) {
        let timer: NodeJS.Timeout | undefined;
        const left = deadline - Date.now();
        const waited = Promise.allSettled([...attempts]);
        await (Number.isFinite(left)
          ? Promise.race([waited, new Promise((resolve) => (timer = setTimeout(resolve, left)))])
          : waited);
        clearTimeout(timer);
      }
      if (attempts.size > 0) {
        logger.warn(
          { attempts: attempts.size },
          'shutdown deadline reached with webhook attempts in flight; they are sent again after their lease',
        );
      }
    },

    async disableFailing() {
      const disabled = await db.transaction().execute((trx) => disableFailingIn(trx));
      if (disabled > 0) deps.mailer.nudge();
      return disabled;
    },

    async purgeExpired(batchSize = 1000) {
      const cutoff = new Date(clock.now().getTime() - RETENTION_MS);
      const attempts = await db
        .deleteFrom('webhook_attempts')
        .where('id', 'in', (eb) =>
          eb.selectFrom('webhook_attempts').select('id').where('attempted_at', '<', cutoff).limit(batchSize),
        )
        .executeTakeFirst();
      const deliveries = await db
        .deleteFrom('webhook_deliveries')
        .where('id', 'in', (eb) =>
          eb
            .selectFrom('webhook_deliveries')
            .select('id')
            .where('status', '<>', 'pending')
            .where('updated_at', '<', cutoff)
            .limit(batchSize),
        )
        .executeTakeFirst();
      return Number(attempts.numDeletedRows) + Number(deliveries.numDeletedRows);
    },
  };
}
