import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * The process's metrics in the Prometheus format (docs/operations.md lists each one and
 * example alert rules), served at `/metrics` on the operator listener. One registry per process: the
 * metrics are module-level objects that the code observes where things happen; what only a query can
 * tell (the pool, the webhook backlog) is read when Prometheus scrapes, from the sources the running
 * gateway registers (`addScrapeSource`).
 */
export const metricsRegistry = new Registry();
collectDefaultMetrics({ register: metricsRegistry, prefix: 'gateway_' });

const SECONDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export const httpRequests = new Counter({
  name: 'gateway_http_requests_total',
  help: 'HTTP requests answered, by listener, method, route template and status code.',
  labelNames: ['listener', 'method', 'route', 'status'] as const,
  registers: [metricsRegistry],
});

export const httpRequestDuration = new Histogram({
  name: 'gateway_http_request_duration_seconds',
  help: 'Time to answer an HTTP request, by listener, method and route template.',
  labelNames: ['listener', 'method', 'route'] as const,
  buckets: SECONDS,
  registers: [metricsRegistry],
});

export const dbQueryDuration = new Histogram({
  name: 'gateway_db_query_duration_seconds',
  help: 'Time of each database statement, by outcome (ok, error).',
  labelNames: ['outcome'] as const,
  buckets: SECONDS,
  registers: [metricsRegistry],
});

export const jobRuns = new Counter({
  name: 'gateway_job_runs_total',
  help: 'Runs of each background job by outcome (ok, failed).',
  labelNames: ['job', 'outcome'] as const,
  registers: [metricsRegistry],
});

export const jobRunDuration = new Histogram({
  name: 'gateway_job_run_duration_seconds',
  help: 'Time of each background job run.',
  labelNames: ['job'] as const,
  buckets: SECONDS,
  registers: [metricsRegistry],
});

export const jobRowsCounter = new Counter({
  name: 'gateway_job_rows_total',
  help: 'Rows (deliveries, charges, payouts, batches…) each background job handled, and those that failed.',
  labelNames: ['job', 'outcome'] as const,
  registers: [metricsRegistry],
});

export const upstreamCalls = new Histogram({
  name: 'gateway_upstream_call_duration_seconds',
  help:
    'Calls to other systems (acquirers, payout rails and explorers, rate tickers) per attempt, by peer, ' +
    'operation and outcome (ok, rejected: a 4xx, unavailable: 5xx, timeout or network failure).',
  labelNames: ['peer', 'operation', 'outcome'] as const,
  buckets: SECONDS,
  registers: [metricsRegistry],
});

export const chargeCreations = new Counter({
  name: 'gateway_charge_creations_total',
  help: 'POST /v1/charges outcomes by environment: created, or the error code.',
  labelNames: ['environment', 'outcome'] as const,
  registers: [metricsRegistry],
});

export const payoutsCreated = new Counter({
  name: 'gateway_payouts_created_total',
  help: 'Payouts created, by environment and kind (automatic: a settlement batch; manual: the API).',
  labelNames: ['environment', 'kind'] as const,
  registers: [metricsRegistry],
});

export const settlementOutcomes = new Counter({
  name: 'gateway_settlement_batches_total',
  help: 'Settlement batches a run ended or left open, by outcome (paid_out, carried, held, failed).',
  labelNames: ['outcome'] as const,
  registers: [metricsRegistry],
});

export const refundOutcomes = new Counter({
  name: 'gateway_refunds_total',
  help: 'Refunds that reached an outcome, by environment and outcome (succeeded, failed).',
  labelNames: ['environment', 'outcome'] as const,
  registers: [metricsRegistry],
});

export const eventsRecorded = new Counter({
  name: 'gateway_events_total',
  help:
    'Events recorded (each once), by environment and type: charges by outcome (charge.succeeded, ' +
    'charge.failed, charge.expired), refunds (charge.refunded), payouts (payout.completed, payout.failed…).',
  labelNames: ['environment', 'type'] as const,
  registers: [metricsRegistry],
});

/**
 * The events counter as an event subscriber (src/modules/events): counted in the transaction that records
 * the event, so a transaction that rolls back after it is counted too.
 */
export function countEvent(
  _trx: unknown,
  events: ReadonlyArray<{ environment: string; type: string }>,
): Promise<void> {
  for (const event of events) eventsRecorded.inc({ environment: event.environment, type: event.type });
  return Promise.resolve();
}

/**
 * A rate source whose every quote is observed as a call to `peer` (`ticker:live`, `ticker:sandbox`):
 * outcome `ok`, or the refusal's reason (`unreachable`: no answer or not 2xx; `missing`, `invalid`,
 * `stale`: an answer without a fresh, valid rate).
 */
