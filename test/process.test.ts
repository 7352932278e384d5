import { existsSync, readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../src/db/database.js';
import { readMigrations } from '../src/db/migrator.js';
import { migrationsDir } from '../src/paths.js';
import { createFreshDatabase, dropDatabase, onPostgres, seedDataDir } from './helpers/database.js';
import { request, validApplication } from './helpers/http.js';
import { programCleanups, startProgram, tempDir as tempDirOf, withDatabase } from './helpers/crash.js';
import {
  eventually,
  gatewayEnv,
  probe,
  spawnGateway,
  type GatewayProcess,
  type ListenerName,
} from './helpers/process.js';

const cleanups = programCleanups();

interface Target {
  name: 'PGlite' | 'PostgreSQL';
  /**
   * A database of its own and the environment that points the program at it; `fresh` leaves a PGlite
   * DATA_DIR empty (the program creates and migrates it) instead of seeding the run's migrated template.
   */
  prepare(options?: { fresh?: boolean }): Promise<Prepared>;
}

interface Prepared {
  env: Record<string, string>;
  dataDir: string;
  databaseUrl: string | undefined;
  /** Opens the same database from the test (after the child has exited, for PGlite). */
  open(): Promise<Database>;
}

const tempDir = () => tempDirOf(cleanups, 'gw-process-');

function programEnv(dataDir: string, extra: Record<string, string> = {}): Record<string, string> {
  return gatewayEnv({
    LOG_LEVEL: 'info',
    APPLICATION_RATE_LIMIT_MAX: '1000',
    DATA_DIR: dataDir,
    ...extra,
  });
}

const pglite: Target = {
  name: 'PGlite',
  async prepare(options = {}) {
    const dataDir = tempDir();
    if (!options.fresh) seedDataDir(dataDir);
    return {
      env: programEnv(dataDir),
      dataDir,
      databaseUrl: undefined,
      open: () => openDatabase({ dataDir }),
    };
  },
};

const postgres: Target = {
  name: 'PostgreSQL',
  async prepare() {
    const dataDir = tempDir();
    const databaseUrl = await createFreshDatabase();
    cleanups.push(() => dropDatabase(databaseUrl));
    return {
      env: programEnv(dataDir, { DATABASE_URL: databaseUrl }),
      dataDir,
      databaseUrl,
      open: () => openDatabase({ databaseUrl, poolSize: 2 }),
    };
  },
};

// The program on the pass's database (passDatabase): PGlite in DATA_DIR, or a PostgreSQL database.
const targets = onPostgres ? [postgres] : [pglite];
const ALL_LISTENERS: ListenerName[] = ['web', 'sandboxApi', 'liveApi', 'operator'];

async function startGateway(env: Record<string, string>, args: string[] = []) {
  const { program: gateway, urls } = await startProgram(env, { args });
  return { gateway, urls };
}

/** The banner lines of the output, without the JSON log lines around them. */
function banner(gateway: GatewayProcess): string {
  return gateway
    .stdout()
    .split('\n')
    .filter((line) => !line.startsWith('{'))
    .join('\n');
}

async function expectHealthy(url: string) {
  const health = await request<{ status: string }>(`${url}/healthz`);
  expect(health.status, `${url}/healthz`).toBe(200);
  expect(health.body).toEqual({ status: 'ok' });
  const ready = await request<{ status: string }>(`${url}/readyz`);
  expect(ready.status, `${url}/readyz`).toBe(200);
  expect(ready.body).toEqual({ status: 'ready' });
}

async function apply(baseUrl: string, overrides: Record<string, unknown> = {}) {
  const res = await request<{ id: string; status: string }>(`${baseUrl}/v1/applications`, {
    body: validApplication(overrides),
  });
  expect(res.status, res.text).toBe(201);
  expect(res.body.id).toMatch(/^app_[0-9a-z]{29}$/);
  return res.body.id;
}

async function stop(gateway: GatewayProcess) {
  expect(await gateway.stop('SIGTERM', 60_000)).toEqual({ code: 0, signal: null });
}

async function countApplications(prepared: Prepared, ids: string[]): Promise<number> {
  return withDatabase(prepared.open, async ({ db }) => {
    const rows = await db.selectFrom('applications').select('id').where('id', 'in', ids).execute();
    return rows.length;
  });
}

/**
 * Sends the headers and the first half of a POST /v1/applications on a raw socket; the caller sends
 * the rest with `finish`, which resolves with the whole raw response once the server closes.
 */
async function startSlowApplication(baseUrl: string) {
  const { hostname, port } = new URL(baseUrl);
  const socket = net.connect({ host: hostname, port: Number(port) });
  cleanups.push(() => void socket.destroy());
  let response = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (response += chunk));
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  const body = Buffer.from(JSON.stringify(validApplication({ companyName: 'In Flight Ltd' })));
  const half = Math.floor(body.length / 2);
  socket.write(
    `POST /v1/applications HTTP/1.1\r\nHost: ${hostname}:${port}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`,
  );
  socket.write(body.subarray(0, half));
  return {
    responseSoFar: () => response,
    async finish(timeoutMs = 30_000) {
      socket.write(body.subarray(half));
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        closed,
        new Promise((_, reject) => {
          timer = setTimeout(
            () => reject(new Error(`no complete response within ${timeoutMs} ms; got: ${response}`)),
            timeoutMs,
          );
        }),
      ]).finally(() => clearTimeout(timer));
      const [head = '', text = ''] = response.split('\r\n\r\n');
      return { statusLine: head.split('\r\n')[0] ?? '', body: text };
    },
  };
}

