/**
 * OpenTelemetry traces, only when an OTLP endpoint is configured (ADR 0043). This file
 * imports nothing of OpenTelemetry: without `OTEL_EXPORTER_OTLP_ENDPOINT` or
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` the SDK is never loaded, and the program gets no `Tracing` at all
 * (no hook, no wrapper, no cost). With one, `startTracing` loads and starts the SDK (./opentelemetry.ts)
 * before the entry point imports anything it instruments.
 */

import type { Tracing, TracingSettings } from './tracing-types.js';

export type { JobRunReport, OtlpProtocol, Tracing, TracingLogger, TracingSettings } from './tracing-types.js';

export class TracingConfigError extends Error {}

/**
 * Reads the standard variables. Undefined: tracing is off (no endpoint variable set, `OTEL_SDK_DISABLED`
 * true, or `OTEL_TRACES_EXPORTER=none`). Throws `TracingConfigError` for what this gateway cannot honour
 * (gRPC, another exporter, an endpoint that is not an http(s) URL).
 */
export function tracingSettings(env: NodeJS.ProcessEnv): TracingSettings | undefined {
  const tracesEndpoint = nonEmpty(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
  const genericEndpoint = nonEmpty(env.OTEL_EXPORTER_OTLP_ENDPOINT);
  if (tracesEndpoint === undefined && genericEndpoint === undefined) return undefined;
  if (nonEmpty(env.OTEL_SDK_DISABLED)?.toLowerCase() === 'true') return undefined;
  const exporters = (nonEmpty(env.OTEL_TRACES_EXPORTER) ?? 'otlp').split(',').map((name) => name.trim());
  if (exporters.includes('none')) return undefined;
  if (exporters.some((name) => name !== 'otlp'))
    throw new TracingConfigError(
      `OTEL_TRACES_EXPORTER=${env.OTEL_TRACES_EXPORTER}: only otlp (or none) is supported`,
    );
  const protocol =
    nonEmpty(env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL) ?? nonEmpty(env.OTEL_EXPORTER_OTLP_PROTOCOL);
  if (protocol !== undefined && protocol !== 'http/protobuf' && protocol !== 'http/json')
    throw new TracingConfigError(
      `OTLP protocol ${protocol}: only http/protobuf (the default) and http/json are supported`,
    );
  // As the exporter reads them: the signal's own endpoint as it is, the generic one with v1/traces.
  const generic = genericEndpoint ?? '';
  const endpoint = tracesEndpoint ?? `${generic.endsWith('/') ? generic : `${generic}/`}v1/traces`;
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw new TracingConfigError(`OTLP endpoint ${endpoint} is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new TracingConfigError(`OTLP endpoint ${endpoint} is not an http(s) URL`);
  url.username = '';
  url.password = '';
  return { endpoint: url.toString(), protocol: protocol ?? 'http/protobuf' };
}

/**
 * Starts tracing when the environment asks for it, and only then loads the SDK (a dynamic import). Must
 * run before the modules it instruments are imported: pg, fastify (and through it node:http), node:https.
 */
export async function startTracing(env: NodeJS.ProcessEnv): Promise<Tracing | undefined> {
  const settings = tracingSettings(env);
  if (!settings) return undefined;
  const { startOpenTelemetry } = await import('./opentelemetry.js');
  return startOpenTelemetry(settings);
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}
