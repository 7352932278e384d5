/**
 * The entry point (`npm start`). Tracing starts first, and only then is the rest of the program imported:
 * OpenTelemetry instruments pg, fastify and node:http when they are loaded, so nothing of the program may
 * be loaded before it (ADR 0043). This file imports nothing else statically for that reason. Without an
 * OTLP endpoint `startTracing` loads nothing of OpenTelemetry.
 */
import { startTracing, TracingConfigError, type Tracing } from './observability/tracing.js';

let tracing: Tracing | undefined;
try {
  tracing = await startTracing(process.env);
} catch (error) {
  if (!(error instanceof TracingConfigError)) throw error;
  console.error(error.message);
  process.exit(1);
}
const { runGateway } = await import('./program.js');
await runGateway(tracing);