export function observedRateSource<Quote>(
  peer: string,
  source: { quote(): Promise<Quote> },
): { quote(): Promise<Quote> } {
  return {
    async quote() {
      const started = performance.now();
      const observe = (outcome: string) =>
        upstreamCalls.observe({ peer, operation: 'rate', outcome }, (performance.now() - started) / 1000);
      try {
        const quote = await source.quote();
        observe('ok');
        return quote;
      } catch (error) {
        const reason = (error as { reason?: unknown }).reason;
        observe(typeof reason === 'string' ? reason : 'error');
        throw error;
      }
    },
  };
}

/** What a running gateway reports when Prometheus scrapes. */
export interface ScrapeSource {
  pool?: () => { total: number; idle: number; waiting: number };
  webhookBacklog?: () => Promise<
    Array<{ endpointId: string; environment: string; pending: number; due: number; oldestSeconds: number }>
  >;
  /** The job kit's queues: rows due now and the oldest's age, per job. */
  jobQueues?: () => Promise<Array<{ job: string; due: number; oldestDueSeconds: number }>>;
}

const sources = new Set<ScrapeSource>();

/** Registers what this gateway reports at each scrape; the returned function removes it (on close). */
export function addScrapeSource(source: ScrapeSource): () => void {
  sources.add(source);
  return () => {
    sources.delete(source);
  };
}

new Gauge({
  name: 'gateway_db_pool_connections',
  help: 'Database pool connections by state (total, idle, waiting: requests queued for a connection).',
  labelNames: ['state'] as const,
  registers: [metricsRegistry],
  collect() {
    this.reset();
    for (const source of sources) {
      const pool = source.pool?.();
      if (!pool) continue;
      this.inc({ state: 'total' }, pool.total);
      this.inc({ state: 'idle' }, pool.idle);
      this.inc({ state: 'waiting' }, pool.waiting);
    }
  },
});

type BacklogRow = Awaited<ReturnType<NonNullable<ScrapeSource['webhookBacklog']>>>[number];
/** The backlog of this scrape (`scrape` clears it first): both backlog gauges read it once. */
let backlogRead: Promise<BacklogRow[]> | undefined;

function webhookBacklog(): Promise<BacklogRow[]> {
  backlogRead ??= Promise.all([...sources].map((source) => source.webhookBacklog?.() ?? [])).then((all) =>
    all.flat(),
  );
  return backlogRead;
}

new Gauge({
  name: 'gateway_webhook_backlog',
  help: 'Undelivered webhook deliveries per endpoint (pending; `due`: whose next attempt time has come).',
  labelNames: ['endpoint', 'environment', 'state'] as const,
  registers: [metricsRegistry],
  async collect() {
    const rows = await webhookBacklog();
    this.reset();
    for (const row of rows) {
      const labels = { endpoint: row.endpointId, environment: row.environment };
      this.set({ ...labels, state: 'pending' }, row.pending);
      this.set({ ...labels, state: 'due' }, row.due);
    }
  },
});

new Gauge({
  name: 'gateway_webhook_oldest_undelivered_seconds',
  help: 'Age of the oldest undelivered webhook delivery per endpoint.',
  labelNames: ['endpoint', 'environment'] as const,
  registers: [metricsRegistry],
  async collect() {
    const rows = await webhookBacklog();
    this.reset();
    for (const row of rows)
      this.set({ endpoint: row.endpointId, environment: row.environment }, row.oldestSeconds);
  },
});

type QueueRow = Awaited<ReturnType<NonNullable<ScrapeSource['jobQueues']>>>[number];
/** The job queues of this scrape (`scrape` clears it first): both job gauges read them once. */
let queuesRead: Promise<QueueRow[]> | undefined;

function jobQueues(): Promise<QueueRow[]> {
  queuesRead ??= Promise.all([...sources].map((source) => source.jobQueues?.() ?? [])).then((all) =>
    all.flat(),
  );
  return queuesRead;
}

new Gauge({
  name: 'gateway_job_due_rows',
  help: 'Rows of each queue job (the job kit) whose attempt is due now and not yet claimed.',
  labelNames: ['job'] as const,
  registers: [metricsRegistry],
  async collect() {
    const rows = await jobQueues();
    this.reset();
    for (const row of rows) this.set({ job: row.job }, row.due);
  },
});

new Gauge({
  name: 'gateway_job_oldest_due_seconds',
  help: 'How long the oldest due row of each queue job has been due (0: none due).',
  labelNames: ['job'] as const,
  registers: [metricsRegistry],
  async collect() {
    const rows = await jobQueues();
    this.reset();
    for (const row of rows) this.set({ job: row.job }, row.oldestDueSeconds);
  },
});

/** The metrics text for a scrape. */
export async function scrape(): Promise<{ contentType: string; body: string }> {
  backlogRead = undefined;
  queuesRead = undefined;
  return { contentType: metricsRegistry.contentType, body: await metricsRegistry.metrics() };
}
