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
import { createWebhookSender, type AttemptOutcome } from './sender.js';
import { signatureHeaders } from './signing.js';
import { privateTargetAllowed, type HostResolver } from './url-guard.js';
import { selectsKind } from './model.js';
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
/** Outcomes written in one transaction at most. */
const WRITE_BATCH = 200;
/** How long the first outcome of a write waits for others to join it. */
const WRITE_GATHER_MS = 2;
/** How soon a pump with attempts in flight looks again for deliveries that became due. */
const BUSY_POLL_MS = 100;
/**
 * The logged `error` of a delivery finished unsent because its endpoint no longer selects the event's kind
 * (its `enabledEvents` changed after the event was fanned out to it).
 */
export const KIND_NOT_SELECTED = 'event_type_not_selected';

export interface WebhookDispatcher {
  /**
   * One round: claims the due deliveries its free slots allow (at most `perEndpoint` in flight per
   * endpoint) and sends them concurrently; resolves when their outcomes are recorded, with how many were
   * sent.
   */
  deliverDue(): Promise<number>;
  /**
   * The worker job: rounds until nothing is due and nothing is in flight (or `signal` is aborted, or the
   * budget is spent), claiming again as soon as slots free up; resolves with how many deliveries it
   * claimed. With `idlePollMs`, it does not return when idle: it looks again after that long, until the
   * budget is spent (the worker's job: new deliveries go out within about `idlePollMs`).
   */
  pump(budgetMs?: number, signal?: AbortSignal, idlePollMs?: number): Promise<number>;
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
  /** Origins endpoints may target on private addresses (`WEBHOOK_PRIVATE_TARGET_ORIGINS`, ADR 0059). */
  privateTargetOrigins?: readonly string[];
  timeoutMs: number;
  concurrency: number;
  /** Attempts in flight to one endpoint from this process; default a quarter of `concurrency` (at least 1). */
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

/** What one claim took: the deliveries to send, and how many rows it took in all (sent or finished unsent). */
interface Claim {
  deliveries: Claimed[];
  taken: number;
}

/**
 * The due deliveries a claim may take, locked (FOR UPDATE SKIP LOCKED) in the caller's transaction: the
 * earliest due first, at most `perEndpoint` of each enabled endpoint that is not paused for a switch of
 * secrets (ADR 0068; its deliveries wait, queued), none of the `capped` endpoints. The
 * endpoints with pending deliveries are found by a skip scan of `webhook_deliveries_endpoint_due_idx`
 * (one probe each) and each one's earliest due read from the same index, so the cost follows the number
 * of such endpoints, not the backlog (ADR 0036). Each ORDER BY is the index's own order, so that no other
 * index of the table (by endpoint and creation, say) can stand in for it whatever the statistics say.
 */
export function dueCandidates(trx: Trx, options: DueOptions) {
  return dueCandidatesQuery(options).execute(trx);
}

interface DueOptions {
  now: Date;
  perEndpoint: number;
  capped: readonly string[];
  slots: number;
}

/**
 * The endpoint of the first pending delivery in `webhook_deliveries_endpoint_due_idx`'s own order: the
 * skip scan's first step in `dueCandidatesQuery`, and on its own the idle poll's probe (`anyPendingQuery`).
 */
const firstPendingEndpoint = sql`select endpoint_id from webhook_deliveries where status = 'pending'
  order by endpoint_id, next_attempt_at, id limit 1`;

/** The statement of `dueCandidates` (the benchmark explains it). */
export function dueCandidatesQuery(options: DueOptions) {
  const { now, perEndpoint, capped, slots } = options;
  return sql<{ id: string; endpoint_id: string }>`
    with recursive pending_endpoints (id) as (
      (${firstPendingEndpoint})
      union all
      select (select d.endpoint_id from webhook_deliveries d
              where d.status = 'pending' and d.endpoint_id > p.id
              order by d.endpoint_id, d.next_attempt_at, d.id limit 1)
      from pending_endpoints p
      where p.id is not null
    )
    select due.id, due.endpoint_id
    from pending_endpoints p
    join webhook_endpoints w
      on w.id = p.id and w.status = 'enabled' and w.deleted_at is null
        and (w.paused_until is null or w.paused_until <= ${now})
      ${capped.length > 0 ? sql`and p.id not in (${sql.join(capped)})` : sql``}
    cross join lateral (
      select d.id, d.endpoint_id, d.next_attempt_at
      from webhook_deliveries d
      where d.endpoint_id = p.id and d.status = 'pending' and d.next_attempt_at <= ${now}
      order by d.next_attempt_at, d.id
      limit ${perEndpoint}
      for update of d skip locked
    ) due
    order by due.next_attempt_at, due.id
    limit ${slots}`;
}

/**
 * Whether any delivery is pending, due or not: the first entry of `webhook_deliveries_endpoint_due_idx`
 * in its own order (the skip scan's first step), so one index probe whatever the backlog.
 */
export function anyPendingQuery() {
  // A statement of its own around the shared fragment, not the fragment itself: the fragment is also
  // part of every claim, and test/helpers/statements.ts records a builder used inside another only there.
  return sql<{ endpoint_id: string }>`${firstPendingEndpoint}`;
}

export function createWebhookDispatcher(deps: WebhookDispatcherDeps): WebhookDispatcher {
  const { db, clock, box, logger } = deps;
  const perEndpoint = Math.max(1, deps.perEndpoint ?? Math.floor(deps.concurrency / 4));
  const random = deps.random ?? Math.random;
  // A claim outlives the longest attempt; a worker that dies mid-attempt leaves it due again after this.
  // The attempt itself ends at timeoutMs (the sender's own deadline); the rest covers recording it.
  const leaseMs = 2 * deps.timeoutMs + 10 * SECOND;
  // Kept-alive connections, at most `perEndpoint` per endpoint address (ADR 0036).
  const sender = createWebhookSender({ socketsPerTarget: perEndpoint });
  const inFlight = new Map<string, number>();
  let running = 0;
  /** Slots freed (an endpoint's or the worker's) in this process so far. */
  let ended = 0;
  let stopping = false;
  /** Every claim and attempt under way in this process, whichever call started it. */
  const attempts = new Set<Promise<unknown>>();
  /** Whether this process's last claim took nothing: its next claim probes for anything pending first. */
  let lastClaimEmpty = true;

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

  /** Claims up to `slots` due deliveries (`dueCandidates`), at most `perEndpoint` in flight per endpoint. */
  async function claim(slots: number): Promise<Claim> {
    const none: Claim = { deliveries: [], taken: 0 };
    if (slots <= 0) return none;
    const now = clock.now();
    const leaseToken = newLeaseToken();
    // Endpoints this worker already has at its cap are not read at all: a backlog at one endpoint can
    // never fill the window and starve the others.
    const capped = [...inFlight].filter(([, busy]) => busy >= perEndpoint).map(([id]) => id);
    // An idle worker's poll, the usual one, finds nothing pending at all: one probe of the pending index
    // (`anyPendingQuery`) answers that, without the claim's transaction and skip scan. After a claim that
    // took something, the next goes straight to its transaction (a backlog pays no probe per round).
    if (lastClaimEmpty && (await anyPendingQuery().execute(db)).rows.length === 0) return none;
    const rows = await db.transaction().execute(async (trx) => {
      const candidates = await dueCandidates(trx, { now, perEndpoint, capped, slots });
      const taken = new Map(inFlight);
      const chosen: string[] = [];
      for (const candidate of candidates.rows) {
        const busy = taken.get(candidate.endpoint_id) ?? 0;
        if (busy >= perEndpoint) continue;
        taken.set(candidate.endpoint_id, busy + 1);
        chosen.push(candidate.id);
      }
      if (chosen.length === 0) return [];
      return (
        trx
          .updateTable('webhook_deliveries as d')
          .from('webhook_endpoints as w')
          .set({
            next_attempt_at: new Date(now.getTime() + leaseMs),
            lease_token: leaseToken,
            updated_at: now,
          })
          .whereRef('w.id', '=', 'd.endpoint_id')
          .where('d.id', 'in', chosen)
          // Again here, not only among the candidates: a secret switch committed between the two statements
          // pauses the endpoint, and its deliveries must then wait rather than go out in the pause signed
          // with the new secret alone (ADR 0068).
          .where((eb) => eb.or([eb('w.paused_until', 'is', null), eb('w.paused_until', '<=', now)]))
          .returning([
            'd.id',
            'd.endpoint_id',
            'd.attempts',
            'd.event_id',
            'd.organization_id',
            'd.environment',
            'd.next_attempt_at',
            'w.url',
            'w.enabled_events',
            'w.secret_enc',
            'w.previous_secret_enc',
            'w.previous_secret_expires_at',
          ])
          .execute()
      );
    });
    lastClaimEmpty = rows.length === 0;
    if (rows.length === 0) return none;
    const events = await deps.events.byIds(rows.map((row) => row.event_id));
    // The endpoint selected the kind when the event was fanned out to it, but may have dropped it since
    // (a retry waiting for hours, say): such a delivery is finished here, never sent. Checked on the rows
    // taken, so the claim itself still costs one probe per endpoint whatever its backlog (ADR 0036).
    const unselected = rows.filter((row) => {
      const event = events.get(row.event_id);
      return event !== undefined && !selectsKind(row.enabled_events, event.type);
    });
    if (unselected.length > 0) await finishUnselected(unselected, leaseToken, now);
    // One endpoint's secrets are opened once per claim.
    const secrets = new Map<string, { secret: string; previousSecret: string | null }>();
    const secretsOf = (row: (typeof rows)[number]) => {
      let opened = secrets.get(row.endpoint_id);
      if (opened === undefined) {
        opened = {
          secret: box.open(row.secret_enc),
          previousSecret:
            row.previous_secret_enc !== null &&
            row.previous_secret_expires_at !== null &&
            row.previous_secret_expires_at.getTime() > now.getTime()
              ? box.open(row.previous_secret_enc)
              : null,
        };
        secrets.set(row.endpoint_id, opened);
      }
      return opened;
    };
    // An event is never deleted while a delivery references it (foreign key), so each is found.
    const deliveries = rows.flatMap((row) => {
      const event = events.get(row.event_id);
      if (event === undefined || !selectsKind(row.enabled_events, event.type)) return [];
      return [
        {
          id: row.id,
          leaseToken,
          endpointId: row.endpoint_id,
          attempts: row.attempts,
          eventId: row.event_id,
          organizationId: row.organization_id,
          environment: row.environment,
          url: row.url,
          payload: event.payload,
          ...secretsOf(row),
        },
      ];
    });
    return { deliveries, taken: rows.length };
  }

  /**
   * Finishes (`failed`) claimed deliveries whose endpoint no longer selects their event's kind, each with a
   * log entry saying so (`event_type_not_selected`, no status code) so that the delivery log shows why it
   * stopped. Nothing was sent: the attempt count, the last attempt and the endpoint's health stay as they
   * were. Only while this claim still holds them (a manual retry in between takes them back).
   */
  async function finishUnselected(
    rows: ReadonlyArray<{
      id: string;
      endpoint_id: string;
      event_id: string;
      organization_id: string;
      environment: Environment;
      url: string;
    }>,
    leaseToken: string,
    now: Date,
  ): Promise<void> {
    const finished = await db.transaction().execute(async (trx) => {
      const ids = await trx
        .updateTable('webhook_deliveries')
        .set({ status: 'failed', lease_token: null, updated_at: now })
        .where(
          'id',
          'in',
          rows.map((row) => row.id),
        )
        .where('lease_token', '=', leaseToken)
        .where('status', '=', 'pending')
        .returning('id')
        .execute();
      const kept = new Set(ids.map((row) => row.id));
      const logged = rows.filter((row) => kept.has(row.id));
      if (logged.length === 0) return 0;
      await trx
        .insertInto('webhook_attempts')
        .values(
          logged.map((row) => ({
            id: newId('whd', now),
            delivery_id: row.id,
            event_id: row.event_id,
            endpoint_id: row.endpoint_id,
            organization_id: row.organization_id,
            environment: row.environment,
            url: row.url,
            succeeded: false,
            status_code: null,
            latency_ms: 0,
            error: KIND_NOT_SELECTED,
            response_excerpt: null,
            attempted_at: now,
          })),
        )
        .execute();
      return logged.length;
    });
    if (finished > 0) {
      logger.info({ finished }, 'finished webhook deliveries of kinds their endpoint no longer selects');
    }
  }

  /**
   * Sends one delivery and records its outcome. `answered` is called when the endpoint is done with it
   * (answer, error or timeout): its endpoint slot frees up then, while the outcome waits for its write.
   */
  async function attempt(delivery: Claimed, answered: () => void): Promise<void> {
    // The last moment before anything leaves this process: a stop from here on hands the delivery back.
    if (stopping) {
      await release([delivery]);
      return;
    }
    const attemptedAt = clock.now();
    const body = Buffer.from(JSON.stringify(delivery.payload));
    const timestamp = Math.floor(attemptedAt.getTime() / 1000);
    const outcome = await sender.send({
      url: delivery.url,
      body,
      headers: signatureHeaders(body, timestamp, {
        current: delivery.secret,
        previous: delivery.previousSecret,
      }),
      timeoutMs: deps.timeoutMs,
      resolver: deps.resolver,
      allowPrivate: privateTargetAllowed(delivery.url, deps),
    });
    answered();
    await record({ delivery, attemptedAt, outcome });
  }

  interface Finished {
    delivery: Claimed;
    attemptedAt: Date;
    outcome: AttemptOutcome;
  }
  /** Outcomes waiting for the next write, each with the callbacks of its attempt. */
  const unwritten: Array<Finished & { written: () => void; failed: (error: unknown) => void }> = [];
  let writing = false;

  /**
   * Records an outcome. Outcomes that end while a write is under way are written together in the next
   * one (one transaction for many attempts, ADR 0036): resolves once this one is committed.
   */
  function record(finished: Finished): Promise<void> {
    return new Promise<void>((written, failed) => {
      unwritten.push({ ...finished, written, failed });
      if (writing) return;
      writing = true;
      // A moment for the outcomes ending at about the same time to join the first one's write.
      setTimeout(() => void writeAll(), WRITE_GATHER_MS);
    });
  }

  async function writeAll(): Promise<void> {
    try {
      while (unwritten.length > 0) {
        const batch = unwritten.splice(0, WRITE_BATCH);
        try {
          await write(batch);
          for (const entry of batch) entry.written();
        } catch (error) {
          if (batch.length === 1) {
            batch[0]?.failed(error);
            continue;
          }
          // One outcome that cannot be written must not lose the others: each is written alone.
          for (const entry of batch) {
            await write([entry]).then(entry.written, entry.failed);
          }
        }
      }
    } finally {
      writing = false;
    }
  }

  /** The outcomes in one transaction, each as the single-attempt rules say (product decision 29). */
  async function write(batch: readonly Finished[]): Promise<void> {
    const disabled = await db.transaction().execute(async (trx) => {
      const now = clock.now();
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
          status === 'pending' ? new Date(now.getTime() + retryDelay(RETRY, attempts, random)) : null;
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
      for (const [endpointId, since] of failingAfterSuccess) {
        await trx
          .updateTable('webhook_endpoints')
          .set({ failing_since: since })
          .where('id', '=', endpointId)
          .execute();
      }
      for (const [endpointId, since] of failing) {
        await trx
          .updateTable('webhook_endpoints')
          .set({ failing_since: since })
          .where('id', '=', endpointId)
          .where('failing_since', 'is', null)
          .execute();
      }
      const failed = [...failing.keys(), ...failingAfterSuccess.keys()];
      return failed.length > 0 ? disableFailingIn(trx, failed) : 0;
    });
    if (disabled > 0) deps.mailer.nudge();
  }

  /** Disables endpoints (the ones given, or every one due) failing for 5 days; e-mails are queued in the same transaction. */
  async function disableFailingIn(trx: Trx, endpointIds?: readonly string[]): Promise<number> {
    const now = clock.now();
    let query = trx
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('status', '=', 'enabled')
      .where('deleted_at', 'is', null)
      .where('failing_since', '<=', new Date(now.getTime() - DISABLE_AFTER_MS))
      // A paused endpoint is not attempted, so it cannot recover meanwhile: it is not disabled while
      // paused, only if it still fails once its deliveries resume (ADR 0068).
      .where((eb) => eb.or([eb('paused_until', 'is', null), eb('paused_until', '<=', now)]))
      .limit(100)
      .forUpdate()
      .skipLocked();
    if (endpointIds !== undefined) query = query.where('id', 'in', [...endpointIds]);
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

  /** One claim and the start of its attempts: how many it sends, and how many rows it took in all. */
  async function round(onStarted: (work: Promise<void>) => void): Promise<{ sent: number; taken: number }> {
    if (stopping) return { sent: 0, taken: 0 };
    // The claim and the start of its attempts are one tracked step: a stop that arrives during the claim
    // finds every attempt (or hand-back) registered by the time the claim settles.
    const claiming = claim(deps.concurrency - running).then(({ deliveries, taken }) => {
      for (const delivery of deliveries) start(delivery, onStarted);
      return { sent: deliveries.length, taken };
    });
    attempts.add(claiming);
    return claiming.finally(() => attempts.delete(claiming));
  }

  function start(delivery: Claimed, onStarted: (work: Promise<void>) => void): void {
    // A slot of the worker is held until the outcome is written; one of the endpoint's, while the endpoint
    // has the request.
    running += 1;
    inFlight.set(delivery.endpointId, (inFlight.get(delivery.endpointId) ?? 0) + 1);
    let answered = false;
    const leaveEndpoint = () => {
      if (answered) return;
      answered = true;
      ended += 1;
      const left = (inFlight.get(delivery.endpointId) ?? 1) - 1;
      if (left <= 0) inFlight.delete(delivery.endpointId);
      else inFlight.set(delivery.endpointId, left);
      wakeAll();
    };
    const work = attempt(delivery, leaveEndpoint)
      .catch((error: unknown) =>
        logger.error({ err: error, deliveryId: delivery.id }, 'webhook attempt could not be recorded'),
      )
      .finally(() => {
        running -= 1;
        ended += 1;
        leaveEndpoint();
        attempts.delete(work);
        wakeAll();
      });
    attempts.add(work);
    onStarted(work);
  }

  /** Pumps waiting for a slot or for their next look. */
  const sleepers = new Set<() => void>();
  function wakeAll(): void {
    for (const wake of [...sleepers]) wake();
  }
  /** Resolves after `ms`, or sooner when a slot frees up, `signal` is aborted or the dispatcher stops. */
  function pause(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', wake);
        sleepers.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, Math.max(1, ms));
      signal?.addEventListener('abort', wake, { once: true });
      sleepers.add(wake);
    });
  }

  return {
    async deliverDue() {
      const started: Promise<void>[] = [];
      const { sent } = await round((work) => started.push(work));
      await Promise.all(started);
      return sent;
    },

    async pump(budgetMs = 10 * SECOND, signal?: AbortSignal, idlePollMs?: number) {
      const deadline = Date.now() + budgetMs;
      const pollMs = idlePollMs ?? BUSY_POLL_MS;
      // While its attempts are in flight, a pump claims for an eighth of the slots at least, not for each
      // one as it frees up.
      const minClaim = Math.max(1, Math.floor(deps.concurrency / 8));
      let mine = 0;
      let total = 0;
      for (;;) {
        // Past the budget it returns without waiting: attempts still in flight keep their slots (the next
        // run claims around them). A stop waits for them itself (stop()), up to the shutdown deadline.
        if (Date.now() >= deadline || stopping || signal?.aborted) return total;
        const free = deps.concurrency - running;
        if (free <= 0 || (free < minClaim && mine > 0)) {
          // (Nearly) every slot is taken: the next claim as soon as enough free up.
          await pause(deadline - Date.now(), signal);
          continue;
        }
        const endedBefore = ended;
        const { sent, taken } = await round((work) => {
          mine += 1;
          void work.finally(() => (mine -= 1));
        });
        total += sent;
        // A full round: there may be more due at once. Attempts that ended during the claim freed slots
        // (and uncapped endpoints) the claim did not see, and deliveries finished unsent (their kind no
        // longer selected) left their endpoint's window free: look again at once too.
        if (taken === free || taken > sent || ended !== endedBefore) continue;
        if (sent === 0 && mine === 0) {
          if (idlePollMs === undefined) return total;
          await pause(Math.min(idlePollMs, deadline - Date.now()), signal);
          continue;
        }
        // What is left due (if anything) waits for its endpoint's slots, or is not due yet: look again
        // when an attempt ends, or after a short while for new deliveries.
        await pause(Math.min(pollMs, deadline - Date.now()), signal);
      }
    },

    async stop(deadline = Number.POSITIVE_INFINITY) {
      stopping = true;
      wakeAll();
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
      } else {
        sender.close();
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
