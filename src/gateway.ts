import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import type { AddressInfo, Socket } from 'node:net';
import path from 'node:path';
import swagger from '@fastify/swagger';
import fastifyStatic from '@fastify/static';
import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import { openDatabase, type Database } from './db/database.js';
import { migrateThrough, readMigrations } from './db/migrator.js';
import { registerRateLimit } from './http/rate-limit.js';
import { API_CSP, createHttpServer, type App } from './http/server.js';
import { ApiError, envelope } from './http/errors.js';
import { addScrapeSource, scrape } from './metrics/registry.js';
import { applicationPage } from './modules/applications/page.js';
import { applicationRoutes } from './modules/applications/routes.js';
import { migrationsDir, webDir } from './paths.js';
import { systemClock, type Clock } from './shared/clock.js';
import { createRenderer, PAGE_CSP, type Renderer } from './web/render.js';
import { startWorker, type Worker } from './worker/worker.js';
import { backgroundJobs } from './jobs.js';
import { createServices, resolveSecretBox, type Services, type Urls } from './services.js';
import { dashboardModule } from './modules/dashboard/index.js';
import { checkoutModule } from './modules/checkout/index.js';
import { apiKeysModule } from './modules/api-keys/index.js';
import { operatorModule } from './modules/operator/index.js';
import {
  createAcquirers,
  resolveSandboxCredentials,
  SANDBOX_ACQUIRER_JOURNAL_FILE,
} from './modules/acquirer/index.js';
import { chargeRoutes } from './modules/charges/routes.js';
import { balanceRoutes } from './modules/ledger/routes.js';
import { refundRoutes } from './modules/refunds/routes.js';
import { providerNotificationRoutes } from './modules/charges/notification-routes.js';
import { cardNumberGuard, isUnscannedFormMember, refuseCardNumbers } from './http/card-data.js';
import { webhookRoutes } from './modules/webhooks/routes.js';
import { eventRoutes } from './modules/events/routes.js';
import { settlementRoutes, settlementTestHelperRoutes } from './modules/settlement/routes.js';
import { walletRoutes } from './modules/wallets/routes.js';
import { customerRoutes } from './modules/customers/index.js';
import { fileRoutes } from './modules/files/index.js';
import { disputeRatioRoutes } from './modules/disputes/ratios/routes.js';
import { disputeRefundRuleRoutes } from './modules/disputes/refund-rules/routes.js';
import { disputeRoutes } from './modules/disputes/routes.js';
import { payoutRoutes } from './modules/payouts/routes.js';
import { exportRoutes } from './modules/exports/routes.js';
import { startSandboxAcquirer, type SandboxAcquirer } from '../sandbox-acquirer/server.js';
import { startSandboxChain, type SandboxChain } from '../sandbox-chain/server.js';
import type { Tracing } from './observability/tracing.js';
import { CLI_TOKEN_FILE, DATABASE_KIND_FILE } from './data-dir-files.js';

export type Environment = 'sandbox' | 'live';
export const API_VERSION = '0.2.0';

export interface GatewayOptions {
  config: Config;
  logger: Logger;
  clock?: Clock;
  /** An already open database (tests); otherwise one is opened from the configuration. */
  database?: Database;
  /** OpenTelemetry, started by src/main.ts when an OTLP endpoint is configured (ADR 0043). */
  tracing?: Tracing;
}

export interface Gateway {
  readonly urls: Partial<
    Record<'web' | 'sandboxApi' | 'liveApi' | 'operator' | 'sandboxAcquirer' | 'sandboxChain', string>
  >;
  readonly database: Database;
  readonly services: Services;
  /** How to log in to the operator console, when the gateway created or knows the first account. */
  readonly operatorLogin: { email: string; password?: string; file: string } | undefined;
  /** The bearer token of the local operator CLI (embedded database only). */
  readonly operatorCliToken: string | undefined;
  /** The sandbox acquirer the sandbox environment uses: its base URL and API key (for its `/_control`). */
  readonly sandboxAcquirer: { url: string; apiKey: string };
  /** The sandbox chain sandbox payouts go to: its base URL and API key (for its `/_control`). */
  readonly sandboxChain: { url: string; apiKey: string };
  /**
   * Graceful stop: listeners stop taking requests and finish those in flight while the worker finishes
   * or hands back its work; then storage closes. `deadline` (epoch ms) bounds the waits for background
   * work; the caller's forced exit bounds everything else.
   */
  close(options?: { deadline?: number }): Promise<void>;
}

