import { failures, routeKit, unwrapWith } from '../../http/api-routes.js';
import { type IdempotencyOptions, sealedSecretOnSend } from '../../http/idempotency.js';
import { ListQuerySchema } from '../../http/list-query.js';
import { IdParamsSchema as idParams } from '../../http/schemas.js';
import type { App } from '../../http/server.js';
import type { SecretBox } from '../../shared/secret-box.js';
import { callerScope, ownerOf } from '../api-keys/context.js';
import type { ChargeService } from '../charges/service.js';
import {
  RotateSecretSchema,
  SwitchSecretSchema,
  WebhookAttemptListSchema,
  WebhookDeliverySchema,
  WebhookEndpointCreatedSchema,
  WebhookEndpointCreateSchema,
  WebhookEndpointDeletedSchema,
  WebhookEndpointListSchema,
  WebhookEndpointSchema,
  WebhookEndpointUpdateSchema,
} from './schemas.js';
import type { Result } from '../../shared/result.js';
import { CHARGE_ERRORS } from '../charges/errors.js';
import { webhookRefusal, type WebhookError } from './errors.js';
import { WEBHOOK_ENDPOINT_LIMIT } from './endpoints.js';
import type { WebhookEndpointService } from './service.js';

export interface WebhookRoutesOptions {
  service: WebhookEndpointService;
  charges: ChargeService;
  idempotency: Omit<IdempotencyOptions, 'scopeOf'>;
  /** Seals the secret inside a stored idempotent outcome. */
  box: SecretBox;
}

const TAGS = ['Webhook endpoints'];
const IdParamsSchema = idParams('The identifier.');
const OWNERSHIP =
  'Endpoints belong to the organization and environment of the key; another organization’s or ' +
  'environment’s endpoint is 404 `not_found`.';

function unwrap<T>(result: Result<T, WebhookError>): T {
  if (!result.ok) throw webhookRefusal(result.error);
  return result.value;
}

const unwrapCharge = unwrapWith(CHARGE_ERRORS);

/** What the route groups share: the service and the route options of the module. */
interface RouteGroup {
  service: WebhookEndpointService;
  kit: ReturnType<typeof routeKit>;
  /** The `onSend` of the routes whose answer carries a secret: sealed inside the stored outcome. */
  sealed: ReturnType<typeof sealedSecretOnSend>;
}

/** `/v1/webhook-endpoints` (product decision 27), the delivery log of a charge and manual retries. */
export async function webhookRoutes(app: App, options: WebhookRoutesOptions): Promise<void> {
  const { service } = options;
  const kit = routeKit({ tags: TAGS, idempotency: { ...options.idempotency, scopeOf: callerScope } });
  const sealed = sealedSecretOnSend({ store: options.idempotency.store, box: options.box });
  const group: RouteGroup = { service, kit, sealed };
  // In this order (the OpenAPI document lists the routes as they are added).
  endpointRoutes(app, group);
  secretRoutes(app, group);
  deliveryRoutes(app, group, options.charges);
}

