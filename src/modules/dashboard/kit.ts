import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type {
  FastifyError,
  FastifyReply,
  FastifyRequest,
  FastifySchema,
  RawServerDefault,
  RouteGenericInterface,
} from 'fastify';
import { Type } from 'typebox';
import type { FeatureFlag } from '../../db/schema.js';
import { isCardNumberRefusal } from '../../http/card-data.js';
import { ApiError } from '../../http/errors.js';
import { toApiError, type App } from '../../http/server.js';
import type { SessionManager } from '../../http/session.js';
import type { Locale } from '../../web/i18n.js';
import { jsonForScript, type Renderer } from '../../web/render.js';
import {
  DASHBOARD_RATE_LIMITS,
  localeOf,
  localized,
  type DashboardAuth,
  type SignedIn,
} from '../users/http.js';
import { userMay, type DashboardPermission } from '../users/roles.js';
import { DASHBOARD_MESSAGES, format, type DashboardMessages } from './i18n.js';
import { areaOf, navigationOf } from './navigation.js';
import { WEBHOOK_MESSAGES, type WebhookMessages } from './webhook-i18n.js';

/** The query every page takes: the language and a notice of the redirect that led there. */
export const PageQuerySchema = Type.Object({
  lang: Type.Optional(Type.String()),
  notice: Type.Optional(Type.String()),
});
/** A page's cursor through a list (`?cursor=`; empty is the first page). */
export const CursorQuerySchema = Type.Object({
  ...PageQuerySchema.properties,
  cursor: Type.Optional(Type.String({ maxLength: 512 })),
});
export const IdParamsSchema = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });
export const Csrf = Type.Optional(Type.String({ maxLength: 200 }));
/** A form post with no more than its CSRF token. */
export const CsrfFormSchema = Type.Object({ _csrf: Csrf }, { additionalProperties: false });
/** Pages reached through an e-mailed link carry a secret in the path: they are kept out of request logs. */
export const QUIET = 'warn' as const;

export type PageText = (m: DashboardMessages) => { title: string; body: string };

/**
 * The request of a page route with this schema, as the route's own handler sees it: a page's handler is a
 * named function of its area, typed by the schema the route is registered with.
 */
export type PageRequest<S extends FastifySchema> = FastifyRequest<
  RouteGenericInterface,
  RawServerDefault,
  IncomingMessage,
  S,
  TypeBoxTypeProvider
>;

/** Where a command of a form leads: a page and its notice, or the page the command answered itself. */
export type CommandOutcome = { path: string; notice: string } | { reply: FastifyReply };

/** A command posted from a form of a page (see `PageKit.command`). */
export interface PageCommand {
  /** What the user's role must allow to run it. */
  permission: DashboardPermission;
  /** The page that says the role may not. */
  refused(current: SignedIn): Promise<FastifyReply> | FastifyReply;
  /** The command itself; a refusal the error page shows is thrown. */
  run(current: SignedIn): Promise<CommandOutcome>;
}

/** What a page asks of its reader (see `PageKit.reader`). */
export interface PageReadRule {
  /** What the user's role must allow to read it. */
  permission: DashboardPermission;
  /** The organization's flag without which the page does not exist (404). */
  feature?: FeatureFlag;
  /** The page that says the role may not. */
  refused(current: SignedIn): Promise<unknown> | unknown;
}

/**
 * The page kit of the merchant dashboard: what every area plugin uses to render,
 * redirect, show an error page and guard a page (signed in, CSRF token, role).
 */
export interface PageKit {
  /** A page in the request's language; `title` picks from the dashboard's and the webhooks' messages. */
  render(
    request: FastifyRequest,
    reply: FastifyReply,
    view: string,
    status: number,
    data: { title: (m: DashboardMessages, w: WebhookMessages) => string; script?: string } & Record<
      string,
      unknown
    >,
  ): FastifyReply;
  /** A page with a title and a sentence, and a link to the login or the forgotten-password page. */
  message(
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    text: PageText,
    link?: 'login' | 'forgot' | 'none',
  ): FastifyReply;
  /** 303 to one of our paths, in the page's language. */
  redirect(
    request: FastifyRequest,
    reply: FastifyReply,
    path: string,
    extra?: Record<string, string>,
  ): FastifyReply;
  /** The signed-in user, or a redirect to the login page (and undefined). */
  signedIn(request: FastifyRequest, reply: FastifyReply): Promise<SignedIn | undefined>;
  /** The signed-in user of a form post, its CSRF token checked; undefined after a redirect to login. */
  signedInPost(request: FastifyRequest, reply: FastifyReply): Promise<SignedIn | undefined>;
  /**
   * A form's command, then a 303 to the page that shows what it did: the signed-in user of the post (its
   * CSRF token checked, else the redirect to login), the refusal page unless the role may, then the command.
   */
  command(request: FastifyRequest, reply: FastifyReply, command: PageCommand): Promise<FastifyReply>;
  /**
   * The signed-in user who may read a page: otherwise the redirect to login, the page that does not exist
   * (without the organization's flag), or the refusal page; undefined after a redirect or a refusal.
   */
  reader(request: FastifyRequest, reply: FastifyReply, rule: PageReadRule): Promise<SignedIn | undefined>;
  /** Whether the user's role allows this (the rule lives in the users service). */
  may(current: SignedIn, permission: DashboardPermission): boolean;
  /** Whether the user's organization has this feature flag (product decision 8). */
  hasFeature(current: SignedIn, flag: FeatureFlag): boolean;
  auth: DashboardAuth;
  sessions: SessionManager;
  /** Errors of the pages (refused CSRF token, rate limit, malformed form) are pages too. */
  handleErrors(app: App): void;
}