export const BOOTSTRAP_ADMIN_FILE = 'operator-admin.txt';
export const BOOTSTRAP_ADMIN_EMAIL = 'admin@gateway.local';

export type { Services } from './services.js';

interface ListenerContext {
  config: Config;
  logger: Logger;
  services: Services;
  database: Database;
  renderer: Renderer;
  redis: Redis | undefined;
  isShuttingDown: () => boolean;
  operatorCliToken: string | undefined;
  tracing: Tracing | undefined;
  /** The OpenAPI paths of the web listener's `/v1/auth/…` endpoints, once it is built. */
  accountPaths: () => Record<string, unknown>;
  /** The base URL a listener answers on: configured, or the bound port when the port was 0. */
  urlOf: (name: ListenerName) => string;
}

type ListenerName = 'web' | 'sandboxApi' | 'liveApi' | 'operator';

export async function startGateway(options: GatewayOptions): Promise<Gateway> {
  const { config, logger } = options;
  const clock = options.clock ?? systemClock;
  if (!options.database) logger.info(describeDatabaseOpening(config), 'opening the database');
  const database =
    options.database ??
    (await openDatabase({
      databaseUrl: config.databaseUrl,
      readDatabaseUrl: config.databaseReadUrl,
      poolSize: config.databasePoolSize,
      dataDir: config.dataDir,
      onStaleLock: (ownerPid) =>
        logger.warn(
          { dataDir: config.dataDir, ownerPid },
          `recovered the DATA_DIR lock left by process ${ownerPid}, which is no longer running ` +
            '(killed or crashed); the embedded database recovers from its write-ahead log',
        ),
    }));
  const listeners: App[] = [];
  let worker: Worker | undefined;
  let redis: Redis | undefined;
  let sandboxAcquirer: SandboxAcquirer | undefined;
  let sandboxChain: SandboxChain | undefined;
  let shuttingDown = false;
  let cliTokenFile: string | undefined;
  let created: Services | undefined;

  const removeCliTokenFile = () => {
    if (cliTokenFile) rmSync(cliTokenFile, { force: true });
  };
  /** Each listener's open connections, to find the ones that never sent a byte (`closeListener`). */
  const connections = new Map<App, Set<Socket>>();
  /**
   * Closes a listener once its requests in flight are answered. Fastify closes the keep-alive connections
   * that are idle when the close begins; one that turns idle later (a request that was still being
   * answered, or the acquirer's notification that arrived and got its 503) would hold the close for the
   * whole keep-alive timeout, so idle connections are swept until the listener has closed. Node counts a
   * connection that has not sent its first request as busy (it waits for headers), so neither Fastify nor
   * `closeIdleConnections` closes it: one a client opened and never used (a load balancer's spare
   * connection, a client library's connection opened after an aborted download) held the close for the
   * whole connection timeout (30 s). The sweep also destroys those that have not sent a single byte: no
   * request is on them.
   */
  const closeListener = async (listener: App) => {
    const sweep = setInterval(() => {
      listener.server.closeIdleConnections();
      for (const socket of connections.get(listener) ?? []) {
        if (socket.bytesRead === 0) socket.destroy();
      }
    }, 100);
    try {
      await listener.close();
    } finally {
      clearInterval(sweep);
    }
  };
  let removeScrapeSource: () => void = () => undefined;
  const close = async (closeOptions: { deadline?: number } = {}) => {
    shuttingDown = true;
    // Listeners and the worker together: in-flight requests finish and new ones are refused, while the
    // worker hands back what it claimed but has not started and waits for what it has.
    // Storage closes last.
    await Promise.allSettled([...listeners.map(closeListener), worker?.stop(closeOptions.deadline)]);
    // Password resets answered before their work finish before storage closes.
    await created?.users.passwordResetsSettled();
    removeCliTokenFile();
    removeScrapeSource();
    process.removeListener('exit', removeCliTokenFile);
    await sandboxAcquirer?.close();
    await sandboxChain?.close();
    redis?.disconnect();
    await database.close();
  };

  try {
    const applied = await migrateThrough(
      database,
      config.databaseMigrationUrl,
      readMigrations(migrationsDir),
      (progress) => {
        if (progress.kind === 'pending')
          logger.info({ pending: progress.total }, `migrating: ${progress.total} migration(s) to apply`);
        else
          logger.info(
            { migration: progress.name, ms: progress.ms },
            `migration ${progress.index}/${progress.total} applied`,
          );
      },
    );
    if (applied.length > 0) logger.info({ migrations: applied }, 'migrations applied');

    if (config.redisUrl) {
      redis = new Redis(config.redisUrl, {
        maxRetriesPerRequest: 1,
        enableOfflineQueue: false,
        lazyConnect: false,
      });
      redis.on('error', (error) => logger.warn({ err: error }, 'redis connection error'));
    }

    const urls: Gateway['urls'] = {};
    const urlOf = (name: ListenerName) => urls[name] ?? config.baseUrls[name];
    const publicUrls: Urls = {
      web: () => urlOf('web'),
      sandboxApi: () => urlOf('sandboxApi'),
      liveApi: () => urlOf('liveApi'),
      operator: () => urlOf('operator'),
      checkout: () => config.checkout.baseUrl ?? urlOf('web'),
    };

    // The sandbox acquirer first: a separate program, run in this process when its role is asked for.
    const sandboxCredentials = resolveSandboxCredentials(config);
    if (config.roles.includes('sandbox-acquirer')) {
      sandboxAcquirer = await startSandboxAcquirer({
        host: config.host,
        port: config.acquirers.sandbox.port,
        ...sandboxCredentials,
        defaultNotificationUrl: `${publicUrls.sandboxApi()}/webhooks/v1/payments`,
        ...(config.acquirers.sandbox.disputeDelayMs !== undefined
          ? { disputeDelayMs: config.acquirers.sandbox.disputeDelayMs }
          : {}),
        ...(config.acquirers.sandbox.disputeDecisionMs !== undefined
          ? { disputeDecisionMs: config.acquirers.sandbox.disputeDecisionMs }
          : {}),
        ...(config.nodeEnv === 'test' || options.database
          ? {}
          : { journalFile: path.join(config.dataDir, SANDBOX_ACQUIRER_JOURNAL_FILE) }),
        logger: logger.child({ role: 'sandbox-acquirer' }),
        clock,
      });
      urls.sandboxAcquirer = sandboxAcquirer.url;
    }
    const sandboxAcquirerUrl = () => config.acquirers.sandbox.url ?? urls.sandboxAcquirer ?? '';
    // The sandbox chain of sandbox payouts: a separate program, run in this process when its role is asked
    // for (in memory: its key is made at each start unless configured).
    const chainKey = config.payouts.sandboxChain.apiKey ?? `sc_${randomBytes(24).toString('hex')}`;
    if (config.roles.includes('sandbox-chain') && config.payouts.sandboxChain.url === undefined) {
      sandboxChain = await startSandboxChain({
        host: config.host,
        port: config.payouts.sandboxChain.port,
        apiKey: chainKey,
        confirmations: config.payouts.sandboxChain.confirmations,
        blockIntervalMs: config.payouts.sandboxChain.blockMs,
        rate: config.payouts.sandboxRate,
        rateFollowsClock: true,
        clock,
        logger: logger.child({ role: 'sandbox-chain' }),
      });
      urls.sandboxChain = sandboxChain.url;
    }
    const sandboxChainUrl = () => config.payouts.sandboxChain.url ?? urls.sandboxChain ?? '';
    const services = createServices({
      database,
      clock,
      config,
      logger,
      urls: publicUrls,
      box: resolveSecretBox(config),
      acquirers: createAcquirers({
        config,
        logger,
        sandbox: { ...sandboxCredentials, url: sandboxAcquirerUrl },
      }),
      sandboxChain: { url: sandboxChainUrl, apiKey: chainKey },
    });
    created = services;
    const operatorLogin = await bootstrapOperatorAdmin(services);

    // With the embedded database only this process can open it, so the CLI goes through the operator
    // API with a token that only someone who can read DATA_DIR (and so the database) can read.
    let operatorCliToken: string | undefined;
    if (config.roles.includes('operator')) {
      operatorCliToken = randomBytes(32).toString('base64url');
      // On either database: the CLI finds the running gateway here instead of opening a database itself.
      if (!options.database) cliTokenFile = path.join(config.dataDir, CLI_TOKEN_FILE);
    }
    if (!options.database) recordDatabaseKind(config);
    const context: ListenerContext = {
      config,
      logger,
      services,
      database,
      renderer: createRenderer({ cache: config.nodeEnv === 'production' }),
      redis,
      isShuttingDown: () => shuttingDown,
      operatorCliToken,
      tracing: options.tracing,
      accountPaths: () => ({}),
      urlOf,
    };

    const listen = async (name: ListenerName, build: () => Promise<App>, port: number) => {
      logger.info({ listener: name, port }, `starting the ${name} listener`);
      const app = await build();
      listeners.push(app);
      const open = new Set<Socket>();
      connections.set(app, open);
      app.server.on('connection', (socket: Socket) => {
        open.add(socket);
        socket.once('close', () => open.delete(socket));
      });
      await app.listen({ host: config.host, port });
      const actualPort = (app.server.address() as AddressInfo).port;
      urls[name] = port === 0 ? `http://${urlHost(config.host)}:${actualPort}` : config.baseUrls[name];
    };

    if (config.roles.includes('api')) {
      await listen('sandboxApi', () => buildApiApp(context, 'sandbox'), config.ports.sandboxApi);
      await listen('liveApi', () => buildApiApp(context, 'live'), config.ports.liveApi);
      await listen('web', () => buildWebApp(context), config.ports.web);
    }
    if (config.roles.includes('operator')) {
      await listen('operator', () => buildOperatorApp(context), config.ports.operator);
      if (cliTokenFile && operatorCliToken) {
        mkdirSync(config.dataDir, { recursive: true });
        writeFileSync(
          cliTokenFile,
          JSON.stringify({
            url: urlOf('operator'),
            token: operatorCliToken,
            pid: process.pid,
            database: config.databaseUrl ? 'postgresql' : 'embedded',
          }),
          { mode: 0o600 },
        );
        // Gone on every exit path this process runs code on, not only after a clean close.
        process.on('exit', removeCliTokenFile);
      }
    }
    if (config.roles.includes('worker')) {
      worker = startWorker(backgroundJobs(services), logger.child({ role: 'worker' }), options.tracing);
    }
    // What only a query can tell, read when Prometheus scrapes this process's /metrics.
    removeScrapeSource = addScrapeSource({
      webhookBacklog: () => services.webhooks.endpoints.backlog(),
      jobQueues: () => services.jobs.dueStats(),
    });
    return {
      urls,
      database,
      services,
      operatorLogin,
      operatorCliToken,
      sandboxAcquirer: { url: sandboxAcquirerUrl(), apiKey: sandboxCredentials.apiKey },
      sandboxChain: { url: sandboxChainUrl(), apiKey: chainKey },
      close,
    };
  } catch (error) {
    await close().catch(() => undefined);
    throw error;
  }
}

