import { Type } from 'typebox';
import { ApiError, errorResponses } from '../../http/errors.js';
import { accountAddressLimit, loginFloodGuard } from '../../http/rate-limit.js';
import type { App } from '../../http/server.js';
import type { Kdb } from '../../db/database.js';
import type { FeatureFlag, KycStatus, PaymentMethod } from '../../db/schema.js';
import type { SessionManager } from '../../http/session.js';
import type { CursorCodec } from '../../shared/pagination.js';
import type { AuditLog } from '../audit/service.js';
import type { Mailer } from '../email/service.js';
import {
  ApiKeyRequestListSchema,
  ApiKeySchema,
  toApiKeyResponse,
  toRequestResponse,
  type ApiKeyService,
} from '../api-keys/index.js';
import { type OrganizationAdminService, type UnderwritingService } from '../organizations/service.js';
import { FEATURE_FLAGS, KYC_STATUSES, PAYMENT_METHODS } from '../organizations/types.js';
import { actorOf, logInStaff, logOutStaff, OPERATOR_LOGIN_LIMITS } from './auth.js';
import {
  ApplicationViewSchema,
  DemoMerchantSchema,
  FeeBodySchema,
  IdParamsSchema,
  LoginBodySchema,
  OrganizationViewSchema,
  PageQuerySchema,
  ReasonBodySchema,
  StaffCreateSchema,
  StaffPasswordSchema,
  applicationView,
  organizationView,
} from './schemas.js';
import type { OperatorCommands } from './commands.js';
import { valueOf } from './errors.js';
import type { StaffService } from './staff.js';
import { cursorOrThrow } from '../../http/cursor-errors.js';
import { apiKeyRefusal } from '../api-keys/errors.js';

/** What the operator API reads (the services) and writes (the commands, each audited). */
export interface OperatorApiDeps {
  commands: OperatorCommands;
  staff: StaffService;
  underwriting: UnderwritingService;
  organizations: OrganizationAdminService;
  mailer: Mailer;
  apiKeys: ApiKeyService;
  audit: AuditLog;
  db: Kdb;
  sessions: SessionManager;
  cursors: CursorCodec;
}

const errors = errorResponses(400, 401, 403, 404, 409, 429);

