import { execFile } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from './process.js';

const run = promisify(execFile);
/** PostgreSQL 15's server programs (Debian's postgresql-15, which CI and every machine here have). */
const BIN = '/usr/lib/postgresql/15/bin';
/** The standby's name in the primary's `synchronous_standby_names`. */
const STANDBY_NAME = 'standby1';

export interface Cluster {
  port: number;
  /** `postgres://postgres@127.0.0.1:<port>/postgres` */
  url: string;
}

/**
 * Two throwaway PostgreSQL clusters of this machine's PostgreSQL 15, in a temporary directory, never the
 * shared server: a primary and a synchronous standby made with `pg_basebackup`, streaming from it
 * (ADR 0040, docs/operations.md "Replica and failover").
 */
export interface ReplicatedPair {
  primary: Cluster;
  standby: Cluster;
  /** Stops the primary as a crash would (`pg_ctl stop -m immediate`): no shutdown checkpoint. */
  crashPrimary(): Promise<void>;
  /** `pg_ctl promote`: the standby becomes a primary that takes writes. */
  promoteStandby(): Promise<void>;
  /** Stops whatever still runs and removes the directory; safe to call more than once and after a failure. */
  close(): Promise<void>;
}

/** Runs a server program as the `postgres` user when the tests run as root (initdb refuses root). */
async function server(program: string, args: string[]): Promise<string> {
  const asRoot = process.getuid?.() === 0;
  const [file, argv] = asRoot
    ? ['runuser', ['-u', 'postgres', '--', path.join(BIN, program), ...args]]
    : [path.join(BIN, program), args];
  try {
    const { stdout } = await run(file, argv, { timeout: 60_000 });
    return stdout;
  } catch (error) {
    const { stderr } = error as { stderr?: string };
    throw new Error(`${program} failed: ${stderr ?? (error as Error).message}`);
  }
}

const clusterUrl = (port: number) => `postgres://postgres@127.0.0.1:${port}/postgres`;

/** Small and quick: a few connections' worth of memory, no locale, the directory's own socket. */
function serverOptions(dir: string, port: number): string {
  return [
    `-p ${port}`,
    '-c listen_addresses=127.0.0.1',
    `-c unix_socket_directories=${dir}`,
    '-c shared_buffers=16MB',
    '-c max_connections=50',
  ].join(' ');
}

/** Polls `probe` every 50 ms until it returns true, failing after `timeoutMs`. */
export async function until(what: string, probe: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await probe().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** One query on a fresh connection to `url` (the test's own view of a cluster, outside the gateway). */
export async function queryCluster<Row extends pg.QueryResultRow>(
  url: string,
  text: string,
  params: unknown[] = [],
): Promise<Row[]> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    return (await client.query<Row>(text, params)).rows;
  } finally {
    await client.end();
  }
}

/**
 * Starts the primary, then makes the standby from a base backup while `duringCopy` runs against the
 * primary (the gateway's start and migrations, in the test), and only then makes the standby synchronous:
 * from there on every commit waits until the standby has applied it (`remote_apply`), so what the gateway
 * acknowledges is on the standby and readable there. `synchronous_standby_names` goes to the primary's
 * `postgresql.auto.conf` after the base backup, so the standby, once promoted, waits for no standby of its
 * own.
 */
export async function startReplicatedPair(
  duringCopy: (clusters: { primary: Cluster; standby: Cluster }) => Promise<void> = async () => undefined,
): Promise<ReplicatedPair> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'gw-replica-'));
  if (process.getuid?.() === 0) {
    const id = async (flag: string) => Number((await run('id', [flag, 'postgres'])).stdout.trim());
    chownSync(dir, await id('-u'), await id('-g'));
  }
  const primaryDir = path.join(dir, 'primary');
  const standbyDir = path.join(dir, 'standby');
  const running = new Set<string>();
  const start = async (dataDir: string, port: number) => {
    running.add(dataDir);
    await server('pg_ctl', [
      'start',
      '-D',
      dataDir,
      '-l',
      `${dataDir}.log`,
      '-w',
      '-s',
      '-o',
      serverOptions(dir, port),
    ]);
  };
  const stop = async (dataDir: string) => {
    if (!running.delete(dataDir)) return;
    await server('pg_ctl', ['stop', '-D', dataDir, '-m', 'immediate', '-s']);
  };
  const close = async () => {
    await Promise.allSettled([stop(primaryDir), stop(standbyDir)]);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const [primaryPort, standbyPort] = [await freePort(), await freePort()];
    const primary = { port: primaryPort, url: clusterUrl(primaryPort) };
    const standby = { port: standbyPort, url: clusterUrl(standbyPort) };
    await server('initdb', [
      '-D',
      primaryDir,
      '-A',
      'trust',
      '-U',
      'postgres',
      '--no-sync',
      '-E',
      'UTF8',
      '--no-locale',
    ]);
    await start(primaryDir, primaryPort);
    const copy = async () => {
      await server('pg_basebackup', [
        '-D',
        standbyDir,
        '-d',
        `host=127.0.0.1 port=${primaryPort} user=postgres application_name=${STANDBY_NAME}`,
        '-X',
        'stream',
        '-c',
        'fast',
        // standby.signal and primary_conninfo (with the application_name above).
        '-R',
      ]);
      await start(standbyDir, standbyPort);
    };
    const [copied, during] = await Promise.allSettled([copy(), duringCopy({ primary, standby })]);
    if (copied.status === 'rejected') throw copied.reason;
    if (during.status === 'rejected') throw during.reason;
    await queryCluster(primary.url, `alter system set synchronous_standby_names = '${STANDBY_NAME}'`);
    await queryCluster(primary.url, "alter system set synchronous_commit = 'remote_apply'");
    await queryCluster(primary.url, 'select pg_reload_conf()');
    await until('the standby to stream synchronously', async () => {
      const rows = await queryCluster<{ sync_state: string; setting: string }>(
        primary.url,
        `select sync_state, current_setting('synchronous_commit') as setting
           from pg_stat_replication where application_name = $1`,
        [STANDBY_NAME],
      );
      return rows[0]?.sync_state === 'sync' && rows[0].setting === 'remote_apply';
    });
    return {
      primary,
      standby,
      crashPrimary: () => stop(primaryDir),
      promoteStandby: async () => {
        await server('pg_ctl', ['promote', '-D', standbyDir, '-w', '-s']);
      },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