function recordDatabaseKind(config: Config): void {
  mkdirSync(config.dataDir, { recursive: true });
  writeFileSync(
    path.join(config.dataDir, DATABASE_KIND_FILE),
    `${JSON.stringify({ database: config.databaseUrl ? 'postgresql' : 'embedded' })}\n`,
    { mode: 0o600 },
  );
}

/**
 * In development, a database without staff gets a first admin whose password is written, once, to
 * DATA_DIR/operator-admin.txt (mode 0600) and printed by that first `npm start` only: later
 * starts name the file, and the password never goes into a log line. Production creates staff with the
 * CLI (`npm run operator -- create-staff`).
 */
async function bootstrapOperatorAdmin(services: Services): Promise<Gateway['operatorLogin']> {
  const { config } = services;
  const file = path.join(config.dataDir, BOOTSTRAP_ADMIN_FILE);
  if (config.nodeEnv !== 'development') return undefined;
  const { staff } = services;
  if ((await staff.count()) > 0) {
    return existsSync(file) ? { email: BOOTSTRAP_ADMIN_EMAIL, file } : undefined;
  }
  const password = randomBytes(15).toString('base64url');
  const created = await staff.create({
    email: BOOTSTRAP_ADMIN_EMAIL,
    name: 'Development admin',
    role: 'admin',
    password,
  });
  if (!created.ok) throw new Error(`the first operator account was refused: ${created.error.code}`);
  mkdirSync(config.dataDir, { recursive: true });
  writeFileSync(file, `email: ${BOOTSTRAP_ADMIN_EMAIL}\npassword: ${password}\n`, { mode: 0o600 });
  services.logger.info({ email: BOOTSTRAP_ADMIN_EMAIL, file }, 'created the first operator account');
  return { email: BOOTSTRAP_ADMIN_EMAIL, password, file };
}

