import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { App } from '../../http/server.js';
import { contextOf, DASHBOARD_RATE_LIMITS, localeOf, type SignedIn } from '../users/http.js';
import type { WalletService } from '../wallets/service.js';
import {
  Csrf,
  CsrfFormSchema,
  guardedRoute,
  IdParamsSchema,
  ownerOf,
  pageRoute,
  pageSchema,
  QUIET,
  registerPages,
  SETTINGS_POST,
  sessionFields,
  signedIn,
  signedInPost,
  type PageCommand,
  type PageKit,
  type PageRequest,
} from './kit.js';
import { WALLET_MESSAGES, type WalletMessages } from './wallet-i18n.js';

export interface DashboardWalletPagesOptions {
  kit: PageKit;
  wallets: WalletService;
}

const WALLET_PAGE_LIMIT = 100;
const TokenParamsSchema = Type.Object({ token: Type.String({ minLength: 1, maxLength: 100 }) });
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

const WalletListRoute = pageSchema({});
const WalletCreateRoute = pageSchema({ body: WalletFormSchema });
const WalletCommandRoute = pageSchema({ params: IdParamsSchema, body: CsrfFormSchema });
const ConfirmPageRoute = pageSchema({ params: TokenParamsSchema });
const ConfirmRoute = pageSchema({ params: TokenParamsSchema, body: ConfirmFormSchema });
const CONFIRM = '/dashboard/wallet-changes/confirm/:token';

/**
 * The wallet pages of the merchant dashboard, whatever the `wallets` flag: the list of the session's
 * environment with its open changes, adding a wallet, making one the default, archiving, canceling an
 * open change (owners and admins), and the page the confirmation e-mail links to, where a signed-in owner
 * confirms (with a TOTP code when 2FA is on).
 */
export async function walletPages(app: App, options: DashboardWalletPagesOptions): Promise<void> {
  const quiet = { logLevel: QUIET };
  const command = (url: string, handle: WalletCommand) =>
    pageRoute('POST', url, WalletCommandRoute, handle, SETTINGS_POST);
  registerPages(app, options, [
    guardedRoute('GET', '/dashboard/wallets', WalletListRoute, signedIn, showWallets),
    pageRoute('POST', '/dashboard/wallets', WalletCreateRoute, createWallet, SETTINGS_POST),
    command('/dashboard/wallets/:id/make-default', walletAction('makeDefault')),
    command('/dashboard/wallets/:id/archive', walletAction('archive')),
    command('/dashboard/wallet-changes/:id/cancel', walletAction('cancelChange')),
    guardedRoute('GET', CONFIRM, ConfirmPageRoute, signedIn, showConfirmation, quiet),
    guardedRoute('POST', CONFIRM, ConfirmRoute, signedInPost, confirmChange, {
      config: { rateLimit: DASHBOARD_RATE_LIMITS.secondFactor },
      ...quiet,
    }),
  ]);
}

const actorOf = (request: FastifyRequest, current: SignedIn) => ({
  actor: `user:${current.account.user.id}`,
  ...contextOf(request),
});
const wm = (request: FastifyRequest): WalletMessages => WALLET_MESSAGES[localeOf(request)];
const canManage = (kit: PageKit, current: SignedIn) => kit.may(current, 'requestWalletChange');

async function listPage(
  { kit, wallets }: DashboardWalletPagesOptions,
  request: FastifyRequest,
  reply: FastifyReply,
  current: SignedIn,
  status: number,
  extra: { error?: string; notice?: Notice; form?: Record<string, string> } = {},
) {
  const overview = await wallets.overview(ownerOf(current), WALLET_PAGE_LIMIT);
  const messages = wm(request);
  return kit.render(request, reply, 'dashboard-wallets', status, {
    title: () => messages.title,
    ...sessionFields(current),
    wm: messages,
    wallets: overview.wallets,
    changes: overview.changes,
    canManage: canManage(kit, current),
    error: extra.error,
    notice: extra.notice,
    form: extra.form ?? { network: 'tron', address: '', label: '' },
  });
}

async function showWallets(
  options: DashboardWalletPagesOptions,
  request: PageRequest<typeof WalletListRoute>,
  reply: FastifyReply,
  current: SignedIn,
) {
  const notice = NOTICES.find((n) => n === request.query.notice);
  return listPage(options, request, reply, current, 200, notice ? { notice } : {});
}

