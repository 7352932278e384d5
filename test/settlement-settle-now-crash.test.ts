/**
 * A sandbox settle-now (`POST /v1/test-helpers/settle`) killed between its release and its payout, with
 * the real program and SIGKILL. The test puts a proxy in front of the sandbox chain it starts (so that
 * the chain outlives the kills); the payout phase asks the chain's rate feed for its quote after the
 * release has committed, so the proxy kills the program at exactly that step when armed:
 *
 * 1. a program without the worker is killed during the helper: the batch is `released`, no payout;
 * 2. a new program's next helper call pays that batch out (its answer), then a second helper call is
 *    killed at the same step: a second batch of the same day, `released`;
 * 3. a program with the worker (and no daily run) pays the second batch out on its own, by the
 *    `settlement-resume` pass, without any call.
 *
 * At the end: two batches, both dated the day of their calls, each with one automatic payout of its net,
 * nothing pending or available, and every ledger entry balanced. Runs on the pass's database.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
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
  withDatabase,
} from './helpers/crash.js';
import { eventually, type GatewayProcess } from './helpers/process.js';

const cleanups = programCleanups();

const ACQUIRER = { apiKey: 'sa_settle_crash_key', notificationSecret: 'settle-crash-notification-secret' };
const CHAIN_KEY = 'sc_settle_crash_key';

interface SettleBody {
  released: boolean;
  reason?: string;
  batch: { id: string; businessDate: string; status: string; payoutId: string | null } | null;
}
/**
 * Forwards everything to the chain, except the rate request that arrives while armed: then it kills the
 * program that asked (SIGKILL) and never answers.
 */
async function startKillingProxy(target: string) {
  const state: { armed: boolean; victim?: GatewayProcess; kills: number } = { armed: false, kills: 0 };
  const server = http.createServer((req, res) => {
    if (state.armed && req.url?.startsWith('/v1/rates/') && state.victim) {
      state.armed = false;
      state.kills += 1;
      state.victim.child.kill('SIGKILL');
      return;
    }
    const upstream = http.request(
      `${target}${req.url ?? '/'}`,
      { method: req.method, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    state,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const targets = programTargets(cleanups);

describe.each(targets)('a sandbox settle-now killed before its payout, on $name', (target) => {
  it(
    'is paid out by the next helper call, or by the next worker pass: one payout per batch, each dated its day',
    { timeout: 240_000 },
    async () => {
      const run = await prepareProgramRun(target, cleanups, {
        prefix: 'gw-settle-now-crash-',
        credentials: ACQUIRER,
        organization: { featureFlags: ['apiKeys', 'payouts', 'wallets'] },
      });
      const chain = await startChain(cleanups, { apiKey: CHAIN_KEY, rateFollowsClock: true });
      const proxy = await startKillingProxy(chain.url);
      cleanups.push(() => proxy.close());

      const start = async (roles: string, extra: Record<string, string> = {}) => {
        const started = await startProgram(
          run.env({ ROLES: roles, SANDBOX_CHAIN_URL: proxy.url, SANDBOX_CHAIN_API_KEY: CHAIN_KEY, ...extra }),
        );
        // The proxy kills only when armed, which is after the start.
        proxy.state.victim = started.program;
        return started;
      };
      const { api } = run;
      const balance = (url: string) => balanceAt(run, url);
      /** The helper, killed at its payout phase's quote: the request gets no answer. */
      const killedSettle = async (running: { program: GatewayProcess; url: string }) => {
        proxy.state.armed = true;
        const kills = proxy.state.kills;
        await expect(api(running.url, '/v1/test-helpers/settle', {})).rejects.toThrow();
        expect((await running.program.waitForExit(30_000)).signal).toBe('SIGKILL');
        expect(proxy.state.kills).toBe(kills + 1);
      };
      const rows = () =>
        withDatabase(run.open, async ({ db }) => {
          const batches = await db
            .selectFrom('settlement_batches')
            .select(['id', 'business_date', 'origin', 'status', 'net', 'payout_id', 'created_at'])
            .where('organization_id', '=', run.organizationId)
            .orderBy('cutoff')
            .execute();
          const payouts = await db
            .selectFrom('payouts')
            .select(['id', 'amount', 'automatic'])
            .where('organization_id', '=', run.organizationId)
            .execute();
          return { batches, payouts };
        });
      const dayOf = (date: Date) => date.toISOString().slice(0, 10);

      // 1. No worker: the helper is killed after its release.
      const first = await start('api');
      await addWallet(run, first.url);
      await paidCharge(run, first.url, 1_000_000);
      await killedSettle(first);
      const cut = await rows();
      expect(cut.batches).toMatchObject([{ status: 'released', origin: 'test_helper', payout_id: null }]);
      expect(cut.payouts).toEqual([]);
      const killedId = cut.batches[0]?.id;

      // 2. The next call pays it out and answers with it; then another call is killed the same way.
      const second = await start('api');
      const resumed = await api<SettleBody>(second.url, '/v1/test-helpers/settle', {});
      expect(resumed.status, resumed.text).toBe(200);
      expect(resumed.body).toMatchObject({
        released: true,
        batch: { id: killedId, status: 'paid_out', payoutId: expect.any(String) },
      });
      await paidCharge(run, second.url, 500_000);
      await killedSettle(second);
      const again = await rows();
      expect(again.batches.map((batch) => batch.status)).toEqual(['paid_out', 'released']);
      expect(again.payouts).toHaveLength(1);

      // 3. A worker (no daily run, which would also take up an open batch of its date) resumes it alone.
      const third = await start('api,worker', {
        SETTLEMENT_CRON: 'off',
        SETTLEMENT_RESUME_AFTER_SECONDS: '1',
      });
      await eventually(
        async () => (await balance(third.url)).available === '0',
        60_000,
        'the second batch paid out by the worker',
        250,
      );
      expect(await balance(third.url)).toMatchObject({ pending: '0', available: '0' });
      expect((await third.program.stop('SIGTERM', 30_000)).code).toBe(0);

      const end = await rows();
      expect(end.batches).toHaveLength(2);
      for (const batch of end.batches) {
        // Each batch is dated the day it was made on, never a later one.
        expect(batch).toMatchObject({
          business_date: dayOf(batch.created_at),
          origin: 'test_helper',
          status: 'paid_out',
        });
        expect(end.payouts.find((payout) => payout.id === batch.payout_id)).toMatchObject({
          amount: batch.net,
          automatic: true,
        });
      }
      expect(end.payouts).toHaveLength(2);

      await expectBalancedLedger(run.open);
    },
  );
});