function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '::') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}

async function baseServer(
  context: ListenerContext,
  listener: string,
  csp: Record<string, string[]>,
): Promise<App> {
  return createHttpServer({
    listener,
    logger: context.logger.child({ listener }),
    bodyLimitBytes: context.config.bodyLimitBytes,
    trustedProxies: context.config.trustedProxies,
    requestTimeoutMs: context.config.requestTimeoutMs,
    outboundBudgetMs: context.config.outboundBudgetMs,
    contentSecurityPolicy: csp,
    tracing: context.tracing,
    readiness: async () => {
      if (context.isShuttingDown()) throw new Error('shutting down');
      await context.database.ping();
    },
  });
}

/** The route limits of the public listeners (the API's and the web's), in the `public` namespace. */
function registerPublicRateLimit(app: App, context: ListenerContext): Promise<void> {
  return registerRateLimit(app, {
    redis: context.redis,
    keyPrefix: context.config.redisKeyPrefix,
    namespace: 'public',
    subjectKey: context.services.box.deriveKey('throttle-subject'),
  });
}

/** The public API of one environment: sandbox (test keys) or live (live keys), each on its own listener. */
async function buildApiApp(context: ListenerContext, environment: Environment): Promise<App> {
  const app = await baseServer(context, `${environment}-api`, API_CSP);
  await registerOpenApi(
    app,
    environment,
    () => context.urlOf(environment === 'sandbox' ? 'sandboxApi' : 'liveApi'),
    () => context.accountPaths(),
  );
  await registerPublicRateLimit(app, context);
  // Authentication of every route of this listener not marked `config: { auth: 'public' }`.
  await app.register(apiKeysModule, {
    apiKeys: context.services.apiKeys,
    db: context.services.db,
    clock: context.services.clock,
    logger: context.logger,
    box: context.services.box,
    idempotencyStore: context.services.idempotencyStore,
    redisKeyPrefix: context.config.redisKeyPrefix,
    failureLimit: context.config.apiKeyFailureLimit,
    environment,
    redis: context.redis,
  });
  // Card data never reaches the API (product decision 16): checked before any route reads a body.
  app.addHook('preValidation', refuseCardNumbers);
  const idempotency = { store: context.services.idempotencyStore, clock: context.services.clock };
  await app.register(chargeRoutes, {
    service: context.services.charges,
    idempotency,
  });
  await app.register(balanceRoutes, { ledger: context.services.ledger });
  await app.register(refundRoutes, {
    service: context.services.refunds,
    idempotency,
  });
  // Its own scope: the raw-body parser of the signed notifications stays inside it.
  await app.register(providerNotificationRoutes, {
    inbox: context.services.notifications,
    environment,
    acquirer: () => {
      const configured = context.services.acquirers[environment];
      return (
        configured && { name: configured.acquirer.name, notificationSecret: configured.notificationSecret }
      );
    },
    clock: context.services.clock,
  });
  await app.register(applicationRoutes, {
    service: context.services.applications,
    idempotency,
  });
  await app.register(webhookRoutes, {
    service: context.services.webhooks.endpoints,
    charges: context.services.charges,
    idempotency,
    box: context.services.box,
  });
  await app.register(eventRoutes, { feed: context.services.eventFeed });
  if (environment === 'sandbox') {
    await app.register(settlementTestHelperRoutes, { settlement: context.services.settlementBatches });
  }
  await app.register(settlementRoutes, { settlement: context.services.settlementBatches });
  await app.register(walletRoutes, {
    service: context.services.wallets,
    idempotency,
  });
  await app.register(customerRoutes, {
    service: context.services.customers,
    idempotency,
  });
  await app.register(fileRoutes, { service: context.services.files, idempotency });
  await app.register(disputeRatioRoutes, { service: context.services.disputeRatios });
  await app.register(disputeRoutes, { service: context.services.disputes, idempotency });
  await app.register(disputeRefundRuleRoutes, { service: context.services.disputeRefundRules });
  await app.register(payoutRoutes, {
    service: context.services.payouts,
    idempotency,
  });
  await app.register(exportRoutes, {
    sources: {
      charges: context.services.charges,
      refunds: context.services.refunds,
      payouts: context.services.payouts,
      ledger: context.services.ledger,
    },
  });
  return app;
}

