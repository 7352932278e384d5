import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Kdb } from '../../db/database.js';
import type { UserRole } from '../../db/schema.js';
import { ApiError } from '../../http/errors.js';
import { toApiError, type App } from '../../http/server.js';
import type { Services } from '../../services.js';
import type { Renderer } from '../../web/render.js';
import { EVENT_TYPES } from '../events/service.js';
import type { Owner } from '../webhooks/repository.js';
import type { WebhookEndpointCreate, WebhookEndpointUpdate } from '../webhooks/schemas.js';
import { URL_PROBLEM_MESSAGES } from '../webhooks/url-guard.js';
import {
  contextOf,
  DASHBOARD_RATE_LIMITS,
  localeOf,
  localized,
  type DashboardAuth,
  type SignedIn,
} from './http.js';
import { DASHBOARD_MESSAGES, format, type DashboardMessages } from './i18n.js';
import type { UserService } from './service.js';
import {
  URL_PROBLEM_KEYS,
  WEBHOOK_MESSAGES,
  type WebhookFormError,
  type WebhookMessages,
} from './webhook-i18n.js';

export interface DashboardWebhookPagesOptions {
  users: UserService;
  auth: DashboardAuth;
  renderer: Renderer;
  services: Pick<Services, 'db' | 'sessions' | 'webhooks'>;
}

/** Who may create, change, rotate, delete and retry; a viewer only reads. */
export const WEBHOOK_MANAGING_ROLES: readonly UserRole[] = ['owner', 'admin', 'developer'];
/** How many endpoints the list shows, and attempts the detail page shows (newest first). */
const ENDPOINT_PAGE_LIMIT = 100;
export const ENDPOINT_ATTEMPTS_LIMIT = 50;
const EVENT_CHOICES = [...EVENT_TYPES, '*'] as const;
const GRACE_CHOICES = ['0', '3600', '86400', '259200', '604800'] as const;
const DEFAULT_GRACE = '86400';
const LIMITS = { url: 2048, description: 500 } as const;

const Csrf = Type.Optional(Type.String({ maxLength: 200 }));
const FormText = (maxLength: number) => Type.String({ maxLength });
const PageQuerySchema = Type.Object({
  lang: Type.Optional(Type.String()),
  notice: Type.Optional(Type.String()),
});
const IdParamsSchema = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });
const RetryParamsSchema = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 64 }),
  deliveryId: Type.String({ minLength: 1, maxLength: 64 }),
});
const CsrfFormSchema = Type.Object({ _csrf: Csrf }, { additionalProperties: false });
const EndpointFormSchema = Type.Object(
  {
    _csrf: Csrf,
    url: Type.Optional(FormText(8000)),
    description: Type.Optional(FormText(4000)),
    // One checkbox gives a string, several an array.
    enabledEvents: Type.Optional(
      Type.Union([FormText(40), Type.Array(FormText(40), { maxItems: 20 })], {
        description: 'Event kinds, or `*`.',
      }),
    ),
  },
  { additionalProperties: false },
);
const StatusFormSchema = Type.Object(
  { _csrf: Csrf, disabled: Type.Enum(['true', 'false']) },
  { additionalProperties: false },
);
const RotateFormSchema = Type.Object(
  { _csrf: Csrf, gracePeriodSeconds: Type.Optional(Type.Enum([...GRACE_CHOICES])) },
  { additionalProperties: false },
);

interface EndpointFormValues {
  url: string;
  description: string;
  enabledEvents: string[];
}
const EMPTY_FORM: EndpointFormValues = { url: '', description: '', enabledEvents: [] };
const NOTICES = ['deleted', 'disabled', 'enabled', 'retried', 'updated', 'unchanged'] as const;
type Notice = (typeof NOTICES)[number];
/** The errors of the edit form, each shown next to its field. */
interface EditFieldErrors {
  url: WebhookFormError[];
  events: WebhookFormError[];
  description: WebhookFormError[];
}

/** One attempt as the endpoint page lists it. */
export interface EndpointAttempt {
  id: string;
  deliveryId: string;
  eventId: string;
  eventType: string;
  attemptedAt: Date;
  succeeded: boolean;
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
  responseExcerpt: string | null;
  deliveryStatus: 'pending' | 'succeeded' | 'failed';
}

