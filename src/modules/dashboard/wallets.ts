import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { App } from '../../http/server.js';
import { contextOf, DASHBOARD_RATE_LIMITS, localeOf, type SignedIn } from '../users/http.js';
import type { WalletService } from '../wallets/service.js';
import { PageQuerySchema, QUIET, type PageKit } from './kit.js';
import { WALLET_MESSAGES, type WalletMessages } from './wallet-i18n.js';

export interface DashboardWalletPagesOptions {
  kit: PageKit;
  wallets: WalletService;
}

const WALLET_PAGE_LIMIT = 100;
const Csrf = Type.Optional(Type.String({ maxLength: 200 }));
const IdParamsSchema = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });
const TokenParamsSchema = Type.Object({ token: Type.String({ minLength: 1, maxLength: 100 }) });
const CsrfFormSchema = Type.Object({ _csrf: Csrf }, { additionalProperties: false });
const WalletFormSchema = Type.Object(
  {
    _csrf: Csrf,
    network: Type.Optional(Type.String({ maxLength: 20 })),
    address: Type.Optional(Type.String({ maxLength: 200 })),
    label: Type.Optional(Type.String({ maxLength: 200 })),
    makeDefault: Type.Optional(Type.String({ maxLength: 10 })),
  },
  { additionalProperties: false },
);
const ConfirmFormSchema = Type.Object(
  { _csrf: Csrf, code: Type.Optional(Type.String({ maxLength: 40 })) },
  { additionalProperties: false },
);
const NOTICES = ['created', 'requested', 'default', 'archived', 'canceled'] as const;
type Notice = (typeof NOTICES)[number];

/**
 * The wallet pages of the merchant dashboard (issue 13 items 1 and 2), whatever the `wallets` flag: the
 * list of the session's environment with its open changes, adding a wallet, making one the default,
 * archiving, canceling an open change (owners and admins), and the page the confirmation e-mail links to,
 * where a signed-in owner confirms (with a TOTP code when 2FA is on).
 */
