/**
 * The branding page of the merchant dashboard (issue 15 item 6): the display name, brand colour and logo
 * the checkout shows. Owners and admins change them (audited); developers and viewers read them; a colour
 * below WCAG AA contrast with white, an oversize logo, a file that is not PNG, JPEG or WebP by its bytes,
 * and any SVG are refused with a precise message, in both languages; posts need the session's CSRF token.
 */
import { describe, expect, it } from 'vitest';
import type { UserRole } from '../src/db/schema.js';
import { createActiveUser, createOrganization, csrfIn, textOf, WebClient } from './helpers/accounts.js';
import { accountGateway, db, t, useTestGateway } from './helpers/suite.js';
import { jpegLike, SCRIPTED_SVG, solidPng, webpLike } from './helpers/images.js';

useTestGateway(accountGateway('api,sandbox-acquirer'));

async function signedIn(organizationId: string, role: UserRole = 'owner') {
  const user = await createActiveUser(t, { organizationId, role });
  const client = new WebClient(t.urls.web);
  const login = await client.login(user.email, user.password);
  expect(login.status).toBe(303);
  return { client, userId: user.userId };
}

async function save(client: WebClient, form: Record<string, string>, lang = 'en') {
  const page = await client.get(`/dashboard/branding?lang=${lang}`);
  expect(page.status).toBe(200);
  return client.postForm(`/dashboard/branding?lang=${lang}`, {
    _csrf: csrfIn(page.text),
    displayName: textOf(page.text, 'current-name') ?? '',
    brandColor: '',
    ...form,
  });
}

async function stored(organizationId: string) {
  const row = await db()
    .selectFrom('organizations')
    .select(['name', 'display_name', 'brand_color'])
    .where('id', '=', organizationId)
    .executeTakeFirstOrThrow();
  const logo = await db()
    .selectFrom('organization_logos')
    .select(['sha256', 'content_type'])
    .where('organization_id', '=', organizationId)
    .executeTakeFirst();
  return { ...row, logo: logo ?? null };
}

