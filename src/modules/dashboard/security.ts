import type { FastifyReply } from 'fastify';
import type { App } from '../../http/server.js';
import { localeOf, type SignedIn } from '../users/http.js';
import type { UserService } from '../users/service.js';
import {
  clientMessages,
  guardedRoute,
  pageSchema,
  registerPages,
  signedIn,
  type PageKit,
  type PageRequest,
} from './kit.js';

interface SecurityPagesOptions {
  kit: PageKit;
  users: UserService;
}

const SecurityRoute = pageSchema({});

/** The security settings: password change and two-factor authentication (through `/v1/auth/…`). */
export async function securityPages(app: App, options: SecurityPagesOptions): Promise<void> {
  registerPages(app, options, [
    guardedRoute('GET', '/dashboard/security', SecurityRoute, signedIn, showSecurity),
  ]);
}

async function showSecurity(
  { kit, users }: SecurityPagesOptions,
  request: PageRequest<typeof SecurityRoute>,
  reply: FastifyReply,
  { account, session }: SignedIn,
) {
  return kit.render(request, reply, 'dashboard-security', 200, {
    title: (m) => m.security.title,
    script: 'dashboard.js',
    csrf: session.csrfToken,
    user: account.user,
    recoveryCodesLeft: account.user.totp === 'on' ? await users.recoveryCodesLeft(account.user.id) : 0,
    messagesJson: clientMessages(localeOf(request)),
  });
}
