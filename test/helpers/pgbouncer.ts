import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort, waitForProcessExit } from './process.js';

/** Debian's binary (scripts/ensure-test-deps.sh installs the package), or PGBOUNCER_PATH. */
export const pgbouncerPath = process.env.PGBOUNCER_PATH?.trim() || '/usr/sbin/pgbouncer';

export interface PgBouncer {
  readonly port: number;
  /** The connection string of `database` through the pooler (same user as the server's). */
  url(database: string): string;
  /** A statement of the admin console (`SHOW POOLS`, `SHOW STATS`...), its rows as text. */
  admin(command: string): Promise<Array<Record<string, string>>>;
  /** What pgbouncer wrote so far (its log goes to stderr). */
  log(): string;
  close(): Promise<void>;
}

/**
 * A pgbouncer process of its own, in transaction pooling mode, in front of the PostgreSQL server of
 * `serverUrl` for the listed databases only, on a free port of 127.0.0.1: the deployment the issue
 * describes, without the system service. Authentication is `trust` (the local test server trusts its
 * loopback connections); the server's user is the pooler's admin, so it can read `SHOW POOLS`.
 * `poolSize` server connections per database at most (`default_pool_size`), handed out in turn
 * (`server_round_robin`): a client's consecutive transactions land on different sessions, so whatever
 * relied on session state would show.
 */
export async function startPgBouncer(options: {
  serverUrl: string;
  databases: string[];
  poolSize: number;
}): Promise<PgBouncer> {
  if (!existsSync(pgbouncerPath)) {
    throw new Error(
      `pgbouncer not found at ${pgbouncerPath}: run scripts/ensure-test-deps.sh (npm test does) or set PGBOUNCER_PATH`,
    );
  }
  const server = new URL(options.serverUrl);
  const user = decodeURIComponent(server.username) || 'postgres';
  const dir = mkdtempSync(path.join(os.tmpdir(), 'gw-pgbouncer-'));
  // pgbouncer refuses to run as root; as root it drops to `nobody`, which must read its files.
  chmodSync(dir, 0o755);
  const authFile = path.join(dir, 'users.txt');
  writeFileSync(authFile, `"${user}" ""\n`, { mode: 0o644 });

  // A free port can be taken between the probe and pgbouncer's bind: try again on another one.
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const configFile = path.join(dir, 'pgbouncer.ini');
    const databases = options.databases.map(
      (name) => `${name} = host=${server.hostname} port=${server.port || '5432'} dbname=${name}`,
    );
    writeFileSync(
      configFile,
      [
        '[databases]',
        ...databases,
        '[pgbouncer]',
        'listen_addr = 127.0.0.1',
        `listen_port = ${port}`,
        'unix_socket_dir =',
        'auth_type = trust',
        `auth_file = ${authFile}`,
        `admin_users = ${user}`,
        `stats_users = ${user}`,
        'pool_mode = transaction',
        `default_pool_size = ${options.poolSize}`,
        'reserve_pool_size = 0',
        'server_round_robin = 1',
        'max_client_conn = 500',
        '',
      ].join('\n'),
      { mode: 0o644 },
    );
    const asRoot = process.getuid?.() === 0;
    const child = spawn(pgbouncerPath, [...(asRoot ? ['-u', 'nobody'] : []), configFile], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    const bouncer: PgBouncer = {
      port,
      url: (database) => `postgres://${encodeURIComponent(user)}@127.0.0.1:${port}/${database}`,
      admin: async (command) => {
        const client = new pg.Client({ connectionString: bouncer.url('pgbouncer') });
        await client.connect();
        try {
          // The admin console speaks the simple query protocol only: no parameters.
          const result = await client.query<Record<string, unknown>>(command);
          return result.rows.map((row) =>
            Object.fromEntries(Object.entries(row).map(([key, value]) => [key, String(value)])),
          );
        } finally {
          await client.end();
        }
      },
      log: () => output,
      close: async () => {
        await stop();
        rmSync(dir, { recursive: true, force: true });
      },
    };
    const stop = async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM'); // immediate shutdown
      await waitForProcessExit(child, 5000).catch(() => {
        child.kill('SIGKILL');
        return waitForProcessExit(child, 5000);
      });
    };
    const deadline = Date.now() + 10_000;
    let started = false;
    while (!started) {
      const exited = child.exitCode !== null || child.signalCode !== null;
      if (!exited) {
        started = await bouncer.admin('SHOW VERSION').then(
          () => true,
          () => false,
        );
        if (started) break;
      }
      if (exited || Date.now() > deadline) {
        await stop();
        if (attempt < 3 && /Address already in use/.test(output)) break;
        rmSync(dir, { recursive: true, force: true });
        throw new Error(`pgbouncer did not start:\n${output}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    if (started) return bouncer;
  }
}
