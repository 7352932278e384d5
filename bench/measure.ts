import autocannon from 'autocannon';
import pg from 'pg';

/** One load figure: throughput, latency percentiles (ms), totals and failures. */
export interface Measurement {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  total: number;
  errors: number;
  non2xx: number;
  statusCodes?: Record<string, number>;
}

export const round = (value: number) => Math.round(value * 100) / 100;

/** autocannon against a listener, summarised as a Measurement. */
export async function load(options: autocannon.Options): Promise<Measurement> {
  const result = await autocannon(options);
  return {
    requestsPerSecond: round(result.requests.average),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    total: result.requests.total,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
    statusCodes: Object.fromEntries(
      Object.entries(result.statusCodeStats ?? {}).map(([code, stats]) => [
        code,
        (stats as { count: number }).count,
      ]),
    ),
  };
}

/**
 * `once` run by `connections` concurrent loops for `durationS` seconds, without HTTP: the latency of
 * each call that returns true; one that returns false counts as refused (`non2xx`), one that throws as an
 * error.
 */
export async function loop(
  once: (index: number) => Promise<boolean>,
  durationS: number,
  connections: number,
): Promise<Measurement> {
  const latencies: number[] = [];
  let refused = 0;
  let errors = 0;
  let next = 0;
  const deadline = performance.now() + durationS * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < deadline) {
        const began = performance.now();
        try {
          if (await once(next++)) latencies.push(performance.now() - began);
          else refused++;
        } catch {
          errors++;
        }
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q: number) =>
    round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0);
  return {
    requestsPerSecond: round(latencies.length / seconds),
    p50Ms: at(0.5),
    p99Ms: at(0.99),
    total: latencies.length,
    errors,
    non2xx: refused,
  };
}

/** One dedicated node-postgres client for `work`, closed after. */
export async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** `work`'s value and its wall time in milliseconds (two decimals). */
export async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await work();
  return { value, ms: round(performance.now() - started) };
}
