import Fastify, {
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type RawServerDefault,
} from 'fastify';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import helmet from '@fastify/helmet';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Logger } from 'pino';
import { httpRequestDuration, httpRequests } from '../metrics/registry.js';
import type { Tracing } from '../observability/tracing.js';
import { newId } from '../shared/ids.js';
import { withOutboundDeadline } from '../shared/request-budget.js';
import { isDatabaseUnavailable } from '../db/errors.js';
import { ApiError, envelope } from './errors.js';
import {
  guardRequestLine,
  MAX_JSON_DEPTH,
  refuseForbiddenText,
  scanJsonText,
  tooDeepError,
} from './input.js';
import { roundedNumberError } from './json-numbers.js';
import { cachedSerializerCompiler } from './serialization.js';
import { createValidatorCompiler, validationErrorFromFastify } from './validation.js';
import './route-config.js';

export type App = FastifyInstance<
  RawServerDefault,
  IncomingMessage,
  ServerResponse,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

export interface HttpServerOptions {
  /** The listener's name in the metrics (`web`, `sandbox-api`, `live-api`, `operator`). */
  listener: string;
  logger: Logger;
  bodyLimitBytes: number;
  trustedProxies: string[];
  /**
   * `REQUEST_TIMEOUT_MS`: how long a connection may stay silent, a request's whole answer included, and
   * how long a client may take to send its request.
   */
  requestTimeoutMs: number;
  /**
   * How long, from its arrival, a request may spend on calls to other systems (less than
   * `requestTimeoutMs`: the rest records the outcome and writes the answer, ADR 0064).
   */
  outboundBudgetMs: number;
  /** The Content-Security-Policy directives of this listener. */
  contentSecurityPolicy: Record<string, string[]>;
  /** Reports readiness; a failing check answers /readyz with 503. */
  readiness: () => Promise<void>;
  /** When set (an OTLP endpoint is configured), each request's span is named by its route template. */
  tracing?: Tracing | undefined;
}

export const API_CSP: Record<string, string[]> = {
  defaultSrc: ["'none'"],
  frameAncestors: ["'none'"],
  baseUri: ["'none'"],
  formAction: ["'none'"],
};

/**
 * The common ground of every listener: request ids, the error envelope for every failure, strict
 * security headers and health checks. Listeners add their own routes on top.
 */
export async function createHttpServer(options: HttpServerOptions): Promise<App> {
  const app = Fastify({
    loggerInstance: options.logger,
    genReqId: () => newId('req'),
    // A client must not choose our trace ids.
    requestIdHeader: false,
    bodyLimit: options.bodyLimitBytes,
    trustProxy: options.trustedProxies.length > 0 ? options.trustedProxies : false,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    // The socket's inactivity timeout: what cuts a request whose answer is late (no 408, an empty reply).
    connectionTimeout: options.requestTimeoutMs,
    requestTimeout: options.requestTimeoutMs,
    ajv: { customOptions: { strict: false } },
    clientErrorHandler: writeClientError,
    frameworkErrors: answerFrameworkError,
  }).withTypeProvider<TypeBoxTypeProvider>() as unknown as App;

  app.setValidatorCompiler(createValidatorCompiler());
  app.setSerializerCompiler(cachedSerializerCompiler);
  app.setSchemaErrorFormatter((errors, dataVar) => validationErrorFromFastify(errors as never, dataVar));
  // Only JSON bodies are accepted; text/plain would otherwise reach schemas as a string.
  app.removeContentTypeParser('text/plain');
  registerJsonParser(app);

  app.decorateRequest('idempotencyClaim', null);
  // First of all hooks: everything the request does runs in the scope of its outbound deadline, so each
  // call to another system (however many it chains) ends early enough for the answer to go out before the
  // connection's timeout.
  app.addHook('onRequest', (_request, _reply, done) => {
    withOutboundDeadline(performance.now() + options.outboundBudgetMs, done);
  });
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  app.addHook('onRequest', guardRequestLine);
  const tracing = options.tracing;
  if (tracing) {
    // The span's name is the route template (`POST /v1/charges/:id`), never the path with its ids.
    app.addHook('onRequest', async (request) => {
      const route = request.routeOptions.url;
      if (route !== undefined) tracing.nameRequest(route);
    });
  }
  // Every answer is counted and timed by its route template, never its raw path (no ids in labels).
  app.addHook('onResponse', async (request, reply) => countAnswer(options.listener, request, reply));
  // Registered before every module's hooks, so that no later hook or handler sees such text.
  app.addHook('preValidation', refuseForbiddenText);

  await app.register(helmet, {
    contentSecurityPolicy: { useDefaults: false, directives: options.contentSecurityPolicy },
    crossOriginEmbedderPolicy: false,
    hsts: { maxAge: 31_536_000, includeSubDomains: true },
    referrerPolicy: { policy: 'no-referrer' },
    xFrameOptions: { action: 'deny' },
  });

  app.setErrorHandler((error: FastifyError | ApiError, request, reply) =>
    sendError(toApiError(error), error, request, reply),
  );
  app.setNotFoundHandler((request, reply) =>
    sendError(
      new ApiError('not_found', `No route for ${request.method} ${request.url.split('?')[0]}.`),
      undefined,
      request,
      reply,
    ),
  );

  registerHealth(app, options.readiness);

  return app;
}

