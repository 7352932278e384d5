import { sql } from 'kysely';
import type { Trx } from '../../db/database.js';
import type { Environment } from '../../db/schema.js';
import { newId } from '../../shared/ids.js';
import { newLeaseToken } from '../../worker/queue.js';
import type { Claimed, DispatcherState, WebhookDispatcherDeps } from './dispatcher-types.js';
import { selectsKind } from './model.js';

/**
 * The logged `error` of a delivery finished unsent because its endpoint no longer selects the event's kind
 * (its `enabledEvents` changed after the event was fanned out to it).
 */
export const KIND_NOT_SELECTED = 'event_type_not_selected';

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

/** Gives claimed, unsent deliveries back: due now, no lease, so nobody waits for the lease to lapse. */
export async function release(
  deps: Pick<WebhookDispatcherDeps, 'db' | 'clock' | 'logger'>,
  deliveries: Claimed[],
): Promise<void> {
  if (deliveries.length === 0) return;
  const now = deps.clock.now();
  for (const delivery of deliveries) {
    await deps.db
      .updateTable('webhook_deliveries')
      .set({ next_attempt_at: now, lease_token: null, updated_at: now })
      .where('id', '=', delivery.id)
      .where('lease_token', '=', delivery.leaseToken)
      .where('status', '=', 'pending')
      .execute();
  }
  deps.logger.info({ released: deliveries.length }, 'released unsent webhook deliveries for shutdown');
}

/** Claims up to `slots` due deliveries (`dueCandidates`), at most `perEndpoint` in flight per endpoint. */
export async function claim(
  deps: WebhookDispatcherDeps,
  state: DispatcherState,
  slots: number,
): Promise<Claim> {
  const { db, box } = deps;
  const { inFlight, perEndpoint } = state;
  const none: Claim = { deliveries: [], taken: 0 };
  if (slots <= 0) return none;
  const now = deps.clock.now();
  const leaseToken = newLeaseToken();
  // Endpoints this worker already has at its cap are not read at all: a backlog at one endpoint can
  // never fill the window and starve the others.
  const capped = [...inFlight].filter(([, busy]) => busy >= perEndpoint).map(([id]) => id);
  // An idle worker's poll, the usual one, finds nothing pending at all: one probe of the pending index
  // (`anyPendingQuery`) answers that, without the claim's transaction and skip scan. After a claim that
  // took something, the next goes straight to its transaction (a backlog pays no probe per round).
  if (state.lastClaimEmpty && (await anyPendingQuery().execute(db)).rows.length === 0) return none;
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
          next_attempt_at: new Date(now.getTime() + state.leaseMs),
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
  state.lastClaimEmpty = rows.length === 0;
  if (rows.length === 0) return none;
  const events = await deps.events.byIds(rows.map((row) => row.event_id));
  // The endpoint selected the kind when the event was fanned out to it, but may have dropped it since
  // (a retry waiting for hours, say): such a delivery is finished here, never sent. Checked on the rows
  // taken, so the claim itself still costs one probe per endpoint whatever its backlog (ADR 0036).
  const unselected = rows.filter((row) => {
    const event = events.get(row.event_id);
    return event !== undefined && !selectsKind(row.enabled_events, event.type);
  });
  if (unselected.length > 0) await finishUnselected(deps, unselected, leaseToken, now);
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
  deps: Pick<WebhookDispatcherDeps, 'db' | 'logger'>,
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
  const finished = await deps.db.transaction().execute(async (trx) => {
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
    deps.logger.info({ finished }, 'finished webhook deliveries of kinds their endpoint no longer selects');
  }
}
