import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { ApiKeyScope } from '../../db/schema.js';
import { ApiError } from '../../http/errors.js';
import type { App } from '../../http/server.js';
import type { ApiKeyAuth } from '../api-keys/context.js';
import { apiKeyRefusal } from '../api-keys/errors.js';
import { normalizeCidr } from '../api-keys/ip-allowlist.js';
import { API_KEY_LIMITS, API_KEY_SCOPES } from '../api-keys/schemas.js';
import type { ApiKeyService } from '../api-keys/service.js';
import type { SignedIn } from '../users/http.js';
import { ApiKeyFormSchema, ApiKeyParamsSchema, CsrfFormSchema } from '../users/schemas.js';
import {
  displayTime,
  guardedRoute,
  pageRoute,
  pageSchema,
  registerPages,
  SETTINGS_POST,
  sessionFields,
  signedIn,
  type PageCommand,
  type PageKit,
  type PageRequest,
} from './kit.js';

/** How many keys the dashboard lists (newest first). */
const API_KEY_PAGE_LIMIT = 100;
const API_KEY_REQUEST_PAGE_LIMIT = 50;
const DATE_SHAPE = /^\d{4}-\d{2}-\d{2}$/;

type ApiKeyFormError =
  | { key: 'no_scope' | 'past_expiry' | 'invalid_date' | 'not_permitted' }
  | { key: 'invalid_cidr'; value: string }
  | { key: 'too_many_ips'; max: number };
interface ApiKeyFormValues {
  name: string;
  scopes: string[];
  allowedIps: string;
  expiresAt: string;
}
const EMPTY_KEY_FORM: ApiKeyFormValues = { name: '', scopes: [], allowedIps: '', expiresAt: '' };

const KeyListRoute = pageSchema({});
const KeyRoute = {
  hide: true,
  params: ApiKeyParamsSchema,
  querystring: Type.Object({
    lang: Type.Optional(Type.String()),
    cursor: Type.Optional(Type.String({ maxLength: 512 })),
  }),
};
const KeyCreateRoute = pageSchema({ body: ApiKeyFormSchema });
const KeyRevokeRoute = pageSchema({ params: ApiKeyParamsSchema, body: CsrfFormSchema });

interface ApiKeyPagesOptions {
  kit: PageKit;
  apiKeys: ApiKeyService;
}

/** The API keys of the session's environment: list, create, one key's requests, revoke. */
export async function apiKeyPages(app: App, options: ApiKeyPagesOptions): Promise<void> {
  registerPages(app, options, [
    guardedRoute('GET', '/dashboard/api-keys', KeyListRoute, signedIn, showKeys),
    guardedRoute('GET', '/dashboard/api-keys/:id', KeyRoute, signedIn, showKey),
    pageRoute('POST', '/dashboard/api-keys', KeyCreateRoute, createKey, SETTINGS_POST),
    pageRoute('POST', '/dashboard/api-keys/:id/revoke', KeyRevokeRoute, revokeKey, SETTINGS_POST),
  ]);
}

/**
 * The signed-in user as an API-key caller: the organization and the session's environment, every
 * scope. Dashboard key management does not depend on the organization's `apiKeys` flag (which gates
 * the public /v1/api-keys API); the audit actor is the user, given in the request meta.
 */
const keyCallerOf = ({ account, session }: SignedIn): ApiKeyAuth => ({
  keyId: `dashboard:${account.user.id}`,
  organizationId: account.organization.id,
  environment: session.environment,
  scopes: ['all'],
  featureFlags: account.organization.featureFlags,
});
const keyMeta = (request: FastifyRequest, current: SignedIn) => ({
  requestId: request.id,
  ip: request.ip,
  actor: `user:${current.account.user.id}`,
});

async function apiKeysPage(
  { kit, apiKeys }: ApiKeyPagesOptions,
  request: FastifyRequest,
  reply: FastifyReply,
  current: SignedIn,
  status: number,
  extra: { errors?: ApiKeyFormError[]; form?: ApiKeyFormValues; notice?: 'revoked' } = {},
) {
  const listed = await apiKeys.list(keyCallerOf(current), { limit: API_KEY_PAGE_LIMIT });
  if (!listed.ok) throw apiKeyRefusal(listed.error);
  const page = listed.value;
  return kit.render(request, reply, 'dashboard-api-keys', status, {
    title: (m) => m.apiKeys.title,
    ...sessionFields(current),
    keys: page.data,
    canManage: kit.may(current, 'manageApiKeys'),
    scopeChoices: API_KEY_SCOPES,
    errors: extra.errors ?? [],
    form: extra.form ?? EMPTY_KEY_FORM,
    notice: extra.notice,
    when: displayTime,
  });
}

async function showKeys(
  options: ApiKeyPagesOptions,
  request: PageRequest<typeof KeyListRoute>,
  reply: FastifyReply,
  current: SignedIn,
) {
  return apiKeysPage(
    options,
    request,
    reply,
    current,
    200,
    request.query.notice === 'revoked' ? { notice: 'revoked' } : {},
  );
}