async function auditEntries(organizationId: string) {
  return db()
    .selectFrom('audit_log')
    .select(['actor', 'action', 'target_type', 'target_id', 'before', 'after', 'request_id', 'ip'])
    .where('target_id', '=', organizationId)
    .where('action', '=', 'organization.branding_set')
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

const base64 = (bytes: Buffer) => bytes.toString('base64');
/** The error beside a field, as the page shows it (the template escapes it). */
const fieldError = (html: string, id: string) =>
  textOf(html, id)?.replaceAll('&#39;', "'").replaceAll('&quot;', '"');

describe('the branding page', () => {
  it('needs a session, for the page and the post', async () => {
    const anonymous = new WebClient(t.urls.web);
    const page = await anonymous.get('/dashboard/branding?lang=en');
    expect(page.status).toBe(303);
    expect(page.location).toMatch(/^\/login\?/);
    const post = await anonymous.postForm('/dashboard/branding?lang=en', { displayName: 'X' });
    expect(post.status).toBe(303);
    expect(post.location).toMatch(/^\/login\?/);
  });

  it('starts from the company name; an owner sets the name, colour and logo, audited', async () => {
    const organization = await createOrganization(t, { name: 'Anatolia Ticaret A.Ş.' });
    const { client, userId } = await signedIn(organization.id, 'owner');

    const home = await client.get('/dashboard?lang=en');
    expect(home.text).toContain('<a href="/dashboard/branding?lang=en" id="branding-link">Branding</a>');
    expect((await client.get('/dashboard?lang=tr')).text).toContain('id="branding-link">Marka</a>');

    const page = await client.get('/dashboard/branding?lang=en');
    expect(page.status).toBe(200);
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.headers.get('content-security-policy')).toContain("style-src 'self'");
    expect(page.text).not.toMatch(/style=|<script(?! src="\/assets\/branding\.js" defer>)/);
    expect(textOf(page.text, 'current-name')).toBe('Anatolia Ticaret A.Ş.');
    expect(textOf(page.text, 'current-color')).toBe('None: the gateway’s blue.');
    expect(textOf(page.text, 'current-logo')).toBe('No logo.');
    expect(page.text).toContain('value="Anatolia Ticaret A.Ş."');
    expect(page.text).toContain('id="branding-form"');

    const logo = solidPng(40, 20, [11, 92, 173]);
    const saved = await save(client, {
      displayName: '  Anatolia Shop  ',
      brandColor: '#1A5E20',
      logo: base64(logo),
    });
    expect(saved.status, saved.text).toBe(303);
    expect(saved.location).toBe('/dashboard/branding?lang=en&notice=saved');
    const after = await stored(organization.id);
    expect(after).toMatchObject({
      name: 'Anatolia Ticaret A.Ş.',
      display_name: 'Anatolia Shop',
      brand_color: '#1a5e20',
    });
    expect(after.logo?.content_type).toBe('image/png');

    const shown = await client.get('/dashboard/branding?lang=en&notice=saved');
    expect(textOf(shown.text, 'notice')).toBe('Branding saved. Checkout pages show it from now on.');
    expect(textOf(shown.text, 'current-name')).toBe('Anatolia Shop');
    expect(shown.text).toContain('<rect width="64" height="28" rx="4" fill="#1a5e20"/>');
    expect(textOf(shown.text, 'current-contrast')).toMatch(/^Contrast with white: \d+\.\d+:1$/);
    const logoPath = `/checkout/logos/${after.logo?.sha256}.png`;
    expect(shown.text).toContain(
      `<img class="logo-preview" id="logo-preview" src="${logoPath}" alt="Current logo">`,
    );
    const served = await fetch(`${t.urls.web}${logoPath}`);
    expect(served.status).toBe(200);
    expect(Buffer.from(await served.arrayBuffer()).equals(logo)).toBe(true);

    const entries = await auditEntries(organization.id);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      actor: `user:${userId}`,
      target_type: 'organization',
      before: { displayName: 'Anatolia Ticaret A.Ş.', brandColor: null, logo: null },
      after: {
        displayName: 'Anatolia Shop',
        brandColor: '#1a5e20',
        logo: { sha256: after.logo?.sha256, contentType: 'image/png' },
      },
    });
    expect(entries[0]?.request_id).toMatch(/^req_/);
    expect(entries[0]?.ip).toBe(client.ip);

    // Saving the same values changes nothing and records nothing; the logo is kept when none is sent.
    expect((await save(client, { displayName: 'Anatolia Shop', brandColor: '#1a5e20' })).status).toBe(303);
    expect(await auditEntries(organization.id)).toHaveLength(1);
    expect((await stored(organization.id)).logo?.sha256).toBe(after.logo?.sha256);

    // JPEG and WebP replace it; removing it and clearing the colour go back to the gateway's look.
    for (const [bytes, type] of [
      [jpegLike(), 'image/jpeg'],
      [webpLike(), 'image/webp'],
    ] as const) {
      expect((await save(client, { displayName: 'Anatolia Shop', logo: base64(bytes) })).status).toBe(303);
      expect((await stored(organization.id)).logo?.content_type).toBe(type);
    }
    const removed = await save(client, { displayName: 'Anatolia Shop', brandColor: '', removeLogo: 'true' });
    expect(removed.status).toBe(303);
    expect(await stored(organization.id)).toMatchObject({ brand_color: null, logo: null });
    const last = (await auditEntries(organization.id)).at(-1);
    expect(last?.after).toEqual({ displayName: 'Anatolia Shop', brandColor: null, logo: null });
    expect(await auditEntries(organization.id)).toHaveLength(4);
    expect((await fetch(`${t.urls.web}${logoPath}`)).status).toBe(404);
  });

  it('refuses bad and low-contrast colours, bad names, oversize, unknown and SVG logos, all at once and precisely', async () => {
    const organization = await createOrganization(t, { name: 'Kept Name Ltd' });
    const { client } = await signedIn(organization.id, 'admin');
    const before = await stored(organization.id);

    const refused = async (form: Record<string, string>, lang = 'en') => {
      const answer = await save(client, form, lang);
      expect(answer.status, answer.text.slice(0, 500)).toBe(400);
      expect(answer.headers.get('content-type')).toContain('text/html');
      expect(await stored(organization.id)).toEqual(before);
      return answer.text;
    };

    let html = await refused({ brandColor: '#777777' });
    expect(textOf(html, 'form-error')).toBe('The branding was not saved. Fix the fields below.');
    expect(fieldError(html, 'brand-color-error')).toBe(
      '#777777 is too light: its contrast ratio with white is 4.47:1, and the checkout needs at least 4.5:1 (WCAG AA) so that white text on it, and it on white, stay readable. Choose a darker colour.',
    );
    expect(html).toContain('aria-invalid="true"');
    expect(html).toContain('value="#777777"');
    // Upper case is the same colour; the message names it as stored.
    html = await refused({ brandColor: '#FFD700' });
    expect(fieldError(html, 'brand-color-error')).toMatch(
      /^#ffd700 is too light: its contrast ratio with white is 1\.4:1, /,
    );

    for (const color of ['red', '#12345g', '0b5cad', '#abc', '#0b5cad0'])
      expect(fieldError(await refused({ brandColor: color }), 'brand-color-error'), color).toBe(
        'Enter the colour as # and six hexadecimal digits, for example #0b5cad.',
      );

    expect(fieldError(await refused({ displayName: '   ' }), 'display-name-error')).toBe(
      'Enter the name your customers know you by.',
    );
    expect(fieldError(await refused({ displayName: 'x'.repeat(201) }), 'display-name-error')).toBe(
      'The name can have at most 200 characters.',
    );
    expect(fieldError(await refused({ displayName: 'Shop\u202eevil' }), 'display-name-error')).toBe(
      'The name cannot contain control characters or text-direction marks.',
    );

    const oversize = Buffer.concat([solidPng(4, 4, [0, 0, 0]), Buffer.alloc(300 * 1024)]);
    expect(fieldError(await refused({ logo: base64(oversize) }), 'logo-error')).toBe(
      `The logo is ${Math.ceil(oversize.length / 1024)} KB; the largest allowed is 256 KB.`,
    );
    const unsupported =
      'The logo must be a PNG, JPEG or WebP image. The file’s contents are checked, not its name or type.';
    expect(
      fieldError(
        await refused({ logo: base64(Buffer.from('GIF89a\u0001\u0000\u0001\u0000')) }),
        'logo-error',
      ),
    ).toBe(unsupported);
    expect(
      fieldError(
        await refused({ logo: base64(Buffer.from('<html><script>alert(1)</script></html>')) }),
        'logo-error',
      ),
    ).toBe(unsupported);
    const svg =
      'SVG logos are not accepted, because an SVG file can carry script. Upload a PNG, JPEG or WebP image.';
    expect(fieldError(await refused({ logo: base64(Buffer.from(SCRIPTED_SVG)) }), 'logo-error')).toBe(svg);
    expect(
      fieldError(await refused({ logo: base64(Buffer.from(`\uFEFF ${SCRIPTED_SVG}`)) }), 'logo-error'),
    ).toBe(svg);
    expect(fieldError(await refused({ logo: 'not base64!' }), 'logo-error')).toBe(
      'The logo upload could not be read. Choose the file again.',
    );

    // Every problem at once, each beside its field.
    html = await refused({ displayName: '', brandColor: '#eeeeee', logo: base64(Buffer.from(SCRIPTED_SVG)) });
    expect(textOf(html, 'display-name-error')).toBeTruthy();
    expect(textOf(html, 'brand-color-error')).toContain('#eeeeee is too light');
    expect(fieldError(html, 'logo-error')).toBe(svg);

    // In Turkish, with the Turkish decimal comma.
    html = await refused({ brandColor: '#777777' }, 'tr');
    expect(textOf(html, 'form-error')).toBe('Marka ayarları kaydedilmedi. Aşağıdaki alanları düzeltin.');
    expect(textOf(html, 'brand-color-error')).toBe(
      '#777777 çok açık: beyazla kontrast oranı 4,47:1; ödeme sayfası, üzerindeki beyaz yazının ve beyaz üzerindeki kendisinin okunabilmesi için en az 4,5:1 ister (WCAG AA). Daha koyu bir renk seçin.',
    );
    html = await refused({ logo: base64(Buffer.from(SCRIPTED_SVG)) }, 'tr');
    expect(textOf(html, 'logo-error')).toContain('SVG logolar kabul edilmez');

    expect(await auditEntries(organization.id)).toHaveLength(0);
    // #767676 is exactly above the limit.
    expect((await save(client, { brandColor: '#767676' })).status).toBe(303);
    expect((await stored(organization.id)).brand_color).toBe('#767676');
  });

  it('is read by every role and changed only by owners and admins', async () => {
    const organization = await createOrganization(t, { name: 'Roles Ltd' });
    for (const role of ['owner', 'admin'] as const) {
      const { client } = await signedIn(organization.id, role);
      expect((await save(client, { displayName: `Set by ${role}` })).status, role).toBe(303);
      expect((await stored(organization.id)).display_name).toBe(`Set by ${role}`);
    }
    for (const role of ['developer', 'viewer'] as const) {
      const { client } = await signedIn(organization.id, role);
      const page = await client.get('/dashboard/branding?lang=en');
      expect(page.status, role).toBe(200);
      expect(textOf(page.text, 'current-name')).toBe('Set by admin');
      expect(page.text).not.toContain('id="branding-form"');
      expect(textOf(page.text, 'read-only')).toBe(
        'Your role can see the branding but not change it. Ask an owner or an admin.',
      );
      const post = await client.postForm('/dashboard/branding?lang=en', {
        _csrf: csrfIn(page.text),
        displayName: 'Hijacked',
        brandColor: '#000000',
      });
      expect(post.status, role).toBe(403);
      expect(textOf(post.text, 'form-error')).toBe(
        'Your role cannot change the branding. Ask an owner or an admin.',
      );
      const tr = await client.get('/dashboard/branding?lang=tr');
      expect(textOf(tr.text, 'read-only')).toContain('Rolünüz marka ayarlarını görebilir');
    }
    expect((await stored(organization.id)).display_name).toBe('Set by admin');
    expect(await auditEntries(organization.id)).toHaveLength(2);
  });

  it('refuses a post without the session’s CSRF token, and changes only the session’s organization', async () => {
    const organization = await createOrganization(t, { name: 'Csrf Ltd' });
    const other = await createOrganization(t, { name: 'Other Ltd' });
    const { client } = await signedIn(organization.id, 'owner');
    for (const form of [{}, { _csrf: 'forged' }] as Record<string, string>[]) {
      const post = await client.postForm('/dashboard/branding?lang=en', { ...form, displayName: 'Forged' });
      expect(post.status).toBe(403);
      expect(textOf(post.text, 'message-body')).toMatch(/expired|form/i);
    }
    // Another session's token is not this session's.
    const { client: stranger } = await signedIn(other.id, 'owner');
    const theirs = csrfIn((await stranger.get('/dashboard/branding?lang=en')).text);
    expect(
      (await client.postForm('/dashboard/branding?lang=en', { _csrf: theirs, displayName: 'Forged' })).status,
    ).toBe(403);
    expect((await stored(organization.id)).display_name).toBe('Csrf Ltd');

    // A form field naming another organization is not a field at all.
    const page = await client.get('/dashboard/branding?lang=en');
    const smuggled = await client.postForm('/dashboard/branding?lang=en', {
      _csrf: csrfIn(page.text),
      displayName: 'Mine',
      organizationId: other.id,
    });
    expect(smuggled.status).toBe(400);
    expect((await save(client, { displayName: 'Mine' })).status).toBe(303);
    expect((await stored(organization.id)).display_name).toBe('Mine');
    expect((await stored(other.id)).display_name).toBe('Other Ltd');
  });
});
