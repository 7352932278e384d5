import { canonicalIp } from './ip-address.js';

/**
 * The client's address: the request's `ip` as every listener computes it from `TRUSTED_PROXIES` (Fastify's
 * `trustProxy`, src/http/server.ts). `X-Forwarded-For` counts only when the direct peer is a trusted
 * proxy, and then the address is its right-most entry that is not a trusted proxy, so a client cannot
 * choose it by sending the header itself. The same address the rate limits, throttles and audit use; null
 * when it is not an address (a trusted proxy that forwarded something else).
 */
export function clientIp(request: { readonly ip: string }): string | null {
  return canonicalIp(request.ip);
}
