/**
 * Issue 37, "SIGKILL between each step", for the merchant's answers to a dispute and the auto-refund of
 * pre-dispute alerts (docs/disputes.md "After a crash"). The real program on the pass's database, with a
 * sandbox acquirer of the test's own that outlives the kills. Each kill comes once its crash points are
 * all reached, and the next program finishes or answers each exactly once:
 *
 * 1. evidence sent and a dispute accepted at the acquirer, which sits on its answers (`delay_response`):
 *    the gateway dies before recording them; the same two recorded by the gateway, whose answers a proxy
 *    drops: the merchant never heard. The merchant retries, with the key and without;
 * 2. an alert refunded and recorded whose resolution the gateway is still reading back, and an alert whose
 *    refund the acquirer made (resolving it) while it sits on the answer;
 * 3. the job finishes both auto-refunds, the issuer's decisions on the evidence arrive, and every dispute,
 *    alert, refund, event and ledger entry is there once.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { startSandboxAcquirer } from '../sandbox-acquirer/server.js';
import { DEFAULT_RETRY_SCHEDULE } from '../sandbox-acquirer/notifier.js';
import type { Database } from '../src/db/database.js';
import { createLedgerService } from '../src/modules/ledger/service.js';
import { feeRateIn } from '../src/modules/organizations/fee-rates.js';
import { systemClock } from '../src/shared/clock.js';
import { acquirerControl } from './helpers/acquirer.js';
import { apiAt } from './helpers/client.js';
import {
  acquirerEnv,
  authorizedCharge,
  balanceAt,
  programCleanups,
  programTargets,
  seedMerchant,
  startProgram,
  tempDir,
  withDatabase,
  type ProgramRun,
  type StartedProgram,
} from './helpers/crash.js';
import { request, validCharge, type ErrorBody, type HttpResult } from './helpers/http.js';
import { checkInvariants } from './helpers/invariants.js';
import { eventually, freePort, gatewayEnv, type ProgramDatabase } from './helpers/process.js';

const cleanups = programCleanups();
const CREDENTIALS = { apiKey: 'sa_answer_crash_key', notificationSecret: 'answer-crash-notification-secret' };
/** Long enough for the retries after the restart to come first, so the decision lands on `under_review`. */
const DECISION_MS = 20_000;
const targets = programTargets(cleanups);

interface DisputeBody {
  id: string;
  chargeId: string;
  status: string;
  closedBy: string | null;
  evidenceSubmittedAt: string | null;
  submissions: unknown[];
  amountReinstated: string;
}
interface AlertBody {
  id: string;
  status: string;
  refundId: string | null;
}

/**
 * A data directory, the pass's database with a merchant of the `disputes` flag, and an acquirer that
 * decides evidence `DECISION_MS` after it and retries notifications at least every 2 seconds (the kills
 * leave some undelivered).
 */
async function prepareRun(target: ProgramDatabase): Promise<ProgramRun> {
  const dataDir = tempDir(cleanups, 'dp-answer-crash-');
  const acquirer = await startSandboxAcquirer({
    port: 0,
    ...CREDENTIALS,
    clock: systemClock,
    disputeDecisionMs: DECISION_MS,
    notificationRetry: { ...DEFAULT_RETRY_SCHEDULE, initialDelayMs: 500, maxDelayMs: 2000 },
  });
  cleanups.push(() => acquirer.close());
  const { env: targetEnv, open } = await target.prepare(dataDir);
  const { organizationId, key } = await seedMerchant(open, { featureFlags: ['apiKeys', 'disputes'] });
  return {
    dataDir,
    acquirer,
    credentials: CREDENTIALS,
    targetEnv,
    open,
    organizationId,
    key,
    env: (overrides = {}) =>
      gatewayEnv({
        DATA_DIR: dataDir,
        ...acquirerEnv(acquirer.url, CREDENTIALS),
        ...overrides,
        ...targetEnv,
      }),
    api: <T>(base: string, route: string, body?: unknown) =>
      apiAt<T & ErrorBody>(base, route, { body, key: key.secret }),
  };
}

