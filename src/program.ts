import { ConfigError, loadConfig, type Config } from './config.js';
import { DataDirLockedError } from './db/data-dir-lock.js';
import { startGateway, type Gateway } from './gateway.js';
import { createLogDestination, createLogger } from './logger.js';
import type { Tracing } from './observability/tracing.js';

/** The final flush of the log stream (and of the spans not yet exported) at exit waits at most this long. */
const FINAL_FLUSH_MS = 2000;
/** Signals that stop the gateway gracefully. */
const STOP_SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;

/**
 * The program after tracing (src/main.ts): configuration, start, banner, signals. `tracing` is undefined
 * when no OTLP endpoint is configured.
 */
export async function runGateway(tracing: Tracing | undefined): Promise<void> {
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
  // Never pino's default destination: its synchronous flush at exit spins for ever on a stalled pipe.
  const output = createLogDestination(process.stdout, { maxBufferBytes: config.logBufferBytes });
  const logger = createLogger({ level: config.logLevel, destination: output });
  if (tracing) {
    tracing.useLogger(logger);
    logger.info(
      { endpoint: tracing.endpoint, protocol: tracing.protocol },
      'tracing: spans are exported to the OTLP endpoint',
    );
  }

  const exitAfterFlush = async (code: number, flushMs = FINAL_FLUSH_MS): Promise<never> => {
    // The spans of the last requests and job runs go out with the last log lines, within the same bound.
    await Promise.all([output.drain(flushMs), tracing?.shutdown(Date.now() + flushMs)]);
    process.exit(code);
  };
  const forceExit = (reason: string): never => {
    // Nothing is awaited here: the line goes to the stream's buffer (or is dropped), and we are gone.
    try {
      logger.error({ droppedLogLines: output.dropped }, reason);
    } finally {
      process.exit(1);
    }
  };

  // The program runs until it is told to stop, whatever its roles: a worker-only process has no
  // listener, and the worker's timers are unref'd (they hold no embedding program or test open), so
  // without this handle it would exit, with code 0, as soon as its database connections went idle.
  const keepAlive = setInterval(() => undefined, 2 ** 31 - 1);

  let resolveStarted: (gateway: Gateway | undefined) => void = () => undefined;
  const started = new Promise<Gateway | undefined>((resolve) => (resolveStarted = resolve));
  let closing = false;
  const shutdown = (signal: string) => {
    // A repeated signal changes nothing: `npm start` forwards the supervisor's SIGTERM (or the terminal's
    // SIGINT) that the process group already delivered, so one stop often arrives twice.
    if (closing) return;
    closing = true;
    clearInterval(keepAlive);
    const deadline = Date.now() + config.shutdownTimeoutMs;
    logger.info({ signal }, 'shutting down: finishing requests in flight');
    // Not unref'd: the forced exit fires even if everything else has gone quiet without finishing.
    setTimeout(
      () => forceExit(`shutdown timed out after ${config.shutdownTimeoutMs} ms; exiting`),
      config.shutdownTimeoutMs,
    );
    // A signal during start-up stops the gateway once it is up (a failed start exits on its own).
    void started.then(async (gateway) => {
      if (!gateway) return;
      let code = 0;
      try {
        await gateway.close({ deadline });
        logger.info('stopped');
      } catch (error) {
        logger.error({ err: error }, 'shutdown failed');
        code = 1;
      }
      // The final flush has a short deadline of its own, within what is left of the shutdown's.
      await exitAfterFlush(code, Math.max(0, Math.min(FINAL_FLUSH_MS, deadline - Date.now())));
    });
  };
  for (const signal of STOP_SIGNALS) process.on(signal, () => shutdown(signal));

  logger.info({ roles: config.roles, node: process.version }, 'starting the gateway');
  let gateway: Gateway;
  try {
    gateway = await startGateway({ config, logger, tracing });
  } catch (error) {
    resolveStarted(undefined);
    if (error instanceof DataDirLockedError) console.error(error.message);
    else logger.fatal({ err: error }, 'start-up failed');
    return exitAfterFlush(1);
  }
  resolveStarted(gateway);
  if (!closing) printBanner(config, gateway);
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
  if (urls.sandboxChain)
    lines.push(
      `  Sandbox chain:                 ${urls.sandboxChain}   (sandbox payouts: docs/sandbox-chain.md)`,
    );
  lines.push('');
  const login = gateway.operatorLogin;
  if (urls.operator && login) {
    // The password is shown on the start that created it only; afterwards it is in the file (0600).
    lines.push(
      login.password
        ? `  Operator login: ${login.email} / ${login.password}   (kept in ${login.file})`
        : `  Operator login: ${login.email}   (password in ${login.file})`,
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