/**
 * The last attempts of one endpoint, newest first. Read-only, scoped to the organization and the
 * environment (the webhooks service offers attempts per charge only).
 */
export async function attemptsOfEndpoint(
  db: Kdb,
  owner: Owner,
  endpointId: string,
  limit = ENDPOINT_ATTEMPTS_LIMIT,
): Promise<EndpointAttempt[]> {
  const rows = await db
    .selectFrom('webhook_attempts as a')
    .innerJoin('events as e', 'e.id', 'a.event_id')
    .innerJoin('webhook_deliveries as d', 'd.id', 'a.delivery_id')
    .select([
      'a.id',
      'a.delivery_id',
      'a.event_id',
      'a.attempted_at',
      'a.succeeded',
      'a.status_code',
      'a.latency_ms',
      'a.error',
      'a.response_excerpt',
      'e.type as event_type',
      'd.status as delivery_status',
    ])
    .where('a.endpoint_id', '=', endpointId)
    .where('a.organization_id', '=', owner.organizationId)
    .where('a.environment', '=', owner.environment)
    .where('d.organization_id', '=', owner.organizationId)
    .orderBy('a.attempted_at', 'desc')
    .orderBy('a.id', 'desc')
    .limit(limit)
    .execute();
  return rows.map((row) => ({
    id: row.id,
    deliveryId: row.delivery_id,
    eventId: row.event_id,
    eventType: row.event_type,
    attemptedAt: row.attempted_at,
    succeeded: row.succeeded,
    statusCode: row.status_code,
    latencyMs: row.latency_ms,
    error: row.error,
    responseExcerpt: row.response_excerpt,
    deliveryStatus: row.delivery_status,
  }));
}

/** Whether a delivery (by its id) belongs to this endpoint of the organization and environment. */
export async function deliveryOfEndpoint(
  db: Kdb,
  owner: Owner,
  endpointId: string,
  deliveryId: string,
): Promise<boolean> {
  const row = await db
    .selectFrom('webhook_deliveries')
    .select('id')
    .where('id', '=', deliveryId)
    .where('endpoint_id', '=', endpointId)
    .where('organization_id', '=', owner.organizationId)
    .where('environment', '=', owner.environment)
    .executeTakeFirst();
  return row !== undefined;
}