/** Public pages: the application form now; the dashboard and the hosted checkout join it later. */
async function buildWebApp(context: ListenerContext): Promise<App> {
  const app = await baseServer(context, 'web', PAGE_CSP);
  await registerAccountOpenApi(app, context);
  await app.register(fastifyStatic, {
    root: path.join(webDir, 'assets'),
    prefix: '/assets/',
    index: false,
    cacheControl: true,
    maxAge: context.config.nodeEnv === 'production' ? '1h' : 0,
  });
  await registerPublicRateLimit(app, context);
  await app.register(applicationRoutes, {
    service: context.services.applications,
    idempotency: { store: context.services.idempotencyStore, clock: context.services.clock },
  });
  await app.register(applicationPage, { renderer: context.renderer });
  await app.register(cookie);
  await app.register(formbody);
  const { services } = context;
  await app.register(dashboardModule, {
    users: services.users,
    sessions: services.sessions,
    clock: services.clock,
    urls: services.urls,
    apiKeys: services.apiKeys,
    webhooks: services.webhooks.endpoints,
    wallets: services.wallets,
    settlements: services.settlementBatches,
    payouts: services.payouts,
    customers: services.customers,
    charges: services.charges,
    activity: services.activity,
    eventFeed: services.eventFeed,
    refunds: services.refunds,
    ledger: services.ledger,
    events: services.eventLookup,
    branding: services.branding,
    disputeRefundRules: services.disputeRefundRules,
    disputes: services.disputes,
    files: services.files,
    disputeRatios: services.disputeRatios,
    renderer: context.renderer,
  });
  await app.register(checkoutModule, {
    checkout: services.checkout,
    branding: services.branding,
    clock: services.clock,
    checkoutUrl: () => services.urls.checkout(),
    renderer: context.renderer,
  });
  return app;
}

