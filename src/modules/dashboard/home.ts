import type { FastifyReply, FastifyRequest } from 'fastify';
import type { KycStatus } from '../../db/schema.js';
import type { App } from '../../http/server.js';
import type { Urls } from '../../shared/urls.js';
import { contextOf, type SignedIn } from '../users/http.js';
import { EnvironmentFormSchema } from '../users/schemas.js';
import { INVITABLE_ROLES, type UserService } from '../users/service.js';
import { PageQuerySchema, type PageKit } from './kit.js';

export interface HomePageDeps {
  kit: PageKit;
  users: UserService;
  urls: Pick<Urls, 'liveApi' | 'sandboxApi'>;
}

export type HomeNotice = {
  notice?: 'invited';
  inviteError?: 'email_taken' | 'not_permitted' | 'invalid_email';
};

/** The dashboard's home: the organization, the environment, the API base URL and the team. */
export function homePageOf(deps: HomePageDeps) {
  const { kit, users, urls } = deps;
  return async (
    request: FastifyRequest,
    reply: FastifyReply,
    current: SignedIn,
    status: number,
    extra: HomeNotice = {},
  ) => {
    const { account, session } = current;
    const canInvite = kit.may(current, 'invite');
    return kit.render(request, reply, 'dashboard-home', status, {
      title: (m) => m.home.title,
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
}

/** The home page and the environment switch. */
export async function homePages(app: App, options: HomePageDeps): Promise<void> {
  const { kit, users } = options;
  const { sessions } = kit;
  const homePage = homePageOf(options);
  kit.handleErrors(app);

  app.get('/dashboard', { schema: { hide: true, querystring: PageQuerySchema } }, async (request, reply) => {
    const current = await kit.signedIn(request, reply);
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
      const current = await kit.signedIn(request, reply);
      if (!current) return reply;
      sessions.assertCsrf(request, current.session);
      const environment = request.body.environment;
      if (environment !== current.session.environment) {
        await sessions.setEnvironment(current.session, environment);
        await users.recordAudit(current.account.user, 'session.environment_changed', contextOf(request), {
          after: { environment },
        });
      }
      // Back to the area the switch was made from (its list: an object of one environment is not in the
      // other); the schema allows only a path under /dashboard.
      return kit.redirect(request, reply, request.body.return ?? '/dashboard');
    },
  );
}
