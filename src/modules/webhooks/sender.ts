import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { performance } from 'node:perf_hooks';
import { hostOf, resolveTarget, withinMs, type HostResolver, type ResolvedAddress } from './url-guard.js';

export const EXCERPT_BYTES = 1024;

export interface AttemptOutcome {
  /** Only an HTTP 200 acknowledges (spec section 6: "answers 200 to acknowledge"). */
  succeeded: boolean;
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
  responseExcerpt: string | null;
}

export interface SendOptions {
  url: string;
  headers: Record<string, string>;
  body: Buffer;
  timeoutMs: number;
  resolver: HostResolver;
  allowPrivate: boolean;
}

/**
 * Sends delivery attempts over kept-alive connections (ADR 0036). Connections are pooled per
 * origin and per checked address: each attempt resolves and checks the host first (product decision 31),
 * then takes a connection from the pool of the address it checked, so a pooled connection always goes to
 * an address that passed the check of the attempt using it, whatever the DNS says by then.
 */
export interface WebhookSender {
  /** One attempt; never throws. */
  send(options: SendOptions): Promise<AttemptOutcome>;
  /** Closes every pooled connection (a worker's stop); later sends open new ones. */
  close(): void;
}

export interface WebhookSenderOptions {
  /** Connections kept per origin and address: the per-endpoint bound of the dispatcher. */
  socketsPerTarget: number;
  /** An idle connection is closed after this long (below the usual 5 s keep-alive of servers). */
  idleMs?: number;
  /** Pools kept; the least recently used beyond this is dropped and its idle connections close. */
  maxTargets?: number;
}

export function createWebhookSender(options: WebhookSenderOptions): WebhookSender {
  const idleMs = options.idleMs ?? 4000;
  const maxTargets = options.maxTargets ?? 1000;
  const pools = new Map<string, http.Agent>();

  function poolFor(url: URL, address: ResolvedAddress): http.Agent {
    const key = `${url.protocol}//${url.host}@${address.address}`;
    let agent = pools.get(key);
    if (agent !== undefined) {
      pools.delete(key);
      pools.set(key, agent);
      return agent;
    }
    const settings: http.AgentOptions = {
      keepAlive: true,
      maxSockets: options.socketsPerTarget,
      maxFreeSockets: options.socketsPerTarget,
      // The timeout of a pooled socket: an idle one is closed after it (attempts have their own deadline).
      timeout: idleMs,
      scheduling: 'lifo',
    };
    agent = url.protocol === 'https:' ? new https.Agent(settings) : new http.Agent(settings);
    pools.set(key, agent);
    // A dropped pool is not destroyed: its attempts finish, then its idle connections time out.
    for (const oldest of pools.keys()) {
      if (pools.size <= maxTargets) break;
      pools.delete(oldest);
    }
    return agent;
  }

  return {
    async send(attempt) {
      const started = performance.now();
      const elapsed = () => Math.max(0, Math.round(performance.now() - started));
      let url: URL;
      try {
        url = new URL(attempt.url);
      } catch {
        return failure(elapsed(), 'invalid_url');
      }
      const deadline = started + attempt.timeoutMs;
      // The host's name servers are the receiver's too: a lookup that never answers ends at the deadline.
      const target = await withinMs(resolveTarget(url, attempt), deadline - performance.now());
      if (target === undefined) return failure(elapsed(), 'dns_failure');
      if (!target.ok)
        return failure(elapsed(), target.problem === 'private_target' ? 'private_target' : 'dns_failure');
      const agent = poolFor(url, target.address);
      let outcome = await post(url, target.address, agent, attempt, deadline, elapsed);
      // A kept-alive connection the receiver closed just as it was reused: once more, on another one.
      if (outcome === 'stale') outcome = await post(url, target.address, agent, attempt, deadline, elapsed);
      return outcome === 'stale' ? failure(elapsed(), 'connection_reset') : outcome;
    },

    close() {
      for (const agent of pools.values()) agent.destroy();
      pools.clear();
    },
  };
}

function failure(
  latencyMs: number,
  error: string,
  statusCode: number | null = null,
  excerpt: string | null = null,
): AttemptOutcome {
  return { succeeded: false, statusCode, latencyMs, error, responseExcerpt: excerpt };
}

