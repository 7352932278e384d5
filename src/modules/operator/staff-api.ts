import { Type } from 'typebox';
import { ApiError, errorResponses } from '../../http/errors.js';
import { accountAddressLimit, loginFloodGuard } from '../../http/rate-limit.js';
import type { App } from '../../http/server.js';
import { apiRoute } from './api-kit.js';
import {
  actorOf,
  loginDeps,
  logInStaff,
  logOutStaff,
  OPERATOR_LOGIN_LIMITS,
  type LoginDeps,
} from './auth.js';
import type { OperatorCommands } from './commands.js';
import { valueOf } from './errors.js';
import { API_ERRORS as errors, LoginBodySchema, StaffCreateSchema, StaffPasswordSchema } from './schemas.js';

/** The staff session as JSON, for scripts and the CLI: logging in and out. */
export function operatorSessionApi(app: App, deps: LoginDeps): void {
  const loginLimit = accountAddressLimit(app, 'operator-api-login', OPERATOR_LOGIN_LIMITS.perAccount);
  // As the console's: it never refuses an e-mail that signed in from the address (ADR 0066).
  const loginFlood = loginFloodGuard(app, 'operator-api-login', OPERATOR_LOGIN_LIMITS.flood);

  app.post(
    '/operator/v1/session',
    {
      schema: {
        body: LoginBodySchema,
        response: {
          200: Type.Object({
            staff: Type.Object({
              id: Type.String(),
              email: Type.String(),
              name: Type.String(),
              role: Type.String(),
            }),
            csrfToken: Type.String(),
          }),
          ...errors,
          ...errorResponses(415),
        },
      },
      config: { operator: 'public' },
      // JSON only: a cross-site HTML form cannot send it, so it cannot sign a browser in (login CSRF);
      // the console's login form has its own token.
      onRequest: async (request) => {
        if (!/^application\/json\s*(;|$)/i.test(request.headers['content-type'] ?? '')) {
          throw new ApiError(
            'unsupported_media_type',
            'Request bodies must be JSON (Content-Type: application/json).',
          );
        }
      },
    },
    async (request, reply) => {
      await loginFlood.check(request, reply, request.body.email);
      await loginLimit(request, reply, request.body.email);
      const { staff, session } = await logInStaff(loginDeps(deps), request, reply, request.body);
      await loginFlood.prove(request, request.body.email);
      return { staff, csrfToken: session.csrfToken };
    },
  );

  app.delete(
    '/operator/v1/session',
    apiRoute('read', Type.Null({ description: 'Signed out.' }), {}, { status: 204 }),
    async (request, reply) => {
      await logOutStaff(loginDeps(deps), request, reply);
      return reply.code(204).send(null);
    },
  );
}

/** Staff accounts as JSON: a new account, a password set by an administrator. */
export function operatorStaffAccountApi(
  app: App,
  deps: { commands: Pick<OperatorCommands, 'createStaff' | 'setStaffPassword'> },
): void {
  app.post(
    '/operator/v1/staff',
    apiRoute(
      'administer',
      Type.Object({
        id: Type.String(),
        email: Type.String(),
        name: Type.String(),
        role: Type.String(),
      }),
      {
        body: StaffCreateSchema,
      },
      { status: 201 },
    ),
    async (request, reply) => {
      return reply.code(201).send(valueOf(await deps.commands.createStaff(request.body, actorOf(request))));
    },
  );

  app.post(
    '/operator/v1/staff/password',
    apiRoute(
      'administer',
      Type.Object({ id: Type.String(), email: Type.String(), sessionsEnded: Type.Integer() }),
      {
        description:
          'Sets the password of the staff account with this e-mail (a forgotten one, or an account locked ' +
          'out by failed logins: the lockout ends). Audited (`staff.password_set`); every operator session ' +
          "of the account ends, the caller's own if it is the account. A weak password is 400, an unknown " +
          'address 404. Needs the admin role.',
        body: StaffPasswordSchema,
      },
    ),
    async (request) => {
      const { staff, sessionsEnded } = valueOf(
        await deps.commands.setStaffPassword(request.body, actorOf(request)),
      );
      return { id: staff.id, email: staff.email, sessionsEnded };
    },
  );
}
