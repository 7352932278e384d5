import { Cron } from 'croner';
import { statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import ipaddr from 'ipaddr.js';
import { worstCaseCallMs } from './shared/backoff.js';
import { parseHostList } from './db/hosts.js';
import { parseEncryptionKeys, type VersionedKey } from './shared/secret-box.js';
import { outboundBudgetMs } from './shared/request-budget.js';

export const ROLES = ['api', 'operator', 'worker', 'sandbox-acquirer', 'sandbox-chain'] as const;

/**
 * Spec section 8: the daily batch runs at 03:00 UTC (`SETTLEMENT_CRON`). Also the cutoff of the dates an
 * operator runs by hand while the job is off.
 */
export const DEFAULT_SETTLEMENT_CRON = '0 3 * * *';

/**
 * A business date's settlement cutoff: the first run of the daily schedule `cron` (UTC) on that calendar
 * date. A schedule that does not run on that date (say, weekdays only and the date is a Saturday run by an
 * operator) falls back to the default schedule's run, so the default is written only here.
 */
export function settlementCutoffOn(date: string, cron: string = DEFAULT_SETTLEMENT_CRON): Date {
  return firstRunOn(cron, date) ?? (firstRunOn(DEFAULT_SETTLEMENT_CRON, date) as Date);
}

function firstRunOn(cron: string, date: string): Date | null {
  const midnight = Date.parse(`${date}T00:00:00.000Z`);
  const next = new Cron(cron, { timezone: 'UTC', paused: true }).nextRun(new Date(midnight - 1));
  return next !== null && next.toISOString().slice(0, 10) === date ? next : null;
}
export type Role = (typeof ROLES)[number];

export interface Config {
  nodeEnv: 'development' | 'production' | 'test';
  host: string;
  ports: { web: number; sandboxApi: number; liveApi: number; operator: number };
  baseUrls: { web: string; sandboxApi: string; liveApi: string; operator: string };
  databaseUrl: string | undefined;
  /** `DATABASE_READ_URL`: stale-tolerant reads (lists, exports, dashboard figures) go there (ADR 0040). */
  databaseReadUrl: string | undefined;
  /**
   * `DATABASE_MIGRATION_URL`: a direct connection to the same database for the migrations and their
   * session-level lock, when DATABASE_URL goes through a transaction pooler (PgBouncer); undefined
   * migrates through DATABASE_URL (docs/decisions/0035-pgbouncer.md).
   */
  databaseMigrationUrl: string | undefined;
  databasePoolSize: number;
  dataDir: string;
  redisUrl: string | undefined;
  redisKeyPrefix: string;
  /** `METRICS_TOKEN`: when set, `/metrics` (operator listener) needs `Authorization: Bearer <it>`. */
  metricsToken: string | undefined;
  /** Versioned AES-256-GCM keys (`v1:<base64>`); undefined outside production means "keep one in DATA_DIR". */
  encryptionKeys: VersionedKey[] | undefined;
  smtpUrl: string | undefined;
  mailFrom: string;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** Log bytes waiting for a stalled stdout before further lines are dropped and counted. */
  logBufferBytes: number;
  bodyLimitBytes: number;
  trustedProxies: string[];
  applicationRateLimit: { max: number; windowMs: number };
  /** Failed API-key authentications allowed per client address and window before 429. */
  apiKeyFailureLimit: { max: number; windowMs: number };
  shutdownTimeoutMs: number;
  /**
   * `REQUEST_TIMEOUT_MS`: how long a listener's connection may stay silent (an answer later than that is
   * cut) and how long a client may take to send its request.
   */
  requestTimeoutMs: number;
  /**
   * What a request may spend on calls to other systems, from its arrival: REQUEST_TIMEOUT_MS less the
   * time kept to record the outcome and answer (a quarter, at least a second; ADR 0064).
   */
  outboundBudgetMs: number;
  roles: Role[];
  /** How long an in-flight idempotent request (and a charge creation) holds its key before a retry may take over. */
  idempotencyLockMs: number;
  acquirers: {
    /** Unset fields: the in-process sandbox acquirer (role `sandbox-acquirer`) and credentials it generates. */
    sandbox: {
      url?: string;
      apiKey?: string;
      notificationSecret?: string;
      port: number;
      /** The in-process sandbox acquirer's dispute timings (docs/sandbox-acquirer.md); unset: its defaults. */
      disputeDelayMs?: number;
      disputeDecisionMs?: number;
    };
    /** Unset: live charges answer 503 `service_unavailable` until a live acquirer is configured. */
    live: { url: string; apiKey: string; notificationSecret: string } | undefined;
    timeoutMs: number;
    maxAttempts: number;
  };
  checkout: {
    /** `{checkout_url}` of the spec: where `paymentPageUrl` points; unset means the web listener's URL. */
    baseUrl: string | undefined;
    /** An unpaid charge expires after this long (product decision 13). */
    chargeExpiresAfterMs: number;
    /** Declined card attempts a charge allows before it fails (card-testing protection). */
    cardAttempts: number;
  };
  /** The TRY -> USDT rate of payouts (docs/payouts.md). */
  payouts: {
    /** The in-process sandbox chain's rate feed, USDT per TRY (`PAYOUT_SANDBOX_RATE`): the sandbox's rate. */
    sandboxRate: string;
    /** The live rate's HTTP ticker; unset: live payouts answer 503 `payouts_unavailable`. */
    ticker: { url: string; field: string; timeField: string | undefined; maxAgeMs: number } | undefined;
    /**
     * The sandbox chain (docs/sandbox-chain.md): the rail and explorer of sandbox payouts. Unset `url`:
     * the in-process one (role `sandbox-chain`), with an API key made at start.
     */
    sandboxChain: { url?: string; apiKey?: string; port: number; blockMs: number; confirmations: number };
    /** The block explorer that confirms live (treasury) payouts; unset, they stay in transit. */
    explorerUrl: string | undefined;
    /** Timeout of one call to a rail, an explorer or the rate ticker. */
    railTimeoutMs: number;
    /** The FX spread kept as revenue, basis points off the market rate (`PAYOUT_FX_SPREAD_BPS`). */
    spreadBps: number;
    /** How long a rate an operator entered is used (`FX_OPERATOR_RATE_MAX_AGE_SECONDS`). */
    operatorRateMaxAgeMs: number;
    /** A ticker's or the sandbox chain's rate older than this is refused (`FX_MAX_AGE_SECONDS`). */
    maxRateAgeMs: number;
  };
  /** Merchant webhooks. */
  webhooks: {
    /** Deadline of one delivery attempt: connect, send, and the first KB of the answer. */
    timeoutMs: number;
    /** Development and tests only: lets endpoints target private, loopback and link-local addresses. */
    allowPrivateTargets: boolean;
    /**
     * Origins (`http://10.0.0.5:8080`) whose private addresses endpoints may target, in any environment
     * (`WEBHOOK_PRIVATE_TARGET_ORIGINS`, ADR 0059): a receiver on an internal network named one by one,
     * never a whole range.
     */
    privateTargetOrigins: readonly string[];
    /** Attempts one worker process sends at once (`WEBHOOK_CONCURRENCY`). */
    concurrency: number;
    /** Attempts in flight to one endpoint from one worker process (`WEBHOOK_PER_ENDPOINT`). */
    perEndpoint: number;
    /** How often an idle worker looks for new deliveries (`WEBHOOK_POLL_MS`). */
    pollMs: number;
  };
  /** Wallet change controls: WALLET_CHANGE_COOLDOWN_HOURS, the default cool-down. */
  wallets: { changeCooldownHours: number };
  /** The risk engine's signals (docs/risk.md, "Signals"). */
  risk: {
    /**
     * `RISK_FINGERPRINT_KEY`: the HMAC key of card fingerprints (base64 of 32 bytes); undefined derives one
     * from ENCRYPTION_KEYS (`fingerprintKey` in src/modules/risk/signals/card.ts).
     */
    fingerprintKey: Buffer | undefined;
    /** `RISK_IP_COUNTRY_DATABASE`: the IP-to-country `.mmdb` file; default the npm package's. */
    ipCountryDatabase: string;
  };
  /** The daily settlement batch (docs/settlement.md). */
  settlement: {
    /** `SETTLEMENT_CRON` in UTC (default `0 3 * * *`, spec section 8); undefined (`off`): no daily batch. */
    cron: string | undefined;
    /**
     * `RECONCILIATION_CRON` in UTC (default `0 4 * * *`): the daily reconciliation of the acquirers'
     * settlement reports of the day before with the ledger; undefined (`off`): none.
     */
    reconciliationCron: string | undefined;
    /** `SETTLEMENT_CONCURRENCY` (default 4): chunks, then single owners, a settlement run settles at once. */
    concurrency: number;
    /**
     * `SETTLEMENT_RESUME_AFTER_SECONDS` (default 60): how long a batch stays released without its payout
     * before the worker's `settlement-resume` pass takes it up (its process was killed in between).
     */
    resumeAfterMs: number;
  };
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

/**
 * Reads every variable once and reports all problems together, each naming its variable.
 * `docs/configuration` in the README lists the same variables with their defaults.
 */
export function loadConfig(env: Env = process.env, argv: string[] = []): Config {
  const problems: string[] = [];
  const read = (name: string): string | undefined => {
    const value = env[name]?.trim();
    return value === undefined || value === '' ? undefined : value;
  };

  const oneOf = <T extends string>(name: string, allowed: readonly T[], fallback: T): T => {
    const value = read(name) ?? fallback;
    if ((allowed as readonly string[]).includes(value)) return value as T;
    problems.push(`${name} must be one of ${allowed.join(', ')} (got "${value}")`);
    return fallback;
  };
  const integer = (name: string, fallback: number, min: number, max: number): number => {
    const raw = read(name);
    if (raw === undefined) return fallback;
    if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
      problems.push(`${name} must be an integer from ${min} to ${max} (got "${raw}")`);
      return fallback;
    }
    return Number(raw);
  };
  const port = (name: string, fallback: number) => integer(name, fallback, 0, 65535);
  const url = (name: string, protocols: string[]): string | undefined => {
    const raw = read(name);
    if (raw === undefined) return undefined;
    try {
      const parsed = new URL(raw);
      if (!protocols.includes(parsed.protocol)) throw new Error('protocol');
      return raw;
    } catch {
      problems.push(`${name} must be a URL starting with ${protocols.map((p) => `${p}//`).join(' or ')}`);
      return undefined;
    }
  };
  const readers: EnvReader = { read, url, integer, problems };
  const baseUrl = (name: string, fallback: string): string => {
    const value = url(name, ['http:', 'https:']) ?? fallback;
    return value.replace(/\/+$/, '');
  };

  const nodeEnv = oneOf('NODE_ENV', ['development', 'production', 'test'] as const, 'development');
  const host = read('HOST') ?? '127.0.0.1';
  const ports = {
    web: port('WEB_PORT', 3000),
    sandboxApi: port('SANDBOX_API_PORT', 3001),
    liveApi: port('LIVE_API_PORT', 3002),
    operator: port('OPERATOR_PORT', 3003),
  };
  const displayHost = host === '0.0.0.0' || host === '::' ? 'localhost' : host;
  const baseUrls = {
    web: baseUrl('WEB_BASE_URL', `http://${displayHost}:${ports.web}`),
    sandboxApi: baseUrl('SANDBOX_API_BASE_URL', `http://${displayHost}:${ports.sandboxApi}`),
    liveApi: baseUrl('LIVE_API_BASE_URL', `http://${displayHost}:${ports.liveApi}`),
    operator: baseUrl('OPERATOR_BASE_URL', `http://${displayHost}:${ports.operator}`),
  };

  const trustedProxies = (read('TRUSTED_PROXIES') ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  for (const entry of trustedProxies) {
    if (!isCidrOrAddress(entry)) {
      problems.push(
        `TRUSTED_PROXIES must be a comma-separated list of IP addresses or CIDRs (bad entry "${entry}")`,
      );
    }
  }

  const roles = parseRoles(argv, read('ROLES'), problems);

  let encryptionKeys: VersionedKey[] | undefined;
  const rawKeys = read('ENCRYPTION_KEYS');
  if (rawKeys !== undefined) {
    try {
      encryptionKeys = parseEncryptionKeys(rawKeys);
    } catch (error) {
      problems.push(`ENCRYPTION_KEYS is invalid: ${(error as Error).message}`);
    }
  } else if (nodeEnv === 'production') {
    problems.push(
      'ENCRYPTION_KEYS is required in production (generate one with: npm run operator -- generate-encryption-key)',
    );
  }

  const acquirers = readAcquirers(readers);
  const idempotencyLockMs = integer('IDEMPOTENCY_LOCK_MS', 60_000, 1000, 3_600_000);
  const requestTimeoutMs = integer('REQUEST_TIMEOUT_MS', 30_000, 2000, 600_000);
  const worstCall = worstCaseCallMs({ timeoutMs: acquirers.timeoutMs, maxAttempts: acquirers.maxAttempts });
  if (idempotencyLockMs <= worstCall) {
    problems.push(
      `IDEMPOTENCY_LOCK_MS (${idempotencyLockMs}) must exceed the longest acquirer call, ${worstCall} ms ` +
        '(ACQUIRER_TIMEOUT_MS x ACQUIRER_MAX_ATTEMPTS plus backoff): a retry must never run beside a live request',
    );
  }

  // PostgreSQL URLs may list several hosts, libpq style (src/db/hosts.ts): `new URL` refuses those.
  const postgresUrl = (name: string): string | undefined => {
    const raw = read(name);
    if (raw === undefined) return undefined;
    try {
      parseHostList(raw);
      return raw;
    } catch (error) {
      problems.push(`${name} ${(error as Error).message}`);
      return undefined;
    }
  };
  const databaseUrl = postgresUrl('DATABASE_URL');
  const databaseReadUrl = postgresUrl('DATABASE_READ_URL');
  if (databaseReadUrl !== undefined && read('DATABASE_URL') === undefined) {
    problems.push('DATABASE_READ_URL needs DATABASE_URL (the embedded database has no replica)');
  }
  // One server, the primary itself: a single host (its client is a plain pg.Client).
  const databaseMigrationUrl = url('DATABASE_MIGRATION_URL', ['postgres:', 'postgresql:']);
  if (databaseMigrationUrl !== undefined && read('DATABASE_URL') === undefined) {
    problems.push(
      'DATABASE_MIGRATION_URL needs DATABASE_URL: it is a second way into the same PostgreSQL database',
    );
  }

  const webhookConcurrency = integer('WEBHOOK_CONCURRENCY', 128, 1, 1000);
  const allowPrivateTargets =
    oneOf('WEBHOOK_ALLOW_PRIVATE_TARGETS', ['true', 'false'] as const, 'false') === 'true';
  if (allowPrivateTargets && nodeEnv === 'production') {
    // Product decision 31 (ADR 0059): a merchant's URL could reach the metadata service or an internal host.
    problems.push(
      'WEBHOOK_ALLOW_PRIVATE_TARGETS=true is for development and tests only, never NODE_ENV=production',
    );
  }
  const privateTargetOrigins = (read('WEBHOOK_PRIVATE_TARGET_ORIGINS') ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  for (const entry of privateTargetOrigins) {
    if (originOf(entry) !== entry) {
      problems.push(
        `WEBHOOK_PRIVATE_TARGET_ORIGINS must be a comma-separated list of origins such as http://10.0.0.5:8080, each with its scheme, host and port only (bad entry "${entry}")`,
      );
    }
  }
  const config: Config = {
    nodeEnv,
    host,
    ports,
    baseUrls,
    databaseUrl,
    databaseReadUrl,
    databaseMigrationUrl,
    databasePoolSize: integer('DATABASE_POOL_SIZE', 10, 1, 1000),
    dataDir: path.resolve(read('DATA_DIR') ?? './data'),
    redisUrl: url('REDIS_URL', ['redis:', 'rediss:']),
    redisKeyPrefix: read('REDIS_KEY_PREFIX') ?? 'gw:',
    metricsToken: readMetricsToken(read('METRICS_TOKEN'), problems),
    encryptionKeys,
    smtpUrl: url('SMTP_URL', ['smtp:', 'smtps:']),
    mailFrom: read('MAIL_FROM') ?? 'Gateway <no-reply@gateway.local>',
    logLevel: oneOf(
      'LOG_LEVEL',
      ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const,
      'info',
    ),
    logBufferBytes: integer('LOG_BUFFER_BYTES', 1_048_576, 16_384, 268_435_456),
    bodyLimitBytes: integer('BODY_LIMIT_BYTES', 65_536, 1024, 10_485_760),
    trustedProxies,
    applicationRateLimit: {
      max: integer('APPLICATION_RATE_LIMIT_MAX', 10, 1, 1_000_000),
      windowMs: integer('APPLICATION_RATE_LIMIT_WINDOW_MS', 3_600_000, 1000, 86_400_000),
    },
    apiKeyFailureLimit: {
      max: integer('API_KEY_FAILURE_LIMIT_MAX', 20, 1, 1_000_000),
      windowMs: integer('API_KEY_FAILURE_LIMIT_WINDOW_MS', 60_000, 1000, 86_400_000),
    },
    shutdownTimeoutMs: integer('SHUTDOWN_TIMEOUT_MS', 10_000, 0, 600_000),
    requestTimeoutMs,
    outboundBudgetMs: outboundBudgetMs(requestTimeoutMs),
    roles,
    idempotencyLockMs,
    acquirers,
    checkout: {
      baseUrl: read('CHECKOUT_BASE_URL') === undefined ? undefined : baseUrl('CHECKOUT_BASE_URL', ''),
      chargeExpiresAfterMs: integer('CHARGE_EXPIRY_MINUTES', 1440, 1, 43_200) * 60_000,
      cardAttempts: integer('CHECKOUT_CARD_ATTEMPTS', 3, 1, 10),
    },
    payouts: readPayouts(readers),
    webhooks: {
      timeoutMs: integer('WEBHOOK_TIMEOUT_MS', 10_000, 100, 60_000),
      allowPrivateTargets,
      privateTargetOrigins,
      concurrency: webhookConcurrency,
      // A quarter of the slots by default: a slow endpoint holds at most that share of a worker.
      perEndpoint: integer('WEBHOOK_PER_ENDPOINT', Math.max(1, Math.floor(webhookConcurrency / 4)), 1, 1000),
      pollMs: integer('WEBHOOK_POLL_MS', 100, 10, 10_000),
    },
    wallets: { changeCooldownHours: integer('WALLET_CHANGE_COOLDOWN_HOURS', 24, 0, 720) },
    risk: readRisk(readers),
    settlement: {
      cron: readCron('SETTLEMENT_CRON', read('SETTLEMENT_CRON'), DEFAULT_SETTLEMENT_CRON, problems),
      reconciliationCron: readCron('RECONCILIATION_CRON', read('RECONCILIATION_CRON'), '0 4 * * *', problems),
      concurrency: integer('SETTLEMENT_CONCURRENCY', 4, 1, 64),
      resumeAfterMs: integer('SETTLEMENT_RESUME_AFTER_SECONDS', 60, 0, 86_400) * 1000,
    },
  };
  // A request's calls to other systems are cut at its outbound budget (ADR 0064): one call that could
  // never get its own timeout there is a configuration that cannot hold, refused rather than shortened.
  for (const [name, timeoutMs] of [
    ['ACQUIRER_TIMEOUT_MS', acquirers.timeoutMs],
    ['PAYOUT_RAIL_TIMEOUT_MS', config.payouts.railTimeoutMs],
  ] as const) {
    if (timeoutMs > config.outboundBudgetMs) {
      problems.push(
        `${name} (${timeoutMs}) must not exceed what a request may spend on calls to other systems, ` +
          `${config.outboundBudgetMs} ms (REQUEST_TIMEOUT_MS ${requestTimeoutMs} less the time kept to answer): ` +
          'raise REQUEST_TIMEOUT_MS or lower the timeout',
      );
    }
  }
  if (roles.includes('api') && !roles.includes('sandbox-acquirer') && acquirers.sandbox.url === undefined) {
    problems.push(
      'SANDBOX_ACQUIRER_URL is required when the sandbox-acquirer role does not run in this process ' +
        '(test keys always use the sandbox acquirer)',
    );
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

/** The readers of one `loadConfig` call, with the problems they collect. */
interface EnvReader {
  read: (name: string) => string | undefined;
  url: (name: string, protocols: string[]) => string | undefined;
  integer: (name: string, fallback: number, min: number, max: number) => number;
  problems: string[];
}

function readAcquirers({ read, url, integer, problems }: EnvReader): Config['acquirers'] {
  const credentials = (prefix: string) => ({
    url: url(`${prefix}_URL`, ['http:', 'https:'])?.replace(/\/+$/, ''),
    apiKey: read(`${prefix}_API_KEY`),
    notificationSecret: read(`${prefix}_NOTIFICATION_SECRET`),
  });
  const sandbox = credentials('SANDBOX_ACQUIRER');
  if (
    sandbox.url !== undefined &&
    (sandbox.apiKey === undefined || sandbox.notificationSecret === undefined)
  ) {
    problems.push(
      'SANDBOX_ACQUIRER_URL needs SANDBOX_ACQUIRER_API_KEY and SANDBOX_ACQUIRER_NOTIFICATION_SECRET as well',
    );
  }
  const live = credentials('LIVE_ACQUIRER');
  const liveSet = [live.url, live.apiKey, live.notificationSecret].filter((value) => value !== undefined);
  if (liveSet.length > 0 && liveSet.length < 3) {
    problems.push(
      'LIVE_ACQUIRER_URL, LIVE_ACQUIRER_API_KEY and LIVE_ACQUIRER_NOTIFICATION_SECRET go together: set all three or none',
    );
  }
  return {
    sandbox: {
      ...(sandbox.url !== undefined ? { url: sandbox.url } : {}),
      ...(sandbox.apiKey !== undefined ? { apiKey: sandbox.apiKey } : {}),
      ...(sandbox.notificationSecret !== undefined ? { notificationSecret: sandbox.notificationSecret } : {}),
      port: integer('SANDBOX_ACQUIRER_PORT', 3004, 0, 65535),
      ...(read('SANDBOX_ACQUIRER_DISPUTE_DELAY_MS') !== undefined
        ? { disputeDelayMs: integer('SANDBOX_ACQUIRER_DISPUTE_DELAY_MS', 3000, 0, 86_400_000) }
        : {}),
      ...(read('SANDBOX_ACQUIRER_DISPUTE_DECISION_MS') !== undefined
        ? { disputeDecisionMs: integer('SANDBOX_ACQUIRER_DISPUTE_DECISION_MS', 5000, 0, 86_400_000) }
        : {}),
    },
    live:
      live.url !== undefined && live.apiKey !== undefined && live.notificationSecret !== undefined
        ? { url: live.url, apiKey: live.apiKey, notificationSecret: live.notificationSecret }
        : undefined,
    timeoutMs: integer('ACQUIRER_TIMEOUT_MS', 10_000, 100, 120_000),
    maxAttempts: integer('ACQUIRER_MAX_ATTEMPTS', 3, 1, 10),
  };
}

const IP_COUNTRY_PACKAGE_FILE = '@ip-location-db/geo-whois-asn-country-mmdb/geo-whois-asn-country.mmdb';

function readRisk({ read, problems }: EnvReader): Config['risk'] {
  const rawKey = read('RISK_FINGERPRINT_KEY');
  let fingerprintKey: Buffer | undefined;
  if (rawKey !== undefined) {
    fingerprintKey = Buffer.from(rawKey, 'base64');
    if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(rawKey) || fingerprintKey.length !== 32) {
      problems.push(
        'RISK_FINGERPRINT_KEY must be 32 bytes in base64 (generate one with: openssl rand -base64 32)',
      );
      fingerprintKey = undefined;
    }
  }
  let ipCountryDatabase = read('RISK_IP_COUNTRY_DATABASE');
  if (ipCountryDatabase !== undefined) {
    ipCountryDatabase = path.resolve(ipCountryDatabase);
    if (statSync(ipCountryDatabase, { throwIfNoEntry: false })?.isFile() !== true) {
      problems.push(`RISK_IP_COUNTRY_DATABASE names no file (${ipCountryDatabase})`);
    }
  } else {
    try {
      ipCountryDatabase = createRequire(import.meta.url).resolve(IP_COUNTRY_PACKAGE_FILE);
    } catch {
      problems.push(`RISK_IP_COUNTRY_DATABASE is unset and ${IP_COUNTRY_PACKAGE_FILE} is not installed`);
      ipCountryDatabase = '';
    }
  }
  return { fingerprintKey, ipCountryDatabase };
}

const RATE = /^(0|[1-9][0-9]{0,17})(\.[0-9]{1,18})?$/;

function readPayouts({ read, url, integer, problems }: EnvReader): Config['payouts'] {
  const sandboxRate = read('PAYOUT_SANDBOX_RATE') ?? '0.0285';
  if (!RATE.test(sandboxRate) || !/[1-9]/.test(sandboxRate)) {
    problems.push(`PAYOUT_SANDBOX_RATE must be a positive decimal rate, USDT per TRY (got "${sandboxRate}")`);
  }
  const tickerUrl = url('FX_TICKER_URL', ['http:', 'https:']);
  const maxAgeMs = integer('FX_MAX_AGE_SECONDS', 900, 1, 86_400) * 1000;
  const chainUrl = url('SANDBOX_CHAIN_URL', ['http:', 'https:']);
  const chainKey = read('SANDBOX_CHAIN_API_KEY');
  if ((chainUrl === undefined) !== (chainKey === undefined)) {
    problems.push('SANDBOX_CHAIN_URL and SANDBOX_CHAIN_API_KEY go together: set both or neither');
  }
  const explorerUrl = url('CHAIN_EXPLORER_URL', ['http:', 'https:']);
  return {
    sandboxRate,
    sandboxChain: {
      ...(chainUrl !== undefined ? { url: chainUrl.replace(/\/+$/, '') } : {}),
      ...(chainKey !== undefined ? { apiKey: chainKey } : {}),
      port: integer('SANDBOX_CHAIN_PORT', 3005, 0, 65535),
      blockMs: integer('SANDBOX_CHAIN_BLOCK_MS', 3000, 0, 600_000),
      confirmations: integer('SANDBOX_CHAIN_CONFIRMATIONS', 3, 1, 100),
    },
    explorerUrl: explorerUrl?.replace(/\/+$/, ''),
    railTimeoutMs: integer('PAYOUT_RAIL_TIMEOUT_MS', 10_000, 100, 120_000),
    spreadBps: integer('PAYOUT_FX_SPREAD_BPS', 0, 0, 1000),
    operatorRateMaxAgeMs: integer('FX_OPERATOR_RATE_MAX_AGE_SECONDS', 3600, 60, 7 * 86_400) * 1000,
    maxRateAgeMs: maxAgeMs,
    ticker:
      tickerUrl === undefined
        ? undefined
        : {
            url: tickerUrl,
            field: read('FX_TICKER_FIELD') ?? 'rate',
            timeField: read('FX_TICKER_TIME_FIELD'),
            maxAgeMs,
          },
  };
}

function parseRoles(argv: string[], fromEnv: string | undefined, problems: string[]): Role[] {
  let raw = fromEnv;
  let fromArgv = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (arg === '--roles') {
      // `--roles` as the last argument has no value; it must not silently mean every role.
      raw = argv[i + 1] ?? '';
      fromArgv = true;
      i++;
    } else if (arg.startsWith('--roles=')) {
      raw = arg.slice('--roles='.length);
      fromArgv = true;
    }
  }
  if (fromArgv && raw?.trim() === '') {
    problems.push(`--roles needs a value: a comma-separated list of ${ROLES.join(', ')}, or "all"`);
    return [...ROLES];
  }
  if (raw === undefined || raw.trim() === '' || raw.trim() === 'all') return [...ROLES];
  const roles = raw.split(',').map((role) => role.trim());
  const unknown = roles.filter((role) => !(ROLES as readonly string[]).includes(role));
  if (unknown.length > 0) {
    problems.push(
      `ROLES (or --roles) must list roles from ${ROLES.join(', ')} or "all" (unknown: ${unknown.join(', ')})`,
    );
    return [...ROLES];
  }
  return [...new Set(roles)] as Role[];
}

function isCidrOrAddress(entry: string): boolean {
  try {
    if (entry.includes('/')) ipaddr.parseCIDR(entry);
    else ipaddr.parse(entry);
    return true;
  } catch {
    return false;
  }
}

/** `SETTLEMENT_CRON`, `RECONCILIATION_CRON`: a five-field cron expression in UTC, or `off`. */
function readCron(
  name: string,
  value: string | undefined,
  fallback: string,
  problems: string[],
): string | undefined {
  if (value === undefined) return fallback;
  if (value === 'off') return undefined;
  try {
    new Cron(value, { timezone: 'UTC', paused: true });
    return value;
  } catch {
    problems.push(`${name} must be a cron expression in UTC or "off" (got "${value}")`);
    return undefined;
  }
}

function readMetricsToken(value: string | undefined, problems: string[]): string | undefined {
  if (value === undefined) return undefined;
  if (value.length < 16) problems.push('METRICS_TOKEN must be at least 16 characters');
  return value;
}

/** The origin of an absolute http(s) URL (`http://host:port`, the port left out when it is the scheme's), or undefined. */
function originOf(raw: string): string | undefined {
  try {
    const url = new URL(raw);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : undefined;
  } catch {
    return undefined;
  }
}
