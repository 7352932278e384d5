/**
 * `npm run sandbox-chain`: the sandbox chain alone (docs/sandbox-chain.md). SANDBOX_CHAIN_API_KEY is
 * required; SANDBOX_CHAIN_PORT (default 3005), SANDBOX_CHAIN_BLOCK_MS (default 3000) and
 * SANDBOX_CHAIN_CONFIRMATIONS (default 3) are optional. It prints its URL and stops on SIGINT or SIGTERM.
 */
import pino from 'pino';
import { startSandboxChain } from './server.js';

async function main(): Promise<void> {
  const apiKey = process.env.SANDBOX_CHAIN_API_KEY?.trim();
  if (!apiKey) {
    console.error('sandbox-chain: SANDBOX_CHAIN_API_KEY is required');
    process.exit(1);
  }
  const number = (name: string, fallback: number) => {
    const raw = process.env[name]?.trim();
    if (raw === undefined || raw === '') return fallback;
    if (!/^\d+$/.test(raw)) {
      console.error(`sandbox-chain: ${name} must be a non-negative integer`);
      process.exit(1);
    }
    return Number(raw);
  };
  const chain = await startSandboxChain({
    host: process.env.HOST?.trim() || '127.0.0.1',
    port: number('SANDBOX_CHAIN_PORT', 3005),
    apiKey,
    blockIntervalMs: number('SANDBOX_CHAIN_BLOCK_MS', 3000),
    confirmations: number('SANDBOX_CHAIN_CONFIRMATIONS', 3),
    rate: process.env.PAYOUT_SANDBOX_RATE?.trim() || undefined,
    rateFollowsClock: true,
    logger: pino({ level: process.env.LOG_LEVEL?.trim() || 'info', base: { service: 'sandbox-chain' } }),
  });
  process.stdout.write(`Sandbox chain listening on ${chain.url}\n`);
  const stop = () => {
    chain.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  console.error('sandbox-chain: failed to start:', error);
  process.exit(1);
});
