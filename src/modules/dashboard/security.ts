import type { App } from '../../http/server.js';
import { localeOf } from '../users/http.js';
import type { UserService } from '../users/service.js';
import { clientMessages, PageQuerySchema, type PageKit } from './kit.js';

/** The security settings: password change and two-factor authentication (through `/v1/auth/…`). */
export async function securityPages(app: App, options: { kit: PageKit; users: UserService }): Promise<void> {
  const { kit, users } = options;
  kit.handleErrors(app);

  app.get(
    '/dashboard/security',
    { schema: { hide: true, querystring: PageQuerySchema } },
    async (request, reply) => {
      const current = await kit.signedIn(request, reply);
      if (!current) return reply;
      const { account, session } = current;
      return kit.render(request, reply, 'dashboard-security', 200, {
        title: (m) => m.security.title,
        script: 'dashboard.js',
        csrf: session.csrfToken,
        user: account.user,
        recoveryCodesLeft: account.user.totp === 'on' ? await users.recoveryCodesLeft(account.user.id) : 0,
        messagesJson: clientMessages(localeOf(request)),
      });
    },
  );
}
