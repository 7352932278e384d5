/**
 * The open-loop load of the dispute bench (bench/disputes-webhooks.ts), run as a program of its own as
 * bench/paced-load.ts is: the issuer raising disputes through the sandbox acquirer's control endpoint
 * (`POST /_control/disputes`), dispute i due at start + i / rate whatever the answers before it, on
 * keep-alive connections. It notes each dispute's due time (epoch milliseconds: the latency a merchant
 * sees runs from the moment the issuer raised it) and the control call's own answer.
 *
 * Input: one JSON argument (`DisputeLoadOptions`). Output: one JSON line on stdout (`DisputeLoadResult`).
 */
import http from 'node:http';

export interface DisputeLoadOptions {
  /** The sandbox acquirer's base URL and API key. */
  acquirerUrl: string;
  apiKey: string;
  /** One dispute per payment, in this order. */
  paymentIds: string[];
  rate: number;
  connections: number;
}

export interface DisputeLoadResult {
  raised: Array<{ paymentId: string; dueAt: number; answerMs: number; status: number }>;
  errors: number;
  /** From the first due time to the last answer. */
  seconds: number;
}

async function raise(options: DisputeLoadOptions): Promise<DisputeLoadResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.connections });
  const interval = 1000 / options.rate;
  const raised: DisputeLoadResult['raised'] = [];
  let errors = 0;
  let last = 0;
  const start = performance.now();
  const one = (index: number, paymentId: string) =>
    new Promise<void>((resolve) => {
      const due = start + index * interval;
      const body = JSON.stringify({ paymentId, kind: 'dispute', reason: 'fraudulent' });
      const request = http.request(
        `${options.acquirerUrl}/_control/disputes`,
        {
          method: 'POST',
          agent,
          timeout: 30_000,
          headers: {
            authorization: `Bearer ${options.apiKey}`,
            'content-type': 'application/json',
            'content-length': String(Buffer.byteLength(body)),
          },
        },
        (response) => {
          response.resume();
          response.on('error', () => {
            errors++;
            resolve();
          });
          response.on('end', () => {
            const now = performance.now();
            last = Math.max(last, now);
            raised.push({
              paymentId,
              dueAt: performance.timeOrigin + due,
              answerMs: now - due,
              status: response.statusCode ?? 0,
            });
            resolve();
          });
        },
      );
      request.on('timeout', () => request.destroy(new Error('timeout')));
      request.on('error', () => {
        errors++;
        resolve();
      });
      request.end(body);
    });
  const inFlight: Array<Promise<void>> = [];
  let next = 0;
  const total = options.paymentIds.length;
  while (next < total) {
    const now = performance.now();
    while (next < total && start + next * interval <= now) {
      inFlight.push(one(next, options.paymentIds[next] ?? ''));
      next++;
    }
    if (next < total) {
      const wait = start + next * interval - performance.now();
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, wait)));
    }
  }
  await Promise.all(inFlight);
  agent.destroy();
  return { raised, errors, seconds: Math.max((last - start) / 1000, 0.001) };
}

if (process.argv[1] !== undefined && import.meta.filename === process.argv[1]) {
  const options = JSON.parse(process.argv[2] ?? '{}') as DisputeLoadOptions;
  process.stdout.write(`${JSON.stringify(await raise(options))}\n`);
}
