import type { FastifyReply, FastifyRequest } from 'fastify';
import { accountAddressLimit, loginFloodGuard } from '../../http/rate-limit.js';
import type { App } from '../../http/server.js';
import type { Session } from '../../http/session.js';
import { contextOf, DASHBOARD_RATE_LIMITS, localeOf } from '../users/http.js';
import { CodeFormSchema, CsrfFormSchema, LoginFormSchema } from '../users/schemas.js';
import { DASHBOARD_REALM } from '../users/realm.js';
import type { UserService } from '../users/service.js';
import {
  clientMessages,
  linkProblem,
  PageQuerySchema,
  QUIET,
  type PageKit,
  type PageRequest,
} from './kit.js';
import { setPassword, SetPasswordRoute, showSetPassword, TokenPageRoute } from './set-password.js';
import type { SignInDeps } from './sign-in-deps.js';

const LOGIN_NOTICES = ['signed_out', 'expired', 'password_set'] as const;
type LoginNotice = (typeof LOGIN_NOTICES)[number];

const PageRoute = { hide: true, querystring: PageQuerySchema };
const LoginRoute = { hide: true, querystring: PageQuerySchema, body: LoginFormSchema };
const SecondFactorRoute = { hide: true, querystring: PageQuerySchema, body: CodeFormSchema };
const LogoutRoute = { hide: true, querystring: PageQuerySchema, body: CsrfFormSchema };

/**
 * The dashboard's anonymous pages: login with the second factor, logout, the forgotten-password and
 * reset pages, and the activation and invitation links that set a password.
 */
export async function signInPages(app: App, options: { kit: PageKit; users: UserService }): Promise<void> {
  const { kit } = options;
  kit.handleErrors(app);
  const deps: SignInDeps = {
    ...options,
    loginLimit: accountAddressLimit(app, 'dashboard-login', DASHBOARD_RATE_LIMITS.login),
    loginFlood: loginFloodGuard(app, 'dashboard-login', DASHBOARD_RATE_LIMITS.loginFlood),
    secondFactorLimit: accountAddressLimit(app, 'dashboard-2fa', DASHBOARD_RATE_LIMITS.secondFactor),
  };

  app.get('/login', { schema: PageRoute }, (request, reply) => showLogin(deps, request, reply));
  app.post('/login', { schema: LoginRoute }, (request, reply) => login(deps, request, reply));
  app.get('/login/2fa', { schema: PageRoute }, (request, reply) => showSecondFactor(deps, request, reply));
  app.post('/login/2fa', { schema: SecondFactorRoute }, (request, reply) =>
    completeSecondFactor(deps, request, reply),
  );
  app.post('/logout', { schema: LogoutRoute }, (request, reply) => logout(deps, request, reply));
  app.get('/forgot-password', { schema: PageRoute }, (request, reply) => showForgot(deps, request, reply));
  app.get('/reset-password/:token', { schema: TokenPageRoute, logLevel: QUIET }, (request, reply) =>
    showReset(deps, request, reply),
  );

  // ---------------------------------------------------------------- activation and invitation links

  for (const kind of ['activation', 'invitation'] as const) {
    const path = kind === 'activation' ? '/activate/:token' : '/invitation/:token';
    app.get(path, { schema: TokenPageRoute, logLevel: QUIET }, (request, reply) =>
      showSetPassword(deps, kind, request, reply),
    );
    app.post(
      path,
      {
        schema: SetPasswordRoute,
        config: { rateLimit: DASHBOARD_RATE_LIMITS.accountLink },
        logLevel: QUIET,
      },
      (request, reply) => setPassword(deps, kind, request, reply),
    );
  }
}

// ---------------------------------------------------------------- login and the second factor

function loginPage(
  { kit }: SignInDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  extra: { error?: 'invalid' | 'throttled'; wait?: number; notice?: LoginNotice; email?: string },
) {
  return kit.render(request, reply, 'dashboard-login', status, {
    title: (m) => m.login.title,
    csrf: kit.auth.formToken(request, reply),
    error: extra.error,
    wait: extra.wait ?? 0,
    notice: extra.notice,
    email: extra.email ?? '',
  });
}

/** 429 with `Retry-After`: the login form again, saying how many seconds to wait. */
function throttledLoginPage(
  deps: SignInDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  wait: number,
  email: string,
) {
  reply.header('retry-after', wait);
  return loginPage(deps, request, reply, 429, { error: 'throttled', wait, email });
}

async function showLogin(deps: SignInDeps, request: PageRequest<typeof PageRoute>, reply: FastifyReply) {
  const { kit } = deps;
  if (await kit.auth.signedIn(request)) return kit.redirect(request, reply, '/dashboard');
  const notice = LOGIN_NOTICES.find((candidate) => candidate === request.query.notice);
  return loginPage(deps, request, reply, 200, notice ? { notice } : {});
}

