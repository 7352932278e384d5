import Fastify, {
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
} from 'fastify';
import type { AddressInfo, Socket } from 'node:net';
import pino, { type Logger } from 'pino';
import { systemClock, type Clock } from '../src/shared/clock.js';
import { safeEqual, sha256Hex } from '../src/shared/crypto.js';
import { registerControlRoutes } from './control-routes.js';
import {
  registerDisputeControlRoutes,
  registerDisputeRoutes,
  type DisputeRouteDeps,
} from './dispute-routes.js';
import { DEFAULT_DISPUTE_TIMINGS, DisputeService, type DisputeTimings } from './disputes.js';
import { AcquirerError, authenticationFailed, errorBody, invalidRequest, notFound } from './errors.js';
import { CallLog, FaultTable } from './faults.js';
import { memoryJournal, openFileJournal, type Journal, type JournalEntry } from './journal.js';
import { DEFAULT_RETRY_SCHEDULE, Notifier, type RetrySchedule } from './notifier.js';
import { PaymentService } from './payments.js';
import { registerChallengePageRoutes, registerPaymentRoutes } from './routes.js';
import { AcquirerStore } from './store.js';
import { UnparsableJson } from './validation.js';

/** How to start a sandbox acquirer. */
export interface SandboxAcquirerOptions {
  /** Default '127.0.0.1'. */
  host?: string;
  /** 0 (the default) for an ephemeral port. */
  port?: number;
  /** The Bearer credential of /v1 and /_control. */
  apiKey: string;
  /** The HMAC key of notifications. */
  notificationSecret: string;
  /** Where notifications go when a payment has no notificationUrl. */
  defaultNotificationUrl?: string;
  /** Append-only JSON Lines persistence; absent: memory only. */
  journalFile?: string;
  /** Default: silent. Never receives a card number or CVC. */
  logger?: Logger;
  /** Timestamps, expiry checks and signature timestamps; timers (backoff, latency) use real time. */
  clock?: Clock;
  /** Notification delivery schedule; default 1 s initial, 5 min cap, 24 h give-up, 5 s per attempt. */
  notificationRetry?: RetrySchedule;
  /** Base URL of challenge pages (`challenge.url`); default the bound address. */
  publicUrl?: string;
  /** Real time between a dispute test card's payment and what it raises; default 3000. */
  disputeDelayMs?: number;
  /** Real time between evidence and the issuer's decision; default 5000. */
  disputeDecisionMs?: number;
  /** How often dispute deadlines are checked against `clock`; default 1000. */
  disputeDeadlineCheckMs?: number;
}

/** A running sandbox acquirer. */
export interface SandboxAcquirer {
  /** Its base URL, e.g. http://127.0.0.1:3004 (no trailing slash). */
  readonly url: string;
  /** Stops timers and notification retries, ends held connections and closes the server. */
  close(): Promise<void>;
}

const BODY_LIMIT_BYTES = 64 * 1024;

/**
 * Starts the sandbox acquirer of docs/sandbox-acquirer.md: replays its journal, listens, and resumes
 * the notifications that were still pending.
 */
