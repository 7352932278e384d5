import type { FastifyRequest } from 'fastify';
import type { TSchema } from 'typebox';
import type { App } from '../../http/server.js';
import { ApiError, errorResponses } from '../../http/errors.js';
import { sha256Hex } from '../../shared/crypto.js';
import { toUserApiError } from './errors.js';
import { contextOf, DASHBOARD_RATE_LIMITS, type DashboardAuth, type SignedIn } from './http.js';
import {
  ChangePasswordSchema,
  EmptyBodySchema,
  ForgotPasswordAcceptedSchema,
  ForgotPasswordSchema,
  PasswordChangedSchema,
  PasswordResetSchema,
  ResetPasswordSchema,
  TotpCodeSchema,
  TotpDisabledSchema,
  TotpEnabledSchema,
  TotpEnrollmentSchema,
} from './schemas.js';
import type { UserService } from './service.js';

export interface AccountRoutesOptions {
  users: UserService;
  auth: DashboardAuth;
}

const FORGOT_PASSWORD_MESSAGE =
  'If an account exists for this address, a link to choose a new password is on its way. It is valid for 1 hour.';

const FORGOT_PASSWORD_DOC =
  'Always answers 202 with the same body, whether or not the address has an account; a link valid for ' +
  '1 hour is e-mailed only to an active account. Limited per client IP address.';

const SESSION_DOC =
  'Needs a signed-in dashboard session (cookie) and its CSRF token in the `X-CSRF-Token` header.';

/** The routes' bodies must be JSON, so a cross-site HTML form can never reach them. */
async function requireJson(request: FastifyRequest): Promise<void> {
  const type = request.headers['content-type'] ?? '';
  if (!/^application\/json\s*(;|$)/i.test(type)) {
    throw new ApiError(
      'unsupported_media_type',
      'Request bodies must be JSON (Content-Type: application/json).',
    );
  }
}

/** The signed-in user of a request that needs a session: checked first, then read by the handler. */
interface SessionGuard {
  requireSession(request: FastifyRequest): Promise<void>;
  current(request: FastifyRequest): SignedIn;
}

/**
 * The options of an account setting's route: behind the session (checked before the body), limited as
 * the account settings are, answering `answer` or one of `errors`.
 */
function settingRoute<
  const S extends { summary: string; description: string; body: TSchema },
  R extends TSchema,
>(guard: SessionGuard, schema: S, answer: R, errors = errorResponses(400, 401, 403, 409, 415, 429, 500)) {
  return {
    schema: { ...schema, response: { 200: answer, ...errors } },
    config: { rateLimit: DASHBOARD_RATE_LIMITS.accountSettings },
    preValidation: guard.requireSession,
  };
}

function sessionGuard(auth: DashboardAuth): SessionGuard {
  const signedIn = new WeakMap<FastifyRequest, SignedIn>();
  return {
    /** Authentication before validation: an anonymous caller learns nothing about the body's shape. */
    requireSession: async (request) => {
      signedIn.set(request, await auth.requireApiSession(request));
    },
    current: (request) => {
      const found = signedIn.get(request);
      if (!found) throw new Error('requireSession did not run');
      return found;
    },
  };
}

/**
 * Account self-service in JSON on the web listener (`/v1/auth/…`), used by the dashboard pages. The
 * anonymous ones are limited per IP; the others need a dashboard session and its CSRF token in the
 * `X-CSRF-Token` header. Bodies must be JSON, so a cross-site HTML form can never reach them.
 */
export async function accountRoutes(app: App, options: AccountRoutesOptions): Promise<void> {
  const { users, auth } = options;
  app.addHook('onRequest', requireJson);
  const guard = sessionGuard(auth);
  addPasswordRoutes(app, users, guard);
  addTwoFactorRoutes(app, users, guard);
}

