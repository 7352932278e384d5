/**
 * `npm run soak`: several api and worker processes of the built gateway, the sandbox acquirer and the
 * sandbox chain, on the real PostgreSQL and Redis, under a bounded mixed load (charges paid on the hosted
 * checkout, idempotent replays, refunds, webhook endpoints that refuse a share of first deliveries,
 * settlement batches with their automatic payouts on the sandbox chain), while a random api or worker
 * process is SIGKILLed every few seconds and started again. At the end, once the work has drained, it
 * checks every invariant (soak/invariants.ts) and prints the figures as one JSON document; the exit code
 * is 1 when an invariant does not hold. docs/operations.md ("The soak") describes the settings.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes, randomInt } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { openDatabase } from '../src/db/database.js';
import { createLedgerService } from '../src/modules/ledger/service.js';
import { feeRateIn } from '../src/modules/organizations/fee-rates.js';
import { projectRoot } from '../src/paths.js';
import { systemClock } from '../src/shared/clock.js';
import { checkInvariants as checkDatabaseInvariants } from '../test/helpers/invariants.js';
import { startPgBouncer, type PgBouncer } from '../test/helpers/pgbouncer.js';
import { buildProgram } from '../scripts/build.js';
import { checkInvariants, type ChainTransfer } from './invariants.js';
import { killProgram, startProgram, type ProgramSpec, type RunningProgram } from './processes.js';
import { startReceiver, type Receiver } from './receiver.js';
import { newAcknowledged, Traffic, type SoakMerchant } from './traffic.js';

const TRON_ADDRESS = 'TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL';

interface Settings {
  seconds: number;
  apis: number;
  workers: number;
  killEveryMs: number;
  merchants: number;
  concurrency: number;
  drainSeconds: number;
  serverUrl: string;
  redisUrl: string;
  keepDatabase: boolean;
  /** Through a PgBouncer of the run's own in transaction pooling mode (the default), or straight. */
  pgbouncer: boolean;
}

function readSettings(env: NodeJS.ProcessEnv): Settings {
  const int = (name: string, fallback: number, min: number, max: number) => {
    const raw = env[name]?.trim();
    if (raw === undefined || raw === '') return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min || value > max) {
      throw new Error(`${name} must be an integer from ${min} to ${max}`);
    }
    return value;
  };
  return {
    seconds: int('SOAK_SECONDS', 120, 5, 86_400),
    apis: int('SOAK_API_PROCESSES', 2, 1, 16),
    workers: int('SOAK_WORKER_PROCESSES', 2, 1, 16),
    killEveryMs: int('SOAK_KILL_EVERY_MS', 4000, 500, 600_000),
    merchants: int('SOAK_MERCHANTS', 3, 1, 50),
    concurrency: int('SOAK_CONCURRENCY', 6, 1, 200),
    drainSeconds: int('SOAK_DRAIN_SECONDS', 120, 10, 3600),
    serverUrl:
      env.SOAK_DATABASE_URL?.trim() ||
      env.DATABASE_URL?.trim() ||
      'postgres://postgres@127.0.0.1:5432/postgres',
    redisUrl: env.REDIS_URL?.trim() || 'redis://127.0.0.1:6379',
    keepDatabase: env.SOAK_KEEP_DATABASE === '1',
    pgbouncer: env.SOAK_PGBOUNCER?.trim() !== '0',
  };
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

