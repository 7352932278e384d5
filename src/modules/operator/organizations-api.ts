import { Type } from 'typebox';
import type { App } from '../../http/server.js';
import type { FeatureFlag, KycStatus, PaymentMethod } from '../../db/schema.js';
import { cursorOrThrow } from '../../http/cursor-errors.js';
import {
  ApiKeyRequestListSchema,
  ApiKeySchema,
  toApiKeyResponse,
  toRequestResponse,
  type ApiKeyService,
} from '../api-keys/index.js';
import { apiKeyRefusal } from '../api-keys/errors.js';
import type { OrganizationAdminService } from '../organizations/service.js';
import { FEATURE_FLAGS, KYC_STATUSES, PAYMENT_METHODS } from '../organizations/types.js';
import { apiRoute, ListOf, PageOf } from './api-kit.js';
import { actorOf } from './auth.js';
import type { OperatorCommands } from './commands.js';
import { valueOf } from './errors.js';
import {
  OrganizationThreeDSecureViewSchema,
  setThreeDSecureRequired,
  ThreeDSecureBodySchema,
} from './organization-three-d-secure.js';
import {
  DemoMerchantSchema,
  FeeBodySchema,
  IdParamsSchema,
  OrganizationViewSchema,
  PageQuerySchema,
  ReasonBodySchema,
  organizationView,
} from './schemas.js';

type OrganizationApi = {
  organizations: OrganizationAdminService;
  commands: OperatorCommands;
  apiKeys: ApiKeyService;
};

/**
 * Organizations as JSON: the list, one organization, its settings (KYC status, fees, feature flags, rate
 * limits, 3-D Secure), freezing, its API keys and their requests.
 */
export function operatorOrganizationApi(app: App, deps: OrganizationApi): void {
  organizationReadApi(app, deps);
  organizationSettingsApi(app, deps);
  organizationThreeDSecureApi(app, deps);
  organizationKeyApi(app, deps);
}

function organizationReadApi(app: App, { organizations }: OrganizationApi): void {
  app.get(
    '/operator/v1/organizations',
    apiRoute('read', PageOf(OrganizationViewSchema), { querystring: PageQuerySchema }),
    async (request) => {
      const page = cursorOrThrow(await organizations.list(request.query));
      return { data: page.data.map((o) => organizationView(o)), nextCursor: page.nextCursor };
    },
  );

  app.get(
    '/operator/v1/organizations/:id',
    apiRoute('read', OrganizationViewSchema, { params: IdParamsSchema }),
    async (request) =>
      organizationView(
        valueOf(await organizations.get(request.params.id)),
        await organizations.feeSchedule(request.params.id),
      ),
  );
}

function organizationSettingsApi(app: App, { commands }: OrganizationApi): void {
  app.put(
    '/operator/v1/organizations/:id/kyc-status',
    apiRoute('underwrite', OrganizationViewSchema, {
      params: IdParamsSchema,
      body: Type.Object({ kycStatus: Type.Enum([...KYC_STATUSES]) }, { additionalProperties: false }),
    }),
    async (request) =>
      valueOf(
        await commands.setKycStatus(request.params.id, request.body.kycStatus as KycStatus, actorOf(request)),
      ),
  );

  app.put(
    '/operator/v1/organizations/:id/fees/:paymentMethod',
    apiRoute('administer', OrganizationViewSchema, {
      params: Type.Object({
        id: Type.String({ maxLength: 64 }),
        paymentMethod: Type.Enum([...PAYMENT_METHODS]),
      }),
      body: FeeBodySchema,
    }),
    async (request) => {
      const { id, paymentMethod } = request.params;
      return valueOf(
        await commands.setFee(
          id,
          {
            paymentMethod: paymentMethod as PaymentMethod,
            basisPoints: request.body.basisPoints,
            fixedMinor: BigInt(request.body.fixedMinor),
          },
          actorOf(request),
        ),
      );
    },
  );

  app.put(
    '/operator/v1/organizations/:id/feature-flags/:flag',
    apiRoute('administer', OrganizationViewSchema, {
      params: Type.Object({ id: Type.String({ maxLength: 64 }), flag: Type.Enum([...FEATURE_FLAGS]) }),
      body: Type.Object({ enabled: Type.Boolean() }, { additionalProperties: false }),
    }),
    async (request) =>
      valueOf(
        await commands.setFeatureFlag(
          request.params.id,
          request.params.flag as FeatureFlag,
          request.body.enabled,
          actorOf(request),
        ),
      ),
  );

  app.put(
    '/operator/v1/organizations/:id/rate-limits',
    apiRoute('administer', OrganizationViewSchema, {
      params: IdParamsSchema,
      body: Type.Object(
        {
          live: Type.Union([Type.Integer({ minimum: 1, maximum: 100_000 }), Type.Null()]),
          sandbox: Type.Union([Type.Integer({ minimum: 1, maximum: 100_000 }), Type.Null()]),
        },
        { additionalProperties: false },
      ),
    }),
    async (request) =>
      valueOf(await commands.setRateLimits(request.params.id, request.body, actorOf(request))),
  );

  app.post(
    '/operator/v1/organizations/:id/freeze',
    apiRoute('administer', OrganizationViewSchema, { params: IdParamsSchema, body: ReasonBodySchema }),
    async (request) =>
      valueOf(await commands.freeze(request.params.id, request.body.reason, actorOf(request))),
  );

  app.post(
    '/operator/v1/organizations/:id/unfreeze',
    apiRoute('administer', OrganizationViewSchema, { params: IdParamsSchema }),
    async (request) => valueOf(await commands.unfreeze(request.params.id, actorOf(request))),
  );
}

