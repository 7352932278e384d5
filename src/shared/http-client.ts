import http from 'node:http';
import https from 'node:https';
import { withinRequestBudget } from './request-budget.js';

/**
 * The one HTTP client of the gateway's calls to other parties (the acquirer, the payout rail and its
 * explorer, the rate ticker): node:http over kept-alive connections, one pool per protocol. The webhook
 * sender has its own (it pins each connection to an address it checked, ADR 0036).
 *
 * Why not `fetch`: its WHATWG streams, abort signals and header objects cost several times the CPU of a
 * plain request on the charge path (ADR 0046's profile); nothing here needs them.
 */
export interface HttpCall {
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  /** Sent as is, with its Content-Length. */
  body?: string;
  /**
   * For the whole call: connecting, sending and reading the whole answer. Within a request, never past
   * the request's outbound deadline (src/shared/request-budget.ts).
   */
  timeoutMs: number;
}

export interface HttpAnswer {
  status: number;
  text: string;
}

/**
 * No answer in time, or the connection failed; `code` is `timeout`, `deadline` (the request's budget was
 * spent before anything was sent) or the socket error's code.
 */
export class HttpTransportError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'HttpTransportError';
  }
}

const agentSettings: http.AgentOptions = {
  keepAlive: true,
  // An idle connection is closed well before a typical server's own keep-alive timeout (5 s for Node),
  // so a request never goes out on a connection the server is closing.
  timeout: 4_000,
  scheduling: 'lifo',
};
const agents = { http: new http.Agent(agentSettings), https: new https.Agent(agentSettings) };

export function httpCall(url: string, call: HttpCall): Promise<HttpAnswer> {
  const timeoutMs = Math.floor(withinRequestBudget(call.timeoutMs) ?? call.timeoutMs);
  if (timeoutMs <= 0) {
    return Promise.reject(
      new HttpTransportError('deadline', "the request's time for calls to other systems is spent"),
    );
  }
  const target = new URL(url);
  const secure = target.protocol === 'https:';
  const headers: Record<string, string> = { ...call.headers };
  if (call.body !== undefined) headers['content-length'] = String(Buffer.byteLength(call.body));
  return new Promise<HttpAnswer>((resolve, reject) => {
    let settled = false;
    const fail = (error: HttpTransportError) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.destroy();
      reject(error);
    };
    const request = (secure ? https : http).request(
      target,
      { method: call.method, headers, agent: secure ? agents.https : agents.http },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', (error: NodeJS.ErrnoException) =>
          fail(new HttpTransportError(error.code ?? 'ERR_STREAM', error.message)),
        );
        response.on('close', () => {
          if (!response.complete) fail(new HttpTransportError('ECONNRESET', 'the answer was cut off'));
        });
        response.on('end', () => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') });
        });
      },
    );
    const timer = setTimeout(
      () => fail(new HttpTransportError('timeout', `no answer within ${timeoutMs} ms`)),
      timeoutMs,
    );
    request.on('error', (error: NodeJS.ErrnoException) =>
      fail(new HttpTransportError(error.code ?? 'ERR_NETWORK', error.message)),
    );
    request.end(call.body);
  });
}