export async function startSandboxAcquirer(options: SandboxAcquirerOptions): Promise<SandboxAcquirer> {
  requireSecret(options.apiKey, 'apiKey');
  requireSecret(options.notificationSecret, 'notificationSecret');
  const timings = disputeTimings(options);
  const logger = options.logger ?? pino({ level: 'silent' });
  const clock = options.clock ?? systemClock;
  const lifetime = new AbortController();
  const { journal, entries } = openJournal(options.journalFile, logger);
  const store = new AcquirerStore(journal);
  store.load(entries);

  let baseUrl = '';
  const faults = new FaultTable(clock);
  const calls = new CallLog();
  const notifier = new Notifier({
    store,
    clock,
    faults,
    logger,
    secret: options.notificationSecret,
    retry: options.notificationRetry ?? DEFAULT_RETRY_SCHEDULE,
    defaultUrl: options.defaultNotificationUrl ?? null,
    lifetime: lifetime.signal,
  });
  const payments: PaymentService = new PaymentService({
    store,
    clock,
    logger,
    challengeUrl: (challengeId) => `${baseUrl}/3ds/${challengeId}`,
    notify: (type, payment, refund) => void notifier.notify(type, payment, refund),
    disputes: {
      cardSucceeded: (payment, dispute) => disputes.planCardDispute(payment, dispute),
      heldAmount: (paymentId) => disputes.heldAmount(paymentId),
      refunded: (payment) => disputes.refunded(payment),
    },
  });
  const disputes: DisputeService = new DisputeService({
    store,
    clock,
    logger,
    timings,
    viewPayment: (payment) => payments.view(payment),
    notify: (type, payment, dispute) => void notifier.notify(type, payment, null, dispute),
  });
  const held = new Set<Socket>();
  const deps: DisputeRouteDeps = {
    store,
    payments,
    disputes,
    clock,
    faults,
    calls,
    lifetime: lifetime.signal,
    held,
  };
  const app = buildApp({ logger, apiKey: options.apiKey, deps, notifier });

  const shutdown = async () => {
    lifetime.abort();
    disputes.close();
    notifier.close();
    for (const socket of held) socket.destroy();
    await app.close();
    journal.close();
  };
  const host = options.host ?? '127.0.0.1';
  try {
    await app.listen({ host, port: options.port ?? 0 });
  } catch (error) {
    await shutdown();
    throw error;
  }
  const url = boundUrl(app.server.address() as AddressInfo);
  baseUrl = (options.publicUrl ?? url).replace(/\/+$/, '');
  notifier.resume();
  disputes.start();
  logger.info({ url }, 'sandbox acquirer listening');

  let closing: Promise<void> | null = null;
  return {
    url,
    close: () => (closing ??= shutdown()),
  };
}

function disputeTimings(options: SandboxAcquirerOptions): DisputeTimings {
  const pick = (name: keyof SandboxAcquirerOptions, fallback: number, min: number) => {
    const value = options[name] ?? fallback;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > 86_400_000) {
      throw new Error(
        `startSandboxAcquirer: ${name} must be a whole number of milliseconds, ${min} to 86400000.`,
      );
    }
    return value;
  };
  return {
    raiseDelayMs: pick('disputeDelayMs', DEFAULT_DISPUTE_TIMINGS.raiseDelayMs, 0),
    decisionDelayMs: pick('disputeDecisionMs', DEFAULT_DISPUTE_TIMINGS.decisionDelayMs, 0),
    deadlineCheckMs: pick('disputeDeadlineCheckMs', DEFAULT_DISPUTE_TIMINGS.deadlineCheckMs, 1),
  };
}

function requireSecret(value: string, name: string): void {
  if (typeof value !== 'string' || value.length === 0)
    throw new Error(`startSandboxAcquirer: ${name} is required.`);
}

function openJournal(
  file: string | undefined,
  logger: Logger,
): { journal: Journal; entries: JournalEntry[] } {
  return file ? openFileJournal(file, logger) : { journal: memoryJournal(), entries: [] };
}

function boundUrl(address: AddressInfo): string {
  const unspecified = address.address === '0.0.0.0' || address.address === '::';
  const host = unspecified ? (address.family === 'IPv6' ? '::1' : '127.0.0.1') : address.address;
  return `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`;
}

interface AppOptions {
  logger: Logger;
  apiKey: string;
  deps: DisputeRouteDeps;
  notifier: Notifier;
}

