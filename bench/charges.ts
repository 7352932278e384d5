/**
 * The charge endpoints of `npm run bench` (issue 16 item 5; docs/benchmarks.md "Charge creation"):
 * `POST /v1/charges` and `GET /v1/charges?limit=20` through the gateway, each beside the SQL ceiling of
 * the same request, as the `charges` table grows (all merchants together).
 *
 * For each size:
 * 1. A template database, migrated: BENCH_MERCHANTS organizations (the first one measured, its sandbox API
 *    key) and `size` charges spread over them, set-based, with idempotency keys (a third older than the
 *    24-hour window), references, e-mails, card digits and statuses as traffic leaves them; then VACUUM
 *    ANALYZE. Two copies of it (`CREATE DATABASE … TEMPLATE`): one for the ceilings, one for the endpoint,
 *    so that no phase leaves rows in the table another phase measures.
 * 2. The ceilings, on their copy: a gateway in the bench's process answers one warm-up and then one
 *    measured request of each kind while node-postgres's client records every statement it sends
 *    (authentication, the idempotency claim, the charge's phases, the stored outcome: all of them, in
 *    their transactions). Those statements are replayed through node-postgres, BENCH_CONNECTIONS loops
 *    for BENCH_DURATION_S, each creation with fresh ids, key and reference: the same durable work as the
 *    endpoint, without HTTP, JSON, the acquirer or Node's share of the gateway.
 * 3. The endpoint, on its copy: the built gateway in a process of its own (role api, a pool of
 *    BENCH_CONNECTIONS; the sandbox acquirer in a program of its own, bench/acquirer.ts) under autocannon:
 *    POST at full speed (with the CPU time each process used per answered request), POST at a fixed rate
 *    of half its ceiling (the latency the goal is about), then the list. Throughput counts 2xx only.
 */
import type autocannon from 'autocannon';
import os from 'node:os';
import pg from 'pg';
import { openDatabase } from '../src/db/database.js';
import { migrate, readMigrations } from '../src/db/migrator.js';
import { createLogger } from '../src/logger.js';
import { createKeyRequestLog } from '../src/modules/api-keys/request-log.js';
import { migrationsDir } from '../src/paths.js';
import { systemClock } from '../src/shared/clock.js';
import { newId } from '../src/shared/ids.js';
import { createFreshDatabase, dropDatabase, postgresServerUrl } from '../test/helpers/database.js';
import { createOrganization, issueKey } from '../test/helpers/merchants.js';
import {
  capture,
  load,
  paced,
  loop,
  cpuMeter,
  ratio,
  round,
  timed,
  withClient,
  type Measurement,
  type Statement,
} from './measure.js';
import { startRecordingGateway, withApiGateway } from './acquirer.js';
import { FRESH_TOKEN, letters } from './paced-load.js';

export interface ChargeBenchOptions {
  sizes: readonly number[];
  durationS: number;
  connections: number;
  /** Organizations the seeded charges are spread over (default 10); the first one is measured. */
  merchants?: number;
  /**
   * Measurements of the POST per size (default 1), each on fresh copies of the same seed: its ceiling, then
   * the endpoint. The figures printed are those of the run whose ratio is the median, beside every run's
   * (`runs`) and each figure's median (`medianOfRuns`). The GETs are measured on the first run only.
   */
  runs?: number;
}

const log = (message: string) => console.error(`[bench charges] ${message}`);

export { letters };

export const chargeBody = (reference: string) => ({
  amount: 12550,
  currency: 'TRY',
  paymentMethod: 'credit_card_tr',
  merchantReference: `bench-${reference}`,
});

export async function createDatabaseFrom(template: string): Promise<string> {
  const url = await createFreshDatabase();
  const name = new URL(url).pathname.slice(1);
  const source = new URL(template).pathname.slice(1);
  await withClient(postgresServerUrl, async (client) => {
    await client.query(`DROP DATABASE ${name}`);
    // FILE_COPY: the copy is not written to the WAL block by block (PostgreSQL 15's default), which at a
    // million charges would leave the measured phase behind gigabytes of WAL; then a checkpoint, so
    // that none is owed while it runs.
    await client.query(`CREATE DATABASE ${name} TEMPLATE ${source} STRATEGY FILE_COPY`);
    await client.query('CHECKPOINT');
  });
  return url;
}

