import { Type, type Static } from 'typebox';
import { ListQuerySchema } from '../../http/list-query.js';
import { IdParamsSchema, NullableTimestamp, PageSchema, Timestamp } from '../../http/schemas.js';

export const API_KEY_SCOPES = ['read', 'write', 'payouts', 'all'] as const;
export const API_KEY_LIMITS = { name: 100, allowedIps: 50, cidr: 64 } as const;

const Scope = Type.Enum([...API_KEY_SCOPES], {
  description:
    '`read`: list and fetch. `write`: create and change. `payouts`: crypto payouts. `all`: everything.',
});

export const ApiKeyIdParamsSchema = IdParamsSchema('Key identifier, prefix `key_`.');

export const ApiKeyListQuerySchema = ListQuerySchema;

export const ApiKeyCreateSchema = Type.Object(
  {
    scopes: Type.Array(Scope, {
      minItems: 1,
      maxItems: API_KEY_SCOPES.length,
      uniqueItems: true,
      description: 'What the key may do. A key can only create keys whose scopes it holds itself.',
    }),
    allowedIps: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: API_KEY_LIMITS.cidr }), {
        maxItems: API_KEY_LIMITS.allowedIps,
        description:
          'IPv4 and IPv6 CIDR ranges (a bare address means that address only) the key may be used from. ' +
          'Empty or absent: any address. Stored in canonical form (`10.1.2.3/8` becomes `10.0.0.0/8`).',
      }),
    ),
    expiresAt: Type.Optional(
      Type.String({ format: 'date-time', description: 'When the key stops working; must be in the future.' }),
    ),
    name: Type.Optional(
      Type.String({
        maxLength: API_KEY_LIMITS.name,
        description: `A label for people, at most ${API_KEY_LIMITS.name} characters; trimmed.`,
      }),
    ),
  },
  { additionalProperties: false },
);

const apiKeyProperties = {
  id: Type.String({ pattern: '^key_', description: 'Key identifier, prefix `key_`.' }),
  displayPrefix: Type.String({
    description: 'The start of the key (`sk_test_` or `sk_live_` and 8 characters), to recognise it.',
  }),
  environment: Type.Enum(['sandbox', 'live'], { description: 'Where the key works.' }),
  name: Type.Union([Type.String(), Type.Null()], { description: 'Label, or null.' }),
  scopes: Type.Array(Scope),
  allowedIps: Type.Array(Type.String(), { description: 'CIDR ranges; empty means any address.' }),
  lastUsedAt: NullableTimestamp('Last authenticated use, to the minute.'),
  expiresAt: NullableTimestamp('Expiry.'),
  createdAt: Timestamp('Creation time.'),
  revokedAt: NullableTimestamp('Revocation time.'),
};

export const ApiKeySchema = Type.Object(apiKeyProperties, {
  additionalProperties: false,
  description: 'An API key. The secret is never shown again after creation.',
});
export type ApiKeyResponse = Static<typeof ApiKeySchema>;

export const ApiKeyCreatedSchema = Type.Object(
  {
    ...apiKeyProperties,
    secret: Type.String({
      pattern: '^sk_(test|live)_',
      description: 'The whole key. Shown in this response only: store it now.',
    }),
  },
  { additionalProperties: false, description: 'The new key, with its secret.' },
);

/** How the pages of keys and of their requests describe their `nextCursor`. */
const NO_MORE = 'Null when there are no more results.';

export const ApiKeyListSchema = PageSchema(ApiKeySchema, NO_MORE, { additionalProperties: false });

export const ApiKeyRequestSchema = Type.Object(
  {
    method: Type.String({ description: 'HTTP method.' }),
    route: Type.String({ description: 'The path template of the route, such as `/v1/charges/:id`.' }),
    resourceId: Type.Union([Type.String(), Type.Null()], {
      description: 'The object the request named (`:id`) or created (the `id` of a 201); null otherwise.',
    }),
    statusCode: Type.Integer({ description: 'HTTP status of the answer.' }),
    requestId: Type.String({ pattern: '^req_', description: 'The request id (`X-Request-Id`).' }),
    ip: Type.Union([Type.String(), Type.Null()], { description: 'Client address.' }),
    createdAt: Timestamp('When the request was answered.'),
  },
  {
    additionalProperties: false,
    description: 'One request of a key. Bodies, headers and secrets are never kept.',
  },
);
export type ApiKeyRequestResponse = Static<typeof ApiKeyRequestSchema>;

export const ApiKeyRequestListSchema = PageSchema(ApiKeyRequestSchema, NO_MORE, {
  additionalProperties: false,
});
