import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { App } from '../../http/server.js';
import type { Locale } from '../../web/i18n.js';
import {
  BRAND_BACKGROUND,
  contrastRatio,
  LOGO_MAX_BYTES,
  MIN_CONTRAST,
  shownRatio,
  DISPLAY_NAME_MAX,
  type BrandingService,
  type LogoChange,
} from '../organizations/branding.js';
import type { BrandingIssues } from '../organizations/errors.js';
import { contextOf, localeOf, type SignedIn } from '../users/http.js';
import {
  BRANDING_MESSAGES,
  ratioText,
  type BrandingMessages,
  type BrandingProblem,
} from './branding-i18n.js';
import { format } from './i18n.js';
import {
  guardedRoute,
  pageRoute,
  pageSchema,
  registerPages,
  SETTINGS_POST,
  signedIn,
  type PageKit,
  type PageRequest,
} from './kit.js';

export interface DashboardBrandingPagesOptions {
  kit: PageKit;
  branding: Pick<BrandingService, 'get' | 'update'>;
}

/**
 * The logo travels base64-encoded in the urlencoded form (branding.js fills the field from the chosen
 * file; there is no multipart parser). The field may hold more than the largest logo, so that a file
 * too large is refused with its size rather than as a malformed form; the route's body limit bounds it.
 */
const LOGO_FIELD_MAX = Math.ceil((LOGO_MAX_BYTES * 4) / 3) * 4;
const BRANDING_BODY_LIMIT = 3 * LOGO_FIELD_MAX;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

const BrandingFormSchema = Type.Object(
  {
    _csrf: Type.Optional(Type.String({ maxLength: 200 })),
    displayName: Type.Optional(Type.String({ maxLength: DISPLAY_NAME_MAX * 4 })),
    brandColor: Type.Optional(Type.String({ maxLength: 100 })),
    logo: Type.Optional(Type.String({ maxLength: LOGO_FIELD_MAX })),
    removeLogo: Type.Optional(Type.String({ maxLength: 10 })),
  },
  { additionalProperties: false },
);

type FormIssues = Partial<Record<'displayName' | 'brandColor' | 'logo', string>>;
/** The organizations module's problems, and an upload that is not base64 (the form's own). */
type PageIssues = Omit<BrandingIssues, 'logo'> & {
  logo?: NonNullable<BrandingIssues['logo']> | { problem: 'unreadable' };
};

/** Each problem as the sentence shown beside its field, in the page's language. */
function describeIssues(issues: PageIssues, locale: Locale) {
  const messages = BRANDING_MESSAGES[locale];
  const text = (problem: BrandingProblem, values: Record<string, string | number> = {}) =>
    format(messages.problems[problem], values);
  const out: FormIssues = {};
  if (issues.displayName) {
    const issue = issues.displayName;
    out.displayName = text(issue.problem, issue.problem === 'too_long' ? { max: issue.max } : {});
  }
  if (issues.brandColor) {
    const issue = issues.brandColor;
    out.brandColor =
      issue.problem === 'contrast'
        ? text('contrast', {
            color: issue.color,
            ratio: ratioText(issue.ratio, locale),
            min: ratioText(issue.min, locale),
          })
        : text(issue.problem);
  }
  if (issues.logo) {
    const issue = issues.logo;
    out.logo =
      issue.problem === 'too_large'
        ? text('too_large', { size: Math.ceil(issue.bytes / 1024), max: LOGO_MAX_BYTES / 1024 })
        : text(issue.problem);
  }
  return out;
}

const BrandingRoute = pageSchema({});
const BrandingSaveRoute = pageSchema({ body: BrandingFormSchema });

/**
 * The branding page of the merchant dashboard: the name, brand colour and logo the
 * checkout shows. Every role reads it; owners and admins change it (`manageBranding`), audited by the
 * organizations module. Colours are refused below WCAG AA contrast with white, logos by their bytes.
 */
