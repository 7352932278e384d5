/**
 * The payout figures of `npm run bench` (docs/benchmarks.md), on the real PostgreSQL:
 * - `POST /v1/payouts` through the spawned gateway, spread over many funded organizations and all on one
 *   (every payout of an organization takes its available-balance lock, so one organization's payouts run
 *   one at a time);
 * - the same creation through the payout service in this process, without HTTP, authentication or the
 *   idempotency layer: the ceiling of the creation itself;
 * - the engine: every payout created above sent to the sandbox chain and confirmed by a worker process,
 *   as payouts completed per second from the worker's start to the last completion.
 */
import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { startSandboxAcquirer } from '../sandbox-acquirer/server.js';
import { startSandboxChain } from '../sandbox-chain/server.js';
import { loadConfig } from '../src/config.js';
import { openDatabase } from '../src/db/database.js';
import { startGateway } from '../src/gateway.js';
import { createLogger } from '../src/logger.js';
import { systemClock } from '../src/shared/clock.js';
import { generateEncryptionKeys } from '../src/shared/secret-box.js';
import { acquirerControl } from '../test/helpers/acquirer.js';
import { createOrganization, issueKey } from '../test/helpers/merchants.js';
import { gatewayEnv, spawnGateway, type GatewayProcess } from '../test/helpers/process.js';
import { load, loop, round } from './measure.js';

const TRON_ADDRESS = 'TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL';
/** 1 000 000 TRY per organization: room for thousands of the smallest payouts. */
const FUNDS = 100_000_000;
/** The sandbox minimum on TRON: the smallest payout, so the balance lasts. */
const PAYOUT = 10_000;

export interface PayoutBenchOptions {
  databaseUrl: string;
  durationS: number;
  connections: number;
  organizations: number;
}

