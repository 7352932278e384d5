import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One webhook request as it arrived. */
export interface ReceivedWebhook {
  path: string;
  headers: http.IncomingHttpHeaders;
  raw: Buffer;
  /** The event's `id` in the body. */
  eventId: string;
}

/**
 * A webhook receiver on loopback, for a spawned program's worker, that records every request. It
 * answers 200 at once, except the requests it is told to hold (`holdFrom(n)`: the n-th request received
 * and every later one), which wait for `release()`.
 */
export async function startWebhookReceiver() {
  const received: ReceivedWebhook[] = [];
  const waiters: Array<() => void> = [];
  let holdingFrom = Number.POSITIVE_INFINITY;
  const held: http.ServerResponse[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const event = JSON.parse(raw.toString('utf8')) as { id: string };
      received.push({ path: req.url ?? '', headers: req.headers, raw, eventId: event.id });
      for (const waiter of waiters.splice(0)) waiter();
      if (received.length >= holdingFrom) held.push(res);
      else res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    holdFrom: (count: number) => {
      holdingFrom = count;
    },
    /** Answers the held requests and holds no more. */
    release: () => {
      holdingFrom = Number.POSITIVE_INFINITY;
      for (const res of held.splice(0)) res.end('ok');
    },
    /** Resolves as soon as `count` requests have arrived (no polling delay); rejects after `timeoutMs`. */
    waitForRequests: (count: number, timeoutMs: number) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`timed out after ${timeoutMs} ms waiting for ${count} webhook requests`)),
          timeoutMs,
        );
        const check = () => {
          if (received.length >= count) {
            clearTimeout(timer);
            resolve();
          } else waiters.push(check);
        };
        check();
      }),
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of held.splice(0)) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** One request as a `startReceiver` receiver got it. */
export interface Received {
  headers: http.IncomingHttpHeaders;
  raw: Buffer;
}

/** A real HTTP receiver on loopback that records every request and answers as `answer` says (200 `ok`). */
export async function startReceiver(answer: (res: http.ServerResponse) => void = (res) => res.end('ok')) {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ headers: req.headers, raw: Buffer.concat(chunks) });
      answer(res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    port,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Whether the request carries the signature of the endpoint's secret (spec section 6): HMAC-SHA256 of
 * `${timestamp}.${rawBody}`, compared in constant time.
 */
export function signedWith(
  request: { headers: http.IncomingHttpHeaders; raw: Buffer },
  secret: string,
): boolean {
  const signature = request.headers['service-signature'];
  const timestamp = request.headers['service-timestamp'];
  if (typeof signature !== 'string' || typeof timestamp !== 'string') return false;
  const expected = createHmac('sha256', secret).update(`${timestamp}.`).update(request.raw).digest('hex');
  return (
    signature.length === expected.length && timingSafeEqual(Buffer.from(signature), Buffer.from(expected))
  );
}