export async function walletPages(app: App, options: DashboardWalletPagesOptions): Promise<void> {
  const { kit, wallets } = options;
  kit.handleErrors(app);

  const ownerOf = ({ account, session }: SignedIn) => ({
    organizationId: account.organization.id,
    environment: session.environment,
  });
  const actorOf = (request: FastifyRequest, current: SignedIn) => ({
    actor: `user:${current.account.user.id}`,
    ...contextOf(request),
  });
  const wm = (request: FastifyRequest): WalletMessages => WALLET_MESSAGES[localeOf(request)];
  const canManage = (current: SignedIn) => kit.may(current, 'requestWalletChange');

  const listPage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    current: SignedIn,
    status: number,
    extra: { error?: string; notice?: Notice; form?: Record<string, string> } = {},
  ) => {
    const overview = await wallets.overview(ownerOf(current), WALLET_PAGE_LIMIT);
    const messages = wm(request);
    return kit.render(request, reply, 'dashboard-wallets', status, {
      title: () => messages.title,
      csrf: current.session.csrfToken,
      environment: current.session.environment,
      wm: messages,
      wallets: overview.wallets,
      changes: overview.changes,
      canManage: canManage(current),
      error: extra.error,
      notice: extra.notice,
      form: extra.form ?? { network: 'tron', address: '', label: '' },
    });
  };

  app.get(
    '/dashboard/wallets',
    { schema: { hide: true, querystring: PageQuerySchema } },
    async (request, reply) => {
      const current = await kit.signedIn(request, reply);
      if (!current) return reply;
      const notice = NOTICES.find((n) => n === request.query.notice);
      return listPage(request, reply, current, 200, notice ? { notice } : {});
    },
  );

  app.post(
    '/dashboard/wallets',
    {
      schema: { hide: true, querystring: PageQuerySchema, body: WalletFormSchema },
      config: { rateLimit: DASHBOARD_RATE_LIMITS.accountSettings },
    },
    async (request, reply) => {
      const current = await kit.signedInPost(request, reply);
      if (!current) return reply;
      const form = {
        network: request.body.network === 'ethereum' ? 'ethereum' : 'tron',
        address: (request.body.address ?? '').trim(),
        label: (request.body.label ?? '').trim(),
      } as const;
      if (!canManage(current))
        return listPage(request, reply, current, 403, { error: 'not_permitted', form });
      const created = await wallets.create(
        ownerOf(current),
        {
          network: form.network,
          address: form.address,
          ...(form.label === '' ? {} : { label: form.label.slice(0, 100) }),
          ...(request.body.makeDefault === 'true' ? { makeDefault: true } : {}),
        },
        actorOf(request, current),
      );
      if (!created.ok) return listPage(request, reply, current, 400, { error: created.error.code, form });
      return kit.redirect(request, reply, '/dashboard/wallets', {
        notice: created.value.pendingChange ? 'requested' : 'created',
      });
    },
  );

  const walletAction = (path: string, act: 'makeDefault' | 'archive') =>
    app.post(
      path,
      {
        schema: { hide: true, querystring: PageQuerySchema, params: IdParamsSchema, body: CsrfFormSchema },
        config: { rateLimit: DASHBOARD_RATE_LIMITS.accountSettings },
      },
      async (request, reply) => {
        const current = await kit.signedInPost(request, reply);
        if (!current) return reply;
        if (!canManage(current)) return listPage(request, reply, current, 403, { error: 'not_permitted' });
        const result = await wallets[act](ownerOf(current), request.params.id, actorOf(request, current));
        if (!result.ok) {
          const status = result.error.code === 'wallet_not_found' ? 404 : 409;
          return listPage(request, reply, current, status, { error: result.error.code });
        }
        const notice: Notice =
          act === 'archive' ? 'archived' : result.value.pendingChange ? 'requested' : 'default';
        return kit.redirect(request, reply, '/dashboard/wallets', { notice });
      },
    );
  walletAction('/dashboard/wallets/:id/make-default', 'makeDefault');
  walletAction('/dashboard/wallets/:id/archive', 'archive');

  app.post(
    '/dashboard/wallet-changes/:id/cancel',
    {
      schema: { hide: true, querystring: PageQuerySchema, params: IdParamsSchema, body: CsrfFormSchema },
      config: { rateLimit: DASHBOARD_RATE_LIMITS.accountSettings },
    },
    async (request, reply) => {
      const current = await kit.signedInPost(request, reply);
      if (!current) return reply;
      if (!canManage(current)) return listPage(request, reply, current, 403, { error: 'not_permitted' });
      const result = await wallets.cancelChange(
        ownerOf(current),
        request.params.id,
        actorOf(request, current),
      );
      if (!result.ok) {
        const status = result.error.code === 'change_not_found' ? 404 : 409;
        return listPage(request, reply, current, status, { error: result.error.code });
      }
      return kit.redirect(request, reply, '/dashboard/wallets', { notice: 'canceled' });
    },
  );

  // ---------------------------------------------------------------- the e-mailed confirmation link

  const confirmPage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    current: SignedIn,
    token: string,
    status: number,
    error?: string,
  ) => {
    const messages = wm(request);
    const found = await wallets.inspectConfirmation(token);
    if (found.state !== 'valid') {
      const problem = found.state === 'used' ? 'used_link' : 'invalid_link';
      return kit.message(request, reply, found.state === 'used' ? 410 : 404, () => ({
        title: messages.confirmTitle,
        body: messages.errors[problem] ?? '',
      }));
    }
    return kit.render(request, reply, 'dashboard-wallet-confirm', status, {
      title: () => messages.confirmTitle,
      csrf: current.session.csrfToken,
      wm: messages,
      change: found.change,
      wallet: found.wallet,
      token,
      needsCode: current.account.user.totp === 'on',
      mayConfirm:
        kit.may(current, 'confirmWalletChange') &&
        found.change.organizationId === current.account.organization.id,
      error,
    });
  };

  app.get(
    '/dashboard/wallet-changes/confirm/:token',
    { schema: { hide: true, querystring: PageQuerySchema, params: TokenParamsSchema }, logLevel: QUIET },
    async (request, reply) => {
      const current = await kit.signedIn(request, reply);
      if (!current) return reply;
      return confirmPage(request, reply, current, request.params.token, 200);
    },
  );

  app.post(
    '/dashboard/wallet-changes/confirm/:token',
    {
      schema: {
        hide: true,
        querystring: PageQuerySchema,
        params: TokenParamsSchema,
        body: ConfirmFormSchema,
      },
      config: { rateLimit: DASHBOARD_RATE_LIMITS.secondFactor },
      logLevel: QUIET,
    },
    async (request, reply) => {
      const current = await kit.signedInPost(request, reply);
      if (!current) return reply;
      const { user, organization } = current.account;
      const result = await wallets.confirm(
        request.params.token,
        { id: user.id, organizationId: organization.id, role: user.role, totp: user.totp },
        request.body.code,
        actorOf(request, current),
      );
      if (!result.ok) {
        const code = result.error.code;
        const status = code === 'wrong_code' || code === 'code_required' ? 400 : 403;
        return confirmPage(request, reply, current, request.params.token, status, code);
      }
      const messages = wm(request);
      const change = result.value;
      return kit.render(request, reply, 'dashboard-wallet-confirmed', 200, {
        title: () => messages.confirmedTitle,
        csrf: current.session.csrfToken,
        wm: messages,
        change,
      });
    },
  );
}
