import ipaddr from 'ipaddr.js';

/**
 * The address a throttle counts a client under. An IPv4 address is itself (an IPv4-mapped IPv6 address
 * is its IPv4 address). An IPv6 address is its /64: one subscriber line or one host gets a whole /64 and
 * can pick a fresh address in it for every request, so counting full IPv6 addresses would give each
 * attacker 2^64 free budgets (docs/decisions/0072). Anything unparsable is counted as it is.
 */
export function throttleAddress(ip: string): string {
  if (!ipaddr.isValid(ip)) return ip;
  const parsed = ipaddr.parse(ip);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const v6 = parsed as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().toString();
  return `${v6.parts
    .slice(0, 4)
    .map((part) => part.toString(16))
    .join(':')}::/64`;
}
