import type { FastifyReply, FastifyRequest } from 'fastify';
import type { KycStatus } from '../../db/schema.js';
import type { App } from '../../http/server.js';
import type { Clock } from '../../shared/clock.js';
import type { Urls } from '../../shared/urls.js';
import type { Locale } from '../../web/i18n.js';
import { contextOf, type SignedIn } from '../users/http.js';
import { EnvironmentFormSchema } from '../users/schemas.js';
import { INVITABLE_ROLES } from '../users/roles.js';
import type { UserService } from '../users/service.js';
import { Type } from 'typebox';
import { localeOf } from '../users/http.js';
import { PageQuerySchema, type PageKit } from './kit.js';
import { formatMoney } from './money.js';
import {
  CHART_HEIGHT,
  CHART_WIDTH,
  DEFAULT_PERIOD,
  OVERVIEW_PERIODS,
  overviewOf,
  periodOf,
  roundedShare,
  type ActivityReader,
  type OverviewPeriod,
} from './overview.js';
import { OVERVIEW_MESSAGES } from './overview-i18n.js';

export interface HomePageDeps {
  kit: PageKit;
  users: UserService;
  urls: Pick<Urls, 'liveApi' | 'sandboxApi'>;
  /** The overview's daily figures. */
  activity: ActivityReader;
  clock: Clock;
}

const HomeQuerySchema = Type.Object({
  ...PageQuerySchema.properties,
  period: Type.Optional(Type.String({ maxLength: 10 })),
});

/**
 * `part` of `whole` as a percentage with one decimal ("87.5%", "%87,5"), rounded half up from the counts
 * themselves (11 of 12 is 91.7%; rounding a rounded share again could be off by a tenth); a dash when
 * `whole` is zero.
 */
function percentOf(part: number | bigint, whole: number | bigint, locale: Locale): string {
  if (BigInt(whole) <= 0n) return '–';
  const tenths = roundedShare(BigInt(part), BigInt(whole), 1000n);
  const integer = Math.floor(tenths / 10);
  const tenth = tenths % 10;
  return locale === 'tr' ? `%${integer},${tenth}` : `${integer}.${tenth}%`;
}

export type HomeNotice = {
  notice?: 'invited';
  inviteError?: 'email_taken' | 'not_permitted' | 'invalid_email';
};

/** The dashboard's home: the organization, the environment, the API base URL and the team. */
export function homePageOf(deps: HomePageDeps) {
  const { kit, users, urls } = deps;
  return async (
    request: FastifyRequest,
    reply: FastifyReply,
    current: SignedIn,
    status: number,
    extra: HomeNotice = {},
    period: OverviewPeriod = DEFAULT_PERIOD,
  ) => {
    const { account, session } = current;
    const canInvite = kit.may(current, 'invite');
    const locale = localeOf(request);
    const owner = { organizationId: account.organization.id, environment: session.environment };
    return kit.render(request, reply, 'dashboard-home', status, {
      title: (m) => m.home.title,
      csrf: session.csrfToken,
      user: account.user,
      organization: {
        name: account.organization.name,
        kycStatus: account.organization.kycStatus as KycStatus,
      },
      environment: session.environment,
      apiBaseUrl: session.environment === 'live' ? urls.liveApi() : urls.sandboxApi(),
      team: await users.team(account.organization.id),
      canInvite,
      invitableRoles: INVITABLE_ROLES,
      notice: extra.notice,
      inviteError: extra.inviteError,
      overview: await overviewOf(deps.activity, owner, deps.clock.now(), period),
      om: OVERVIEW_MESSAGES[locale],
      periods: OVERVIEW_PERIODS,
      chartWidth: CHART_WIDTH,
      chartHeight: CHART_HEIGHT,
      money: (amount: bigint) => formatMoney(amount.toString(), 'TRY', locale),
      percent: (part: number | bigint, whole: number | bigint) => percentOf(part, whole, locale),
    });
  };
}

/** The home page and the environment switch. */
export async function homePages(app: App, options: HomePageDeps): Promise<void> {
  const { kit, users } = options;
  const { sessions } = kit;
  const homePage = homePageOf(options);
  kit.handleErrors(app);

  app.get('/dashboard', { schema: { hide: true, querystring: HomeQuerySchema } }, async (request, reply) => {
    const current = await kit.signedIn(request, reply);
    if (!current) return reply;
    const period = periodOf(request.query.period);
    if (period === undefined) {
      return kit.message(
        request,
        reply,
        400,
        (m) => ({
          title: m.home.title,
          body: OVERVIEW_MESSAGES[localeOf(request)].badPeriod,
        }),
        'none',
      );
    }
    return homePage(
      request,
      reply,
      current,
      200,
      request.query.notice === 'invited' ? { notice: 'invited' } : {},
      period,
    );
  });

  app.post(
    '/dashboard/environment',
    { schema: { hide: true, querystring: PageQuerySchema, body: EnvironmentFormSchema } },
    async (request, reply) => {
      const current = await kit.signedIn(request, reply);
      if (!current) return reply;
      sessions.assertCsrf(request, current.session);
      const environment = request.body.environment;
      if (environment !== current.session.environment) {
        await sessions.setEnvironment(current.session, environment);
        await users.recordAudit(current.account.user, 'session.environment_changed', contextOf(request), {
          after: { environment },
        });
      }
      // Back to the area the switch was made from (its list: an object of one environment is not in the
      // other); the schema allows only a path under /dashboard.
      return kit.redirect(request, reply, request.body.return ?? '/dashboard');
    },
  );
}
