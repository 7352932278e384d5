import type { App } from '../../http/server.js';
import { APPLY_MESSAGES, pickLocale } from '../../web/i18n.js';
import { jsonForScript, type Renderer } from '../../web/render.js';
import { APPLICATION_LIMITS, VERTICALS } from './schemas.js';

const FIELDS = [
  {
    name: 'companyName',
    kind: 'text',
    required: true,
    maxLength: APPLICATION_LIMITS.shortText,
    autocomplete: 'organization',
  },
  {
    name: 'jurisdiction',
    kind: 'text',
    required: true,
    maxLength: APPLICATION_LIMITS.jurisdiction,
    autocomplete: 'country-name',
  },
  { name: 'vertical', kind: 'select', required: true },
  {
    name: 'verticalOther',
    kind: 'text',
    required: true,
    maxLength: APPLICATION_LIMITS.shortText,
    autocomplete: 'off',
  },
  { name: 'monthlyVolumeUSD', kind: 'number', required: true, autocomplete: 'off' },
  {
    name: 'currentAcquirer',
    kind: 'text',
    required: false,
    maxLength: APPLICATION_LIMITS.shortText,
    autocomplete: 'off',
  },
  { name: 'whySwitching', kind: 'textarea', required: false, maxLength: APPLICATION_LIMITS.whySwitching },
  {
    name: 'contactName',
    kind: 'text',
    required: true,
    maxLength: APPLICATION_LIMITS.shortText,
    autocomplete: 'name',
  },
  {
    name: 'contactEmail',
    kind: 'email',
    required: true,
    maxLength: APPLICATION_LIMITS.email,
    autocomplete: 'email',
  },
  {
    name: 'telegram',
    kind: 'text',
    required: false,
    maxLength: APPLICATION_LIMITS.telegram,
    autocomplete: 'off',
  },
] as const;

/** The public application form (v0.2: "The application form posts to /v1/applications"). */
export async function applicationPage(app: App, options: { renderer: Renderer }): Promise<void> {
  app.get('/', { schema: { hide: true } }, async (request, reply) => {
    const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?')) : '';
    return reply.redirect(`/apply${query}`);
  });

  app.get(
    '/apply',
    { schema: { hide: true, querystring: { type: 'object', properties: { lang: { type: 'string' } } } } },
    async (request, reply) => {
      const lang = (request.query as { lang?: string }).lang;
      const locale = pickLocale(lang, request.headers['accept-language']);
      const messages = APPLY_MESSAGES[locale];
      const html = options.renderer.render('apply', {
        locale,
        otherLocale: locale === 'en' ? 'tr' : 'en',
        languageSwitch: messages.languageSwitch,
        title: messages.title,
        script: 'apply.js',
        messages,
        fields: FIELDS,
        verticals: VERTICALS,
        messagesJson: jsonForScript({ issues: messages.issues, formErrors: messages.formErrors }),
      });
      return reply
        .type('text/html; charset=utf-8')
        .header('cache-control', 'no-store')
        .header('content-language', locale)
        .send(html);
    },
  );
}
