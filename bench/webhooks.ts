/**
 * The webhook figures of `npm run bench` (issue 16 item 5, ADR 0036, docs/benchmarks.md "Webhooks"):
 *
 * 1. The ceiling: a plain keep-alive receiver (bench/webhook-receiver.ts, node:http in a process of its
 *    own, answering 200) under autocannon POSTing a delivery-sized body over `connections` kept-alive
 *    connections: the most any sender could get out of it on this machine.
 * 2. The drain: a gateway worker process (`ROLES=api,worker`, default webhook settings) on a fresh
 *    database, `endpoints` endpoints of one merchant created through the API, all pointing at that
 *    receiver; then a backlog of `backlog` deliveries (events and their deliveries, due now, written in one
 *    transaction as the fan-out writes them). The figure is the time from that commit until every delivery
 *    is `succeeded` in the database, and deliveries/s over it; only 200 answers count (a delivery succeeds
 *    on a 200 only, and the receiver's own count of distinct events is checked against it).
 * 3. The latency: events committed at `paymentsPerSecond` for `durationS` seconds (one event and one
 *    delivery to the first endpoint per transaction, as a charge's completion writes them), and for each
 *    the time from its commit to its arrival at the receiver (first attempt): p50, p99, max.
 * 4. The claim cost: with the worker stopped, `dueCandidates` (the claim's statement) with 1k and then 100k
 *    deliveries due, median of `claims` runs each in a transaction rolled back, beside the statement the
 *    claim used before (a window over every due delivery, ranked per endpoint), and the indexes and rows
 *    of each plan (EXPLAIN ANALYZE).
 */
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { sql, type RawBuilder } from 'kysely';
import { openDatabase, type Kdb } from '../src/db/database.js';
import { migrate, readMigrations } from '../src/db/migrator.js';
import { dueCandidates, dueCandidatesQuery } from '../src/modules/webhooks/claim.js';
import { migrationsDir } from '../src/paths.js';
import { systemClock } from '../src/shared/clock.js';
import { createFreshDatabase, dropDatabase } from '../test/helpers/database.js';
import { createOrganization, issueKey } from '../test/helpers/merchants.js';
import { gatewayEnv, spawnGateway, type GatewayProcess } from '../test/helpers/process.js';
import { load, round } from './measure.js';
import { spawnListening } from './spawn.js';

export interface WebhookBenchOptions {
  durationS: number;
  connections: number;
  /** Deliveries in the drained backlog (default 20 000). */
  backlog?: number;
  /** Endpoints of the merchant, all at the receiver (default 4). */
  endpoints?: number;
  /** Events committed per second in the latency phase (default 150). */
  paymentsPerSecond?: number;
  /** Runs of each claim statement per size (default 30). */
  claims?: number;
}

const log = (message: string) => console.error(`[bench webhooks] ${message}`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const spawnReceiver = () => spawnListening('webhook-receiver.ts', 'webhook receiver');

const percentile = (sorted: readonly number[], q: number) =>
  round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0);

/** A payload of the size a charge event has. */
function payloadOf(eventId: string, chargeId: string, now: Date) {
  return {
    id: eventId,
    eventType: 'charge.succeeded',
    createdAt: now.toISOString(),
    livemode: false,
    data: {
      id: chargeId,
      amount: 12550,
      currency: 'TRY',
      status: 'succeeded',
      paymentMethod: 'credit_card_tr',
      merchantReference: `bench-${chargeId}`,
      metadata: { order: chargeId },
      createdAt: now.toISOString(),
    },
    payment: { id: chargeId, paymentId: `pay_${chargeId}`, merchantReference: `bench-${chargeId}` },
  };
}

