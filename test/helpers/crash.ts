/**
 * What the tests that run the real program (the crash tests, shutdown, tracing, the process tests) set up
 * around it: hooks that kill every child and undo the test's work, a data directory, a sandbox acquirer
 * of the test's own (so that it outlives the kills), a merchant written before the program owns the
 * database, the program started and stopped, and the invariants checked in its database at the end.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, expect } from 'vitest';
import { startSandboxAcquirer, type SandboxAcquirer } from '../../sandbox-acquirer/server.js';
import {
  startSandboxChain,
  type SandboxChain,
  type SandboxChainOptions,
} from '../../sandbox-chain/server.js';
import type { Database } from '../../src/db/database.js';
import { migrate, readMigrations } from '../../src/db/migrator.js';
import { migrationsDir } from '../../src/paths.js';
import { systemClock } from '../../src/shared/clock.js';
import { acquirerControl } from './acquirer.js';
import { apiAt } from './client.js';
import { validCharge, type ErrorBody, type HttpResult } from './http.js';
import { createOrganization, issueKey, type OrganizationOptions } from './merchants.js';
import {
  eventually,
  gatewayEnv,
  killAllClis,
  killAllGateways,
  programDatabases,
  spawnGateway,
  type BannerUrls,
  type GatewayProcess,
  type ProgramDatabase,
} from './process.js';

/** What a test undoes after it, newest first. */
export type Cleanups = Array<() => Promise<void> | void>;

/**
 * The cleanups of a file's tests. Undone after every test, whatever happened: children first, then their
 * databases and directories.
 */
