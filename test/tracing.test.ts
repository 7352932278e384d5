/**
 * Issue 16 item 1, traces (ADR 0043): the built gateway, spawned with an OTLP endpoint that points at a
 * receiver in this test, exports spans of its HTTP requests (named by route template), its calls to the
 * acquirer and to a webhook receiver, its job runs and (on PostgreSQL) its queries; none carries the API
 * key, the card number, the acquirer's Authorization header or any other secret. The spans are exported
 * only at the graceful stop (OTEL_BSP_SCHEDULE_DELAY is a minute), so their arrival proves the flush on
 * SIGTERM. Without an endpoint the process loads no OpenTelemetry package at all: a preloaded module
 * hook (test/fixtures/tracing/module-log.mjs) lists every package the process resolved.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tracingSettings, TracingConfigError } from '../src/observability/tracing.js';
import { projectRoot } from '../src/paths.js';
import { apiAt } from './helpers/client.js';
import { prepareProgramRun, programCleanups, programTargets, startProgram } from './helpers/crash.js';
import { passDatabase } from './helpers/database.js';
import { validCharge, type ErrorBody, type HttpResult } from './helpers/http.js';
import { eventually, spawnGateway, type GatewayProcess } from './helpers/process.js';
import { startWebhookReceiver } from './helpers/receivers.js';
import { freshCardNumber } from './helpers/charges.js';

const cleanups = programCleanups();

const CREDENTIALS = {
  apiKey: 'sa_tracing_test_key_0f3c9a71',
  notificationSecret: 'tracing-test-notification-secret-5d21',
};
/** Sent as an Authorization header with the API calls: the gateway ignores it; no span may carry it. */
const BEARER = 'bearer-token-that-must-not-be-traced-8c41';
const MODULE_LOG_HOOK = path.join(projectRoot, 'test/fixtures/tracing/module-log.mjs');

/** OTLP span kinds as OTLP/JSON writes them. */
const KIND = { internal: 1, server: 2, client: 3 } as const;

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
  arrayValue?: { values?: OtlpValue[] };
}

interface ExportedSpan {
  scope: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  attributes: Record<string, string | number | boolean | undefined>;
}

interface Export {
  path: string;
  contentType: string;
  body: Buffer;
}

/** A loopback OTLP/HTTP receiver: keeps every export as it came, and the spans of the JSON ones. */
async function startOtlpReceiver() {
  const exports: Export[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.method !== 'POST') {
        res.writeHead(405).end();
        return;
      }
      exports.push({
        path: req.url ?? '',
        contentType: req.headers['content-type'] ?? '',
        body: Buffer.concat(chunks),
      });
      const json = (req.headers['content-type'] ?? '').includes('json');
      res.writeHead(200, { 'content-type': json ? 'application/json' : 'application/x-protobuf' });
      res.end(json ? '{}' : undefined);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    exports,
    spans(): ExportedSpan[] {
      const spans: ExportedSpan[] = [];
      for (const item of exports) {
        const body = JSON.parse(item.body.toString('utf8')) as {
          resourceSpans?: Array<{
            scopeSpans?: Array<{
              scope?: { name?: string };
              spans?: Array<{
                traceId: string;
                spanId: string;
                parentSpanId?: string;
                name: string;
                kind: number;
                attributes?: Array<{ key: string; value: OtlpValue }>;
              }>;
            }>;
          }>;
        };
        for (const resource of body.resourceSpans ?? [])
          for (const scope of resource.scopeSpans ?? [])
            for (const span of scope.spans ?? [])
              spans.push({
                scope: scope.scope?.name ?? '',
                traceId: span.traceId,
                spanId: span.spanId,
                parentSpanId: span.parentSpanId ?? '',
                name: span.name,
                kind: span.kind,
                attributes: Object.fromEntries(
                  (span.attributes ?? []).map(({ key, value }) => [key, plain(value)]),
                ),
              });
      }
      return spans;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function plain(value: OtlpValue): string | number | boolean | undefined {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.arrayValue) return JSON.stringify(value.arrayValue.values?.map(plain) ?? []);
  return undefined;
}

describe('the OTEL_ variables the gateway reads', () => {
  it('is off without an endpoint variable, or when the SDK or the traces exporter is turned off', () => {
    expect(tracingSettings({ OTEL_SERVICE_NAME: 'x', OTEL_TRACES_SAMPLER: 'always_on' })).toBeUndefined();
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: ' ' })).toBeUndefined();
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
    expect(tracingSettings({ ...endpoint, OTEL_SDK_DISABLED: 'true' })).toBeUndefined();
    expect(tracingSettings({ ...endpoint, OTEL_TRACES_EXPORTER: 'none' })).toBeUndefined();
  });

  it('finds the traces endpoint as the exporter does, without credentials', () => {
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toEqual({
      endpoint: 'http://collector:4318/v1/traces',
      protocol: 'http/protobuf',
    });
    expect(
      tracingSettings({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'https://otlp.example/base/',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      }),
    ).toEqual({ endpoint: 'https://otlp.example/base/v1/traces', protocol: 'http/json' });
    expect(
      tracingSettings({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://ignored:4318',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://user:secret@otlp.example/traces',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf',
      }),
    ).toEqual({ endpoint: 'https://otlp.example/traces', protocol: 'http/protobuf' });
  });

  it('refuses what it cannot honour: gRPC, another exporter, an endpoint that is not http(s)', () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
    expect(() => tracingSettings({ ...endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toThrow(
      TracingConfigError,
    );
    expect(() => tracingSettings({ ...endpoint, OTEL_TRACES_EXPORTER: 'zipkin' })).toThrow(
      TracingConfigError,
    );
    expect(() => tracingSettings({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'collector:4318' })).toThrow(
      TracingConfigError,
    );
    expect(() => tracingSettings({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'not a url' })).toThrow(
      TracingConfigError,
    );
  });
});