/** `size` charges over `organizations` (ids in the order given), as traffic leaves them. */
async function seedCharges(url: string, organizations: readonly string[], size: number): Promise<void> {
  await withClient(url, async (client) => {
    const superuser = (await client.query<{ on: string }>(`SHOW is_superuser`)).rows[0]?.on === 'on';
    const chunk = 100_000;
    for (let from = 1; from <= size; from += chunk) {
      const to = Math.min(size, from + chunk - 1);
      await client.query('BEGIN');
      if (superuser) await client.query(`SET LOCAL session_replication_role = replica`);
      await client.query(
        `INSERT INTO charges (id, organization_id, environment, amount, currency, payment_method, merchant_reference,
           status, creation_state, idempotency_key, provider, provider_request, provider_payment_id,
           provider_status, customer_email, card_brand, card_last4, expires_at, created_at, updated_at)
         SELECT 'ch_seed' || lpad(i::text, 10, '0'), ($1::text[])[1 + i % array_length($1::text[], 1)],
           'sandbox', 1000 + (i::bigint * 7919) % 2000000, 'TRY',
           (ARRAY['credit_card_tr', 'credit_card_international', 'bank_transfer'])[1 + i % 3],
           'seed-' || i,
           CASE WHEN i % 100 = 0 THEN 'pending' WHEN i % 7 = 0 THEN 'failed' ELSE 'succeeded' END,
           CASE WHEN i % 50 = 0 THEN 'rejected' ELSE 'created' END,
           'seed-key-' || i, 'sandbox', '{}'::jsonb, 'pay_seed' || i,
           CASE WHEN i % 7 = 0 THEN 'failed' ELSE 'succeeded' END,
           CASE WHEN i % 10 = 0 THEN NULL ELSE 'customer' || (i % 9973) || '@shop.example' END,
           CASE WHEN i % 3 = 2 THEN NULL ELSE 'visa' END,
           CASE WHEN i % 3 = 2 THEN NULL ELSE lpad((i % 10000)::text, 4, '0') END,
           now() + interval '1 day',
           now() - (i % 72) * interval '1 hour' - (i % 3600) * interval '1 second',
           now() - (i % 72) * interval '1 hour'
         FROM generate_series($2::int, $3::int) AS i`,
        [organizations, from, to],
      );
      await client.query('COMMIT');
    }
    await client.query('VACUUM ANALYZE charges');
  });
}

/** A template database at `size` charges: the measured merchant's id and sandbox key secret. */
export async function template(size: number, merchants: number) {
  const url = await createFreshDatabase();
  const database = await openDatabase({ databaseUrl: url, poolSize: 2 });
  try {
    await migrate(database, readMigrations(migrationsDir));
    const organizations: string[] = [];
    for (let index = 0; index < merchants; index++)
      organizations.push(await createOrganization(database.db, systemClock, { name: `Bench ${index}` }));
    const measured = organizations[0] ?? '';
    const key = await issueKey(database.db, systemClock, measured, { scopes: ['all'] });
    const seeded = await timed(() => seedCharges(url, organizations, size));
    return { url, organizationId: measured, keyId: key.id, secret: key.secret, seedMs: seeded.ms };
  } catch (error) {
    await database.close();
    await dropDatabase(url);
    throw error;
  } finally {
    await database.close().catch(() => undefined);
  }
}

/** What one request sent, and the values it made up (replaced by fresh ones on each replay). */
interface Recorded {
  statements: Statement[];
  made: string[];
  transactions: number;
  /** The request as the gateway's per-key request log records it after the answer. */
  logged: { method: 'GET' | 'POST'; route: string; statusCode: number; resourceId: string | null };
}

