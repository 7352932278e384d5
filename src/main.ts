import { ConfigError, loadConfig, type Config } from './config.js';
import { DataDirLockedError } from './db/data-dir-lock.js';
import { startGateway, type Gateway } from './gateway.js';
import { createLogger } from './logger.js';

async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig(process.env, process.argv.slice(2));
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }
  const logger = createLogger({ level: config.logLevel });

  let gateway: Gateway;
  try {
    gateway = await startGateway({ config, logger });
  } catch (error) {
    if (error instanceof DataDirLockedError) {
      console.error(error.message);
      process.exit(1);
    }
    logger.fatal({ err: error }, 'start-up failed');
    process.exit(1);
  }
  printBanner(config, gateway);

  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    logger.info({ signal }, 'shutting down: finishing requests in flight');
    const force = setTimeout(() => {
      logger.error('shutdown timed out; exiting');
      process.exit(1);
    }, config.shutdownTimeoutMs);
    force.unref();
    gateway.close().then(
      () => {
        logger.info('stopped');
        process.exit(0);
      },
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
}

function printBanner(config: Config, gateway: Gateway): void {
  const database = config.databaseUrl
    ? 'PostgreSQL (DATABASE_URL)'
    : `embedded PGlite in ${config.dataDir} (set DATABASE_URL for PostgreSQL)`;
  const lines = [
    '',
    'Payment gateway is running',
    `  roles:    ${config.roles.join(', ')}`,
    `  database: ${database}`,
    '',
  ];
  const { urls } = gateway;
  if (urls.web) lines.push(`  Apply for a merchant account:  ${urls.web}/apply`);
  if (urls.web) lines.push(`  Merchant dashboard:            ${urls.web}/login`);
  if (urls.sandboxApi)
    lines.push(
      `  Sandbox API (sk_test_ keys):   ${urls.sandboxApi}/v1   OpenAPI: ${urls.sandboxApi}/v1/openapi.json`,
    );
  if (urls.liveApi)
    lines.push(
      `  Live API (sk_live_ keys):      ${urls.liveApi}/v1   OpenAPI: ${urls.liveApi}/v1/openapi.json`,
    );
  if (urls.operator) lines.push(`  Operator console:              ${urls.operator}`);
  if (urls.sandboxAcquirer)
    lines.push(
      `  Sandbox acquirer:              ${urls.sandboxAcquirer}   (test cards: docs/sandbox-acquirer.md)`,
    );
  lines.push('');
  const login = gateway.operatorLogin;
  if (urls.operator && login) {
    lines.push(
      `  Operator login: ${login.email}` +
        (login.password ? ` / ${login.password}` : '') +
        `   (kept in ${login.file})`,
    );
  } else if (urls.operator) {
    lines.push(
      '  Operator login: create a staff account with: npm run operator -- create-staff --email … --name … --role admin',
    );
  }
  lines.push(
    '  A ready merchant with keys and a dashboard login: npm run operator -- demo-merchant --kyc APPROVED',
  );
  // Without the api role there is no form to point at (a bare "/apply" would be no URL at all).
  if (urls.web) lines.push(`  Apply as a merchant, then approve it in the console: ${urls.web}/apply`);
  lines.push('  Stop with Ctrl+C (requests in flight finish first).', '');
  console.log(lines.join('\n'));
}

void main();
