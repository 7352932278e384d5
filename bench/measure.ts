import { spawn } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';
import vm from 'node:vm';
import autocannon from 'autocannon';
import pg from 'pg';
import type { PacedOptions, PacedResult } from './paced-load.js';

/** One load figure: throughput, latency percentiles (ms), totals and failures. */
export interface Measurement {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  total: number;
  errors: number;
  non2xx: number;
  statusCodes?: Record<string, number>;
  /** The one status `requestsPerSecond` counts when it is not every 2xx (a form post's 303). */
  counted?: number;
}

export const round = (value: number) => Math.round(value * 100) / 100;

/**
 * `value / ceiling` to three significant digits: a small ratio stays visible (0.0042, not 0); null
 * without a ceiling.
 */
export const ratio = (value: number, ceiling: number): number | null =>
  ceiling === 0 ? null : Number((value / ceiling).toPrecision(3));

/**
 * autocannon against a listener, summarised as a Measurement. Throughput counts 2xx answers only (or,
 * with `success`, answers of that one status: a form post that succeeds answers 303): a refusal or an
 * error is fast and would flatter it.
 */
export async function load(
  options: autocannon.Options,
  { success }: { success?: number } = {},
): Promise<Measurement> {
  const result = await autocannon(options);
  const statusCodes = Object.fromEntries(
    Object.entries(result.statusCodeStats ?? {}).map(([code, stats]) => [
      code,
      (stats as { count: number }).count,
    ]),
  );
  const answered = success === undefined ? result['2xx'] : (statusCodes[String(success)] ?? 0);
  return {
    requestsPerSecond: round(answered / Math.max(result.duration, 0.001)),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    total: result.requests.total,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
    statusCodes,
    ...(success === undefined ? {} : { counted: success }),
  };
}

/** Seconds of the same load sent before each paced window and not counted (bench/paced-load.ts). */
const PACED_WARMUP_S = 2;

/** A full garbage collection of this process, now. */
function collectGarbage(): void {
  v8.setFlagsFromString('--expose-gc');
  (vm.runInNewContext('gc') as () => void)();
}

/**
 * An open-loop load at a steady rate, for latency at a given load: request i is due at start + i / rate,
 * evenly spread, whatever the answers before it. autocannon's fixed rate is not that: each connection
 * sends its quota for the second back to back, then waits for the next second (so the load comes in
 * bursts at every second), and it corrects for coordinated omission with an expected interval of
 * 1 ms. Here each latency runs from the request's due time, so a request that waits for one of the
 * `connections` kept-alive connections counts its wait (no coordinated omission either). Throughput
 * counts 2xx answers over the time from the first due time to the last answer. The same load runs for
 * PACED_WARMUP_S first, not counted: the generator's connections open and its code compiles (the first
 * requests of a fresh generator queued behind that work for 100 to 150 ms on this machine).
 *
 * The requests are sent by a program of its own (bench/paced-load.ts), so that this process's garbage
 * collections cannot delay a send; every `FRESH_TOKEN` in `request` is replaced by fresh letters per
 * request.
 */
export async function paced(options: {
  url: string;
  method: 'GET' | 'POST';
  request: { headers: Record<string, string>; body?: string };
  rate: number;
  durationS: number;
  connections: number;
}): Promise<Measurement> {
  const { request, ...rest } = options;
  const input: PacedOptions = {
    ...rest,
    warmupS: PACED_WARMUP_S,
    headers: request.headers,
    ...(request.body === undefined ? {} : { body: request.body }),
  };
  // This process's heap (the recorded statements, autocannon's results) collected now rather than by V8's
  // memory reducer once the process turns idle, which is during the measured window: a full collection
  // here took 100 to 160 ms of CPU on the two CPUs the measured processes share.
  collectGarbage();
  const output = await new Promise<string>((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', fileURLToPath(new URL('./paced-load.ts', import.meta.url)), JSON.stringify(input)],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(stdout) : reject(new Error(`the paced load generator exited with ${code}`)),
    );
  });
  const result = JSON.parse(output) as PacedResult;
  const ok = Object.entries(result.statusCodes)
    .filter(([code]) => code.startsWith('2'))
    .reduce((sum, [, count]) => sum + count, 0);
  return {
    requestsPerSecond: round(ok / result.seconds),
    p50Ms: round(result.p50Ms),
    p99Ms: round(result.p99Ms),
    total: result.answered + result.errors,
    errors: result.errors,
    non2xx: result.answered - ok,
    statusCodes: result.statusCodes,
  };
}

/**
 * `once` run by `connections` concurrent loops for `durationS` seconds, without HTTP: the latency of
 * each call that returns true; one that returns false counts as refused (`non2xx`), one that throws as an
 * error. With `limit`, no more than that many calls start (indexes 0 to limit - 1): the loops stop
 * early when they are used up, and the throughput is over the time they ran.
 */