// Each child runs the built program and opens its database: seconds when idle, longer on a loaded machine.
describe.each(targets)('the program on $name', { timeout: 300_000 }, (target) => {
  it('starts, prints every base URL, and serves health, readiness and applications on each listener', async () => {
    // On an empty DATA_DIR: the first start creates and migrates the embedded database.
    const prepared = await target.prepare({ fresh: true });
    const { gateway, urls } = await startGateway(prepared.env);

    expect(Object.keys(urls).sort()).toEqual([...ALL_LISTENERS].sort());
    const ports = new Set<string>();
    for (const name of ALL_LISTENERS) {
      const url = urls[name] ?? '';
      expect(url, name).toMatch(/^http:\/\/127\.0\.0\.1:[1-9]\d*$/);
      ports.add(new URL(url).port);
    }
    expect(ports.size).toBe(ALL_LISTENERS.length);
    expect(gateway.stdout()).toContain('roles:    api, operator, worker');
    if (target.name === 'PGlite') {
      expect(gateway.stdout()).toContain(`database: embedded PGlite in ${prepared.dataDir}`);
    } else {
      expect(gateway.stdout()).toContain('database: PostgreSQL (DATABASE_URL)');
      // The connection string never reaches the output.
      expect(gateway.stdout()).not.toContain(new URL(prepared.databaseUrl ?? '').pathname.slice(1));
    }

    // Before the banner a first start says what it is doing: the database it opens (creating it, on an
    // empty DATA_DIR), each migration with its count, and each listener as it starts.
    const [beforeBanner = ''] = gateway.stdout().split('Payment gateway is running');
    const lines = beforeBanner
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { msg: string; creating?: boolean });
    const messages = lines.map((line) => line.msg);
    expect(messages[0]).toBe('starting the gateway');
    expect(lines.find((line) => line.msg === 'opening the database')?.creating).toBe(
      target.name === 'PGlite' ? true : undefined,
    );
    const total = readMigrations(migrationsDir).length;
    expect(messages).toContain(`migrating: ${total} migration(s) to apply`);
    for (const index of [1, total]) expect(messages).toContain(`migration ${index}/${total} applied`);
    for (const name of ALL_LISTENERS) expect(messages).toContain(`starting the ${name} listener`);

    for (const name of ALL_LISTENERS) await expectHealthy(urls[name] ?? '');
    const ids = [
      await apply(urls.sandboxApi ?? ''),
      await apply(urls.liveApi ?? ''),
      await apply(urls.web ?? ''),
    ];
    const page = await request(`${urls.web}/apply`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    // The operator listener has no public API.
    expect((await request(`${urls.operator}/v1/applications`, { body: validApplication() })).status).toBe(
      404,
    );

    await stop(gateway);
    expect(await countApplications(prepared, ids)).toBe(3);
    if (target.name === 'PGlite') expect(existsSync(path.join(prepared.dataDir, 'gateway.lock'))).toBe(false);
  });

  it('finishes a request in flight on SIGTERM, then exits with code 0', async () => {
    const prepared = await target.prepare();
    // A generous shutdown deadline: the forced exit (code 1) must not fire on a slow machine.
    const { gateway, urls } = await startGateway({ ...prepared.env, SHUTDOWN_TIMEOUT_MS: '120000' });
    const sandbox = urls.sandboxApi ?? '';

    const slow = await startSlowApplication(sandbox);
    // The headers have been read and routed: the request is in flight, waiting for the rest of its body.
    await gateway.waitFor(
      /"req":\{"method":"POST","url":"\/v1\/applications"[^\n]*"msg":"incoming request"/,
      {
        timeoutMs: 30_000,
      },
    );
    gateway.child.kill('SIGTERM');
    await gateway.waitFor(/"signal":"SIGTERM"[^\n]*"msg":"shutting down/, { timeoutMs: 30_000 });

    // New requests are no longer served while the old one is still open...
    await eventually(
      async () => {
        const result = await probe(`${sandbox}/healthz`, 2000);
        return 'error' in result || result.status === 503;
      },
      15_000,
      'the sandbox listener to stop taking new requests',
    );
    expect(gateway.exited).toBe(false);
    expect(slow.responseSoFar()).toBe('');

    // ...and the one in flight completes normally, with its row committed before the database closed.
    const response = await slow.finish();
    expect(response.statusLine).toBe('HTTP/1.1 201 Created');
    const created = JSON.parse(response.body) as { id: string; status: string };
    expect(created).toMatchObject({ id: expect.stringMatching(/^app_/), status: 'NEW' });

    expect(await gateway.waitForExit(60_000)).toEqual({ code: 0, signal: null });
    expect(gateway.stdout()).toMatch(/"msg":"stopped"/);
    expect(await countApplications(prepared, [created.id])).toBe(1);
  });

  if (target.name === 'PGlite') {
    it('refuses a second process on the same DATA_DIR, naming it, while the first keeps serving', async () => {
      const prepared = await target.prepare();
      const first = await startGateway(prepared.env);

      const second = spawnGateway({ env: prepared.env });
      expect(await second.waitForExit(120_000), second.stdout() + second.stderr()).toEqual({
        code: 1,
        signal: null,
      });
      expect(second.stderr()).toContain(
        `DATA_DIR ${prepared.dataDir} is in use by process ${first.gateway.pid}`,
      );
      expect(second.stdout()).not.toContain('Payment gateway is running');

      // The failed start left the lock and the data alone.
      expect(readFileSync(path.join(prepared.dataDir, 'gateway.lock'), 'utf8')).toBe(
        String(first.gateway.pid),
      );
      await expectHealthy(first.urls.sandboxApi ?? '');
      const id = await apply(first.urls.sandboxApi ?? '');
      await stop(first.gateway);
      expect(await countApplications(prepared, [id])).toBe(1);
    });
  } else {
    it('lets a second process share the same PostgreSQL database, migrating it only once', async () => {
      const prepared = await target.prepare();
      const first = await startGateway(prepared.env);
      const second = await startGateway(prepared.env);
      expect(first.gateway.stdout()).toMatch(/"msg":"migrations applied"/);
      expect(second.gateway.stdout()).not.toMatch(/"msg":"migrations applied"/);

      const ids = [await apply(first.urls.sandboxApi ?? ''), await apply(second.urls.sandboxApi ?? '')];
      await Promise.all([stop(first.gateway), stop(second.gateway)]);
      expect(await countApplications(prepared, ids)).toBe(2);
    });
  }

  it('with --roles api starts the API and the web listener but no operator listener', async () => {
    const prepared = await target.prepare();
    // Without the sandbox-acquirer role in the process, test keys need an acquirer elsewhere.
    const env = {
      ...prepared.env,
      SANDBOX_ACQUIRER_URL: 'http://127.0.0.1:9',
      SANDBOX_ACQUIRER_API_KEY: 'sa_external',
      SANDBOX_ACQUIRER_NOTIFICATION_SECRET: 'external-secret',
    };
    const { gateway, urls } = await startGateway(env, ['--roles', 'api']);
    expect(Object.keys(urls).sort()).toEqual(['liveApi', 'sandboxApi', 'web']);
    expect(gateway.stdout()).toContain('roles:    api\n');
    expect(gateway.stdout()).not.toMatch(/Operator (listener|console)/);
    for (const url of Object.values(urls)) await expectHealthy(url);
    await apply(urls.sandboxApi ?? '');
    await stop(gateway);
  });

  it('with --roles operator starts the operator listener and no API', async () => {
    const prepared = await target.prepare();
    const { gateway, urls } = await startGateway(prepared.env, ['--roles', 'operator']);
    expect(Object.keys(urls)).toEqual(['operator']);
    expect(gateway.stdout()).toContain('roles:    operator\n');
    expect(gateway.stdout()).not.toMatch(/Sandbox API|Live API|Apply for a merchant account/);
    // No line points at a listener that is not running (a path with no base URL in front).
    expect(banner(gateway)).not.toMatch(/(^|\s)\/(apply|v1)\b/m);
    await expectHealthy(urls.operator ?? '');
    await stop(gateway);
  });
});

describe('the program with a bad configuration', { timeout: 120_000 }, () => {
  async function expectConfigFailure(env: Record<string, string>, args: string[], names: string[]) {
    const dataDir = path.join(tempDir(), 'never-created');
    const gateway = spawnGateway({ env: programEnv(dataDir, env), args });
    expect(await gateway.waitForExit(60_000)).toEqual({ code: 1, signal: null });
    expect(gateway.stderr()).toMatch(/^Invalid configuration:\n/);
    for (const name of names) expect(gateway.stderr()).toContain(name);
    expect(gateway.stdout()).not.toContain('Payment gateway is running');
    // It stopped before touching storage.
    expect(existsSync(dataDir)).toBe(false);
    return gateway;
  }

  it('exits with code 1 naming WEB_PORT', async () => {
    const gateway = await expectConfigFailure({ WEB_PORT: 'abc' }, [], ['WEB_PORT must be an integer']);
    expect(gateway.stderr()).not.toContain('SANDBOX_API_PORT');
  });

  it('names every bad variable at once', async () => {
    await expectConfigFailure(
      {
        OPERATOR_PORT: '99999',
        LOG_LEVEL: 'loud',
        DATABASE_URL: 'mysql://127.0.0.1/gateway',
        RECONCILIATION_CRON: 'every day',
      },
      [],
      ['OPERATOR_PORT', 'LOG_LEVEL', 'DATABASE_URL', 'RECONCILIATION_CRON must be a cron expression'],
    );
  });

  it('names SANDBOX_ACQUIRER_URL when the API runs without the sandbox acquirer', async () => {
    await expectConfigFailure({}, ['--roles', 'api,worker'], ['SANDBOX_ACQUIRER_URL is required']);
  });

  it('names --roles for an unknown role', async () => {
    await expectConfigFailure({}, ['--roles', 'api,billing'], ['ROLES (or --roles)', 'unknown: billing']);
  });
});
