import { createHash } from 'node:crypto';
import type { Kdb } from '../../db/database.js';
import type { LogoContentType } from '../../db/schema.js';
import type { Clock } from '../../shared/clock.js';
import { err, ok, type Result } from '../../shared/result.js';
import type { AuditLog } from '../audit/service.js';
import type { BrandingError, BrandingIssues } from './errors.js';
import { deleteLogo, findBrandingRow, findLogoByHash, putLogo, setBrandingFields } from './repository.js';
import type { Actor } from './types.js';

/** The longest display name (the company name's limit, which is where it starts from). */
export const DISPLAY_NAME_MAX = 200;
/** The largest logo accepted, in bytes. */
export const LOGO_MAX_BYTES = 256 * 1024;
/** WCAG 2 AA for normal text: the brand colour against white, both ways round (docs/checkout.md). */
export const MIN_CONTRAST = 4.5;
/** What the checkout puts the brand colour next to: white text on it, and it on a white header. */
export const BRAND_BACKGROUND = '#ffffff';

export const LOGO_EXTENSIONS: Record<LogoContentType, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/webp': 'webp',
};

export interface Branding {
  organizationId: string;
  displayName: string;
  /** `#rrggbb`; null is the gateway's own colour. */
  brandColor: string | null;
  logo: { sha256: string; contentType: LogoContentType; path: string } | null;
}

export type LogoChange = { action: 'keep' } | { action: 'remove' } | { action: 'set'; bytes: Uint8Array };

export interface BrandingInput {
  displayName: string;
  /** `#rrggbb` in either case, or empty for the gateway's own colour. */
  brandColor: string;
  logo: LogoChange;
}

export interface BrandingService {
  get(organizationId: string): Promise<Branding | undefined>;
  /** Checks every field (all problems at once), then changes what changed, audited, in one transaction. */
  update(organizationId: string, input: BrandingInput, by: Actor): Promise<Result<Branding, BrandingError>>;
  /** A logo by its content hash, for the checkout's logo route. */
  logo(sha256: string): Promise<{ bytes: Uint8Array; contentType: LogoContentType } | undefined>;
}

/** The path the checkout serves a logo from, named by its content so that it can be cached for good. */
export function logoPath(sha256: string, contentType: LogoContentType): string {
  return `/checkout/logos/${sha256}.${LOGO_EXTENSIONS[contentType]}`;
}