const targets = programTargets(cleanups);

describe.each(targets)('OpenTelemetry traces, on $name', (target) => {
  /** A merchant (with webhooks) in a migrated database, an acquirer, and the program's environment. */
  async function prepare(prefix: string) {
    const run = await prepareProgramRun(target, cleanups, {
      prefix,
      credentials: CREDENTIALS,
      organization: { featureFlags: ['apiKeys', 'events'] },
    });
    const moduleLog = path.join(run.dataDir, 'modules.txt');
    const env: Record<string, string> = run.env({
      ROLES: 'api,worker',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      NODE_OPTIONS: `--import=${pathToFileURL(MODULE_LOG_HOOK).href}`,
      MODULE_LOG_FILE: moduleLog,
    });
    const loadedPackages = () => readFileSync(moduleLog, 'utf8').split('\n').filter(Boolean);
    return { acquirer: run.acquirer, key: run.key.secret, env, loadedPackages };
  }

  async function stop(gateway: GatewayProcess): Promise<void> {
    const exit = await gateway.stop('SIGTERM', 30_000);
    expect(exit, gateway.stdout()).toEqual({ code: 0, signal: null });
  }

  it(
    'exports request, acquirer, webhook, job and query spans at the graceful stop, and no secret',
    { timeout: 180_000 },
    async () => {
      const { acquirer, key, env, loadedPackages } = await prepare('gw-tracing-');
      const otlp = await startOtlpReceiver();
      cleanups.push(() => otlp.close());
      const hooks = await startWebhookReceiver();
      cleanups.push(() => hooks.close());
      const hooksUrl = `${hooks.url}/gateway`;

      const {
        program: gateway,
        urls,
        url: api,
      } = await startProgram({
        ...env,
        OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_SERVICE_NAME: 'gateway-under-test',
        OTEL_TRACES_SAMPLER: 'always_on',
        // Nothing is exported on a schedule during the test: what arrives came with the stop's flush.
        OTEL_BSP_SCHEDULE_DELAY: '60000',
      });
      const call = <T>(route: string, body?: unknown): Promise<HttpResult<T & ErrorBody>> =>
        apiAt<T & ErrorBody>(api, route, { body, key, headers: { authorization: `Bearer ${BEARER}` } });

      const endpoint = await call<{ id: string; secret: string }>('/v1/webhook-endpoints', {
        url: hooksUrl,
        enabledEvents: ['charge.succeeded'],
      });
      expect(endpoint.status, endpoint.text).toBe(201);
      const webhookSecret = endpoint.body.secret;
      const charge = await call<{ id: string; providerPaymentId: string }>('/v1/charges', validCharge());
      expect(charge.status, charge.text).toBe(201);
      // A key in a query string (issue 11's leak in the logs): its span's url.query must not carry it.
      const read = await call<{ id: string }>(`/v1/charges/${charge.body.id}?api_key=${key}`);
      expect(read.status, read.text).toBe(200);

      // The checkout card form: the card number reaches the gateway and the acquirer, never a span.
      const cardNumber = freshCardNumber();
      const paid = await fetch(`${urls.web}/c/${charge.body.providerPaymentId}/card?lang=en`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          holderName: 'Ayşe Yılmaz',
          cardNumber,
          expiry: '12/30',
          cvc: '123',
        }).toString(),
      });
      expect(paid.status, await paid.text()).toBe(303);
      await eventually(async () => hooks.received.length > 0, 60_000, 'the charge.succeeded webhook');

      expect(otlp.exports).toEqual([]);
      await stop(gateway);

      expect(otlp.exports.length).toBeGreaterThan(0);
      for (const item of otlp.exports) {
        expect(item.path).toBe('/v1/traces');
        expect(item.contentType).toBe('application/json');
      }
      const spans = otlp.spans();
      const resources = otlp.exports.map((item) => item.body.toString('utf8')).join('\n');
      expect(resources).toContain('"gateway-under-test"');

      // Incoming requests: a server span named by the route template, with http.route.
      const server = (name: string) => spans.find((span) => span.kind === KIND.server && span.name === name);
      const created = server('POST /v1/charges');
      expect(created, spans.map((span) => span.name).join(', ')).toBeDefined();
      expect(created?.attributes['http.route']).toBe('/v1/charges');
      expect(created?.attributes['http.response.status_code']).toBe(201);
      const retrieved = server('GET /v1/charges/:id');
      expect(retrieved?.attributes['http.route']).toBe('/v1/charges/:id');
      expect(retrieved?.attributes['url.query']).toBe('api_key=[REDACTED]');
      expect(server('POST /c/:paymentId/card')).toBeDefined();
      expect(server('POST /v1/webhook-endpoints')).toBeDefined();
      // No server span is named by a raw path.
      for (const span of spans.filter((s) => s.kind === KIND.server))
        expect(span.name).not.toMatch(/ch_|pay_|\?/);

      // The call to the acquirer: a client span in the charge's trace.
      const acquirerPort = Number(new URL(acquirer.url).port);
      const toAcquirer = spans.filter(
        (span) =>
          span.kind === KIND.client &&
          span.attributes['server.port'] === acquirerPort &&
          span.traceId === created?.traceId,
      );
      expect(toAcquirer.length).toBeGreaterThan(0);
      expect(toAcquirer[0]?.name).toBe('POST');
      // The acquirer's client is node:http since ADR 0046 (fetch before).
      expect(toAcquirer[0]?.scope).toBe('@opentelemetry/instrumentation-http');

      // The webhook delivery: a job run span and, in its trace, the call to the receiver (node:http).
      const deliveries = spans.filter(
        (span) => span.kind === KIND.internal && span.name === 'job webhook-delivery',
      );
      expect(deliveries.length).toBeGreaterThan(0);
      const delivery = deliveries.find((run) =>
        spans.some(
          (span) =>
            span.traceId === run.traceId &&
            span.kind === KIND.client &&
            span.attributes['server.port'] === hooks.port,
        ),
      );
      expect(delivery, JSON.stringify(deliveries)).toBeDefined();
      expect(delivery?.attributes['gateway.job.name']).toBe('webhook-delivery');
      expect(Number(delivery?.attributes['gateway.job.rows'])).toBeGreaterThan(0);
      expect(delivery?.parentSpanId).toBe('');
      // Runs that did nothing (every second, for every job) were not exported; a calendar job's run of
      // its period is, as the run log records it.
      for (const run of spans.filter((span) => span.name.startsWith('job '))) {
        const { 'gateway.job.rows': rows, 'gateway.job.errors': errors } = run.attributes;
        const didSomething = Number(rows) > 0 || Number(errors) > 0;
        expect(didSomething || run.attributes['gateway.job.period'] !== undefined, JSON.stringify(run)).toBe(
          true,
        );
      }

      // PostgreSQL queries through node-postgres; PGlite has no instrumentation, so no query spans there.
      const queries = spans.filter((span) => span.scope === '@opentelemetry/instrumentation-pg');
      if (passDatabase === 'postgres') {
        const statements = queries.filter((span) => span.attributes['db.query.text'] !== undefined);
        expect(statements.length).toBeGreaterThan(0);
        expect(statements.some((span) => span.traceId === created?.traceId)).toBe(true);
        expect(statements.some((span) => span.traceId === delivery?.traceId)).toBe(true);
        expect(statements.every((span) => span.attributes['db.system.name'] === 'postgresql')).toBe(true);
        // Parameterised statements, never their values (enhancedDatabaseReporting stays off).
        expect(statements.some((span) => String(span.attributes['db.query.text']).includes('$1'))).toBe(true);
      } else {
        expect(queries).toEqual([]);
      }
      for (const span of spans)
        for (const name of Object.keys(span.attributes)) {
          expect(name).not.toMatch(/^http\.(request|response)\.header\./);
          expect(name).not.toMatch(/parameters|values/);
        }

      // No secret anywhere in what left the process: span names, attributes, events, resource.
      const secrets = [
        key,
        key.slice('sk_test_'.length),
        cardNumber,
        CREDENTIALS.apiKey,
        CREDENTIALS.notificationSecret,
        BEARER,
        webhookSecret,
      ];
      for (const secret of secrets) expect(resources).not.toContain(secret);
      expect(resources).not.toMatch(/Bearer\s+[^\s"[]/);

      // The module hook saw the SDK load: the same check is what proves its absence below.
      expect(loadedPackages()).toContain('@opentelemetry/sdk-node');
    },
  );

  it(
    'speaks OTLP/HTTP protobuf by default, to the traces endpoint as given',
    { timeout: 120_000 },
    async () => {
      const { key, env } = await prepare('gw-tracing-proto-');
      const otlp = await startOtlpReceiver();
      cleanups.push(() => otlp.close());
      const { program: gateway, url: api } = await startProgram({
        ...env,
        ROLES: 'api',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${otlp.url}/collector/traces`,
        OTEL_BSP_SCHEDULE_DELAY: '60000',
      });
      const listed = await apiAt(api, '/v1/charges?limit=1', { key });
      expect(listed.status, listed.text).toBe(200);
      await stop(gateway);

      expect(otlp.exports.length).toBeGreaterThan(0);
      for (const item of otlp.exports) {
        expect(item.path).toBe('/collector/traces');
        expect(item.contentType).toBe('application/x-protobuf');
      }
      const body = Buffer.concat(otlp.exports.map((item) => item.body));
      // Strings are stored as they are in protobuf: the span's name and the default service name.
      expect(body.includes(Buffer.from('GET /v1/charges'))).toBe(true);
      expect(body.includes(Buffer.from('payment-gateway'))).toBe(true);
      expect(body.includes(Buffer.from(key))).toBe(false);
    },
  );

  it('refuses to start with a protocol it cannot speak', { timeout: 60_000 }, async () => {
    const { env } = await prepare('gw-tracing-grpc-');
    const gateway = spawnGateway({
      env: {
        ...env,
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4317',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
      },
    });
    expect(await gateway.waitForExit(30_000)).toEqual({ code: 1, signal: null });
    expect(gateway.stderr()).toContain('OTLP protocol grpc: only http/protobuf (the default) and http/json');
  });

  it('without an OTLP endpoint, loads no OpenTelemetry package', { timeout: 120_000 }, async () => {
    const { key, env, loadedPackages } = await prepare('gw-tracing-off-');
    const { program: gateway, url: api } = await startProgram({
      ...env,
      // Other OTEL_ variables alone do not turn tracing on.
      OTEL_SERVICE_NAME: 'gateway-under-test',
      OTEL_TRACES_SAMPLER: 'always_on',
    });
    const charge = await apiAt(api, '/v1/charges', { body: validCharge(), key });
    expect(charge.status, charge.text).toBe(201);
    await stop(gateway);

    const packages = loadedPackages();
    // The hook saw the program's packages, so an absence below is one.
    expect(packages).toEqual(expect.arrayContaining(['fastify', 'pg', 'pino', 'kysely']));
    // prom-client requires the API (`@opentelemetry/api`, for exemplars) whatever this gateway does; without
    // an SDK registered every call to it is a no-op. No other OpenTelemetry package may be loaded.
    expect(packages).toContain('@opentelemetry/api');
    expect(
      packages.filter((name) => name.startsWith('@opentelemetry/') && name !== '@opentelemetry/api'),
    ).toEqual([]);
  });
});
