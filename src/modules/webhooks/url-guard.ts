import { lookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';
import type { Environment } from '../../db/schema.js';

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

/**
 * Only globally routable unicast addresses are targets. IPv4-mapped IPv6 is judged as the IPv4 address
 * it maps; NAT64, 6to4 and Teredo (which embed an IPv4 address) and every other special range are refused.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  return ipaddr.process(address).range() === 'unicast';
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

/** Registration: the syntax rules, then (unless private targets are allowed) the resolved addresses. */
export async function checkWebhookUrl(
  raw: string,
  environment: Environment,
  options: { resolver: HostResolver; allowPrivate: boolean },
): Promise<UrlCheck> {
  const syntax = checkUrlSyntax(raw, environment);
  if (!syntax.ok || options.allowPrivate) return syntax;
  const target = await resolveTarget(syntax.url, options);
  return target.ok ? syntax : target;
}
