import { Type } from 'typebox';
import { ApiError } from '../../http/errors.js';
import type { App } from '../../http/server.js';
import { LOGO_EXTENSIONS, type BrandingService } from '../organizations/branding.js';
import { brandStylesheet } from './brand.js';

export interface CheckoutBrandRoutesOptions {
  branding: Pick<BrandingService, 'logo'>;
}

/** The routes live under this prefix (index.ts), on the checkout's origin. */
export const CHECKOUT_BRAND_PREFIX = '/checkout';
/** Named by their content: the same URL is always the same bytes. */
const IMMUTABLE = 'public, max-age=31536000, immutable';

const FileParamsSchema = Type.Object({ file: Type.String({ minLength: 1, maxLength: 80 }) });
const LOGO_FILE = /^([0-9a-f]{64})\.(png|jpg|webp)$/;

/**
 * What the checkout pages load of the merchant's branding: the logo by its content
 * hash, with the type its magic bytes proved and `nosniff`, and the brand colour's stylesheet. Both are
 * public (a checkout page has no session) and cached for good; anything else here is 404 (the envelope).
 */
export async function checkoutBrandRoutes(app: App, options: CheckoutBrandRoutesOptions): Promise<void> {
  const notFound = () => new ApiError('not_found', 'No such file.');

  app.get('/logos/:file', { schema: { hide: true, params: FileParamsSchema } }, async (request, reply) => {
    const match = LOGO_FILE.exec(request.params.file);
    if (!match?.[1]) throw notFound();
    const logo = await options.branding.logo(match[1]);
    if (!logo || LOGO_EXTENSIONS[logo.contentType] !== match[2]) throw notFound();
    const etag = `"${match[1]}"`;
    reply.header('etag', etag).header('cache-control', IMMUTABLE);
    if (request.headers['if-none-match'] === etag) return reply.code(304).send();
    return reply
      .type(logo.contentType)
      .header('x-content-type-options', 'nosniff')
      .send(Buffer.from(logo.bytes.buffer, logo.bytes.byteOffset, logo.bytes.byteLength));
  });

  app.get('/brand/:file', { schema: { hide: true, params: FileParamsSchema } }, async (request, reply) => {
    const css = brandStylesheet(request.params.file);
    if (css === undefined) throw notFound();
    return reply
      .type('text/css; charset=utf-8')
      .header('x-content-type-options', 'nosniff')
      .header('cache-control', IMMUTABLE)
      .send(css);
  });
}
