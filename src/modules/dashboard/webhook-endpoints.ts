import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import type { SignedIn } from '../users/http.js';
import type { WebhookEndpointCreate, WebhookEndpointUpdate } from '../webhooks/schemas.js';
import { Csrf, IdParamsSchema, ownerOf, pageSchema, type PageRequest } from './kit.js';
import {
  audit,
  canManage,
  chosenEventsOf,
  detailPage,
  endpointChange,
  endpointFormOf,
  endpointOr404,
  endpointPath,
  LIMITS,
  listPage,
  noSuchEndpoint,
  onEndpoint,
  urlProblemOf,
  type EditFieldErrors,
} from './webhook-pages.js';
import type { WebhookFormError } from './webhook-i18n.js';
import type { DashboardWebhookPagesOptions } from './webhook-options.js';

const FormText = (maxLength: number) => Type.String({ maxLength });
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

export const EndpointListRoute = pageSchema({});
export const EndpointCreateRoute = pageSchema({ body: EndpointFormSchema });
export const EndpointRoute = pageSchema({ params: IdParamsSchema });
export const EndpointStatusRoute = pageSchema({ params: IdParamsSchema, body: StatusFormSchema });
export const EndpointEditRoute = pageSchema({ params: IdParamsSchema, body: EndpointFormSchema });

// ---------------------------------------------------------------- the list and the creation form

export async function createEndpoint(
  options: DashboardWebhookPagesOptions,
  request: PageRequest<typeof EndpointCreateRoute>,
  reply: FastifyReply,
  current: SignedIn,
) {
  const { kit, webhooks: endpoints } = options;
  const form = endpointFormOf(request.body);
  if (!canManage(kit, current)) {
    return listPage(options, request, reply, current, 403, { errors: ['not_permitted'] });
  }
  const errors: WebhookFormError[] = [];
  const enabledEvents = chosenEventsOf(form) as WebhookEndpointCreate['enabledEvents'];
  if (form.url === '') errors.push('invalid_url');
  if (form.url.length > LIMITS.url || form.description.length > LIMITS.description) errors.push('too_long');
  if (enabledEvents.length === 0) errors.push('no_events');
  if (errors.length > 0) return listPage(options, request, reply, current, 400, { errors, form });

  const result = await endpoints.create(ownerOf(current), {
    url: form.url,
    enabledEvents,
    ...(form.description === '' ? {} : { description: form.description }),
  });
  if (!result.ok) {
    if (result.error.code === 'endpoint_limit') {
      return listPage(options, request, reply, current, 409, { errors: ['limit_reached'], form });
    }
    const found = (result.error.code === 'invalid_input' ? result.error.issues : []).map((issue) =>
      urlProblemOf(issue.message),
    );
    return listPage(options, request, reply, current, 400, {
      errors: found.length > 0 ? found : ['invalid_url'],
      form,
    });
  }
  const { secret, ...endpoint } = result.value;
  await audit(options, request, current, 'webhook_endpoint.created', endpoint.id, {
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
}

// ---------------------------------------------------------------- one endpoint

const disabledOf = (request: PageRequest<typeof EndpointStatusRoute>) => request.body.disabled === 'true';

export const setEndpointStatus = endpointChange<PageRequest<typeof EndpointStatusRoute>>({
  change: (webhooks, owner, id, request) => webhooks.update(owner, id, { disabled: disabledOf(request) }),
  audit: (request) => ({
    action: disabledOf(request) ? 'webhook_endpoint.disabled' : 'webhook_endpoint.enabled',
  }),
  outcome: (id, request) => ({
    path: endpointPath(id),
    notice: disabledOf(request) ? 'disabled' : 'enabled',
  }),
});

export const editEndpoint = onEndpoint<PageRequest<typeof EndpointEditRoute>>(
  async (options, request, reply, current, id) => {
    const before = await endpointOr404(options, current, id);
    const form = endpointFormOf(request.body);
    const enabledEvents = chosenEventsOf(form) as NonNullable<WebhookEndpointUpdate['enabledEvents']>;
    const errors: EditFieldErrors = { url: [], events: [], description: [] };
    if (form.url === '') errors.url.push('invalid_url');
    else if (form.url.length > LIMITS.url) errors.url.push('url_too_long');
    if (enabledEvents.length === 0) errors.events.push('no_events');
    if (form.description.length > LIMITS.description) errors.description.push('description_too_long');
    const invalid = async () => ({
      reply: await detailPage(options, request, reply, current, before.id, 400, {
        editErrors: errors,
        editForm: form,
      }),
    });
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
    if (changed.length === 0) return { path: endpointPath(before.id), notice: 'unchanged' };

    const result = await options.webhooks.update(ownerOf(current), before.id, changes);
    if (!result.ok) {
      if (result.error.code === 'not_found') throw noSuchEndpoint();
      const found = (result.error.code === 'invalid_input' ? result.error.issues : []).map((issue) =>
        urlProblemOf(issue.message),
      );
      errors.url.push(...(found.length > 0 ? found : (['invalid_url'] as const)));
      return invalid();
    }
    await audit(options, request, current, 'webhook_endpoint.updated', result.value.id, {
      changed,
      url: result.value.url,
      enabledEvents: result.value.enabledEvents,
    });
    return { path: endpointPath(before.id), notice: 'updated' };
  },
);

// ---------------------------------------------------------------- deleting an endpoint

export async function confirmDelete(
  options: DashboardWebhookPagesOptions,
  request: PageRequest<typeof EndpointRoute>,
  reply: FastifyReply,
  current: SignedIn,
) {
  const endpoint = await endpointOr404(options, current, request.params.id);
  if (!canManage(options.kit, current)) {
    return detailPage(options, request, reply, current, endpoint.id, 403, { error: 'not_permitted' });
  }
  return options.kit.render(request, reply, 'dashboard-webhooks-delete', 200, {
    title: (_m, w) => w.confirmTitle,
    csrf: current.session.csrfToken,
    endpoint,
  });
}
