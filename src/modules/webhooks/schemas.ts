import { Type, type Static } from 'typebox';
import { NullableTimestamp, PageSchema, StrictObject, Timestamp } from '../../http/schemas.js';
import { EVENT_TYPES } from '../events/service.js';

export const EventKindSchema = Type.Enum([...EVENT_TYPES, '*'], {
  description: 'An event kind, or `*` for every kind (including kinds added later).',
});

const UrlSchema = Type.String({
  minLength: 1,
  maxLength: 2048,
  description:
    'Where events are POSTed. https in live mode (http allowed in sandbox); no user name or password; the ' +
    'host must not be or resolve to a private, loopback, link-local, unique-local, multicast, unspecified ' +
    'or CGNAT address (checked now and at every delivery). Redirects are never followed.',
});
const EnabledEventsSchema = Type.Array(EventKindSchema, {
  minItems: 1,
  maxItems: EVENT_TYPES.length + 1,
  uniqueItems: true,
  description: 'The event kinds sent to this endpoint.',
});
const DescriptionSchema = Type.String({ maxLength: 500, description: 'For your records.' });

export const WebhookEndpointCreateSchema = StrictObject({
  url: UrlSchema,
  enabledEvents: EnabledEventsSchema,
  description: Type.Optional(DescriptionSchema),
});
export type WebhookEndpointCreate = Static<typeof WebhookEndpointCreateSchema>;

