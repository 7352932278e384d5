import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../http/errors.js';
import type { App } from '../../http/server.js';
import type { Session, SessionManager } from '../../http/session.js';
import { MINUTE } from '../../shared/clock.js';
import { safeEqual } from '../../shared/crypto.js';
import type { Actor } from '../organizations/types.js';
import type { AuditLog } from '../audit/service.js';
import type { Kdb } from '../../db/database.js';
import { valueOf } from './errors.js';
import { can, type Staff, type StaffService } from './staff.js';

declare module 'fastify' {
  interface FastifyRequest {
    staff: Staff | null;
    operatorSession: Session | null;
  }
}

/**
 * Limits of the staff login routes (API and console, each its own count): `perAccount` per client
 * address and typed e-mail, so that one person's posts never keep the others behind the same address
 * out; `flood` per address, a flood guard well above what one person sends (docs/decisions/0066).
 */
export const OPERATOR_LOGIN_LIMITS = {
  perAccount: { max: 20, timeWindow: MINUTE },
  flood: { max: 200, timeWindow: MINUTE },
} as const;

/** The CLI's identity when it goes through the operator API with the local token. */
export const CLI_STAFF: Staff = { id: 'cli', email: 'cli@localhost', name: 'Operator CLI', role: 'admin' };

const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export function actorOf(request: FastifyRequest): Actor {
  const staff = request.staff;
  return {
    actor: staff === null ? 'anonymous' : staff.id === 'cli' ? 'cli' : `staff:${staff.id}`,
    requestId: request.id,
    ip: request.ip,
  };
}

/**
 * Every operator route declares `config.operator`: 'public' or the permission it needs. The JSON API
 * (`/operator/v1/…`) takes the staff session cookie with an `X-CSRF-Token` header on writes, or the
 * CLI's bearer token; console pages take the cookie with a `_csrf` form field and redirect to the login
 * page when there is no session.
 */
export function registerOperatorAuth(
  app: App,
  deps: { sessions: SessionManager; staff: StaffService; cliToken: string | undefined },
): void {
  app.decorateRequest('staff', null);
  app.decorateRequest('operatorSession', null);
  // preValidation, not preHandler: who may call comes before what the body says, so an anonymous
  // caller or a forged form learns nothing from validation errors and gets 401 / 403 first.
  app.addHook('preValidation', async (request: FastifyRequest, reply: FastifyReply) => {
    const needs = request.routeOptions.config.operator;
    if (needs === undefined || needs === 'public') {
      const session = await deps.sessions.read(request, 'operator');
      if (session) {
        request.operatorSession = session;
        request.staff = (await deps.staff.get(session.subject_id)) ?? null;
      }
      return;
    }
    const isApi = request.url.startsWith('/operator/v1/');
    const bearer = request.headers.authorization;
    if (isApi && bearer !== undefined) {
      const token = bearer.startsWith('Bearer ') ? bearer.slice('Bearer '.length) : '';
      if (deps.cliToken === undefined || !safeEqual(token, deps.cliToken)) {
        throw new ApiError('unauthorized', 'The operator token is not valid.');
      }
      request.staff = CLI_STAFF;
    } else {
      const session = await deps.sessions.read(request, 'operator');
      const staff = session ? await deps.staff.get(session.subject_id) : undefined;
      if (!session || !staff) {
        if (isApi) throw new ApiError('unauthorized', 'Log in to the operator console first.');
        return reply.redirect(`/login?next=${encodeURIComponent(request.url)}`, 303);
      }
      if (UNSAFE.has(request.method)) deps.sessions.assertCsrf(request, session);
      request.staff = staff;
      request.operatorSession = session;
    }
    if (!can(request.staff, needs)) {
      throw new ApiError('forbidden', `Your staff role (${request.staff.role}) may not do this.`);
    }
  });
}

/** What logging staff in and out needs: the accounts, the sessions, the audit log. */
export type LoginDeps = { staff: StaffService; sessions: SessionManager; audit: AuditLog; db: Kdb };

/** The login's own dependencies, out of a front end's. */
export function loginDeps(deps: LoginDeps): LoginDeps {
  return { staff: deps.staff, sessions: deps.sessions, audit: deps.audit, db: deps.db };
}

/**
 * Checks a staff member's password, ends the session the browser already had, starts a new operator
 * session and audits the login (failures are audited by the staff service).
 */
export async function logInStaff(
  deps: LoginDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  credentials: { email: string; password: string },
): Promise<{ staff: Staff; session: Session }> {
  const authenticated = await deps.staff.authenticate(credentials.email, credentials.password, {
    ip: request.ip,
    requestId: request.id,
  });
  if (!authenticated.ok && authenticated.error.code === 'login_throttled')
    reply.header('retry-after', authenticated.error.retryAfterSeconds);
  const staff = valueOf(authenticated);
  if (request.operatorSession) await deps.sessions.end(reply, request.operatorSession);
  const session = await deps.sessions.start(reply, {
    realm: 'operator',
    subjectId: staff.id,
    stage: 'active',
    request,
  });
  await auditSession(deps, request, staff.id, 'staff.login');
  return { staff, session };
}

/** Ends the request's operator session, if it has one, and audits the logout. */
export async function logOutStaff(
  deps: LoginDeps,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<void> {
  const session = request.operatorSession;
  if (!session) return;
  await deps.sessions.end(reply, session);
  await auditSession(deps, request, session.subject_id, 'staff.logout');
}

/** The audit entry of a staff member's login or logout, made by that member. */
function auditSession(
  deps: LoginDeps,
  request: FastifyRequest,
  staffId: string,
  action: 'staff.login' | 'staff.logout',
): Promise<void> {
  return deps.audit.record(deps.db, {
    actor: `staff:${staffId}`,
    action,
    targetType: 'staff',
    targetId: staffId,
    requestId: request.id,
    ip: request.ip,
  });
}
