import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import type { Config } from '../../config.js';
import type { Acquirers } from './types.js';
import { createHttpAcquirer } from './http-client.js';

export const SANDBOX_ACQUIRER_CREDENTIALS_FILE = 'sandbox-acquirer.json';
export const SANDBOX_ACQUIRER_JOURNAL_FILE = 'sandbox-acquirer.jsonl';

export interface AcquirerCredentials {
  apiKey: string;
  notificationSecret: string;
}

/**
 * The sandbox acquirer's credentials: from the configuration when set; otherwise generated once and kept
 * in DATA_DIR (mode 0600) so that a development gateway and its in-process acquirer agree across
 * restarts; in tests, generated per gateway and kept in memory.
 */
export function resolveSandboxCredentials(config: Config): AcquirerCredentials {
  const { apiKey, notificationSecret } = config.acquirers.sandbox;
  if (apiKey !== undefined && notificationSecret !== undefined) return { apiKey, notificationSecret };
  const generate = (): AcquirerCredentials => ({
    apiKey: `sa_${randomBytes(24).toString('base64url')}`,
    notificationSecret: randomBytes(32).toString('base64url'),
  });
  if (config.nodeEnv === 'test') return generate();
  const file = path.join(config.dataDir, SANDBOX_ACQUIRER_CREDENTIALS_FILE);
  if (!existsSync(file)) {
    mkdirSync(config.dataDir, { recursive: true });
    writeFileSync(file, `${JSON.stringify(generate())}\n`, { mode: 0o600, flag: 'wx' });
  }
  chmodSync(file, 0o600);
  return JSON.parse(readFileSync(file, 'utf8')) as AcquirerCredentials;
}

/** The HTTP adapters of both environments: test keys always use the sandbox acquirer (product decision 19). */
export function createAcquirers(input: {
  config: Config;
  logger: Logger;
  sandbox: AcquirerCredentials & { url: () => string };
}): Acquirers {
  const { config, logger } = input;
  const common = {
    timeoutMs: config.acquirers.timeoutMs,
    maxAttempts: config.acquirers.maxAttempts,
    logger: logger.child({ module: 'acquirer' }),
  };
  const live = config.acquirers.live;
  return {
    sandbox: {
      acquirer: createHttpAcquirer({
        ...common,
        name: 'sandbox',
        baseUrl: input.sandbox.url,
        apiKey: () => input.sandbox.apiKey,
      }),
      notificationSecret: input.sandbox.notificationSecret,
    },
    live: live && {
      acquirer: createHttpAcquirer({
        ...common,
        name: 'live',
        baseUrl: () => live.url,
        apiKey: () => live.apiKey,
      }),
      notificationSecret: live.notificationSecret,
    },
  };
}
