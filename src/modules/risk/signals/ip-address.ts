import ipaddr from 'ipaddr.js';

/**
 * An address in its canonical text (`8.8.8.8`, `2001:4860:4860::8888`), an IPv4-mapped IPv6 address as
 * its IPv4 address; null for anything else. IPv4 must be four decimal parts: the legacy forms `ipaddr.js`
 * also reads (`3232235777`, `0x8.8.8.8`, `010.0.0.1`) are refused rather than guessed at.
 */
export function canonicalIp(text: string | null | undefined): string | null {
  const parsed = parseIp(text);
  return parsed === undefined ? null : parsed.toString();
}

/** Whether an address (canonical or not) is a public unicast one, the only kind with a country. */
export function isPublicIp(text: string | null | undefined): boolean {
  return parseIp(text)?.range() === 'unicast';
}

function parseIp(text: string | null | undefined): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  if (text === null || text === undefined) return undefined;
  if (ipaddr.IPv4.isValidFourPartDecimal(text)) return ipaddr.IPv4.parse(text);
  if (!ipaddr.IPv6.isValid(text)) return undefined;
  const v6 = ipaddr.IPv6.parse(text);
  return v6.isIPv4MappedAddress() ? v6.toIPv4Address() : v6;
}