/**
 * The program's variables: the same sandbox port after the restart (the acquirer notifies the URL it was
 * given), acquirer calls short enough to die inside and an idempotency lock just above them.
 */
const programEnv = async (run: ProgramRun) =>
  run.env({
    ROLES: 'api,worker',
    SANDBOX_API_PORT: String(await freePort()),
    ACQUIRER_TIMEOUT_MS: '5000',
    ACQUIRER_MAX_ATTEMPTS: '1',
    IDEMPOTENCY_LOCK_MS: '6000',
  });

/** A POST with the merchant's key, and `X-Idempotency-Key` when given. */
function post<T>(run: ProgramRun, base: string, route: string, body: unknown, idempotencyKey?: string) {
  return apiAt<T & ErrorBody>(base, route, {
    body,
    key: run.key.secret,
    headers: idempotencyKey === undefined ? {} : { 'x-idempotency-key': idempotencyKey },
  });
}

/** The retry of a request whose first try died: `duplicate_request` until its lock lapses, then its answer. */
async function retried<T>(attempt: () => Promise<HttpResult<T & ErrorBody>>) {
  let answer: HttpResult<T & ErrorBody> | undefined;
  await eventually(
    async () => {
      answer = await attempt();
      return !(answer.status === 409 && answer.body.error?.code === 'duplicate_request');
    },
    30_000,
    'the lock of the killed request to lapse',
    250,
  );
  return answer!;
}

/** Raises a case on the acquirer's payment, as its issuer would; the acquirer's id of it. */
async function raise(run: ProgramRun, paymentId: string, kind: 'dispute' | 'pre_dispute_alert') {
  const raised = await request<{ id: string }>(`${run.acquirer.url}/_control/disputes`, {
    body: { paymentId, kind, reason: 'fraudulent' },
    headers: { authorization: `Bearer ${CREDENTIALS.apiKey}` },
  });
  expect(raised.status, raised.text).toBe(201);
  return raised.body.id;
}

/** The one case of `kind` the gateway has on the charge, once it has it. */
async function caseOf<T>(run: ProgramRun, url: string, list: string, chargeId: string): Promise<T> {
  let found: T | undefined;
  await eventually(
    async () => {
      const page = await run.api<{ data: T[] }>(url, `${list}?chargeId=${encodeURIComponent(chargeId)}`);
      found = page.body.data?.[0];
      return found !== undefined;
    },
    30_000,
    `the ${list} of ${chargeId}`,
    100,
  );
  return found!;
}

/** `count` paid charges of 100.00 TRY, in the pending balance. */
async function paidCharges(run: ProgramRun, url: string, count: number) {
  const charges: Array<{ id: string; providerPaymentId: string }> = [];
  for (let index = 0; index < count; index++)
    charges.push((await authorizedCharge(run, url, validCharge({ amount: 10_000 }))).charge);
  await eventually(
    async () => (await balanceAt(run, url)).pending === String(9550 * count),
    30_000,
    'the charges in the pending balance',
  );
  return charges;
}

/**
 * Stands between the merchant and the gateway: forwards each request and drops the answer once the
 * gateway has sent it all, as a network that fails on the way back. The statuses it dropped are kept.
 */
