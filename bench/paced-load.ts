/**
 * The open-loop load generator of `paced` (bench/measure.ts), run as a program of its own: the bench's
 * process holds a large heap (the recorded statements, autocannon's results, the gateway it recorded
 * on), and a full garbage collection there stopped the sends for 19 to 26 ms, which a latency counted
 * from the due time charged to the gateway. Here the heap is this file and node:http, and every latency
 * goes into an array allocated up front.
 *
 * Input: one JSON argument (`PacedOptions`). Output: one JSON line on stdout (`PacedResult`).
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';

export interface PacedOptions {
  url: string;
  method: 'GET' | 'POST';
  /**
   * Each request's headers and body. Every occurrence of `FRESH_TOKEN` in them is replaced by fresh
   * letters of its own per request (an idempotency key, a reference).
   */
  headers: Record<string, string>;
  body?: string;
  rate: number;
  /** The measured window: its requests are the ones counted. */
  durationS: number;
  /**
   * Sent at the same rate before the measured window and not counted: the connections open, and this
   * program's own code (and the server's for this load) is compiled before a latency counts.
   */
  warmupS: number;
  connections: number;
}

export interface PacedResult {
  /** Percentiles of the latencies (ms), each from a request's due time to the end of its answer. */
  p50Ms: number;
  p99Ms: number;
  answered: number;
  errors: number;
  statusCodes: Record<string, number>;
  /** From the first measured due time to the last answer. */
  seconds: number;
}

export const FRESH_TOKEN = '{{fresh}}';

/**
 * Letters only: no digit run in a reference or key can look like a card number to the card filter
 * (a UUID's hex without dashes sometimes holds 13 or more digits in a row). The benches share it.
 */
export function letters(bytes = 12): string {
  let text = '';
  for (const byte of randomBytes(bytes)) text += String.fromCharCode(97 + (byte % 26));
  return text;
}

const fresh = (template: string) =>
  template.includes(FRESH_TOKEN)
    ? template
        .split(FRESH_TOKEN)
        .map((part, index) => (index === 0 ? part : letters() + part))
        .join('')
    : template;

async function generate(options: PacedOptions): Promise<PacedResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.connections });
  const measured = Math.max(1, Math.floor(options.rate * options.durationS));
  const warmup = Math.floor(options.rate * options.warmupS);
  const total = warmup + measured;
  const interval = 1000 / options.rate;
  const latencies = new Float64Array(measured);
  let answered = 0;
  const statusCodes: Record<string, number> = {};
  let errors = 0;
  let last = 0;
  const start = performance.now();
  const one = (index: number) =>
    new Promise<void>((resolve) => {
      const due = start + index * interval;
      const counted = index >= warmup;
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(options.headers)) headers[name] = fresh(value);
      const body = options.body === undefined ? undefined : fresh(options.body);
      if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
      const request = http.request(
        options.url,
        { method: options.method, agent, headers, timeout: 30_000 },
        (response) => {
          response.resume();
          // An answer cut short (the connection reset mid-body) is an error, not a hang.
          response.on('error', () => {
            if (counted) errors++;
            resolve();
          });
          response.on('end', () => {
            if (!counted) {
              resolve();
              return;
            }
            const now = performance.now();
            latencies[answered++] = now - due;
            last = Math.max(last, now);
            const code = String(response.statusCode ?? 0);
            statusCodes[code] = (statusCodes[code] ?? 0) + 1;
            resolve();
          });
        },
      );
      request.on('timeout', () => request.destroy(new Error('timeout')));
      request.on('error', () => {
        if (counted) errors++;
        resolve();
      });
      request.end(body);
    });
  const inFlight: Array<Promise<void>> = [];
  let next = 0;
  while (next < total) {
    const now = performance.now();
    while (next < total && start + next * interval <= now) inFlight.push(one(next++));
    if (next < total) {
      const wait = start + next * interval - performance.now();
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, wait)));
    }
  }
  await Promise.all(inFlight);
  agent.destroy();
  const sorted = latencies.subarray(0, answered).sort();
  const at = (share: number) => sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))] ?? 0;
  return {
    p50Ms: at(0.5),
    p99Ms: at(0.99),
    answered,
    errors,
    statusCodes,
    seconds: Math.max((last - (start + warmup * interval)) / 1000, 0.001),
  };
}

if (process.argv[1] !== undefined && import.meta.filename === process.argv[1]) {
  const options = JSON.parse(process.argv[2] ?? '{}') as PacedOptions;
  process.stdout.write(`${JSON.stringify(await generate(options))}\n`);
}
