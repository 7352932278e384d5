/**
 * Issue 14: the settlement batch of a business date is made exactly once per organization, environment
 * and date, and is resumed (never repeated) after a SIGKILL at any point. The batch is run by the built
 * operator CLI (`settle --date`), the same run as the 03:00 job: several processes at once on PostgreSQL
 * (the embedded database admits one process at a time, so there they run one after another), each killed
 * at moments spread over its work, then one run to its end. The merchants' charges are paid through the real gateway
 * beforehand, at a clock set on the Monday before the batch's Tuesday.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { migrate, readMigrations } from '../src/db/migrator.js';
import { migrationsDir } from '../src/paths.js';
import { createManualClock } from '../src/shared/clock.js';
import { passDatabase } from './helpers/database.js';
import { startTestGateway } from './helpers/gateway.js';
import { createMerchant } from './helpers/merchants.js';
import { merchantApi, paidCharge, TRON_ADDRESS } from './helpers/payouts.js';
import { baseEnv, killAllClis, programDatabases, runOperatorCli } from './helpers/process.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
afterAll(() => killAllClis());

const targets = programDatabases({
  embeddedName: 'the embedded database',
  cleanup: (work) => cleanups.push(work),
});

const MERCHANTS = 12;
const BUSINESS_DATE = '2026-11-24';

describe.each(targets)('the settlement batch killed at random points, on $name', (target) => {
  it(
    'makes one batch and one payout per organization, whatever was killed where',
    { timeout: 240_000 },
    async () => {
      const dataDir = mkdtempSync(path.join(os.tmpdir(), 'gw-settle-crash-'));
      cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
      const { env: targetEnv, open } = await target.prepare(dataDir);

      // Twelve merchants with a sandbox wallet and two paid charges each, on Monday.
      const seeded = await open();
      await migrate(seeded, readMigrations(migrationsDir));
      const t = await startTestGateway({
        database: seeded,
        clock: createManualClock(new Date('2026-11-23T10:00:00.000Z')),
        env: { ROLES: 'api,sandbox-acquirer,sandbox-chain' },
      });
      const organizations: string[] = [];
      try {
        for (let index = 0; index < MERCHANTS; index++) {
          const merchant = await createMerchant(t, { featureFlags: ['payouts', 'wallets'] });
          const wallet = await merchantApi(t, merchant, 'sandbox', '/v1/wallets', {
            network: 'tron',
            address: TRON_ADDRESS,
          });
          expect(wallet.status, wallet.text).toBe(201);
          await paidCharge(t, merchant, 'sandbox', 1_000_000 + index);
          await paidCharge(t, merchant, 'sandbox', 500_000);
          organizations.push(merchant.organizationId);
        }
      } finally {
        await t.close();
      }

      const env = { ...baseEnv(), NODE_ENV: 'test', DATA_DIR: dataDir, LOG_LEVEL: 'warn', ...targetEnv };
      const settle = (killAfterMs?: number, date = BUSINESS_DATE) =>
        runOperatorCli(['settle', '--date', date], env, 120_000, killAfterMs);

      // How long a run takes to start: a run of a Sunday opens the database and is refused at once.
      const started = Date.now();
      const sunday = await settle(undefined, '2026-11-22');
      expect([sunday.code, sunday.stderr]).toEqual([
        1,
        expect.stringContaining('not a business day (weekend)'),
      ]);
      const startup = Date.now() - started;

      // Runs killed one after another at moments spread over the batch's work, then (on PostgreSQL,
      // which several processes share) rounds of concurrent runs each killed at a random moment.
      for (const offset of [0, 100, 300, 700]) {
        const result = await settle(startup + offset);
        if (result.signal === null) expect(result.code, result.stderr).toBe(0);
      }
      const rounds = passDatabase === 'postgres' ? 2 : 0;
      for (let round = 0; round < rounds; round++) {
        const results = await Promise.all(
          [0, 1, 2].map(() => settle(startup + Math.floor(Math.random() * 1000))),
        );
        // A run the kill missed ended on its own, successfully.
        for (const result of results) if (result.signal === null) expect(result.code, result.stderr).toBe(0);
      }
      const last = await settle();
      expect(last.code, last.stderr).toBe(0);
      expect(JSON.parse(last.stdout)).toMatchObject({
        businessDate: BUSINESS_DATE,
        skipped: false,
        held: 0,
        failed: 0,
      });
      // A later run of the same date finds nothing left to do.
      const again = await settle();
      expect(again.code, again.stderr).toBe(0);
      expect(JSON.parse(again.stdout)).toMatchObject({
        paidOut: 0,
        carried: 0,
        held: 0,
        unchanged: MERCHANTS,
        failed: 0,
      });

      const check = await open();
      try {
        const db = check.db;
        const batches = await db
          .selectFrom('settlement_batches')
          .selectAll()
          .where('organization_id', 'in', organizations)
          .execute();
        expect(batches).toHaveLength(MERCHANTS);
        const payouts = await db
          .selectFrom('payouts')
          .select(['id', 'organization_id', 'amount', 'automatic'])
          .where('organization_id', 'in', organizations)
          .execute();
        expect(payouts).toHaveLength(MERCHANTS);
        for (const batch of batches) {
          expect(batch).toMatchObject({ business_date: BUSINESS_DATE, status: 'paid_out', item_count: 2 });
          const payout = payouts.find((row) => row.id === batch.payout_id);
          expect(payout).toMatchObject({
            organization_id: batch.organization_id,
            amount: batch.net,
            automatic: true,
          });
        }
        // Each owner's ledger: nothing pending or available, the batch in transit; every entry balanced.
        const balances = await db
          .selectFrom('ledger_postings')
          .select(['organization_id', 'account'])
          .select((eb) => eb.fn.sum<string>('amount').as('sum'))
          .where('organization_id', 'in', organizations)
          .where('account', 'in', ['merchant_pending', 'merchant_available', 'merchant_in_transit'])
          .groupBy(['organization_id', 'account'])
          .execute();
        for (const batch of batches) {
          const of = (account: string) =>
            BigInt(
              balances.find((row) => row.organization_id === batch.organization_id && row.account === account)
                ?.sum ?? 0,
            );
          expect(of('merchant_pending')).toBe(0n);
          expect(of('merchant_available')).toBe(0n);
          expect(-of('merchant_in_transit')).toBe(BigInt(batch.net));
        }
        const unbalanced = await db
          .selectFrom('ledger_postings')
          .select('entry_id')
          .groupBy('entry_id')
          .having((eb) => eb.fn.sum('amount'), '<>', 0)
          .execute();
        expect(unbalanced).toEqual([]);
      } finally {
        await check.close();
      }
    },
  );
});