/** `count` events of the organization, each with one delivery per endpoint given, due now, in one transaction. */
async function writeEvents(
  db: Kdb,
  organizationId: string,
  endpointIds: readonly string[],
  count: number,
): Promise<string[]> {
  const now = new Date();
  const ids: string[] = [];
  await db.transaction().execute(async (trx) => {
    for (let offset = 0; offset < count; offset += 1000) {
      const events = Array.from({ length: Math.min(1000, count - offset) }, () => {
        const tag = randomUUID().replace(/-/g, '');
        return { id: `evt_${tag}`, chargeId: `ch_${tag}` };
      });
      ids.push(...events.map((event) => event.id));
      await trx
        .insertInto('events')
        .values(
          events.map((event) => ({
            id: event.id,
            organization_id: organizationId,
            environment: 'sandbox' as const,
            type: 'charge.succeeded',
            resource_id: event.chargeId,
            payload: JSON.stringify(payloadOf(event.id, event.chargeId, now)),
            created_at: now,
          })),
        )
        .execute();
      await trx
        .insertInto('webhook_deliveries')
        .values(
          events.flatMap((event) =>
            endpointIds.map((endpointId) => ({
              id: `whd_${randomUUID().replace(/-/g, '')}`,
              event_id: event.id,
              endpoint_id: endpointId,
              organization_id: organizationId,
              environment: 'sandbox' as const,
              status: 'pending' as const,
              next_attempt_at: now,
              created_at: now,
              updated_at: now,
            })),
          ),
        )
        .execute();
    }
  });
  return ids;
}

async function count(db: Kdb, status: 'pending' | 'succeeded' | 'failed'): Promise<number> {
  const row = await db
    .selectFrom('webhook_deliveries')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('status', '=', status)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

async function arrivals(receiverUrl: string): Promise<Record<string, number>> {
  return (await (await fetch(`${receiverUrl}/arrivals`)).json()) as Record<string, number>;
}

/** The claim statement before issue 16: every due delivery ranked per endpoint, then sorted. */
const previousClaim = (now: Date, perEndpoint: number, slots: number) => sql`
  select id, endpoint_id from webhook_deliveries
  where id in (
    select ranked.id from (
      select d.id, d.next_attempt_at,
             row_number() over (partition by d.endpoint_id order by d.next_attempt_at, d.id) as rank
      from webhook_deliveries d join webhook_endpoints w on w.id = d.endpoint_id
      where d.status = 'pending' and d.next_attempt_at <= ${now} and w.status = 'enabled'
        and w.deleted_at is null
    ) as ranked
    where ranked.rank <= ${perEndpoint}
    order by ranked.next_attempt_at
    limit ${slots * 4}
  )
  and status = 'pending' and next_attempt_at <= ${now}
  order by next_attempt_at
  for update skip locked`;

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  Plans?: PlanNode[];
}
const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];

/** Median and p99 of `runs` runs of `statement` in transactions rolled back; the plan of one more. */
async function timeClaim(
  db: Kdb,
  statement: (trx: Parameters<typeof dueCandidates>[0]) => Promise<unknown>,
  explain: () => RawBuilder<unknown>,
  runs: number,
) {
  const samples: number[] = [];
  for (let index = 0; index < runs + 3; index++) {
    const started = performance.now();
    await db
      .transaction()
      .execute(async (trx) => {
        await statement(trx);
        throw new RollBack();
      })
      .catch((error: unknown) => {
        if (!(error instanceof RollBack)) throw error;
      });
    if (index >= 3) samples.push(performance.now() - started);
  }
  samples.sort((a, b) => a - b);
  const planned = await sql<{ 'QUERY PLAN': unknown }>`explain (analyze, format json) ${explain()}`.execute(
    db,
  );
  const cell = planned.rows[0]?.['QUERY PLAN'];
  const plan = (typeof cell === 'string' ? JSON.parse(cell) : cell) as Array<{
    Plan: PlanNode;
    'Execution Time': number;
  }>;
  const nodes = nodesOf(plan[0]!.Plan);
  const text = await sql<{
    'QUERY PLAN': string;
  }>`explain (analyze, costs off, timing off) ${explain()}`.execute(db);
  return {
    plan: text.rows.map((row) => row['QUERY PLAN']),
    medianMs: percentile(samples, 0.5),
    p99Ms: percentile(samples, 0.99),
    runs,
    executionMs: round(plan[0]!['Execution Time']),
    indexes: [...new Set(nodes.flatMap((node) => (node['Index Name'] ? [node['Index Name']] : [])))],
    seqScans: nodes.filter((node) => node['Node Type'] === 'Seq Scan').length,
    rowsRead: nodes
      .filter((node) => /Scan/.test(node['Node Type']))
      .reduce((sum, node) => sum + (node['Actual Rows'] ?? 0) * (node['Actual Loops'] ?? 1), 0),
  };
}