/** WCAG 2 relative luminance of an sRGB colour `#rrggbb`. */
export function relativeLuminance(hex: string): number {
  const channel = (offset: number) => {
    const c = Number.parseInt(hex.slice(offset, offset + 2), 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
}

/** WCAG 2 contrast ratio of two colours `#rrggbb`, from 1 to 21. */
export function contrastRatio(a: string, b: string): number {
  const [light, dark] = [relativeLuminance(a), relativeLuminance(b)].sort((x, y) => y - x) as [
    number,
    number,
  ];
  return (light + 0.05) / (dark + 0.05);
}

/** A ratio as people read it, never rounded up past the limit it failed (4.499 is "4.49"). */
export function shownRatio(ratio: number): number {
  return Math.floor(ratio * 100) / 100;
}

const COLOR = /^#[0-9a-f]{6}$/;

/** A colour the checkout may use: `#rrggbb` with enough contrast against white. */
export function isUsableBrandColor(color: string): boolean {
  return COLOR.test(color) && contrastRatio(color, BRAND_BACKGROUND) >= MIN_CONTRAST;
}

/**
 * What the bytes are, by their magic numbers only (the declared type and the file name are never
 * trusted): PNG, JPEG or WebP; `svg` for an SVG or other XML document (refused: it can carry script);
 * undefined for anything else.
 */
export function sniffLogo(bytes: Uint8Array): LogoContentType | 'svg' | undefined {
  const starts = (signature: number[], at = 0) => signature.every((byte, i) => bytes[at + i] === byte);
  if (starts([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (starts([0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (starts([0x52, 0x49, 0x46, 0x46]) && starts([0x57, 0x45, 0x42, 0x50], 8)) return 'image/webp';
  const head = new TextDecoder('utf-8', { fatal: false })
    .decode(bytes.subarray(0, 512))
    .replace(/^\uFEFF/, '')
    .trimStart()
    .toLowerCase();
  if (head.startsWith('<?xml') || head.startsWith('<svg') || head.startsWith('<!doctype svg')) return 'svg';
  if (head.startsWith('<!--') && head.includes('<svg')) return 'svg';
  return undefined;
}

// Control characters and the bidirectional overrides that could make a name read as another.
const FORBIDDEN_IN_NAME = /[\p{Cc}\u200e\u200f\u202a-\u202e\u2066-\u2069]/u;

/** A logo change once checked: a new logo carries the type its bytes proved and its hash. */
export type CheckedLogo =
  | { action: 'keep' }
  | { action: 'remove' }
  | { action: 'set'; bytes: Uint8Array; contentType: LogoContentType; sha256: string };

/** Every problem of the input at once, and the values to store. */
export function checkBranding(
  input: BrandingInput,
):
  | { ok: true; displayName: string; brandColor: string | null; logo: CheckedLogo }
  | { ok: false; issues: BrandingIssues } {
  const issues: BrandingIssues = {};
  const displayName = input.displayName.trim();
  if (displayName === '') issues.displayName = { problem: 'required' };
  else if ([...displayName].length > DISPLAY_NAME_MAX)
    issues.displayName = { problem: 'too_long', max: DISPLAY_NAME_MAX };
  else if (FORBIDDEN_IN_NAME.test(displayName)) issues.displayName = { problem: 'control_characters' };

  const raw = input.brandColor.trim().toLowerCase();
  let brandColor: string | null = null;
  if (raw !== '') {
    if (!COLOR.test(raw)) issues.brandColor = { problem: 'format' };
    else {
      const ratio = contrastRatio(raw, BRAND_BACKGROUND);
      if (ratio < MIN_CONTRAST)
        issues.brandColor = { problem: 'contrast', color: raw, ratio: shownRatio(ratio), min: MIN_CONTRAST };
      else brandColor = raw;
    }
  }

  let logo: CheckedLogo = input.logo.action === 'set' ? { action: 'keep' } : input.logo;
  if (input.logo.action === 'set') {
    const { bytes } = input.logo;
    const kind = sniffLogo(bytes);
    if (bytes.length === 0) issues.logo = { problem: 'empty' };
    else if (bytes.length > LOGO_MAX_BYTES)
      issues.logo = { problem: 'too_large', bytes: bytes.length, max: LOGO_MAX_BYTES };
    else if (kind === 'svg') issues.logo = { problem: 'svg' };
    else if (kind === undefined) issues.logo = { problem: 'unsupported' };
    else
      logo = { ...input.logo, contentType: kind, sha256: createHash('sha256').update(bytes).digest('hex') };
  }

  if (Object.keys(issues).length > 0) return { ok: false, issues };
  return { ok: true, displayName, brandColor, logo };
}

type BrandingRow = NonNullable<Awaited<ReturnType<typeof findBrandingRow>>>;

function toBranding(row: BrandingRow): Branding {
  return {
    organizationId: row.id,
    displayName: row.display_name,
    brandColor: row.brand_color,
    logo:
      row.sha256 === null || row.content_type === null
        ? null
        : { sha256: row.sha256, contentType: row.content_type, path: logoPath(row.sha256, row.content_type) },
  };
}

const forAudit = (branding: Branding) => ({
  displayName: branding.displayName,
  brandColor: branding.brandColor,
  logo: branding.logo ? { sha256: branding.logo.sha256, contentType: branding.logo.contentType } : null,
});

/** The merchant's branding of the checkout: display name, brand colour and logo. */
export function createBrandingService(deps: { db: Kdb; clock: Clock; audit: AuditLog }): BrandingService {
  const { db, clock, audit } = deps;
  return {
    async get(organizationId) {
      const row = await findBrandingRow(db, organizationId);
      return row ? toBranding(row) : undefined;
    },

    async update(organizationId, input, by) {
      const checked = checkBranding(input);
      if (!checked.ok) return err({ code: 'invalid_branding', issues: checked.issues });
      return db.transaction().execute(async (trx): Promise<Result<Branding, BrandingError>> => {
        const row = await findBrandingRow(trx, organizationId, { forUpdate: true });
        if (!row) return err({ code: 'organization_not_found', id: organizationId });
        const before = toBranding(row);
        const now = clock.now();
        const { logo } = checked;
        const fieldsChanged =
          checked.displayName !== before.displayName || checked.brandColor !== before.brandColor;
        const logoChanged =
          (logo.action === 'remove' && before.logo !== null) ||
          (logo.action === 'set' && logo.sha256 !== before.logo?.sha256);
        if (!fieldsChanged && !logoChanged) return ok(before);

        await setBrandingFields(trx, organizationId, {
          displayName: checked.displayName,
          brandColor: checked.brandColor,
          now,
        });
        if (logo.action === 'remove') await deleteLogo(trx, organizationId);
        if (logo.action === 'set' && logoChanged) {
          const { sha256, contentType, bytes } = logo;
          await putLogo(trx, { organizationId, sha256, contentType, bytes, now });
        }
        const after = toBranding((await findBrandingRow(trx, organizationId)) as BrandingRow);
        await audit.record(trx, {
          ...by,
          action: 'organization.branding_set',
          targetType: 'organization',
          targetId: organizationId,
          organizationId,
          before: forAudit(before),
          after: forAudit(after),
        });
        return ok(after);
      });
    },

    async logo(sha256) {
      if (!/^[0-9a-f]{64}$/.test(sha256)) return undefined;
      const row = await findLogoByHash(db, sha256);
      return row ? { bytes: row.bytes, contentType: row.content_type } : undefined;
    },
  };
}
