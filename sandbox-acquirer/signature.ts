import { createHmac } from 'node:crypto';
import { safeEqual } from '../src/shared/crypto.js';

/** `Acquirer-Signature`: lowercase hex HMAC-SHA256, keyed with the secret, of `<timestamp>.<raw body>`. */
export function signNotification(secret: string, timestamp: string, rawBody: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${rawBody}`).digest('hex');
}

/** Whether a notification's signature is right (constant time). Freshness is the receiver's call. */
export function verifyNotificationSignature(
  secret: string,
  timestamp: string,
  rawBody: string,
  signature: string,
): boolean {
  return safeEqual(signNotification(secret, timestamp, rawBody), signature);
}
