/**
 * Notification to ledger to webhook, the dispute figure of `npm run bench` (issue 37 item 8,
 * docs/dispute-ratios.md "Bench"): disputes raised at `rate` per second for `durationS` seconds, each
 * through the real path: the sandbox acquirer's signed notification, the gateway's read-back of the
 * dispute, the ledger's debit of the amount and the fee with the events in one transaction, the webhook
 * worker's signed delivery. Target: p99 under 1 s from the issuer raising it to the merchant's receiver
 * holding both `dispute.created` and `dispute.funds_withdrawn`, every one of them arrived.
 *
 * 1. A fresh database, migrated; one merchant (flags `apiKeys`, `disputes`) with a key; the sandbox
 *    acquirer as a program of its own (bench/acquirer.ts); the gateway from dist/ in one process
 *    (`ROLES=api,worker`, default webhook settings); a loopback receiver (bench/disputes-receiver.ts, a
 *    process of its own) behind one webhook endpoint subscribed to the two events.
 * 2. As many charges as disputes: created through `POST /v1/charges`, paid at the acquirer with a Visa
 *    test card that raises nothing by itself, and succeeded in the gateway (its notification applied).
 * 3. The load (bench/disputes-load.ts, a program of its own): `POST /_control/disputes` on those payments,
 *    open loop, one every 1/rate s, the first `warmupS` seconds not counted; each dispute's latency runs
 *    from its due time to each webhook's first arrival at the receiver.
 * 4. Then, until every webhook has arrived (or a minute has passed): the counts, and the rows the path
 *    left (the disputes and their ledger entries). Beside it, the control call's own answer: what the
 *    acquirer takes before the gateway hears of the dispute.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { openDatabase, type Kdb } from '../src/db/database.js';
import { migrate, readMigrations } from '../src/db/migrator.js';
import { migrationsDir } from '../src/paths.js';
import { systemClock } from '../src/shared/clock.js';
import { createFreshDatabase, dropDatabase } from '../test/helpers/database.js';
import { createOrganization, issueKey } from '../test/helpers/merchants.js';
import { gatewayEnv, spawnGateway, type GatewayProcess } from '../test/helpers/process.js';
import { startAcquirerProgram } from './acquirer.js';
import type { DisputeLoadOptions, DisputeLoadResult } from './disputes-load.js';
import { latencyOf } from './disputes-page.js';
import { cpuMeter, round } from './measure.js';
import { spawnListening } from './spawn.js';

export interface DisputesWebhookBenchOptions {
  /** Disputes raised per second (default 50). */
  rate?: number;
  /** The measured seconds (default 10), after `warmupS` (default 2) at the same rate. */
  durationS?: number;
  warmupS?: number;
}

const EVENTS = ['dispute.created', 'dispute.funds_withdrawn'] as const;
const TARGET_P99_MS = 1000;
/** A Visa card that pays and raises nothing by itself (sandbox-acquirer/cards.ts). */
const PLAIN_VISA = '4242424242424242';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const log = (message: string) => console.error(`[bench disputes webhooks] ${message}`);

const spawnReceiver = () => spawnListening('disputes-receiver.ts', 'dispute receiver');

async function arrivals(receiverUrl: string): Promise<{ arrivals: Record<string, number>; posts: number }> {
  return (await (await fetch(`${receiverUrl}/arrivals`)).json()) as {
    arrivals: Record<string, number>;
    posts: number;
  };
}

function runLoad(options: DisputeLoadOptions): Promise<DisputeLoadResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        fileURLToPath(new URL('./disputes-load.ts', import.meta.url)),
        JSON.stringify(options),
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0
        ? resolve(JSON.parse(stdout) as DisputeLoadResult)
        : reject(new Error(`the dispute load exited with ${code}`)),
    );
  });
}

async function expectOk(response: Response, what: string): Promise<unknown> {
  const text = await response.text();
  if (!response.ok) throw new Error(`${what} answered ${response.status}: ${text.slice(0, 500)}`);
  return JSON.parse(text) as unknown;
}

/** `count` paid charges of the key's merchant, `parallel` at a time: charge id and acquirer payment id. */
async function paidCharges(
  api: string,
  key: string,
  acquirer: { url: string; apiKey: string },
  count: number,
  parallel = 8,
): Promise<Array<{ chargeId: string; paymentId: string }>> {
  const paid: Array<{ chargeId: string; paymentId: string }> = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < count) {
        const index = next++;
        const charge = (await expectOk(
          await fetch(`${api}/v1/charges`, {
            method: 'POST',
            headers: { 'x-api-key': key, 'content-type': 'application/json' },
            body: JSON.stringify({
              amount: 10_000,
              currency: 'TRY',
              paymentMethod: 'credit_card_tr',
              merchantReference: `dispute-bench-${index}`,
            }),
          }),
          'POST /v1/charges',
        )) as { id: string; providerPaymentId: string };
        await expectOk(
          await fetch(
            `${acquirer.url}/v1/payments/${encodeURIComponent(charge.providerPaymentId)}/authorize`,
            {
              method: 'POST',
              headers: { authorization: `Bearer ${acquirer.apiKey}`, 'content-type': 'application/json' },
              body: JSON.stringify({
                number: PLAIN_VISA,
                expMonth: 12,
                expYear: 2030,
                cvc: '123',
                holderName: 'Dispute Bench',
                returnUrl: 'https://shop.example/back',
              }),
            },
          ),
          'the acquirer’s authorize',
        );
        paid.push({ chargeId: charge.id, paymentId: charge.providerPaymentId });
      }
    }),
  );
  return paid;
}

