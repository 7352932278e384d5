import { Type } from 'typebox';
import { ApiError } from '../../http/errors.js';
import { contextOf } from '../users/http.js';
import { webhookRefusal } from '../webhooks/errors.js';
import { Csrf, CsrfFormSchema, IdParamsSchema, ownerOf, pageSchema, type PageRequest } from './kit.js';
import {
  audit,
  DEFAULT_GRACE,
  DEFAULT_PAUSE,
  endpointChange,
  endpointOr404,
  endpointPath,
  GRACE_CHOICES,
  noSuchEndpoint,
  onEndpoint,
  PAUSE_CHOICES,
  type EndpointCommandRoute,
} from './webhook-pages.js';

// ---------------------------------------------------------------- the signing secret (ADR 0068)

const RotateFormSchema = Type.Object(
  { _csrf: Csrf, gracePeriodSeconds: Type.Optional(Type.Enum([...GRACE_CHOICES])) },
  { additionalProperties: false },
);
export const RotateRoute = pageSchema({ params: IdParamsSchema, body: RotateFormSchema });

export const rotateSecret = onEndpoint<PageRequest<typeof RotateRoute>>(
  async (options, request, reply, current, id) => {
    const gracePeriodSeconds = Number(request.body.gracePeriodSeconds ?? DEFAULT_GRACE);
    const result = await options.webhooks.rotateSecret(ownerOf(current), id, { gracePeriodSeconds });
    if (!result.ok) throw noSuchEndpoint();
    const { secret, ...endpoint } = result.value;
    await audit(options, request, current, 'webhook_endpoint.secret_rotated', endpoint.id, {
      gracePeriodSeconds,
    });
    return {
      reply: await options.kit.render(request, reply, 'dashboard-webhooks-secret', 200, {
        title: (_m, w) => w.rotatedTitle,
        csrf: current.session.csrfToken,
        kind: 'rotated',
        endpoint,
        secret,
        graceUntil: endpoint.previousSecretExpiresAt ? new Date(endpoint.previousSecretExpiresAt) : null,
        noLanguageSwitch: true,
      }),
    };
  },
);

const SwitchFormSchema = Type.Object(
  { _csrf: Csrf, pauseSeconds: Type.Optional(Type.Enum([...PAUSE_CHOICES])) },
  { additionalProperties: false },
);
export const SwitchRoute = pageSchema({ params: IdParamsSchema, body: SwitchFormSchema });

const pauseOf = (request: PageRequest<typeof SwitchRoute>) =>
  Number(request.body.pauseSeconds ?? DEFAULT_PAUSE);

/** The new secret only, after the pause (a rotation's grace ends now); 409 if none is rotating. */
export const switchSecret = endpointChange<PageRequest<typeof SwitchRoute>>({
  change: (webhooks, owner, id, request) =>
    webhooks.switchSecret(owner, id, { pauseSeconds: pauseOf(request) }),
  shown: 'no_rotation',
  audit: (request) => ({
    action: 'webhook_endpoint.secret_switched',
    after: { pauseSeconds: pauseOf(request) },
  }),
  outcome: (id) => ({ path: endpointPath(id), notice: 'switched' }),
});

// ---------------------------------------------------------------- deliveries, and deleting

export const resumeDeliveries = endpointChange<PageRequest<typeof EndpointCommandRoute>>({
  change: (webhooks, owner, id) => webhooks.resumeDeliveries(owner, id),
  audit: () => ({ action: 'webhook_endpoint.deliveries_resumed' }),
  outcome: (id) => ({ path: endpointPath(id), notice: 'resumed' }),
});

export const deleteEndpoint = endpointChange<PageRequest<typeof EndpointCommandRoute>>({
  change: (webhooks, owner, id) => webhooks.remove(owner, id),
  audit: () => ({ action: 'webhook_endpoint.deleted' }),
  outcome: () => ({ path: '/dashboard/webhooks', notice: 'deleted' }),
});

const RetryParamsSchema = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 64 }),
  deliveryId: Type.String({ minLength: 1, maxLength: 64 }),
});
export const RetryRoute = pageSchema({ params: RetryParamsSchema, body: CsrfFormSchema });

export const retryDelivery = onEndpoint<PageRequest<typeof RetryRoute>>(
  async (options, request, _reply, current, id) => {
    const { webhooks: endpoints, users } = options;
    const { deliveryId } = request.params;
    const endpoint = await endpointOr404(options, current, id);
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
    return { path: endpointPath(id), notice: 'retried' };
  },
);
