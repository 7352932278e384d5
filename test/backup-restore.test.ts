/**
 * Issue 16 item 6: a backup restores into a working gateway (docs/operations.md, "Backups and restore").
 * Each pass backs up its own database the way docs/operations.md tells an operator to, so CI runs each
 * procedure once: on PostgreSQL, `pg_dump --format=custom` of the live database (the gateway keeps
 * running), `pg_restore` into a new database and the post-restore step (the ledger's checkpoints
 * emptied, to be rebuilt); on PGlite, a copy of the stopped gateway's DATA_DIR. The database carries real
 * traffic: paid charges in both environments, full, partial and refused refunds, a settlement release, a
 * live payout, an unpaid checkout, and a ledger checkpoint run with postings before and after it. A
 * gateway started on the restored copy with the same ENCRYPTION_KEYS passes the invariant check
 * (test/helpers/invariants.ts), answers the same balances, charges and payouts, and takes new traffic.
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/database.js';
import { generateEncryptionKeys } from '../src/shared/secret-box.js';
import { acquirerControl, errorFault } from './helpers/acquirer.js';
import { createFreshDatabase, dropDatabase, onPostgres, seedDataDir } from './helpers/database.js';
import { startTestGateway, type TestGateway } from './helpers/gateway.js';
import { validCharge } from './helpers/http.js';
import { checkInvariants, type InvariantReport } from './helpers/invariants.js';
import { createMerchant, type Merchant } from './helpers/merchants.js';
import { liveFundedMerchant, livePayout, merchantApi, paidCharge } from './helpers/payouts.js';

const run = promisify(execFile);
const ENCRYPTION_KEYS = generateEncryptionKeys('v1');
const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
});

const env = { ENCRYPTION_KEYS, ROLES: 'api,operator,sandbox-acquirer,sandbox-chain' };

/** One way of backing a gateway's database up and starting a gateway on the restored copy. */
interface Backup {
  start(): Promise<TestGateway>;
  /** Called while `original` still runs; may stop it (the embedded database is copied stopped). */
  restore(original: TestGateway): Promise<TestGateway>;
}

const postgresBackup: Backup = {
  async start() {
    const url = await createFreshDatabase();
    cleanups.push(() => dropDatabase(url));
    const t = await startTestGateway({ env, sharedDatabaseUrl: url });
    cleanups.push(() => t.close());
    backedUp = url;
    return t;
  },
  async restore() {
    const dir = mkdtempSync(path.join(tmpdir(), 'gw-backup-'));
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    const dump = path.join(dir, 'gateway.dump');
    // Online: pg_dump reads one consistent snapshot while the gateway keeps writing.
    await run('pg_dump', ['--format=custom', '--no-owner', `--file=${dump}`, `--dbname=${backedUp}`]);
    const target = await createFreshDatabase();
    cleanups.push(() => dropDatabase(target));
    await run('pg_restore', ['--no-owner', '--exit-on-error', `--dbname=${target}`, dump]);
    // The post-restore step of docs/operations.md: the ledger's checkpoints count transaction ids of the
    // cluster they were written in; emptied together, they are rebuilt from the postings.
    const client = new pg.Client({ connectionString: target });
    await client.connect();
    try {
      await client.query('TRUNCATE ledger_balance_checkpoints, ledger_checkpoint_horizon');
    } finally {
      await client.end();
    }
    const restored = await startTestGateway({ env, sharedDatabaseUrl: target });
    cleanups.push(() => restored.close());
    return restored;
  },
};
let backedUp = '';

const dataDirBackup: Backup = {
  async start() {
    const dir = mkdtempSync(path.join(tmpdir(), 'gw-data-'));
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    seedDataDir(dir);
    backedUp = dir;
    const t = await startTestGateway({ env, database: await openDatabase({ dataDir: dir }) });
    cleanups.push(() => t.close());
    return t;
  },
  async restore(original) {
    // The embedded database is one process's: stop it, copy DATA_DIR, start on the copy.
    await original.close();
    const copy = mkdtempSync(path.join(tmpdir(), 'gw-restored-'));
    cleanups.push(async () => rmSync(copy, { recursive: true, force: true }));
    cpSync(path.join(backedUp, 'pglite'), path.join(copy, 'pglite'), { recursive: true });
    const restored = await startTestGateway({ env, database: await openDatabase({ dataDir: copy }) });
    cleanups.push(() => restored.close());
    return restored;
  },
};

async function refund(t: TestGateway, merchant: Merchant, chargeId: string, amount?: number) {
  return merchantApi<{ id: string; status: string }>(
    t,
    merchant,
    'sandbox',
    `/v1/charges/${chargeId}/refunds`,
    amount === undefined ? {} : { amount },
  );
}

