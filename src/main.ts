/**
 * The entry point (`npm start`). Tracing starts first, and only then is the rest of the program imported:
 * OpenTelemetry instruments pg, fastify and node:http when they are loaded, so nothing of the program may
 * be loaded before it (ADR 0043). This file imports nothing else statically for that reason. Without an
 * OTLP endpoint `startTracing` loads nothing of OpenTelemetry.
 */
import module from 'node:module';
import { startTracing, TracingConfigError, type Tracing } from './observability/tracing.js';

// V8's compiled code of the program's modules is kept on disk (in the OS's temporary directory, or
// NODE_COMPILE_CACHE), so a restart does not compile every module again (ADR 0044).
module.enableCompileCache?.();

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