export function createPageKit(deps: {
  renderer: Renderer;
  auth: DashboardAuth;
  sessions: SessionManager;
}): PageKit {
  const { renderer, auth, sessions } = deps;
  /**
   * The signed-in user of each request a guard let through, so that every page's navigation shows the
   * links of the organization's flags (Customers) without each area passing them.
   */
  const signedInOf = new WeakMap<FastifyRequest, SignedIn>();

  const kit: PageKit = {
    auth,
    sessions,

    render(request, reply, view, status, data) {
      const locale = localeOf(request);
      const m = DASHBOARD_MESSAGES[locale];
      const w = WEBHOOK_MESSAGES[locale];
      const current = signedInOf.get(request);
      const path = request.url.split('?', 1)[0] ?? '/dashboard';
      const environment = current?.session.environment;
      const html = renderer.render(view, {
        when: displayTime,
        features: current ? current.account.organization.featureFlags : [],
        ...data,
        // The application shell around every signed-in page: the navigation, the
        // organization, the environment switch (back to the same area) and the sandbox banner.
        shell: current && {
          organizationName: current.account.organization.name,
          userEmail: current.account.user.email,
          environment,
          otherEnvironment: environment === 'live' ? 'sandbox' : 'live',
          csrf: current.session.csrfToken,
          navigation: navigationOf(current, m, path),
          returnPath: areaOf(path) ?? '/dashboard',
        },
        locale,
        otherLocale: locale === 'en' ? 'tr' : 'en',
        languageHref: languageHref(request.url, locale === 'en' ? 'tr' : 'en'),
        languageSwitch: m.languageSwitch,
        title: data.title(m, w),
        script: data.script,
        m,
        w,
        href: (path: string, extra?: Record<string, string>) => localized(path, locale, extra),
        fmt: format,
      });
      return reply
        .code(status)
        .type('text/html; charset=utf-8')
        .header('cache-control', 'no-store')
        .header('content-language', locale)
        .send(html);
    },

    message: (request, reply, status, text, link = 'login') =>
      kit.render(request, reply, 'dashboard-message', status, { title: (m) => text(m).title, text, link }),

    redirect: (request, reply, path, extra) =>
      reply
        .code(303)
        .header('cache-control', 'no-store')
        .redirect(localized(path, localeOf(request), extra), 303),

    async signedIn(request, reply) {
      const current = await auth.signedIn(request);
      if (!current) await kit.redirect(request, reply, '/login');
      else signedInOf.set(request, current);
      return current;
    },

    async signedInPost(request, reply) {
      const current = await kit.signedIn(request, reply);
      if (current) sessions.assertCsrf(request, current.session);
      return current;
    },

    async command(request, reply, { permission, refused, run }) {
      const current = await kit.signedInPost(request, reply);
      if (!current) return reply;
      if (!kit.may(current, permission)) return refused(current);
      const outcome = await run(current);
      if ('reply' in outcome) return outcome.reply;
      return kit.redirect(request, reply, outcome.path, { notice: outcome.notice });
    },

    async reader(request, reply, { permission, feature, refused }) {
      const current = await kit.signedIn(request, reply);
      if (!current) return undefined;
      if (feature !== undefined && !kit.hasFeature(current, feature)) {
        throw new ApiError('not_found', 'No such page.');
      }
      if (kit.may(current, permission)) return current;
      await refused(current);
      return undefined;
    },

    may: (current, permission) => userMay(current.account.user, permission),

    hasFeature: (current, flag) => current.account.organization.featureFlags.includes(flag),

    handleErrors(app) {
      app.setErrorHandler((error: FastifyError | ApiError, request, reply) =>
        errorPage(kit, error, request, reply),
      );
    },
  };
  return kit;
}

// ---------------------------------------------------------------- an area's table of routes