/** 3-D Secure on every card payment: one of the operator's answers to a chargeback ratio (issue 37). */
function organizationThreeDSecureApi(app: App, { organizations }: OrganizationApi): void {
  app.put(
    '/operator/v1/organizations/:id/three-d-secure',
    apiRoute('administer', OrganizationThreeDSecureViewSchema, {
      description:
        'Requires 3-D Secure on every card payment of the organization (`required: true`: the checkout ' +
        'asks the acquirer for the challenge from the next card attempt on), or stops requiring it: one ' +
        'of the answers to a chargeback ratio near a card scheme threshold. Audited, with the reason ' +
        '(1 to 2000 characters).',
      params: IdParamsSchema,
      body: ThreeDSecureBodySchema,
    }),
    async (request) => {
      const { required, reason } = request.body;
      return valueOf(
        await setThreeDSecureRequired(
          { organizations },
          request.params.id,
          required,
          reason,
          actorOf(request),
        ),
      );
    },
  );
}

function organizationKeyApi(app: App, { organizations, apiKeys }: OrganizationApi): void {
  app.get(
    '/operator/v1/organizations/:id/api-keys',
    apiRoute('read', ListOf(ApiKeySchema), { params: IdParamsSchema }),
    async (request) => {
      valueOf(await organizations.get(request.params.id));
      const keys = await apiKeys.listForOrganization(request.params.id);
      return { data: keys.map(toApiKeyResponse) };
    },
  );

  app.get(
    '/operator/v1/api-keys/:id/requests',
    apiRoute(
      'read',
      Type.Object({
        organizationId: Type.String(),
        key: ApiKeySchema,
        data: ApiKeyRequestListSchema.properties.data,
        nextCursor: ApiKeyRequestListSchema.properties.nextCursor,
      }),
      {
        params: IdParamsSchema,
        querystring: Type.Object(
          {
            limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
            cursor: Type.Optional(Type.String({ maxLength: 512 })),
          },
          { additionalProperties: false },
        ),
      },
    ),
    async (request) => {
      const result = await apiKeys.requestsOfKey(request.params.id, request.query);
      if (!result.ok) throw apiKeyRefusal(result.error);
      return {
        organizationId: result.value.organizationId,
        key: toApiKeyResponse(result.value.key),
        data: result.value.data.map(toRequestResponse),
        nextCursor: result.value.nextCursor,
      };
    },
  );
}

const DemoMerchantCreatedSchema = Type.Object({
  organizationId: Type.String(),
  applicationId: Type.String(),
  kycStatus: Type.String(),
  featureFlags: Type.Array(Type.String()),
  dashboard: Type.Object({ url: Type.String(), email: Type.String(), password: Type.String() }),
  keys: Type.Object({ sandbox: Type.String(), live: Type.String() }),
});

/** A demo merchant: an approved organization with a dashboard login and keys, in one call. */
export function operatorDemoMerchantApi(app: App, { commands }: Pick<OrganizationApi, 'commands'>): void {
  app.post(
    '/operator/v1/demo-merchants',
    apiRoute('administer', DemoMerchantCreatedSchema, { body: DemoMerchantSchema }, { status: 201 }),
    async (request, reply) => {
      const demo = valueOf(
        await commands.createDemoMerchant(
          {
            ...request.body,
            ...(request.body.flags ? { flags: request.body.flags as FeatureFlag[] } : {}),
            ...(request.body.kycStatus ? { kycStatus: request.body.kycStatus as KycStatus } : {}),
          },
          actorOf(request),
        ),
      );
      return reply.code(201).send(demo);
    },
  );
}
