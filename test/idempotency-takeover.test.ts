/**
 * A request that outlives its idempotency lock (a slow acquirer call under load) is taken over by its
 * retry. The two must not overwrite each other's outcome, and a transient `duplicate_request` (the retry
 * found the first request's charge still at the acquirer) must never become the remembered answer: it
 * would be replayed for 24 hours in place of the charge the first request created. Runs on the real
 * database of the pass (PGlite or PostgreSQL).
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, readMigrations } from '../src/db/migrator.js';
import { isStorableOutcome } from '../src/http/idempotency.js';
import { createIdempotencyStore, type Claim, type IdempotencyStore } from '../src/http/idempotency-store.js';
import { createRequestFingerprints } from '../src/shared/idempotent-write.js';
import { migrationsDir } from '../src/paths.js';
import { createTestDatabase, type TestDatabase } from './helpers/database.js';

const LOCK_MS = 6000;
const request = { scope: 'org_takeover:sandbox', fingerprint: 'f'.repeat(64), caller: 'key:k1' };

let t: TestDatabase;
let store: IdempotencyStore;

beforeAll(async () => {
  t = await createTestDatabase({ migrated: true });
  await migrate(t.database, readMigrations(migrationsDir));
  store = createIdempotencyStore(t.database.db, {
    lockMs: LOCK_MS,
    fingerprints: createRequestFingerprints([{ version: 't1', key: randomBytes(32) }]),
  });
});
afterAll(async () => t?.drop());

async function claimAt(key: string, at: number): Promise<Claim> {
  const outcome = await store.claim({ ...request, key, now: new Date(at) });
  if (outcome.kind !== 'claimed') throw new Error(`expected a claim at ${at}, got ${outcome.kind}`);
  return outcome.claim;
}

const claimAgain = (key: string, at: number) => store.claim({ ...request, key, now: new Date(at) });

const created = JSON.stringify({ id: 'ch_1', status: 'pending' });
const inProgress = JSON.stringify({
  error: { code: 'duplicate_request', message: 'still running', requestId: 'req_1' },
});

describe('a claim taken over after its lock lapsed', () => {
  it('a duplicate_request answer is transient: never stored, so the retry after it runs again', () => {
    expect(isStorableOutcome(409, inProgress)).toBe(false);
    // Other 409s are final business refusals and stay remembered.
    expect(isStorableOutcome(409, JSON.stringify({ error: { code: 'duplicate_merchant_reference' } }))).toBe(
      true,
    );
    expect(isStorableOutcome(201, created)).toBe(true);
  });

  it('the first request finishing late cannot overwrite the outcome the retry recorded', async () => {
    const t0 = Date.parse('2026-11-23T10:00:00.000Z');
    const first = await claimAt('late-first', t0);
    const retry = await claimAt('late-first', t0 + LOCK_MS);
    await store.complete(retry, { status: 201, body: created });
    await store.complete(first, { status: 422, body: '{"error":{"code":"late"}}' });
    expect(await claimAgain('late-first', t0 + LOCK_MS + 1)).toEqual({
      kind: 'replay',
      status: 201,
      body: created,
    });
  });

  it("the first request releasing late cannot delete the retry's claim and let a third request in", async () => {
    const t0 = Date.parse('2026-11-23T11:00:00.000Z');
    const first = await claimAt('late-release', t0);
    await claimAt('late-release', t0 + LOCK_MS);
    await store.release(first);
    expect(await claimAgain('late-release', t0 + LOCK_MS + 1)).toEqual({ kind: 'in_flight' });
  });

  it('after the retry releases its transient answer, the next retry claims and records the charge', async () => {
    const t0 = Date.parse('2026-11-23T12:00:00.000Z');
    const first = await claimAt('transient', t0);
    const retry = await claimAt('transient', t0 + LOCK_MS);
    // The retry answered duplicate_request: not storable, so released.
    expect(isStorableOutcome(409, inProgress)).toBe(false);
    await store.release(retry);
    // The first request's late outcome is not recorded either (its claim is gone) ...
    await store.complete(first, { status: 201, body: created });
    // ... so the next retry runs the request again, which finds and returns the created charge.
    const next = await claimAt('transient', t0 + LOCK_MS + 1);
    await store.complete(next, { status: 201, body: created });
    expect(await claimAgain('transient', t0 + LOCK_MS + 2)).toEqual({
      kind: 'replay',
      status: 201,
      body: created,
    });
  });
});