async function succeededCharges(db: Kdb, organizationId: string): Promise<number> {
  const row = await db
    .selectFrom('charges')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('organization_id', '=', organizationId)
    .where('status', '=', 'succeeded')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

async function chargebacks(db: Kdb, organizationId: string): Promise<number> {
  const row = await db
    .selectFrom('disputes')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('organization_id', '=', organizationId)
    .where('stage', '=', 'chargeback')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The acquirer's dispute notifications: how many took more than one attempt, and the answers that failed. */
async function notificationAttempts(acquirer: { url: string; apiKey: string }) {
  const { data } = (await expectOk(
    await fetch(`${acquirer.url}/_control/notifications`, {
      headers: { authorization: `Bearer ${acquirer.apiKey}` },
    }),
    'GET /_control/notifications',
  )) as {
    data: Array<{
      disputeId: string | null;
      attempts: Array<{ status: number | null; error: string | null }>;
    }>;
  };
  const disputes = data.filter((note) => note.disputeId !== null);
  const failed: Record<string, number> = {};
  for (const note of disputes)
    for (const attempt of note.attempts.slice(0, -1)) {
      const answer = attempt.status === null ? (attempt.error ?? 'no answer') : String(attempt.status);
      failed[answer] = (failed[answer] ?? 0) + 1;
    }
  return {
    notifications: disputes.length,
    retried: disputes.filter((note) => note.attempts.length > 1).length,
    failedAttempts: failed,
  };
}

async function ledgerEntries(db: Kdb, organizationId: string): Promise<Record<string, number>> {
  const rows = await db
    .selectFrom('journal_entries')
    .select(['kind', (eb) => eb.fn.countAll<string>().as('n')])
    .where('organization_id', '=', organizationId)
    .where('kind', 'in', ['dispute_funds_withdrawn', 'dispute_fee'])
    .groupBy('kind')
    .execute();
  return Object.fromEntries(rows.map((row) => [row.kind, Number(row.n)]));
}

export async function benchDisputesWebhooks(options: DisputesWebhookBenchOptions = {}) {
  const rate = options.rate ?? 50;
  const durationS = options.durationS ?? 10;
  const warmupS = options.warmupS ?? 2;
  const warmup = Math.round(rate * warmupS);
  const measured = Math.round(rate * durationS);
  const databaseUrl = await createFreshDatabase();
  const database = await openDatabase({ databaseUrl, poolSize: 4 });
  let receiver: ChildProcess | undefined;
  let acquirer: Awaited<ReturnType<typeof startAcquirerProgram>> | undefined;
  let gateway: GatewayProcess | undefined;
  try {
    await migrate(database, readMigrations(migrationsDir));
    const db = database.db;
    const organizationId = await createOrganization(db, systemClock, {
      name: 'Dispute bench merchant',
      featureFlags: ['apiKeys', 'disputes'],
    });
    const key = await issueKey(db, systemClock, organizationId, { scopes: ['all'] });
    const started = await spawnReceiver();
    receiver = started.child;
    acquirer = await startAcquirerProgram();
    gateway = spawnGateway({
      env: gatewayEnv({
        ...acquirer.env,
        ROLES: 'api,worker',
        DATABASE_URL: databaseUrl,
        WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
        SETTLEMENT_CRON: 'off',
        RECONCILIATION_CRON: 'off',
      }),
    });
    const urls = await gateway.waitForBanner(90_000);
    const api = urls.sandboxApi ?? '';
    await expectOk(
      await fetch(`${api}/v1/webhook-endpoints`, {
        method: 'POST',
        headers: { 'x-api-key': key.secret, 'content-type': 'application/json' },
        body: JSON.stringify({ url: `${started.url}/hooks`, enabledEvents: [...EVENTS] }),
      }),
      'POST /v1/webhook-endpoints',
    );

    log(`paying ${warmup + measured} charges`);
    const preparing = performance.now();
    const charges = await paidCharges(api, key.secret, acquirer, warmup + measured);
    const deadline = performance.now() + 120_000;
    while ((await succeededCharges(db, organizationId)) < charges.length) {
      if (performance.now() > deadline) throw new Error('the charges did not all succeed in two minutes');
      await sleep(200);
    }
    const preparedS = round((performance.now() - preparing) / 1000);

    log(`raising ${warmup} + ${measured} disputes at ${rate}/s`);
    const cpu = cpuMeter({ gateway: gateway.pid, acquirer: acquirer.pid, receiver: receiver.pid });
    const load = await runLoad({
      acquirerUrl: acquirer.url,
      apiKey: acquirer.apiKey,
      paymentIds: charges.map((charge) => charge.paymentId),
      rate,
      connections: 16,
    });
    const chargeOf = new Map(charges.map((charge) => [charge.paymentId, charge.chargeId]));
    const expected = charges.length * EVENTS.length;
    let seen = await arrivals(started.url);
    const waitUntil = performance.now() + 60_000;
    while (Object.keys(seen.arrivals).length < expected && performance.now() < waitUntil) {
      await sleep(100);
      seen = await arrivals(started.url);
    }
    const cpuPerDispute = cpu.perRequest(charges.length);
    const counted = load.raised
      .filter((raised) => raised.status === 201)
      .sort((a, b) => a.dueAt - b.dueAt)
      .slice(warmup);
    /** Each counted dispute's latency to `event` (to the later of both), undefined when it did not arrive. */
    const latenciesTo = (event: (typeof EVENTS)[number] | 'both') =>
      counted.map((raised) => {
        const chargeId = chargeOf.get(raised.paymentId);
        const times = (event === 'both' ? EVENTS : [event]).map(
          (type) => seen.arrivals[`${type} ${chargeId}`],
        );
        return times.every((at) => at !== undefined) ? Math.max(...times) - raised.dueAt : undefined;
      });
    const figure = (event: (typeof EVENTS)[number] | 'both') => {
      const values = latenciesTo(event).filter((value) => value !== undefined);
      return { ...latencyOf(values), maxMs: round(Math.max(0, ...values)) };
    };
    const both = figure('both');
    // The first half of the path: the dispute row, written when the notification was applied.
    const applied = new Map(
      (
        await db
          .selectFrom('disputes')
          .select(['charge_id', 'created_at'])
          .where('organization_id', '=', organizationId)
          .execute()
      ).map((row) => [row.charge_id, new Date(row.created_at).getTime()]),
    );
    const toApplied = counted.flatMap((raised) => {
      const at = applied.get(chargeOf.get(raised.paymentId) ?? '');
      return at === undefined ? [] : [at - raised.dueAt];
    });
    // Whether the path kept up: the median latency of the disputes due in each second of the window.
    const firstDue = counted[0]?.dueAt ?? 0;
    const bySecond: number[][] = [];
    latenciesTo('both').forEach((value, index) => {
      const second = Math.floor(((counted[index]?.dueAt ?? firstDue) - firstDue) / 1000);
      if (value !== undefined) (bySecond[second] ??= []).push(value);
    });
    const arrived = Object.keys(seen.arrivals).length;
    const answers = latencyOf(load.raised.map((raised) => raised.answerMs));
    return {
      settings: {
        disputesPerSecond: rate,
        durationSeconds: durationS,
        warmupSeconds: warmupS,
        gateway: 'one process from dist/, ROLES=api,worker, default webhook settings',
        acquirer: 'the sandbox acquirer, a program of its own',
        chargesPreparedSeconds: preparedS,
      },
      raised: load.raised.length,
      controlCallErrors: load.errors + load.raised.filter((raised) => raised.status !== 201).length,
      offeredPerSecond: round(load.raised.length / load.seconds),
      webhooks: { expected, arrived, receiverPosts: seen.posts, allArrived: arrived === expected },
      rows: {
        chargebacks: await chargebacks(db, organizationId),
        ledgerEntries: await ledgerEntries(db, organizationId),
      },
      acquirerNotifications: await notificationAttempts(acquirer),
      'raised to applied (the dispute row written, the ledger posted)': latencyOf(toApplied),
      'raised to dispute.created at the receiver': figure('dispute.created'),
      'raised to dispute.funds_withdrawn at the receiver': figure('dispute.funds_withdrawn'),
      'raised to both at the receiver': both,
      'p50 of each second of the window (ms)': bySecond.map((values) => latencyOf(values).p50Ms),
      ceiling: { 'the control call answered (the acquirer alone)': answers },
      'CPU per dispute (ms; the whole path, both webhooks delivered)': cpuPerDispute,
      target: `p99 under ${TARGET_P99_MS} ms, every webhook arrived`,
      withinTarget: arrived === expected && both.calls === measured && both.p99Ms < TARGET_P99_MS,
    };
  } finally {
    if (gateway && !gateway.exited) {
      gateway.child.kill('SIGTERM');
      await gateway.waitForExit(30_000).catch(() => gateway?.child.kill('SIGKILL'));
    }
    await acquirer?.stop();
    receiver?.kill('SIGTERM');
    await database.close();
    await dropDatabase(databaseUrl);
  }
}