/** The operator console and operator API, on a listener meant for an internal network. */
async function buildOperatorApp(context: ListenerContext): Promise<App> {
  const app = await baseServer(context, 'operator', PAGE_CSP);
  await app.register(fastifyStatic, { root: path.join(webDir, 'assets'), prefix: '/assets/', index: false });
  await app.register(cookie);
  await app.register(formbody);
  await registerRateLimit(app, {
    redis: context.redis,
    keyPrefix: context.config.redisKeyPrefix,
    namespace: 'operator',
    subjectKey: context.services.box.deriveKey('throttle-subject'),
  });
  registerMetrics(app, context.config.metricsToken);
  // Staff text (a rejection reason, a freeze note) is audited and e-mailed: no card number in it either.
  app.addHook('preValidation', cardNumberGuard({ exempt: isUnscannedFormMember }));
  const { services } = context;
  await app.register(operatorModule, {
    commands: services.operator,
    staff: services.staff,
    underwriting: services.underwriting,
    organizations: services.organizations,
    apiKeys: services.apiKeys,
    alerts: services.alerts,
    ledger: services.ledger,
    mailer: services.mailer,
    audit: services.audit,
    db: services.db,
    jobs: services.jobs,
    wallets: { service: services.wallets, commands: services.walletOperator },
    payouts: services.payouts,
    refunds: services.refunds,
    settlement: services.settlementBatches,
    reconciliation: services.reconciliation,
    disputeRatios: services.disputeRatios,
    disputes: services.disputes,
    bins: services.bins,
    merchants: {
      clock: services.clock,
      charges: services.charges,
      chargeActivity: services.activity.charges,
      ledger: services.ledger,
      settlement: services.settlementBatches,
      payouts: services.payouts,
      webhooks: services.webhooks.endpoints,
      branding: services.branding,
      disputes: services.disputes,
      disputeRatios: services.disputeRatios,
    },
    sessions: services.sessions,
    cursors: services.cursors,
    renderer: context.renderer,
    baseUrl: () => context.urlOf('operator'),
    cliToken: context.operatorCliToken,
  });
  return app;
}