/** The statements of one POST and of one list, captured on a gateway in this process. */
async function record(
  url: string,
  secret: string,
): Promise<{ post: Recorded; get: Recorded; list: Recorded }> {
  const gateway = await startRecordingGateway(url);
  try {
    const api = gateway.urls.sandboxApi ?? '';
    const headers = { 'x-api-key': secret, 'content-type': 'application/json' };
    const post = async () => {
      const key = letters();
      const reference = letters();
      const response = await fetch(`${api}/v1/charges`, {
        method: 'POST',
        headers: { ...headers, 'x-idempotency-key': key },
        body: JSON.stringify(chargeBody(reference)),
      });
      const text = await response.text();
      if (response.status !== 201) throw new Error(`POST /v1/charges answered ${response.status}: ${text}`);
      const charge = JSON.parse(text) as { id: string; providerPaymentId: string };
      return [key, `bench-${reference}`, charge.id, charge.providerPaymentId];
    };
    const list = async () => {
      const response = await fetch(`${api}/v1/charges?limit=20`, { headers });
      if (response.status !== 200) throw new Error(`GET /v1/charges answered ${response.status}`);
      await response.arrayBuffer();
      return [];
    };
    const [, , chargeId] = await post();
    const get = async () => {
      const response = await fetch(`${api}/v1/charges/${chargeId}`, { headers });
      if (response.status !== 200) throw new Error(`GET /v1/charges/{id} answered ${response.status}`);
      await response.arrayBuffer();
      return [];
    };
    await list();
    await get();
    // The request log's batch may be flushed while a request is recorded: the replay writes its own.
    const requestOf = async <T>(work: () => Promise<T>) => {
      const captured = await capture(work);
      return {
        ...captured,
        statements: captured.statements.filter(
          (statement) => !/^insert into "api_key_requests"/.test(statement.text),
        ),
      };
    };
    const posted = await requestOf(post);
    const got = await requestOf(get);
    const listed = await requestOf(list);
    const transactions = (statements: Statement[]) =>
      statements.filter((statement) => /^\s*begin\b/i.test(statement.text)).length;
    return {
      post: {
        statements: posted.statements,
        made: posted.value,
        transactions: transactions(posted.statements),
        // The created charge's id: replaced by each replay's own.
        logged: {
          method: 'POST',
          route: '/v1/charges',
          statusCode: 201,
          resourceId: posted.value[2] ?? null,
        },
      },
      get: {
        statements: got.statements,
        made: [],
        transactions: transactions(got.statements),
        logged: { method: 'GET', route: '/v1/charges/:id', statusCode: 200, resourceId: chargeId ?? null },
      },
      list: {
        statements: listed.statements,
        made: [],
        transactions: transactions(listed.statements),
        logged: { method: 'GET', route: '/v1/charges', statusCode: 200, resourceId: null },
      },
    };
  } finally {
    await gateway.close();
  }
}

const substituted = (value: string | null, pairs: ReadonlyArray<readonly [string, string]>) =>
  value === null ? null : (substitute(value, pairs) as string);

/** `value` with each made-up string replaced by its fresh counterpart. */
function substitute(value: unknown, pairs: ReadonlyArray<readonly [string, string]>): unknown {
  if (typeof value !== 'string') return value;
  let text = value;
  for (const [from, to] of pairs) text = text.split(from).join(to);
  return text;
}

