import { sql } from 'kysely';
import type { Kdb, Trx } from '../db/database.js';
import type { Clock } from '../shared/clock.js';
import { throttleAddress } from '../shared/client-address.js';
import { DAY, MINUTE, SECOND } from '../shared/clock.js';
import { ApiError } from './errors.js';
import type { Realm } from './session.js';

/**
 * How failed logins slow further attempts (docs/decisions/0019-login-throttling.md).
 * After `freeFailures` failures of a key, each failure sets a wait of `baseMs`, doubled per further
 * failure, at most `maxMs`. A key with no failure for `forgetMs` starts again from zero.
 *
 * - `pair`: one account e-mail from one client address: the account's own lockout against guessing.
 *   The real user's other addresses are untouched.
 * - `address`: one client address across every account (password spraying). It slows only the pairs
 *   that are not proven: an account that signed in from this address within `forgetMs` is never
 *   refused because of failures on other accounts (a neighbour behind the same NAT), only by its own
 *   pair (docs/decisions/0066).
 * - `secondFactor`: one account from every address, for the second factor only. Only someone who has
 *   the password reaches that step; without an account-wide count, many addresses would each get their
 *   own free guesses at a 6-digit code. The real user's password step is never slowed by it.
 */
export const LOGIN_THROTTLE = {
  pair: { freeFailures: 5, baseMs: SECOND, maxMs: 15 * MINUTE, forgetMs: DAY },
  address: { freeFailures: 10, baseMs: SECOND, maxMs: 15 * MINUTE, forgetMs: DAY },
  secondFactor: { freeFailures: 5, baseMs: SECOND, maxMs: 15 * MINUTE, forgetMs: DAY },
} as const;

/** The `address` of the account-wide second-factor row: never a client address. */
const ANY_ADDRESS = '*';

/**
 * The `address` of the row that proves a pair: the account signed in from `address` (the whole login,
 * second factor included) at `updated_at`. `failures` is 1 and `blocked_until` null: it never makes
 * anyone wait. No client address contains a space, so it never meets a counter's row.
 */
export const provenAddress = (address: string) => `proven ${address}`;

type Rule = (typeof LOGIN_THROTTLE)[keyof typeof LOGIN_THROTTLE];

/** The wait after the `failures`-th failure under a rule, in milliseconds (0: none). */
export function waitAfter(rule: Rule, failures: number): number {
  if (failures < rule.freeFailures) return 0;
  return Math.min(rule.maxMs, rule.baseMs * 2 ** Math.min(failures - rule.freeFailures, 30));
}

export interface LoginAttempt {
  realm: Realm;
  /** The address typed into the form, whether or not it has an account. */
  email: string;
  /** The client address (`request.ip`, which honours `TRUSTED_PROXIES`). */
  address: string;
  /** A second-factor attempt: also counted, and waited on, for the account from every address. */
  secondFactor?: boolean;
}

export interface LoginThrottle {
  /** Seconds to wait before this attempt may be checked, or undefined when it may be checked now. */
  wait(attempt: LoginAttempt): Promise<number | undefined>;
  /** Counts a failure of the pair and of the address; returns the wait it starts (seconds), if any. */
  fail(attempt: LoginAttempt): Promise<number | undefined>;
  /**
   * A success clears the pair's counter (not the address's: other accounts may still be sprayed) and
   * proves the pair for `forgetMs`, so that the address's counter no longer refuses it.
   */
  succeed(attempt: LoginAttempt): Promise<void>;
  /** Clears every counter of an account (a password reset or one set by an operator). */
  clearAccount(realm: Realm, email: string, trx?: Trx): Promise<void>;
  /** Deletes counters nobody failed on for longer than they are remembered (the worker). */
  purge(): Promise<number>;
}

/** A refused login: 429 `too_many_requests`; the route sets `Retry-After` from `retryAfterSeconds`. */
export class LoginThrottledError extends ApiError {
  constructor(readonly retryAfterSeconds: number) {
    super(
      'too_many_requests',
      `Too many failed login attempts; wait ${retryAfterSeconds} second${retryAfterSeconds === 1 ? '' : 's'} and try again.`,
    );
  }
}

/**
 * The e-mail as counters key it: trimmed, lower case, bounded (a form field is at most 254 anyway). An
 * empty one becomes ' ', which no trimmed input equals, so it never meets the per-address row ('').
 */
export function throttleEmail(email: string): string {
  return email.trim().toLowerCase().slice(0, 320) || ' ';
}

type ThrottleDeps = { db: Kdb; clock: Clock };

/**
 * Counters in the database (`login_throttle`), so every process shares them; one statement per
 * failure (INSERT … ON CONFLICT DO UPDATE), so parallel failures are all counted. Time comes from the
 * injected clock. Each attempt is counted under its address's throttle form: an IPv6 client by its /64
 * (docs/decisions/0072).
 */
export function createLoginThrottle(deps: ThrottleDeps): LoginThrottle {
  const at = (attempt: LoginAttempt): LoginAttempt => ({
    ...attempt,
    address: throttleAddress(attempt.address),
  });
  return {
    wait: (attempt) => waitFor(deps, at(attempt)),
    fail: (attempt) => countFailure(deps, at(attempt)),
    succeed: (attempt) => recordSuccess(deps, at(attempt)),
    clearAccount: (realm, email, trx) => clearAccount(trx ?? deps.db, realm, email),
    purge: () => purgeForgotten(deps),
  };
}