/**
 * `/metrics` in the Prometheus text format (docs/operations.md): on the operator listener, which is meant
 * for an internal network; with `METRICS_TOKEN` set, only for `Authorization: Bearer <token>`.
 */
function registerMetrics(app: App, token: string | undefined): void {
  const expected = token === undefined ? undefined : createHash('sha256').update(token).digest();
  app.get('/metrics', { schema: { hide: true }, config: { auth: 'public' } }, async (request, reply) => {
    if (expected !== undefined) {
      const header = request.headers.authorization ?? '';
      const given = createHash('sha256')
        .update(header.startsWith('Bearer ') ? header.slice('Bearer '.length) : '')
        .digest();
      if (!timingSafeEqual(given, expected)) {
        return reply
          .code(401)
          .header('www-authenticate', 'Bearer')
          .send(envelope(new ApiError('unauthorized', 'A valid metrics token is required.'), request.id));
      }
    }
    const metrics = await scrape();
    return reply.header('content-type', metrics.contentType).send(metrics.body);
  });
}

async function registerOpenApi(
  app: App,
  environment: Environment,
  baseUrl: () => string,
  accountPaths: () => Record<string, unknown>,
): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: `Payment Gateway API (${environment})`,
        version: API_VERSION,
        description:
          'Charges in Turkish lira through a hosted checkout, signed webhooks and daily USDT settlement. ' +
          'Every failure uses the error envelope `{ error: { code, message, requestId, details? } }`. ' +
          (environment === 'sandbox'
            ? 'This is the sandbox: use `sk_test_` keys; no real money moves.'
            : 'This is the live environment: use `sk_live_` keys; traffic is billable.'),
        license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
        contact: { name: 'Gateway support', email: 'support@gateway.invalid' },
      },
      servers: [{ url: 'http://localhost', description: environment }],
      tags: [
        { name: 'Applications', description: 'Apply for a merchant account.' },
        {
          name: 'Charges',
          description:
            'Charges in Turkish lira: create one, redirect the customer to its `paymentPageUrl`, then retrieve ' +
            'or list them.',
        },
        {
          name: 'Balance',
          description:
            'What the gateway owes your organization in this environment: pending, available and in transit.',
        },
        {
          name: 'Refunds',
          description: 'Refund all or part of a succeeded charge, and list the refunds of a charge.',
        },
        {
          name: 'Wallets',
          description:
            'USDT wallets on TRON and Ethereum that payouts go to (feature flag `wallets`); live changes take ' +
            'effect after an owner confirms them and a cool-down.',
        },
        {
          name: 'Payouts',
          description:
            'Pay the available balance as USDT to a wallet, list payouts and the transactions each carries ' +
            '(feature flag `payouts`; without it 503 `payouts_unavailable`).',
        },
        {
          name: 'Exports',
          description:
            'CSV files of the charges, refunds and payouts created in a range of UTC days, streamed (docs/exports.md).',
        },
        {
          name: 'Disputes',
          description:
            'Disputes, inquiries, early fraud warnings and pre-dispute alerts the acquirer reports on your ' +
            'charges: answer with evidence or accept, and set the rules that refund alerts in time (feature ' +
            'flag `disputes`, docs/disputes.md).',
        },
        {
          name: 'Dispute ratios',
          description:
            "The card schemes' dispute ratios of your organization, per month and scheme, with the " +
            'projection to month end (feature flag `disputes`, docs/dispute-ratios.md).',
        },
        {
          name: 'Files',
          description:
            'Evidence files (PDF, PNG, JPEG, checked by their bytes), served only to their owner (feature flag ' +
            '`disputes`, docs/files.md).',
        },
        {
          name: 'Provider notifications',
          description:
            "The receiver of the acquirer's signed payment notifications; for the acquirer, not for merchants.",
        },
        {
          name: 'API keys',
          description: 'Create, list, retrieve and revoke API keys (feature flag `apiKeys`).',
        },
        {
          name: 'Webhook endpoints',
          description:
            'Register URLs that receive signed events, rotate their secrets, read the delivery log and retry ' +
            'deliveries.',
        },
        {
          name: 'Events',
          description:
            'The events feed: every event of this environment, as webhooks carry it (feature flag `events`).',
        },
        {
          name: 'Account',
          description:
            'Dashboard account self-service, served by the web listener (each path names its server): ' +
            'password reset, password change and TOTP two-factor authentication.',
        },
      ],
      components: {
        securitySchemes: {
          ApiKey: {
            type: 'apiKey',
            in: 'header',
            name: 'X-API-Key',
            description: '`sk_test_…` or `sk_live_…`.',
          },
          DashboardSession: {
            type: 'apiKey',
            in: 'cookie',
            name: 'gw_session',
            description:
              'The dashboard session cookie set by `/login` on the web listener; writes also need its CSRF ' +
              'token in the `X-CSRF-Token` header.',
          },
        },
      },
      security: [{ ApiKey: [] }],
    },
  });
  app.get('/v1/openapi.json', { schema: { hide: true }, config: { auth: 'public' } }, async () => {
    const document = app.swagger() as {
      paths?: Record<string, unknown>;
      components?: Record<string, unknown>;
    };
    return {
      ...document,
      servers: [{ url: baseUrl(), description: environment }],
      // The account self-service endpoints are served by the web listener, next to the dashboard.
      paths: { ...document.paths, ...accountPaths() },
    };
  });
}