export async function loop(
  once: (index: number) => Promise<boolean>,
  durationS: number,
  connections: number,
  limit = Number.POSITIVE_INFINITY,
): Promise<Measurement> {
  const latencies: number[] = [];
  let refused = 0;
  let errors = 0;
  let next = 0;
  const deadline = performance.now() + durationS * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < deadline && next < limit) {
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

/** One statement as node-postgres sent it (and, once it answered, the rows it returned). */
export interface Statement {
  text: string;
  values: unknown[];
  rows?: unknown[];
}

/** Every statement node-postgres sends in this process while `work` runs, with the rows each returned. */
export async function capture<T>(work: () => Promise<T>): Promise<{ value: T; statements: Statement[] }> {
  type Query = (...args: unknown[]) => unknown;
  const prototype = pg.Client.prototype as unknown as { query: Query };
  const original = prototype.query;
  const statements: Statement[] = [];
  prototype.query = function (this: unknown, ...args: unknown[]) {
    const [first, second] = args;
    const text = typeof first === 'string' ? first : (first as { text?: unknown } | undefined)?.text;
    const values = Array.isArray(second) ? second : (first as { values?: unknown } | undefined)?.values;
    const answer = original.apply(this, args);
    if (typeof text === 'string') {
      const statement: Statement = { text, values: Array.isArray(values) ? values : [] };
      statements.push(statement);
      if (answer instanceof Promise)
        answer.then(
          (result: { rows?: unknown[] }) => {
            statement.rows = result?.rows;
          },
          () => undefined,
        );
    }
    return answer;
  };
  try {
    return { value: await work(), statements };
  } finally {
    prototype.query = original;
  }
}

/**
 * The CPU time (user and system, ms) process `pid` has used so far, from Linux's /proc; null elsewhere or
 * once it is gone. Divided by the requests a phase answered, it is a cost per request that a busy machine
 * disturbs far less than throughput.
 */
export function processCpuMs(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    // The fields after the command's closing parenthesis; utime and stime are the 12th and 13th, in ticks.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? ticks * (1000 / CLOCK_TICKS_PER_SECOND) : null;
  } catch {
    return null;
  }
}

/** Linux's USER_HZ: 100 on every architecture it runs on. */
const CLOCK_TICKS_PER_SECOND = 100;

/**
 * The processes of the PostgreSQL server on this machine (the postmaster, its backends and helpers: every
 * process named `postgres`), from /proc; none when the server runs elsewhere.
 */
function postgresPids(): number[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  return entries
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number)
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/comm`, 'utf8').startsWith('postgres');
      } catch {
        return false;
      }
    });
}

/**
 * CPU time of the whole machine so far (every CPU, ms), from /proc/stat: `busy` (user, nice, system, irq,
 * softirq) and `steal` (time a virtual machine's CPUs were runnable while the hypervisor ran something
 * else: on a shared VM the reason a phase ran slower with the same work).
 */
function machineCpuMs(): { busy: number; steal: number } | null {
  try {
    const [user, nice, system, , , irq, softirq, steal] = (
      readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? ''
    )
      .trim()
      .split(/\s+/)
      .slice(1)
      .map(Number);
    const busy = [user, nice, system, irq, softirq].reduce<number>((sum, value) => sum + (value ?? NaN), 0);
    const ms = 1000 / CLOCK_TICKS_PER_SECOND;
    return Number.isFinite(busy) ? { busy: busy * ms, steal: (steal ?? 0) * ms } : null;
  } catch {
    return null;
  }
}

/**
 * Starts counting the CPU time of `processes` (by name), of the PostgreSQL server's processes on this
 * machine and of the whole machine; `perRequest(answered)` divides what each used since by the requests a
 * phase answered (ms, two decimals; null where it cannot be read). PostgreSQL's figure sums the server's
 * processes (a backend started during the phase counts from its start, one that ended during it is
 * missing, and the backends of any other client count too: run nothing else against the server).
 * `machine` is everything that ran, the load generator and the bench included; `steal`, what the hypervisor
 * took from this VM's CPUs meanwhile.
 */
export function cpuMeter(processes: Record<string, number | undefined>) {
  const postgres = postgresPids();
  const before = {
    processes: Object.fromEntries(Object.entries(processes).map(([name, pid]) => [name, processCpuMs(pid)])),
    postgres: new Map(postgres.map((pid) => [pid, processCpuMs(pid)])),
    machine: machineCpuMs(),
  };
  return {
    perRequest(answered: number): Record<string, number | null> {
      const per = (from: number | null | undefined, to: number | null) =>
        from === null || from === undefined || to === null || answered <= 0
          ? null
          : round((to - from) / answered);
      let postgresMs = 0;
      let postgresSeen = 0;
      // A backend started during the phase (a pool growing) counts from its start.
      for (const pid of new Set([...before.postgres.keys(), ...postgresPids()])) {
        const from = before.postgres.has(pid) ? before.postgres.get(pid) : 0;
        const to = processCpuMs(pid);
        if (from === null || from === undefined || to === null) continue;
        postgresMs += to - from;
        postgresSeen++;
      }
      const machine = machineCpuMs();
      return {
        ...Object.fromEntries(
          Object.entries(processes).map(([name, pid]) => [
            name,
            per(before.processes[name], processCpuMs(pid)),
          ]),
        ),
        postgres: postgresSeen === 0 ? null : per(0, postgresMs),
        machine: per(before.machine?.busy, machine?.busy ?? null),
        steal: per(before.machine?.steal, machine?.steal ?? null),
      };
    },
  };
}