export async function brandingPages(app: App, options: DashboardBrandingPagesOptions): Promise<void> {
  registerPages(app, options, [
    guardedRoute('GET', '/dashboard/branding', BrandingRoute, signedIn, showBranding),
    pageRoute('POST', '/dashboard/branding', BrandingSaveRoute, saveBranding, {
      ...SETTINGS_POST,
      bodyLimit: BRANDING_BODY_LIMIT,
    }),
  ]);
}

const bm = (request: FastifyRequest): BrandingMessages => BRANDING_MESSAGES[localeOf(request)];

async function page(
  { kit, branding }: DashboardBrandingPagesOptions,
  request: FastifyRequest,
  reply: FastifyReply,
  current: SignedIn,
  status: number,
  extra: {
    saved?: boolean;
    error?: string;
    issues?: FormIssues;
    form?: { displayName: string; brandColor: string };
  } = {},
) {
  const messages = bm(request);
  const locale = localeOf(request);
  const saved = await branding.get(current.account.organization.id);
  if (!saved) throw new Error('the session’s organization is gone');
  return kit.render(request, reply, 'dashboard-branding', status, {
    title: () => messages.title,
    script: 'branding.js',
    nav: true,
    csrf: current.session.csrfToken,
    bm: messages,
    canManage: kit.may(current, 'manageBranding'),
    branding: saved,
    contrast:
      saved.brandColor === null
        ? undefined
        : format(messages.contrast, {
            ratio: ratioText(shownRatio(contrastRatio(saved.brandColor, BRAND_BACKGROUND)), locale),
          }),
    colorHint: format(messages.brandColorHint, { min: ratioText(MIN_CONTRAST, locale) }),
    logoHint: format(messages.logoHint, { max: LOGO_MAX_BYTES / 1024 }),
    logoMaxBytes: LOGO_MAX_BYTES,
    // What branding.js says before a file is sent; `{size}` is filled in by the script.
    clientText: {
      tooLarge: format(messages.problems.too_large, { max: LOGO_MAX_BYTES / 1024, size: '{size}' }),
      svg: messages.problems.svg,
      unsupported: messages.problems.unsupported,
      unreadable: messages.problems.unreadable,
    },
    form: extra.form ?? { displayName: saved.displayName, brandColor: saved.brandColor ?? '' },
    issues: extra.issues ?? {},
    error: extra.error,
    saved: extra.saved ?? false,
  });
}

async function showBranding(
  options: DashboardBrandingPagesOptions,
  request: PageRequest<typeof BrandingRoute>,
  reply: FastifyReply,
  current: SignedIn,
) {
  return page(options, request, reply, current, 200, { saved: request.query.notice === 'saved' });
}

async function saveBranding(
  options: DashboardBrandingPagesOptions,
  request: PageRequest<typeof BrandingSaveRoute>,
  reply: FastifyReply,
) {
  const messages = bm(request);
  const form = {
    displayName: request.body.displayName ?? '',
    brandColor: request.body.brandColor ?? '',
  };
  return options.kit.command(request, reply, {
    permission: 'manageBranding',
    refused: (current) => page(options, request, reply, current, 403, { error: messages.notPermitted, form }),
    run: async (current) => {
      const refused = (issues: PageIssues) =>
        page(options, request, reply, current, 400, {
          error: messages.fix,
          issues: describeIssues(issues, localeOf(request)),
          form,
        });
      const encoded = (request.body.logo ?? '').replace(/\s+/g, '');
      let logo: LogoChange = { action: 'keep' };
      if (request.body.removeLogo === 'true') logo = { action: 'remove' };
      else if (encoded !== '') {
        if (!BASE64.test(encoded)) return { reply: await refused({ logo: { problem: 'unreadable' } }) };
        logo = { action: 'set', bytes: new Uint8Array(Buffer.from(encoded, 'base64')) };
      }

      const result = await options.branding.update(
        current.account.organization.id,
        { displayName: form.displayName, brandColor: form.brandColor, logo },
        { actor: `user:${current.account.user.id}`, ...contextOf(request) },
      );
      if (!result.ok) {
        if (result.error.code === 'organization_not_found')
          throw new Error('the session’s organization is gone');
        return { reply: await refused(result.error.issues) };
      }
      return { path: '/dashboard/branding', notice: 'saved' };
    },
  });
}
