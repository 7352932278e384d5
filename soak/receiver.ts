import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A merchant's webhook receiver, written as docs/webhooks.md tells merchants to: it verifies
 * `Service-Signature` over `<Service-Timestamp>.<raw body>` with the endpoint's secret in constant time
 * and records each event id once. `failShare` of the first attempts of events is answered 500 (a flaky
 * receiver), so that retries are part of the soak; a retry of the same event is then accepted.
 */
export interface Receiver {
  readonly url: string;
  /** Set once the endpoint exists (its secret is only known then). */
  setSecret(secret: string): void;
  /** Event ids received with a valid signature and answered 200. */
  readonly delivered: Set<string>;
  /** Deliveries whose signature or timestamp did not verify (must stay 0). */
  readonly badSignatures: number;
  /** Answers 500 given on purpose. */
  readonly refused: number;
  /** All deliveries received, duplicates included. */
  readonly received: number;
  close(): Promise<void>;
}

export async function startReceiver(options: { failShare: number; port?: number }): Promise<Receiver> {
  let secret = '';
  const delivered = new Set<string>();
  const refusedOnce = new Set<string>();
  const counts = { bad: 0, refused: 0, received: 0 };
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      counts.received += 1;
      const body = Buffer.concat(chunks);
      const timestamp = String(request.headers['service-timestamp'] ?? '');
      const signature = String(request.headers['service-signature'] ?? '');
      if (!verify(body, timestamp, signature, secret)) {
        counts.bad += 1;
        response.writeHead(400).end();
        return;
      }
      const id = String((JSON.parse(body.toString('utf8')) as { id?: unknown }).id ?? '');
      if (!delivered.has(id) && !refusedOnce.has(id) && Math.random() < options.failShare) {
        refusedOnce.add(id);
        counts.refused += 1;
        response.writeHead(500).end();
        return;
      }
      delivered.add(id);
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}');
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/webhooks`,
    setSecret: (value) => {
      secret = value;
    },
    delivered,
    get badSignatures() {
      return counts.bad;
    },
    get refused() {
      return counts.refused;
    },
    get received() {
      return counts.received;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function verify(body: Buffer, timestamp: string, signature: string, secret: string): boolean {
  if (secret === '' || !/^\d+$/.test(timestamp)) return false;
  if (Math.abs(Date.now() / 1000 - Number(timestamp)) > 300) return false;
  const expected = Buffer.from(
    createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex'),
  );
  const received = Buffer.from(signature);
  return expected.length === received.length && timingSafeEqual(expected, received);
}