async function login(deps: SignInDeps, request: PageRequest<typeof LoginRoute>, reply: FastifyReply) {
  const { kit, users, loginFlood, loginLimit } = deps;
  const { email, password } = request.body;
  // Before anything else, so that a flood stays cheap; it never refuses an e-mail that signed in
  // from this address, so a neighbour's flood cannot keep the people who work here out.
  await loginFlood.check(request, reply, email);
  kit.auth.assertFormToken(request);
  await loginLimit(request, reply, email);
  const result = await users.login({ email, password }, contextOf(request));
  if (!result.ok) {
    if (result.error.code === 'throttled')
      return throttledLoginPage(deps, request, reply, result.error.retryAfterSeconds, email.trim());
    return loginPage(deps, request, reply, 401, { error: 'invalid', email: email.trim() });
  }
  await endCurrentSession(deps, request, reply);
  if (!result.value.mfaRequired) await loginFlood.prove(request, email);
  const stage = result.value.mfaRequired ? 'pending_mfa' : 'active';
  await kit.sessions.start(reply, { realm: DASHBOARD_REALM, subjectId: result.value.userId, stage, request });
  return kit.redirect(request, reply, stage === 'active' ? '/dashboard' : '/login/2fa');
}

async function endCurrentSession({ kit }: SignInDeps, request: FastifyRequest, reply: FastifyReply) {
  const existing = await kit.sessions.read(request, DASHBOARD_REALM);
  if (existing) await kit.sessions.end(reply, existing);
}

function mfaPage(
  { kit }: SignInDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  session: Session,
  status: number,
  error?: string,
) {
  return kit.render(request, reply, 'dashboard-mfa', status, {
    title: (m) => m.mfa.title,
    csrf: session.csrfToken,
    error,
  });
}

async function showSecondFactor(
  deps: SignInDeps,
  request: PageRequest<typeof PageRoute>,
  reply: FastifyReply,
) {
  const { kit } = deps;
  const session = await kit.auth.pendingMfa(request, reply);
  if (!session) return kit.redirect(request, reply, '/login', { notice: 'expired' });
  return mfaPage(deps, request, reply, session, 200);
}

async function completeSecondFactor(
  deps: SignInDeps,
  request: PageRequest<typeof SecondFactorRoute>,
  reply: FastifyReply,
) {
  const { kit, users, loginFlood, secondFactorLimit } = deps;
  const { sessions } = kit;
  const session = await kit.auth.pendingMfa(request, reply);
  if (!session) return kit.redirect(request, reply, '/login', { notice: 'expired' });
  sessions.assertCsrf(request, session);
  // Per address and account, once the half-open session is known: posts without one (or for
  // another account) never use up this account's tries. Only the password opens such a session.
  await secondFactorLimit(request, reply, session.subject_id);
  const result = await users.completeMfaLogin(session.subject_id, request.body.code, contextOf(request));
  if (!result.ok) {
    if (result.error.code === 'invalid_code') return mfaPage(deps, request, reply, session, 401, 'invalid');
    // Waiting (or gone): the half-open session ends, and the password is asked again after the wait.
    await sessions.end(reply, session);
    if (result.error.code === 'throttled') {
      const account = await users.account(session.subject_id);
      return throttledLoginPage(
        deps,
        request,
        reply,
        result.error.retryAfterSeconds,
        account?.user.email ?? '',
      );
    }
    return kit.redirect(request, reply, '/login', { notice: 'expired' });
  }
  const account = await users.account(session.subject_id);
  if (account) await loginFlood.prove(request, account.user.email);
  // A new session id once the second factor is passed: the half-open one is never promoted.
  await sessions.end(reply, session);
  await sessions.start(reply, {
    realm: DASHBOARD_REALM,
    subjectId: session.subject_id,
    stage: 'active',
    request,
  });
  return kit.redirect(request, reply, '/dashboard');
}

// ---------------------------------------------------------------- logout, and the forgotten password

async function logout(
  { kit, users }: SignInDeps,
  request: PageRequest<typeof LogoutRoute>,
  reply: FastifyReply,
) {
  const { sessions } = kit;
  const session = await sessions.read(request, DASHBOARD_REALM);
  if (session) {
    sessions.assertCsrf(request, session);
    await sessions.end(reply, session);
    const account = await users.account(session.subject_id);
    if (account) await users.recordAudit(account.user, 'user.logout', contextOf(request));
  }
  return kit.redirect(request, reply, '/login', { notice: 'signed_out' });
}

async function showForgot({ kit }: SignInDeps, request: PageRequest<typeof PageRoute>, reply: FastifyReply) {
  return kit.render(request, reply, 'dashboard-forgot', 200, {
    title: (m) => m.forgot.title,
    script: 'dashboard.js',
    messagesJson: clientMessages(localeOf(request)),
  });
}

async function showReset(
  { kit, users }: SignInDeps,
  request: PageRequest<typeof TokenPageRoute>,
  reply: FastifyReply,
) {
  const view = await users.inspectToken('password_reset', request.params.token);
  if (view.state !== 'valid')
    return kit.message(request, reply, 404, (m) => linkProblem(m, view.state), 'forgot');
  return kit.render(request, reply, 'dashboard-reset', 200, {
    title: (m) => m.reset.title,
    script: 'dashboard.js',
    token: request.params.token,
    email: view.email,
    messagesJson: clientMessages(localeOf(request)),
  });
}
