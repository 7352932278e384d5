/**
 * Issue 16 item 5, decision 0038: an instance trusts a reading of the auth epoch for a lease instead of
 * reading it on every request, and every change that moves the epoch waits out a lease before it
 * commits, so that a revocation that returned still fails the very next request on every process.
 * - the statements: a request on a cached key sends its route's statements and no epoch read while the
 *   lease runs; the writer's wait is what makes that safe (negative control);
 * - the processes: two gateway programs sharing one PostgreSQL database (one program on PGlite, whose
 *   database belongs to one process): revoke on one, the next request on the other is refused.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../src/db/database.js';
import { migrate, readMigrations } from '../src/db/migrator.js';
import { LEASE_TRUST, leasedEpoch } from '../src/modules/api-keys/authenticator.js';
import { migrationsDir } from '../src/paths.js';
import { systemClock } from '../src/shared/clock.js';
import { programTargets, tempDir, withDatabase, type Cleanups } from './helpers/crash.js';
import { onPostgres } from './helpers/database.js';
import type { TestGateway } from './helpers/gateway.js';
import { request, type ErrorBody } from './helpers/http.js';
import { createMerchant, createOrganization, issueKey, revokeKeyInDatabase } from './helpers/merchants.js';
import { gatewayEnv, killAllGateways, spawnGateway, type GatewayProcess } from './helpers/process.js';
import { recordWhile, startRecordedGateway } from './helpers/plans.js';
import { statementRecorder } from './helpers/statements.js';

async function status(base: string, secret: string) {
  const res = await request<ErrorBody>(`${base}/v1/api-keys`, { headers: { 'x-api-key': secret } });
  return { status: res.status, code: res.body.error?.code };
}

const REFUSED = { status: 401, code: 'invalid_api_key' };
const ACCEPTED = { status: 200, code: undefined };

describe('leasedEpoch', () => {
  it('reads again only when the lease ran out, and never trusts a reading taken while a writer moved it', async () => {
    let now = 0;
    const readings = [
      { version: 1n, leaseMs: 100 },
      { version: 2n, leaseMs: 0 },
      { version: 2n, leaseMs: 0 },
      { version: 3n, leaseMs: 100 },
    ];
    let reads = 0;
    const epoch = leasedEpoch(
      async () => readings[reads++] ?? { version: 3n, leaseMs: 100 },
      () => now,
    );
    expect(await epoch()).toBe(1n);
    now = 100 * LEASE_TRUST - 1;
    expect(await epoch()).toBe(1n);
    expect(reads).toBe(1);
    now = 100 * LEASE_TRUST; // timed from before the query was sent: the lease is over
    expect(await epoch()).toBe(2n);
    expect(await epoch()).toBe(2n); // no lease: every request reads
    expect(await epoch()).toBe(3n);
    expect(await epoch()).toBe(3n);
    expect(reads).toBe(4);
  });
});

describe('statements of an authenticated request', () => {
  const recorder = statementRecorder();
  let t: TestGateway;
  let raw: Database;

  beforeAll(async () => {
    ({ t, raw } = await startRecordedGateway(recorder, { env: { ROLES: 'api,sandbox-acquirer' } }));
    // The longest lease allowed: the requests below fit in one even on a loaded machine.
    await sql`UPDATE api_key_auth_epoch SET lease_ms = 1000`.execute(raw.db);
  });
  afterAll(async () => t?.close());

  it('sends no epoch read while the lease runs: only the route statements', async () => {
    const merchant = await createMerchant(t);
    const key = merchant.keys.sandbox.secret;
    expect(await status(t.urls.sandboxApi, key)).toEqual(ACCEPTED);
    const requests = 20;
    const { result: elapsed, statements } = await recordWhile(recorder, async () => {
      const started = performance.now();
      for (let i = 0; i < requests; i++) expect(await status(t.urls.sandboxApi, key)).toEqual(ACCEPTED);
      return performance.now() - started;
    });
    // The request log is written in batches off the request path, whenever its timer fires.
    const sent = statements.filter((s) => !s.sql.includes('"api_key_requests"'));
    const epochReads = sent.filter((s) => s.sql.includes('api_key_auth_epoch')).length;
    const keyLookups = sent.filter((s) => s.sql.includes('"secret_hash"')).length;
    // Before decision 0038 every request read the epoch (2 statements per request here: the epoch and
    // the list of keys); now one reading per lease at most.
    expect(epochReads).toBeLessThanOrEqual(1 + Math.floor(elapsed / (1000 * LEASE_TRUST)));
    expect(keyLookups).toBe(0);
    expect(sent.length - epochReads).toBe(requests); // the list of keys, once per request
  });

  it('a change waits out the lease before it commits; without that wait the cache would serve a revoked key', async () => {
    const merchant = await createMerchant(t);
    const victim = await issueKey(raw.db, t.clock, merchant.organizationId);
    expect(await status(t.urls.sandboxApi, victim.secret)).toEqual(ACCEPTED);
    const started = performance.now();
    await revokeKeyInDatabase(raw.db, t.clock, victim.id);
    expect(performance.now() - started).toBeGreaterThanOrEqual(1000);
    expect(await status(t.urls.sandboxApi, victim.secret)).toEqual(REFUSED);

    // Negative control: the same trigger without the wait. A request within the lease of a reading
    // taken before the revocation accepts the revoked key.
    const { rows } = await sql<{
      definition: string;
    }>`SELECT pg_get_functiondef('api_key_auth_epoch_bump()'::regprocedure) AS definition`.execute(raw.db);
    const original = rows[0]?.definition ?? '';
    expect(original).toContain('pg_sleep');
    try {
      await sql
        .raw(
          `CREATE OR REPLACE FUNCTION api_key_auth_epoch_bump() RETURNS trigger LANGUAGE plpgsql AS $$
           BEGIN UPDATE api_key_auth_epoch SET version = version + 1 WHERE id; RETURN NULL; END $$`,
        )
        .execute(raw.db);
      const stale: Array<{ status: number; code: string | undefined }> = [];
      // A loaded machine may let a lease run out between the two requests: a few tries.
      for (let attempt = 0; attempt < 5 && !stale.some((s) => s.status === 200); attempt++) {
        const key = await issueKey(raw.db, t.clock, merchant.organizationId);
        expect(await status(t.urls.sandboxApi, key.secret)).toEqual(ACCEPTED);
        await revokeKeyInDatabase(raw.db, t.clock, key.id);
        stale.push(await status(t.urls.sandboxApi, key.secret));
      }
      expect(stale).toContainEqual(ACCEPTED);
    } finally {
      await sql.raw(original).execute(raw.db);
    }
  });
});

describe(`revocation across ${onPostgres ? 'two gateway processes on one PostgreSQL database' : 'the gateway process (PGlite)'}`, () => {
  const cleanups: Cleanups = [];
  let processes: GatewayProcess[] = [];
  let apis: string[] = [];
  let merchantKey = '';
  let victim = { id: '', secret: '' };

  beforeAll(async () => {
    const dataDir = tempDir(cleanups, 'gw-epoch-lease-');
    const [target] = programTargets(cleanups, 'PGlite');
    if (!target) throw new Error('no database for this pass');
    const { env: targetEnv, open } = await target.prepare(dataDir);
    // Seeded before the programs start: an embedded database belongs to one process at a time.
    await withDatabase(open, async (seeded) => {
      await migrate(seeded, readMigrations(migrationsDir));
      const organizationId = await createOrganization(seeded.db, systemClock);
      merchantKey = (await issueKey(seeded.db, systemClock, organizationId)).secret;
      victim = await issueKey(seeded.db, systemClock, organizationId, { scopes: ['read'] });
    });
    const env = (n: number) =>
      gatewayEnv({
        ROLES: 'api,sandbox-acquirer',
        API_KEY_FAILURE_LIMIT_MAX: '1000000',
        DATA_DIR: n === 0 ? dataDir : tempDir(cleanups, 'gw-epoch-lease-peer-'),
        ...targetEnv,
      });
    processes = Array.from({ length: onPostgres ? 2 : 1 }, (_, n) => spawnGateway({ env: env(n) }));
    apis = (await Promise.all(processes.map((p) => p.waitForBanner(90_000)))).map(
      (urls) => urls.sandboxApi ?? '',
    );
  }, 120_000);
  afterAll(async () => {
    await killAllGateways();
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('revoked through the API of one process, the key fails the next request on every process', async () => {
    expect(apis).toHaveLength(onPostgres ? 2 : 1);
    for (const api of apis) {
      // Twice: the key is cached and the epoch leased on every process.
      expect(await status(api, victim.secret)).toEqual(ACCEPTED);
      expect(await status(api, victim.secret)).toEqual(ACCEPTED);
    }
    const res = await request(`${apis[0]}/v1/api-keys/${victim.id}/revoke`, {
      method: 'POST',
      headers: { 'x-api-key': merchantKey },
    });
    expect(res.status).toBe(200);
    for (const api of [...apis].reverse()) expect(await status(api, victim.secret)).toEqual(REFUSED);
    for (const api of apis) expect(await status(api, merchantKey)).toEqual(ACCEPTED);
  });
});
