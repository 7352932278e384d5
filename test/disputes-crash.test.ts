/**
 * Issue 37: a gateway killed (SIGKILL) between a dispute's notification and its ledger entries leaves
 * nothing behind; after a restart, the acquirer's retry brings the notification back and the dispute is
 * applied exactly once: one row, one withdrawal, one fee, balanced entries (docs/decisions/0076). Runs the
 * real program on the pass's database, with an acquirer of the test's own that outlives the kill.
 */
import { describe, expect, it } from 'vitest';
import { TEST_CARDS } from '../sandbox-acquirer/cards.js';
import { acquirerControl } from './helpers/acquirer.js';
import {
  balanceAt,
  expectBalancedLedger,
  prepareProgramRun,
  programCleanups,
  programTargets,
  startProgram,
  withDatabase,
} from './helpers/crash.js';
import { validCharge } from './helpers/http.js';
import { eventually, freePort } from './helpers/process.js';

const cleanups = programCleanups();
const CREDENTIALS = {
  apiKey: 'sa_dispute_crash_key',
  notificationSecret: 'dispute-crash-notification-secret',
};
const targets = programTargets(cleanups);

describe.each(targets)('a gateway killed while it reads a dispute back, on $name', (target) => {
  it('applies the dispute once after a restart', { timeout: 150_000 }, async () => {
    const run = await prepareProgramRun(target, cleanups, { prefix: 'dp-crash-', credentials: CREDENTIALS });
    const control = acquirerControl({ url: run.acquirer.url, apiKey: CREDENTIALS.apiKey });
    // The same port after the restart: the acquirer keeps notifying the URL it was given.
    const env = run.env({ ROLES: 'api,worker', SANDBOX_API_PORT: String(await freePort()) });
    const first = await startProgram(env, { timeoutMs: 90_000 });

    const charge = await run.api<{ id: string; providerPaymentId: string }>(
      first.url,
      '/v1/charges',
      validCharge({ amount: 10_000 }),
    );
    expect(charge.status, charge.text).toBe(201);
    // The read-back of the dispute is answered a minute late: the gateway dies while it waits.
    await control.addFault({
      operation: 'get_dispute',
      action: 'delay_response',
      latencyMs: 60_000,
      times: 1,
    });
    const paid = await control.authorize(charge.body.providerPaymentId, TEST_CARDS.disputeFraudulent.number);
    expect(paid.status, paid.text).toBe(200);
    await eventually(async () => (await balanceAt(run, first.url)).pending === '9550', 30_000, 'the credit');
    await eventually(async () => (await control.calls('get_dispute')).length > 0, 30_000, 'the read-back');
    await first.program.stop('SIGKILL', 20_000);

    await withDatabase(run.open, async ({ db }) => {
      expect(await db.selectFrom('disputes').select('id').execute()).toEqual([]);
      const kinds = await db.selectFrom('journal_entries').select('kind').execute();
      expect(kinds.map((row) => row.kind)).toEqual(['charge_succeeded']);
    });

    const second = await startProgram(env, { timeoutMs: 90_000 });
    // The acquirer's retries bring the notifications back; the debt is the amount and the fee, once.
    // The acquirer's retries bring the notifications back; the debt is the amount and the fee, once.
    await eventually(async () => (await debtOf(run, second.url)) === '25450', 60_000, 'the debt of 25450');
    await second.program.stop('SIGTERM', 20_000);

    await withDatabase(run.open, async ({ db }) => {
      const disputes = await db.selectFrom('disputes').selectAll().execute();
      expect(disputes).toHaveLength(1);
      expect(disputes[0]).toMatchObject({ status: 'needs_response', amount_withdrawn: '10000' });
      const kinds = await db.selectFrom('journal_entries').select('kind').orderBy('id').execute();
      expect(kinds.map((row) => row.kind).sort()).toEqual([
        'charge_succeeded',
        'dispute_fee',
        'dispute_funds_withdrawn',
      ]);
      const events = await db
        .selectFrom('events')
        .select('type')
        .where('resource_id', '=', disputes[0]!.id)
        .execute();
      expect(events.map((row) => row.type).sort()).toEqual(['dispute.created', 'dispute.funds_withdrawn']);
    });
    await expectBalancedLedger(run.open);
  });
});

async function debtOf(run: { api: <T>(base: string, route: string) => Promise<{ body: T }> }, url: string) {
  const res = await run.api<{ balances: Array<{ debt: string }> }>(url, '/v1/balance');
  return res.body.balances[0]?.debt ?? '0';
}