/** What the API answers about everything the traffic made, to compare after the restore. */
async function snapshot(t: TestGateway, merchants: Merchant[], chargeIds: string[], payoutId: string) {
  const seen: unknown[] = [];
  for (const merchant of merchants) {
    for (const environment of ['sandbox', 'live'] as const) {
      const balance = await merchantApi(t, merchant, environment, '/v1/balance');
      expect(balance.status, balance.text).toBe(200);
      seen.push(balance.body);
    }
  }
  for (const id of chargeIds) {
    const charge = await merchantApi<{ status: string; amountRefunded: string }>(
      t,
      merchants[0]!,
      'sandbox',
      `/v1/charges/${id}`,
    );
    expect(charge.status, charge.text).toBe(200);
    seen.push(charge.body);
    seen.push((await merchantApi(t, merchants[0]!, 'sandbox', `/v1/charges/${id}/refunds`)).body);
  }
  const payout = await merchantApi(t, merchants[1]!, 'live', `/v1/payouts/${payoutId}`);
  expect(payout.status, payout.text).toBe(200);
  seen.push(payout.body);
  // The same data, whatever port each gateway's listeners took.
  return JSON.parse(JSON.stringify(seen).replace(/http:\/\/127\.0\.0\.1:\d+/g, 'http://gateway')) as unknown;
}

function sound(report: InvariantReport): InvariantReport['counts'] {
  expect(report.violations).toEqual([]);
  return report.counts;
}

describe('backups', () => {
  const backup = onPostgres ? postgresBackup : dataDirBackup;
  const procedure = onPostgres
    ? 'pg_dump of the running database, pg_restore into a new one'
    : 'a copy of the stopped DATA_DIR';
  // Each step its own test (and time limit); a step that fails leaves the next without its input.
  let t: TestGateway;
  let restored: TestGateway;
  let shop: Merchant;
  let seller: Merchant;
  let payoutId = '';
  let chargeIds: string[] = [];
  let before: InvariantReport['counts'];
  let answered: unknown;

  beforeAll(async () => {
    t = await backup.start();
    shop = await createMerchant(t, {});
  });

  it('takes real traffic, and the original passes the invariant check', async () => {
    const paid = [];
    for (const amount of [10_000, 20_000, 30_000]) paid.push(await paidCharge(t, shop, 'sandbox', amount));
    expect((await refund(t, shop, paid[0]!.id)).status).toBe(201);
    expect((await refund(t, shop, paid[1]!.id, 5_000)).status).toBe(201);
    await acquirerControl(t.sandboxAcquirer).addFault(
      errorFault('refund', 422, 'refund_window_closed', { times: 1 }),
    );
    expect((await refund(t, shop, paid[2]!.id, 1_000)).status).toBe(502);
    // A live merchant paid, released by settlement and paid out (pending on the treasury rail).
    seller = await liveFundedMerchant(t);
    payoutId = (await livePayout<{ id: string; payoutAmount: string }>(t, seller, 100_000)).id;
    const unpaid = await merchantApi<{ id: string }>(t, shop, 'sandbox', '/v1/charges', validCharge());
    expect(unpaid.status, unpaid.text).toBe(201);
    // Checkpoints cover the postings so far; more postings come after them.
    await t.gateway.services.ledger.advanceCheckpoints();
    const late = await paidCharge(t, shop, 'sandbox', 7_000);
    expect((await refund(t, shop, late.id, 2_000)).status).toBe(201);

    chargeIds = [...paid.map((charge) => charge.id), late.id, unpaid.body.id];
    before = sound(await checkInvariants(t.gateway.services.db, t.gateway.services.ledger));
    expect(before).toMatchObject({ succeededCharges: 5, succeededRefunds: 3, payouts: 1 });
    answered = await snapshot(t, [shop, seller], chargeIds, payoutId);
  });

  it(`restores into a gateway that passes the same check and answers the same: ${procedure}`, async () => {
    restored = await backup.restore(t);
    const counts = sound(
      await checkInvariants(restored.gateway.services.db, restored.gateway.services.ledger),
    );
    expect(counts).toEqual(before);
    expect(await snapshot(restored, [shop, seller], chargeIds, payoutId)).toEqual(answered);
  });

  it('the restored gateway takes new money and keeps its ledger whole through a checkpoint run', async () => {
    const after = await paidCharge(restored, shop, 'sandbox', 9_000);
    expect((await refund(restored, shop, after.id, 9_000)).status).toBe(201);
    await restored.gateway.services.ledger.advanceCheckpoints();
    const grown = sound(
      await checkInvariants(restored.gateway.services.db, restored.gateway.services.ledger),
    );
    expect(grown).toMatchObject({
      succeededCharges: before.succeededCharges + 1,
      succeededRefunds: before.succeededRefunds + 1,
    });
  });
});