/** The recorded statements replayed `connections` at a time, fresh made-up values on each replay. */
async function replay(
  url: string,
  recorded: Recorded,
  caller: { keyId: string; organizationId: string },
  durationS: number,
  connections: number,
) {
  const pool = new pg.Pool({ connectionString: url, max: connections });
  // The gateway's own request log (src/modules/api-keys/request-log.ts), batched as the gateway batches
  // it: a row per request is durable work of the endpoint that no recording catches (it is written up
  // to a second after the answer).
  const database = await openDatabase({ databaseUrl: url, poolSize: 2 });
  const requestLog = createKeyRequestLog({
    db: database.db,
    logger: createLogger({ level: 'warn', destination: process.stderr }),
  });
  // An idle connection the server ends (the copy dropped WITH (FORCE) right after) must not crash the
  // bench, as it must not crash the gateway (src/db/hosts.ts).
  pool.on('error', () => undefined);
  try {
    // Every connection opened first, so the CPU count below has no connection start-ups in it.
    const clients = await Promise.all(Array.from({ length: connections }, () => pool.connect()));
    for (const client of clients) client.release();
    const logRows = async () =>
      Number((await pool.query<{ n: string }>('select count(*) as n from api_key_requests')).rows[0]?.n ?? 0);
    const logRowsBefore = await logRows();
    const cpu = cpuMeter({ client: process.pid });
    const measured = await loop(
      async () => {
        const fresh = recorded.made.map((made) =>
          made.startsWith('ch_')
            ? newId('ch', new Date())
            : made.startsWith('pay_')
              ? `pay_${letters(13)}`
              : made.startsWith('bench-')
                ? `bench-${letters()}`
                : letters(),
        );
        const pairs = recorded.made.map((made, index) => [made, fresh[index] ?? made] as const);
        const client = await pool.connect();
        try {
          for (const statement of recorded.statements)
            await client.query(
              statement.text,
              statement.values.map((value) => substitute(value, pairs)),
            );
          requestLog.record({
            ...caller,
            environment: 'sandbox',
            ...recorded.logged,
            resourceId: substituted(recorded.logged.resourceId, pairs),
            requestId: newId('req'),
            ip: '127.0.0.1',
            at: new Date(),
          });
          return true;
        } catch (error) {
          await client.query('ROLLBACK').catch(() => undefined);
          throw error;
        } finally {
          client.release();
        }
      },
      durationS,
      connections,
    );
    // `client`: this process, node-postgres sending the statements.
    const cpuMsPerRequest = cpu.perRequest(measured.total);
    await requestLog.close(); // the queued rows written, so that they can be counted
    return { ...measured, cpuMsPerRequest, requestLogRows: (await logRows()) - logRowsBefore };
  } finally {
    await requestLog.close(); // on a failure; after the close above it has nothing left to write
    await database.close();
    await pool.end();
  }
}

export const shapes = (statements: Statement[]) =>
  statements.map((statement) => statement.text.replace(/\s+/g, ' ').slice(0, 90));

async function endpoint(
  url: string,
  secret: string,
  options: { durationS: number; connections: number; ceiling: number; lists: boolean },
) {
  return withApiGateway(
    { DATABASE_URL: url, DATABASE_POOL_SIZE: String(options.connections) },
    async (gateway, urls, acquirer) => {
      const api = urls.sandboxApi ?? '';
      const headers = { 'x-api-key': secret, 'content-type': 'application/json' };
      const posting: autocannon.Options = {
        url: api,
        connections: options.connections,
        duration: options.durationS,
        requests: [
          {
            method: 'POST',
            path: '/v1/charges',
            setupRequest: (request) => {
              const reference = letters();
              request.headers = { ...headers, 'x-idempotency-key': letters() };
              request.body = JSON.stringify(chargeBody(reference));
              return request;
            },
          },
        ],
      };
      // A few requests first: the gateway's first requests compile and connect.
      await load({ ...posting, duration: 2 });
      const cpu = cpuMeter({ gateway: gateway.child.pid, acquirer: acquirer.pid });
      const post = await load(posting);
      const cpuMsPerRequest = cpu.perRequest(post.requestsPerSecond * options.durationS);
      // At a steady rate (`paced`: autocannon's fixed rate comes in bursts each second): half the ceiling,
      // the issue's goal; and half of the endpoint's own maximum, just measured (the usual way to state a
      // latency at a load a deployment would run at, whatever the SQL alone could do).
      const postPacedAt = (rate: number) =>
        paced({
          url: `${api}/v1/charges`,
          method: 'POST',
          request: {
            headers: { ...headers, 'x-idempotency-key': FRESH_TOKEN },
            body: JSON.stringify(chargeBody(FRESH_TOKEN)),
          },
          rate: Math.max(1, rate),
          durationS: options.durationS,
          connections: options.connections,
        });
      // Half the maximum first: at half the ceiling the endpoint may be past its maximum, and the backlog it
      // works off must not be measured as the lighter load's.
      const paceCpu = cpuMeter({ gateway: gateway.child.pid, acquirer: acquirer.pid });
      const pacedAtHalfItsMaximum = await postPacedAt(post.requestsPerSecond / 2);
      const postAtHalfItsMaximum = {
        rate: round(post.requestsPerSecond / 2),
        ...pacedAtHalfItsMaximum,
        // `machine` includes the load generator's process here.
        cpuMsPerRequest: paceCpu.perRequest(pacedAtHalfItsMaximum.total - pacedAtHalfItsMaximum.errors),
      };
      // A quarter of the ceiling: half of the throughput the goal asks for (0.5 of the ceiling), the load
      // at which the goal's p99 is read (docs/benchmarks.md, "Which load the goal's p99 is read at").
      const postAtAQuarterOfTheCeiling = await postPacedAt(options.ceiling / 4);
      const postAtHalfCeiling = await postPacedAt(options.ceiling / 2);
      // The same load as autocannon's fixed rate gives it, for comparison with the earlier figures.
      const postAtHalfCeilingInBursts = await load({
        ...posting,
        overallRate: Math.max(1, Math.round(options.ceiling / 2)),
      });
      const lists = options.lists ? await measureLists(api, headers, options) : undefined;
      return {
        post,
        postAtAQuarterOfTheCeiling,
        postAtHalfCeiling,
        postAtHalfItsMaximum,
        postAtHalfCeilingInBursts,
        lists,
        cpuMsPerRequest,
      };
    },
  );
}

