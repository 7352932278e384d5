import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { loadConfig, type Config } from '../../src/config.js';
import { startGateway, type Gateway } from '../../src/gateway.js';
import type { Database } from '../../src/db/database.js';
import { createLogger } from '../../src/logger.js';
import { createManualClock, type ManualClock } from '../../src/shared/clock.js';
import { generateEncryptionKeys, parseEncryptionKeys } from '../../src/shared/secret-box.js';
import { startSandboxAcquirer, type SandboxAcquirer } from '../../sandbox-acquirer/server.js';
import { startSandboxChain, type SandboxChain } from '../../sandbox-chain/server.js';
import { openDatabase } from '../../src/db/database.js';
import { createTestDatabase, type TestDatabase } from './database.js';
import { recordingStatements } from './release-statements.js';
import { gatewayEnv } from './process.js';

export interface TestGateway {
  gateway: Gateway;
  urls: Required<Gateway['urls']>;
  clock: ManualClock;
  testDb: TestDatabase;
  /** Every log line the gateway wrote, as JSON text. */
  logs: string[];
  /** The sandbox acquirer of test keys (run in the gateway's process, role `sandbox-acquirer`). */
  sandboxAcquirer: { url: string; apiKey: string };
  /** A second sandbox acquirer program standing in for the live acquirer of live keys. */
  liveAcquirer: { url: string; apiKey: string };
  /** The sandbox chain of sandbox payouts (in the gateway's process; blocks are mined on demand). */
  sandboxChain: { url: string; apiKey: string };
  /**
   * A second sandbox chain standing in for the live network: its explorer confirms treasury payouts and
   * its rate feed is the live ticker (`CHAIN_EXPLORER_URL`, `FX_TICKER_URL`).
   */
  liveChain: { url: string; apiKey: string };
  close(): Promise<void>;
}

export interface TestGatewayOptions {
  env?: Record<string, string>;
  configure?: (config: Config) => Config;
  clock?: ManualClock;
  /** Live keys get no acquirer (live charges answer 503) instead of a stand-in. */
  withoutLiveAcquirer?: boolean;
  /** Wraps the test database before the gateway opens it (a test that watches every statement). */
  wrapDatabase?: (database: Database) => Database;
  /**
   * A PostgreSQL database that several gateways of one test share, as the instances of a deployment do;
   * the test creates and drops it. Without it each gateway gets a fresh database of its own.
   */
  sharedDatabaseUrl?: string;
  /**
   * A migrated database the test opened (a spawned program's, to seed it through the API before the
   * program runs on it); closing the gateway closes it, and the test drops it.
   */
  database?: Database;
}

/** The whole gateway, every listener on an ephemeral loopback port, against a database of its own. */
export async function startTestGateway(options: TestGatewayOptions = {}): Promise<TestGateway> {
  const clock = options.clock ?? createManualClock(new Date('2026-11-23T10:00:00.000Z'));
  const liveCredentials = {
    apiKey: `sa_live_${randomBytes(12).toString('hex')}`,
    notificationSecret: randomBytes(24).toString('hex'),
  };
  let liveAcquirer: SandboxAcquirer | undefined;
  if (!options.withoutLiveAcquirer) {
    liveAcquirer = await startSandboxAcquirer({ port: 0, ...liveCredentials, clock });
  }
  const liveChainKey = `sc_live_${randomBytes(12).toString('hex')}`;
  const liveChain: SandboxChain = await startSandboxChain({ port: 0, apiKey: liveChainKey, clock });
  const base = loadConfig(
    gatewayEnv({
      LOG_LEVEL: 'info',
      APPLICATION_RATE_LIMIT_MAX: '1000',
      // Suites send many wrong keys from loopback; the throttle's own test sets a low limit.
      API_KEY_FAILURE_LIMIT_MAX: '1000000',
      SANDBOX_CHAIN_BLOCK_MS: '0',
      CHAIN_EXPLORER_URL: liveChain.url,
      FX_TICKER_URL: `${liveChain.url}/v1/rates/TRY-USDT`,
      FX_TICKER_TIME_FIELD: 'at',
      ACQUIRER_TIMEOUT_MS: '2000',
      // Webhook receivers in tests listen on loopback; a test of the URL rules sets it back to false.
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      // Tests move the manual clock across days: the daily settlement batch would release every suite's
      // pending balances. The settlement suites turn it on.
      SETTLEMENT_CRON: 'off',
      RECONCILIATION_CRON: 'off',
      ...(liveAcquirer
        ? {
            LIVE_ACQUIRER_URL: liveAcquirer.url,
            LIVE_ACQUIRER_API_KEY: liveCredentials.apiKey,
            LIVE_ACQUIRER_NOTIFICATION_SECRET: liveCredentials.notificationSecret,
          }
        : {}),
      ...options.env,
    }),
  );
  const config = options.configure ? options.configure(base) : base;
  const logs: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      logs.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      callback();
    },
  });
  config.encryptionKeys ??= parseEncryptionKeys(generateEncryptionKeys());
  const testDb: TestDatabase =
    options.database !== undefined
      ? { database: options.database, url: undefined, drop: async () => undefined }
      : options.sharedDatabaseUrl === undefined
        ? await createTestDatabase({ migrated: true })
        : {
            database: await openDatabase({ databaseUrl: options.sharedDatabaseUrl, poolSize: 10 }),
            url: undefined, // not this gateway's to drop; closing the gateway closes its pool
            drop: async () => undefined,
          };
  const gateway = await startGateway({
    config,
    logger: createLogger({ level: config.logLevel, destination }),
    clock,
    // The release's recorder below the test's own wrapper: a test's recorder keeps what it watches.
    database: options.wrapDatabase
      ? options.wrapDatabase(recordingStatements(testDb.database))
      : recordingStatements(testDb.database),
  }).catch(async (error: unknown) => {
    await testDb.drop();
    await liveAcquirer?.close();
    await liveChain.close();
    throw error;
  });
  return {
    gateway,
    urls: gateway.urls as Required<Gateway['urls']>,
    clock,
    testDb,
    logs,
    sandboxAcquirer: gateway.sandboxAcquirer,
    liveAcquirer: { url: liveAcquirer?.url ?? '', apiKey: liveCredentials.apiKey },
    sandboxChain: gateway.sandboxChain,
    liveChain: { url: liveChain.url, apiKey: liveChainKey },
    close: async () => {
      await gateway.close();
      await liveAcquirer?.close();
      await liveChain.close();
      if (testDb.url !== undefined) await testDb.drop();
    },
  };
}
