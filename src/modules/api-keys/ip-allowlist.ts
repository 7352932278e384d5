import ipaddr from 'ipaddr.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/** A parsed `allowedIps` entry. */
export type CidrRange = [Address, number];

const PREFIX = /^\d{1,3}$/;

/**
 * The canonical form of an `allowedIps` entry, or undefined when it is not one: a CIDR (`10.0.0.0/8`,
 * `2001:db8::/32`) or a single address (`203.0.113.7` is `203.0.113.7/32`). Host bits are cleared
 * (`10.1.2.3/8` is `10.0.0.0/8`, the same set of addresses), IPv6 is written as RFC 5952 says, and an
 * IPv4-mapped IPv6 range (`::ffff:10.0.0.0/104`) becomes the IPv4 range it denotes. Only dotted-quad
 * IPv4 is accepted: `127.1` or `010.0.0.1` are ambiguous and refused.
 */
export function normalizeCidr(entry: string): string | undefined {
  const parts = entry.split('/');
  if (parts.length > 2) return undefined;
  const [addressText = '', prefixText] = parts;
  let address: Address;
  if (ipaddr.IPv4.isValidFourPartDecimal(addressText)) address = ipaddr.IPv4.parse(addressText);
  else if (addressText.includes(':') && !addressText.includes('%') && ipaddr.IPv6.isValid(addressText)) {
    address = ipaddr.IPv6.parse(addressText);
  } else return undefined;

  const maxPrefix = address.kind() === 'ipv4' ? 32 : 128;
  let prefix = maxPrefix;
  if (prefixText !== undefined) {
    if (!PREFIX.test(prefixText)) return undefined;
    prefix = Number(prefixText);
    if (prefix > maxPrefix) return undefined;
  }
  if (address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress() && prefix >= 96) {
    address = (address as ipaddr.IPv6).toIPv4Address();
    prefix -= 96;
  }
  const cidr = `${address.toString()}/${prefix}`;
  const network =
    address.kind() === 'ipv4'
      ? ipaddr.IPv4.networkAddressFromCIDR(cidr).toString()
      : ipaddr.IPv6.networkAddressFromCIDR(cidr).toRFC5952String();
  return `${network}/${prefix}`;
}

/**
 * Parses stored entries once, so that each request only compares bits. Entries are canonical when the
 * API wrote them; anything else is normalized here, and an entry that is not a range matches nothing
 * (the list still restricts: it fails closed).
 */
export function parseAllowlist(entries: readonly string[]): CidrRange[] {
  const ranges: CidrRange[] = [];
  for (const entry of entries) {
    const cidr = normalizeCidr(entry);
    if (cidr !== undefined) ranges.push(ipaddr.parseCIDR(cidr));
  }
  return ranges;
}

/**
 * Whether the client address falls in one of the ranges. An IPv4 client reached over an IPv6 socket
 * (`::ffff:203.0.113.7`) is compared as the IPv4 address it is.
 */
export function isAddressAllowed(ranges: readonly CidrRange[], clientIp: string): boolean {
  let client: Address;
  try {
    client = ipaddr.process(clientIp);
  } catch {
    return false;
  }
  return ranges.some(
    ([network, prefix]) => network.kind() === client.kind() && client.match(network, prefix),
  );
}
