/**
 * The OpenTelemetry SDK, loaded only by `startTracing` (./tracing.ts) when an OTLP endpoint is configured
 * (ADR 0043). Spans of incoming HTTP requests (named by route template), PostgreSQL queries (node-postgres;
 * PGlite has no instrumentation), outgoing HTTP calls (node:http and https: acquirers, payout rails and
 * rate tickers through src/shared/http-client.ts, webhooks through their sender) and background job runs,
 * exported over OTLP/HTTP. Every span passes
 * through the log's secret scrubber before it leaves the process.
 */
import { createRequire, syncBuiltinESMExports } from 'node:module';
import {
  context,
  diag,
  DiagLogLevel,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type AttributeValue,
  type Context,
  type TextMapPropagator,
} from '@opentelemetry/api';
import {
  getNumberFromEnv,
  getRPCMetadata,
  RPCType,
  W3CTraceContextPropagator,
  type ExportResult,
} from '@opentelemetry/core';
import { OTLPTraceExporter as OtlpJsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as OtlpProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { NodeSDK } from '@opentelemetry/sdk-node';
import {
  BatchSpanProcessor,
  type ReadableSpan,
  type Span,
  type SpanExporter,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace';
import { scrubSecrets } from '../logger.js';
import type { JobRunReport, Tracing, TracingLogger, TracingSettings } from './tracing-types.js';

const DEFAULT_SERVICE_NAME = 'payment-gateway';
/** Probes and scrapes are not traced: a span every few seconds per load balancer and Prometheus. */
const UNTRACED_PATHS = new Set(['/healthz', '/readyz', '/metrics']);
/** Spans one job run may hold back before they are forwarded as they come (`IdleJobRunFilter`). */
const MAX_HELD_SPANS = 1000;

export function startOpenTelemetry(settings: TracingSettings): Tracing {
  const env = process.env;
  const exporter = new ScrubbingExporter(
    settings.protocol === 'http/json' ? new OtlpJsonExporter() : new OtlpProtobufExporter(),
  );
  const idleRuns = new IdleJobRunFilter(
    new BatchSpanProcessor({
      exporter,
      maxQueueSize: nonNegative('OTEL_BSP_MAX_QUEUE_SIZE'),
      scheduledDelayMillis: nonNegative('OTEL_BSP_SCHEDULE_DELAY'),
      exportTimeoutMillis: nonNegative('OTEL_BSP_EXPORT_TIMEOUT'),
      maxExportBatchSize: nonNegative('OTEL_BSP_MAX_EXPORT_BATCH_SIZE'),
    }),
  );
  const namedInEnv =
    Boolean(env.OTEL_SERVICE_NAME?.trim()) ||
    /(^|,)\s*service\.name\s*=/.test(env.OTEL_RESOURCE_ATTRIBUTES ?? '');

  const sdk = new NodeSDK({
    ...(namedInEnv ? {} : { serviceName: DEFAULT_SERVICE_NAME }),
    spanProcessors: [idleRuns],
    // Traces only: the metrics stay Prometheus's (/metrics), logs stay on stdout.
    metricReaders: [],
    logRecordProcessors: [],
    textMapPropagator: OUTGOING_ONLY,
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (request) => UNTRACED_PATHS.has((request.url ?? '').split('?')[0] ?? ''),
        // No header becomes an attribute (the default, said here so that nobody adds Authorization).
        headersToSpanAttributes: {},
      }),
      new PgInstrumentation({
        // Parameter values never reach a span: only the statement text with its $1, $2 placeholders.
        enhancedDatabaseReporting: false,
        // A query outside any request or job run (migrations at start, timers) is not a trace of its own.
        requireParentSpan: true,
      }),
    ],
  });
  sdk.start();
  // The program is ESM: its `import http from 'node:http'` does not pass through `require`, which is
  // where the instrumentation patches a module. Requiring the built-ins here patches the one object that
  // ESM default imports share, and the sync updates their named exports. (pg and fastify are CommonJS:
  // they are patched when they are loaded, after this. The import-in-the-middle loader hook is not
  // used: it would wrap node:http a second time and double every client span; ADR 0043.)
  const require = createRequire(import.meta.url);
  require('node:http');
  require('node:https');
  syncBuiltinESMExports();

  const tracer = trace.getTracer(DEFAULT_SERVICE_NAME);
  return {
    endpoint: settings.endpoint,
    protocol: settings.protocol,

    nameRequest(route) {
      const metadata = getRPCMetadata(context.active());
      if (metadata?.type !== RPCType.HTTP) return;
      // The instrumentation names the server span `<method> <route>` and sets http.route when it ends.
      metadata.route = route;
    },

    jobRun: (job, run) => traceJobRun(tracer, idleRuns, job, run),

    useLogger(logger: TracingLogger) {
      // OTEL_LOG_LEVEL keeps the SDK's own console logger at the level asked for.
      if (env.OTEL_LOG_LEVEL?.trim()) return;
      const detail = (args: unknown[]) => ({ component: 'opentelemetry', detail: args.map(String) });
      diag.setLogger(
        {
          error: (message, ...args) => logger.error(detail(args), message),
          warn: (message, ...args) => logger.warn(detail(args), message),
          info: () => undefined,
          debug: () => undefined,
          verbose: () => undefined,
        },
        { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true },
      );
    },

    async shutdown(deadline) {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, Math.max(0, deadline - Date.now()));
      });
      try {
        await Promise.race([sdk.shutdown(), late]);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

/**
 * One job run as a root span. A run that did nothing and failed nothing is not exported (the run log's
 * rule, ADR 0021): its spans are held until it ends, then dropped or forwarded.
 */
function traceJobRun<T extends JobRunReport | void>(
  tracer: ReturnType<typeof trace.getTracer>,
  idleRuns: IdleJobRunFilter,
  job: string,
  run: () => Promise<T>,
): Promise<T> {
  return tracer.startActiveSpan(
    `job ${job}`,
    { kind: SpanKind.INTERNAL, root: true, attributes: { 'gateway.job.name': job } },
    async (span) => {
      const traceId = span.spanContext().traceId;
      if (span.isRecording()) idleRuns.hold(traceId);
      let report: JobRunReport | void = undefined;
      let failed = false;
      try {
        const result = await run();
        report = result;
        return result;
      } catch (error) {
        failed = true;
        span.setStatus({ code: SpanStatusCode.ERROR });
        span.setAttribute('error.type', error instanceof Error ? error.name : 'unknown');
        throw error;
      } finally {
        if (report) {
          span.setAttributes({ 'gateway.job.rows': report.rows, 'gateway.job.errors': report.errors });
          if (report.periodStart) span.setAttribute('gateway.job.period', report.periodStart.toISOString());
        }
        const didSomething =
          failed || (report !== undefined && (report.rows > 0 || report.errors > 0 || !!report.periodStart));
        idleRuns.settle(traceId, didSomething);
        span.end();
      }
    },
  );
}

/**
 * Trace context goes out (the acquirer, a payout rail, a webhook receiver can join the trace) and never
 * comes in: a client of the public API must not choose our trace ids, nor force its requests to be
 * sampled (the request ids of src/http/server.ts follow the same rule).
 */
const W3C = new W3CTraceContextPropagator();
const OUTGOING_ONLY: TextMapPropagator = {
  inject: (current, carrier, setter) => W3C.inject(current, carrier, setter),
  extract: (current: Context) => current,
  fields: () => W3C.fields(),
};

/**
 * Every string the span carries (attributes, event attributes, the status message, the name) passes
 * through the log's scrubber: API keys, webhook secrets, Bearer tokens, session cookies, credential and
 * contact query parameters, card numbers. The instrumentations record no header and no body; this catches
 * what a URL, a query string or an error message may still carry.
 */
class ScrubbingExporter implements SpanExporter {
  constructor(private readonly next: SpanExporter) {}

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.next.export(spans.map(scrubSpan), done);
  }

  shutdown(): Promise<void> {
    return this.next.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.next.forceFlush?.() ?? Promise.resolve();
  }
}

