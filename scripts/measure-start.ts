/**
 * `npm run measure:start`: how long `npm start` takes to print its banner on a fresh clone, and on a
 * restart with nothing changed, as JSON. The README's figures come from it.
 *
 * It clones this repository's HEAD (committed work only) into a temporary folder, runs `npm ci` there
 * (timed on its own: it is not part of `npm start`), then starts `npm start` on the clone's empty
 * DATA_DIR, waits for the banner, stops it with SIGTERM, and does the same again. Ports are chosen free
 * on 127.0.0.1, so it runs beside another gateway. `MEASURE_START_RUNS` restarts (default 1) are timed.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BANNER = 'Payment gateway is running';
const BANNER_TIMEOUT_MS = 300_000;

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Runs `npm start` in `dir` until its banner; resolves with the seconds it took, then stops it. */
async function timeStart(dir: string, env: NodeJS.ProcessEnv): Promise<number> {
  const started = performance.now();
  const child = spawn('npm', ['start'], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let output = '';
  const seconds = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no banner within ${BANNER_TIMEOUT_MS} ms:\n${output}`)),
      BANNER_TIMEOUT_MS,
    );
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (output.includes(BANNER)) {
        clearTimeout(timer);
        resolve((performance.now() - started) / 1000);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`npm start exited with ${code} before its banner:\n${output}`));
    });
  });
  child.removeAllListeners('exit');
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // The whole group: npm and the gateway it started.
  process.kill(-(child.pid ?? 0), 'SIGTERM');
  await exited;
  return Math.round(seconds * 10) / 10;
}

async function main(): Promise<void> {
  const work = mkdtempSync(path.join(os.tmpdir(), 'gw-measure-start-'));
  try {
    const clone = path.join(work, 'clone');
    execFileSync('git', ['clone', '--quiet', '--no-hardlinks', root, clone], { stdio: 'ignore' });
    const installStarted = performance.now();
    execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: clone, stdio: ['ignore', 'ignore', 2] });
    const installSeconds = Math.round((performance.now() - installStarted) / 100) / 10;
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DATABASE_URL: '',
      DATA_DIR: path.join(clone, 'data'),
      WEB_PORT: String(await freePort()),
      SANDBOX_API_PORT: String(await freePort()),
      LIVE_API_PORT: String(await freePort()),
      OPERATOR_PORT: String(await freePort()),
      SANDBOX_ACQUIRER_PORT: String(await freePort()),
      SANDBOX_CHAIN_PORT: String(await freePort()),
    };
    delete env.DATABASE_URL;
    const first = await timeStart(clone, env);
    const runs = Number(process.env.MEASURE_START_RUNS ?? '1');
    const restarts: number[] = [];
    for (let run = 0; run < runs; run++) restarts.push(await timeStart(clone, env));
    console.log(
      JSON.stringify(
        {
          node: process.version,
          cpus: os.cpus().length,
          loadAverage: os.loadavg().map((value) => Math.round(value * 100) / 100),
          npmCiSeconds: installSeconds,
          firstStartSeconds: first,
          restartSeconds: restarts,
        },
        null,
        2,
      ),
    );
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