/**
 * Failures the router raises before any hook runs (a path parameter over 100 characters, a malformed URL)
 * get the envelope too, never Fastify's own body that echoes the path.
 */
function answerFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const apiError =
    (error as { code?: string }).code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? new ApiError('not_found', 'No such resource.')
      : ApiError.validation(
          [{ path: '', in: 'path', code: 'invalid_format', message: 'is not a valid URL path' }],
          'The request URL is malformed.',
        );
  request.log.info({ code: apiError.code, statusCode: apiError.statusCode }, 'request refused by the router');
  void (reply as unknown as FastifyReply)
    .code(apiError.statusCode)
    .header('x-request-id', request.id)
    .type('application/json; charset=utf-8')
    .send(JSON.stringify(envelope(apiError, request.id)));
}

/**
 * JSON nesting is bounded before parsing, so that no recursive walker of a body (trimming, the
 * card-number scan, canonical JSON, validation) can be driven into a stack overflow. The same pass finds
 * number literals JSON.parse may have rounded; only then is the text read again with their source, and
 * one that did not read as written is refused (ADR 0052).
 */
function registerJsonParser(app: App): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string;
    const scan = scanJsonText(text, MAX_JSON_DEPTH);
    if (scan.tooDeep) {
      done(tooDeepError(), undefined);
      return;
    }
    if (!scan.mayRound) {
      void parseJson(request, text, done);
      return;
    }
    void parseJson(request, text, (error, value) => {
      const refusal = error ?? roundedNumberError(text);
      if (refusal) done(refusal, undefined);
      else done(null, value);
    });
  });
}

function countAnswer(listener: string, request: FastifyRequest, reply: FastifyReply): void {
  const route = request.routeOptions.url ?? 'unmatched';
  httpRequests.inc({ listener, method: request.method, route, status: String(reply.statusCode) });
  httpRequestDuration.observe({ listener, method: request.method, route }, reply.elapsedTime / 1000);
}

