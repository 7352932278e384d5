import type { FastifyReply, FastifyRequest } from 'fastify';
import { contextOf } from '../users/http.js';
import { SetPasswordFormSchema, TokenParamsSchema } from '../users/schemas.js';
import type { UserError } from '../users/errors.js';
import { format, passwordProblemKey } from './i18n.js';
import { linkProblem, PageQuerySchema, type PageKit, type PageRequest } from './kit.js';
import type { SignInDeps } from './sign-in-deps.js';

/** The two e-mailed links that set a password: an activation, an invitation. */
export type LinkKind = 'activation' | 'invitation';

export const TokenPageRoute = { hide: true, params: TokenParamsSchema, querystring: PageQuerySchema };
export const SetPasswordRoute = {
  hide: true,
  params: TokenParamsSchema,
  querystring: PageQuerySchema,
  body: SetPasswordFormSchema,
};

function setPasswordPage(
  { kit }: SignInDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  input: {
    kind: LinkKind;
    view: { email: string; organizationName: string; role: string };
    error?: string;
    name?: string;
  },
) {
  return kit.render(request, reply, 'dashboard-set-password', status, {
    title: (m) =>
      input.kind === 'activation'
        ? m.activation.title
        : format(m.invitation.title, { organization: input.view.organizationName }),
    kind: input.kind,
    action: request.url.split('?')[0],
    csrf: kit.auth.formToken(request, reply),
    view: input.view,
    error: input.error,
    name: input.name ?? '',
  });
}

/** The page of a used (410) or invalid (404) link. */
const linkProblemPage = (
  kit: PageKit,
  request: FastifyRequest,
  reply: FastifyReply,
  state: 'used' | 'invalid',
) => kit.message(request, reply, state === 'used' ? 410 : 404, (m) => linkProblem(m, state));

/** What a valid link is for; otherwise the page of its problem, and undefined. */
async function linkedView(
  { kit, users }: SignInDeps,
  kind: LinkKind,
  token: string,
  request: FastifyRequest,
  reply: FastifyReply,
) {
  const view = await users.inspectToken(kind, token);
  if (view.state === 'valid') return view;
  await linkProblemPage(kit, request, reply, view.state);
  return undefined;
}

export async function showSetPassword(
  options: SignInDeps,
  kind: LinkKind,
  request: PageRequest<typeof TokenPageRoute>,
  reply: FastifyReply,
) {
  const view = await linkedView(options, kind, request.params.token, request, reply);
  return view ? setPasswordPage(options, request, reply, 200, { kind, view }) : reply;
}

export async function setPassword(
  options: SignInDeps,
  kind: LinkKind,
  request: PageRequest<typeof SetPasswordRoute>,
  reply: FastifyReply,
) {
  const { kit, users } = options;
  kit.auth.assertFormToken(request);
  const { token } = request.params;
  const { password, passwordConfirmation } = request.body;
  const name = request.body.name ?? '';
  const view = await linkedView(options, kind, token, request, reply);
  if (!view) return reply;
  if (password !== passwordConfirmation) {
    return setPasswordPage(options, request, reply, 400, { kind, view, error: 'mismatch', name });
  }
  const refused = (failure: UserError) => {
    if (failure.code === 'weak_password') {
      const error = passwordProblemKey(failure.problem);
      return setPasswordPage(options, request, reply, 400, { kind, view, error, name });
    }
    return linkProblemPage(kit, request, reply, failure.code === 'token_used' ? 'used' : 'invalid');
  };
  if (kind === 'activation') {
    const result = await users.activate({ token, password }, contextOf(request));
    if (!result.ok) return refused(result.error);
    const account = await users.account(result.value.userId);
    // The only time the live key exists outside a hash: this response, never cached.
    return kit.render(request, reply, 'dashboard-activated', 200, {
      title: (m) => m.activation.doneTitle,
      email: result.value.email,
      liveKey: result.value.liveKey.secret,
      // Switching language would reload the used link: the key would be gone.
      noLanguageSwitch: true,
      kycReviewing: account?.organization.kycStatus !== 'APPROVED',
    });
  }
  const result = await users.acceptInvitation({ token, password, name }, contextOf(request));
  if (!result.ok) return refused(result.error);
  return kit.message(request, reply, 200, (m) => ({
    title: m.invitation.doneTitle,
    body: m.invitation.doneBody,
  }));
}
