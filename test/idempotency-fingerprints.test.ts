/**
 * Keyed request fingerprints (ADR 0054) across a rotation of ENCRYPTION_KEYS: a request stored under the
 * previous primary key is still the same request while that key stays configured, and never another
 * request's. Runs the idempotency store on the real database of the pass (PGlite or PostgreSQL).
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, readMigrations } from '../src/db/migrator.js';
import { createIdempotencyStore } from '../src/http/idempotency-store.js';
import { createRequestFingerprints, keyReuseOf, requestFingerprint } from '../src/shared/idempotent-write.js';
import { canonicalJson } from '../src/shared/canonical-json.js';
import { sha256Hex } from '../src/shared/crypto.js';
import { migrationsDir } from '../src/paths.js';
import { createSecretBox, type VersionedKey } from '../src/shared/secret-box.js';
import { createTestDatabase, type TestDatabase } from './helpers/database.js';

const v1: VersionedKey = { version: 'v1', key: randomBytes(32) };
const v2: VersionedKey = { version: 'v2', key: randomBytes(32) };
const fingerprintsOf = (keys: VersionedKey[]) =>
  createRequestFingerprints(createSecretBox(keys).deriveKeys('request-fingerprint'));

const before = fingerprintsOf([v1]);
const rotated = fingerprintsOf([v2, v1]);
const retired = fingerprintsOf([v2]);

let t: TestDatabase;

beforeAll(async () => {
  t = await createTestDatabase({ migrated: true });
  await migrate(t.database, readMigrations(migrationsDir));
});
afterAll(async () => t?.drop());

describe('keyed request fingerprints', () => {
  it('are an HMAC under the primary key, never the plain SHA-256 of the request', () => {
    const request = 'POST /v1/charges\n{"customer":{"idNumber":"10000000146"}}';
    const fingerprint = rotated.of(request);
    expect(fingerprint.value).toMatch(/^h1:v2:[0-9a-f]{64}$/);
    expect(fingerprint.value).not.toContain(sha256Hex(request));
    expect(fingerprint.forms).toEqual([fingerprint.value, before.of(request).value, sha256Hex(request)]);
    // Another deployment's keys give another fingerprint.
    expect(fingerprintsOf([{ version: 'v2', key: randomBytes(32) }]).of(request).value).not.toBe(
      fingerprint.value,
    );
  });

  it('a row fingerprinted before a rotation is the same request after it, and another body is not', () => {
    const input = { amount: 1000, reason: 'late' };
    const holder = { createdBy: 'key_a', fingerprint: requestFingerprint(before, input).value };
    const same = () => false;
    expect(
      keyReuseOf(holder, { caller: 'key_a', fingerprint: requestFingerprint(rotated, input) }, same),
    ).toBeUndefined();
    expect(
      keyReuseOf(
        holder,
        { caller: 'key_a', fingerprint: requestFingerprint(rotated, { amount: 1001 }) },
        same,
      ),
    ).toBe('other_body');
    expect(
      keyReuseOf(holder, { caller: 'key_b', fingerprint: requestFingerprint(rotated, input) }, same),
    ).toBe('other_api_key');
    // The plain SHA-256 of the release before keyed fingerprints, too.
    const legacy = { createdBy: 'key_a', fingerprint: sha256Hex(canonicalJson(input)) };
    expect(
      keyReuseOf(legacy, { caller: 'key_a', fingerprint: requestFingerprint(rotated, input) }, same),
    ).toBeUndefined();
  });

  it('the store replays an outcome recorded under the previous primary key while that key is configured', async () => {
    const scope = 'org_rotation:sandbox';
    const request = 'POST /v1/refunds\n{"amount":1000}';
    const now = new Date('2026-11-23T10:00:00.000Z');
    const old = createIdempotencyStore(t.database.db, { fingerprints: before });
    const first = old.fingerprints.of(request);
    const claimed = await old.claim({
      scope,
      key: 'rotation',
      fingerprint: first.value,
      caller: 'key:a',
      now,
    });
    if (claimed.kind !== 'claimed') throw new Error(`expected a claim, got ${claimed.kind}`);
    await old.complete(claimed.claim, { status: 201, body: '{"id":"re_1"}' });

    const claimWith = (keys: typeof rotated, body: string) => {
      const store = createIdempotencyStore(t.database.db, { fingerprints: keys });
      const fingerprint = store.fingerprints.of(body);
      return store.claim({
        scope,
        key: 'rotation',
        fingerprint: fingerprint.value,
        alsoMatches: fingerprint.forms,
        caller: 'key:a',
        now: new Date(now.getTime() + 1000),
      });
    };
    expect(await claimWith(rotated, request)).toEqual({ kind: 'replay', status: 201, body: '{"id":"re_1"}' });
    expect(await claimWith(rotated, 'POST /v1/refunds\n{"amount":1001}')).toEqual({ kind: 'mismatch' });
    // Without the key it was made with, the stored fingerprint cannot be recognised (ADR 0054: a
    // retired key stays configured for the 24 hours its fingerprints are compared).
    expect(await claimWith(retired, request)).toEqual({ kind: 'mismatch' });
  });
});
