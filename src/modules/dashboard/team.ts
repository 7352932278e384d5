import type { App } from '../../http/server.js';
import { contextOf, DASHBOARD_RATE_LIMITS } from '../users/http.js';
import { InviteFormSchema } from '../users/schemas.js';
import { homePageOf, type HomePageDeps } from './home.js';
import { PageQuerySchema } from './kit.js';

const EMAIL_SHAPE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Inviting a team member (the team is listed on the home page, where the form is). */
export async function teamPages(app: App, options: HomePageDeps): Promise<void> {
  const { kit, users } = options;
  const { sessions } = kit;
  const homePage = homePageOf(options);
  kit.handleErrors(app);

  app.post(
    '/dashboard/team/invitations',
    {
      schema: { hide: true, querystring: PageQuerySchema, body: InviteFormSchema },
      config: { rateLimit: DASHBOARD_RATE_LIMITS.accountSettings },
    },
    async (request, reply) => {
      const current = await kit.signedIn(request, reply);
      if (!current) return reply;
      sessions.assertCsrf(request, current.session);
      if (!kit.may(current, 'invite')) {
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
        const inviteError = result.error.code === 'email_taken' ? 'email_taken' : 'not_permitted';
        return homePage(request, reply, current, inviteError === 'email_taken' ? 409 : 403, { inviteError });
      }
      return kit.redirect(request, reply, '/dashboard', { notice: 'invited' });
    },
  );
}