/** `GET /v1/charges?limit=20`, then `GET /v1/charges/{id}` of the first charge it lists. */
async function measureLists(
  api: string,
  headers: Record<string, string>,
  options: { durationS: number; connections: number },
) {
  const list = await load({
    url: `${api}/v1/charges?limit=20`,
    headers,
    connections: options.connections,
    duration: options.durationS,
  });
  const first = (await (await fetch(`${api}/v1/charges?limit=1`, { headers })).json()) as {
    data: Array<{ id: string }>;
  };
  const get = await load({
    url: `${api}/v1/charges/${first.data[0]?.id ?? 'ch_missing'}`,
    headers,
    connections: options.connections,
    duration: options.durationS,
  });
  return { get, list };
}

/** One measurement of a size on fresh copies of its seed: the ceilings, then the endpoints. */
async function measureOnce(
  seed: Awaited<ReturnType<typeof template>>,
  size: number,
  options: ChargeBenchOptions,
  lists: boolean,
) {
  const ceilingUrl = await createDatabaseFrom(seed.url);
  let recorded: Awaited<ReturnType<typeof record>>;
  let postCeiling: Measurement;
  let listCeilings: { get: Measurement; list: Measurement } | undefined;
  try {
    log(`size ${size}: recording one request of each kind, then the SQL ceilings`);
    recorded = await record(ceilingUrl, seed.secret);
    const caller = { keyId: seed.keyId, organizationId: seed.organizationId };
    postCeiling = await replay(ceilingUrl, recorded.post, caller, options.durationS, options.connections);
    if (lists) {
      listCeilings = {
        get: await replay(ceilingUrl, recorded.get, caller, options.durationS, options.connections),
        list: await replay(ceilingUrl, recorded.list, caller, options.durationS, options.connections),
      };
    }
  } finally {
    await dropDatabase(ceilingUrl);
  }
  const endpointUrl = await createDatabaseFrom(seed.url);
  try {
    log(`size ${size}: the endpoints`);
    const measured = await endpoint(endpointUrl, seed.secret, {
      durationS: options.durationS,
      connections: options.connections,
      ceiling: postCeiling.requestsPerSecond,
      lists,
    });
    return { recorded, postCeiling, ceilings: listCeilings, measured };
  } finally {
    await dropDatabase(endpointUrl);
  }
}

