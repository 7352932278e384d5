import pg from 'pg';

/**
 * What a connection must be to be used, as libpq's `target_session_attrs` (ADR 0040): `read-write` and
 * `primary` find the primary among several hosts, `read-only` and `standby` a standby.
 */
export const TARGET_SESSION_ATTRS = ['any', 'read-write', 'read-only', 'primary', 'standby'] as const;
export type TargetSessionAttrs = (typeof TARGET_SESSION_ATTRS)[number];

/** A connection string naming several hosts, split into one connection string per host. */
export interface HostList {
  /** `host:port` of each, in the order given: the order they are tried in. */
  hosts: string[];
  /** One single-host connection string per host, without `target_session_attrs`. */
  urls: string[];
  targetSessionAttrs: TargetSessionAttrs;
}

/** How long a connection attempt to one of several hosts may take before the next host is tried. */
export const HOST_CONNECT_TIMEOUT_MS = 5000;

/**
 * Reads a libpq-style multi-host URL, `postgres://user:pw@host1:5432,host2:5433/db?target_session_attrs=read-write`
 * (node-postgres takes one host only). A single host without `target_session_attrs` comes back unchanged.
 * Throws a message naming the problem (config.ts reports it against its variable).
 */
export function parseHostList(connectionString: string): HostList {
  const match = /^(postgres(?:ql)?:\/\/)([^/?#]*)(.*)$/s.exec(connectionString);
  if (!match) throw new Error('must be a URL starting with postgres:// or postgresql://');
  const [, scheme = '', authority = '', rest = ''] = match;
  const at = authority.lastIndexOf('@');
  const userinfo = at === -1 ? '' : authority.slice(0, at + 1);
  const hosts = authority.slice(at + 1).split(',');
  const queryAt = rest.indexOf('?');
  const params = new URLSearchParams(queryAt === -1 ? '' : rest.slice(queryAt + 1));
  const attrs = params.get('target_session_attrs') ?? 'any';
  if (!(TARGET_SESSION_ATTRS as readonly string[]).includes(attrs)) {
    throw new Error(
      `target_session_attrs must be one of ${TARGET_SESSION_ATTRS.join(', ')} (got "${attrs}")`,
    );
  }
  if (hosts.length > 1 && hosts.some((host) => host === '')) throw new Error('names an empty host');
  let urls = [connectionString];
  if (hosts.length > 1 || attrs !== 'any') {
    params.delete('target_session_attrs');
    const query = params.size > 0 ? `?${params.toString()}` : '';
    const path = queryAt === -1 ? rest : rest.slice(0, queryAt);
    urls = hosts.map((host) => `${scheme}${userinfo}${host}${path}${query}`);
  }
  for (const url of urls) {
    try {
      new URL(url);
    } catch {
      throw new Error('is not a valid PostgreSQL URL');
    }
  }
  return { hosts, urls, targetSessionAttrs: attrs as TargetSessionAttrs };
}

/** No listed host accepted a connection of the kind asked for (all down, or none a primary yet). */
export class NoAcceptableHostError extends Error {
  constructor(
    readonly targetSessionAttrs: TargetSessionAttrs,
    readonly failures: string[],
  ) {
    super(`no database host is ${targetSessionAttrs}: ${failures.join('; ')}`);
    this.name = 'NoAcceptableHostError';
  }
}

/** What the gateway needs of a pool: Kysely's `PostgresPool`, script sessions and the pool gauges. */
export interface HostPool {
  connect(): Promise<pg.PoolClient>;
  end(): Promise<void>;
  readonly totalCount: number;
  readonly idleCount: number;
  readonly waitingCount: number;
}

/**
 * A pool over the hosts of `connectionString`. One host without `target_session_attrs` is a plain
 * `pg.Pool`. Several hosts: one `pg.Pool` each, and a checkout tries them in turn from the last one that
 * answered, keeping a new connection only if its server is what `target_session_attrs` asks for. So when
 * the primary is lost and a standby promoted, checkouts fail fast (the caller answers 503) until the
 * promotion, then land on the new primary, without a restart. Connections to the old primary fail and
 * leave their pool on the first error.
 */
export function createHostPool(connectionString: string, options: pg.PoolConfig): HostPool {
  const list = parseHostList(connectionString);
  const open = (url: string, extra: pg.PoolConfig = {}) =>
    new pg.Pool({ ...options, ...extra, connectionString: url })
      // A failed idle client (server restart) must not crash the process; the next checkout reconnects.
      .on('error', () => undefined)
      // Nor may a checked-out one, lost between two statements of a transaction (Kysely does not listen):
      // its next statement fails instead, and the pool drops it when it comes back.
      .on('connect', (client) => client.on('error', () => undefined));
  if (list.urls.length === 1 && list.targetSessionAttrs === 'any') return endingOnce(open(connectionString));
  const pools = list.urls.map((url) =>
    open(url, { connectionTimeoutMillis: options.connectionTimeoutMillis ?? HOST_CONNECT_TIMEOUT_MS }),
  );
  const accepted = new WeakSet<pg.PoolClient>();
  let current = 0;
  const sum = (count: (pool: pg.Pool) => number) => pools.reduce((total, pool) => total + count(pool), 0);
  return endingOnce({
    async connect() {
      const failures: string[] = [];
      for (let step = 0; step < pools.length; step++) {
        const index = (current + step) % pools.length;
        const pool = pools[index] as pg.Pool;
        const host = list.hosts[index];
        let client: pg.PoolClient;
        try {
          client = await pool.connect();
        } catch (error) {
          failures.push(`${host}: ${(error as Error).message}`);
          continue;
        }
        // A server's role is checked once per connection: a primary stays one until it restarts (which
        // ends its connections), and a standby promoted later is found by the next new connection.
        if (!accepted.has(client)) {
          try {
            const refusal = await refusalOf(client, list.targetSessionAttrs);
            if (refusal !== undefined) {
              client.release(true);
              failures.push(`${host}: ${refusal}`);
              continue;
            }
          } catch (error) {
            client.release(error as Error);
            failures.push(`${host}: ${(error as Error).message}`);
            continue;
          }
          accepted.add(client);
        }
        current = index;
        return client;
      }
      throw new NoAcceptableHostError(list.targetSessionAttrs, failures);
    },
    async end() {
      await Promise.all(pools.map((pool) => pool.end()));
    },
    get totalCount() {
      return sum((pool) => pool.totalCount);
    },
    get idleCount() {
      return sum((pool) => pool.idleCount);
    },
    get waitingCount() {
      return sum((pool) => pool.waitingCount);
    },
  });
}

/**
 * The pool with an `end()` that may be called more than once: Kysely ends its pool only if a statement
 * went through it, so the database's close ends it too (a program that only migrated kept its idle
 * connection, and lived on, for the whole idle timeout), and pg refuses a second end.
 */
function endingOnce(pool: HostPool): HostPool {
  let ending: Promise<void> | undefined;
  return {
    connect: () => pool.connect(),
    end: () => (ending ??= pool.end()),
    get totalCount() {
      return pool.totalCount;
    },
    get idleCount() {
      return pool.idleCount;
    },
    get waitingCount() {
      return pool.waitingCount;
    },
  };
}

/** Why this connection's server is not what `attrs` asks for; undefined when it is. */
async function refusalOf(client: pg.PoolClient, attrs: TargetSessionAttrs): Promise<string | undefined> {
  if (attrs === 'any') return undefined;
  const { rows } = await client.query<{ standby: boolean; read_only: boolean }>(
    "select pg_is_in_recovery() as standby, current_setting('transaction_read_only') = 'on' as read_only",
  );
  const { standby, read_only: readOnly } = rows[0] ?? { standby: true, read_only: true };
  switch (attrs) {
    case 'read-write':
      return readOnly ? 'read-only' : undefined;
    case 'read-only':
      return readOnly ? undefined : 'read-write';
    case 'primary':
      return standby ? 'a standby' : undefined;
    case 'standby':
      return standby ? undefined : 'a primary';
  }
}