export function programCleanups(): Cleanups {
  const cleanups: Cleanups = [];
  afterEach(async () => {
    await killAllGateways();
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  afterAll(async () => killAllGateways());
  return cleanups;
}

/**
 * The cleanups of a file whose tests build on each other (the operator CLI's): undone once after all of
 * them, every CLI and gateway process first.
 */
export function cliCleanups(): Cleanups {
  const cleanups: Cleanups = [];
  afterAll(async () => {
    killAllClis();
    await killAllGateways();
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  }, 60_000);
  return cleanups;
}

/** A fresh directory below the system's temporary one, removed by the cleanups. */
export function tempDir(cleanups: Cleanups, prefix: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export interface AcquirerCredentials {
  apiKey: string;
  notificationSecret: string;
}

/** A sandbox acquirer on loopback, on the real clock, closed by the cleanups. */
export async function startAcquirer(
  cleanups: Cleanups,
  credentials: AcquirerCredentials,
): Promise<SandboxAcquirer> {
  const acquirer = await startSandboxAcquirer({ port: 0, ...credentials, clock: systemClock });
  cleanups.push(() => acquirer.close());
  return acquirer;
}

/** The program's variables that point its test keys at that acquirer. */
export function acquirerEnv(url: string, credentials: AcquirerCredentials): Record<string, string> {
  return {
    SANDBOX_ACQUIRER_URL: url,
    SANDBOX_ACQUIRER_API_KEY: credentials.apiKey,
    SANDBOX_ACQUIRER_NOTIFICATION_SECRET: credentials.notificationSecret,
  };
}

/** A merchant and its key (every scope), written in the migrated database before the program owns it. */
export async function seedMerchant(open: () => Promise<Database>, organization?: OrganizationOptions) {
  const seeded = await open();
  try {
    await migrate(seeded, readMigrations(migrationsDir));
    const organizationId = await createOrganization(seeded.db, systemClock, organization);
    const key = await issueKey(seeded.db, systemClock, organizationId, { scopes: ['all'] });
    return { organizationId, key };
  } finally {
    await seeded.close();
  }
}

export interface ProgramRun {
  dataDir: string;
  acquirer: SandboxAcquirer;
  credentials: AcquirerCredentials;
  /** The pass's database variables (none for PGlite in DATA_DIR); they win over every other. */
  targetEnv: Record<string, string>;
  /** Opens the program's database from the test (after the child has exited, for PGlite). */
  open: () => Promise<Database>;
  organizationId: string;
  key: { id: string; secret: string };
  /** The program's environment: DATA_DIR, the acquirer, `overrides`, then the database. */
  env(overrides?: Record<string, string>): Record<string, string>;
  /** A call to the API at `base` with the merchant's key. */
  api<T>(base: string, route: string, body?: unknown): Promise<HttpResult<T & ErrorBody>>;
}

/**
 * A data directory, an acquirer and the pass's database with a merchant in it: what a test needs before
 * it starts the program.
 */
export async function prepareProgramRun(
  target: ProgramDatabase,
  cleanups: Cleanups,
  options: { prefix: string; credentials: AcquirerCredentials; organization?: OrganizationOptions },
): Promise<ProgramRun> {
  const dataDir = tempDir(cleanups, options.prefix);
  const acquirer = await startAcquirer(cleanups, options.credentials);
  const { env: targetEnv, open } = await target.prepare(dataDir);
  const { organizationId, key } = await seedMerchant(open, options.organization);
  return {
    dataDir,
    acquirer,
    credentials: options.credentials,
    targetEnv,
    open,
    organizationId,
    key,
    env: (overrides = {}) =>
      gatewayEnv({
        DATA_DIR: dataDir,
        ...acquirerEnv(acquirer.url, options.credentials),
        ...overrides,
        ...targetEnv,
      }),
    api: <T>(base: string, route: string, body?: unknown) =>
      apiAt<T & ErrorBody>(base, route, { body, key: key.secret }),
  };
}

export interface StartedProgram {
  program: GatewayProcess;
  urls: BannerUrls;
  /** The sandbox API's base URL. */
  url: string;
}

/** Spawns the program and waits for its banner. */
export async function startProgram(
  env: Record<string, string>,
  options: { args?: string[]; timeoutMs?: number } = {},
): Promise<StartedProgram> {
  const program = spawnGateway({ env, args: options.args });
  const urls = await program.waitForBanner(options.timeoutMs ?? 120_000);
  return { program, urls, url: urls.sandboxApi ?? '' };
}

/** Opens the program's database, runs `work` on it and closes it again. */
export async function withDatabase<T>(
  open: () => Promise<Database>,
  work: (database: Database) => Promise<T>,
): Promise<T> {
  const database = await open();
  try {
    return await work(database);
  } finally {
    await database.close();
  }
}

/** The ledger balances: every entry's lines sum to zero. */
export async function expectBalancedLedger(open: () => Promise<Database>): Promise<void> {
  await withDatabase(open, async ({ db }) => {
    const unbalanced = await db
      .selectFrom('ledger_postings')
      .select('entry_id')
      .groupBy('entry_id')
      .having((eb) => eb.fn.sum<string>('amount'), '<>', '0')
      .execute();
    expect(unbalanced).toEqual([]);
  });
}

/** The program's databases of this pass (`programDatabases`), a PostgreSQL one dropped by the cleanups. */
export function programTargets(
  cleanups: Cleanups,
  embeddedName = 'the embedded database',
): ProgramDatabase[] {
  return programDatabases({ embeddedName, cleanup: (work) => cleanups.push(work) });
}

/** A sandbox chain on loopback, on the real clock, closed by the cleanups. */
export async function startChain(
  cleanups: Cleanups,
  options: Omit<SandboxChainOptions, 'port' | 'clock'>,
): Promise<SandboxChain> {
  const chain = await startSandboxChain({ port: 0, clock: systemClock, ...options });
  cleanups.push(() => chain.close());
  return chain;
}

/** The payout address of the payout crash tests' wallets. */
export const TRON_ADDRESS = 'TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL';

export interface Balance {
  pending: string;
  available: string;
  inTransit: string;
}

/** The merchant's first balance, as the program at `url` reports it. */
export async function balanceAt(run: ProgramRun, url: string): Promise<Balance> {
  const res = await run.api<{ balances: Balance[] }>(url, '/v1/balance');
  return res.body.balances[0] as Balance;
}

/** The merchant's payout wallet, added through the program at `url`. */
export async function addWallet(run: ProgramRun, url: string): Promise<void> {
  expect((await run.api(url, '/v1/wallets', { network: 'tron', address: TRON_ADDRESS })).status).toBe(201);
}

/**
 * A charge through the program at `url`, paid at the acquirer (which then notifies the program): the
 * charge and the acquirer's answer to the payment.
 */
export async function authorizedCharge(run: ProgramRun, url: string, body = validCharge()) {
  const charge = await run.api<{ id: string; providerPaymentId: string }>(url, '/v1/charges', body);
  expect(charge.status, charge.text).toBe(201);
  const authorized = await acquirerControl({
    url: run.acquirer.url,
    apiKey: run.credentials.apiKey,
  }).authorize(charge.body.providerPaymentId);
  return { charge: charge.body, authorized };
}

/** A charge of `amount` through the program at `url`, paid at the acquirer, once it is in the pending balance. */
export async function paidCharge(run: ProgramRun, url: string, amount: number): Promise<void> {
  const before = BigInt((await balanceAt(run, url)).pending);
  await authorizedCharge(run, url, validCharge({ amount }));
  await eventually(
    async () => BigInt((await balanceAt(run, url)).pending) > before,
    30_000,
    'the paid charge in the pending balance',
  );
}
