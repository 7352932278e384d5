import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { ApiError } from '../../http/errors.js';
import type { App } from '../../http/server.js';
import { EVENT_TYPES } from '../events/service.js';
import { webhookRefusal } from '../webhooks/errors.js';
import type { Owner } from '../webhooks/model.js';
import type { WebhookEndpointCreate, WebhookEndpointUpdate } from '../webhooks/schemas.js';
import type { WebhookEndpointService } from '../webhooks/service.js';
import { URL_PROBLEM_MESSAGES } from '../webhooks/url-guard.js';
import { contextOf, DASHBOARD_RATE_LIMITS, type SignedIn } from '../users/http.js';
import type { UserService } from '../users/service.js';
import { PageQuerySchema, type PageKit } from './kit.js';
import { URL_PROBLEM_KEYS, type WebhookFormError } from './webhook-i18n.js';

export interface DashboardWebhookPagesOptions {
  kit: PageKit;
  users: UserService;
  webhooks: WebhookEndpointService;
}

/** How many endpoints the list shows, and attempts the detail page shows (newest first). */
const ENDPOINT_PAGE_LIMIT = 100;
export const ENDPOINT_ATTEMPTS_LIMIT = 50;
const EVENT_CHOICES = [...EVENT_TYPES, '*'] as const;
const GRACE_CHOICES = ['0', '3600', '86400', '259200', '604800'] as const;
const DEFAULT_GRACE = '86400';
const PAUSE_CHOICES = ['300', '900', '1800', '3600', '0'] as const;
const DEFAULT_PAUSE = '900';
const LIMITS = { url: 2048, description: 500 } as const;

const Csrf = Type.Optional(Type.String({ maxLength: 200 }));
const FormText = (maxLength: number) => Type.String({ maxLength });
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

const SwitchFormSchema = Type.Object(
  { _csrf: Csrf, pauseSeconds: Type.Optional(Type.Enum([...PAUSE_CHOICES])) },
  { additionalProperties: false },
);

interface EndpointFormValues {
  url: string;
  description: string;
  enabledEvents: string[];
}
const EMPTY_FORM: EndpointFormValues = { url: '', description: '', enabledEvents: [] };
const NOTICES = [
  'deleted',
  'disabled',
  'enabled',
  'retried',
  'updated',
  'unchanged',
  'switched',
  'resumed',
] as const;
type Notice = (typeof NOTICES)[number];
/** The errors of the edit form, each shown next to its field. */
interface EditFieldErrors {
  url: WebhookFormError[];
  events: WebhookFormError[];
  description: WebhookFormError[];
}

/**
 * The webhook endpoint pages of the merchant dashboard (issue 7): list, create, detail, rotate, switch to
 * the new secret and resume the paused deliveries (ADR 0068), delete.
 */
