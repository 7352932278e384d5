import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../http/errors.js';
import type { App } from '../../http/server.js';
import type { FeatureFlag, KycStatus, PaymentMethod } from '../../db/schema.js';
import type { Renderer } from '../../web/render.js';
import { FEATURE_FLAGS, KYC_STATUSES, PAYMENT_METHODS } from '../organizations/types.js';
import { loginDeps, type OperatorApiDeps } from './api-routes.js';
import { actorOf, logInStaff } from './auth.js';
import { applicationView, organizationView } from './schemas.js';
import { can } from './staff.js';
import { cursorOrThrow } from '../../http/cursor-errors.js';
import { apiKeyRefusal } from '../api-keys/errors.js';

type Form = Record<string, string | undefined>;

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
  deps: OperatorApiDeps & { renderer: Renderer },
): Promise<void> {
  const { underwriting, organizations } = deps;

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

  /** Runs a console action; a refusal re-renders with the message, success redirects with a notice. */
  const action =
    (run: (request: FastifyRequest, form: Form) => Promise<string>) =>
    async (request: FastifyRequest, reply: FastifyReply) => {
      try {
        return reply.redirect(await run(request, (request.body ?? {}) as Form), 303);
      } catch (error) {
        if (!(error instanceof ApiError) || error.statusCode >= 500) throw error;
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
      }
    };

  app.get('/login', { config: { operator: 'public' } }, async (request, reply) => {
    if (request.staff) return reply.redirect('/applications', 303);
    const next = safeNext((request.query as { next?: string }).next);
    return page(request, reply, 'login', { title: 'Log in', next, email: '' });
  });

  app.post(
    '/login',
    { config: { operator: 'public', rateLimit: { max: 20, timeWindow: 60_000 } } },
    async (request, reply) => {
      const form = (request.body ?? {}) as Form;
      const next = safeNext(form.next);
      try {
        await logInStaff(loginDeps(deps), request, reply, {
          email: form.email ?? '',
          password: form.password ?? '',
        });
        return reply.redirect(next, 303);
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        return page(
          request,
          reply,
          'login',
          { title: 'Log in', next, email: form.email ?? '', error: error.message, staff: null },
          error.statusCode,
        );
      }
    },
  );

  app.post('/logout', { config: { operator: 'read' } }, async (request, reply) => {
    if (request.operatorSession) await deps.services.sessions.end(reply, request.operatorSession);
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
    const result = await underwriting.listApplications({
      limit: 50,
      ...(status ? { status } : {}),
      ...(query.cursor ? { cursor: query.cursor } : {}),
    });
    return page(request, reply, 'applications', {
      title: 'Applications',
      status: status ?? '',
      applications: result.data.map(applicationView),
      nextCursor: result.nextCursor,
    });
  });

  app.get('/applications/:id', { config: { operator: 'read' } }, async (request, reply) => {
    const { id } = request.params as { id: string };
    const application = applicationView(await underwriting.getApplication(id));
    return page(request, reply, 'application', {
      title: application.companyName,
      application,
      canDecide: request.staff ? can(request.staff, 'underwrite') : false,
    });
  });

  app.post(
    '/applications/:id/start-review',
    { config: { operator: 'underwrite' } },
    action(async (request) => {
      const { id } = request.params as { id: string };
      await underwriting.startReview(id, actorOf(request));
      return `/applications/${id}?notice=review`;
    }),
  );

  app.post(
    '/applications/:id/approve',
    { config: { operator: 'underwrite' } },
    action(async (request) => {
      const { id } = request.params as { id: string };
      await underwriting.approve(id, actorOf(request));
      return `/applications/${id}?notice=approved`;
    }),
  );

  app.post(
    '/applications/:id/reject',
    { config: { operator: 'underwrite' } },
    action(async (request, form) => {
      const { id } = request.params as { id: string };
      const reason = (form.reason ?? '').trim();
      if (reason === '' || reason.length > 2000) {
        throw ApiError.validation([
          {
            path: 'reason',
            in: 'body',
            code: 'too_short',
            message: 'a reason of 1 to 2000 characters is required',
          },
        ]);
      }
      await underwriting.reject(id, reason, actorOf(request));
      return `/applications/${id}?notice=rejected`;
    }),
  );

  app.get('/organizations', { config: { operator: 'read' } }, async (request, reply) => {
    const { cursor } = request.query as { cursor?: string };
    const result = await organizations.list({ limit: 50, ...(cursor ? { cursor } : {}) });
    return page(request, reply, 'organizations', {
      title: 'Organizations',
      organizations: result.data.map((o) => organizationView(o)),
      nextCursor: result.nextCursor,
    });
  });

  app.get('/organizations/:id', { config: { operator: 'read' } }, async (request, reply) => {
    const { id } = request.params as { id: string };
    const organization = organizationView(await organizations.get(id), await organizations.feeSchedule(id));
    return page(request, reply, 'organization', {
      title: organization.name,
      organization,
      keys: await deps.apiKeys.listForOrganization(id),
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

  const orgId = (request: FastifyRequest) => (request.params as { id: string }).id;
  const toOrg = (request: FastifyRequest) => `/organizations/${orgId(request)}`;

  app.post(
    '/organizations/:id/kyc-status',
    { config: { operator: 'underwrite' } },
    action(async (request, form) => {
      const status = form.kycStatus ?? '';
      if (!(KYC_STATUSES as readonly string[]).includes(status))
        throw invalid('kycStatus', 'must be REVIEWING or APPROVED');
      await organizations.setKycStatus(orgId(request), status as KycStatus, actorOf(request));
      return `${toOrg(request)}?notice=kyc`;
    }),
  );

  app.post(
    '/organizations/:id/fees/:paymentMethod',
    { config: { operator: 'administer' } },
    action(async (request, form) => {
      const { paymentMethod } = request.params as { paymentMethod: string };
      if (!(PAYMENT_METHODS as readonly string[]).includes(paymentMethod))
        throw invalid('paymentMethod', 'is not a payment method');
      const basisPoints = wholeNumber(form.basisPoints, 'basisPoints', 10_000);
      const fixedMinor = wholeNumber(form.fixedMinor, 'fixedMinor', Number.MAX_SAFE_INTEGER);
      await organizations.setFee(
        orgId(request),
        { paymentMethod: paymentMethod as PaymentMethod, basisPoints, fixedMinor: BigInt(fixedMinor) },
        actorOf(request),
      );
      return `${toOrg(request)}?notice=fees`;
    }),
  );

  app.post(
    '/organizations/:id/feature-flags/:flag',
    { config: { operator: 'administer' } },
    action(async (request, form) => {
      const { flag } = request.params as { flag: string };
      if (!(FEATURE_FLAGS as readonly string[]).includes(flag))
        throw invalid('flag', 'is not a feature flag');
      await organizations.setFeatureFlag(
        orgId(request),
        flag as FeatureFlag,
        form.enabled === 'true',
        actorOf(request),
      );
      return `${toOrg(request)}?notice=flag`;
    }),
  );

  app.post(
    '/organizations/:id/rate-limits',
    { config: { operator: 'administer' } },
    action(async (request, form) => {
      const optional = (value: string | undefined, name: string) =>
        value === undefined || value.trim() === '' ? null : wholeNumber(value, name, 100_000, 1);
      await organizations.setRateLimits(
        orgId(request),
        { live: optional(form.live, 'live'), sandbox: optional(form.sandbox, 'sandbox') },
        actorOf(request),
      );
      return `${toOrg(request)}?notice=limits`;
    }),
  );

  app.post(
    '/organizations/:id/freeze',
    { config: { operator: 'administer' } },
    action(async (request, form) => {
      const reason = (form.reason ?? '').trim();
      if (reason === '' || reason.length > 2000)
        throw invalid('reason', 'a reason of 1 to 2000 characters is required');
      await organizations.freeze(orgId(request), reason, actorOf(request));
      return `${toOrg(request)}?notice=frozen`;
    }),
  );

  app.post(
    '/organizations/:id/unfreeze',
    { config: { operator: 'administer' } },
    action(async (request) => {
      await organizations.unfreeze(orgId(request), actorOf(request));
      return `${toOrg(request)}?notice=unfrozen`;
    }),
  );

  app.get('/audit', { config: { operator: 'read' } }, async (request, reply) => {
    const query = request.query as { cursor?: string; organizationId?: string };
    const result = cursorOrThrow(
      await deps.services.audit.list(deps.services.db, {
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
    const pages = deps.services.cursors.for({ list: 'emails' });
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
    return page(request, reply, 'email', { title: email.subject, email });
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

function invalid(path: string, message: string): ApiError {
  return ApiError.validation([{ path, in: 'body', code: 'invalid_value', message }]);
}

function wholeNumber(value: string | undefined, name: string, max: number, min = 0): number {
  if (value === undefined || !/^\d{1,16}$/.test(value.trim()) || Number(value) > max || Number(value) < min) {
    throw invalid(name, `must be a whole number from ${min} to ${max}`);
  }
  return Number(value);
}