export const WebhookEndpointUpdateSchema = Type.Object(
  {
    url: Type.Optional(UrlSchema),
    enabledEvents: Type.Optional(EnabledEventsSchema),
    description: Type.Optional(Type.Union([DescriptionSchema, Type.Null()])),
    disabled: Type.Optional(
      Type.Boolean({
        description:
          '`true` stops deliveries (pending ones wait); `false` enables the endpoint again, also after it ' +
          'was disabled for failing, and resumes the deliveries that wait.',
      }),
    ),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type WebhookEndpointUpdate = Static<typeof WebhookEndpointUpdateSchema>;

/** A body of one optional number of whole seconds, from 0 to `maximum`; `fallback` when left out. */
function SecondsBodySchema<K extends string>(
  name: K,
  limits: { maximum: number; fallback: number },
  description: string,
) {
  const { maximum, fallback } = limits;
  const seconds = Type.Optional(Type.Integer({ minimum: 0, maximum, default: fallback, description }));
  return StrictObject({ [name]: seconds } as Record<K, typeof seconds>);
}

export const RotateSecretSchema = SecondsBodySchema(
  'gracePeriodSeconds',
  { maximum: 604_800, fallback: 86_400 },
  'How long, at the most, the replaced secret keeps signing `Service-Signature` (the new one signs ' +
    '`Service-Signature-Next` meanwhile): it stops when you switch (`switch-secret`) or when this ' +
    'ends, whichever comes first; 0 ends it at once. Default 86400 (a day), at most 7 days.',
);
export type RotateSecret = Static<typeof RotateSecretSchema>;

export const SwitchSecretSchema = SecondsBodySchema(
  'pauseSeconds',
  { maximum: 3600, fallback: 900 },
  "How long the endpoint's deliveries wait, queued (nothing is dropped or failed), after the switch: " +
    'the time to deploy your receiver with the new secret; end it earlier with ' +
    '`POST /v1/webhook-endpoints/{id}/resume-deliveries`. 0 does not pause. Default 900 (15 minutes), ' +
    'at most an hour.',
);
export type SwitchSecret = Static<typeof SwitchSecretSchema>;

export const WebhookEndpointSchema = Type.Object(
  {
    id: Type.String({ pattern: '^we_', description: 'Prefix `we_`.' }),
    url: Type.String(),
    description: Type.Union([Type.String(), Type.Null()]),
    enabledEvents: Type.Array(EventKindSchema),
    status: Type.Enum(['enabled', 'disabled']),
    disabledReason: Type.Union([Type.Enum(['merchant', 'failing']), Type.Null()], {
      description:
        '`merchant`: disabled through the API or dashboard; `failing`: every delivery failed for 5 days. ' +
        'Null while enabled.',
    }),
    livemode: Type.Boolean(),
    previousSecretExpiresAt: NullableTimestamp(
      'While a rotation is under way (the replaced secret signs `Service-Signature`, the new one ' +
        '`Service-Signature-Next`), when the replaced secret stops signing at the latest: switch before ' +
        'then (`switch-secret`). Null otherwise: `Service-Signature` is made with the newest secret.',
    ),
    pausedUntil: NullableTimestamp(
      "After a switch of secrets, until when the endpoint's deliveries wait, queued (`resume-deliveries` " +
        'ends it earlier).',
    ),
    createdAt: Timestamp('Creation time.'),
    updatedAt: Timestamp('Last change.'),
  },
  { description: 'A webhook endpoint. Its secret is never shown again after creation or rotation.' },
);
export type WebhookEndpointView = Static<typeof WebhookEndpointSchema>;

const SecretSchema = Type.String({
  pattern: '^whsec_[A-Za-z0-9_-]{43,}$',
  description: 'The signing secret, `whsec_` and 32 random bytes in base64url. Shown this once only.',
});

export const WebhookEndpointCreatedSchema = Type.Object(
  { ...WebhookEndpointSchema.properties, secret: SecretSchema },
  { description: 'The endpoint, with its secret (shown once).' },
);

export const WebhookEndpointListSchema = PageSchema(WebhookEndpointSchema);

export const WebhookEndpointDeletedSchema = Type.Object({
  id: Type.String({ pattern: '^we_' }),
  deleted: Type.Literal(true),
});

export const WebhookAttemptSchema = Type.Object(
  {
    id: Type.String({ pattern: '^whd_', description: 'The attempt, prefix `whd_`.' }),
    deliveryId: Type.String({
      pattern: '^whd_',
      description: 'The delivery (one per event and endpoint) the attempt belongs to; retry it with this id.',
    }),
    eventId: Type.String({ pattern: '^evt_', description: 'The same on every attempt of the event.' }),
    eventType: Type.String(),
    endpointId: Type.String({ pattern: '^we_' }),
    url: Type.String({ description: 'The URL the attempt was sent to.' }),
    attemptedAt: Timestamp('When the attempt started.'),
    succeeded: Type.Boolean({ description: 'True when the endpoint answered 200.' }),
    statusCode: Type.Union([Type.Integer(), Type.Null()], {
      description: 'The HTTP status the endpoint answered; null when no answer came (or nothing was sent).',
    }),
    latencyMs: Type.Integer({ minimum: 0 }),
    error: Type.Union([Type.String(), Type.Null()], {
      description:
        'Why it failed: `timeout`, `connection_refused`, `connection_reset`, `dns_failure`, `private_target`, ' +
        '`tls_error`, `network_error`, `redirect_not_followed` (a 3xx), `not_200` (another 2xx), `http_<status>`; ' +
        '`event_type_not_selected` when nothing was sent because the endpoint no longer selects the kind ' +
        '(the delivery is `failed`). Null on success.',
    }),
    responseExcerpt: Type.Union([Type.String(), Type.Null()], {
      description: 'The first KB of the answer, control characters removed.',
    }),
    deliveryStatus: Type.Enum(['pending', 'succeeded', 'failed'], {
      description: 'The delivery now: `pending` while retries remain, `succeeded`, or `failed`.',
    }),
    nextAttemptAt: NullableTimestamp('When the delivery is tried next, while pending.'),
  },
  { description: 'One attempt to deliver an event to an endpoint.' },
);
export type WebhookAttemptView = Static<typeof WebhookAttemptSchema>;

export const WebhookAttemptListSchema = Type.Object({
  data: Type.Array(WebhookAttemptSchema, { maxItems: 20 }),
});

export const WebhookDeliverySchema = Type.Object(
  {
    id: Type.String({ pattern: '^whd_' }),
    eventId: Type.String({ pattern: '^evt_' }),
    endpointId: Type.String({ pattern: '^we_' }),
    status: Type.Enum(['pending', 'succeeded', 'failed']),
    attempts: Type.Integer({ minimum: 0 }),
    nextAttemptAt: NullableTimestamp('When it is tried next, while pending.'),
    createdAt: Timestamp('When the event was fanned out to the endpoint.'),
  },
  { description: 'The delivery of one event to one endpoint.' },
);
export type WebhookDeliveryView = Static<typeof WebhookDeliverySchema>;
