import { createHmac, randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type {} from '@fastify/cookie';
import type { Kdb } from '../db/database.js';
import type { SessionsTable } from '../db/schema.js';
import type { Selectable } from 'kysely';
import type { Clock } from '../shared/clock.js';
import { HOUR, MINUTE } from '../shared/clock.js';
import { safeEqual, sha256Hex } from '../shared/crypto.js';
import { ApiError } from './errors.js';

export type Realm = 'dashboard' | 'operator';
export type Session = Selectable<SessionsTable> & { token: string; csrfToken: string };

export const SESSION_COOKIE: Record<Realm, string> = { dashboard: 'gw_session', operator: 'gw_operator' };
/** Cookie of the anonymous forms (logins, links): a double-submit CSRF secret, for both listeners. */
export const FORM_COOKIE = 'gw_form';
export const SESSION_TTL_MS = 12 * HOUR;
export const SESSION_IDLE_MS = HOUR;
const TOUCH_EVERY_MS = MINUTE;

export interface SessionManager {
  /** Starts a session and sets its cookie. */
  start(
    reply: FastifyReply,
    input: { realm: Realm; subjectId: string; stage: 'active' | 'pending_mfa'; request: FastifyRequest },
  ): Promise<Session>;
  /** The live session of the request's cookie, or undefined. */
  read(request: FastifyRequest, realm: Realm): Promise<Session | undefined>;
  end(reply: FastifyReply, session: Session): Promise<void>;
  /** Ends every session of a subject, except one (a password reset keeps none, a change keeps the current). */
  endAll(realm: Realm, subjectId: string, exceptTokenHash?: string): Promise<number>;
  setEnvironment(session: Session, environment: 'sandbox' | 'live'): Promise<void>;
  /** Deletes sessions that ended before `before` (retention); the number deleted. */
  purgeEnded(before: Date): Promise<number>;
  /** Refuses a state-changing request whose CSRF token (form field `_csrf` or header) does not match. */
  assertCsrf(request: FastifyRequest, session: Session): void;
  /** The `_csrf` value of an anonymous form: an HMAC of a random `gw_form` cookie, set here when missing. */
  formToken(request: FastifyRequest, reply: FastifyReply): string;
  /** Refuses (403) an anonymous form post whose `_csrf` field does not match its `gw_form` cookie. */
  assertFormToken(request: FastifyRequest): void;
}

/**
 * Browser sessions. The cookie holds 256 random bits; the database holds their SHA-256 only. The CSRF
 * token is an HMAC of the session token, so it needs no storage and cannot be forged without the cookie.
 */
export function createSessionManager(deps: {
  db: Kdb;
  clock: Clock;
  secureCookies: boolean;
}): SessionManager {
  const cookieOptions = {
    httpOnly: true,
    secure: deps.secureCookies,
    sameSite: 'strict' as const,
    path: '/',
  };

  return {
    async start(reply, { realm, subjectId, stage, request }) {
      const token = randomBytes(32).toString('base64url');
      const now = deps.clock.now();
      const row = await deps.db
        .insertInto('sessions')
        .values({
          token_hash: sha256Hex(token),
          realm,
          subject_id: subjectId,
          stage,
          ip: request.ip,
          user_agent: (request.headers['user-agent'] ?? '').slice(0, 300),
          created_at: now,
          last_seen_at: now,
          expires_at: new Date(now.getTime() + SESSION_TTL_MS),
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      reply.setCookie(SESSION_COOKIE[realm], token, { ...cookieOptions, maxAge: SESSION_TTL_MS / 1000 });
      return { ...row, token, csrfToken: csrfTokenFor(token) };
    },

    async read(request, realm) {
      const token = request.cookies[SESSION_COOKIE[realm]];
      if (!token || token.length > 100) return undefined;
      const now = deps.clock.now();
      const row = await deps.db
        .selectFrom('sessions')
        .selectAll()
        .where('token_hash', '=', sha256Hex(token))
        .where('realm', '=', realm)
        .executeTakeFirst();
      if (!row || row.revoked_at !== null || row.expires_at <= now) return undefined;
      if (now.getTime() - row.last_seen_at.getTime() > SESSION_IDLE_MS) return undefined;
      if (now.getTime() - row.last_seen_at.getTime() > TOUCH_EVERY_MS) {
        await deps.db
          .updateTable('sessions')
          .set({ last_seen_at: now })
          .where('token_hash', '=', row.token_hash)
          .execute();
      }
      return { ...row, token, csrfToken: csrfTokenFor(token) };
    },

    async end(reply, session) {
      await deps.db
        .updateTable('sessions')
        .set({ revoked_at: deps.clock.now() })
        .where('token_hash', '=', session.token_hash)
        .execute();
      reply.clearCookie(SESSION_COOKIE[session.realm], cookieOptions);
    },

    async endAll(realm, subjectId, exceptTokenHash) {
      let query = deps.db
        .updateTable('sessions')
        .set({ revoked_at: deps.clock.now() })
        .where('realm', '=', realm)
        .where('subject_id', '=', subjectId)
        .where('revoked_at', 'is', null);
      if (exceptTokenHash !== undefined) query = query.where('token_hash', '!=', exceptTokenHash);
      const result = await query.executeTakeFirst();
      return Number(result.numUpdatedRows);
    },

    async purgeEnded(before) {
      const result = await deps.db.deleteFrom('sessions').where('expires_at', '<', before).executeTakeFirst();
      return Number(result.numDeletedRows);
    },

    async setEnvironment(session, environment) {
      await deps.db
        .updateTable('sessions')
        .set({ environment })
        .where('token_hash', '=', session.token_hash)
        .execute();
    },

    assertCsrf,
    formToken: (request, reply) => formToken(cookieOptions, request, reply),
    assertFormToken,
  };
}

const FORM_EXPIRED = 'The form has expired or did not come from this site; reload and try again.';

/** A signed-in form or JSON call carries its session's CSRF token (header or `_csrf` field). */
function assertCsrf(request: FastifyRequest, session: Session): void {
  const body = request.body as Record<string, unknown> | undefined;
  const header = request.headers['x-csrf-token'];
  const candidate =
    typeof header === 'string' ? header : typeof body?._csrf === 'string' ? (body._csrf as string) : '';
  if (!safeEqual(candidate, session.csrfToken)) throw new ApiError('forbidden', FORM_EXPIRED);
}

/** The anonymous form token: an HMAC of the `gw_form` cookie's secret, which is set when missing. */
function formToken(
  cookieOptions: { httpOnly: boolean; secure: boolean; sameSite: 'strict'; path: string },
  request: FastifyRequest,
  reply: FastifyReply,
): string {
  let secret = request.cookies[FORM_COOKIE];
  if (!secret || !/^[A-Za-z0-9_-]{43}$/.test(secret)) {
    secret = randomBytes(32).toString('base64url');
    reply.setCookie(FORM_COOKIE, secret, cookieOptions);
  }
  return csrfTokenFor(secret);
}

function assertFormToken(request: FastifyRequest): void {
  const secret = request.cookies[FORM_COOKIE];
  const sent = (request.body as { _csrf?: unknown } | undefined)?._csrf;
  if (!secret || typeof sent !== 'string' || !safeEqual(sent, csrfTokenFor(secret)))
    throw new ApiError('forbidden', FORM_EXPIRED);
}

export function csrfTokenFor(sessionToken: string): string {
  return createHmac('sha256', sessionToken).update('csrf').digest('base64url');
}