/** Forgotten, reset and changed passwords, on the instance of `accountRoutes`. */
function addPasswordRoutes(app: App, users: UserService, guard: SessionGuard): void {
  app.post(
    '/v1/auth/forgot-password',
    {
      schema: {
        summary: 'Ask for a password reset link',
        description: FORGOT_PASSWORD_DOC,
        body: ForgotPasswordSchema,
        response: { 202: ForgotPasswordAcceptedSchema, ...errorResponses(400, 415, 429, 500) },
      },
      config: { rateLimit: DASHBOARD_RATE_LIMITS.forgotPassword },
    },
    async (request, reply) => {
      const sent = new Promise<void>((resolve) => {
        reply.raw.once('finish', resolve);
        reply.raw.once('close', resolve);
      });
      await users.requestPasswordReset(request.body.email, contextOf(request), sent);
      return reply.code(202).send({ status: 'accepted', message: FORGOT_PASSWORD_MESSAGE });
    },
  );

  app.post(
    '/v1/auth/reset-password',
    {
      schema: {
        summary: 'Set a new password with a reset link',
        description:
          'The token is single-use and valid for 1 hour. Sets the password, clears the login throttle of the ' +
          'account and ends every session of the account. Limited per client IP address.',
        body: ResetPasswordSchema,
        response: { 200: PasswordResetSchema, ...errorResponses(400, 415, 429, 500) },
      },
      config: { rateLimit: DASHBOARD_RATE_LIMITS.resetPassword },
    },
    async (request) => {
      const result = await users.resetPassword(request.body, contextOf(request));
      if (!result.ok) throw toUserApiError(result.error);
      return { status: 'password_reset' as const };
    },
  );

  app.post(
    '/v1/auth/change-password',
    settingRoute(
      guard,
      {
        summary: 'Change the password of the signed-in user',
        description: `${SESSION_DOC} Ends every other session of the account.`,
        body: ChangePasswordSchema,
      },
      PasswordChangedSchema,
      errorResponses(400, 401, 403, 415, 429, 500),
    ),
    async (request) => {
      const { session, account } = guard.current(request);
      const result = await users.changePassword(
        account.user.id,
        { ...request.body, keepSessionTokenHash: sha256Hex(session.token) },
        contextOf(request),
      );
      if (!result.ok) throw toUserApiError(result.error);
      return { status: 'password_changed' as const };
    },
  );
}

/** Two-factor enrollment and its end, on the instance of `accountRoutes`. */
function addTwoFactorRoutes(app: App, users: UserService, guard: SessionGuard): void {
  app.post(
    '/v1/auth/2fa/enroll',
    settingRoute(
      guard,
      {
        summary: 'Start two-factor enrollment',
        description:
          `${SESSION_DOC} Draws a new TOTP secret (RFC 6238: SHA1, 6 digits, 30 s) and returns it as an otpauth ` +
          'URI, in base32 and as a QR code. Nothing changes at login until `/v1/auth/2fa/verify` confirms a code. ' +
          '409 `duplicate_request` when two-factor authentication is already on.',
        body: EmptyBodySchema,
      },
      TotpEnrollmentSchema,
    ),
    async (request, reply) => {
      const result = await users.startTotpEnrollment(
        guard.current(request).account.user.id,
        contextOf(request),
      );
      if (!result.ok) throw toUserApiError(result.error);
      return reply.header('cache-control', 'no-store').send(result.value);
    },
  );

  app.post(
    '/v1/auth/2fa/verify',
    settingRoute(
      guard,
      {
        summary: 'Confirm two-factor enrollment',
        description:
          `${SESSION_DOC} Accepts a current code of the enrolled secret (one step of tolerance either side, each ` +
          'step once), turns two-factor authentication on, ends every other session and returns 10 single-use ' +
          'recovery codes, shown this once.',
        body: TotpCodeSchema,
      },
      TotpEnabledSchema,
    ),
    async (request, reply) => {
      const { session, account } = guard.current(request);
      const result = await users.confirmTotpEnrollment(account.user.id, request.body.code, {
        ...contextOf(request),
        keepSessionTokenHash: sha256Hex(session.token),
      });
      if (!result.ok) throw toUserApiError(result.error);
      return reply
        .header('cache-control', 'no-store')
        .send({ enabled: true, recoveryCodes: result.value.recoveryCodes });
    },
  );

  app.post(
    '/v1/auth/2fa/disable',
    settingRoute(
      guard,
      {
        summary: 'Turn two-factor authentication off',
        description:
          `${SESSION_DOC} Needs a current code of the authenticator app or an unused recovery code (which is ` +
          'then spent). Deletes the secret and the remaining recovery codes.',
        body: TotpCodeSchema,
      },
      TotpDisabledSchema,
    ),
    async (request) => {
      const result = await users.disableTotp(
        guard.current(request).account.user.id,
        request.body.code,
        contextOf(request),
      );
      if (!result.ok) throw toUserApiError(result.error);
      return { enabled: false as const };
    },
  );
}