/** The counters an attempt is checked and counted against: its pair, its address, its account. */
const keysOf = (attempt: LoginAttempt) => [
  { rule: LOGIN_THROTTLE.pair, email: throttleEmail(attempt.email), address: attempt.address },
  { rule: LOGIN_THROTTLE.address, email: '', address: attempt.address },
  ...(attempt.secondFactor
    ? [{ rule: LOGIN_THROTTLE.secondFactor, email: throttleEmail(attempt.email), address: ANY_ADDRESS }]
    : []),
];

async function waitFor({ db, clock }: ThrottleDeps, attempt: LoginAttempt): Promise<number | undefined> {
  const now = clock.now();
  const email = throttleEmail(attempt.email);
  const proof = { email, address: provenAddress(attempt.address) };
  // One read: the counters that may make this attempt wait, and the proof that exempts the pair
  // from the address's counter.
  const rows = await db
    .selectFrom('login_throttle')
    .select(['email', 'address', 'blocked_until', 'updated_at'])
    .where('realm', '=', attempt.realm)
    .where((eb) =>
      eb.or(
        [...keysOf(attempt), proof].map((key) =>
          eb.and([eb('email', '=', key.email), eb('address', '=', key.address)]),
        ),
      ),
    )
    .execute();
  const forgetBefore = now.getTime() - LOGIN_THROTTLE.pair.forgetMs;
  const proven = rows.some(
    (row) =>
      row.email === proof.email && row.address === proof.address && row.updated_at.getTime() >= forgetBefore,
  );
  const until = Math.max(
    0,
    ...rows
      .filter((row) => row.address !== proof.address && !(proven && row.email === ''))
      .map((row) => row.blocked_until?.getTime() ?? 0),
  );
  return until > now.getTime() ? Math.max(1, Math.ceil((until - now.getTime()) / SECOND)) : undefined;
}

async function countFailure(deps: ThrottleDeps, attempt: LoginAttempt): Promise<number | undefined> {
  const now = deps.clock.now();
  let waitMs = 0;
  for (const { rule, ...key } of keysOf(attempt)) {
    waitMs = Math.max(waitMs, waitAfter(rule, await count(deps.db, attempt, key, rule, now)));
  }
  return waitMs > 0 ? Math.max(1, Math.ceil(waitMs / SECOND)) : undefined;
}

/** One more failure of a counter, in one statement; its failures since it was last forgotten. */
async function count(
  db: Kdb,
  attempt: LoginAttempt,
  key: { email: string; address: string },
  rule: Rule,
  now: Date,
): Promise<number> {
  const forgetBefore = new Date(now.getTime() - rule.forgetMs);
  // failures: 1 for a new key or one forgotten; else one more.
  const failures = sql<number>`CASE WHEN login_throttle.updated_at < ${forgetBefore}::timestamptz THEN 1 ELSE login_throttle.failures + 1 END`;
  const wait = sql`CASE WHEN ${failures} < ${rule.freeFailures} THEN NULL
    ELSE ${now}::timestamptz + LEAST(${rule.maxMs}::float8,
      ${rule.baseMs}::float8 * power(2::float8, LEAST(${failures} - ${rule.freeFailures}, 30)::float8))
      * interval '1 millisecond' END`;
  const row = await db
    .insertInto('login_throttle')
    .values({
      realm: attempt.realm,
      email: key.email,
      address: key.address,
      failures: 1,
      blocked_until: rule.freeFailures <= 1 ? new Date(now.getTime() + rule.baseMs) : null,
      updated_at: now,
    })
    .onConflict((oc) =>
      oc.columns(['realm', 'email', 'address']).doUpdateSet({
        failures,
        blocked_until: sql<Date | null>`${wait}`,
        updated_at: now,
      }),
    )
    .returning('failures')
    .executeTakeFirstOrThrow();
  return Number(row.failures);
}

async function recordSuccess({ db, clock }: ThrottleDeps, attempt: LoginAttempt): Promise<void> {
  const now = clock.now();
  const email = throttleEmail(attempt.email);
  await db
    .deleteFrom('login_throttle')
    .where('realm', '=', attempt.realm)
    .where('email', '=', email)
    .where('address', 'in', attempt.secondFactor ? [attempt.address, ANY_ADDRESS] : [attempt.address])
    .execute();
  await db
    .insertInto('login_throttle')
    .values({
      realm: attempt.realm,
      email,
      address: provenAddress(attempt.address),
      failures: 1,
      blocked_until: null,
      updated_at: now,
    })
    .onConflict((oc) => oc.columns(['realm', 'email', 'address']).doUpdateSet({ updated_at: now }))
    .execute();
}

async function clearAccount(db: Kdb, realm: Realm, email: string): Promise<void> {
  await db
    .deleteFrom('login_throttle')
    .where('realm', '=', realm)
    .where('email', '=', throttleEmail(email))
    .execute();
}

async function purgeForgotten({ db, clock }: ThrottleDeps): Promise<number> {
  const forgetMs = Math.max(...Object.values(LOGIN_THROTTLE).map((rule) => rule.forgetMs));
  const result = await db
    .deleteFrom('login_throttle')
    .where('updated_at', '<', new Date(clock.now().getTime() - forgetMs))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