/** The figures of one run that `runs` and `medianOfRuns` compare. */
function summaryOf(run: Awaited<ReturnType<typeof measureOnce>>) {
  const { measured, postCeiling } = run;
  return {
    requestsPerSecond: measured.post.requestsPerSecond,
    sqlCeiling: postCeiling.requestsPerSecond,
    ratioToSqlCeiling: ratio(measured.post.requestsPerSecond, postCeiling.requestsPerSecond) ?? 0,
    gatewayCpuMsPerRequest: measured.cpuMsPerRequest.gateway ?? 0,
    machineCpuMsPerRequest: measured.cpuMsPerRequest.machine ?? 0,
    p99AtAQuarterOfTheCeilingMs: measured.postAtAQuarterOfTheCeiling.p99Ms,
    p99AtHalfItsMaximumMs: measured.postAtHalfItsMaximum.p99Ms,
    p99AtHalfTheCeilingMs: measured.postAtHalfCeiling.p99Ms,
  };
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? 0)
    : round(((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2);
};

export async function benchCharges(options: ChargeBenchOptions) {
  const sizes = [...new Set(options.sizes)].sort((a, b) => a - b);
  const merchants = options.merchants ?? 10;
  const runCount = Math.max(1, Math.floor(options.runs ?? 1));
  const results = [];
  for (const size of sizes) {
    log(`size ${size}: seeding`);
    const seed = await template(size, merchants);
    const loadAtStart = os.loadavg().map(round);
    try {
      const runs: Array<Awaited<ReturnType<typeof measureOnce>>> = [];
      for (let index = 0; index < runCount; index++) {
        if (runCount > 1) log(`size ${size}: run ${index + 1} of ${runCount}`);
        runs.push(await measureOnce(seed, size, options, index === 0));
      }
      const summaries = runs.map(summaryOf);
      const medianRatio = median(summaries.map((summary) => summary.ratioToSqlCeiling));
      // The run whose ratio is the median (the lower middle one for an even count): its figures are
      // printed whole, so that they belong together.
      const chosen =
        runs[
          summaries
            .map((summary, index) => ({ distance: Math.abs(summary.ratioToSqlCeiling - medianRatio), index }))
            .sort((a, b) => a.distance - b.distance || a.index - b.index)[0]?.index ?? 0
        ] ?? runs[0];
      const first = runs[0];
      const firstLists = first?.measured.lists;
      if (!chosen || !first?.ceilings || !firstLists) throw new Error('no run measured');
      const { recorded, postCeiling, measured } = chosen;
      const medianOfRuns = Object.fromEntries(
        (Object.keys(summaries[0] ?? {}) as Array<keyof ReturnType<typeof summaryOf>>).map((name) => [
          name,
          median(summaries.map((summary) => summary[name])),
        ]),
      );
      results.push({
        charges: size,
        seedMs: seed.seedMs,
        loadAverage: { start: loadAtStart, end: os.loadavg().map(round) },
        'POST /v1/charges': {
          ...measured.post,
          sqlCeiling: postCeiling,
          ratioToSqlCeiling: ratio(measured.post.requestsPerSecond, postCeiling.requestsPerSecond),
          cpuMsPerRequest: measured.cpuMsPerRequest,
          atAQuarterOfTheCeiling: {
            rate: round(postCeiling.requestsPerSecond / 4),
            ...measured.postAtAQuarterOfTheCeiling,
          },
          atHalfTheCeiling: { rate: round(postCeiling.requestsPerSecond / 2), ...measured.postAtHalfCeiling },
          atHalfItsMaximum: measured.postAtHalfItsMaximum,
          atHalfTheCeilingInAutocannonBursts: measured.postAtHalfCeilingInBursts,
          statements: recorded.post.statements.length,
          transactions: recorded.post.transactions,
          statementShapes: shapes(recorded.post.statements),
          ...(runCount > 1 ? { runs: summaries, medianOfRuns } : {}),
        },
        'GET /v1/charges/{id}': {
          ...firstLists.get,
          sqlCeiling: first.ceilings.get,
          ratioToSqlCeiling: ratio(firstLists.get.requestsPerSecond, first.ceilings.get.requestsPerSecond),
          statements: first.recorded.get.statements.length,
        },
        'GET /v1/charges?limit=20': {
          ...firstLists.list,
          sqlCeiling: first.ceilings.list,
          ratioToSqlCeiling: ratio(firstLists.list.requestsPerSecond, first.ceilings.list.requestsPerSecond),
          statements: first.recorded.list.statements.length,
          statementShapes: shapes(first.recorded.list.statements),
        },
      });
    } finally {
      await dropDatabase(seed.url);
    }
  }
  return results;
}