function databaseUrl(serverUrl: string, name: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

async function main(): Promise<number> {
  const settings = readSettings(process.env);
  const started = Date.now();
  const log = (message: string) =>
    process.stderr.write(`soak +${((Date.now() - started) / 1000).toFixed(1)}s: ${message}\n`);

  // The programs run from dist/, as `npm start` runs them (`npm run build`'s transpilation).
  await buildProgram();

  const name = `gw_soak_${randomBytes(6).toString('hex')}`;
  await withClient(settings.serverUrl, (c) => c.query(`CREATE DATABASE ${name}`));
  const dbUrl = databaseUrl(settings.serverUrl, name);
  // The processes reach the database through the pooler, the migrations (and their lock) directly, as
  // docs/operations.md ("PgBouncer") deploys them.
  const bouncer = settings.pgbouncer
    ? await startPgBouncer({ serverUrl: settings.serverUrl, databases: [name], poolSize: 10 })
    : undefined;
  const workDir = mkdtempSync(path.join(os.tmpdir(), 'gw-soak-'));
  const programs = new Map<string, RunningProgram>();
  const receivers: Receiver[] = [];
  let exitCode = 1;
  try {
    const secrets = {
      acquirerKey: `sa_${randomBytes(16).toString('hex')}`,
      notificationSecret: randomBytes(32).toString('hex'),
      chainKey: `sc_${randomBytes(16).toString('hex')}`,
      encryptionKeys: `v1:${randomBytes(32).toString('base64')}`,
    };
    const acquirerPort = await freePort();
    const chainPort = await freePort();
    // The merchants' webhook receivers listen on loopback: the gateways, in production mode, may target
    // these origins and no other private address (WEBHOOK_PRIVATE_TARGET_ORIGINS, ADR 0059).
    const receiverPorts: number[] = [];
    for (let i = 0; i < settings.merchants; i += 1) receiverPorts.push(await freePort());
    const base = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_LEVEL: 'warn' };
    const specs: ProgramSpec[] = [
      {
        name: 'acquirer',
        program: 'sandbox-acquirer/main.ts',
        args: [],
        env: {
          ...base,
          SANDBOX_ACQUIRER_PORT: String(acquirerPort),
          SANDBOX_ACQUIRER_API_KEY: secrets.acquirerKey,
          SANDBOX_ACQUIRER_NOTIFICATION_SECRET: secrets.notificationSecret,
        },
        ready: /Sandbox acquirer listening on/,
        killable: false,
      },
      {
        name: 'chain',
        program: 'sandbox-chain/main.ts',
        args: [],
        env: {
          ...base,
          SANDBOX_CHAIN_PORT: String(chainPort),
          SANDBOX_CHAIN_API_KEY: secrets.chainKey,
          SANDBOX_CHAIN_BLOCK_MS: '500',
          SANDBOX_CHAIN_CONFIRMATIONS: '2',
        },
        ready: /Sandbox chain listening on/,
        killable: false,
      },
    ];
    const gatewayEnv = (dataDir: string): Record<string, string> => ({
      ...base,
      NODE_ENV: 'production',
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      DATABASE_URL: bouncer?.url(name) ?? dbUrl,
      DATABASE_MIGRATION_URL: dbUrl,
      DATABASE_POOL_SIZE: '5',
      REDIS_URL: settings.redisUrl,
      REDIS_KEY_PREFIX: `${name}:`,
      ENCRYPTION_KEYS: secrets.encryptionKeys,
      SANDBOX_ACQUIRER_URL: `http://127.0.0.1:${acquirerPort}`,
      SANDBOX_ACQUIRER_API_KEY: secrets.acquirerKey,
      SANDBOX_ACQUIRER_NOTIFICATION_SECRET: secrets.notificationSecret,
      SANDBOX_CHAIN_URL: `http://127.0.0.1:${chainPort}`,
      SANDBOX_CHAIN_API_KEY: secrets.chainKey,
      WEBHOOK_PRIVATE_TARGET_ORIGINS: receiverPorts.map((port) => `http://127.0.0.1:${port}`).join(','),
      TRUSTED_PROXIES: '127.0.0.1',
      ACQUIRER_TIMEOUT_MS: '3000',
      ACQUIRER_MAX_ATTEMPTS: '2',
      IDEMPOTENCY_LOCK_MS: '8000',
      PAYOUT_RAIL_TIMEOUT_MS: '3000',
      WEBHOOK_TIMEOUT_MS: '3000',
      SHUTDOWN_TIMEOUT_MS: '3000',
    });
    const targets = { sandboxApis: [] as string[], webs: [] as string[] };
    for (let i = 1; i <= settings.apis; i += 1) {
      const [web, sandboxApi, liveApi] = [await freePort(), await freePort(), await freePort()];
      targets.webs.push(`http://127.0.0.1:${web}`);
      targets.sandboxApis.push(`http://127.0.0.1:${sandboxApi}`);
      specs.push({
        name: `api-${i}`,
        program: 'src/main.ts',
        args: ['--roles', 'api'],
        env: {
          ...gatewayEnv(path.join(workDir, `api-${i}`)),
          WEB_PORT: String(web),
          SANDBOX_API_PORT: String(sandboxApi),
          LIVE_API_PORT: String(liveApi),
        },
        ready: /Stop with Ctrl\+C/,
        killable: true,
      });
    }
    for (let i = 1; i <= settings.workers; i += 1) {
      specs.push({
        name: `worker-${i}`,
        program: 'src/main.ts',
        args: ['--roles', 'worker'],
        env: gatewayEnv(path.join(workDir, `worker-${i}`)),
        ready: /Stop with Ctrl\+C/,
        killable: true,
      });
    }
    const start = async (spec: ProgramSpec) => {
      const program = startProgram(spec);
      programs.set(spec.name, program);
      await program.ready;
    };
    // The first gateway migrates the new database (under the migration lock); the others find it done.
    await Promise.all(
      specs.filter((s) => !s.name.startsWith('api-') && !s.name.startsWith('worker-')).map(start),
    );
    await start(specs.find((s) => s.name === 'api-1') as ProgramSpec);
    await Promise.all(specs.filter((s) => s.killable && s.name !== 'api-1').map(start));
    log(`${programs.size} programs ready`);

    const acknowledged = newAcknowledged();
    const traffic = new Traffic(targets, acknowledged);
    const merchants: Array<SoakMerchant & { receiver: Receiver }> = [];
    for (let i = 0; i < settings.merchants; i += 1) {
      merchants.push(await newMerchant(specs, traffic, receivers, i, receiverPorts[i]));
    }
    log(`${merchants.length} merchants with a default sandbox wallet and a webhook endpoint`);

    // The load, the settlement runs and the chaos loop, until the time is up.
    const loadEnds = Date.now() + settings.seconds * 1000;
    let kills = 0;
    const failures: string[] = [];
    const guard = (work: Promise<void>) =>
      work.catch((error: unknown) => {
        failures.push((error as Error).message);
      });
    const workers = Array.from({ length: settings.concurrency }, async () => {
      while (Date.now() < loadEnds)
        await guard(traffic.chargeAndPay(merchants[randomInt(merchants.length)] as SoakMerchant));
    });
    const settler = (async () => {
      while (Date.now() < loadEnds) {
        await sleep(3000 + randomInt(3000));
        await guard(traffic.settle(merchants[randomInt(merchants.length)] as SoakMerchant));
      }
    })();
    // A kill every `killEveryMs`, whatever the restarts are doing: a process may die again while it starts.
    const restarts: Array<Promise<void>> = [];
    const chaos = (async () => {
      const killable = specs.filter((s) => s.killable);
      while (Date.now() + settings.killEveryMs < loadEnds) {
        await sleep(settings.killEveryMs);
        const spec = killable[randomInt(killable.length)] as ProgramSpec;
        const victim = programs.get(spec.name);
        if (victim) await killProgram(victim);
        kills += 1;
        log(`SIGKILL ${spec.name} (${kills})`);
        restarts.push(
          sleep(200 + randomInt(800)).then(() => {
            // Not if a later kill of the same program has started it again meanwhile.
            if (programs.get(spec.name) === victim) return start(spec).catch(() => undefined);
          }),
        );
      }
      await Promise.all(restarts);
    })();
    await Promise.all([...workers, settler, chaos]);
    // The balances left pending are batched once more, after the last kill.
    for (const merchant of merchants) await guard(traffic.settle(merchant));
    log(
      `load over: ${acknowledged.charges.size} charges, ${acknowledged.paid.size} paid, ${acknowledged.refunds.size} refunds, ${kills} kills`,
    );

    // Every program up again, then wait until the work the kills interrupted has been taken up and done.
    for (const spec of specs) {
      const program = programs.get(spec.name);
      const up =
        program !== undefined &&
        !program.exited() &&
        (await program.ready.then(
          () => true,
          () => false,
        ));
      if (!up) await start(spec);
    }
    const drained = await withClient(dbUrl, async (client) => {
      const deadline = Date.now() + settings.drainSeconds * 1000;
      for (;;) {
        const { rows } = await client.query<{ open: string }>(
          `SELECT (SELECT count(*) FROM webhook_deliveries WHERE status = 'pending')
                + (SELECT count(*) FROM refunds WHERE status = 'pending')
                + (SELECT count(*) FROM payouts WHERE status IN ('pending', 'in_transit'))
                + (SELECT count(*) FROM charges WHERE creation_state = 'creating') AS open`,
        );
        if (rows[0]?.open === '0') return true;
        if (Date.now() > deadline) return false;
        await sleep(500);
      }
    });
    log(drained ? 'drained' : `not drained after ${settings.drainSeconds} s`);

    const transfers = await chainTransfers(`http://127.0.0.1:${chainPort}`, secrets.chainKey);
    const database = await openDatabase({ databaseUrl: dbUrl, poolSize: 2 });
    const databaseReport = await checkDatabaseInvariants(
      database.db,
      createLedgerService({ db: database.db, clock: systemClock, feesFor: feeRateIn }),
    ).finally(() => database.close());
    const checks = await withClient(dbUrl, (client) =>
      checkInvariants({ client, database: databaseReport, merchants, acknowledged, traffic, transfers }),
    );
    const ok = drained && failures.length === 0 && checks.every((c) => c.ok);
    const report = {
      ok,
      settings: { ...settings, serverUrl: undefined },
      seconds: (Date.now() - started) / 1000,
      processes: { api: settings.apis, worker: settings.workers, kills },
      pgbouncer: bouncer && (await pgbouncerFigures(bouncer, name)),
      acknowledged: {
        charges: acknowledged.charges.size,
        paid: acknowledged.paid.size,
        refunds: acknowledged.refunds.size,
        replays: acknowledged.replays,
        settlements: acknowledged.settlements.length,
        batches: acknowledged.settlements.filter((s) => s.batchId !== null).length,
      },
      payoutsOnChain: transfers.length,
      webhooks: {
        delivered: merchants.reduce((n, m) => n + m.receiver.delivered.size, 0),
        received: merchants.reduce((n, m) => n + m.receiver.received, 0),
        refusedOnPurpose: merchants.reduce((n, m) => n + m.receiver.refused, 0),
      },
      retried: acknowledged.retried,
      refused: acknowledged.refused,
      failures: failures.slice(0, 10),
      drained,
      checks: checks.map((c) => (c.ok ? { name: c.name, ok: true } : c)),
    };
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    exitCode = ok ? 0 : 1;
    if (!ok) {
      for (const program of programs.values())
        log(`--- ${program.spec.name} output ---\n${program.output().slice(-4000)}`);
    }
  } finally {
    await Promise.all([...programs.values()].map((p) => killProgram(p, 'SIGKILL')));
    await Promise.all(receivers.map((r) => r.close()));
    if (!settings.keepDatabase) {
      await withClient(settings.serverUrl, (c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    }
    await bouncer?.close();
    rmSync(workDir, { recursive: true, force: true });
  }
  return exitCode;
}

/**
 * A merchant as an operator makes one (`npm run operator -- demo-merchant`), with the flags payouts need,
 * a default sandbox wallet and a webhook endpoint for every event at a receiver of its own.
 */
async function newMerchant(
  specs: ProgramSpec[],
  traffic: Traffic,
  receivers: Receiver[],
  index: number,
  receiverPort: number | undefined,
): Promise<SoakMerchant & { receiver: Receiver }> {
  const env = (specs.find((s) => s.name === 'api-1') as ProgramSpec).env;
  const output = execFileSync(
    process.execPath,
    [
      path.join(projectRoot, 'dist/src/cli/operator.js'),
      'demo-merchant',
      '--kyc',
      'APPROVED',
      '--flags',
      'apiKeys,events,payouts,wallets',
      '--company',
      `Soak Merchant ${index + 1}`,
      '--email',
      `soak-${index + 1}-${randomBytes(3).toString('hex')}@merchant.example`,
    ],
    { cwd: projectRoot, env, encoding: 'utf8' },
  );
  const organizationId = /\b(org_[A-Za-z0-9]+)/.exec(output)?.[1];
  const key = /\b(sk_test_[A-Za-z0-9_]+)/.exec(output)?.[1];
  if (!organizationId || !key) throw new Error(`demo-merchant printed no organization or key:\n${output}`);
  const merchant: SoakMerchant = { organizationId, key };
  // The endpoint first, so that every event of the merchant (wallet.created first) is delivered to it.
  const receiver = await startReceiver({
    failShare: 0.2,
    ...(receiverPort === undefined ? {} : { port: receiverPort }),
  });
  receivers.push(receiver);
  const endpoint = await traffic.api(
    merchant,
    'POST',
    '/v1/webhook-endpoints',
    { url: receiver.url, enabledEvents: ['*'] },
    `soak-endpoint-${organizationId}`,
  );
  if (endpoint.status !== 201 && endpoint.status !== 200)
    throw new Error(`endpoint: ${endpoint.status} ${endpoint.text}`);
  receiver.setSecret(String(endpoint.body.secret));
  const wallet = await traffic.api(
    merchant,
    'POST',
    '/v1/wallets',
    { network: 'tron', address: TRON_ADDRESS, makeDefault: true },
    `soak-wallet-${organizationId}`,
  );
  if (wallet.status !== 201 && wallet.status !== 200)
    throw new Error(`wallet: ${wallet.status} ${wallet.text}`);
  return { ...merchant, receiver };
}

/** What the pooler saw of the run: its transactions and the clients it multiplexed on its server connections. */
async function pgbouncerFigures(bouncer: PgBouncer, database: string) {
  const stats = (await bouncer.admin('SHOW STATS')).find((row) => row.database === database);
  const pools = (await bouncer.admin('SHOW POOLS')).find((row) => row.database === database);
  return {
    poolMode: pools?.pool_mode,
    transactions: Number(stats?.total_xact_count ?? 0),
    queries: Number(stats?.total_query_count ?? 0),
    clientsNow: Number(pools?.cl_active ?? 0) + Number(pools?.cl_waiting ?? 0),
    serverConnectionsNow:
      Number(pools?.sv_active ?? 0) + Number(pools?.sv_idle ?? 0) + Number(pools?.sv_used ?? 0),
  };
}

async function chainTransfers(url: string, key: string): Promise<ChainTransfer[]> {
  const response = await fetch(`${url}/_control/transfers`, { headers: { authorization: `Bearer ${key}` } });
  if (!response.ok) throw new Error(`the chain's transfers: ${response.status}`);
  return ((await response.json()) as { data: ChainTransfer[] }).data;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`soak: ${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  },
);