async function showKey(
  { kit, apiKeys }: ApiKeyPagesOptions,
  request: PageRequest<typeof KeyRoute>,
  reply: FastifyReply,
  current: SignedIn,
) {
  const caller = keyCallerOf(current);
  const key = await apiKeys.get(caller, request.params.id);
  const requests = await apiKeys.listRequests(caller, request.params.id, {
    limit: API_KEY_REQUEST_PAGE_LIMIT,
    ...(request.query.cursor !== undefined ? { cursor: request.query.cursor } : {}),
  });
  if (!key.ok || !requests.ok) throw new ApiError('not_found', 'No such API key.');
  return kit.render(request, reply, 'dashboard-api-key', 200, {
    title: (m) => m.apiKeys.title,
    ...sessionFields(current),
    key: key.value,
    requests: requests.value.data,
    nextCursor: requests.value.nextCursor,
    when: displayTime,
  });
}

/** A command of the keys page for the roles that manage keys; any other role gets the page with the refusal. */
function keyCommand(
  options: ApiKeyPagesOptions,
  request: FastifyRequest,
  reply: FastifyReply,
  run: PageCommand['run'],
) {
  return options.kit.command(request, reply, {
    permission: 'manageApiKeys',
    refused: (current) =>
      apiKeysPage(options, request, reply, current, 403, { errors: [{ key: 'not_permitted' }] }),
    run,
  });
}

async function createKey(
  options: ApiKeyPagesOptions,
  request: PageRequest<typeof KeyCreateRoute>,
  reply: FastifyReply,
) {
  const rawScopes = request.body.scopes ?? [];
  const form: ApiKeyFormValues = {
    name: (request.body.name ?? '').trim(),
    scopes: Array.isArray(rawScopes) ? rawScopes : [rawScopes],
    allowedIps: request.body.allowedIps ?? '',
    expiresAt: (request.body.expiresAt ?? '').trim(),
  };
  return keyCommand(options, request, reply, async (current) => ({
    reply: await createdKey(options, request, reply, current, form),
  }));
}

/** The form checked, then the key made and shown once; or the keys page again with what is wrong (400). */
async function createdKey(
  options: ApiKeyPagesOptions,
  request: PageRequest<typeof KeyCreateRoute>,
  reply: FastifyReply,
  current: SignedIn,
  form: ApiKeyFormValues,
) {
  const { kit, apiKeys } = options;
  const errors: ApiKeyFormError[] = [];
  const scopes = API_KEY_SCOPES.filter((scope) => form.scopes.includes(scope)) as ApiKeyScope[];
  if (scopes.length === 0) errors.push({ key: 'no_scope' });
  const allowedIps = form.allowedIps
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '');
  if (allowedIps.length > API_KEY_LIMITS.allowedIps) {
    errors.push({ key: 'too_many_ips', max: API_KEY_LIMITS.allowedIps });
  }
  // Checked here too (the service checks again) so that every mistake of the form shows at once.
  for (const entry of allowedIps) {
    if (normalizeCidr(entry) === undefined) errors.push({ key: 'invalid_cidr', value: entry });
  }
  let expiresAt: string | undefined;
  if (form.expiresAt !== '') {
    const date = new Date(`${form.expiresAt}T00:00:00.000Z`);
    if (!DATE_SHAPE.test(form.expiresAt) || Number.isNaN(date.getTime())) {
      errors.push({ key: 'invalid_date' });
    } else expiresAt = date.toISOString();
  }
  if (errors.length > 0) return apiKeysPage(options, request, reply, current, 400, { errors, form });

  const result = await apiKeys.create(
    keyCallerOf(current),
    {
      scopes,
      allowedIps,
      ...(expiresAt === undefined ? {} : { expiresAt }),
      ...(form.name === '' ? {} : { name: form.name }),
    },
    keyMeta(request, current),
  );
  if (!result.ok) {
    const issues = result.error.code === 'invalid_input' ? result.error.issues : [];
    const found: ApiKeyFormError[] = issues.map((issue) => {
      if (issue.path === 'expiresAt') return { key: 'past_expiry' };
      const index = Number(issue.path.split('.')[1]);
      return { key: 'invalid_cidr', value: allowedIps[index] ?? '' };
    });
    return apiKeysPage(options, request, reply, current, 400, {
      errors: found.length > 0 ? found : [{ key: 'not_permitted' }],
      form,
    });
  }
  // The only time the secret exists outside a hash: this response, never cached nor stored.
  return kit.render(request, reply, 'dashboard-api-key-created', 200, {
    title: (m) => m.apiKeys.createdTitle,
    csrf: current.session.csrfToken,
    key: result.value,
    secret: result.value.secret,
    // Switching language would reload the page: the key would be gone.
    noLanguageSwitch: true,
    when: displayTime,
  });
}

async function revokeKey(
  options: ApiKeyPagesOptions,
  request: PageRequest<typeof KeyRevokeRoute>,
  reply: FastifyReply,
) {
  const { id } = request.params;
  return keyCommand(options, request, reply, async (current) => {
    const result = await options.apiKeys.revoke(keyCallerOf(current), id, keyMeta(request, current));
    if (!result.ok) throw new ApiError('not_found', 'No such API key.');
    return { path: '/dashboard/api-keys', notice: 'revoked' };
  });
}
