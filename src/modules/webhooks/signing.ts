import { createHmac, randomBytes } from 'node:crypto';

export const SECRET_PREFIX = 'whsec_';
export const SIGNATURE_HEADER = 'service-signature';
export const NEXT_SIGNATURE_HEADER = 'service-signature-next';
export const TIMESTAMP_HEADER = 'service-timestamp';

/** `whsec_` and 32 random bytes in base64url. */
export function generateWebhookSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString('base64url')}`;
}

/**
 * Spec section 6: lowercase hex HMAC-SHA256, keyed with the whole secret string (`whsec_…`, UTF-8),
 * over the decimal timestamp, a period and the raw body bytes.
 */
export function signWebhook(secret: string, timestamp: number, body: Buffer): string {
  return createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex');
}

/**
 * The signature headers of one attempt. Outside a rotation grace period: `Service-Signature` with the
 * secret. During one: `Service-Signature` with the previous secret (receivers not yet updated keep
 * verifying) and `Service-Signature-Next` with the new one (receivers already updated verify that).
 */
export function signatureHeaders(
  body: Buffer,
  timestamp: number,
  secrets: { current: string; previous: string | null },
): Record<string, string> {
  const headers: Record<string, string> = { [TIMESTAMP_HEADER]: String(timestamp) };
  if (secrets.previous === null) {
    headers[SIGNATURE_HEADER] = signWebhook(secrets.current, timestamp, body);
  } else {
    headers[SIGNATURE_HEADER] = signWebhook(secrets.previous, timestamp, body);
    headers[NEXT_SIGNATURE_HEADER] = signWebhook(secrets.current, timestamp, body);
  }
  return headers;
}