/** Create, list, retrieve, update and delete endpoints. */
function endpointRoutes(app: App, { service, kit, sealed }: RouteGroup): void {
  app.post(
    '/v1/webhook-endpoints',
    kit.idempotent(
      {
        operationId: 'createWebhookEndpoint',
        summary: 'Create a webhook endpoint',
        description:
          'Registers a URL that receives the selected event kinds, signed with its own secret. The response ' +
          'carries the secret (`whsec_…`) this once; it is stored encrypted and never shown again (rotate it ' +
          'to get a new one). URLs that break the rules of `url` are 400 `validation_failed`. An organization ' +
          `has at most ${WEBHOOK_ENDPOINT_LIMIT} endpoints (not deleted) in each environment: another is 409 ` +
          '`limit_reached` (`details.limit`). Needs scope ' +
          '`write`. Honours `X-Idempotency-Key`: a retry within 24 hours returns the same endpoint and secret.',
      },
      {
        body: WebhookEndpointCreateSchema,
        response: {
          201: WebhookEndpointCreatedSchema,
          ...failures('create'),
        },
      },
      { onSend: sealed },
    ),
    async (request, reply) =>
      reply.code(201).send(unwrap(await service.create(ownerOf(request), request.body))),
  );

  kit.list(app, '/v1/webhook-endpoints', ListQuerySchema, WebhookEndpointListSchema, {
    operationId: 'listWebhookEndpoints',
    summary: 'List webhook endpoints',
    description:
      'Endpoints of this environment, newest first, `limit` (1 to 100, default 20) per page; pass ' +
      '`nextCursor` back as `cursor`. Deleted endpoints are not listed. Needs scope `read`.',
    read: async (request, query) => unwrap(await service.list(ownerOf(request), query)),
  });

  kit.byId(app, '/v1/webhook-endpoints/:id', IdParamsSchema, WebhookEndpointSchema, {
    operationId: 'getWebhookEndpoint',
    summary: 'Retrieve a webhook endpoint',
    description: `Needs scope \`read\`. ${OWNERSHIP}`,
    read: async (request, id) => unwrap(await service.get(ownerOf(request), id)),
  });

  app.post(
    '/v1/webhook-endpoints/:id',
    kit.idempotent(
      {
        operationId: 'updateWebhookEndpoint',
        summary: 'Update a webhook endpoint',
        description:
          'Changes the URL (checked as at creation), the event kinds, the description, or `disabled`. ' +
          'Members left out are unchanged. Needs scope `write`. Honours `X-Idempotency-Key`. ' +
          OWNERSHIP,
      },
      {
        params: IdParamsSchema,
        body: WebhookEndpointUpdateSchema,
        response: {
          200: WebhookEndpointSchema,
          ...failures('update'),
        },
      },
    ),
    async (request) => unwrap(await service.update(ownerOf(request), request.params.id, request.body)),
  );

  kit.byId(app, '/v1/webhook-endpoints/:id', IdParamsSchema, WebhookEndpointDeletedSchema, {
    operationId: 'deleteWebhookEndpoint',
    summary: 'Delete a webhook endpoint',
    description:
      'The endpoint receives nothing more, its waiting deliveries are dropped, and it is no longer ' +
      'listed. Needs scope `write`. ' +
      OWNERSHIP,
    method: 'DELETE',
    auth: 'write',
    read: async (request, id) => unwrap(await service.remove(ownerOf(request), id)),
  });
}