class RollBack extends Error {}

export async function benchWebhooks(options: WebhookBenchOptions) {
  const backlog = options.backlog ?? 20_000;
  const endpointCount = options.endpoints ?? 4;
  const rate = options.paymentsPerSecond ?? 150;
  const claims = options.claims ?? 30;
  const databaseUrl = await createFreshDatabase();
  let gateway: GatewayProcess | undefined;
  let receiver: ChildProcess | undefined;
  const database = await openDatabase({ databaseUrl, poolSize: 16 });
  try {
    await migrate(database, readMigrations(migrationsDir));
    const db = database.db;
    const organizationId = await createOrganization(db, systemClock, { name: 'Webhook bench merchant' });
    const key = await issueKey(db, systemClock, organizationId, { scopes: ['all'] });

    const started = await spawnReceiver();
    receiver = started.child;
    const receiverUrl = started.url;
    log('the receiver ceiling');
    const sample = JSON.stringify(payloadOf('evt_ceiling', 'ch_ceiling', new Date()));
    const ceiling = await load({
      url: `${receiverUrl}/ceiling`,
      method: 'POST',
      body: sample,
      headers: { 'content-type': 'application/json' },
      duration: options.durationS,
      connections: options.connections,
    });

    gateway = spawnGateway({
      env: gatewayEnv({
        ROLES: 'api,worker,sandbox-acquirer',
        DATABASE_URL: databaseUrl,
        WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
        // Settlement and reconciliation stay off: only the webhook jobs have work.
        SETTLEMENT_CRON: 'off',
        RECONCILIATION_CRON: 'off',
      }),
    });
    const urls = await gateway.waitForBanner(90_000);
    const endpointIds: string[] = [];
    for (let index = 0; index < endpointCount; index++) {
      const res = await fetch(`${urls.sandboxApi}/v1/webhook-endpoints`, {
        method: 'POST',
        headers: { 'x-api-key': key.secret, 'content-type': 'application/json' },
        body: JSON.stringify({ url: `${receiverUrl}/hooks/${index}`, enabledEvents: ['*'] }),
      });
      if (res.status !== 201)
        throw new Error(`endpoint creation answered ${res.status}: ${await res.text()}`);
      endpointIds.push(((await res.json()) as { id: string }).id);
    }

    log(`drain of ${backlog} deliveries over ${endpointCount} endpoints`);
    await fetch(`${receiverUrl}/arrivals`, { method: 'DELETE' });
    const perEndpoint = Math.ceil(backlog / endpointCount);
    const committed = performance.now();
    await writeEvents(db, organizationId, endpointIds, perEndpoint);
    const written = perEndpoint * endpointCount;
    const drainStarted = performance.now();
    let succeeded = 0;
    const drainDeadline = drainStarted + 600_000;
    while (performance.now() < drainDeadline) {
      succeeded = await count(db, 'succeeded');
      if (succeeded >= written) break;
      await sleep(50);
    }
    const drainS = (performance.now() - drainStarted) / 1000;
    const received = Object.keys(await arrivals(receiverUrl)).length;
    const drain = {
      deliveries: written,
      succeeded,
      failed: await count(db, 'failed'),
      distinctEventsReceived: received,
      writeSeconds: round((drainStarted - committed) / 1000),
      drainSeconds: round(drainS),
      deliveriesPerSecond: round(succeeded / drainS),
    };

    log(`commit to first attempt at ${rate} events/s for ${options.durationS} s`);
    await fetch(`${receiverUrl}/arrivals`, { method: 'DELETE' });
    const commits = new Map<string, number>();
    const phaseStarted = performance.now();
    const total = Math.round(rate * options.durationS);
    // Each event in a transaction of its own, started on time whether or not the previous one has committed.
    const writes: Promise<void>[] = [];
    for (let index = 0; index < total; index++) {
      const due = phaseStarted + (index * 1000) / rate;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      writes.push(
        writeEvents(db, organizationId, endpointIds.slice(0, 1), 1).then(([eventId]) => {
          commits.set(`/hooks/0 ${eventId}`, performance.timeOrigin + performance.now());
        }),
      );
    }
    await Promise.all(writes);
    const offeredPerSecond = round(total / ((performance.now() - phaseStarted) / 1000));
    const latencyDeadline = performance.now() + 60_000;
    let seen: Record<string, number> = {};
    while (performance.now() < latencyDeadline) {
      seen = await arrivals(receiverUrl);
      if ([...commits.keys()].every((id) => seen[id] !== undefined)) break;
      await sleep(100);
    }
    const latencies = [...commits]
      .flatMap(([id, at]) => (seen[id] === undefined ? [] : [Math.max(0, seen[id] - at)]))
      .sort((a, b) => a - b);
    const latency = {
      events: total,
      offeredPerSecond,
      arrived: latencies.length,
      p50Ms: percentile(latencies, 0.5),
      p99Ms: percentile(latencies, 0.99),
      maxMs: round(latencies.at(-1) ?? 0),
    };

    gateway.child.kill('SIGTERM');
    await gateway.waitForExit(30_000);
    gateway = undefined;

    log('claim cost at 1k and 100k due');
    const claim: Record<string, unknown> = {};
    const settings = { perEndpoint: 32, slots: 128 };
    // Left from the phases above: none due. Then 1k due, then grown to 100k due.
    for (const size of [1_000, 100_000]) {
      const due = await count(db, 'pending');
      await writeEvents(db, organizationId, endpointIds, Math.ceil((size - due) / endpointCount));
      // As the other sections do (autovacuum may be off on the server): the figure is the steady state, not
      // the dead index entries the drain left behind (which the first scans after it would mark and skip).
      await sql`vacuum analyze webhook_deliveries`.execute(db);
      const now = new Date();
      claim[`${size} due`] = {
        pending: await count(db, 'pending'),
        dueCandidates: await timeClaim(
          db,
          (trx) => dueCandidates(trx, { now, capped: [], ...settings }),
          () => dueCandidatesQuery({ now, capped: [], ...settings }),
          claims,
        ),
        previousClaim: await timeClaim(
          db,
          (trx) => previousClaim(now, settings.perEndpoint, settings.slots).execute(trx),
          () => previousClaim(now, settings.perEndpoint, settings.slots),
          Math.min(claims, 10),
        ),
      };
    }

    return {
      settings: {
        backlog,
        endpoints: endpointCount,
        eventsPerSecond: rate,
        durationSeconds: options.durationS,
        gateway: 'one process, ROLES=api,worker, default WEBHOOK_CONCURRENCY and WEBHOOK_PER_ENDPOINT',
      },
      ceiling: { 'receiver under autocannon (keep-alive)': ceiling },
      drain: {
        ...drain,
        ratioToReceiverCeiling:
          ceiling.requestsPerSecond === 0
            ? null
            : round(drain.deliveriesPerSecond / ceiling.requestsPerSecond),
      },
      commitToFirstAttempt: latency,
      claim,
    };
  } finally {
    if (gateway && !gateway.exited) {
      gateway.child.kill('SIGTERM');
      await gateway.waitForExit(30_000).catch(() => gateway?.child.kill('SIGKILL'));
    }
    receiver?.kill('SIGTERM');
    await database.close();
    await dropDatabase(databaseUrl);
  }
}
