/**
 * Issue 13 item 5, "tests kill the worker at every step", with the real program and SIGKILL. A sandbox
 * chain started by the test (so that it outlives the kills) stands between the gateway and its sends and
 * kills the program at the exact step, deterministically:
 *
 * 1. three payouts are created by a program without the worker role, which is killed: created, never
 *    claimed;
 * 2. a program with the worker sends them in order: the first is recorded in transit; the second's send
 *    never reaches the chain (marked submitting, nothing sent); the third's send is recorded by the chain
 *    and the program is killed before it hears the hash;
 * 3. a third program recovers all three by asking the chain (never sending blind), and they complete
 *    when the chain confirms them.
 *
 * At the end: exactly one transfer per payout on the chain, three completed payouts, and the balance
 * with nothing left in transit. Runs on the pass's database (the embedded one in DATA_DIR, or
 * PostgreSQL). The submission lease is twice PAYOUT_RAIL_TIMEOUT_MS plus 5 s, so the killed send is
 * taken up again about 7 s after the restart.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startSandboxAcquirer, type SandboxAcquirer } from '../sandbox-acquirer/server.js';
import { startSandboxChain, type SandboxChain } from '../sandbox-chain/server.js';
import { migrate, readMigrations } from '../src/db/migrator.js';
import { migrationsDir } from '../src/paths.js';
import { systemClock } from '../src/shared/clock.js';
import { acquirerControl } from './helpers/acquirer.js';
import { chainControl } from './helpers/chain.js';
import { apiAt } from './helpers/client.js';
import { validCharge, type ErrorBody, type HttpResult } from './helpers/http.js';
import { createOrganization, issueKey } from './helpers/merchants.js';
import {
  eventually,
  gatewayEnv,
  killAllGateways,
  programDatabases,
  spawnGateway,
  type GatewayProcess,
} from './helpers/process.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  await killAllGateways();
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
afterAll(async () => killAllGateways());

const ACQUIRER = { apiKey: 'sa_payout_crash_key', notificationSecret: 'payout-crash-notification-secret' };
const CHAIN_KEY = 'sc_payout_crash_key';
const TRON_ADDRESS = 'TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL';

interface PayoutBody {
  id: string;
  status: string;
  txHash: string | null;
  payoutAmount: string;
}
interface Balance {
  pending: string;
  available: string;
  inTransit: string;
}

const targets = programDatabases({
  embeddedName: 'the embedded database',
  cleanup: (work) => cleanups.push(work),
});

describe.each(targets)('the payout engine killed at every step, on $name', (target) => {
  it(
    'recovers every payout by asking the chain: one transfer each, all completed',
    { timeout: 240_000 },
    async () => {
      const dataDir = mkdtempSync(path.join(os.tmpdir(), 'gw-payout-crash-'));
      cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
      const acquirer: SandboxAcquirer = await startSandboxAcquirer({
        port: 0,
        ...ACQUIRER,
        clock: systemClock,
      });
      cleanups.push(() => acquirer.close());

      // What the chain does with each payout's send, and the program it kills meanwhile.
      const plan = new Map<string, 'abort_before_record' | 'abort_after_record'>();
      const victim: { program?: GatewayProcess } = {};
      const chain: SandboxChain = await startSandboxChain({
        port: 0,
        apiKey: CHAIN_KEY,
        clock: systemClock,
        interceptSend: ({ idempotencyKey }) => {
          const step = plan.get(idempotencyKey);
          if (step === undefined) return 'continue';
          plan.delete(idempotencyKey);
          if (step === 'abort_after_record') victim.program?.child.kill('SIGKILL');
          return step;
        },
      });
      cleanups.push(() => chain.close());
      const control = chainControl({ url: chain.url, apiKey: CHAIN_KEY });

      const { env: targetEnv, open } = await target.prepare(dataDir);
      const seeded = await open();
      await migrate(seeded, readMigrations(migrationsDir));
      const organizationId = await createOrganization(seeded.db, systemClock, {
        featureFlags: ['apiKeys', 'payouts', 'wallets'],
        payoutSchedule: 'manual',
      });
      const key = await issueKey(seeded.db, systemClock, organizationId, { scopes: ['all'] });
      await seeded.close();

      const env = (roles: string) =>
        gatewayEnv({
          DATA_DIR: dataDir,
          ROLES: roles,
          SANDBOX_ACQUIRER_URL: acquirer.url,
          SANDBOX_ACQUIRER_API_KEY: ACQUIRER.apiKey,
          SANDBOX_ACQUIRER_NOTIFICATION_SECRET: ACQUIRER.notificationSecret,
          SANDBOX_CHAIN_URL: chain.url,
          SANDBOX_CHAIN_API_KEY: CHAIN_KEY,
          PAYOUT_RAIL_TIMEOUT_MS: '1000',
          ...targetEnv,
        });
      const api = <T>(base: string, route: string, body?: unknown): Promise<HttpResult<T & ErrorBody>> =>
        apiAt<T & ErrorBody>(base, route, { body, key: key.secret });
      const start = async (roles: string) => {
        const program = spawnGateway({ env: env(roles) });
        return { program, url: (await program.waitForBanner(120_000)).sandboxApi ?? '' };
      };
      const balance = async (url: string) => {
        const res = await api<{ balances: Balance[] }>(url, '/v1/balance');
        return res.body.balances[0] as Balance;
      };

      // 1. A wallet, funds and three payouts; no worker, then SIGKILL: created, never claimed.
      const first = await start('api');
      expect((await api(first.url, '/v1/wallets', { network: 'tron', address: TRON_ADDRESS })).status).toBe(
        201,
      );
      const charge = await api<{ id: string; providerPaymentId: string }>(
        first.url,
        '/v1/charges',
        validCharge({ amount: 1_000_000 }),
      );
      expect(charge.status, charge.text).toBe(201);
      await acquirerControl({ url: acquirer.url, apiKey: ACQUIRER.apiKey }).authorize(
        charge.body.providerPaymentId,
      );
      await eventually(
        async () => (await balance(first.url)).pending !== '0',
        30_000,
        'the paid charge in the pending balance',
      );
      expect((await api<{ released: boolean }>(first.url, '/v1/test-helpers/settle', {})).body.released).toBe(
        true,
      );
      const ids: string[] = [];
      for (const amount of [100_000, 200_000, 300_000]) {
        const created = await api<PayoutBody>(first.url, '/v1/payouts', { amount });
        expect(created.status, created.text).toBe(201);
        ids.push(created.body.id);
      }
      const [recorded, neverSent, unheard] = ids as [string, string, string];
      first.program.child.kill('SIGKILL');
      expect((await first.program.waitForExit(30_000)).signal).toBe('SIGKILL');
      expect(await control.transfers()).toEqual([]);

      // 2. The worker sends them in order: the second send never reaches the chain, the third is recorded
      // by the chain and the program dies before it hears the hash.
      plan.set(neverSent, 'abort_before_record');
      plan.set(unheard, 'abort_after_record');
      const second = await start('api,worker');
      victim.program = second.program;
      expect((await second.program.waitForExit(60_000)).signal).toBe('SIGKILL');
      const sent = await control.transfers();
      expect(sent.map((transfer) => transfer.idempotencyKey).sort()).toEqual([recorded, unheard].sort());

      // 3. A new program recovers each by asking the chain, then completes them once confirmed.
      const third = await start('api,worker');
      await eventually(
        async () => {
          const statuses = await Promise.all(
            ids.map(async (id) => (await api<PayoutBody>(third.url, `/v1/payouts/${id}`)).body.status),
          );
          return statuses.every((status) => status === 'in_transit');
        },
        60_000,
        'all three payouts in transit',
        250,
      );
      await control.mine(3);
      await eventually(
        async () => {
          const statuses = await Promise.all(
            ids.map(async (id) => (await api<PayoutBody>(third.url, `/v1/payouts/${id}`)).body.status),
          );
          return statuses.every((status) => status === 'completed');
        },
        60_000,
        'all three payouts completed',
        250,
      );

      const transfers = await control.transfers();
      expect(transfers.map((transfer) => transfer.idempotencyKey).sort()).toEqual([...ids].sort());
      for (const id of ids) {
        const payout = (await api<PayoutBody>(third.url, `/v1/payouts/${id}`)).body;
        const transfer = transfers.find((candidate) => candidate.idempotencyKey === id);
        expect(payout.txHash).toBe(transfer?.txHash);
        expect(transfer?.amount).toBe(payout.payoutAmount);
      }
      expect(await balance(third.url)).toMatchObject({ inTransit: '0', pending: '0' });
      third.program.child.kill('SIGTERM');
      expect((await third.program.waitForExit(30_000)).code).toBe(0);

      // The ledger balances: every entry's lines sum to zero.
      const database = await open();
      try {
        const unbalanced = await database.db
          .selectFrom('ledger_postings')
          .select('entry_id')
          .groupBy('entry_id')
          .having((eb) => eb.fn.sum<string>('amount'), '<>', '0')
          .execute();
        expect(unbalanced).toEqual([]);
      } finally {
        await database.close();
      }
    },
  );
});