async function createWallet(
  options: DashboardWalletPagesOptions,
  request: PageRequest<typeof WalletCreateRoute>,
  reply: FastifyReply,
) {
  const form = {
    network: request.body.network === 'ethereum' ? 'ethereum' : 'tron',
    address: (request.body.address ?? '').trim(),
    label: (request.body.label ?? '').trim(),
  } as const;
  const run: PageCommand['run'] = async (current) => {
    const created = await options.wallets.create(
      ownerOf(current),
      {
        network: form.network,
        address: form.address,
        ...(form.label === '' ? {} : { label: form.label.slice(0, 100) }),
        ...(request.body.makeDefault === 'true' ? { makeDefault: true } : {}),
      },
      actorOf(request, current),
    );
    if (!created.ok)
      return {
        reply: await listPage(options, request, reply, current, 400, { error: created.error.code, form }),
      };
    return { path: '/dashboard/wallets', notice: created.value.pendingChange ? 'requested' : 'created' };
  };
  return walletCommand(options, request, reply, run, form);
}

/**
 * A command of the list for owners and admins; any other role gets the list with the refusal (and the
 * form as it was typed).
 */
function walletCommand(
  options: DashboardWalletPagesOptions,
  request: FastifyRequest,
  reply: FastifyReply,
  run: PageCommand['run'],
  form?: Record<string, string>,
) {
  return options.kit.command(request, reply, {
    permission: 'requestWalletChange',
    refused: (current) => listPage(options, request, reply, current, 403, { error: 'not_permitted', form }),
    run,
  });
}

type WalletCommand = (
  options: DashboardWalletPagesOptions,
  request: PageRequest<typeof WalletCommandRoute>,
  reply: FastifyReply,
) => Promise<FastifyReply>;

/** The commands of the list on one wallet or one open change: the wallet service's methods. */
type WalletAction = 'makeDefault' | 'archive' | 'cancelChange';

/**
 * Making a wallet the default, archiving it, or canceling an open change: 404 when the wallet or the
 * change is not there, 409 for any other refusal.
 */
function walletAction(act: WalletAction): WalletCommand {
  const missing = act === 'cancelChange' ? 'change_not_found' : 'wallet_not_found';
  return (options, request, reply) =>
    walletCommand(options, request, reply, async (current) => {
      const result = await options.wallets[act](
        ownerOf(current),
        request.params.id,
        actorOf(request, current),
      );
      if (!result.ok) {
        const status = result.error.code === missing ? 404 : 409;
        return {
          reply: await listPage(options, request, reply, current, status, { error: result.error.code }),
        };
      }
      return { path: '/dashboard/wallets', notice: noticeOf(act, result.value) };
    });
}

/** The notice of a command of the list: a new default waits for its confirmation if the change says so. */
function noticeOf(act: WalletAction, made: object): Notice {
  if (act === 'archive') return 'archived';
  if (act === 'cancelChange') return 'canceled';
  return 'pendingChange' in made && made.pendingChange ? 'requested' : 'default';
}

// ---------------------------------------------------------------- the e-mailed confirmation link

async function confirmPage(
  { kit, wallets }: DashboardWalletPagesOptions,
  request: FastifyRequest,
  reply: FastifyReply,
  current: SignedIn,
  token: string,
  status: number,
  error?: string,
) {
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
}

async function showConfirmation(
  options: DashboardWalletPagesOptions,
  request: PageRequest<typeof ConfirmPageRoute>,
  reply: FastifyReply,
  current: SignedIn,
) {
  return confirmPage(options, request, reply, current, request.params.token, 200);
}

async function confirmChange(
  options: DashboardWalletPagesOptions,
  request: PageRequest<typeof ConfirmRoute>,
  reply: FastifyReply,
  current: SignedIn,
) {
  const { user, organization } = current.account;
  const result = await options.wallets.confirm(
    request.params.token,
    { id: user.id, organizationId: organization.id, role: user.role, totp: user.totp },
    request.body.code,
    actorOf(request, current),
  );
  if (!result.ok) {
    const code = result.error.code;
    const status = code === 'wrong_code' || code === 'code_required' ? 400 : 403;
    return confirmPage(options, request, reply, current, request.params.token, status, code);
  }
  const messages = wm(request);
  const change = result.value;
  return options.kit.render(request, reply, 'dashboard-wallet-confirmed', 200, {
    title: () => messages.confirmedTitle,
    csrf: current.session.csrfToken,
    wm: messages,
    change,
  });
}