function registerHealth(app: App, readiness: () => Promise<unknown>): void {
  app.get('/healthz', { schema: { hide: true }, config: { auth: 'public' } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { schema: { hide: true }, config: { auth: 'public' } }, async (_request, reply) => {
    try {
      await readiness();
      return { status: 'ready' };
    } catch {
      return reply.code(503).send({ status: 'unavailable' });
    }
  });
}

/**
 * Requests so malformed that HTTP parsing fails never reach a route; they still get the envelope.
 * Only the status line and our own JSON are written: nothing of the request is echoed.
 */
function writeClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
  const timedOut = error.code === 'ERR_HTTP_REQUEST_TIMEOUT';
  const requestId = newId('req');
  const apiError = tooLarge
    ? new ApiError('payload_too_large', 'The request headers are too large.')
    : ApiError.validation(
        [
          {
            path: '',
            in: 'header',
            code: 'invalid_format',
            message: timedOut ? 'The request timed out.' : 'The request is not valid HTTP.',
          },
        ],
        timedOut ? 'The request timed out.' : 'The request is not valid HTTP.',
      );
  const status = tooLarge ? 431 : timedOut ? 408 : 400;
  const body = JSON.stringify(envelope(apiError, requestId));
  socket.end(
    `HTTP/1.1 ${status} ${tooLarge ? 'Request Header Fields Too Large' : timedOut ? 'Request Timeout' : 'Bad Request'}\r\n` +
      `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
  );
}

function sendError(apiError: ApiError, cause: unknown, request: FastifyRequest, reply: FastifyReply) {
  // An answer that says when to ask again (502 provider_unavailable: 30 s, spec section 7) says it in
  // the header too, whichever route sends it.
  const retryAfter = apiError.details?.retryAfterSeconds;
  if (typeof retryAfter === 'number' && !reply.hasHeader('retry-after')) {
    reply.header('retry-after', String(retryAfter));
  }
  if (apiError.statusCode >= 500) {
    request.log.error({ err: cause ?? apiError, code: apiError.code }, 'request failed');
  } else {
    request.log.info({ code: apiError.code, statusCode: apiError.statusCode }, 'request refused');
  }
  return reply
    .code(apiError.statusCode)
    .type('application/json; charset=utf-8')
    .send(envelope(apiError, request.id));
}

const FASTIFY_ERRORS: Record<string, (error: FastifyError) => ApiError> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: () =>
    new ApiError('unsupported_media_type', 'Request bodies must be JSON (Content-Type: application/json).'),
  FST_ERR_CTP_INVALID_TYPE: () =>
    new ApiError('unsupported_media_type', 'Request bodies must be JSON (Content-Type: application/json).'),
  FST_ERR_CTP_BODY_TOO_LARGE: () => new ApiError('payload_too_large', 'The request body is too large.'),
  FST_ERR_CTP_EMPTY_JSON_BODY: () => invalidJson('The body is empty but Content-Type is application/json.'),
  FST_ERR_CTP_INVALID_JSON_BODY: () => invalidJson('The body is not valid JSON.'),
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: () => invalidJson('Content-Length does not match the body.'),
};

function invalidJson(message: string): ApiError {
  return ApiError.validation([{ path: '', in: 'body', code: 'invalid_json', message }], message);
}

export function toApiError(error: FastifyError | ApiError): ApiError {
  if (error instanceof ApiError) return error;
  // The primary lost, or not yet promoted (ADR 0040): a retry shortly succeeds, so not a 500.
  if (isDatabaseUnavailable(error)) {
    return new ApiError('service_unavailable', 'The database is unavailable; retry shortly.');
  }
  const known = error.code !== undefined ? FASTIFY_ERRORS[error.code] : undefined;
  if (known) return known(error);
  if (error instanceof SyntaxError && error.statusCode === 400)
    return invalidJson('The body is not valid JSON.');
  const status = error.statusCode ?? 500;
  if (status === 404) return new ApiError('not_found', 'Not found.');
  if (status === 413) return new ApiError('payload_too_large', 'The request body is too large.');
  if (status === 415) return new ApiError('unsupported_media_type', 'Unsupported Content-Type.');
  if (status === 503)
    return new ApiError('service_unavailable', 'The service is shutting down; retry shortly.');
  if (status >= 400 && status < 500) {
    return ApiError.validation([
      { path: '', in: 'body', code: 'invalid_value', message: 'The request is malformed.' },
    ]);
  }
  return new ApiError(
    'internal_error',
    'An internal error occurred. Quote the requestId when contacting support.',
  );
}