/** Rotating and switching an endpoint's secret, and resuming its deliveries after a switch. */
function secretRoutes(app: App, { service, kit, sealed }: RouteGroup): void {
  app.post(
    '/v1/webhook-endpoints/:id/rotate-secret',
    kit.idempotent(
      {
        operationId: 'rotateWebhookEndpointSecret',
        summary: 'Rotate the signing secret of a webhook endpoint',
        description:
          'Issues a new secret, shown this once. Nothing changes for your receiver yet: `Service-Signature` ' +
          'is still made with the replaced secret, and the new one signs `Service-Signature-Next`, until ' +
          'you switch (`POST /v1/webhook-endpoints/{id}/switch-secret`) or, at the latest, until the grace ' +
          'period ends (`gracePeriodSeconds`, default a day; `previousSecretExpiresAt`); from then on only ' +
          '`Service-Signature`, made with the new secret. A receiver holding one secret keeps verifying ' +
          '`Service-Signature` with the replaced one until it switches (docs/webhooks.md section 4). ' +
          'Rotating again during a grace period drops the oldest secret. ' +
          'Needs scope `write`. Honours `X-Idempotency-Key`. ' +
          OWNERSHIP,
      },
      {
        params: IdParamsSchema,
        body: RotateSecretSchema,
        response: {
          200: WebhookEndpointCreatedSchema,
          ...failures('update'),
        },
      },
      { onSend: sealed },
    ),
    async (request) =>
      unwrap(await service.rotateSecret(ownerOf(request), request.params.id, request.body ?? {})),
  );

  app.post(
    '/v1/webhook-endpoints/:id/switch-secret',
    kit.idempotent(
      {
        operationId: 'switchWebhookEndpointSecret',
        summary: 'Start signing with the new secret of a rotation',
        description:
          'Ends a rotation when you choose: from now on `Service-Signature` is made with the new secret (no ' +
          '`Service-Signature-Next`) and the replaced secret is dropped. The endpoint’s deliveries wait, ' +
          'queued, for `pauseSeconds` (default 15 minutes) or until `resume-deliveries`: deploy your ' +
          'receiver with the new secret meanwhile, then resume. A delivery already under way when you ' +
          'switch still carries the replaced secret. 409 `invalid_state_transition` when no rotation is ' +
          'under way. Honours `X-Idempotency-Key`: a retry within 24 hours (an answer lost on the way) ' +
          'gets the first answer again, not a 409, and does not move the end of the pause. Needs scope ' +
          '`write`. ' +
          OWNERSHIP,
      },
      {
        params: IdParamsSchema,
        body: SwitchSecretSchema,
        response: {
          200: WebhookEndpointSchema,
          ...failures('update'),
        },
      },
    ),
    async (request) =>
      unwrap(await service.switchSecret(ownerOf(request), request.params.id, request.body ?? {})),
  );

  kit.byId(app, '/v1/webhook-endpoints/:id/resume-deliveries', IdParamsSchema, WebhookEndpointSchema, {
    operationId: 'resumeWebhookEndpointDeliveries',
    summary: 'Resume the deliveries of a webhook endpoint paused for a switch of secrets',
    description:
      'The deliveries that waited since `switch-secret` are sent now, signed with the new secret. ' +
      'Nothing happens to an endpoint that is not paused. No request body. Needs scope `write`. ' +
      OWNERSHIP,
    method: 'POST',
    auth: 'write',
    read: async (request, id) => unwrap(await service.resumeDeliveries(ownerOf(request), id)),
  });
}

/** The delivery log of a charge and manual retries. */
function deliveryRoutes(app: App, { service, kit }: RouteGroup, charges: ChargeService): void {
  // Listed under the charge it belongs to.
  routeKit({ tags: ['Charges'] }).byId(
    app,
    '/v1/charges/:id/webhook-deliveries',
    IdParamsSchema,
    WebhookAttemptListSchema,
    {
      operationId: 'listChargeWebhookDeliveries',
      summary: 'List the webhook attempts of a charge',
      description:
        'The last 20 attempts, newest first, to deliver events whose payload `id`, `paymentId`, ' +
        '`payment.paymentId` or `data.id` equals the charge id (the charge’s own events and refund events), ' +
        'to every endpoint. Any valid key of the environment. A charge of another organization or ' +
        'environment, or an unknown id, is 404 `not_found`.',
      auth: 'key',
      read: async (request, id) => {
        const owner = ownerOf(request);
        const charge = unwrapCharge(await charges.get(owner, id));
        return { data: await service.attemptsForCharge(owner, charge.id) };
      },
    },
  );

  app.post(
    '/v1/webhook-deliveries/:id/retry',
    kit.idempotent(
      {
        operationId: 'retryWebhookDelivery',
        summary: 'Retry a webhook delivery now',
        description:
          'Makes the delivery (named by its id or by the id of one of its attempts) due at once: the same ' +
          'event, with the same `id`, is sent again to the endpoint, also when it succeeded or failed ' +
          'before. A failed delivery that fails again stays `failed`; one still within its schedule goes on ' +
          'with it. Nothing is sent while the endpoint is disabled; a deleted endpoint’s delivery is 404; a ' +
          'delivery of a kind the endpoint no longer selects (`enabledEvents`) is 409 ' +
          '`invalid_state_transition` until the kind is selected again. No ' +
          'request body. Needs scope `write`. ' +
          'A delivery of another organization or environment is 404 `not_found`.',
      },
      {
        params: IdParamsSchema,
        response: { 202: WebhookDeliverySchema, ...failures('action') },
      },
    ),
    async (request, reply) => {
      return reply.code(202).send(unwrap(await service.retry(ownerOf(request), request.params.id)));
    },
  );
}