/** The operator API: the same operations as the console, as JSON, for scripts and the CLI. */
export async function operatorApiRoutes(app: App, deps: OperatorApiDeps): Promise<void> {
  const { underwriting, organizations, commands } = deps;
  const loginLimit = accountAddressLimit(app, 'operator-api-login', OPERATOR_LOGIN_LIMITS.perAccount);
  // As the console's: it never refuses an e-mail that signed in from the address (ADR 0066).
  const loginFlood = loginFloodGuard(app, 'operator-api-login', OPERATOR_LOGIN_LIMITS.flood);

  app.post(
    '/operator/v1/session',
    {
      schema: {
        body: LoginBodySchema,
        response: {
          200: Type.Object({
            staff: Type.Object({
              id: Type.String(),
              email: Type.String(),
              name: Type.String(),
              role: Type.String(),
            }),
            csrfToken: Type.String(),
          }),
          ...errors,
          ...errorResponses(415),
        },
      },
      config: { operator: 'public' },
      // JSON only: a cross-site HTML form cannot send it, so it cannot sign a browser in (login CSRF);
      // the console's login form has its own token.
      onRequest: async (request) => {
        if (!/^application\/json\s*(;|$)/i.test(request.headers['content-type'] ?? '')) {
          throw new ApiError(
            'unsupported_media_type',
            'Request bodies must be JSON (Content-Type: application/json).',
          );
        }
      },
    },
    async (request, reply) => {
      await loginFlood.check(request, reply, request.body.email);
      await loginLimit(request, reply, request.body.email);
      const { staff, session } = await logInStaff(loginDeps(deps), request, reply, request.body);
      await loginFlood.prove(request, request.body.email);
      return { staff, csrfToken: session.csrfToken };
    },
  );

  app.delete(
    '/operator/v1/session',
    {
      schema: { response: { 204: Type.Null({ description: 'Signed out.' }), ...errors } },
      config: { operator: 'read' },
    },
    async (request, reply) => {
      await logOutStaff(loginDeps(deps), request, reply);
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/operator/v1/applications',
    {
      schema: {
        querystring: Type.Object(
          {
            ...PageQuerySchema.properties,
            status: Type.Optional(Type.Enum(['NEW', 'IN_REVIEW', 'APPROVED', 'REJECTED'])),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            data: Type.Array(ApplicationViewSchema),
            nextCursor: Type.Union([Type.String(), Type.Null()]),
          }),
          ...errors,
        },
      },
      config: { operator: 'read' },
    },
    async (request) => {
      const page = cursorOrThrow(await underwriting.listApplications(request.query));
      return { data: page.data.map(applicationView), nextCursor: page.nextCursor };
    },
  );

  app.get(
    '/operator/v1/applications/:id',
    {
      schema: { params: IdParamsSchema, response: { 200: ApplicationViewSchema, ...errors } },
      config: { operator: 'read' },
    },
    async (request) => applicationView(valueOf(await underwriting.getApplication(request.params.id))),
  );

  app.post(
    '/operator/v1/applications/:id/start-review',
    {
      schema: { params: IdParamsSchema, response: { 200: ApplicationViewSchema, ...errors } },
      config: { operator: 'underwrite' },
    },
    async (request) => valueOf(await commands.startReview(request.params.id, actorOf(request))),
  );

  app.post(
    '/operator/v1/applications/:id/approve',
    {
      schema: {
        params: IdParamsSchema,
        response: {
          200: Type.Object({
            application: ApplicationViewSchema,
            organization: OrganizationViewSchema,
            ownerEmail: Type.String(),
            emailId: Type.String({
              description: 'The approval e-mail (sandbox key and activation link) in the outbox.',
            }),
          }),
          ...errors,
        },
      },
      config: { operator: 'underwrite' },
    },
    async (request) => valueOf(await commands.approveApplication(request.params.id, actorOf(request))),
  );

  app.post(
    '/operator/v1/applications/:id/reject',
    {
      schema: {
        params: IdParamsSchema,
        body: ReasonBodySchema,
        response: { 200: ApplicationViewSchema, ...errors },
      },
      config: { operator: 'underwrite' },
    },
    async (request) =>
      valueOf(await commands.rejectApplication(request.params.id, request.body.reason, actorOf(request))),
  );

  app.get(
    '/operator/v1/organizations',
    {
      schema: {
        querystring: PageQuerySchema,
        response: {
          200: Type.Object({
            data: Type.Array(OrganizationViewSchema),
            nextCursor: Type.Union([Type.String(), Type.Null()]),
          }),
          ...errors,
        },
      },
      config: { operator: 'read' },
    },
    async (request) => {
      const page = cursorOrThrow(await organizations.list(request.query));
      return { data: page.data.map((o) => organizationView(o)), nextCursor: page.nextCursor };
    },
  );

  app.get(
    '/operator/v1/organizations/:id',
    {
      schema: { params: IdParamsSchema, response: { 200: OrganizationViewSchema, ...errors } },
      config: { operator: 'read' },
    },
    async (request) =>
      organizationView(
        valueOf(await organizations.get(request.params.id)),
        await organizations.feeSchedule(request.params.id),
      ),
  );

  app.put(
    '/operator/v1/organizations/:id/kyc-status',
    {
      schema: {
        params: IdParamsSchema,
        body: Type.Object({ kycStatus: Type.Enum([...KYC_STATUSES]) }, { additionalProperties: false }),
        response: { 200: OrganizationViewSchema, ...errors },
      },
      config: { operator: 'underwrite' },
    },
    async (request) =>
      valueOf(
        await commands.setKycStatus(request.params.id, request.body.kycStatus as KycStatus, actorOf(request)),
      ),
  );

  app.put(
    '/operator/v1/organizations/:id/fees/:paymentMethod',
    {
      schema: {
        params: Type.Object({
          id: Type.String({ maxLength: 64 }),
          paymentMethod: Type.Enum([...PAYMENT_METHODS]),
        }),
        body: FeeBodySchema,
        response: { 200: OrganizationViewSchema, ...errors },
      },
      config: { operator: 'administer' },
    },
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
    {
      schema: {
        params: Type.Object({ id: Type.String({ maxLength: 64 }), flag: Type.Enum([...FEATURE_FLAGS]) }),
        body: Type.Object({ enabled: Type.Boolean() }, { additionalProperties: false }),
        response: { 200: OrganizationViewSchema, ...errors },
      },
      config: { operator: 'administer' },
    },
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
    {
      schema: {
        params: IdParamsSchema,
        body: Type.Object(
          {
            live: Type.Union([Type.Integer({ minimum: 1, maximum: 100_000 }), Type.Null()]),
            sandbox: Type.Union([Type.Integer({ minimum: 1, maximum: 100_000 }), Type.Null()]),
          },
          { additionalProperties: false },
        ),
        response: { 200: OrganizationViewSchema, ...errors },
      },
      config: { operator: 'administer' },
    },
    async (request) =>
      valueOf(await commands.setRateLimits(request.params.id, request.body, actorOf(request))),
  );

  app.post(
    '/operator/v1/organizations/:id/freeze',
    {
      schema: {
        params: IdParamsSchema,
        body: ReasonBodySchema,
        response: { 200: OrganizationViewSchema, ...errors },
      },
      config: { operator: 'administer' },
    },
    async (request) =>
      valueOf(await commands.freeze(request.params.id, request.body.reason, actorOf(request))),
  );

  app.post(
    '/operator/v1/organizations/:id/unfreeze',
    {
      schema: { params: IdParamsSchema, response: { 200: OrganizationViewSchema, ...errors } },
      config: { operator: 'administer' },
    },
    async (request) => valueOf(await commands.unfreeze(request.params.id, actorOf(request))),
  );

  app.get(
    '/operator/v1/organizations/:id/api-keys',
    {
      schema: {
        params: IdParamsSchema,
        response: { 200: Type.Object({ data: Type.Array(ApiKeySchema) }), ...errors },
      },
      config: { operator: 'read' },
    },
    async (request) => {
      valueOf(await organizations.get(request.params.id));
      const keys = await deps.apiKeys.listForOrganization(request.params.id);
      return { data: keys.map(toApiKeyResponse) };
    },
  );

  app.get(
    '/operator/v1/api-keys/:id/requests',
    {
      schema: {
        params: IdParamsSchema,
        querystring: Type.Object(
          {
            limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
            cursor: Type.Optional(Type.String({ maxLength: 512 })),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            organizationId: Type.String(),
            key: ApiKeySchema,
            data: ApiKeyRequestListSchema.properties.data,
            nextCursor: ApiKeyRequestListSchema.properties.nextCursor,
          }),
          ...errors,
        },
      },
      config: { operator: 'read' },
    },
    async (request) => {
      const result = await deps.apiKeys.requestsOfKey(request.params.id, request.query);
      if (!result.ok) throw apiKeyRefusal(result.error);
      return {
        organizationId: result.value.organizationId,
        key: toApiKeyResponse(result.value.key),
        data: result.value.data.map(toRequestResponse),
        nextCursor: result.value.nextCursor,
      };
    },
  );

  app.get(
    '/operator/v1/audit-log',
    {
      schema: {
        querystring: Type.Object(
          {
            ...PageQuerySchema.properties,
            targetId: Type.Optional(Type.String({ maxLength: 64 })),
            organizationId: Type.Optional(Type.String({ maxLength: 64 })),
          },
          { additionalProperties: false },
        ),
        response: { 200: Type.Unknown({ description: 'A page of audit entries, newest first.' }), ...errors },
      },
      config: { operator: 'read' },
    },
    async (request) => cursorOrThrow(await deps.audit.list(deps.db, request.query)),
  );

  app.get(
    '/operator/v1/emails',
    {
      schema: {
        querystring: PageQuerySchema,
        response: { 200: Type.Unknown({ description: 'A page of the outbox, newest first.' }), ...errors },
      },
      config: { operator: 'read' },
    },
    async (request) => {
      const pages = deps.cursors.for({ list: 'emails' });
      const before = request.query.cursor ? cursorOrThrow(pages.decode(request.query.cursor)) : undefined;
      const data = await deps.mailer.list({ limit: request.query.limit + 1, ...(before ? { before } : {}) });
      const page = data.slice(0, request.query.limit);
      const last = page[page.length - 1];
      return {
        transport: deps.mailer.transport,
        data: page,
        nextCursor:
          data.length > request.query.limit && last ? pages.encode(new Date(last.createdAt), last.id) : null,
      };
    },
  );

  app.get(
    '/operator/v1/emails/:id',
    {
      schema: {
        params: IdParamsSchema,
        response: {
          200: Type.Unknown({
            description:
              'One message of the outbox; `text` and `html` are null when it went out over SMTP (they carry ' +
              'the recipient’s one-time secrets).',
          }),
          ...errors,
        },
      },
      config: { operator: 'read' },
    },
    async (request) => {
      const email = await deps.mailer.read(request.params.id);
      if (!email) throw new ApiError('not_found', `No e-mail ${request.params.id}.`);
      return shownEmail(deps.mailer, email);
    },
  );

  app.post(
    '/operator/v1/staff',
    {
      schema: {
        body: StaffCreateSchema,
        response: {
          201: Type.Object({
            id: Type.String(),
            email: Type.String(),
            name: Type.String(),
            role: Type.String(),
          }),
          ...errors,
        },
      },
      config: { operator: 'administer' },
    },
    async (request, reply) => {
      return reply.code(201).send(valueOf(await deps.commands.createStaff(request.body, actorOf(request))));
    },
  );

  app.post(
    '/operator/v1/staff/password',
    {
      schema: {
        description:
          'Sets the password of the staff account with this e-mail (a forgotten one, or an account locked ' +
          'out by failed logins: the lockout ends). Audited (`staff.password_set`); every operator session ' +
          "of the account ends, the caller's own if it is the account. A weak password is 400, an unknown " +
          'address 404. Needs the admin role.',
        body: StaffPasswordSchema,
        response: {
          200: Type.Object({ id: Type.String(), email: Type.String(), sessionsEnded: Type.Integer() }),
          ...errors,
        },
      },
      config: { operator: 'administer' },
    },
    async (request) => {
      const { staff, sessionsEnded } = valueOf(
        await deps.commands.setStaffPassword(request.body, actorOf(request)),
      );
      return { id: staff.id, email: staff.email, sessionsEnded };
    },
  );

  app.post(
    '/operator/v1/demo-merchants',
    {
      schema: {
        body: DemoMerchantSchema,
        response: {
          201: Type.Object({
            organizationId: Type.String(),
            applicationId: Type.String(),
            kycStatus: Type.String(),
            featureFlags: Type.Array(Type.String()),
            dashboard: Type.Object({ url: Type.String(), email: Type.String(), password: Type.String() }),
            keys: Type.Object({ sandbox: Type.String(), live: Type.String() }),
          }),
          ...errors,
        },
      },
      config: { operator: 'administer' },
    },
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

/**
 * A message of the outbox as staff see it (ADR 0058): the dev mailbox stands in for the recipient's inbox
 * and shows the body; a message sent over SMTP went to its recipient with its one-time secrets (a sandbox
 * key, an activation or reset link), so its body is not shown.
 */
export function shownEmail<T extends { text: string; html: string }>(
  mailer: Pick<Mailer, 'transport'>,
  email: T,
): Omit<T, 'text' | 'html'> & { text: string | null; html: string | null } {
  return mailer.transport === 'dev_mailbox' ? email : { ...email, text: null, html: null };
}

export function loginDeps(deps: OperatorApiDeps) {
  return { staff: deps.staff, sessions: deps.sessions, audit: deps.audit, db: deps.db };
}
