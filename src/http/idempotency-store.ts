import { sql } from 'kysely';
import type { Kdb } from '../db/database.js';
import { precompiled } from '../db/precompiled.js';
import { DAY, MINUTE } from '../shared/clock.js';
import type { Companion, RequestFingerprints } from '../shared/idempotent-write.js';

export const IDEMPOTENCY_TTL_MS = DAY;
/** How long a claim holds, by default, before a retry may take over from a request that died mid-way. */
export const IDEMPOTENCY_LOCK_MS = MINUTE;

/**
 * One claim of a key. `lockedUntil` identifies it: a takeover happens only once the previous lock has
 * lapsed and sets a later one, so no two claims of a key share it. Completing or releasing matches it,
 * so a request whose claim was taken over (it outlived its lock) cannot overwrite or delete the claim of
 * the retry that took over.
 */
export interface Claim {
  scope: string;
  key: string;
  lockedUntil: Date;
}

export type ClaimOutcome =
  | { kind: 'claimed'; claim: Claim }
  | { kind: 'replay'; status: number; body: string }
  | { kind: 'mismatch' }
  | { kind: 'in_flight' }
  /** The key was claimed by another caller (another API key of the organization): never replayed. */
  | { kind: 'other_caller' };

export interface IdempotencyStore {
  /** How this store's callers fingerprint a request (the routes' hooks, and rows that hold a key). */
  readonly fingerprints: RequestFingerprints;
  /**
   * `caller` is who may see the outcome again (`key:<id>`), or null where anyone in the scope may.
   * `fingerprint` is stored; a stored fingerprint equal to it or to one of `alsoMatches` (the same
   * request's `forms`) is the same request.
   */
  claim(input: {
    scope: string;
    key: string;
    fingerprint: string;
    alsoMatches?: readonly string[];
    caller: string | null;
    now: Date;
  }): Promise<ClaimOutcome>;
  /** Records the outcome of one's own claim; a no-op when the claim was taken over. */
  complete(claim: Claim, outcome: { status: number; body: string }): Promise<void>;
  /**
   * Records the outcome of one's own claim in one statement with `companion`, a write whose result the
   * outcome describes (ADR 0046): both commit together, and the outcome is stored only when the companion
   * changed a row. `rows`: what the companion returned (empty when it changed nothing); `stored`: whether
   * the outcome was recorded (false also when the claim was taken over).
   */
  completeWith<R>(
    claim: Claim,
    outcome: { status: number; body: string },
    companion: Companion<R>,
  ): Promise<{ rows: R[]; stored: boolean }>;
  /** Forgets one's own claim so that a retry runs again; a no-op when the claim was taken over. */
  release(claim: Claim): Promise<void>;
  purgeExpired(now: Date, batchSize?: number): Promise<number>;
}

interface ClaimArgs {
  scope: string;
  key: string;
  fingerprint: string;
  sameRequest: readonly string[];
  caller: string | null;
  now: Date;
  lockedUntil: Date;
  expiresAt: Date;
}

/**
 * The claim: a new key is inserted; a forgotten key (past 24 hours) starts afresh; an abandoned claim of
 * the same request is taken over by its retry once the lock has lapsed. Precompiled (ADR 0060): it runs
 * on every request that carries a key.
 */
const claimStatement = precompiled<ClaimArgs, { key: string }>({
  name: 'idempotency claim',
  shapeOf: ({ sameRequest, caller }) => `${sameRequest.length}:${caller === null ? 'anyone' : 'caller'}`,
  build: (db, { scope, key, fingerprint, sameRequest, caller, now, lockedUntil, expiresAt }) =>
    db
      .insertInto('idempotency_keys')
      .values({
        scope,
        key,
        fingerprint,
        state: 'in_flight',
        response_status: null,
        response_body: null,
        locked_until: lockedUntil,
        created_at: now,
        expires_at: expiresAt,
        caller,
      })
      .onConflict((conflict) =>
        conflict
          .columns(['scope', 'key'])
          .doUpdateSet((eb) => ({
            fingerprint: eb.ref('excluded.fingerprint'),
            state: 'in_flight',
            response_status: null,
            response_body: null,
            locked_until: eb.ref('excluded.locked_until'),
            created_at: eb.ref('excluded.created_at'),
            expires_at: eb.ref('excluded.expires_at'),
            caller: eb.ref('excluded.caller'),
          }))
          .where((eb) =>
            eb.or([
              eb('idempotency_keys.expires_at', '<=', now),
              eb.and([
                eb('idempotency_keys.state', '=', 'in_flight'),
                eb('idempotency_keys.locked_until', '<=', now),
                eb('idempotency_keys.fingerprint', 'in', sameRequest),
                caller === null
                  ? eb('idempotency_keys.caller', 'is', null)
                  : eb('idempotency_keys.caller', '=', caller),
              ]),
            ]),
          ),
      )
      .returning('key'),
  parameters: ({ scope, key, fingerprint, sameRequest, caller, now, lockedUntil, expiresAt }) => [
    // The inserted row.
    scope,
    key,
    fingerprint,
    'in_flight',
    null,
    null,
    lockedUntil,
    now,
    expiresAt,
    caller,
    // What a conflict sets that is not the inserted row's.
    'in_flight',
    null,
    null,
    // When a conflict takes the key over.
    now,
    'in_flight',
    now,
    ...sameRequest,
    ...(caller === null ? [] : [caller]),
  ],
});

