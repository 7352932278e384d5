import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { ApiKeyScope, KycStatus, UserRole } from '../../db/schema.js';
import { ApiError } from '../../http/errors.js';
import { toApiError, type App } from '../../http/server.js';
import type { Session, SessionManager } from '../../http/session.js';
import type { Urls } from '../../services.js';
import type { Locale } from '../../web/i18n.js';
import { jsonForScript, type Renderer } from '../../web/render.js';
import type { ApiKeyAuth } from '../api-keys/context.js';
import { normalizeCidr } from '../api-keys/ip-allowlist.js';
import { API_KEY_LIMITS, API_KEY_SCOPES } from '../api-keys/schemas.js';
import type { ApiKeyService } from '../api-keys/service.js';
import { DASHBOARD_MESSAGES, format, passwordProblemKey, type DashboardMessages } from './i18n.js';
import {
  contextOf,
  DASHBOARD_RATE_LIMITS,
  localeOf,
  localized,
  type DashboardAuth,
  type SignedIn,
} from './http.js';
import {
  ApiKeyFormSchema,
  ApiKeyParamsSchema,
  CodeFormSchema,
  CsrfFormSchema,
  EnvironmentFormSchema,
  InviteFormSchema,
  LoginFormSchema,
  SetPasswordFormSchema,
  TokenParamsSchema,
} from './schemas.js';
import { DASHBOARD_REALM, INVITABLE_ROLES, INVITING_ROLES, type UserService } from './service.js';
import { Type } from 'typebox';

export interface DashboardPagesOptions {
  users: UserService;
  auth: DashboardAuth;
  sessions: SessionManager;
  renderer: Renderer;
  urls: Urls;
  apiKeys: ApiKeyService;
}

/** Who may create and revoke API keys in the dashboard; a viewer only sees the list. */
export const API_KEY_MANAGING_ROLES: readonly UserRole[] = ['owner', 'admin', 'developer'];
/** How many keys the dashboard lists (newest first). */
const API_KEY_PAGE_LIMIT = 100;
const API_KEY_REQUEST_PAGE_LIMIT = 50;
const DATE_SHAPE = /^\d{4}-\d{2}-\d{2}$/;

type ApiKeyFormError =
  | { key: 'no_scope' | 'past_expiry' | 'invalid_date' | 'not_permitted' }
  | { key: 'invalid_cidr'; value: string }
  | { key: 'too_many_ips'; max: number };
interface ApiKeyFormValues {
  name: string;
  scopes: string[];
  allowedIps: string;
  expiresAt: string;
}
const EMPTY_KEY_FORM: ApiKeyFormValues = { name: '', scopes: [], allowedIps: '', expiresAt: '' };