async function startAnswerDropper(target: string) {
  const dropped: number[] = [];
  const server = http.createServer((req, res) => {
    const upstream = http.request(
      `${target}${req.url ?? '/'}`,
      { method: req.method, headers: req.headers },
      (answer) => {
        answer.resume();
        answer.on('end', () => {
          dropped.push(answer.statusCode ?? 0);
          res.socket?.destroy();
        });
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, dropped };
}

/** Each resource's event types, sorted. */
async function eventsOf(database: Database, ids: string[]): Promise<Record<string, string[]>> {
  const rows = await database.db
    .selectFrom('events')
    .select(['resource_id', 'type'])
    .where('resource_id', 'in', ids)
    .execute();
  return Object.fromEntries(
    ids.map((id) => [
      id,
      rows
        .filter((row) => row.resource_id === id)
        .map((row) => row.type)
        .sort(),
    ]),
  );
}

/** The money invariants of the whole database (test/helpers/invariants.ts): none violated. */
async function expectSoundMoney(database: Database) {
  const ledger = createLedgerService({ db: database.db, clock: systemClock, feesFor: feeRateIn });
  expect((await checkInvariants(database.db, ledger)).violations).toEqual([]);
}

type Charge = { id: string; providerPaymentId: string };

/** The four disputes of the answers' crash points, the keys of their requests and the acquirer's ids. */
interface Answers {
  submitted: DisputeBody;
  submittedUnheard: DisputeBody;
  accepted: DisputeBody;
  acceptedUnheard: DisputeBody;
  keys: Record<'submit' | 'submitUnheard' | 'accept' | 'acceptUnheard', string>;
  providerIds: string[];
}

/**
 * Evidence sent and a dispute accepted at an acquirer that then sits on its answers, and the same two
 * recorded by the gateway whose answers the proxy drops; then the kill. What the database holds then.
 */
async function killWhileAnswering(
  run: ProgramRun,
  program: StartedProgram,
  charges: Charge[],
): Promise<Answers & { recordedAt: Date }> {
  const control = acquirerControl({ url: run.acquirer.url, apiKey: CREDENTIALS.apiKey });
  const dropper = await startAnswerDropper(program.url);
  const providerIds = await Promise.all(
    charges.map((charge) => raise(run, charge.providerPaymentId, 'dispute')),
  );
  const [submitted, submittedUnheard, accepted, acceptedUnheard] = (await Promise.all(
    charges.map((charge) => caseOf<DisputeBody>(run, program.url, '/v1/disputes', charge.id)),
  )) as [DisputeBody, DisputeBody, DisputeBody, DisputeBody];
  for (const dispute of [submitted, submittedUnheard]) {
    const staged = await post(run, program.url, `/v1/disputes/${dispute.id}/evidence`, {
      accessActivityLog: 'winning_evidence: the customer streamed for three hours',
    });
    expect(staged.status, staged.text).toBe(200);
  }
  const keys = {
    submit: `submit-${submitted.id}`,
    submitUnheard: `submit-${submittedUnheard.id}`,
    accept: `accept-${accepted.id}`,
    acceptUnheard: `accept-${acceptedUnheard.id}`,
  };

  // The acquirer takes the evidence and the acceptance, then sits on its answers.
  for (const [operation, charge] of [
    ['submit_evidence', charges[0]!],
    ['accept_dispute', charges[2]!],
  ] as const)
    await control.addFault({
      operation,
      action: 'delay_response',
      latencyMs: 60_000,
      times: 1,
      match: { reference: charge.id },
    });
  const held = [
    post(run, program.url, `/v1/disputes/${submitted.id}/evidence`, { submit: true }, keys.submit),
    post(run, program.url, `/v1/disputes/${accepted.id}/accept`, {}, keys.accept),
  ].map((call) => call.then(() => 'answered').catch(() => 'lost'));
  await eventually(
    async () =>
      (await control.calls('submit_evidence')).length === 1 &&
      (await control.calls('accept_dispute')).length === 1,
    10_000,
    'the acquirer to take the evidence and the acceptance',
  );
  // The gateway records the other two and answers; the answers are lost on the way.
  const unheard = (route: string, body: unknown, key: string) =>
    expect(post(run, dropper.url, route, body, key)).rejects.toThrow();
  await unheard(`/v1/disputes/${submittedUnheard.id}/evidence`, { submit: true }, keys.submitUnheard);
  await unheard(`/v1/disputes/${acceptedUnheard.id}/accept`, {}, keys.acceptUnheard);
  expect(dropper.dropped).toEqual([200, 200]);
  expect((await program.program.stop('SIGKILL', 20_000)).signal).toBe('SIGKILL');
  expect(await Promise.all(held)).toEqual(['lost', 'lost']);

  const atCrash = await withDatabase(run.open, async ({ db }) => ({
    disputes: await db.selectFrom('disputes').select(['id', 'evidence_submitted_at', 'closed_by']).execute(),
    keys: await db
      .selectFrom('idempotency_keys')
      .select(['key', 'state'])
      .where('key', 'in', Object.values(keys))
      .execute(),
  }));
  const rowOf = (id: string) => atCrash.disputes.find((row) => row.id === id);
  expect(rowOf(submitted.id)?.evidence_submitted_at).toBeNull();
  expect(rowOf(acceptedUnheard.id)?.closed_by).toBe('acceptance');
  const recordedAt = rowOf(submittedUnheard.id)?.evidence_submitted_at;
  expect(recordedAt).toBeInstanceOf(Date);
  const stateOf = (key: string) => atCrash.keys.find((row) => row.key === key)?.state;
  expect([keys.submit, keys.accept].map(stateOf)).toEqual(['in_flight', 'in_flight']);
  expect([keys.submitUnheard, keys.acceptUnheard].map(stateOf)).toEqual(['completed', 'completed']);
  return {
    submitted,
    submittedUnheard,
    accepted,
    acceptedUnheard,
    keys,
    providerIds,
    recordedAt: recordedAt!,
  };
}

/** The merchant's retries after the restart, with the key and without, and what the acquirer holds. */
async function retryAnswers(run: ProgramRun, url: string, answers: Answers & { recordedAt: Date }) {
  const { submitted, submittedUnheard, accepted, acceptedUnheard, keys } = answers;
  const evidenceOf = (dispute: DisputeBody, key?: string) =>
    post<DisputeBody>(run, url, `/v1/disputes/${dispute.id}/evidence`, { submit: true }, key);
  const acceptOf = (dispute: DisputeBody, key?: string) =>
    post<DisputeBody>(run, url, `/v1/disputes/${dispute.id}/accept`, {}, key);

  // The evidence the acquirer took: the retry records it once, from the acquirer's word.
  const resubmitted = await retried(() => evidenceOf(submitted, keys.submit));
  expect(resubmitted.status, resubmitted.text).toBe(200);
  expect(resubmitted.body).toMatchObject({ status: 'under_review', evidenceSubmittedAt: expect.any(String) });
  expect(resubmitted.body.submissions).toHaveLength(1);
  // The evidence the gateway recorded: the key replays its answer.
  const replayed = await evidenceOf(submittedUnheard, keys.submitUnheard);
  expect(replayed.status, replayed.text).toBe(200);
  expect(replayed.headers.get('idempotent-replayed')).toBe('true');
  expect(replayed.body.evidenceSubmittedAt).toBe(answers.recordedAt.toISOString());
  // Without the key, either is a second submission: refused.
  for (const dispute of [submitted, submittedUnheard]) {
    const again = await evidenceOf(dispute);
    expect(again.status, again.text).toBe(409);
    expect(again.body.error.code).toBe('evidence_already_submitted');
  }
  // Acceptances: the retry, and a new request, answer the dispute closed by it.
  const reaccepted = await retried(() => acceptOf(accepted, keys.accept));
  expect(reaccepted.status, reaccepted.text).toBe(200);
  const replayedAccept = await acceptOf(acceptedUnheard, keys.acceptUnheard);
  expect(replayedAccept.headers.get('idempotent-replayed')).toBe('true');
  for (const dispute of [accepted, acceptedUnheard]) {
    const again = await acceptOf(dispute);
    expect(again.status, again.text).toBe(200);
    expect(again.body).toMatchObject({ status: 'lost', closedBy: 'acceptance' });
  }

  // The acquirer holds one submission each; the recovered one is dated when the acquirer took it.
  const takenAt = await Promise.all(
    answers.providerIds.slice(0, 2).map(async (providerId) => {
      const read = await request<{ evidence: Array<{ submittedAt: string }> }>(
        `${run.acquirer.url}/v1/disputes/${providerId}`,
        { headers: { authorization: `Bearer ${CREDENTIALS.apiKey}` } },
      );
      expect(read.body.evidence).toHaveLength(1);
      return read.body.evidence[0]!.submittedAt;
    }),
  );
  expect(resubmitted.body.evidenceSubmittedAt).toBe(takenAt[0]);
}

/**
 * Pre-dispute alerts under the merchant's rule: one refunded and recorded whose resolution the gateway
 * is still reading back (every read-back of it is held), one whose refund the acquirer made (resolving
 * it) and whose answer it sits on; then the kill. What the database holds then.
 */
async function killWhileAutoRefunding(
  run: ProgramRun,
  program: StartedProgram,
  [recorded, unheard]: Charge[],
) {
  const control = acquirerControl({ url: run.acquirer.url, apiKey: CREDENTIALS.apiKey });
  const readBacks = async () => (await control.calls('get_dispute', recorded!.providerPaymentId)).length;
  // The refund waits a moment, so that the hold on the read-back is in place before it resolves the alert.
  await control.addFault({
    operation: 'refund',
    action: 'latency',
    latencyMs: 3000,
    times: 1,
    match: { reference: recorded!.id },
  });
  await raise(run, recorded!.providerPaymentId, 'pre_dispute_alert');
  const alert = await caseOf<AlertBody>(run, program.url, '/v1/dispute-alerts', recorded!.id);
  const before = await readBacks();
  await control.addFault({
    operation: 'get_dispute',
    action: 'delay_response',
    latencyMs: 60_000,
    match: { reference: recorded!.id },
  });
  await eventually(
    async () =>
      (await run.api<AlertBody>(program.url, `/v1/dispute-alerts/${alert.id}`)).body.refundId !== null,
    30_000,
    'the first alert refunded and recorded',
    100,
  );
  await eventually(async () => (await readBacks()) > before, 10_000, 'the read-back of its resolution');

  await control.addFault({
    operation: 'refund',
    action: 'delay_response',
    latencyMs: 60_000,
    times: 1,
    match: { reference: unheard!.id },
  });
  await raise(run, unheard!.providerPaymentId, 'pre_dispute_alert');
  await eventually(
    async () => (await control.calls('refund', unheard!.providerPaymentId)).length === 1,
    30_000,
    'the acquirer to make the second refund',
    100,
  );
  expect((await program.program.stop('SIGKILL', 20_000)).signal).toBe('SIGKILL');
  await control.clearFaults();

  await withDatabase(run.open, async ({ db }) => {
    const alerts = await db
      .selectFrom('dispute_alerts')
      .select(['charge_id', 'status', 'refund_id'])
      .execute();
    const refunds = await db.selectFrom('refunds').select(['charge_id', 'status']).execute();
    expect(alerts.find((row) => row.charge_id === recorded!.id)).toMatchObject({
      status: 'open',
      refund_id: expect.any(String),
    });
    expect(alerts.find((row) => row.charge_id === unheard!.id)?.refund_id).toBeNull();
    expect(refunds.find((row) => row.charge_id === unheard!.id)?.status).toBe('pending');
  });
}

describe.each(targets)(
  'a gateway killed while it answers disputes and refunds alerts, on $name',
  (target) => {
    it(
      'records each answer and finishes each auto-refund once after a restart, whichever side of the record it died on',
      { timeout: 240_000 },
      async () => {
        const run = await prepareRun(target);
        const control = acquirerControl({ url: run.acquirer.url, apiKey: CREDENTIALS.apiKey });
        const env = await programEnv(run);
        const first = await startProgram(env, { timeoutMs: 90_000 });
        const rule = await apiAt<ErrorBody>(first.url, '/v1/dispute-refund-rules/dispute_alert', {
          method: 'PUT',
          body: { enabled: true, maxAmount: null },
          key: run.key.secret,
        });
        expect(rule.status, rule.text).toBe(200);
        const charges = await paidCharges(run, first.url, 6);
        const disputed = charges.slice(0, 4);
        const alerted = charges.slice(4);

        // 1. The answers to four disputes, killed on either side of their record.
        const answers = await killWhileAnswering(run, first, disputed);

        // 2. The retries; then the auto-refunds of two alerts, killed on either side of their record.
        const second = await startProgram(env, { timeoutMs: 90_000 });
        await retryAnswers(run, second.url, answers);
        await killWhileAutoRefunding(run, second, alerted);

        // 3. The job finishes both auto-refunds; the issuer's decisions on the evidence land.
        const third = await startProgram(env, { timeoutMs: 90_000 });
        for (const charge of alerted)
          await eventually(
            async () => {
              const found = await caseOf<AlertBody>(run, third.url, '/v1/dispute-alerts', charge.id);
              const refunds = await run.api<{ data: Array<{ status: string }> }>(
                third.url,
                `/v1/charges/${charge.id}/refunds`,
              );
              return (
                found.status === 'resolved' &&
                found.refundId !== null &&
                refunds.body.data.every((refund) => refund.status === 'succeeded')
              );
            },
            90_000,
            `the alert of ${charge.id} resolved, its refund recorded`,
            250,
          );
        for (const dispute of [answers.submitted, answers.submittedUnheard])
          await eventually(
            async () =>
              (await run.api<DisputeBody>(third.url, `/v1/disputes/${dispute.id}`)).body.status === 'won',
            DECISION_MS + 30_000,
            `the decision on ${dispute.id}`,
            250,
          );
        expect((await third.program.stop('SIGTERM', 30_000)).code).toBe(0);
        // One refund per alerted charge at the acquirer too.
        for (const charge of alerted)
          expect((await control.payment(charge.providerPaymentId)).refunds).toHaveLength(1);

        await withDatabase(run.open, async (database) => {
          const { db } = database;
          const disputes = await db.selectFrom('disputes').selectAll().orderBy('created_at').execute();
          expect(disputes.map((row) => [row.status, row.closed_by, row.amount_reinstated])).toEqual([
            ['won', 'decision', '10000'],
            ['won', 'decision', '10000'],
            ['lost', 'acceptance', '0'],
            ['lost', 'acceptance', '0'],
          ]);
          for (const row of disputes.slice(0, 2)) {
            expect(row.evidence_submitted_at).not.toBeNull();
            expect(row.submissions).toHaveLength(1);
          }
          const alerts = await db.selectFrom('dispute_alerts').selectAll().orderBy('created_at').execute();
          const refunds = await db.selectFrom('refunds').selectAll().orderBy('created_at').execute();
          expect(refunds.map((refund) => [refund.charge_id, refund.status, refund.amount])).toEqual(
            alerted.map((charge) => [charge.id, 'succeeded', '10000']),
          );
          expect(alerts.map((row) => [row.status, row.refund_id])).toEqual(
            refunds.map((refund) => ['resolved', refund.id]),
          );
          const queued = await db
            .selectFrom('dispute_auto_refunds')
            .select(['outcome', 'refund_id'])
            .orderBy('created_at')
            .execute();
          expect(queued).toEqual(refunds.map((refund) => ({ outcome: 'refunded', refund_id: refund.id })));

          const submittedEvents = [
            'dispute.closed',
            'dispute.created',
            'dispute.funds_reinstated',
            'dispute.funds_withdrawn',
            'dispute.updated',
          ];
          const acceptedEvents = ['dispute.closed', 'dispute.created', 'dispute.funds_withdrawn'];
          expect(
            await eventsOf(
              database,
              disputes.map((row) => row.id),
            ),
          ).toEqual(
            Object.fromEntries(
              disputes.map((row, index) => [row.id, index < 2 ? submittedEvents : acceptedEvents]),
            ),
          );
          expect(
            await eventsOf(
              database,
              alerts.map((row) => row.id),
            ),
          ).toEqual(
            Object.fromEntries(
              alerts.map((row) => [row.id, ['dispute_alert.created', 'dispute_alert.resolved']]),
            ),
          );
          expect(
            await eventsOf(
              database,
              alerted.map((charge) => charge.id),
            ),
          ).toEqual(
            Object.fromEntries(alerted.map((charge) => [charge.id, ['charge.refunded', 'charge.succeeded']])),
          );
          const kinds = await sql<{ kind: string; n: string }>`
          select kind, count(*)::text as n from journal_entries group by kind order by kind`.execute(db);
          expect(kinds.rows).toEqual([
            { kind: 'charge_succeeded', n: '6' },
            { kind: 'dispute_fee', n: '4' },
            { kind: 'dispute_funds_reinstated', n: '2' },
            { kind: 'dispute_funds_withdrawn', n: '4' },
            { kind: 'refund', n: '2' },
          ]);
          await expectSoundMoney(database);
        });
      },
    );
  },
);
