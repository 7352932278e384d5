import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../http/errors.js';
import { accountAddressLimit, loginFloodGuard } from '../../http/rate-limit.js';
import type { App } from '../../http/server.js';
import { loginDeps, logInStaff, logOutStaff, OPERATOR_LOGIN_LIMITS, type LoginDeps } from './auth.js';
import { noticedPage } from './console-actions.js';
import type { ConsoleKit } from './console-kit.js';

/** The console's login and logout pages; `/` leads to the applications. */
export async function operatorSignInConsole(app: App, deps: LoginDeps & { kit: ConsoleKit }): Promise<void> {
  const page = noticedPage(deps.kit);
  const loginLimit = accountAddressLimit(app, 'operator-console-login', OPERATOR_LOGIN_LIMITS.perAccount);
  const loginFlood = loginFloodGuard(app, 'operator-console-login', OPERATOR_LOGIN_LIMITS.flood);

  /** The login form carries the double-submit token of the anonymous forms (`gw_form`, ADR 0006). */
  const loginPage = (
    request: FastifyRequest,
    reply: FastifyReply,
    data: { next: string; email: string; error?: string },
    status = 200,
  ) =>
    page(
      request,
      reply,
      'login',
      { title: 'Log in', ...data, csrf: deps.sessions.formToken(request, reply), staff: null },
      status,
    );

  app.get('/login', { config: { operator: 'public' } }, async (request, reply) => {
    if (request.staff) return reply.redirect('/applications', 303);
    const next = safeNext((request.query as { next?: string }).next);
    return loginPage(request, reply, { next, email: '' });
  });

  app.post('/login', { config: { operator: 'public' } }, async (request, reply) => {
    // The body is not validated by a schema: a field sent twice (`email=a&email=b`) arrives as an array.
    const body = (request.body ?? {}) as Record<string, unknown>;
    const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
    const next = safeNext(text(body.next));
    const email = text(body.email) ?? '';
    try {
      // First, so that a flood stays cheap; it never refuses an e-mail that signed in from here.
      await loginFlood.check(request, reply, email);
      // A login form posted from another site would sign this browser in as someone else.
      deps.sessions.assertFormToken(request);
      for (const field of ['email', 'password'] as const) {
        if (body[field] !== undefined && typeof body[field] !== 'string') {
          throw new ApiError('validation_failed', `Send one ${field === 'email' ? 'e-mail' : 'password'}.`);
        }
      }
      await loginLimit(request, reply, email);
      await logInStaff(loginDeps(deps), request, reply, { email, password: text(body.password) ?? '' });
      await loginFlood.prove(request, email);
      return reply.redirect(next, 303);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      return loginPage(request, reply, { next, email, error: error.message }, error.statusCode);
    }
  });

  app.post('/logout', { config: { operator: 'read' } }, async (request, reply) => {
    await logOutStaff(loginDeps(deps), request, reply);
    return reply.redirect('/login', 303);
  });

  app.get('/', { config: { operator: 'read' } }, async (_request, reply) =>
    reply.redirect('/applications', 303),
  );
}

const NEXT_BASE = 'http://operator.invalid';

/**
 * Only paths of this console are followed after login. `//evil.example`, `/\\evil.example`, absolute URLs
 * and whatever a browser reads as another host once it drops tabs and newlines (`/<TAB>/evil.example`)
 * fall back to the applications list. The path is parsed the way a browser parses it and re-serialised,
 * so no control character reaches the Location header either.
 */
function safeNext(next: string | undefined): string {
  const fallback = '/applications';
  if (!next || !next.startsWith('/')) return fallback;
  let url: URL;
  try {
    url = new URL(next, NEXT_BASE);
  } catch {
    return fallback;
  }
  return url.origin === NEXT_BASE ? `${url.pathname}${url.search}` : fallback;
}