const PUBLIC_ACCOUNT_ROUTES = new Set(['/v1/auth/forgot-password', '/v1/auth/reset-password']);

/**
 * The web listener's `/v1/auth/…` endpoints (forgot and reset password, change password, two-factor)
 * belong in the API document too. They are documented from their own route schemas, each path with a
 * `servers` entry naming the web listener, and a cookie session where one is needed.
 */
async function registerAccountOpenApi(app: App, context: ListenerContext): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Account self-service', version: API_VERSION },
      components: {
        securitySchemes: { DashboardSession: { type: 'apiKey', in: 'cookie', name: 'gw_session' } },
      },
    },
    transform: ({ schema, url }) => {
      const route = schema as Record<string, unknown> | undefined;
      if (!url.startsWith('/v1/auth/') || route === undefined)
        return { schema: { ...route, hide: true }, url };
      const operationId = url
        .slice('/v1/auth/'.length)
        .split(/[/-]/)
        .map((part, index) => (index === 0 || part === '' ? part : part[0]?.toUpperCase() + part.slice(1)))
        .join('')
        .replace(/^2fa/, 'twoFactor');
      return {
        schema: {
          ...route,
          operationId: `account${operationId[0]?.toUpperCase()}${operationId.slice(1)}`,
          tags: ['Account'],
          security: PUBLIC_ACCOUNT_ROUTES.has(url) ? [] : [{ DashboardSession: [] }],
        },
        url,
      };
    },
  });
  context.accountPaths = () => {
    const document = app.swagger() as { paths?: Record<string, Record<string, unknown>> };
    return Object.fromEntries(
      Object.entries(document.paths ?? {})
        .filter(([route]) => route.startsWith('/v1/auth/'))
        .map(([route, item]) => [
          route,
          { ...item, servers: [{ url: context.urlOf('web'), description: 'web' }] },
        ]),
    );
  };
}

/**
 * The log line before the database opens. An embedded database that does not exist yet is created first
 * (PGlite's initdb), the longest step of a first start, so the line says so.
 */
function describeDatabaseOpening(config: Config): Record<string, unknown> {
  if (config.databaseUrl) return { database: 'postgresql' };
  const dataDir = path.join(config.dataDir, 'pglite');
  return existsSync(dataDir)
    ? { database: 'pglite', dataDir }
    : { database: 'pglite', dataDir, creating: true, note: 'first start: creating the embedded database' };
}