function scrubSpan(span: ReadableSpan): ReadableSpan {
  return {
    name: scrubSecrets(span.name),
    kind: span.kind,
    spanContext: () => span.spanContext(),
    parentSpanContext: span.parentSpanContext,
    startTime: span.startTime,
    endTime: span.endTime,
    status: span.status.message
      ? { ...span.status, message: scrubSecrets(span.status.message) }
      : span.status,
    attributes: scrubAttributes(span.attributes),
    links: span.links.map((link) => ({
      ...link,
      attributes: link.attributes && scrubAttributes(link.attributes),
    })),
    events: span.events.map((event) => ({
      ...event,
      name: scrubSecrets(event.name),
      attributes: event.attributes && scrubAttributes(event.attributes),
    })),
    duration: span.duration,
    ended: span.ended,
    resource: span.resource,
    instrumentationScope: span.instrumentationScope,
    droppedAttributesCount: span.droppedAttributesCount,
    droppedEventsCount: span.droppedEventsCount,
    droppedLinksCount: span.droppedLinksCount,
  };
}

export function scrubAttributes(attributes: Attributes): Attributes {
  const out: Attributes = {};
  for (const [key, value] of Object.entries(attributes)) out[key] = scrubValue(key, value);
  return out;
}

function scrubValue(key: string, value: AttributeValue | undefined): AttributeValue | undefined {
  if (typeof value === 'string') {
    // A server span's url.query has no leading `?`; the scrubber knows query parameters by it.
    if (key === 'url.query' && !value.startsWith('?')) return scrubSecrets(`?${value}`).slice(1);
    return scrubSecrets(value);
  }
  if (Array.isArray(value))
    return value.map((item: unknown) =>
      typeof item === 'string' ? scrubSecrets(item) : item,
    ) as AttributeValue;
  return value;
}

