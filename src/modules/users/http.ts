import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../http/errors.js';
import type { Session, SessionManager } from '../../http/session.js';
import type { Clock } from '../../shared/clock.js';
import { MINUTE } from '../../shared/clock.js';
import { pickLocale, type Locale } from '../../web/i18n.js';
import { DASHBOARD_REALM, PENDING_MFA_TTL_MS } from './realm.js';
import type { UserService } from './service.js';
import type { Account, RequestContext } from './types.js';

/**
 * Per-IP limits of the account routes (requests per window). The login throttle
 * (src/http/login-throttle.ts) slows failed logins per account and address; these protect the service.
 * The login form's limit counts per address and typed e-mail (`login`), so that one person's posts do
 * not use up everyone's behind a shared address; `loginFlood` is its per-address flood guard, which
 * never refuses an e-mail that signed in from the address (`loginFloodGuard`). The second factor's
 * limit counts per address and account of the half-open session (`secondFactor`). See
 * docs/decisions/0066.
 */
export const DASHBOARD_RATE_LIMITS = {
  login: { max: 20, timeWindow: 5 * MINUTE },
  loginFlood: { max: 200, timeWindow: 5 * MINUTE },
  secondFactor: { max: 10, timeWindow: 5 * MINUTE },
  forgotPassword: { max: 5, timeWindow: 15 * MINUTE },
  resetPassword: { max: 10, timeWindow: 15 * MINUTE },
  accountLink: { max: 10, timeWindow: 15 * MINUTE },
  accountSettings: { max: 30, timeWindow: 5 * MINUTE },
} as const;

export interface SignedIn {
  session: Session;
  account: Account;
}

export function contextOf(request: FastifyRequest): RequestContext {
  return { ip: request.ip ?? null, requestId: request.id };
}

export function localeOf(request: FastifyRequest): Locale {
  const lang = (request.query as { lang?: unknown } | undefined)?.lang;
  return pickLocale(typeof lang === 'string' ? lang : undefined, request.headers['accept-language']);
}

/** A path of ours in the page's language; only ever called with our own paths, never user input. */
export function localized(path: string, locale: Locale, extra: Record<string, string> = {}): string {
  const query = new URLSearchParams({ lang: locale, ...extra });
  return `${path}?${query.toString()}`;
}

export function createDashboardAuth(deps: { sessions: SessionManager; users: UserService; clock: Clock }) {
  const { sessions, users, clock } = deps;

  /** The signed-in user of the request (stage active, account active), or undefined. */
  const signedIn = async (request: FastifyRequest): Promise<SignedIn | undefined> => {
    const session = await sessions.read(request, DASHBOARD_REALM);
    if (!session || session.stage !== 'active') return undefined;
    const account = await users.account(session.subject_id);
    if (!account || account.user.status !== 'active') return undefined;
    return { session, account };
  };

  /** A session that passed the password and still owes the second factor, if it is fresh enough. */
  const pendingMfa = async (request: FastifyRequest, reply: FastifyReply): Promise<Session | undefined> => {
    const session = await sessions.read(request, DASHBOARD_REALM);
    if (!session || session.stage !== 'pending_mfa') return undefined;
    if (clock.now().getTime() - session.created_at.getTime() > PENDING_MFA_TTL_MS) {
      await sessions.end(reply, session);
      return undefined;
    }
    return session;
  };

  /** For JSON endpoints: a signed-in session and its CSRF token in the `X-CSRF-Token` header. */
  const requireApiSession = async (request: FastifyRequest): Promise<SignedIn> => {
    const current = await signedIn(request);
    if (!current) throw new ApiError('unauthorized', 'Sign in to the dashboard first.');
    if (typeof request.headers['x-csrf-token'] !== 'string') {
      throw new ApiError('forbidden', 'The X-CSRF-Token header is missing.');
    }
    sessions.assertCsrf(request, current.session);
    return current;
  };

  return {
    signedIn,
    pendingMfa,
    requireApiSession,
    formToken: (request: FastifyRequest, reply: FastifyReply) => sessions.formToken(request, reply),
    assertFormToken: (request: FastifyRequest) => sessions.assertFormToken(request),
  };
}

export type DashboardAuth = ReturnType<typeof createDashboardAuth>;
