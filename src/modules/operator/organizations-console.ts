import type { App } from '../../http/server.js';
import type { FeatureFlag, KycStatus, PaymentMethod } from '../../db/schema.js';
import { cursorOrThrow } from '../../http/cursor-errors.js';
import type { ApiKeyService } from '../api-keys/index.js';
import { apiKeyRefusal } from '../api-keys/errors.js';
import type { OrganizationAdminService } from '../organizations/service.js';
import { FEATURE_FLAGS } from '../organizations/types.js';
import type { OperatorCommands } from './commands.js';
import { commandAction, noticedPage, type NoticedPage } from './console-actions.js';
import { staffMay, type ConsoleKit } from './console-kit.js';
import { valueOf } from './errors.js';
import { merchantFigures, money, permille, isFailing, type MerchantViewDeps } from './merchant-view.js';
import { setThreeDSecureRequired, ThreeDSecureFormSchema } from './organization-three-d-secure.js';
import {
  FeatureFlagFormSchema,
  FeeFormSchema,
  FeeParamsSchema,
  FlagParamsSchema,
  IdParamsSchema,
  KycFormSchema,
  RateLimitsFormSchema,
  ReasonFormSchema,
  CsrfFormSchema,
  organizationView,
} from './schemas.js';

type OrganizationConsole = {
  kit: ConsoleKit;
  organizations: OrganizationAdminService;
  commands: OperatorCommands;
  apiKeys: ApiKeyService;
  merchants: MerchantViewDeps;
};

/**
 * Organizations as console pages: the list, the merchant view of one (its settings' forms, PRG), and an
 * API key's requests.
 */
export async function operatorOrganizationConsole(app: App, deps: OrganizationConsole): Promise<void> {
  const page = noticedPage(deps.kit);
  organizationPages(app, page, deps);
  organizationForms(app, page, deps);
}

function organizationPages(app: App, page: NoticedPage, deps: OrganizationConsole): void {
  const { organizations } = deps;
  app.get('/organizations', { config: { operator: 'read' } }, async (request, reply) => {
    const { cursor } = request.query as { cursor?: string };
    const result = cursorOrThrow(await organizations.list({ limit: 50, ...(cursor ? { cursor } : {}) }));
    return page(request, reply, 'organizations', {
      title: 'Organizations',
      organizations: result.data.map((o) => organizationView(o)),
      nextCursor: result.nextCursor,
    });
  });

  app.get('/organizations/:id', { config: { operator: 'read' } }, async (request, reply) => {
    const { id } = request.params as { id: string };
    const found = valueOf(await organizations.get(id));
    const organization = organizationView(found, await organizations.feeSchedule(id));
    return page(request, reply, 'organization', {
      title: organization.name,
      organization,
      threeDSecureRequired: found.threeDSecureRequired,
      keys: await deps.apiKeys.listForOrganization(id),
      ...(await merchantFigures(deps.merchants, id)),
      permille,
      money,
      isFailing,
      flags: FEATURE_FLAGS,
      canDecide: staffMay(request, 'underwrite'),
      canAdminister: staffMay(request, 'administer'),
    });
  });

  app.get('/api-keys/:id', { config: { operator: 'read' } }, async (request, reply) => {
    const { id } = request.params as { id: string };
    const { cursor } = request.query as { cursor?: string };
    const result = await deps.apiKeys.requestsOfKey(id, { limit: 100, ...(cursor ? { cursor } : {}) });
    if (!result.ok) throw apiKeyRefusal(result.error);
    return page(request, reply, 'api-key', {
      title: `API key ${result.value.key.displayPrefix}`,
      key: result.value.key,
      organizationId: result.value.organizationId,
      requests: result.value.data,
      nextCursor: result.value.nextCursor,
    });
  });
}

/** The fee a form sets for a payment method: its basis points and its fixed part (minor units). */
const feeOf = (paymentMethod: string, form: { basisPoints: string; fixedMinor: string }) => ({
  paymentMethod: paymentMethod as PaymentMethod,
  basisPoints: Number(form.basisPoints),
  fixedMinor: BigInt(form.fixedMinor),
});

function organizationForms(app: App, page: NoticedPage, deps: OrganizationConsole): void {
  const { commands, organizations } = deps;
  const back = ({ id }: { id: string }) => `/organizations/${id}`;

  commandAction(app, page, {
    path: '/organizations/:id/kyc-status',
    permission: 'underwrite',
    schema: { params: IdParamsSchema, body: KycFormSchema },
    command: ({ id }, form, by) => commands.setKycStatus(id, form.kycStatus as KycStatus, by),
    back,
    notice: 'kyc',
  });

  commandAction(app, page, {
    path: '/organizations/:id/fees/:paymentMethod',
    permission: 'administer',
    schema: { params: FeeParamsSchema, body: FeeFormSchema },
    command: ({ id, paymentMethod }, form, by) => commands.setFee(id, feeOf(paymentMethod, form), by),
    back,
    notice: 'fees',
  });

  commandAction(app, page, {
    path: '/organizations/:id/feature-flags/:flag',
    permission: 'administer',
    schema: { params: FlagParamsSchema, body: FeatureFlagFormSchema },
    command: ({ id, flag }, form, by) =>
      commands.setFeatureFlag(id, flag as FeatureFlag, form.enabled === 'true', by),
    back,
    notice: 'flag',
  });

  const optional = (value: string | undefined) =>
    value === undefined || value.trim() === '' ? null : Number(value);
  commandAction(app, page, {
    path: '/organizations/:id/rate-limits',
    permission: 'administer',
    schema: { params: IdParamsSchema, body: RateLimitsFormSchema },
    command: ({ id }, form, by) =>
      commands.setRateLimits(id, { live: optional(form.live), sandbox: optional(form.sandbox) }, by),
    back,
    notice: 'limits',
  });

  commandAction(app, page, {
    path: '/organizations/:id/freeze',
    permission: 'administer',
    schema: { params: IdParamsSchema, body: ReasonFormSchema },
    command: ({ id }, form, by) => commands.freeze(id, form.reason, by),
    back,
    notice: 'frozen',
  });

  commandAction(app, page, {
    path: '/organizations/:id/unfreeze',
    permission: 'administer',
    schema: { params: IdParamsSchema, body: CsrfFormSchema },
    command: ({ id }, _form, by) => commands.unfreeze(id, by),
    back,
    notice: 'unfrozen',
  });

  commandAction(app, page, {
    path: '/organizations/:id/three-d-secure',
    permission: 'administer',
    schema: { params: IdParamsSchema, body: ThreeDSecureFormSchema },
    command: ({ id }, form, by) =>
      setThreeDSecureRequired({ organizations }, id, form.required === 'true', form.reason, by),
    back,
    notice: 'three_d_secure',
  });
}