/** What a page route sets beside its schema: the rate limit of a form's post, a quieter log. */
export interface PageRouteSettings {
  config?: { rateLimit: { max: number; timeWindow: number } };
  logLevel?: typeof QUIET;
  /** A form larger than Fastify's default body (an uploaded logo). */
  bodyLimit?: number;
}
/** The rate limit of the forms that change an account's settings. */
export const SETTINGS_POST: PageRouteSettings = {
  config: { rateLimit: DASHBOARD_RATE_LIMITS.accountSettings },
};

/** A route of an area's pages: its handler takes the area's options. */
export interface PageRoute<O> {
  method: 'GET' | 'POST';
  url: string;
  schema: FastifySchema;
  settings: PageRouteSettings;
  handle(options: O, request: FastifyRequest, reply: FastifyReply): unknown;
}

/** A route of an area's table, its handler typed by the route's schema. */
export function pageRoute<O, S extends FastifySchema>(
  method: PageRoute<O>['method'],
  url: string,
  schema: S,
  handle: (options: O, request: PageRequest<S>, reply: FastifyReply) => unknown,
  settings: PageRouteSettings = {},
): PageRoute<O> {
  return {
    method,
    url,
    schema,
    settings,
    handle: (options, request, reply) => handle(options, request as PageRequest<S>, reply),
  };
}

/** Who may reach a route: the signed-in user it lets through, or undefined once it has answered. */
export type PageGuard<O> = (
  options: O,
  request: FastifyRequest,
  reply: FastifyReply,
) => Promise<SignedIn | undefined>;
/** A page of the signed-in user: else the redirect to login. */
export const signedIn: PageGuard<{ kit: PageKit }> = ({ kit }, request, reply) =>
  kit.signedIn(request, reply);
/** A form post of the signed-in user, its CSRF token checked: else the redirect to login. */
export const signedInPost: PageGuard<{ kit: PageKit }> = ({ kit }, request, reply) =>
  kit.signedInPost(request, reply);

/**
 * The guard of an area's pages that only some roles read (see `PageKit.reader`): its rule, and the page
 * that says the role may not, given the area's options.
 */
export function readerGuard<O extends { kit: PageKit }>(
  rule: Omit<PageReadRule, 'refused'>,
  refused: (options: O, request: FastifyRequest, reply: FastifyReply, current: SignedIn) => unknown,
): PageGuard<O> {
  return (options, request, reply) =>
    options.kit.reader(request, reply, {
      ...rule,
      refused: (current) => refused(options, request, reply, current),
    });
}

/**
 * The guard of an area's pages whose refusal is the area's page itself, status 403, saying the role may
 * not (`view`, with the page's `data` and `refused`).
 */
export function viewReader<O extends { kit: PageKit }>(
  rule: Omit<PageReadRule, 'refused'> & {
    view: string;
    data: (request: FastifyRequest, current: SignedIn) => Parameters<PageKit['render']>[4];
  },
): PageGuard<O> {
  const { view, data, ...read } = rule;
  return readerGuard<O>(read, ({ kit }, request, reply, current) =>
    kit.render(request, reply, view, 403, { ...data(request, current), refused: true }),
  );
}

/** A route whose handler runs for the user its guard lets through (see `PageGuard`). */
export function guardedRoute<O, S extends FastifySchema>(
  method: PageRoute<O>['method'],
  url: string,
  schema: S,
  guard: PageGuard<O>,
  handle: (options: O, request: PageRequest<S>, reply: FastifyReply, current: SignedIn) => unknown,
  settings: PageRouteSettings = {},
): PageRoute<O> {
  const guarded = async (options: O, request: PageRequest<S>, reply: FastifyReply) => {
    const current = await guard(options, request, reply);
    return current ? handle(options, request, reply, current) : reply;
  };
  return pageRoute(method, url, schema, guarded, settings);
}

/** An area's pages: their errors shown as pages, and each route of the table. */
export function registerPages<O extends { kit: PageKit }>(
  app: App,
  options: O,
  routes: ReadonlyArray<PageRoute<O>>,
): void {
  options.kit.handleErrors(app);
  for (const { method, url, schema, settings, handle } of routes) {
    app.route({
      method,
      url,
      schema,
      ...settings,
      handler: (request, reply) => handle(options, request, reply),
    });
  }
}

/** The schema of a page route with the page query: hidden from the API's reference. */
export function pageSchema<P extends FastifySchema>(parts: P) {
  return { hide: true, querystring: PageQuerySchema, ...parts };
}

/** A list's cursor from the query: an empty one is the first page. */
export const cursorOf = (cursor: string | undefined) => (cursor === '' ? undefined : cursor);

// ---------------------------------------------------------------- a form with a confirmation step