/** The webhook endpoint pages of the merchant dashboard (issue 7): list, create, detail, rotate, delete. */
export async function dashboardWebhookPages(app: App, options: DashboardWebhookPagesOptions): Promise<void> {
  const { users, auth, renderer, services } = options;
  const { sessions, db } = services;
  const endpoints = services.webhooks.endpoints;

  const render = (
    request: FastifyRequest,
    reply: FastifyReply,
    view: string,
    status: number,
    data: { title: (w: WebhookMessages, m: DashboardMessages) => string } & Record<string, unknown>,
  ) => {
    const locale = localeOf(request);
    const m = DASHBOARD_MESSAGES[locale];
    const w = WEBHOOK_MESSAGES[locale];
    const html = renderer.render(view, {
      ...data,
      locale,
      otherLocale: locale === 'en' ? 'tr' : 'en',
      languageSwitch: m.languageSwitch,
      title: data.title(w, m),
      m,
      w,
      href: (path: string, extra?: Record<string, string>) => localized(path, locale, extra),
      fmt: format,
      when: displayTime,
    });
    return reply
      .code(status)
      .type('text/html; charset=utf-8')
      .header('cache-control', 'no-store')
      .header('content-language', locale)
      .send(html);
  };

  const redirect = (
    request: FastifyRequest,
    reply: FastifyReply,
    path: string,
    extra?: Record<string, string>,
  ) =>
    reply
      .code(303)
      .header('cache-control', 'no-store')
      .redirect(localized(path, localeOf(request), extra), 303);

  // As on the other dashboard pages: a refused CSRF token, a rate limit or a malformed form is a page.
  app.setErrorHandler((error: FastifyError | ApiError, request, reply) => {
    const apiError = toApiError(error);
    if (apiError.statusCode >= 500) request.log.error({ err: error, code: apiError.code }, 'request failed');
    else request.log.info({ code: apiError.code, statusCode: apiError.statusCode }, 'request refused');
    const body = (m: DashboardMessages) => {
      switch (apiError.code) {
        case 'forbidden':
          return m.errors.csrf;
        case 'too_many_requests':
          return m.errors.rateLimited;
        case 'not_found':
          return m.errors.notFound;
        default:
          return `${m.errors.generic} ${request.id}`;
      }
    };
    return render(request, reply, 'dashboard-message', apiError.statusCode, {
      title: (_w, m) => m.brand,
      text: (m: DashboardMessages) => ({ title: m.brand, body: body(m) }),
      link: 'none',
    });
  });

  const signedInOrRedirect = async (request: FastifyRequest, reply: FastifyReply) => {
    const current = await auth.signedIn(request);
    if (!current) await redirect(request, reply, '/login');
    return current;
  };
  /** The signed-in user of a form post, its CSRF token checked; undefined after a redirect to login. */
  const signedInPost = async (request: FastifyRequest, reply: FastifyReply) => {
    const current = await signedInOrRedirect(request, reply);
    if (current) sessions.assertCsrf(request, current.session);
    return current;
  };
  const ownerOf = ({ account, session }: SignedIn): Owner => ({
    organizationId: account.organization.id,
    environment: session.environment,
  });
  const canManage = (current: SignedIn) => WEBHOOK_MANAGING_ROLES.includes(current.account.user.role);
  const audit = (
    request: FastifyRequest,
    current: SignedIn,
    action: string,
    targetId: string,
    after?: unknown,
  ) =>
    users.recordAudit(current.account.user, action, contextOf(request), {
      targetType: 'webhook_endpoint',
      targetId,
      ...(after === undefined ? {} : { after }),
    });
  const noticeOf = (value: string | undefined): Notice | undefined =>
    NOTICES.find((notice) => notice === value);
  const endpointPath = (id: string) => `/dashboard/webhooks/${encodeURIComponent(id)}`;

  // ---------------------------------------------------------------- the list and the creation form

  const listPage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    current: SignedIn,
    status: number,
    extra: { errors?: WebhookFormError[]; form?: EndpointFormValues; notice?: Notice } = {},
  ) => {
    const page = await endpoints.list(ownerOf(current), { limit: ENDPOINT_PAGE_LIMIT });
    return render(request, reply, 'dashboard-webhooks', status, {
      title: (w) => w.title,
      nav: true,
      csrf: current.session.csrfToken,
      environment: current.session.environment,
      endpoints: page.data,
      canManage: canManage(current),
      eventChoices: EVENT_CHOICES,
      errors: extra.errors ?? [],
      form: extra.form ?? EMPTY_FORM,
      notice: extra.notice,
      limits: LIMITS,
    });
  };

  app.get(
    '/dashboard/webhooks',
    { schema: { hide: true, querystring: PageQuerySchema } },
    async (request, reply) => {
      const current = await signedInOrRedirect(request, reply);
      if (!current) return reply;
      const notice = noticeOf(request.query.notice);
      return listPage(request, reply, current, 200, notice ? { notice } : {});
    },
  );

  app.post(
    '/dashboard/webhooks',
    {
      schema: { hide: true, querystring: PageQuerySchema, body: EndpointFormSchema },
      config: { rateLimit: DASHBOARD_RATE_LIMITS.accountSettings },
    },
    async (request, reply) => {
      const current = await signedInPost(request, reply);
      if (!current) return reply;
      const rawEvents = request.body.enabledEvents ?? [];
      const form: EndpointFormValues = {
        url: (request.body.url ?? '').trim(),
        description: (request.body.description ?? '').trim(),
        enabledEvents: Array.isArray(rawEvents) ? rawEvents : [rawEvents],
      };
      if (!canManage(current)) {
        return listPage(request, reply, current, 403, { errors: ['not_permitted'] });
      }
      const errors: WebhookFormError[] = [];
      const chosen = EVENT_CHOICES.filter((kind) => form.enabledEvents.includes(kind));
      // `*` covers every kind: it is sent alone.
      const enabledEvents = (chosen.includes('*') ? ['*'] : chosen) as WebhookEndpointCreate['enabledEvents'];
      if (form.url === '') errors.push('invalid_url');
      if (form.url.length > LIMITS.url || form.description.length > LIMITS.description)
        errors.push('too_long');
      if (enabledEvents.length === 0) errors.push('no_events');
      if (errors.length > 0) return listPage(request, reply, current, 400, { errors, form });

      const result = await endpoints.create(ownerOf(current), {
        url: form.url,
        enabledEvents,
        ...(form.description === '' ? {} : { description: form.description }),
      });
      if (!result.ok) {
        const found = (result.issues ?? []).map((issue) => urlProblemOf(issue.message));
        return listPage(request, reply, current, 400, {
          errors: found.length > 0 ? found : ['invalid_url'],
          form,
        });
      }
      const { secret, ...endpoint } = result.value;
      await audit(request, current, 'webhook_endpoint.created', endpoint.id, {
        url: endpoint.url,
        enabledEvents: endpoint.enabledEvents,
      });
      // The only time the secret is shown: this response, never cached nor stored in clear.
      return render(request, reply, 'dashboard-webhooks-secret', 200, {
        title: (w) => w.createdTitle,
        nav: true,
        csrf: current.session.csrfToken,
        kind: 'created',
        endpoint,
        secret,
        // Switching language would reload the page: the secret would be gone.
        noLanguageSwitch: true,
      });
    },
  );

  // ---------------------------------------------------------------- one endpoint and its deliveries

  const endpointOr404 = async (current: SignedIn, id: string) => {
    const found = await endpoints.get(ownerOf(current), id);
    if (!found.ok) throw new ApiError('not_found', 'No such webhook endpoint.');
    return found.value;
  };

  const detailPage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    current: SignedIn,
    id: string,
    status: number,
    extra: {
      notice?: Notice;
      error?: WebhookFormError;
      editErrors?: EditFieldErrors;
      editForm?: EndpointFormValues;
    } = {},
  ) => {
    const endpoint = await endpointOr404(current, id);
    const attempts = await attemptsOfEndpoint(db, ownerOf(current), endpoint.id);
    // One Retry button per delivery: on its newest attempt.
    const seen = new Set<string>();
    const rows = attempts.map((attempt) => {
      const newestOfDelivery = !seen.has(attempt.deliveryId);
      seen.add(attempt.deliveryId);
      return { ...attempt, newestOfDelivery };
    });
    return render(request, reply, 'dashboard-webhooks-endpoint', status, {
      title: (w) => `${w.title}: ${endpoint.url}`,
      nav: true,
      csrf: current.session.csrfToken,
      environment: current.session.environment,
      endpoint,
      attempts: rows,
      attemptsLimit: ENDPOINT_ATTEMPTS_LIMIT,
      canManage: canManage(current),
      graceChoices: GRACE_CHOICES,
      defaultGrace: DEFAULT_GRACE,
      notice: extra.notice,
      error: extra.error,
      whenExact: exactTime,
      eventChoices: EVENT_CHOICES,
      limits: LIMITS,
      editErrors: extra.editErrors ?? { url: [], events: [], description: [] },
      editForm: extra.editForm ?? {
        url: endpoint.url,
        description: endpoint.description ?? '',
        enabledEvents: endpoint.enabledEvents,
      },
    });
  };

  app.get(
    '/dashboard/webhooks/:id',
    { schema: { hide: true, querystring: PageQuerySchema, params: IdParamsSchema } },
    async (request, reply) => {
      const current = await signedInOrRedirect(request, reply);
      if (!current) return reply;
      const notice = noticeOf(request.query.notice);
      return detailPage(request, reply, current, request.params.id, 200, notice ? { notice } : {});
    },
  );

  app.post(
    '/dashboard/webhooks/:id/status',
    {
      schema: { hide: true, querystring: PageQuerySchema, params: IdParamsSchema, body: StatusFormSchema },
      config: { rateLimit: DASHBOARD_RATE_LIMITS.accountSettings },
    },
    async (request, reply) => {
      const current = await signedInPost(request, reply);
      if (!current) return reply;
      const { id } = request.params;
      if (!canManage(current)) {
        return detailPage(request, reply, current, id, 403, { error: 'not_permitted' });
      }
      const disabled = request.body.disabled === 'true';
      const result = await endpoints.update(ownerOf(current), id, { disabled });
      if (!result.ok) throw new ApiError('not_found', 'No such webhook endpoint.');
      await audit(
        request,
        current,
        disabled ? 'webhook_endpoint.disabled' : 'webhook_endpoint.enabled',
        result.value.id,
      );
      return redirect(request, reply, endpointPath(id), { notice: disabled ? 'disabled' : 'enabled' });
    },
  );

  app.post(
    '/dashboard/webhooks/:id/edit',
    {
      schema: { hide: true, querystring: PageQuerySchema, params: IdParamsSchema, body: EndpointFormSchema },
      config: { rateLimit: DASHBOARD_RATE_LIMITS.accountSettings },
    },
    async (request, reply) => {
      const current = await signedInPost(request, reply);
      if (!current) return reply;
      const { id } = request.params;
      if (!canManage(current)) {
        return detailPage(request, reply, current, id, 403, { error: 'not_permitted' });
      }
      const before = await endpointOr404(current, id);
      const rawEvents = request.body.enabledEvents ?? [];
      const form: EndpointFormValues = {
        url: (request.body.url ?? '').trim(),
        description: (request.body.description ?? '').trim(),
        enabledEvents: Array.isArray(rawEvents) ? rawEvents : [rawEvents],
      };
      const chosen = EVENT_CHOICES.filter((kind) => form.enabledEvents.includes(kind));
      // `*` covers every kind: it is sent alone.
      const enabledEvents = (chosen.includes('*') ? ['*'] : chosen) as NonNullable<
        WebhookEndpointUpdate['enabledEvents']
      >;
      const errors: EditFieldErrors = { url: [], events: [], description: [] };
      if (form.url === '') errors.url.push('invalid_url');
      else if (form.url.length > LIMITS.url) errors.url.push('url_too_long');
      if (enabledEvents.length === 0) errors.events.push('no_events');
      if (form.description.length > LIMITS.description) errors.description.push('description_too_long');
      const invalid = () =>
        detailPage(request, reply, current, before.id, 400, { editErrors: errors, editForm: form });
      if (errors.url.length + errors.events.length + errors.description.length > 0) {
        return invalid();
      }

      // Only what changed: an unchanged URL is not checked (resolved) again.
      const description = form.description === '' ? null : form.description;
      const sameEvents =
        enabledEvents.length === before.enabledEvents.length &&
        enabledEvents.every((kind) => before.enabledEvents.includes(kind));
      const changes: WebhookEndpointUpdate = {
        ...(form.url === before.url ? {} : { url: form.url }),
        ...(sameEvents ? {} : { enabledEvents }),
        ...(description === before.description ? {} : { description }),
      };
      const changed = Object.keys(changes);
      if (changed.length === 0)
        return redirect(request, reply, endpointPath(before.id), { notice: 'unchanged' });

      const result = await endpoints.update(ownerOf(current), before.id, changes);
      if (!result.ok) {
        if (result.error === 'not_found') throw new ApiError('not_found', 'No such webhook endpoint.');
        const found = (result.issues ?? []).map((issue) => urlProblemOf(issue.message));
        errors.url.push(...(found.length > 0 ? found : (['invalid_url'] as const)));
        return invalid();
      }
      await audit(request, current, 'webhook_endpoint.updated', result.value.id, {
        changed,
        url: result.value.url,
        enabledEvents: result.value.enabledEvents,
      });
      return redirect(request, reply, endpointPath(before.id), { notice: 'updated' });
    },
  );

  app.post(
    '/dashboard/webhooks/:id/rotate',
    {
      schema: { hide: true, querystring: PageQuerySchema, params: IdParamsSchema, body: RotateFormSchema },
      config: { rateLimit: DASHBOARD_RATE_LIMITS.accountSettings },
    },
    async (request, reply) => {
      const current = await signedInPost(request, reply);
      if (!current) return reply;
      const { id } = request.params;
      if (!canManage(current)) {
        return detailPage(request, reply, current, id, 403, { error: 'not_permitted' });
      }
      const gracePeriodSeconds = Number(request.body.gracePeriodSeconds ?? DEFAULT_GRACE);
      const result = await endpoints.rotateSecret(ownerOf(current), id, { gracePeriodSeconds });
      if (!result.ok) throw new ApiError('not_found', 'No such webhook endpoint.');
      const { secret, ...endpoint } = result.value;
      await audit(request, current, 'webhook_endpoint.secret_rotated', endpoint.id, { gracePeriodSeconds });
      return render(request, reply, 'dashboard-webhooks-secret', 200, {
        title: (w) => w.rotatedTitle,
        nav: true,
        csrf: current.session.csrfToken,
        kind: 'rotated',
        endpoint,
        secret,
        graceUntil: endpoint.previousSecretExpiresAt ? new Date(endpoint.previousSecretExpiresAt) : null,
        noLanguageSwitch: true,
      });
    },
  );

  app.get(
    '/dashboard/webhooks/:id/delete',
    { schema: { hide: true, querystring: PageQuerySchema, params: IdParamsSchema } },
    async (request, reply) => {
      const current = await signedInOrRedirect(request, reply);
      if (!current) return reply;
      const endpoint = await endpointOr404(current, request.params.id);
      if (!canManage(current)) {
        return detailPage(request, reply, current, endpoint.id, 403, { error: 'not_permitted' });
      }
      return render(request, reply, 'dashboard-webhooks-delete', 200, {
        title: (w) => w.confirmTitle,
        nav: true,
        csrf: current.session.csrfToken,
        endpoint,
      });
    },
  );

  app.post(
    '/dashboard/webhooks/:id/delete',
    {
      schema: { hide: true, querystring: PageQuerySchema, params: IdParamsSchema, body: CsrfFormSchema },
      config: { rateLimit: DASHBOARD_RATE_LIMITS.accountSettings },
    },
    async (request, reply) => {
      const current = await signedInPost(request, reply);
      if (!current) return reply;
      const { id } = request.params;
      if (!canManage(current)) {
        return detailPage(request, reply, current, id, 403, { error: 'not_permitted' });
      }
      const result = await endpoints.remove(ownerOf(current), id);
      if (!result.ok) throw new ApiError('not_found', 'No such webhook endpoint.');
      await audit(request, current, 'webhook_endpoint.deleted', result.value.id);
      return redirect(request, reply, '/dashboard/webhooks', { notice: 'deleted' });
    },
  );

  app.post(
    '/dashboard/webhooks/:id/deliveries/:deliveryId/retry',
    {
      schema: { hide: true, querystring: PageQuerySchema, params: RetryParamsSchema, body: CsrfFormSchema },
      config: { rateLimit: DASHBOARD_RATE_LIMITS.accountSettings },
    },
    async (request, reply) => {
      const current = await signedInPost(request, reply);
      if (!current) return reply;
      const { id, deliveryId } = request.params;
      if (!canManage(current)) {
        return detailPage(request, reply, current, id, 403, { error: 'not_permitted' });
      }
      const endpoint = await endpointOr404(current, id);
      // A delivery of another endpoint (or organization) is not this page's to retry.
      if (!(await deliveryOfEndpoint(db, ownerOf(current), endpoint.id, deliveryId))) {
        throw new ApiError('not_found', 'No such webhook delivery.');
      }
      const result = await endpoints.retry(ownerOf(current), deliveryId);
      if (!result.ok) throw new ApiError('not_found', 'No such webhook delivery.');
      await users.recordAudit(current.account.user, 'webhook_delivery.retried', contextOf(request), {
        targetType: 'webhook_delivery',
        targetId: result.value.id,
        after: { endpointId: endpoint.id, eventId: result.value.eventId },
      });
      return redirect(request, reply, endpointPath(id), { notice: 'retried' });
    },
  );
}

/** The form error of a URL problem the webhooks service reported (its messages are English). */
function urlProblemOf(message: string): WebhookFormError {
  return URL_PROBLEM_KEYS.find((key) => URL_PROBLEM_MESSAGES[key] === message) ?? 'invalid_url';
}

/** A time to the minute, UTC, as the other dashboard lists show it. */
function displayTime(date: Date | string | null): string {
  if (date === null) return '';
  return `${new Date(date).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** A time to the second, UTC: delivery attempts come seconds apart. */
function exactTime(date: Date): string {
  return `${date.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}
