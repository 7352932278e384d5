import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { Static, TSchema } from 'typebox';
import { ApiError } from '../../http/errors.js';
import { accountAddressLimit, loginFloodGuard } from '../../http/rate-limit.js';
import type { App } from '../../http/server.js';
import { validationErrorFromFastify } from '../../http/validation.js';
import type { FeatureFlag, KycStatus, PaymentMethod } from '../../db/schema.js';
import type { Renderer } from '../../web/render.js';
import { FEATURE_FLAGS } from '../organizations/types.js';
import { loginDeps, shownEmail, type OperatorApiDeps } from './api-routes.js';
import { actorOf, logInStaff, logOutStaff, OPERATOR_LOGIN_LIMITS } from './auth.js';
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
  applicationView,
  organizationView,
} from './schemas.js';
import { valueOf } from './errors.js';
import { can } from './staff.js';
import { cursorOrThrow } from '../../http/cursor-errors.js';
import { apiKeyRefusal } from '../api-keys/errors.js';
import { merchantFigures, money, permille, isFailing, type MerchantViewDeps } from './merchant-view.js';

const NOTICES: Record<string, string> = {
  review: 'Review started.',
  approved: 'Approved: the organization exists and the approval e-mail is on its way.',
  rejected: 'Rejected: the applicant is told by e-mail.',
  kyc: 'KYC status saved.',
  fees: 'Fee saved.',
  flag: 'Feature flag saved.',
  limits: 'Rate limits saved.',
  frozen: 'Organization frozen: its API requests now answer 403 organization_frozen.',
  unfrozen: 'Organization unfrozen.',
};

