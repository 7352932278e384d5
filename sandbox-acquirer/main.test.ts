import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { API_KEY } from './test-support.js';

const ENTRY = new URL('./main.ts', import.meta.url).pathname;

function run(env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', ENTRY], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return { child, output: () => ({ stdout, stderr }) };
}

describe('npm run sandbox-acquirer', () => {
  it('prints its URL, serves, and stops on SIGTERM', async () => {
    const { child, output } = run({
      SANDBOX_ACQUIRER_API_KEY: API_KEY,
      SANDBOX_ACQUIRER_NOTIFICATION_SECRET: 'secret',
      SANDBOX_ACQUIRER_PORT: '0',
      LOG_LEVEL: 'silent',
    });
    const exited = once(child, 'exit');
    try {
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no URL: ${JSON.stringify(output())}`)), 10_000);
        child.stdout.on('data', () => {
          const match = /listening on (http:\/\/\S+)/.exec(output().stdout);
          if (match?.[1]) {
            clearTimeout(timer);
            resolve(match[1]);
          }
        });
      });
      const response = await fetch(`${url}/v1/payments?reference=x`, {
        headers: { authorization: `Bearer ${API_KEY}` },
      });
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ data: [] });
    } finally {
      child.kill('SIGTERM');
    }
    const [code] = await exited;
    expect(code).toBe(0);
  });

  it('refuses to start without its API key, naming the variable', async () => {
    const { child, output } = run({ SANDBOX_ACQUIRER_NOTIFICATION_SECRET: 'secret' });
    const [code] = await once(child, 'exit');
    expect(code).toBe(1);
    expect(output().stderr).toContain('SANDBOX_ACQUIRER_API_KEY is required');
  });
});
