/**
 * A webhook receiver that verifies deliveries exactly as spec section 6 asks (docs/webhooks.md):
 * - the signature is checked over the raw body bytes, never over re-serialized JSON;
 * - signatures are compared in constant time, after checking that the lengths match;
 * - a timestamp more than 300 seconds from now is refused;
 * - each event id is handled once, however often it is delivered;
 * - only a 200 acknowledges; anything else makes the gateway retry.
 *
 * Copy it, replace `handleEvent` and the in-memory `seen` set (use a unique constraint on the event id in
 * your database), and give it your endpoint's secret(s). Run it with:
 *   WEBHOOK_SECRETS=whsec_… PORT=8080 npx tsx examples/webhook-receiver.ts
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import { pathToFileURL } from 'node:url';

export const TOLERANCE_SECONDS = 300;

export interface WebhookEvent {
  id: string;
  eventType: string;
  createdAt: string;
  livemode: boolean;
  data: Record<string, unknown>;
  payment?: { id: string; paymentId: string; merchantReference: string };
}

export type Verification = { ok: true; event: WebhookEvent } | { ok: false; reason: string };

/** Constant-time comparison of two hex signatures; different lengths never match. */
function sameSignature(expected: string, received: string): boolean {
  const a = Buffer.from(expected, 'utf8');
  const b = Buffer.from(received, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Verifies one delivery. `secrets` holds every secret you currently trust: one normally, two while you
 * rotate (docs/webhooks.md, "Rotating the secret"). A delivery is genuine when `Service-Signature` or
 * `Service-Signature-Next` is the HMAC-SHA256 of `<Service-Timestamp>.<raw body>` under one of them.
 */
export function verifyDelivery(
  rawBody: Buffer,
  headers: http.IncomingHttpHeaders,
  secrets: readonly string[],
  now: Date = new Date(),
): Verification {
  const timestamp = headers['service-timestamp'];
  const signatures = [headers['service-signature'], headers['service-signature-next']].filter(
    (value): value is string => typeof value === 'string',
  );
  if (typeof timestamp !== 'string' || !/^\d+$/.test(timestamp)) return { ok: false, reason: 'no timestamp' };
  if (signatures.length === 0) return { ok: false, reason: 'no signature' };
  if (Math.abs(now.getTime() / 1000 - Number(timestamp)) > TOLERANCE_SECONDS) {
    return { ok: false, reason: 'timestamp outside the tolerance' };
  }
  const genuine = secrets.some((secret) => {
    const expected = createHmac('sha256', secret).update(`${timestamp}.`).update(rawBody).digest('hex');
    return signatures.some((signature) => sameSignature(expected, signature));
  });
  if (!genuine) return { ok: false, reason: 'signature mismatch' };
  try {
    return { ok: true, event: JSON.parse(rawBody.toString('utf8')) as WebhookEvent };
  } catch {
    return { ok: false, reason: 'body is not JSON' };
  }
}

export interface ReceiverOptions {
  secrets: () => readonly string[];
  /** Your business logic. Throwing makes the receiver answer 500, so the gateway retries. */
  handleEvent: (event: WebhookEvent) => Promise<void> | void;
  now?: () => Date;
  /** Event ids already handled; a real receiver keeps them in its database. */
  seen?: Set<string>;
}

/** The request handler: read the raw body, verify, handle each event id once, answer 200. */
export function createReceiver(options: ReceiverOptions): http.RequestListener {
  const seen = options.seen ?? new Set<string>();
  return (request, response) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > 1_000_000) request.destroy();
      else chunks.push(chunk);
    });
    request.on('end', () => {
      const answer = (status: number, text: string) => {
        response.writeHead(status, { 'content-type': 'text/plain' }).end(text);
      };
      if (request.method !== 'POST') return answer(405, 'POST only');
      const verification = verifyDelivery(
        Buffer.concat(chunks),
        request.headers,
        options.secrets(),
        options.now?.(),
      );
      if (!verification.ok) return answer(400, verification.reason);
      const { event } = verification;
      // Claimed before handling, so two copies arriving together are handled once; released on failure
      // so that the gateway's retry handles it then.
      if (seen.has(event.id)) return answer(200, 'already handled');
      seen.add(event.id);
      Promise.resolve()
        .then(() => options.handleEvent(event))
        .then(
          () => answer(200, 'ok'),
          () => {
            seen.delete(event.id);
            answer(500, 'handler failed');
          },
        );
    });
  };
}

// Run directly: a receiver that logs each event once.
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const secrets = (process.env.WEBHOOK_SECRETS ?? '').split(',').filter(Boolean);
  if (secrets.length === 0) throw new Error('set WEBHOOK_SECRETS to your endpoint secret (whsec_…)');
  const server = http.createServer(
    createReceiver({
      secrets: () => secrets,
      handleEvent: (event) => {
        console.log(`${event.eventType} ${event.id} ${JSON.stringify(event.payment ?? event.data)}`);
      },
    }),
  );
  server.listen(Number(process.env.PORT ?? 8080), () => console.log('listening', server.address()));
}
