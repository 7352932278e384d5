import { lookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';
import type { Environment } from '../../db/schema.js';
import { withinRequestBudget } from '../../shared/request-budget.js';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Turns a host name into addresses. Injectable: tests point a public-looking name at loopback. */
export interface HostResolver {
  resolve(host: string): Promise<ResolvedAddress[]>;
}

/** The system resolver, with static entries (like /etc/hosts) that win over it. */
export interface PinnableResolver extends HostResolver {
  pin(host: string, addresses: string[]): void;
  unpin(host: string): void;
}

export function createHostResolver(fallback: HostResolver['resolve'] = systemResolve): PinnableResolver {
  const pinned = new Map<string, ResolvedAddress[]>();
  return {
    async resolve(host) {
      return pinned.get(host.toLowerCase()) ?? fallback(host);
    },
    pin(host, addresses) {
      pinned.set(
        host.toLowerCase(),
        addresses.map((address) => ({ address, family: ipaddr.parse(address).kind() === 'ipv4' ? 4 : 6 })),
      );
    },
    unpin(host) {
      pinned.delete(host.toLowerCase());
    },
  };
}

async function systemResolve(host: string): Promise<ResolvedAddress[]> {
  const answers = await lookup(host, { all: true, verbatim: true });
  return answers.map((answer) => ({ address: answer.address, family: answer.family === 6 ? 6 : 4 }));
}

export type UrlProblem = 'invalid_url' | 'https_required' | 'credentials' | 'private_target' | 'unresolvable';

export type UrlCheck = { ok: true; url: URL } | { ok: false; problem: UrlProblem; message: string };

export const URL_PROBLEM_MESSAGES: Record<UrlProblem, string> = {
  invalid_url: 'must be an absolute http or https URL',
  https_required: 'must use https in live mode',
  credentials: 'must not carry a user name or password',
  private_target:
    'must not be or resolve to a private, loopback, link-local, unique-local, multicast, unspecified or CGNAT address',
  unresolvable: 'has a host name that does not resolve',
};

const fail = (problem: UrlProblem): UrlCheck => ({
  ok: false,
  problem,
  message: URL_PROBLEM_MESSAGES[problem],
});

/** The rules that need no network (product decision 31): scheme per environment, no credentials. */
export function checkUrlSyntax(raw: string, environment: Environment): UrlCheck {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return fail('invalid_url');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return fail('invalid_url');
  if (url.hostname === '') return fail('invalid_url');
  if (environment === 'live' && url.protocol !== 'https:') return fail('https_required');
  if (url.username !== '' || url.password !== '') return fail('credentials');
  return { ok: true, url };
}

/** The IPv6 global unicast space (RFC 4291 2.4): everything outside it is special or unassigned. */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');
/** Local-use NAT64 (RFC 8215); 64:ff9b::/96 is refused by its range already. */
const LOCAL_NAT64 = ipaddr.parseCIDR('64:ff9b:1::/48');

/**
 * Only globally routable unicast addresses are targets. An IPv4-mapped IPv6 address is judged as the
 * IPv4 address it maps. Every other IPv6 form that carries an IPv4 address is refused whatever it
 * carries: IPv4-compatible (`::a.b.c.d`, which URL parsing turns into `::7f00:1` and which ipaddr.js
 * calls plain unicast), SIIT, NAT64, 6to4 and Teredo, because a relay or the host's own stack may
 * deliver it to the embedded address. An ISATAP interface identifier is judged by the address it carries.
 */
export function isPublicAddress(address: string): boolean {
  const literal = dottedTailToHex(address);
  if (!ipaddr.isValid(literal)) return false;
  const parsed = ipaddr.process(literal);
  if (parsed.kind() === 'ipv4') return parsed.range() === 'unicast';
  const v6 = parsed as ipaddr.IPv6;
  if (v6.range() !== 'unicast') return false;
  if (!v6.match(GLOBAL_UNICAST_V6) || v6.match(LOCAL_NAT64)) return false;
  const parts = v6.parts;
  // ISATAP (RFC 5214): an interface identifier of 0000:5efe or 0200:5efe followed by an IPv4 address.
  if ((parts[4] === 0x0000 || parts[4] === 0x0200) && parts[5] === 0x5efe) {
    const high = parts[6] ?? 0;
    const low = parts[7] ?? 0;
    const embedded = `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;
    return ipaddr.IPv4.parse(embedded).range() === 'unicast';
  }
  return true;
}

/**
 * `::127.0.0.1` in hexadecimal (`::7f00:1`). ipaddr.js reads any dotted tail as IPv4-mapped, which
 * would judge an IPv4-compatible address as the IPv4 address instead of refusing it.
 */
function dottedTailToHex(address: string): string {
  const match = /^(.*:)(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(address);
  if (!match) return address;
  const [a, b, c, d] = match.slice(2).map(Number) as [number, number, number, number];
  if ([a, b, c, d].some((octet) => octet > 255)) return address;
  return `${match[1]}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
}

export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

export type TargetCheck =
  { ok: true; address: ResolvedAddress } | { ok: false; problem: UrlProblem; message: string };

/**
 * Resolves the URL's host once and checks every address; the caller connects to the returned address
 * only, so a DNS answer that changes between the check and the connection cannot reach another host.
 */
export async function resolveTarget(
  url: URL,
  options: { resolver: HostResolver; allowPrivate: boolean },
): Promise<TargetCheck> {
  const host = hostOf(url);
  let addresses: ResolvedAddress[];
  if (ipaddr.isValid(host)) {
    addresses = [{ address: host, family: ipaddr.parse(host).kind() === 'ipv4' ? 4 : 6 }];
  } else {
    try {
      addresses = await options.resolver.resolve(host);
    } catch {
      return { ok: false, problem: 'unresolvable', message: URL_PROBLEM_MESSAGES.unresolvable };
    }
  }
  const first = addresses[0];
  if (first === undefined) {
    return { ok: false, problem: 'unresolvable', message: URL_PROBLEM_MESSAGES.unresolvable };
  }
  if (!options.allowPrivate && !addresses.every((entry) => isPublicAddress(entry.address))) {
    return { ok: false, problem: 'private_target', message: URL_PROBLEM_MESSAGES.private_target };
  }
  return { ok: true, address: first };
}

/**
 * Whether an endpoint URL may resolve to a private address: with `WEBHOOK_ALLOW_PRIVATE_TARGETS`
 * (development and tests), or when its origin is one of `WEBHOOK_PRIVATE_TARGET_ORIGINS` (ADR 0059).
 */
export function privateTargetAllowed(
  raw: string,
  policy: { allowPrivateTargets: boolean; privateTargetOrigins?: readonly string[] },
): boolean {
  if (policy.allowPrivateTargets) return true;
  const origins = policy.privateTargetOrigins ?? [];
  if (origins.length === 0) return false;
  try {
    return origins.includes(new URL(raw).origin);
  } catch {
    return false;
  }
}

/**
 * Registration: the syntax rules, then (unless private targets are allowed) the resolved addresses. The
 * host's name servers are the merchant's: a lookup still unanswered after `timeoutMs`, or when the
 * request's time for calls to other systems runs out (ADR 0064), is a name that does not resolve, so a
 * request to register never waits on them longer.
 */
export async function checkWebhookUrl(
  raw: string,
  environment: Environment,
  options: { resolver: HostResolver; allowPrivate: boolean; timeoutMs?: number },
): Promise<UrlCheck> {
  const syntax = checkUrlSyntax(raw, environment);
  if (!syntax.ok || options.allowPrivate) return syntax;
  const target = await withinMs(resolveTarget(syntax.url, options), withinRequestBudget(options.timeoutMs));
  if (target === undefined)
    return { ok: false, problem: 'unresolvable', message: URL_PROBLEM_MESSAGES.unresolvable };
  return target.ok ? syntax : target;
}

/** `work`'s value, or undefined once `timeoutMs` have passed (never, without one). */
export function withinMs<T>(work: Promise<T>, timeoutMs: number | undefined): Promise<T | undefined> {
  if (timeoutMs === undefined) return work;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), Math.max(0, timeoutMs));
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}
