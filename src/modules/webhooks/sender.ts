import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { performance } from 'node:perf_hooks';
import { hostOf, resolveTarget, type HostResolver, type ResolvedAddress } from './url-guard.js';

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
 * One delivery attempt: the host is resolved and checked now (product decision 31), the socket connects
 * to the checked address only (a pinned `lookup`), redirects are never followed, and the whole attempt
 * (connect, headers, the first KB of the answer) has one deadline. Never throws.
 */
export async function sendWebhook(options: SendOptions): Promise<AttemptOutcome> {
  const started = performance.now();
  const elapsed = () => Math.max(0, Math.round(performance.now() - started));
  const failure = (error: string, statusCode: number | null = null, excerpt: string | null = null) => ({
    succeeded: false,
    statusCode,
    latencyMs: elapsed(),
    error,
    responseExcerpt: excerpt,
  });
  let url: URL;
  try {
    url = new URL(options.url);
  } catch {
    return failure('invalid_url');
  }
  const target = await resolveTarget(url, options);
  if (!target.ok) return failure(target.problem === 'private_target' ? 'private_target' : 'dns_failure');

  return new Promise<AttemptOutcome>((resolve) => {
    let settled = false;
    const finish = (outcome: AttemptOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.destroy();
      resolve(outcome);
    };
    const client = url.protocol === 'https:' ? https : http;
    const request = client.request(url, {
      method: 'POST',
      agent: false,
      lookup: pinnedLookup(target.address),
      // SNI and certificate checks use the host name; an IP literal has no SNI.
      servername: url.protocol === 'https:' && !isIP(hostOf(url)) ? hostOf(url) : undefined,
      headers: {
        ...options.headers,
        'content-type': 'application/json',
        'content-length': String(options.body.length),
        'user-agent': 'payment-gateway-webhooks/1',
        connection: 'close',
      },
    });
    const timer = setTimeout(() => finish(failure('timeout')), options.timeoutMs);
    request.on('error', (error: NodeJS.ErrnoException) => finish(failure(transportError(error))));
    request.on('response', (response) => {
      const status = response.statusCode ?? 0;
      const chunks: Buffer[] = [];
      let size = 0;
      const done = () => {
        const excerpt = sanitizeExcerpt(Buffer.concat(chunks));
        if (status === 200) {
          finish({
            succeeded: true,
            statusCode: 200,
            latencyMs: elapsed(),
            error: null,
            responseExcerpt: excerpt,
          });
        } else if (status >= 300 && status < 400) {
          finish(failure('redirect_not_followed', status, excerpt));
        } else {
          finish(failure(status >= 200 && status < 300 ? 'not_200' : `http_${status}`, status, excerpt));
        }
      };
      response.on('data', (chunk: Buffer) => {
        if (size < EXCERPT_BYTES) chunks.push(chunk.subarray(0, EXCERPT_BYTES - size));
        size += chunk.length;
        if (size >= EXCERPT_BYTES) done();
      });
      response.on('end', done);
      response.on('error', () => done());
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
