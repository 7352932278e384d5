import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { openDatabase, type Database } from '../../src/db/database.js';
import { projectRoot } from '../../src/paths.js';
import { createFreshDatabase, dropDatabase, passDatabase, seedDataDir } from './database.js';

export type ListenerName = 'web' | 'sandboxApi' | 'liveApi' | 'operator';
export type BannerUrls = Partial<Record<ListenerName, string>>;

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface GatewayProcess {
  readonly child: ChildProcess;
  readonly pid: number;
  /** Everything the process wrote so far. */
  stdout(): string;
  stderr(): string;
  /** Resolves with the first match in the stream; rejects on timeout or when the process exits first. */
  waitFor(
    pattern: RegExp,
    options?: { stream?: 'stdout' | 'stderr'; timeoutMs?: number },
  ): Promise<RegExpMatchArray>;
  /** Waits for the whole start-up banner and returns the base URL of every listener it names. */
  waitForBanner(timeoutMs?: number): Promise<BannerUrls>;
  waitForExit(timeoutMs?: number): Promise<Exit>;
  /** Sends `signal` (SIGTERM: the supervisor's stop; SIGKILL: a crash) and waits for the exit. */
  stop(signal: NodeJS.Signals, timeoutMs?: number): Promise<Exit>;
  readonly exited: boolean;
}

const running = new Set<GatewayProcess>();

/** Only what the program needs: nothing of the test runner's environment (DATABASE_URL above all) leaks in. */
export function baseEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of ['PATH', 'HOME', 'TMPDIR', 'LANG', 'SYSTEMROOT']) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  return env;
}

/**
 * The environment of a gateway that a test or a bench runs, as a child process or through `loadConfig`
 * in its own process: `baseEnv`, the test mode, every listener (the sandbox acquirer's and chain's too,
 * when their roles run in it) on an ephemeral loopback port, warnings and worse logged; `overrides` last.
 * A variable every such gateway needs goes here.
 */
export function gatewayEnv(overrides: Record<string, string> = {}): Record<string, string> {
  return {
    ...baseEnv(),
    NODE_ENV: 'test',
    HOST: '127.0.0.1',
    WEB_PORT: '0',
    SANDBOX_API_PORT: '0',
    LIVE_API_PORT: '0',
    OPERATOR_PORT: '0',
    SANDBOX_ACQUIRER_PORT: '0',
    SANDBOX_CHAIN_PORT: '0',
    LOG_LEVEL: 'warn',
    ...overrides,
  };
}

/**
 * The built program of a source file (`src/main.ts` -> `dist/src/main.js`), as `npm start` runs it. The
 * suite's global setup (test/global-setup.ts) builds `dist/` once, so no child compiles anything.
 */
export function builtProgram(source: string): string {
  return path.join(projectRoot, 'dist', source.replace(/\.ts$/, '.js'));
}

/**
 * Where the programs the tests start keep V8's compiled code (Node's module compile cache), so that the
 * hundreds of gateway and CLI processes a run starts do not each compile every module again (ADR 0044).
 * A test's own `NODE_COMPILE_CACHE` wins.
 */
const withCompileCache = (env: Record<string, string>): Record<string, string> => ({
  NODE_COMPILE_CACHE: path.join(os.tmpdir(), 'payment-gateway-compile-cache'),
  ...env,
});

