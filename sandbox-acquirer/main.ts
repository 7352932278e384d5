/**
 * `npm run sandbox-acquirer`: the sandbox acquirer alone. Configuration comes from the environment
 * (see docs/sandbox-acquirer.md, "Running it alone"); it prints its URL and stops on SIGINT or SIGTERM.
 */
import pino from 'pino';
import { readSandboxAcquirerEnv } from './env.js';
import { startSandboxAcquirer } from './server.js';

async function main(): Promise<void> {
  let settings;
  try {
    settings = readSandboxAcquirerEnv(process.env);
  } catch (error) {
    console.error(`sandbox-acquirer: ${(error as Error).message}`);
    process.exit(1);
  }
  const logger = pino({ level: settings.logLevel, base: { service: 'sandbox-acquirer' } });
  const acquirer = await startSandboxAcquirer({ ...settings.options, logger });
  process.stdout.write(`Sandbox acquirer listening on ${acquirer.url}\n`);

  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'sandbox acquirer stopping');
    acquirer.close().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'sandbox acquirer: close failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  console.error('sandbox-acquirer: failed to start:', error);
  process.exit(1);
});
