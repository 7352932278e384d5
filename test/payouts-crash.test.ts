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
import { describe, expect, it } from 'vitest';
import { chainControl } from './helpers/chain.js';
import {
  addWallet,
  balanceAt,
  expectBalancedLedger,
  paidCharge,
  prepareProgramRun,
  programCleanups,
  programTargets,
  startChain,
  startProgram,
} from './helpers/crash.js';
import { eventually, type GatewayProcess } from './helpers/process.js';

const cleanups = programCleanups();

const ACQUIRER = { apiKey: 'sa_payout_crash_key', notificationSecret: 'payout-crash-notification-secret' };
const CHAIN_KEY = 'sc_payout_crash_key';

interface PayoutBody {
  id: string;
  status: string;
  txHash: string | null;
  payoutAmount: string;
}

const targets = programTargets(cleanups);

describe.each(targets)('the payout engine killed at every step, on $name', (target) => {
  it(
    'recovers every payout by asking the chain: one transfer each, all completed',
    { timeout: 240_000 },
    async () => {
      const run = await prepareProgramRun(target, cleanups, {
        prefix: 'gw-payout-crash-',
        credentials: ACQUIRER,
        organization: { featureFlags: ['apiKeys', 'payouts', 'wallets'], payoutSchedule: 'manual' },
      });

      // What the chain does with each payout's send, and the program it kills meanwhile.
      const plan = new Map<string, 'abort_before_record' | 'abort_after_record'>();
      const victim: { program?: GatewayProcess } = {};
      const chain = await startChain(cleanups, {
        apiKey: CHAIN_KEY,
        interceptSend: ({ idempotencyKey }) => {
          const step = plan.get(idempotencyKey);
          if (step === undefined) return 'continue';
          plan.delete(idempotencyKey);
          if (step === 'abort_after_record') victim.program?.child.kill('SIGKILL');
          return step;
        },
      });
      const control = chainControl({ url: chain.url, apiKey: CHAIN_KEY });

      const { api } = run;
      const start = (roles: string) =>
        startProgram(
          run.env({
            ROLES: roles,
            SANDBOX_CHAIN_URL: chain.url,
            SANDBOX_CHAIN_API_KEY: CHAIN_KEY,
            PAYOUT_RAIL_TIMEOUT_MS: '1000',
          }),
        );
      const balance = (url: string) => balanceAt(run, url);

      // 1. A wallet, funds and three payouts; no worker, then SIGKILL: created, never claimed.
      const first = await start('api');
      await addWallet(run, first.url);
      await paidCharge(run, first.url, 1_000_000);
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
      expect((await first.program.stop('SIGKILL', 30_000)).signal).toBe('SIGKILL');
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
      const allPayouts = (status: 'in_transit' | 'completed') =>
        eventually(
          async () => {
            const statuses = await Promise.all(
              ids.map(async (id) => (await api<PayoutBody>(third.url, `/v1/payouts/${id}`)).body.status),
            );
            return statuses.every((candidate) => candidate === status);
          },
          60_000,
          `all three payouts ${status.replace('_', ' ')}`,
          250,
        );
      await allPayouts('in_transit');
      await control.mine(3);
      await allPayouts('completed');

      const transfers = await control.transfers();
      expect(transfers.map((transfer) => transfer.idempotencyKey).sort()).toEqual([...ids].sort());
      for (const id of ids) {
        const payout = (await api<PayoutBody>(third.url, `/v1/payouts/${id}`)).body;
        const transfer = transfers.find((candidate) => candidate.idempotencyKey === id);
        expect(payout.txHash).toBe(transfer?.txHash);
        expect(transfer?.amount).toBe(payout.payoutAmount);
      }
      expect(await balance(third.url)).toMatchObject({ inTransit: '0', pending: '0' });
      expect((await third.program.stop('SIGTERM', 30_000)).code).toBe(0);

      // The ledger balances: every entry's lines sum to zero.
      await expectBalancedLedger(run.open);
    },
  );
});