/** The operator console: server-rendered pages whose forms post back here, then redirect (PRG). */
export async function operatorConsoleRoutes(
  app: App,
  deps: OperatorApiDeps & { renderer: Renderer; merchants: MerchantViewDeps },
): Promise<void> {
  const { underwriting, organizations, commands } = deps;
  const loginLimit = accountAddressLimit(app, 'operator-console-login', OPERATOR_LOGIN_LIMITS.perAccount);
  const loginFlood = loginFloodGuard(app, 'operator-console-login', OPERATOR_LOGIN_LIMITS.flood);

  const page = (
    request: FastifyRequest,
    reply: FastifyReply,
    view: string,
    data: Record<string, unknown>,
    status = 200,
  ) => {
    const query = request.query as { notice?: string };
    return reply
      .code(status)
      .type('text/html; charset=utf-8')
      .header('cache-control', 'no-store')
      .send(
        deps.renderer.render(`operator/${view}`, {
          staff: request.staff,
          csrf: request.operatorSession?.csrfToken ?? '',
          notice: query.notice ? NOTICES[query.notice] : undefined,
          error: undefined,
          ...data,
        }),
      );
  };

  /** A refusal re-renders with the message (validation issues listed), on a page of its own. */
  const refused = (request: FastifyRequest, reply: FastifyReply, error: ApiError) => {
    const issues = (error.details?.issues as Array<{ path: string; message: string }> | undefined) ?? [];
    const detail = issues.map((i) => `${i.path} ${i.message}`).join('; ');
    return page(
      request,
      reply,
      'refused',
      {
        title: 'Refused',
        heading: 'The action was refused',
        error: detail ? `${error.message} ${detail}` : error.message,
        backTo: request.url.replace(/\/[^/]+(\/[^/]+)?$/, ''),
      },
      error.statusCode,
    );
  };

  /**
   * A console action: its form and path have schemas (like the API routes), checked after who may call;
   * the handler calls one operator command and redirects with a notice (PRG).
   */
  const action = <P extends TSchema, B extends TSchema>(
    path: string,
    permission: 'underwrite' | 'administer',
    schema: { params: P; body: B },
    run: (params: Static<P>, form: Static<B>, request: FastifyRequest) => Promise<string>,
  ) =>
    app.post(
      path,
      { schema: { ...schema, hide: true }, attachValidation: true, config: { operator: permission } },
      async (request, reply) => {
        try {
          const invalid = request.validationError as
            (FastifyError & { validationContext?: string }) | undefined;
          if (invalid?.validation)
            throw validationErrorFromFastify(invalid.validation as never, invalid.validationContext);
          return reply.redirect(
            await run(request.params as Static<P>, request.body as Static<B>, request),
            303,
          );
        } catch (error) {
          if (!(error instanceof ApiError) || error.statusCode >= 500) throw error;
          return refused(request, reply, error);
        }
      },
    );

  /** The login form carries the double-submit token of the anonymous forms (`gw_form`, ADR 0006). */
  const loginPage = (
    request: FastifyRequest,
    reply: FastifyReply,
    data: { next: string; email: string; error?: string },
    status = 200,
  ) =>
    page(
      request,
      reply,
      'login',
      { title: 'Log in', ...data, csrf: deps.sessions.formToken(request, reply), staff: null },
      status,
    );

  app.get('/login', { config: { operator: 'public' } }, async (request, reply) => {
    if (request.staff) return reply.redirect('/applications', 303);
    const next = safeNext((request.query as { next?: string }).next);
    return loginPage(request, reply, { next, email: '' });
  });

  app.post('/login', { config: { operator: 'public' } }, async (request, reply) => {
    // The body is not validated by a schema: a field sent twice (`email=a&email=b`) arrives as an array.
    const body = (request.body ?? {}) as Record<string, unknown>;
    const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
    const next = safeNext(text(body.next));
    const email = text(body.email) ?? '';
    try {
      // First, so that a flood stays cheap; it never refuses an e-mail that signed in from here.
      await loginFlood.check(request, reply, email);
      // A login form posted from another site would sign this browser in as someone else.
      deps.sessions.assertFormToken(request);
      for (const field of ['email', 'password'] as const) {
        if (body[field] !== undefined && typeof body[field] !== 'string') {
          throw new ApiError('validation_failed', `Send one ${field === 'email' ? 'e-mail' : 'password'}.`);
        }
      }
      await loginLimit(request, reply, email);
      await logInStaff(loginDeps(deps), request, reply, { email, password: text(body.password) ?? '' });
      await loginFlood.prove(request, email);
      return reply.redirect(next, 303);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      return loginPage(request, reply, { next, email, error: error.message }, error.statusCode);
    }
  });

  app.post('/logout', { config: { operator: 'read' } }, async (request, reply) => {
    await logOutStaff(loginDeps(deps), request, reply);
    return reply.redirect('/login', 303);
  });

  app.get('/', { config: { operator: 'read' } }, async (_request, reply) =>
    reply.redirect('/applications', 303),
  );

  app.get('/applications', { config: { operator: 'read' } }, async (request, reply) => {
    const query = request.query as { status?: string; cursor?: string };
    const status = ['NEW', 'IN_REVIEW', 'APPROVED', 'REJECTED'].includes(query.status ?? '')
      ? (query.status as 'NEW')
      : undefined;
    const result = cursorOrThrow(
      await underwriting.listApplications({
        limit: 50,
        ...(status ? { status } : {}),
        ...(query.cursor ? { cursor: query.cursor } : {}),
      }),
    );
    return page(request, reply, 'applications', {
      title: 'Applications',
      status: status ?? '',
      applications: result.data.map(applicationView),
      nextCursor: result.nextCursor,
    });
  });

  app.get('/applications/:id', { config: { operator: 'read' } }, async (request, reply) => {
    const { id } = request.params as { id: string };
    const application = applicationView(valueOf(await underwriting.getApplication(id)));
    return page(request, reply, 'application', {
      title: application.companyName,
      application,
      canDecide: request.staff ? can(request.staff, 'underwrite') : false,
    });
  });

  action(
    '/applications/:id/start-review',
    'underwrite',
    { params: IdParamsSchema, body: CsrfFormSchema },
    async ({ id }, _form, request) => {
      valueOf(await commands.startReview(id, actorOf(request)));
      return `/applications/${id}?notice=review`;
    },
  );

  action(
    '/applications/:id/approve',
    'underwrite',
    { params: IdParamsSchema, body: CsrfFormSchema },
    async ({ id }, _form, request) => {
      valueOf(await commands.approveApplication(id, actorOf(request)));
      return `/applications/${id}?notice=approved`;
    },
  );

  action(
    '/applications/:id/reject',
    'underwrite',
    { params: IdParamsSchema, body: ReasonFormSchema },
    async ({ id }, form, request) => {
      valueOf(await commands.rejectApplication(id, form.reason, actorOf(request)));
      return `/applications/${id}?notice=rejected`;
    },
  );

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
    const organization = organizationView(
      valueOf(await organizations.get(id)),
      await organizations.feeSchedule(id),
    );
    return page(request, reply, 'organization', {
      title: organization.name,
      organization,
      keys: await deps.apiKeys.listForOrganization(id),
      ...(await merchantFigures(deps.merchants, id)),
      permille,
      money,
      isFailing,
      flags: FEATURE_FLAGS,
      canDecide: request.staff ? can(request.staff, 'underwrite') : false,
      canAdminister: request.staff ? can(request.staff, 'administer') : false,
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

  const toOrg = (id: string) => `/organizations/${id}`;

  action(
    '/organizations/:id/kyc-status',
    'underwrite',
    { params: IdParamsSchema, body: KycFormSchema },
    async ({ id }, form, request) => {
      valueOf(await commands.setKycStatus(id, form.kycStatus as KycStatus, actorOf(request)));
      return `${toOrg(id)}?notice=kyc`;
    },
  );

  action(
    '/organizations/:id/fees/:paymentMethod',
    'administer',
    { params: FeeParamsSchema, body: FeeFormSchema },
    async ({ id, paymentMethod }, form, request) => {
      valueOf(
        await commands.setFee(
          id,
          {
            paymentMethod: paymentMethod as PaymentMethod,
            basisPoints: Number(form.basisPoints),
            fixedMinor: BigInt(form.fixedMinor),
          },
          actorOf(request),
        ),
      );
      return `${toOrg(id)}?notice=fees`;
    },
  );

  action(
    '/organizations/:id/feature-flags/:flag',
    'administer',
    { params: FlagParamsSchema, body: FeatureFlagFormSchema },
    async ({ id, flag }, form, request) => {
      valueOf(
        await commands.setFeatureFlag(id, flag as FeatureFlag, form.enabled === 'true', actorOf(request)),
      );
      return `${toOrg(id)}?notice=flag`;
    },
  );

  action(
    '/organizations/:id/rate-limits',
    'administer',
    { params: IdParamsSchema, body: RateLimitsFormSchema },
    async ({ id }, form, request) => {
      const optional = (value: string | undefined) =>
        value === undefined || value.trim() === '' ? null : Number(value);
      valueOf(
        await commands.setRateLimits(
          id,
          { live: optional(form.live), sandbox: optional(form.sandbox) },
          actorOf(request),
        ),
      );
      return `${toOrg(id)}?notice=limits`;
    },
  );

  action(
    '/organizations/:id/freeze',
    'administer',
    { params: IdParamsSchema, body: ReasonFormSchema },
    async ({ id }, form, request) => {
      valueOf(await commands.freeze(id, form.reason, actorOf(request)));
      return `${toOrg(id)}?notice=frozen`;
    },
  );

  action(
    '/organizations/:id/unfreeze',
    'administer',
    { params: IdParamsSchema, body: CsrfFormSchema },
    async ({ id }, _form, request) => {
      valueOf(await commands.unfreeze(id, actorOf(request)));
      return `${toOrg(id)}?notice=unfrozen`;
    },
  );

  app.get('/audit', { config: { operator: 'read' } }, async (request, reply) => {
    const query = request.query as { cursor?: string; organizationId?: string };
    const result = cursorOrThrow(
      await deps.audit.list(deps.db, {
        limit: 100,
        ...(query.cursor ? { cursor: query.cursor } : {}),
        ...(query.organizationId ? { organizationId: query.organizationId } : {}),
      }),
    );
    return page(request, reply, 'audit', {
      title: 'Audit log',
      organizationId: query.organizationId ?? '',
      entries: result.data,
      nextCursor: result.nextCursor,
    });
  });

  app.get('/mailbox', { config: { operator: 'read' } }, async (request, reply) => {
    const { cursor } = request.query as { cursor?: string };
    const pages = deps.cursors.for({ list: 'emails' });
    const before = cursor ? cursorOrThrow(pages.decode(cursor)) : undefined;
    const emails = await deps.mailer.list({ limit: 51, ...(before ? { before } : {}) });
    const shown = emails.slice(0, 50);
    const last = shown[shown.length - 1];
    return page(request, reply, 'mailbox', {
      title: 'Mailbox',
      transport: deps.mailer.transport,
      emails: shown,
      nextCursor: emails.length > 50 && last ? pages.encode(new Date(last.createdAt), last.id) : null,
    });
  });

  app.get('/mailbox/:id', { config: { operator: 'read' } }, async (request, reply) => {
    const email = await deps.mailer.read((request.params as { id: string }).id);
    if (!email) throw new ApiError('not_found', 'No such message.');
    return page(request, reply, 'email', { title: email.subject, email: shownEmail(deps.mailer, email) });
  });
}

const NEXT_BASE = 'http://operator.invalid';

/**
 * Only paths of this console are followed after login. `//evil.example`, `/\\evil.example`, absolute URLs
 * and whatever a browser reads as another host once it drops tabs and newlines (`/<TAB>/evil.example`)
 * fall back to the applications list. The path is parsed the way a browser parses it and re-serialised,
 * so no control character reaches the Location header either.
 */
function safeNext(next: string | undefined): string {
  const fallback = '/applications';
  if (!next || !next.startsWith('/')) return fallback;
  let url: URL;
  try {
    url = new URL(next, NEXT_BASE);
  } catch {
    return fallback;
  }
  return url.origin === NEXT_BASE ? `${url.pathname}${url.search}` : fallback;
}