/** Runs the built `src/main.ts` as a child process, from the repository root. */
export function spawnGateway(options: { env: Record<string, string>; args?: string[] }): GatewayProcess {
  const child = spawn(process.execPath, [builtProgram('src/main.ts'), ...(options.args ?? [])], {
    cwd: projectRoot,
    env: withCompileCache(options.env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (child.pid === undefined) throw new Error('could not spawn the gateway');
  const output = { stdout: '', stderr: '' };
  let exit: Exit | undefined;
  const listeners = new Set<() => void>();
  const notify = () => {
    for (const listener of [...listeners]) listener();
  };
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    output.stdout += chunk;
    notify();
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    output.stderr += chunk;
    notify();
  });
  // 'close' rather than 'exit': by then both pipes are drained, so the output is complete.
  child.on('close', (code, signal) => {
    exit = { code, signal };
    notify();
  });

  /** Re-evaluates `check` on every output chunk and on exit until it returns a value or throws. */
  const until = <T>(check: () => T | undefined, timeoutMs: number, what: string): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const finish = (fn: () => void) => {
        clearTimeout(timer);
        listeners.delete(listener);
        fn();
      };
      const listener = () => {
        try {
          const value = check();
          if (value !== undefined) finish(() => resolve(value));
          else if (exit !== undefined) {
            const message = `process exited (${describeExit(exit)}) before ${what}${dump()}`;
            finish(() => reject(new Error(message)));
          }
        } catch (error) {
          finish(() => reject(error as Error));
        }
      };
      const timer = setTimeout(
        () => finish(() => reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}${dump()}`))),
        timeoutMs,
      );
      listeners.add(listener);
      listener();
    });
  const dump = () => `\n--- stdout ---\n${output.stdout}\n--- stderr ---\n${output.stderr}`;

  const gatewayProcess: GatewayProcess = {
    child,
    pid: child.pid,
    stdout: () => output.stdout,
    stderr: () => output.stderr,
    get exited() {
      return exit !== undefined;
    },
    waitFor: (pattern, { stream = 'stdout', timeoutMs = 30_000 } = {}) =>
      until(() => output[stream].match(pattern) ?? undefined, timeoutMs, `${pattern} on ${stream}`),
    waitForBanner: async (timeoutMs = 60_000) => {
      await until(
        () => (/Stop with Ctrl\+C/.test(output.stdout) ? true : undefined),
        timeoutMs,
        'the banner',
      );
      return parseBanner(output.stdout);
    },
    waitForExit: (timeoutMs = 30_000) =>
      until(
        () => {
          if (exit === undefined) return undefined;
          running.delete(gatewayProcess);
          return exit;
        },
        timeoutMs,
        'the exit',
      ),
    stop: (signal, timeoutMs = 30_000) => {
      child.kill(signal);
      return gatewayProcess.waitForExit(timeoutMs);
    },
  };
  running.add(gatewayProcess);
  return gatewayProcess;
}

/** Kills every child still running (SIGKILL) and waits for each to go; for afterEach/afterAll. */
export async function killAllGateways(): Promise<void> {
  const all = [...running];
  running.clear();
  await Promise.all(
    all.map(async (gateway) => {
      if (gateway.exited) return;
      gateway.child.kill('SIGKILL');
      await gateway.waitForExit(10_000).catch(() => undefined);
    }),
  );
}

function describeExit(exit: Exit): string {
  return exit.signal !== null ? `signal ${exit.signal}` : `code ${exit.code}`;
}

/** The base URLs in the banner that `printBanner` in src/main.ts writes. */
export function parseBanner(stdout: string): BannerUrls {
  const urls: BannerUrls = {};
  const patterns: Record<ListenerName, RegExp> = {
    web: /^ {2}Apply for a merchant account:\s+(http:\/\/\S+)\/apply$/m,
    sandboxApi: /^ {2}Sandbox API \(sk_test_ keys\):\s+(http:\/\/\S+)\/v1\s+OpenAPI: \1\/v1\/openapi\.json$/m,
    liveApi: /^ {2}Live API \(sk_live_ keys\):\s+(http:\/\/\S+)\/v1\s+OpenAPI: \1\/v1\/openapi\.json$/m,
    operator: /^ {2}Operator (?:listener|console):\s+(http:\/\/[^\s/]+)/m,
  };
  for (const [name, pattern] of Object.entries(patterns) as Array<[ListenerName, RegExp]>) {
    const match = pattern.exec(stdout);
    if (match?.[1] !== undefined) urls[name] = match[1];
  }
  return urls;
}

export type Probe = { status: number; body: string } | { error: string };

/**
 * One GET on a connection of its own that is closed afterwards (no keep-alive pool), with a timeout:
 * either the response or the socket error code (ECONNREFUSED, ECONNRESET...).
 */
export function probe(url: string, timeoutMs = 5000): Promise<Probe> {
  return new Promise((resolve) => {
    const req = http.get(
      url,
      { agent: false, headers: { connection: 'close' }, timeout: timeoutMs },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        res.on('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }));
      },
    );
    req.on('timeout', () => req.destroy(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' })));
    req.on('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }));
  });
}

/** Polls `check` every `intervalMs` until it returns true; fails after `timeoutMs`. */
export async function eventually(
  check: () => Promise<boolean>,
  timeoutMs: number,
  what: string,
  intervalMs = 50,
) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/**
 * Resolves when the process itself has exited ('exit', not 'close': a stdout nobody reads never closes),
 * with how long that took from the call; rejects after `timeoutMs`.
 */
export function waitForProcessExit(
  child: ChildProcess,
  timeoutMs: number,
): Promise<Exit & { afterMs: number }> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    if (child.exitCode !== null || child.signalCode !== null) {
      resolve({ code: child.exitCode, signal: child.signalCode, afterMs: 0 });
      return;
    }
    const timer = setTimeout(() => {
      child.removeListener('exit', onExit);
      reject(new Error(`process ${child.pid} still running ${timeoutMs} ms later`));
    }, timeoutMs);
    const onExit = (code: number | null, signal: NodeJS.Signals | null) => {
      clearTimeout(timer);
      resolve({ code, signal, afterMs: Date.now() - started });
    };
    child.once('exit', onExit);
  });
}

/**
 * Stops reading the child's stdout, as a stalled log collector does: the pipe fills and the child's
 * writes back up. `resume` reads again: what arrives from then on reaches `stdout()` and `waitFor`.
 */
export function stallStdout(gateway: GatewayProcess): { resume(): void } {
  const stdout = gateway.child.stdout;
  if (!stdout) throw new Error('the child has no stdout pipe');
  const previous = stdout.listeners('data') as Array<(chunk: string) => void>;
  stdout.removeAllListeners('data');
  stdout.pause();
  return {
    resume() {
      for (const listener of previous) stdout.on('data', listener);
      stdout.resume();
    },
  };
}

/** A database a spawned program runs on, and how the test opens the same database itself. */
export interface ProgramDatabase {
  name: string;
  /** The program's environment for this database (none for PGlite in DATA_DIR) and an opener for the test. */
  prepare(dataDir: string): Promise<{ env: Record<string, string>; open: () => Promise<Database> }>;
}

/**
 * The database the process, crash and shutdown tests run a program on: the pass's own (`passDatabase`),
 * the embedded one in DATA_DIR (seeded with the run's migrated template) on the PGlite pass, a fresh PostgreSQL database per test (dropped by the
 * `cleanup` registered) on the PostgreSQL pass.
 */
export function programDatabases(options: {
  embeddedName: string;
  cleanup: (work: () => Promise<void>) => void;
}): ProgramDatabase[] {
  if (passDatabase === 'embedded') {
    return [
      {
        name: options.embeddedName,
        prepare: async (dataDir) => {
          // A migrated copy of the run's template: the program opens it instead of creating one.
          seedDataDir(dataDir);
          return { env: {}, open: () => openDatabase({ dataDir }) };
        },
      },
    ];
  }
  return [
    {
      name: 'PostgreSQL',
      prepare: async () => {
        const databaseUrl = await createFreshDatabase();
        options.cleanup(() => dropDatabase(databaseUrl));
        return {
          env: { DATABASE_URL: databaseUrl },
          open: () => openDatabase({ databaseUrl, poolSize: 2 }),
        };
      },
    },
  ];
}

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

const cliChildren = new Set<ChildProcess>();

/**
 * Runs the built operator CLI (`dist/`, as `npm run operator` runs it) to its end, bounded by a timeout
 * that kills it, and returns what it wrote.
 */
export function runOperatorCli(
  args: string[],
  env: Record<string, string>,
  timeoutMs = 90_000,
  /** SIGKILLs it at this moment if it still runs (crash tests): it then resolves with the signal. */
  killAfterMs?: number,
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [builtProgram('src/cli/operator.ts'), ...args], {
      cwd: projectRoot,
      env: withCompileCache(env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    cliChildren.add(child);
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`operator ${args.join(' ')} ran over ${timeoutMs} ms\n${stdout}\n${stderr}`));
    }, timeoutMs);
    const killer =
      killAfterMs === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), killAfterMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      cliChildren.delete(child);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      clearTimeout(killer);
      cliChildren.delete(child);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** Kills every CLI process still running (a test's afterAll). */
export function killAllClis(): void {
  for (const child of cliChildren) child.kill('SIGKILL');
  cliChildren.clear();
}

/** A TCP port of loopback free now (a program restarted on it keeps the URLs others were given). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject()));
    });
  });
}