/** The query of a confirmation page: the amount typed on the page before (free text, checked after). */
export const AmountQuerySchema = Type.Object({
  ...PageQuerySchema.properties,
  amount: Type.Optional(Type.String({ maxLength: 1000 })),
});
/** The members of a confirmed form: the amount confirmed (minor units) and the confirmation's key. */
export const CONFIRMED_FORM = {
  _csrf: Csrf,
  amount: Type.String({ maxLength: 20 }),
  key: Type.String({ maxLength: 64 }),
};

/**
 * What a confirmation page gives its confirmed form: the amount to confirm, and the form's key (a second
 * submission of the same form is the same command).
 */
export const confirmationOf = (amount: bigint) => ({
  amount: amount.toString(),
  key: randomBytes(18).toString('base64url'),
});

/** The refusal of a confirmed form whose key or amount is not the confirmation page's. */
export const notTheConfirmationForm = () =>
  ApiError.validation([
    { path: 'key', in: 'body', code: 'invalid_value', message: 'not the confirmation form' },
  ]);

/**
 * A confirmed form's amount (whole minor units) is valid, and its key is the confirmation page's
 * unchanged (anything else is a forged or broken form, thrown).
 */
export function confirmedAmountValid(amount: string, key: string): boolean {
  if (!/^[1-9][0-9]{0,15}$/.test(amount) || BigInt(amount) > BigInt(Number.MAX_SAFE_INTEGER)) return false;
  if (!/^[A-Za-z0-9_-]{16,64}$/.test(key)) throw notTheConfirmationForm();
  return true;
}

/** An error of a page (refused CSRF token, rate limit, malformed form) as a page, logged by its status. */
function errorPage(
  kit: PageKit,
  error: FastifyError | ApiError,
  request: FastifyRequest,
  reply: FastifyReply,
) {
  const apiError = toApiError(error);
  if (apiError.statusCode >= 500) request.log.error({ err: error, code: apiError.code }, 'request failed');
  else request.log.info({ code: apiError.code, statusCode: apiError.statusCode }, 'request refused');
  const body = (m: DashboardMessages) => {
    switch (apiError.code) {
      case 'forbidden':
        return m.errors.csrf;
      case 'too_many_requests':
        return m.errors.rateLimited;
      case 'not_found':
        return m.errors.notFound;
      case 'validation_failed':
        return isCardNumberRefusal(apiError) ? m.errors.cardNumber : `${m.errors.generic} ${request.id}`;
      default:
        return `${m.errors.generic} ${request.id}`;
    }
  };
  return kit.message(request, reply, apiError.statusCode, (m) => ({ title: m.brand, body: body(m) }), 'none');
}

/** What a page of the session gives its forms and its banner: the CSRF token and the environment. */
export function sessionFields({ session }: SignedIn) {
  return { csrf: session.csrfToken, environment: session.environment };
}

/** A file to download, never cached: its name and its type (the body is sent after). */
export const attachment = (reply: FastifyReply, filename: string, type: string) =>
  reply
    .header('cache-control', 'no-store')
    .header('content-disposition', `attachment; filename="${filename}"`)
    .type(type);

/** The organization and the session's environment: whose data a page reads and changes. */
export function ownerOf({ account, session }: SignedIn) {
  return { organizationId: account.organization.id, environment: session.environment };
}

/** A time to the minute, UTC, as the dashboard's lists show it. */
export function displayTime(date: Date | string | null): string {
  if (date === null) return '';
  return `${new Date(date).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

export function linkProblem(m: DashboardMessages, state: 'used' | 'invalid') {
  return state === 'used'
    ? { title: m.link.usedTitle, body: m.link.usedBody }
    : { title: m.link.invalidTitle, body: m.link.invalidBody };
}

/** What dashboard.js needs to speak the page's language. */
export function clientMessages(locale: Locale): string {
  const m = DASHBOARD_MESSAGES[locale];
  return jsonForScript({
    generic: m.errors.generic,
    rateLimited: m.errors.rateLimited,
    csrf: m.errors.csrf,
    passwordMismatch: m.errors.passwordMismatch,
    password: m.errors.password,
    forgotSent: m.forgot.sent,
    resetDone: m.reset.done,
    resetInvalid: m.reset.invalid,
    invalidCode: m.security.invalidCode,
    wrongCurrent: m.security.wrongCurrent,
    changed: m.security.changed,
    invalidEmail: m.home.inviteErrors.invalid_email,
  });
}

/**
 * The language link of a page: the same page and query (a list's filters, cursor and search) in the other
 * language. Only the query changes, so the link cannot lead anywhere else.
 */
export function languageHref(url: string, otherLocale: string): string {
  const query = new URLSearchParams(url.includes('?') ? url.slice(url.indexOf('?') + 1) : '');
  query.set('lang', otherLocale);
  return `?${query.toString()}`;
}