const LOGIN_NOTICES = ['signed_out', 'expired', 'password_set'] as const;
type LoginNotice = (typeof LOGIN_NOTICES)[number];
const PageQuerySchema = Type.Object({
  lang: Type.Optional(Type.String()),
  notice: Type.Optional(Type.String()),
});
// Pages reached through an e-mailed link carry a secret in the path: they are kept out of request logs.
const QUIET = 'warn' as const;
const EMAIL_SHAPE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** The merchant dashboard's pages (server-rendered, Turkish and English, no inline script or style). */
export async function dashboardPages(app: App, options: DashboardPagesOptions): Promise<void> {
  const { users, auth, sessions, renderer, urls, apiKeys } = options;

  const render = (
    request: FastifyRequest,
    reply: FastifyReply,
    view: string,
    status: number,
    data: { title: (m: DashboardMessages) => string; script?: string } & Record<string, unknown>,
  ) => {
    const locale = localeOf(request);
    const m = DASHBOARD_MESSAGES[locale];
    const html = renderer.render(view, {
      ...data,
      locale,
      otherLocale: locale === 'en' ? 'tr' : 'en',
      languageSwitch: m.languageSwitch,
      title: data.title(m),
      script: data.script,
      m,
      href: (path: string, extra?: Record<string, string>) => localized(path, locale, extra),
      fmt: format,
    });
    return reply
      .code(status)
      .type('text/html; charset=utf-8')
      .header('cache-control', 'no-store')
      .header('content-language', locale)
      .send(html);
  };

  const message = (
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    text: (m: DashboardMessages) => { title: string; body: string },
    link: 'login' | 'forgot' | 'none' = 'login',
  ) =>
    render(request, reply, 'dashboard-message', status, {
      title: (m) => text(m).title,
      text,
      link,
    });

  const redirect = (
    request: FastifyRequest,
    reply: FastifyReply,
    path: string,
    extra?: Record<string, string>,
  ) =>
    reply
      .code(303)
      .header('cache-control', 'no-store')
      .redirect(localized(path, localeOf(request), extra), 303);

  // Errors of the pages (refused CSRF token, rate limit, malformed form) are pages too.
  app.setErrorHandler((error: FastifyError | ApiError, request, reply) => {
    const apiError = toApiError(error);
    if (apiError.statusCode >= 500) request.log.error({ err: error, code: apiError.code }, 'request failed');
    else request.log.info({ code: apiError.code, statusCode: apiError.statusCode }, 'request refused');
    const body = (m: DashboardMessages) => {
      switch (apiError.code) {
        case 'forbidden':
          return m.errors.csrf;
        case 'too_many_requests':
          return m.errors.rateLimited;
        case 'not_found':
          return m.errors.notFound;
        default:
          return `${m.errors.generic} ${request.id}`;
      }
    };
    return message(request, reply, apiError.statusCode, (m) => ({ title: m.brand, body: body(m) }), 'none');
  });

  /** The signed-in user, or a redirect to the login page (and undefined). */
  const signedInOrRedirect = async (request: FastifyRequest, reply: FastifyReply) => {
    const current = await auth.signedIn(request);
    if (!current) await redirect(request, reply, '/login');
    return current;
  };

  // ---------------------------------------------------------------- login, second factor, logout

  const loginPage = (
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    extra: { error?: 'invalid' | 'throttled'; wait?: number; notice?: LoginNotice; email?: string },
  ) =>
    render(request, reply, 'dashboard-login', status, {
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
    if (await auth.signedIn(request)) return redirect(request, reply, '/dashboard');
    const notice = LOGIN_NOTICES.find((candidate) => candidate === request.query.notice);
    return loginPage(request, reply, 200, notice ? { notice } : {});
  });

  app.post(
    '/login',
    {
      schema: { hide: true, querystring: PageQuerySchema, body: LoginFormSchema },
      config: { rateLimit: DASHBOARD_RATE_LIMITS.login },
    },
    async (request, reply) => {
      auth.assertFormToken(request);
      const { email, password } = request.body;
      const result = await users.login({ email, password }, contextOf(request));
      if (!result.ok) {
        if (result.error === 'throttled')
          return throttledLoginPage(request, reply, result.retryAfterSeconds ?? 1, email.trim());
        return loginPage(request, reply, 401, { error: 'invalid', email: email.trim() });
      }
      await endCurrentSession(request, reply);
      const stage = result.value.mfaRequired ? 'pending_mfa' : 'active';
      await sessions.start(reply, { realm: DASHBOARD_REALM, subjectId: result.value.userId, stage, request });
      return redirect(request, reply, stage === 'active' ? '/dashboard' : '/login/2fa');
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
    render(request, reply, 'dashboard-mfa', status, {
      title: (m) => m.mfa.title,
      csrf: session.csrfToken,
      error,
    });

  app.get('/login/2fa', { schema: { hide: true, querystring: PageQuerySchema } }, async (request, reply) => {
    const session = await auth.pendingMfa(request, reply);
    if (!session) return redirect(request, reply, '/login', { notice: 'expired' });
    return mfaPage(request, reply, session, 200);
  });

  app.post(
    '/login/2fa',
    {
      schema: { hide: true, querystring: PageQuerySchema, body: CodeFormSchema },
      config: { rateLimit: DASHBOARD_RATE_LIMITS.secondFactor },
    },
    async (request, reply) => {
      const session = await auth.pendingMfa(request, reply);
      if (!session) return redirect(request, reply, '/login', { notice: 'expired' });
      sessions.assertCsrf(request, session);
      const result = await users.completeMfaLogin(session.subject_id, request.body.code, contextOf(request));
      if (!result.ok) {
        if (result.error === 'invalid_code') return mfaPage(request, reply, session, 401, 'invalid');
        // Waiting (or gone): the half-open session ends, and the password is asked again after the wait.
        await sessions.end(reply, session);
        if (result.error === 'throttled') {
          const account = await users.account(session.subject_id);
          return throttledLoginPage(request, reply, result.retryAfterSeconds ?? 1, account?.user.email ?? '');
        }
        return redirect(request, reply, '/login', { notice: 'expired' });
      }
      // A new session id once the second factor is passed: the half-open one is never promoted.
      await sessions.end(reply, session);
      await sessions.start(reply, {
        realm: DASHBOARD_REALM,
        subjectId: session.subject_id,
        stage: 'active',
        request,
      });
      return redirect(request, reply, '/dashboard');
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
      return redirect(request, reply, '/login', { notice: 'signed_out' });
    },
  );

  // ---------------------------------------------------------------- dashboard home and settings

  const homePage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    current: SignedIn,
    status: number,
    extra: { notice?: 'invited'; inviteError?: 'email_taken' | 'not_permitted' | 'invalid_email' } = {},
  ) => {
    const { account, session } = current;
    const canInvite = INVITING_ROLES.includes(account.user.role);
    return render(request, reply, 'dashboard-home', status, {
      title: (m) => m.home.title,
      nav: true,
      csrf: session.csrfToken,
      user: account.user,
      organization: {
        name: account.organization.name,
        kycStatus: account.organization.kycStatus as KycStatus,
      },
      environment: session.environment,
      apiBaseUrl: session.environment === 'live' ? urls.liveApi() : urls.sandboxApi(),
      team: await users.team(account.organization.id),
      canInvite,
      invitableRoles: INVITABLE_ROLES,
      notice: extra.notice,
      inviteError: extra.inviteError,
    });
  };

  app.get('/dashboard', { schema: { hide: true, querystring: PageQuerySchema } }, async (request, reply) => {
    const current = await signedInOrRedirect(request, reply);
    if (!current) return reply;
    return homePage(
      request,
      reply,
      current,
      200,
      request.query.notice === 'invited' ? { notice: 'invited' } : {},
    );
  });

  app.post(
    '/dashboard/environment',
    { schema: { hide: true, querystring: PageQuerySchema, body: EnvironmentFormSchema } },
    async (request, reply) => {
      const current = await signedInOrRedirect(request, reply);
      if (!current) return reply;
      sessions.assertCsrf(request, current.session);
      const environment = request.body.environment;
      if (environment !== current.session.environment) {
        await sessions.setEnvironment(current.session, environment);
        await users.recordAudit(current.account.user, 'session.environment_changed', contextOf(request), {
          after: { environment },
        });
      }
      return redirect(request, reply, '/dashboard');
    },
  );

  app.post(
    '/dashboard/team/invitations',
    {
      schema: { hide: true, querystring: PageQuerySchema, body: InviteFormSchema },
      config: { rateLimit: DASHBOARD_RATE_LIMITS.accountSettings },
    },
    async (request, reply) => {
      const current = await signedInOrRedirect(request, reply);
      if (!current) return reply;
      sessions.assertCsrf(request, current.session);
      if (!INVITING_ROLES.includes(current.account.user.role)) {
        return homePage(request, reply, current, 403, { inviteError: 'not_permitted' });
      }
      const email = request.body.email.trim();
      if (!EMAIL_SHAPE.test(email))
        return homePage(request, reply, current, 400, { inviteError: 'invalid_email' });
      const name = request.body.name?.trim() ?? '';
      const result = await users.invite(
        current.account.user.id,
        { email, role: request.body.role, name: name === '' ? null : name },
        contextOf(request),
      );
      if (!result.ok) {
        const inviteError = result.error === 'email_taken' ? 'email_taken' : 'not_permitted';
        return homePage(request, reply, current, inviteError === 'email_taken' ? 409 : 403, { inviteError });
      }
      return redirect(request, reply, '/dashboard', { notice: 'invited' });
    },
  );

  app.get(
    '/dashboard/security',
    { schema: { hide: true, querystring: PageQuerySchema } },
    async (request, reply) => {
      const current = await signedInOrRedirect(request, reply);
      if (!current) return reply;
      const { account, session } = current;
      return render(request, reply, 'dashboard-security', 200, {
        title: (m) => m.security.title,
        script: 'dashboard.js',
        nav: true,
        csrf: session.csrfToken,
        user: account.user,
        recoveryCodesLeft: account.user.totp === 'on' ? await users.recoveryCodesLeft(account.user.id) : 0,
        messagesJson: clientMessages(localeOf(request)),
      });
    },
  );

  // ---------------------------------------------------------------- API keys (issue 4)

  /**
   * The signed-in user as an API-key caller: the organization and the session's environment, every
   * scope. Dashboard key management does not depend on the organization's `apiKeys` flag (which gates
   * the public /v1/api-keys API); the audit actor is the user, given in the request meta.
   */
  const keyCallerOf = ({ account, session }: SignedIn): ApiKeyAuth => ({
    keyId: `dashboard:${account.user.id}`,
    organizationId: account.organization.id,
    environment: session.environment,
    scopes: ['all'],
    featureFlags: account.organization.featureFlags,
  });
  const keyMeta = (request: FastifyRequest, current: SignedIn) => ({
    requestId: request.id,
    ip: request.ip,
    actor: `user:${current.account.user.id}`,
  });

  const apiKeysPage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    current: SignedIn,
    status: number,
    extra: { errors?: ApiKeyFormError[]; form?: ApiKeyFormValues; notice?: 'revoked' } = {},
  ) => {
    const { account, session } = current;
    const page = await apiKeys.list(keyCallerOf(current), { limit: API_KEY_PAGE_LIMIT });
    return render(request, reply, 'dashboard-api-keys', status, {
      title: (m) => m.apiKeys.title,
      nav: true,
      csrf: session.csrfToken,
      environment: session.environment,
      keys: page.data,
      canManage: API_KEY_MANAGING_ROLES.includes(account.user.role),
      scopeChoices: API_KEY_SCOPES,
      errors: extra.errors ?? [],
      form: extra.form ?? EMPTY_KEY_FORM,
      notice: extra.notice,
      when: displayTime,
    });
  };

  app.get(
    '/dashboard/api-keys',
    { schema: { hide: true, querystring: PageQuerySchema } },
    async (request, reply) => {
      const current = await signedInOrRedirect(request, reply);
      if (!current) return reply;
      return apiKeysPage(
        request,
        reply,
        current,
        200,
        request.query.notice === 'revoked' ? { notice: 'revoked' } : {},
      );
    },
  );

  app.get(
    '/dashboard/api-keys/:id',
    {
      schema: {
        hide: true,
        params: ApiKeyParamsSchema,
        querystring: Type.Object({
          lang: Type.Optional(Type.String()),
          cursor: Type.Optional(Type.String({ maxLength: 512 })),
        }),
      },
    },
    async (request, reply) => {
      const current = await signedInOrRedirect(request, reply);
      if (!current) return reply;
      const caller = keyCallerOf(current);
      const key = await apiKeys.get(caller, request.params.id);
      const requests = await apiKeys.listRequests(caller, request.params.id, {
        limit: API_KEY_REQUEST_PAGE_LIMIT,
        ...(request.query.cursor !== undefined ? { cursor: request.query.cursor } : {}),
      });
      if (!key.ok || !requests.ok) throw new ApiError('not_found', 'No such API key.');
      return render(request, reply, 'dashboard-api-key', 200, {
        title: (m) => m.apiKeys.title,
        nav: true,
        csrf: current.session.csrfToken,
        environment: current.session.environment,
        key: key.value,
        requests: requests.value.data,
        nextCursor: requests.value.nextCursor,
        when: displayTime,
      });
    },
  );

  app.post(
    '/dashboard/api-keys',
    {
      schema: { hide: true, querystring: PageQuerySchema, body: ApiKeyFormSchema },
      config: { rateLimit: DASHBOARD_RATE_LIMITS.accountSettings },
    },
    async (request, reply) => {
      const current = await signedInOrRedirect(request, reply);
      if (!current) return reply;
      sessions.assertCsrf(request, current.session);
      const rawScopes = request.body.scopes ?? [];
      const form: ApiKeyFormValues = {
        name: (request.body.name ?? '').trim(),
        scopes: Array.isArray(rawScopes) ? rawScopes : [rawScopes],
        allowedIps: request.body.allowedIps ?? '',
        expiresAt: (request.body.expiresAt ?? '').trim(),
      };
      if (!API_KEY_MANAGING_ROLES.includes(current.account.user.role)) {
        return apiKeysPage(request, reply, current, 403, { errors: [{ key: 'not_permitted' }] });
      }

      const errors: ApiKeyFormError[] = [];
      const scopes = API_KEY_SCOPES.filter((scope) => form.scopes.includes(scope)) as ApiKeyScope[];
      if (scopes.length === 0) errors.push({ key: 'no_scope' });
      const allowedIps = form.allowedIps
        .split(/\r?\n/)
        .map((line) => line.trim())
        .filter((line) => line !== '');
      if (allowedIps.length > API_KEY_LIMITS.allowedIps) {
        errors.push({ key: 'too_many_ips', max: API_KEY_LIMITS.allowedIps });
      }
      // Checked here too (the service checks again) so that every mistake of the form shows at once.
      for (const entry of allowedIps) {
        if (normalizeCidr(entry) === undefined) errors.push({ key: 'invalid_cidr', value: entry });
      }
      let expiresAt: string | undefined;
      if (form.expiresAt !== '') {
        const date = new Date(`${form.expiresAt}T00:00:00.000Z`);
        if (!DATE_SHAPE.test(form.expiresAt) || Number.isNaN(date.getTime())) {
          errors.push({ key: 'invalid_date' });
        } else expiresAt = date.toISOString();
      }
      if (errors.length > 0) return apiKeysPage(request, reply, current, 400, { errors, form });

      const result = await apiKeys.create(
        keyCallerOf(current),
        {
          scopes,
          allowedIps,
          ...(expiresAt === undefined ? {} : { expiresAt }),
          ...(form.name === '' ? {} : { name: form.name }),
        },
        keyMeta(request, current),
      );
      if (!result.ok) {
        const issues = result.issues ?? [];
        const found: ApiKeyFormError[] = issues.map((issue) => {
          if (issue.path === 'expiresAt') return { key: 'past_expiry' };
          const index = Number(issue.path.split('.')[1]);
          return { key: 'invalid_cidr', value: allowedIps[index] ?? '' };
        });
        return apiKeysPage(request, reply, current, 400, {
          errors: found.length > 0 ? found : [{ key: 'not_permitted' }],
          form,
        });
      }
      // The only time the secret exists outside a hash: this response, never cached nor stored.
      return render(request, reply, 'dashboard-api-key-created', 200, {
        title: (m) => m.apiKeys.createdTitle,
        nav: true,
        csrf: current.session.csrfToken,
        key: result.value,
        secret: result.value.secret,
        // Switching language would reload the page: the key would be gone.
        noLanguageSwitch: true,
        when: displayTime,
      });
    },
  );

  app.post(
    '/dashboard/api-keys/:id/revoke',
    {
      schema: { hide: true, querystring: PageQuerySchema, params: ApiKeyParamsSchema, body: CsrfFormSchema },
      config: { rateLimit: DASHBOARD_RATE_LIMITS.accountSettings },
    },
    async (request, reply) => {
      const current = await signedInOrRedirect(request, reply);
      if (!current) return reply;
      sessions.assertCsrf(request, current.session);
      if (!API_KEY_MANAGING_ROLES.includes(current.account.user.role)) {
        return apiKeysPage(request, reply, current, 403, { errors: [{ key: 'not_permitted' }] });
      }
      const result = await apiKeys.revoke(keyCallerOf(current), request.params.id, keyMeta(request, current));
      if (!result.ok) throw new ApiError('not_found', 'No such API key.');
      return redirect(request, reply, '/dashboard/api-keys', { notice: 'revoked' });
    },
  );

  // ---------------------------------------------------------------- password reset pages

  app.get(
    '/forgot-password',
    { schema: { hide: true, querystring: PageQuerySchema } },
    async (request, reply) =>
      render(request, reply, 'dashboard-forgot', 200, {
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
        return message(request, reply, 404, (m) => linkProblem(m, view.state), 'forgot');
      return render(request, reply, 'dashboard-reset', 200, {
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
    render(request, reply, 'dashboard-set-password', status, {
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
          return message(request, reply, view.state === 'used' ? 410 : 404, (m) =>
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
          return message(request, reply, view.state === 'used' ? 410 : 404, (m) =>
            linkProblem(m, view.state),
          );
        }
        if (password !== passwordConfirmation) {
          return setPasswordPage(request, reply, 400, { kind, view, error: 'mismatch', name });
        }
        const refused = (failure: { error: string; problem?: string }) => {
          if (failure.error === 'weak_password') {
            const error = passwordProblemKey(failure.problem ?? '');
            return setPasswordPage(request, reply, 400, { kind, view, error, name });
          }
          const state = failure.error === 'token_used' ? 'used' : 'invalid';
          return message(request, reply, state === 'used' ? 410 : 404, (m) => linkProblem(m, state));
        };
        if (kind === 'activation') {
          const result = await users.activate({ token, password }, contextOf(request));
          if (!result.ok) return refused(result);
          const account = await users.account(result.value.userId);
          // The only time the live key exists outside a hash: this response, never cached.
          return render(request, reply, 'dashboard-activated', 200, {
            title: (m) => m.activation.doneTitle,
            email: result.value.email,
            liveKey: result.value.liveKey.secret,
            // Switching language would reload the used link: the key would be gone.
            noLanguageSwitch: true,
            kycReviewing: account?.organization.kycStatus !== 'APPROVED',
          });
        }
        const result = await users.acceptInvitation({ token, password, name }, contextOf(request));
        if (!result.ok) return refused(result);
        return message(request, reply, 200, (m) => ({
          title: m.invitation.doneTitle,
          body: m.invitation.doneBody,
        }));
      },
    );
  }
}

/** A time as the key list shows it: to the minute, UTC. */
function displayTime(date: Date | null): string {
  return date === null ? '' : `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

function linkProblem(m: DashboardMessages, state: 'used' | 'invalid') {
  return state === 'used'
    ? { title: m.link.usedTitle, body: m.link.usedBody }
    : { title: m.link.invalidTitle, body: m.link.invalidBody };
}

/** What dashboard.js needs to speak the page's language. */
function clientMessages(locale: Locale): string {
  const m = DASHBOARD_MESSAGES[locale];
  return jsonForScript({
    generic: m.errors.generic,
    rateLimited: m.errors.rateLimited,
    csrf: m.errors.csrf,
    passwordMismatch: m.errors.passwordMismatch,
    password: m.errors.password,
    forgotSent: m.forgot.sent,
    resetDone: m.reset.done,
    resetInvalid: m.reset.invalid,
    invalidCode: m.security.invalidCode,
    wrongCurrent: m.security.wrongCurrent,
    changed: m.security.changed,
    invalidEmail: m.home.inviteErrors.invalid_email,
  });
}