export async function benchPayouts(options: PayoutBenchOptions) {
  const { databaseUrl, durationS, connections } = options;
  const acquirerCredentials = { apiKey: `sa_bench_${randomUUID()}`, notificationSecret: randomUUID() };
  const acquirer = await startSandboxAcquirer({ port: 0, ...acquirerCredentials, clock: systemClock });
  const chainKey = `sc_bench_${randomUUID()}`;
  const chain = await startSandboxChain({
    port: 0,
    apiKey: chainKey,
    clock: systemClock,
    blockIntervalMs: 250,
  });
  const encryptionKeys = generateEncryptionKeys();
  const env = (roles: string) =>
    gatewayEnv({
      ROLES: roles,
      DATABASE_URL: databaseUrl,
      DATABASE_POOL_SIZE: String(connections),
      SANDBOX_ACQUIRER_URL: acquirer.url,
      SANDBOX_ACQUIRER_API_KEY: acquirerCredentials.apiKey,
      SANDBOX_ACQUIRER_NOTIFICATION_SECRET: acquirerCredentials.notificationSecret,
      SANDBOX_CHAIN_URL: chain.url,
      SANDBOX_CHAIN_API_KEY: chainKey,
      ENCRYPTION_KEYS: encryptionKeys,
    });
  let api: GatewayProcess | undefined;
  let worker: GatewayProcess | undefined;
  try {
    // Organizations with both flags and a key, written before the gateway starts.
    const database = await openDatabase({ databaseUrl, poolSize: 4 });
    const keys: Array<{ organizationId: string; secret: string }> = [];
    for (let index = 0; index < options.organizations; index++) {
      const organizationId = await createOrganization(database.db, systemClock, {
        name: `Payout bench ${index}`,
        featureFlags: ['apiKeys', 'payouts', 'wallets'],
        // The bench creates payouts by hand from the released funds.
        payoutSchedule: 'manual',
      });
      const key = await issueKey(database.db, systemClock, organizationId, { scopes: ['all'] });
      keys.push({ organizationId, secret: key.secret });
    }

    api = spawnGateway({ env: env('api') });
    const url = (await api.waitForBanner(90_000)).sandboxApi ?? '';
    const call = async (secret: string, path: string, body: unknown) => {
      const res = await fetch(`${url}${path}`, {
        method: 'POST',
        headers: {
          'x-api-key': secret,
          'content-type': 'application/json',
          'x-idempotency-key': randomUUID(),
        },
        body: JSON.stringify(body),
      });
      if (res.status >= 300) throw new Error(`POST ${path} answered ${res.status}: ${await res.text()}`);
      return (await res.json()) as Record<string, string>;
    };
    // Each organization: a wallet, a paid charge, released to available (the same calls a merchant makes).
    const control = acquirerControl({ url: acquirer.url, apiKey: acquirerCredentials.apiKey });
    await Promise.all(
      keys.map(async ({ secret }) => {
        await call(secret, '/v1/wallets', { network: 'tron', address: TRON_ADDRESS });
        const charge = await call(secret, '/v1/charges', {
          amount: FUNDS,
          currency: 'TRY',
          paymentMethod: 'credit_card_tr',
          merchantReference: `bench-${randomUUID().replace(/-/g, '')}`,
        });
        await control.authorize(charge.providerPaymentId ?? '');
      }),
    );
    for (const { secret } of keys) {
      for (let attempt = 0; ; attempt++) {
        const settled = await call(secret, '/v1/test-helpers/settle', {});
        if (String(settled.released) === 'true') break;
        if (attempt > 100) throw new Error('a paid charge never reached the pending balance');
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }

    const create = (secrets: string[]) =>
      load({
        url,
        duration: durationS,
        connections,
        requests: [
          {
            method: 'POST',
            path: '/v1/payouts',
            setupRequest: (request) => {
              const secret = secrets[Math.floor(Math.random() * secrets.length)] ?? '';
              request.headers = {
                'x-api-key': secret,
                'content-type': 'application/json',
                'x-idempotency-key': randomUUID(),
              };
              request.body = JSON.stringify({ amount: PAYOUT });
              return request;
            },
          },
        ],
      });
    const spread = await create(keys.map((key) => key.secret));
    const single = await create([keys[0]?.secret ?? '']);

    // The ceiling of creation: the payout service in this process, the same concurrency, no HTTP.
    const inProcess = await startGateway({
      config: loadConfig({ ...env('api'), DATABASE_POOL_SIZE: String(connections) }),
      logger: createLogger({ level: 'warn', destination: new Writable({ write: (_c, _e, done) => done() }) }),
    });
    const service = await (async () => {
      try {
        return await loop(
          (index) => {
            const owner = keys[index % keys.length];
            return inProcess.services.payouts
              .create(
                { organizationId: owner?.organizationId ?? '', environment: 'sandbox' },
                { amount: PAYOUT },
              )
              .then((result) => result.ok);
          },
          durationS,
          connections,
        );
      } finally {
        await inProcess.close();
      }
    })();

    // The engine: a worker process sends and confirms every payout created above.
    const pending = await countPayouts(database, 'pending');
    const startedAt = performance.now();
    worker = spawnGateway({ env: env('worker') });
    await worker.waitForBanner(90_000);
    const deadline = startedAt + 300_000;
    let completed = 0;
    while (performance.now() < deadline) {
      completed = await countPayouts(database, 'completed');
      if (completed >= pending) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const engineSeconds = (performance.now() - startedAt) / 1000;
    await database.close();

    return {
      settings: {
        organizations: options.organizations,
        payoutAmount: PAYOUT,
        chainBlockMs: 250,
        confirmations: 3,
      },
      'POST /v1/payouts, spread over the organizations': spread,
      'POST /v1/payouts, one organization (its payouts serialise on its balance lock)': single,
      'payout service create, in process (no HTTP): the creation ceiling': service,
      ratios: {
        spreadToService:
          service.requestsPerSecond === 0
            ? null
            : round(spread.requestsPerSecond / service.requestsPerSecond),
        singleToSpread:
          spread.requestsPerSecond === 0 ? null : round(single.requestsPerSecond / spread.requestsPerSecond),
      },
      engine: {
        payouts: pending,
        completed,
        seconds: round(engineSeconds),
        completedPerSecond: round(completed / engineSeconds),
        note: 'submit: one payout per claim, drained every 2 s; confirm: ten per claim, every 5 s; includes the worker start and 3 blocks of 250 ms',
      },
    };
  } finally {
    for (const program of [api, worker]) {
      if (program && !program.exited) {
        program.child.kill('SIGTERM');
        await program.waitForExit(30_000).catch(() => program.child.kill('SIGKILL'));
      }
    }
    await chain.close();
    await acquirer.close();
  }
}

async function countPayouts(
  database: Awaited<ReturnType<typeof openDatabase>>,
  status: string,
): Promise<number> {
  const row = await database.db
    .selectFrom('payouts')
    .select((eb) => eb.fn.countAll<string>().as('count'))
    .where('status', '=', status as 'pending')
    .executeTakeFirstOrThrow();
  return Number(row.count);
}