function buildApp(options: AppOptions): FastifyInstance {
  const app = Fastify({
    loggerInstance: options.logger as FastifyBaseLogger,
    bodyLimit: BODY_LIMIT_BYTES,
    forceCloseConnections: true,
    return503OnClosing: false,
    clientErrorHandler: writeClientError,
    frameworkErrors: (_error, _request, reply) => {
      void sendError(reply, invalidRequest('The request URL is malformed.'));
    },
  });
  registerBodyParsers(app);
  app.setErrorHandler((error: FastifyError | AcquirerError, request, reply) => {
    const known = toAcquirerError(error);
    if (known.httpStatus >= 500) request.log.error({ err: error }, 'sandbox acquirer: request failed');
    return sendError(reply, known);
  });
  app.setNotFoundHandler((request, reply) =>
    sendError(reply, notFound(`No route for ${request.method} ${request.url.split('?')[0] ?? ''}.`)),
  );
  app.addHook('onSend', async (_request, reply) => {
    reply.header('x-content-type-options', 'nosniff');
    reply.header('cache-control', 'no-store');
  });

  const apiKeyDigest = sha256Hex(options.apiKey);
  void app.register(async (scope) => {
    scope.addHook('onRequest', async (request) => authenticate(request.headers.authorization, apiKeyDigest));
    registerPaymentRoutes(scope, options.deps);
    registerDisputeRoutes(scope, options.deps);
    registerControlRoutes(scope, { ...options.deps, notifier: options.notifier });
    registerDisputeControlRoutes(scope, options.deps);
  });
  registerChallengePageRoutes(app, options.deps);
  return app;
}

/** JSON (an empty body is no body) and the challenge page's form; nothing else. */
function registerBodyParsers(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = body as string;
    if (text.trim() === '') {
      done(null, undefined);
      return;
    }
    try {
      done(null, JSON.parse(text));
    } catch {
      // The parser's message quotes the body, which may hold a card number: it goes nowhere. The
      // operation answers 400 when it reads the body, after fault rules and into the call log.
      done(null, new UnparsableJson());
    }
  });
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string' },
    (_request, body, done) => {
      done(null, new URLSearchParams(body as string));
    },
  );
}

/** Bearer authentication, compared in constant time (SHA-256 digests have equal lengths). */
function authenticate(header: string | undefined, apiKeyDigest: string): void {
  if (header === undefined) throw authenticationFailed('Send the API key: Authorization: Bearer <api key>.');
  const match = /^Bearer +(\S+) *$/i.exec(header);
  if (!match?.[1] || !safeEqual(sha256Hex(match[1]), apiKeyDigest)) {
    throw authenticationFailed('The API key is not valid.');
  }
}

const FASTIFY_MESSAGES: Record<string, string> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'Request bodies must be JSON (Content-Type: application/json).',
  FST_ERR_CTP_INVALID_TYPE: 'Request bodies must be JSON (Content-Type: application/json).',
  FST_ERR_CTP_BODY_TOO_LARGE: `The body is too large (at most ${BODY_LIMIT_BYTES} bytes).`,
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'Content-Length does not match the body.',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'The body is empty.',
  FST_ERR_CTP_INVALID_JSON_BODY: 'The body is not valid JSON.',
};

function toAcquirerError(error: FastifyError | AcquirerError): AcquirerError {
  if (error instanceof AcquirerError) return error;
  const status = error.statusCode ?? 500;
  if (status === 404) return notFound('Not found.');
  if (status >= 400 && status < 500) {
    return invalidRequest((error.code && FASTIFY_MESSAGES[error.code]) ?? 'The request is malformed.');
  }
  return new AcquirerError(500, 'internal_error', 'The sandbox acquirer failed; see its log.');
}

function sendError(reply: FastifyReply, error: AcquirerError): FastifyReply {
  if (error.httpStatus === 401) reply.header('www-authenticate', 'Bearer');
  return reply.code(error.httpStatus).send(errorBody(error.code, error.message, error.paymentStatus));
}

/** HTTP so malformed that no route runs still gets the envelope; nothing of the request is echoed. */
function writeClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const message =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? 'The request headers are too large.'
      : 'The request is not valid HTTP.';
  const body = JSON.stringify(errorBody('invalid_request', message, null));
  socket.end(
    `HTTP/1.1 400 Bad Request\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