export async function webhookPages(app: App, options: DashboardWebhookPagesOptions): Promise<void> {
  const { kit, users, webhooks: endpoints } = options;
  kit.handleErrors(app);

  const ownerOf = ({ account, session }: SignedIn): Owner => ({
    organizationId: account.organization.id,
    environment: session.environment,
  });
  const canManage = (current: SignedIn) => kit.may(current, 'manageWebhooks');
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
    const listed = await endpoints.list(ownerOf(current), { limit: ENDPOINT_PAGE_LIMIT });
    if (!listed.ok) throw webhookRefusal(listed.error);
    const page = listed.value;
    return kit.render(request, reply, 'dashboard-webhooks', status, {
      title: (_m, w) => w.title,
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
      const current = await kit.signedIn(request, reply);
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
      const current = await kit.signedInPost(request, reply);
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
        if (result.error.code === 'endpoint_limit') {
          return listPage(request, reply, current, 409, { errors: ['limit_reached'], form });
        }
        const found = (result.error.code === 'invalid_input' ? result.error.issues : []).map((issue) =>
          urlProblemOf(issue.message),
        );
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
      return kit.render(request, reply, 'dashboard-webhooks-secret', 200, {
        title: (_m, w) => w.createdTitle,
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
    const attempts = await endpoints.endpointAttempts(ownerOf(current), endpoint.id, ENDPOINT_ATTEMPTS_LIMIT);
    // One Retry button per delivery: on its newest attempt.
    const seen = new Set<string>();
    const rows = attempts.map((attempt) => {
      const newestOfDelivery = !seen.has(attempt.deliveryId);
      seen.add(attempt.deliveryId);
      return { ...attempt, newestOfDelivery };
    });
    return kit.render(request, reply, 'dashboard-webhooks-endpoint', status, {
      title: (_m, w) => `${w.title}: ${endpoint.url}`,
      csrf: current.session.csrfToken,
      environment: current.session.environment,
      endpoint,
      attempts: rows,
      attemptsLimit: ENDPOINT_ATTEMPTS_LIMIT,
      canManage: canManage(current),
      graceChoices: GRACE_CHOICES,
      defaultGrace: DEFAULT_GRACE,
      pauseChoices: PAUSE_CHOICES,
      defaultPause: DEFAULT_PAUSE,
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
      const current = await kit.signedIn(request, reply);
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
      const current = await kit.signedInPost(request, reply);
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
      return kit.redirect(request, reply, endpointPath(id), { notice: disabled ? 'disabled' : 'enabled' });
    },
  );

  app.post(
    '/dashboard/webhooks/:id/edit',
    {
      schema: { hide: true, querystring: PageQuerySchema, params: IdParamsSchema, body: EndpointFormSchema },
      config: { rateLimit: DASHBOARD_RATE_LIMITS.accountSettings },
    },
    async (request, reply) => {
      const current = await kit.signedInPost(request, reply);
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
        return kit.redirect(request, reply, endpointPath(before.id), { notice: 'unchanged' });

      const result = await endpoints.update(ownerOf(current), before.id, changes);
      if (!result.ok) {
        if (result.error.code === 'not_found') throw new ApiError('not_found', 'No such webhook endpoint.');
        const found = (result.error.code === 'invalid_input' ? result.error.issues : []).map((issue) =>
          urlProblemOf(issue.message),
        );
        errors.url.push(...(found.length > 0 ? found : (['invalid_url'] as const)));
        return invalid();
      }
      await audit(request, current, 'webhook_endpoint.updated', result.value.id, {
        changed,
        url: result.value.url,
        enabledEvents: result.value.enabledEvents,
      });
      return kit.redirect(request, reply, endpointPath(before.id), { notice: 'updated' });
    },
  );

  app.post(
    '/dashboard/webhooks/:id/rotate',
    {
      schema: { hide: true, querystring: PageQuerySchema, params: IdParamsSchema, body: RotateFormSchema },
      config: { rateLimit: DASHBOARD_RATE_LIMITS.accountSettings },
    },
    async (request, reply) => {
      const current = await kit.signedInPost(request, reply);
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
      return kit.render(request, reply, 'dashboard-webhooks-secret', 200, {
        title: (_m, w) => w.rotatedTitle,
        csrf: current.session.csrfToken,
        kind: 'rotated',
        endpoint,
        secret,
        graceUntil: endpoint.previousSecretExpiresAt ? new Date(endpoint.previousSecretExpiresAt) : null,
        noLanguageSwitch: true,
      });
    },
  );

  app.post(
    '/dashboard/webhooks/:id/switch',
    {
      schema: { hide: true, querystring: PageQuerySchema, params: IdParamsSchema, body: SwitchFormSchema },
      config: { rateLimit: DASHBOARD_RATE_LIMITS.accountSettings },
    },
    async (request, reply) => {
      const current = await kit.signedInPost(request, reply);
      if (!current) return reply;
      const { id } = request.params;
      if (!canManage(current)) {
        return detailPage(request, reply, current, id, 403, { error: 'not_permitted' });
      }
      const pauseSeconds = Number(request.body.pauseSeconds ?? DEFAULT_PAUSE);
      const result = await endpoints.switchSecret(ownerOf(current), id, { pauseSeconds });
      if (!result.ok) {
        if (result.error.code === 'no_rotation')
          return detailPage(request, reply, current, id, 409, { error: 'no_rotation' });
        throw new ApiError('not_found', 'No such webhook endpoint.');
      }
      await audit(request, current, 'webhook_endpoint.secret_switched', result.value.id, { pauseSeconds });
      return kit.redirect(request, reply, endpointPath(id), { notice: 'switched' });
    },
  );

  app.post(
    '/dashboard/webhooks/:id/resume',
    {
      schema: { hide: true, querystring: PageQuerySchema, params: IdParamsSchema, body: CsrfFormSchema },
      config: { rateLimit: DASHBOARD_RATE_LIMITS.accountSettings },
    },
    async (request, reply) => {
      const current = await kit.signedInPost(request, reply);
      if (!current) return reply;
      const { id } = request.params;
      if (!canManage(current)) {
        return detailPage(request, reply, current, id, 403, { error: 'not_permitted' });
      }
      const result = await endpoints.resumeDeliveries(ownerOf(current), id);
      if (!result.ok) throw new ApiError('not_found', 'No such webhook endpoint.');
      await audit(request, current, 'webhook_endpoint.deliveries_resumed', result.value.id);
      return kit.redirect(request, reply, endpointPath(id), { notice: 'resumed' });
    },
  );

  app.get(
    '/dashboard/webhooks/:id/delete',
    { schema: { hide: true, querystring: PageQuerySchema, params: IdParamsSchema } },
    async (request, reply) => {
      const current = await kit.signedIn(request, reply);
      if (!current) return reply;
      const endpoint = await endpointOr404(current, request.params.id);
      if (!canManage(current)) {
        return detailPage(request, reply, current, endpoint.id, 403, { error: 'not_permitted' });
      }
      return kit.render(request, reply, 'dashboard-webhooks-delete', 200, {
        title: (_m, w) => w.confirmTitle,
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
      const current = await kit.signedInPost(request, reply);
      if (!current) return reply;
      const { id } = request.params;
      if (!canManage(current)) {
        return detailPage(request, reply, current, id, 403, { error: 'not_permitted' });
      }
      const result = await endpoints.remove(ownerOf(current), id);
      if (!result.ok) throw new ApiError('not_found', 'No such webhook endpoint.');
      await audit(request, current, 'webhook_endpoint.deleted', result.value.id);
      return kit.redirect(request, reply, '/dashboard/webhooks', { notice: 'deleted' });
    },
  );

  app.post(
    '/dashboard/webhooks/:id/deliveries/:deliveryId/retry',
    {
      schema: { hide: true, querystring: PageQuerySchema, params: RetryParamsSchema, body: CsrfFormSchema },
      config: { rateLimit: DASHBOARD_RATE_LIMITS.accountSettings },
    },
    async (request, reply) => {
      const current = await kit.signedInPost(request, reply);
      if (!current) return reply;
      const { id, deliveryId } = request.params;
      if (!canManage(current)) {
        return detailPage(request, reply, current, id, 403, { error: 'not_permitted' });
      }
      const endpoint = await endpointOr404(current, id);
      // A delivery of another endpoint (or organization) is not this page's to retry.
      if (!(await endpoints.isDeliveryOfEndpoint(ownerOf(current), endpoint.id, deliveryId))) {
        throw new ApiError('not_found', 'No such webhook delivery.');
      }
      const result = await endpoints.retry(ownerOf(current), deliveryId);
      // 404, or 409 for a kind the endpoint no longer selects (the message says which).
      if (!result.ok) throw webhookRefusal(result.error);
      await users.recordAudit(current.account.user, 'webhook_delivery.retried', contextOf(request), {
        targetType: 'webhook_delivery',
        targetId: result.value.id,
        after: { endpointId: endpoint.id, eventId: result.value.eventId },
      });
      return kit.redirect(request, reply, endpointPath(id), { notice: 'retried' });
    },
  );
}

/** The form error of a URL problem the webhooks service reported (its messages are English). */
function urlProblemOf(message: string): WebhookFormError {
  return URL_PROBLEM_KEYS.find((key) => URL_PROBLEM_MESSAGES[key] === message) ?? 'invalid_url';
}

/** A time to the second, UTC: delivery attempts come seconds apart. */
function exactTime(date: Date): string {
  return `${date.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}