/**
 * Holds the spans of each job run (its queries, its calls) until the run ends, then passes them on, or
 * drops them when the run did nothing: a worker polls its queues every second or so (the webhook queue
 * every 100 ms), and a trace of every empty poll would bury the runs that did something. A run holding
 * more than `MAX_HELD_SPANS` passes its spans on as they end from then on.
 */
class IdleJobRunFilter implements SpanProcessor {
  private readonly held = new Map<string, ReadableSpan[] | 'pass' | 'drop'>();

  constructor(private readonly next: SpanProcessor) {}

  /** From now on, spans of this trace wait for `settle`. */
  hold(traceId: string): void {
    this.held.set(traceId, []);
  }

  /** Passes on (or drops) what the trace's run held, and the spans still to end, its root among them. */
  settle(traceId: string, keep: boolean): void {
    const spans = this.held.get(traceId);
    if (spans === undefined) return;
    if (Array.isArray(spans) && keep) for (const span of spans) this.next.onEnd(span);
    // The root span ends right after this and takes the decision away with it (`onEnd`).
    this.held.set(traceId, keep || spans === 'pass' ? 'pass' : 'drop');
  }

  onStart(span: Span, parentContext: Context): void {
    this.next.onStart(span, parentContext);
  }

  onEnding(span: Span): void {
    this.next.onEnding?.(span);
  }

  onEnd(span: ReadableSpan): void {
    const traceId = span.spanContext().traceId;
    const state = this.held.get(traceId);
    if (state === undefined) return this.next.onEnd(span);
    if (span.parentSpanContext === undefined) {
      // The run's root span: the decision was taken (`settle`) just before it ended.
      this.held.delete(traceId);
      if (state === 'drop') return;
      if (Array.isArray(state)) for (const heldSpan of state) this.next.onEnd(heldSpan);
      return this.next.onEnd(span);
    }
    if (state === 'drop') return;
    if (state === 'pass') return this.next.onEnd(span);
    state.push(span);
    if (state.length > MAX_HELD_SPANS) {
      for (const heldSpan of state) this.next.onEnd(heldSpan);
      this.held.set(traceId, 'pass');
    }
  }

  forceFlush(): Promise<void> {
    return this.next.forceFlush();
  }

  shutdown(): Promise<void> {
    this.held.clear();
    return this.next.shutdown();
  }
}

function nonNegative(name: string): number | undefined {
  const value = getNumberFromEnv(name);
  return value !== undefined && value >= 0 ? value : undefined;
}