interface CompleteWithArgs {
  companion: Companion<unknown>;
  status: number;
  body: string;
  scope: string;
  key: string;
  lockedUntil: Date;
}

/**
 * The outcome of a claim stored with its companion (ADR 0046). Data-modifying CTEs all run, whatever the
 * outer statement reads; the outcome's own condition (`exists (select 1 from companion)`) is what ties it
 * to the companion's result. Precompiled per companion shape (ADR 0060).
 */
const completeWithStatement = precompiled<CompleteWithArgs, Record<string, unknown>>({
  name: 'idempotency outcome with its companion',
  shapeOf: ({ companion }) => companion.shape,
  build: (db, { companion, status, body, scope, key, lockedUntil }) => {
    const statement = sql<Record<string, unknown>>`with companion as (${companion.statement(db)}),
        outcome as (
          update idempotency_keys
             set state = 'completed', response_status = ${status}, response_body = ${body}
           where scope = ${scope} and key = ${key} and state = 'in_flight' and locked_until = ${lockedUntil}
             and exists (select 1 from companion)
          returning 1
        )
        select companion.*, exists (select 1 from outcome) as "outcome stored" from companion`;
    return { compile: () => statement.compile(db) };
  },
  parameters: ({ companion, status, body, scope, key, lockedUntil }) => [
    ...companion.parameters,
    status,
    body,
    scope,
    key,
    lockedUntil,
  ],
});

export function createIdempotencyStore(
  db: Kdb,
  options: { lockMs?: number; fingerprints: RequestFingerprints },
): IdempotencyStore {
  const lockMs = options.lockMs ?? IDEMPOTENCY_LOCK_MS;
  return {
    fingerprints: options.fingerprints,

    async claim({ scope, key, fingerprint, alsoMatches = [], caller, now }) {
      const sameRequest = [fingerprint, ...alsoMatches];
      const lockedUntil = new Date(now.getTime() + lockMs);
      for (let attempt = 0; attempt < 3; attempt++) {
        const claimed = (
          await claimStatement.execute(db, {
            scope,
            key,
            fingerprint,
            sameRequest,
            caller,
            now,
            lockedUntil,
            expiresAt: new Date(now.getTime() + IDEMPOTENCY_TTL_MS),
          })
        ).rows[0];
        if (claimed) return { kind: 'claimed', claim: { scope, key, lockedUntil } };

        const existing = await db
          .selectFrom('idempotency_keys')
          .select(['fingerprint', 'state', 'response_status', 'response_body', 'caller'])
          .where('scope', '=', scope)
          .where('key', '=', key)
          .executeTakeFirst();
        if (!existing) continue; // purged between the two statements: claim again
        if (existing.caller !== caller) return { kind: 'other_caller' };
        if (!sameRequest.includes(existing.fingerprint)) return { kind: 'mismatch' };
        if (existing.state === 'in_flight') return { kind: 'in_flight' };
        return {
          kind: 'replay',
          status: existing.response_status ?? 500,
          body: existing.response_body ?? '',
        };
      }
      return { kind: 'in_flight' };
    },

    async complete({ scope, key, lockedUntil }, { status, body }) {
      await db
        .updateTable('idempotency_keys')
        .set({ state: 'completed', response_status: status, response_body: body })
        .where('scope', '=', scope)
        .where('key', '=', key)
        .where('state', '=', 'in_flight')
        .where('locked_until', '=', lockedUntil)
        .execute();
    },

    async completeWith<R>(
      { scope, key, lockedUntil }: Claim,
      { status, body }: { status: number; body: string },
      companion: Companion<R>,
    ) {
      const result = await completeWithStatement.execute(db, {
        companion,
        status,
        body,
        scope,
        key,
        lockedUntil,
      });
      let stored = false;
      const rows = result.rows.map((row) => {
        const { 'outcome stored': recorded, ...rest } = row;
        stored = recorded === true;
        return rest as R;
      });
      return { rows, stored };
    },

    async release({ scope, key, lockedUntil }) {
      await db
        .deleteFrom('idempotency_keys')
        .where('scope', '=', scope)
        .where('key', '=', key)
        .where('state', '=', 'in_flight')
        .where('locked_until', '=', lockedUntil)
        .execute();
    },

    async purgeExpired(now, batchSize = 1000) {
      const result = await db
        .deleteFrom('idempotency_keys')
        .where(({ eb, selectFrom }) =>
          eb(
            sql`(scope, key)`,
            'in',
            selectFrom('idempotency_keys')
              .select(['scope', 'key'])
              .where('expires_at', '<=', now)
              .limit(batchSize),
          ),
        )
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
