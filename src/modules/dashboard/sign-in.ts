import type { FastifyReply, FastifyRequest } from 'fastify';
import { accountAddressLimit, loginFloodGuard } from '../../http/rate-limit.js';
import type { App } from '../../http/server.js';
import type { Session } from '../../http/session.js';
import { contextOf, DASHBOARD_RATE_LIMITS, localeOf } from '../users/http.js';
import {
  CodeFormSchema,
  CsrfFormSchema,
  LoginFormSchema,
  SetPasswordFormSchema,
  TokenParamsSchema,
} from '../users/schemas.js';
import type { UserError } from '../users/errors.js';
import { DASHBOARD_REALM, type UserService } from '../users/service.js';
import { format, passwordProblemKey } from './i18n.js';
import { clientMessages, linkProblem, PageQuerySchema, QUIET, type PageKit } from './kit.js';

const LOGIN_NOTICES = ['signed_out', 'expired', 'password_set'] as const;
type LoginNotice = (typeof LOGIN_NOTICES)[number];

/**
 * The dashboard's anonymous pages: login with the second factor, logout, the forgotten-password and
 * reset pages, and the activation and invitation links that set a password.
 */
export async function signInPages(app: App, options: { kit: PageKit; users: UserService }): Promise<void> {
  const { kit, users } = options;
  const { auth, sessions } = kit;
  kit.handleErrors(app);
  const loginLimit = accountAddressLimit(app, 'dashboard-login', DASHBOARD_RATE_LIMITS.login);
  const loginFlood = loginFloodGuard(app, 'dashboard-login', DASHBOARD_RATE_LIMITS.loginFlood);
  const secondFactorLimit = accountAddressLimit(app, 'dashboard-2fa', DASHBOARD_RATE_LIMITS.secondFactor);

  const loginPage = (
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    extra: { error?: 'invalid' | 'throttled'; wait?: number; notice?: LoginNotice; email?: string },
  ) =>
    kit.render(request, reply, 'dashboard-login', status, {
      title: (m) => m.login.title,
      csrf: auth.formToken(request, reply),
      error: extra.error,
      wait: extra.wait ?? 0,
      notice: extra.notice,
      email: extra.email ?? '',
    });

  /** 429 with `Retry-After`: the login form again, saying how many seconds to wait. */
  const throttledLoginPage = (request: FastifyRequest, reply: FastifyReply, wait: number, email: string) => {
    reply.header('retry-after', wait);
    return loginPage(request, reply, 429, { error: 'throttled', wait, email });
  };

  app.get('/login', { schema: { hide: true, querystring: PageQuerySchema } }, async (request, reply) => {
    if (await auth.signedIn(request)) return kit.redirect(request, reply, '/dashboard');
    const notice = LOGIN_NOTICES.find((candidate) => candidate === request.query.notice);
    return loginPage(request, reply, 200, notice ? { notice } : {});
  });

  app.post(
    '/login',
    {
      schema: { hide: true, querystring: PageQuerySchema, body: LoginFormSchema },
    },
    async (request, reply) => {
      const { email, password } = request.body;
      // Before anything else, so that a flood stays cheap; it never refuses an e-mail that signed in
      // from this address, so a neighbour's flood cannot keep the people who work here out.
      await loginFlood.check(request, reply, email);
      auth.assertFormToken(request);
      await loginLimit(request, reply, email);
      const result = await users.login({ email, password }, contextOf(request));
      if (!result.ok) {
        if (result.error.code === 'throttled')
          return throttledLoginPage(request, reply, result.error.retryAfterSeconds, email.trim());
        return loginPage(request, reply, 401, { error: 'invalid', email: email.trim() });
      }
      await endCurrentSession(request, reply);
      if (!result.value.mfaRequired) await loginFlood.prove(request, email);
      const stage = result.value.mfaRequired ? 'pending_mfa' : 'active';
      await sessions.start(reply, { realm: DASHBOARD_REALM, subjectId: result.value.userId, stage, request });
      return kit.redirect(request, reply, stage === 'active' ? '/dashboard' : '/login/2fa');
    },
  );

  const endCurrentSession = async (request: FastifyRequest, reply: FastifyReply) => {
    const existing = await sessions.read(request, DASHBOARD_REALM);
    if (existing) await sessions.end(reply, existing);
  };

  const mfaPage = (
    request: FastifyRequest,
    reply: FastifyReply,
    session: Session,
    status: number,
    error?: string,
  ) =>
    kit.render(request, reply, 'dashboard-mfa', status, {
      title: (m) => m.mfa.title,
      csrf: session.csrfToken,
      error,
    });

  app.get('/login/2fa', { schema: { hide: true, querystring: PageQuerySchema } }, async (request, reply) => {
    const session = await auth.pendingMfa(request, reply);
    if (!session) return kit.redirect(request, reply, '/login', { notice: 'expired' });
    return mfaPage(request, reply, session, 200);
  });

  app.post(
    '/login/2fa',
    {
      schema: { hide: true, querystring: PageQuerySchema, body: CodeFormSchema },
    },
    async (request, reply) => {
      const session = await auth.pendingMfa(request, reply);
      if (!session) return kit.redirect(request, reply, '/login', { notice: 'expired' });
      sessions.assertCsrf(request, session);
      // Per address and account, once the half-open session is known: posts without one (or for
      // another account) never use up this account's tries. Only the password opens such a session.
      await secondFactorLimit(request, reply, session.subject_id);
      const result = await users.completeMfaLogin(session.subject_id, request.body.code, contextOf(request));
      if (!result.ok) {
        if (result.error.code === 'invalid_code') return mfaPage(request, reply, session, 401, 'invalid');
        // Waiting (or gone): the half-open session ends, and the password is asked again after the wait.
        await sessions.end(reply, session);
        if (result.error.code === 'throttled') {
          const account = await users.account(session.subject_id);
          return throttledLoginPage(
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
    },
  );

  app.post(
    '/logout',
    { schema: { hide: true, querystring: PageQuerySchema, body: CsrfFormSchema } },
    async (request, reply) => {
      const session = await sessions.read(request, DASHBOARD_REALM);
      if (session) {
        sessions.assertCsrf(request, session);
        await sessions.end(reply, session);
        const account = await users.account(session.subject_id);
        if (account) await users.recordAudit(account.user, 'user.logout', contextOf(request));
      }
      return kit.redirect(request, reply, '/login', { notice: 'signed_out' });
    },
  );

  app.get(
    '/forgot-password',
    { schema: { hide: true, querystring: PageQuerySchema } },
    async (request, reply) =>
      kit.render(request, reply, 'dashboard-forgot', 200, {
        title: (m) => m.forgot.title,
        script: 'dashboard.js',
        messagesJson: clientMessages(localeOf(request)),
      }),
  );

  app.get(
    '/reset-password/:token',
    { schema: { hide: true, params: TokenParamsSchema, querystring: PageQuerySchema }, logLevel: QUIET },
    async (request, reply) => {
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
    },
  );

  // ---------------------------------------------------------------- activation and invitation links

  const setPasswordPage = (
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    input: {
      kind: 'activation' | 'invitation';
      view: { email: string; organizationName: string; role: string };
      error?: string;
      name?: string;
    },
  ) =>
    kit.render(request, reply, 'dashboard-set-password', status, {
      title: (m) =>
        input.kind === 'activation'
          ? m.activation.title
          : format(m.invitation.title, { organization: input.view.organizationName }),
      kind: input.kind,
      action: request.url.split('?')[0],
      csrf: auth.formToken(request, reply),
      view: input.view,
      error: input.error,
      name: input.name ?? '',
    });

  for (const kind of ['activation', 'invitation'] as const) {
    const path = kind === 'activation' ? '/activate/:token' : '/invitation/:token';

    app.get(
      path,
      { schema: { hide: true, params: TokenParamsSchema, querystring: PageQuerySchema }, logLevel: QUIET },
      async (request, reply) => {
        const view = await users.inspectToken(kind, request.params.token);
        if (view.state !== 'valid') {
          return kit.message(request, reply, view.state === 'used' ? 410 : 404, (m) =>
            linkProblem(m, view.state),
          );
        }
        return setPasswordPage(request, reply, 200, { kind, view });
      },
    );

    app.post(
      path,
      {
        schema: {
          hide: true,
          params: TokenParamsSchema,
          querystring: PageQuerySchema,
          body: SetPasswordFormSchema,
        },
        config: { rateLimit: DASHBOARD_RATE_LIMITS.accountLink },
        logLevel: QUIET,
      },
      async (request, reply) => {
        auth.assertFormToken(request);
        const { token } = request.params;
        const { password, passwordConfirmation } = request.body;
        const name = request.body.name ?? '';
        const view = await users.inspectToken(kind, token);
        if (view.state !== 'valid') {
          return kit.message(request, reply, view.state === 'used' ? 410 : 404, (m) =>
            linkProblem(m, view.state),
          );
        }
        if (password !== passwordConfirmation) {
          return setPasswordPage(request, reply, 400, { kind, view, error: 'mismatch', name });
        }
        const refused = (failure: UserError) => {
          if (failure.code === 'weak_password') {
            const error = passwordProblemKey(failure.problem);
            return setPasswordPage(request, reply, 400, { kind, view, error, name });
          }
          const state = failure.code === 'token_used' ? 'used' : 'invalid';
          return kit.message(request, reply, state === 'used' ? 410 : 404, (m) => linkProblem(m, state));
        };
        if (kind === 'activation') {
          const result = await users.activate({ token, password }, contextOf(request));
          if (!result.ok) return refused(result.error);
          const account = await users.account(result.value.userId);
          // The only time the live key exists outside a hash: this response, never cached.
          return kit.render(request, reply, 'dashboard-activated', 200, {
            title: (m) => m.activation.doneTitle,
            email: result.value.email,
            liveKey: result.value.liveKey.secret,
            // Switching language would reload the used link: the key would be gone.
            noLanguageSwitch: true,
            kycReviewing: account?.organization.kycStatus !== 'APPROVED',
          });
        }
        const result = await users.acceptInvitation({ token, password, name }, contextOf(request));
        if (!result.ok) return refused(result.error);
        return kit.message(request, reply, 200, (m) => ({
          title: m.invitation.doneTitle,
          body: m.invitation.doneBody,
        }));
      },
    );
  }
}
