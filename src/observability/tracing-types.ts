/**
 * The types of tracing (ADR 0043), apart from ./tracing.ts, which loads ./opentelemetry.ts: the SDK side
 * names them too, and a file of types alone keeps the two without a cycle.
 */

/** What the running program asks of tracing; the SDK's own instrumentations do the rest. */
export interface Tracing {
  /** Where the spans go, for the start-up log line (no credentials). */
  readonly endpoint: string;
  readonly protocol: OtlpProtocol;
  /** Names the server span of the request being handled after its route template (`POST /v1/charges`). */
  nameRequest(route: string): void;
  /**
   * Runs one run of a background job as a root span of its own (`job <name>`), its queries and calls as
   * children; rows and errors of its report become attributes.
   */
  jobRun<T extends JobRunReport | void>(job: string, run: () => Promise<T>): Promise<T>;
  /** OpenTelemetry's own warnings and errors (an export that failed) go to this log from now on. */
  useLogger(logger: TracingLogger): void;
  /** Exports the spans not yet sent and stops; gives up at `deadline` (epoch ms). */
  shutdown(deadline: number): Promise<void>;
}

export interface JobRunReport {
  rows: number;
  errors: number;
  periodStart?: Date;
}

export interface TracingLogger {
  warn(object: object, message: string): void;
  error(object: object, message: string): void;
}

export type OtlpProtocol = 'http/protobuf' | 'http/json';

export interface TracingSettings {
  /** The traces endpoint as the exporter will use it (`…/v1/traces` added to the generic endpoint). */
  endpoint: string;
  protocol: OtlpProtocol;
}
