import { randomBytes } from 'node:crypto';
import { loadConfig } from '../src/config.js';
import { openDatabase } from '../src/db/database.js';
import { startGateway } from '../src/gateway.js';
import { createLogger } from '../src/logger.js';
import { systemClock } from '../src/shared/clock.js';
import { generateEncryptionKeys, parseEncryptionKeys } from '../src/shared/secret-box.js';
import { killProgram, startProgram } from '../soak/processes.js';
import {
  baseEnv,
  gatewayEnv,
  spawnGateway,
  type BannerUrls,
  type GatewayProcess,
} from '../test/helpers/process.js';

const LISTENING = /Sandbox acquirer listening on (\S+)/;

/**
 * The sandbox acquirer as a program of its own (ADR 0046): the acquirer is another party, deployed on
 * another host, so its work must not share the measured gateway's thread. `env` is what the gateway needs
 * to call it (`SANDBOX_ACQUIRER_URL` and its credentials).
 */
export async function startAcquirerProgram() {
  const credentials = {
    SANDBOX_ACQUIRER_API_KEY: `sa_${randomBytes(16).toString('hex')}`,
    SANDBOX_ACQUIRER_NOTIFICATION_SECRET: randomBytes(32).toString('hex'),
  };
  const program = startProgram({
    name: 'acquirer',
    program: 'sandbox-acquirer/main.ts',
    args: [],
    env: { ...baseEnv(), LOG_LEVEL: 'warn', SANDBOX_ACQUIRER_PORT: '0', ...credentials },
    ready: LISTENING,
    killable: false,
  });
  await program.ready;
  const url = LISTENING.exec(program.output())?.[1] ?? '';
  return {
    url,
    apiKey: credentials.SANDBOX_ACQUIRER_API_KEY,
    pid: program.child.pid,
    env: { SANDBOX_ACQUIRER_URL: url, ...credentials },
    stop: () => killProgram(program, 'SIGTERM'),
  };
}

type AcquirerProgram = Awaited<ReturnType<typeof startAcquirerProgram>>;

/**
 * The gateway a bench measures: the built program in role `api` (plus `env`), calling a sandbox acquirer
 * program of its own; both are stopped when `work` ends.
 */
export async function withApiGateway<T>(
  env: Record<string, string>,
  work: (gateway: GatewayProcess, urls: BannerUrls, acquirer: AcquirerProgram) => Promise<T>,
): Promise<T> {
  const acquirer = await startAcquirerProgram();
  try {
    // BENCH_GATEWAY_NODE_OPTIONS: flags for the measured gateway's Node (a CPU profile, a GC setting).
    const nodeOptions = process.env.BENCH_GATEWAY_NODE_OPTIONS?.trim();
    const gateway = spawnGateway({
      env: gatewayEnv({
        ...acquirer.env,
        ROLES: 'api',
        ...(nodeOptions ? { NODE_OPTIONS: nodeOptions } : {}),
        ...env,
      }),
    });
    try {
      return await work(gateway, await gateway.waitForBanner(90_000), acquirer);
    } finally {
      gateway.child.kill('SIGTERM');
      await gateway.waitForExit(30_000).catch(() => gateway.child.kill('SIGKILL'));
    }
  } finally {
    await acquirer.stop();
  }
}

/**
 * A gateway in the bench's own process (roles api and sandbox-acquirer) on database `url`, on which a
 * section records the statements of one request of each kind.
 */
export async function startRecordingGateway(url: string) {
  const config = loadConfig(gatewayEnv({ ROLES: 'api,sandbox-acquirer', DATABASE_URL: url }));
  config.encryptionKeys ??= parseEncryptionKeys(generateEncryptionKeys());
  return startGateway({
    config,
    logger: createLogger({ level: 'warn', destination: process.stderr }),
    clock: systemClock,
    database: await openDatabase({ databaseUrl: url, poolSize: 5 }),
  });
}