/**
 * One request on a pooled connection to the checked address (a pinned `lookup` for a new one), redirects
 * never followed, ending at `deadline`. `stale`: a reused connection failed before any answer.
 */
function post(
  url: URL,
  address: ResolvedAddress,
  agent: http.Agent,
  options: SendOptions,
  deadline: number,
  elapsed: () => number,
): Promise<AttemptOutcome | 'stale'> {
  return new Promise<AttemptOutcome | 'stale'>((resolve) => {
    let settled = false;
    const finish = (outcome: AttemptOutcome | 'stale', keep = false) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      // A connection whose answer was read to its end goes back to the pool; any other is closed.
      if (!keep) request.destroy();
      resolve(outcome);
    };
    const client = url.protocol === 'https:' ? https : http;
    const request = client.request(url, {
      method: 'POST',
      agent,
      lookup: pinnedLookup(address),
      // SNI and certificate checks use the host name; an IP literal has no SNI.
      servername: url.protocol === 'https:' && !isIP(hostOf(url)) ? hostOf(url) : undefined,
      headers: {
        ...options.headers,
        'content-type': 'application/json',
        'content-length': String(options.body.length),
        'user-agent': 'payment-gateway-webhooks/1',
      },
    });
    const timer = setTimeout(
      () => finish(failure(elapsed(), 'timeout')),
      Math.max(0, deadline - performance.now()),
    );
    let answered = false;
    request.on('error', (error: NodeJS.ErrnoException) => {
      const reset = error.code === 'ECONNRESET' || error.code === 'EPIPE';
      finish(
        request.reusedSocket && !answered && reset ? 'stale' : failure(elapsed(), transportError(error)),
      );
    });
    request.on('response', (response) => {
      answered = true;
      const status = response.statusCode ?? 0;
      const chunks: Buffer[] = [];
      let size = 0;
      const done = (keep: boolean) => {
        const excerpt = sanitizeExcerpt(Buffer.concat(chunks));
        if (status === 200) {
          finish(
            { succeeded: true, statusCode: 200, latencyMs: elapsed(), error: null, responseExcerpt: excerpt },
            keep,
          );
        } else if (status >= 300 && status < 400) {
          finish(failure(elapsed(), 'redirect_not_followed', status, excerpt), keep);
        } else {
          const error = status >= 200 && status < 300 ? 'not_200' : `http_${status}`;
          finish(failure(elapsed(), error, status, excerpt), keep);
        }
      };
      response.on('data', (chunk: Buffer) => {
        if (size < EXCERPT_BYTES) chunks.push(chunk.subarray(0, EXCERPT_BYTES - size));
        size += chunk.length;
        // The excerpt is full: the rest is not read, and the connection is not reused.
        if (size >= EXCERPT_BYTES) done(false);
      });
      response.on('end', () => done(true));
      response.on('error', () => done(false));
    });
    request.end(options.body);
  });
}

/** Answers every lookup of the socket with the address that was checked. */
function pinnedLookup(target: ResolvedAddress): LookupFunction {
  return ((_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  }) as unknown as LookupFunction;
}

function transportError(error: NodeJS.ErrnoException): string {
  switch (error.code) {
    case 'ECONNREFUSED':
      return 'connection_refused';
    case 'ECONNRESET':
    case 'EPIPE':
      return 'connection_reset';
    case 'ETIMEDOUT':
      return 'timeout';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'dns_failure';
    default:
      return error.code?.startsWith('ERR_TLS') || error.code?.includes('CERT')
        ? 'tls_error'
        : 'network_error';
  }
}

/** At most 1 KB of the answer, as text without control characters; null when empty. */
export function sanitizeExcerpt(bytes: Buffer): string | null {
  let text = bytes.subarray(0, EXCERPT_BYTES).toString('utf8');
  // eslint-disable-next-line no-control-regex
  text = text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, '').replace(/\uFFFD+$/, '');
  while (Buffer.byteLength(text) > EXCERPT_BYTES) text = text.slice(0, -1);
  return text === '' ? null : text;
}
