import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import { ApiError } from '../../http/errors.js';
import { contextOf } from '../users/http.js';
import { webhookRefusal } from '../webhooks/errors.js';
import { ownerOf, PageQuerySchema, type PageRequest } from './kit.js';
import {
  audit,
  Csrf,
  CsrfFormSchema,
  DEFAULT_GRACE,
  DEFAULT_PAUSE,
  detailPage,
  endpointCommand,
  endpointOr404,
  endpointPath,
  GRACE_CHOICES,
  IdParamsSchema,
  noSuchEndpoint,
  PAUSE_CHOICES,
  type EndpointCommandRoute,
} from './webhook-pages.js';
import type { DashboardWebhookPagesOptions } from './webhook-options.js';

const RotateFormSchema = Type.Object(
  { _csrf: Csrf, gracePeriodSeconds: Type.Optional(Type.Enum([...GRACE_CHOICES])) },
  { additionalProperties: false },
);
const SwitchFormSchema = Type.Object(
  { _csrf: Csrf, pauseSeconds: Type.Optional(Type.Enum([...PAUSE_CHOICES])) },
  { additionalProperties: false },
);
const RetryParamsSchema = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 64 }),
  deliveryId: Type.String({ minLength: 1, maxLength: 64 }),
});

export const RotateRoute = {
  hide: true,
  querystring: PageQuerySchema,
  params: IdParamsSchema,
  body: RotateFormSchema,
};
export const SwitchRoute = {
  hide: true,
  querystring: PageQuerySchema,
  params: IdParamsSchema,
  body: SwitchFormSchema,
};
export const RetryRoute = {
  hide: true,
  querystring: PageQuerySchema,
  params: RetryParamsSchema,
  body: CsrfFormSchema,
};

// ---------------------------------------------------------------- the signing secret (ADR 0068)

export async function rotateSecret(
  options: DashboardWebhookPagesOptions,
  request: PageRequest<typeof RotateRoute>,
  reply: FastifyReply,
) {
  const { id } = request.params;
  return endpointCommand(options, request, reply, id, async (current) => {
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
  });
}

export async function switchSecret(
  options: DashboardWebhookPagesOptions,
  request: PageRequest<typeof SwitchRoute>,
  reply: FastifyReply,
) {
  const { id } = request.params;
  return endpointCommand(options, request, reply, id, async (current) => {
    const pauseSeconds = Number(request.body.pauseSeconds ?? DEFAULT_PAUSE);
    const result = await options.webhooks.switchSecret(ownerOf(current), id, { pauseSeconds });
    if (!result.ok) {
      if (result.error.code === 'no_rotation')
        return {
          reply: await detailPage(options, request, reply, current, id, 409, { error: 'no_rotation' }),
        };
      throw noSuchEndpoint();
    }
    await audit(options, request, current, 'webhook_endpoint.secret_switched', result.value.id, {
      pauseSeconds,
    });
    return { path: endpointPath(id), notice: 'switched' };
  });
}

// ---------------------------------------------------------------- deliveries, and deleting

export async function resumeDeliveries(
  options: DashboardWebhookPagesOptions,
  request: PageRequest<typeof EndpointCommandRoute>,
  reply: FastifyReply,
) {
  const { id } = request.params;
  return endpointCommand(options, request, reply, id, async (current) => {
    const result = await options.webhooks.resumeDeliveries(ownerOf(current), id);
    if (!result.ok) throw noSuchEndpoint();
    await audit(options, request, current, 'webhook_endpoint.deliveries_resumed', result.value.id);
    return { path: endpointPath(id), notice: 'resumed' };
  });
}

export async function deleteEndpoint(
  options: DashboardWebhookPagesOptions,
  request: PageRequest<typeof EndpointCommandRoute>,
  reply: FastifyReply,
) {
  const { id } = request.params;
  return endpointCommand(options, request, reply, id, async (current) => {
    const result = await options.webhooks.remove(ownerOf(current), id);
    if (!result.ok) throw noSuchEndpoint();
    await audit(options, request, current, 'webhook_endpoint.deleted', result.value.id);
    return { path: '/dashboard/webhooks', notice: 'deleted' };
  });
}

export async function retryDelivery(
  options: DashboardWebhookPagesOptions,
  request: PageRequest<typeof RetryRoute>,
  reply: FastifyReply,
) {
  const { webhooks: endpoints, users } = options;
  const { id, deliveryId } = request.params;
  return endpointCommand(options, request, reply, id, async (current) => {
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
  });
}
