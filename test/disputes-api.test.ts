/**
 * Issue 37 item 4: the merchant's API of disputes (flag `disputes`): lists with filters and cursors, a
 * dispute with the ledger entries it caused, evidence staged and submitted through the real sandbox
 * acquirer (won, lost, twice, too late, the acquirer down or its answer lost), acceptance, early fraud
 * warnings and pre-dispute alerts; the authentication matrix and ownership (404).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { TEST_CARDS } from '../sandbox-acquirer/cards.js';
import { createChargeDisputes } from '../src/modules/charges/service.js';
import { createDisputeService } from '../src/modules/disputes/service.js';
import { acquirerControl, errorFault } from './helpers/acquirer.js';
import { expectEachRefused, expectKeyRequired, expectLiveApart } from './helpers/api-checks.js';
import type { BalanceRow } from './helpers/bodies.js';
import { payByCard, tryBalanceOf } from './helpers/charges.js';
import { apiRequest, type ApiInit } from './helpers/client.js';
import { validCharge, type ErrorBody } from './helpers/http.js';
import { solidPng } from './helpers/images.js';
import { createMerchant, issueKey, type Merchant } from './helpers/merchants.js';
import { eventually } from './helpers/process.js';
import { t, useTestGateway } from './helpers/suite.js';

useTestGateway({
  env: { SANDBOX_ACQUIRER_DISPUTE_DELAY_MS: '100', SANDBOX_ACQUIRER_DISPUTE_DECISION_MS: '100' },
});

interface DisputeBody {
  id: string;
  object: 'dispute';
  chargeId: string;
  charge: { id: string; merchantReference: string };
  amount: string;
  status: string;
  stage: string;
  reason: string;
  evidenceDueBy: string | null;
  evidence: Record<string, unknown>;
  evidenceSubmittedAt: string | null;
  submissions: Array<{ stage: string; evidence: Record<string, unknown>; submittedAt: string }>;
  amountWithdrawn: string;
  amountReinstated: string;
  closedBy: string | null;
  ledgerEntries?: Array<{ kind: string; sourceId: string; postings: Array<{ account: string }> }>;
}
interface Page<T> {
  data: T[];
  nextCursor: string | null;
}

const FLAGS = { featureFlags: ['apiKeys', 'disputes'] as const };
const newMerchant = () => createMerchant(t, { featureFlags: [...FLAGS.featureFlags] });

const call = <T = DisputeBody>(merchant: Merchant, path: string, init: ApiInit = {}) =>
  apiRequest<T & ErrorBody>(t.urls, path, { key: merchant.keys.sandbox.secret, ...init });

const acquirer = () => t.gateway.services.acquirers.sandbox.acquirer;
const control = () => acquirerControl(t.sandboxAcquirer);
const providerIdOf = async (id: string) =>
  (
    await t.gateway.database.db
      .selectFrom('disputes')
      .select('provider_dispute_id')
      .where('id', '=', id)
      .executeTakeFirstOrThrow()
  ).provider_dispute_id;

/** 100.00 TRY paid with the test card `number`: its case follows 100 ms later. */
async function paidWith(merchant: Merchant, number: string): Promise<{ id: string }> {
  const res = await call<{ id: string; providerPaymentId: string }>(merchant, '/v1/charges', {
    body: validCharge({ amount: 10_000 }),
  });
  expect(res.status, res.text).toBe(201);
  await payByCard(t.gateway.services, res.body, 'Dispute Api', { number });
  return res.body;
}

/** The charge's one dispute through the API, once `ready` says so. */
async function disputeOf(
  merchant: Merchant,
  chargeId: string,
  ready: (dispute: DisputeBody) => boolean = (dispute) =>
    dispute.stage === 'inquiry' || dispute.amountWithdrawn !== '0',
): Promise<DisputeBody> {
  let found: DisputeBody | undefined;
  await eventually(
    async () => {
      const res = await call<Page<DisputeBody>>(merchant, `/v1/disputes?chargeId=${chargeId}`);
      expect(res.status, res.text).toBe(200);
      found = res.body.data[0];
      return found !== undefined && ready(found);
    },
    15_000,
    `the dispute of ${chargeId}`,
  );
  return found!;
}

const read = (merchant: Merchant, id: string) => call(merchant, `/v1/disputes/${id}`);
const evidence = (merchant: Merchant, id: string, body: unknown, headers: Record<string, string> = {}) =>
  call(merchant, `/v1/disputes/${id}/evidence`, { body, headers });
const accept = (merchant: Merchant, id: string) =>
  call(merchant, `/v1/disputes/${id}/accept`, { method: 'POST', body: {} });

async function settled(merchant: Merchant, id: string, status: string): Promise<DisputeBody> {
  let body: DisputeBody | undefined;
  await eventually(
    async () => {
      body = (await read(merchant, id)).body;
      return body.status === status;
    },
    15_000,
    `dispute ${id} ${status}`,
  );
  return body!;
}

const IPTV_LOG = '2026-11-20T21:04:11Z 203.0.113.7 login ok\n2026-11-20T21:04:30Z stream channel 12 (3h)';

describe('a chargeback through the API', () => {
  it('is listed and read with its ledger entries; evidence is staged, merged, sent once, and wins', async () => {
    const merchant = await newMerchant();
    const charge = await paidWith(merchant, TEST_CARDS.disputeFraudulent.number);
    const listed = await disputeOf(merchant, charge.id);
    expect(listed).toMatchObject({
      object: 'dispute',
      chargeId: charge.id,
      charge: { id: charge.id },
      amount: '10000',
      status: 'needs_response',
      stage: 'chargeback',
      reason: 'fraudulent',
      evidence: {},
      evidenceSubmittedAt: null,
    });
    expect(listed.id).toMatch(/^dp_/);
    const detail = await read(merchant, listed.id);
    expect(detail.status, detail.text).toBe(200);
    expect(detail.body.ledgerEntries!.map((entry) => entry.kind).sort()).toEqual([
      'dispute_fee',
      'dispute_funds_withdrawn',
    ]);
    expect(detail.body.ledgerEntries!.find((entry) => entry.kind === 'dispute_fee')?.sourceId).toBe(
      `${listed.id}:chargeback`,
    );

    // Filters: by status and by charge.
    const byStatus = await call<Page<DisputeBody>>(merchant, '/v1/disputes?status=needs_response');
    expect(byStatus.body.data.map((dispute) => dispute.id)).toEqual([listed.id]);
    expect((await call<Page<DisputeBody>>(merchant, '/v1/disputes?status=won')).body.data).toEqual([]);
    expect((await call<Page<DisputeBody>>(merchant, '/v1/disputes?chargeId=ch_none')).body.data).toEqual([]);
    const badStatus = await call(merchant, '/v1/disputes?status=open');
    expect(badStatus.status).toBe(400);

    // Staged, then merged: `null` clears a field; nothing is sent.
    const staged = await evidence(merchant, listed.id, {
      productDescription: 'A 12-month IPTV subscription',
      accessActivityLog: IPTV_LOG,
      refundPolicy: 'No refunds after first use.',
    });
    expect(staged.status, staged.text).toBe(200);
    expect(staged.body).toMatchObject({
      status: 'needs_response',
      evidenceSubmittedAt: null,
      evidence: { productDescription: 'A 12-month IPTV subscription', accessActivityLog: IPTV_LOG },
    });
    const merged = await evidence(merchant, listed.id, {
      refundPolicy: null,
      uncategorizedText: 'winning_evidence: the customer streamed for three hours',
    });
    expect(merged.body.evidence).toEqual({
      productDescription: 'A 12-month IPTV subscription',
      accessActivityLog: IPTV_LOG,
      uncategorizedText: 'winning_evidence: the customer streamed for three hours',
    });
    expect((await acquirer().getDispute(await providerIdOf(listed.id))).evidence).toEqual([]);

    // Sent: the acquirer receives the fields under their labels; the dispute goes under review.
    const sent = await evidence(merchant, listed.id, { submit: true });
    expect(sent.status, sent.text).toBe(200);
    expect(sent.body.evidenceSubmittedAt).not.toBeNull();
    expect(sent.body.submissions).toEqual([
      { stage: 'chargeback', evidence: merged.body.evidence, submittedAt: sent.body.evidenceSubmittedAt },
    ]);
    expect(['under_review', 'won']).toContain(sent.body.status);
    const atAcquirer = await acquirer().getDispute(await providerIdOf(listed.id));
    expect(atAcquirer.evidence).toHaveLength(1);
    expect(atAcquirer.evidence[0]!.text).toContain(`Access or activity log:\n${IPTV_LOG}`);
    expect(atAcquirer.evidence[0]!.text).toContain('Product or service description:\nA 12-month IPTV');

    // Once per stage: a second submission, or more staging, is refused.
    const twice = await evidence(merchant, listed.id, { submit: true });
    expect(twice.status).toBe(409);
    expect(twice.body.error.code).toBe('evidence_already_submitted');
    const more = await evidence(merchant, listed.id, { deliveryProof: 'x' });
    expect(more.body.error.code).toBe('evidence_already_submitted');

    const won = await settled(merchant, listed.id, 'won');
    expect(won).toMatchObject({ amountReinstated: '10000', closedBy: 'decision' });
    expect(won.ledgerEntries!.map((entry) => entry.kind).sort()).toEqual([
      'dispute_fee',
      'dispute_funds_reinstated',
      'dispute_funds_withdrawn',
    ]);
    // 9550 credited, 10000 withdrawn and given back, the 250.00 TRY fee kept.
    expect(await tryBalanceOf<BalanceRow>(t, merchant)).toMatchObject({ debt: '15450' });
  });

  it('losing evidence loses it; an empty, oversized or malformed submission is 400', async () => {
    const merchant = await newMerchant();
    const charge = await paidWith(merchant, TEST_CARDS.disputeProductNotReceived.number);
    const dispute = await disputeOf(merchant, charge.id);

    const empty = await evidence(merchant, dispute.id, { submit: true });
    expect(empty.status, empty.text).toBe(400);
    expect(empty.body.error.code).toBe('validation_failed');
    const tooLong = await evidence(merchant, dispute.id, { deliveryProof: 'x'.repeat(20_001) });
    expect(tooLong.status).toBe(400);
    const badFile = await evidence(merchant, dispute.id, { files: ['doc_1'] });
    expect(badFile.status).toBe(400);
    const unknown = await evidence(merchant, dispute.id, { notes: 'x' });
    expect(unknown.status).toBe(400);
    // Each field fits, all of them with their labels do not: nothing is sent or staged.
    const fields = ['productDescription', 'customerCommunication', 'refundPolicy'] as const;
    const whole = Object.fromEntries(fields.map((field) => [field, 'y'.repeat(8_000)]));
    const overall = await evidence(merchant, dispute.id, { ...whole, submit: true });
    expect(overall.status, overall.text).toBe(400);
    expect((await read(merchant, dispute.id)).body.evidence).toEqual({});

    // A file of the merchant's (now that the files service checks that the ids are the merchant's own).
    const upload = await t.gateway.services.files.upload(
      { organizationId: merchant.organizationId, environment: 'sandbox' },
      {
        purpose: 'dispute_evidence',
        filename: 'proof.pdf',
        bytes: Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n'),
      },
    );
    if (!upload.ok) throw new Error(upload.error.code);
    const fileId = upload.value.id;
    const key = 'dispute-lose-1';
    const sent = await evidence(
      merchant,
      dispute.id,
      { deliveryProof: 'losing_evidence', files: [fileId], submit: true },
      { 'x-idempotency-key': key },
    );
    expect(sent.status, sent.text).toBe(200);
    expect(sent.body.evidence).toEqual({ deliveryProof: 'losing_evidence', files: [fileId] });
    const replay = await evidence(
      merchant,
      dispute.id,
      { deliveryProof: 'losing_evidence', files: [fileId], submit: true },
      { 'x-idempotency-key': key },
    );
    expect(replay.status).toBe(200);
    expect(replay.body).toEqual(sent.body);
    const lost = await settled(merchant, dispute.id, 'lost');
    expect(lost).toMatchObject({ amountWithdrawn: '10000', amountReinstated: '0', closedBy: 'decision' });
    const atAcquirer = await acquirer().getDispute(await providerIdOf(dispute.id));
    expect(atAcquirer.evidence[0]!.text).toContain(`Files:\n${fileId}`);
  });

  it('the acquirer down: 502 with nothing recorded as sent; its lost answer is found on the retry', async () => {
    const merchant = await newMerchant();
    const charge = await paidWith(merchant, TEST_CARDS.disputeFraudulent.number);
    const dispute = await disputeOf(merchant, charge.id);
    await control().addFault(errorFault('submit_evidence', 503, 'unavailable', { times: 1 }));
    const down = await evidence(merchant, dispute.id, {
      uncategorizedText: 'winning_evidence',
      submit: true,
    });
    expect(down.status, down.text).toBe(502);
    expect(down.body.error.code).toBe('provider_unavailable');
    const after = (await read(merchant, dispute.id)).body;
    expect(after).toMatchObject({ status: 'needs_response', evidenceSubmittedAt: null, submissions: [] });
    expect(after.evidence).toEqual({ uncategorizedText: 'winning_evidence' });

    // Received, but the answer never comes back (past the gateway's 2 s budget): 502, then the retry
    // meets the acquirer's 409, reads the dispute back and finds this very evidence there.
    await control().addFault({
      operation: 'submit_evidence',
      action: 'delay_response',
      latencyMs: 2_500,
      times: 1,
    });
    const lostAnswer = await evidence(merchant, dispute.id, { submit: true });
    expect(lostAnswer.status, lostAnswer.text).toBe(502);
    const retried = await evidence(merchant, dispute.id, { submit: true });
    expect(retried.status, retried.text).toBe(200);
    expect(retried.body.submissions).toHaveLength(1);
    expect(retried.body.evidenceSubmittedAt).not.toBeNull();
    expect((await acquirer().getDispute(await providerIdOf(dispute.id))).evidence).toHaveLength(1);
    await settled(merchant, dispute.id, 'won');
  });
});

describe('accepting', () => {
  it('closes a dispute lost at the acquirer; again answers it unchanged; evidence is then refused', async () => {
    const merchant = await newMerchant();
    const charge = await paidWith(merchant, TEST_CARDS.disputeMastercard.number);
    const dispute = await disputeOf(merchant, charge.id);
    const accepted = await accept(merchant, dispute.id);
    expect(accepted.status, accepted.text).toBe(200);
    expect(accepted.body).toMatchObject({ status: 'lost', closedBy: 'acceptance', amountWithdrawn: '10000' });
    expect((await acquirer().getDispute(await providerIdOf(dispute.id))).status).toBe('lost');
    const again = await accept(merchant, dispute.id);
    expect(again.status).toBe(200);
    expect(again.body.status).toBe('lost');
    const late = await evidence(merchant, dispute.id, { uncategorizedText: 'x', submit: true });
    expect(late.status).toBe(409);
    expect(late.body.error.code).toBe('invalid_state_transition');
    const types = await t.gateway.database.db
      .selectFrom('events')
      .select('type')
      .where('resource_id', '=', dispute.id)
      .execute();
    expect(types.filter((row) => row.type === 'dispute.closed')).toHaveLength(1);
  });

  it('an inquiry is not accepted (409); it is answered with evidence', async () => {
    const merchant = await newMerchant();
    const charge = await paidWith(merchant, TEST_CARDS.disputeInquiry.number);
    const inquiry = await disputeOf(merchant, charge.id);
    expect(inquiry).toMatchObject({ status: 'warning_needs_response', stage: 'inquiry' });
    const refused = await accept(merchant, inquiry.id);
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('invalid_state_transition');
    const answered = await evidence(merchant, inquiry.id, {
      customerCommunication: 'Order 42',
      submit: true,
    });
    expect(answered.status, answered.text).toBe(200);
    expect(['warning_under_review', 'warning_closed']).toContain(answered.body.status);
  });
});

describe('early fraud warnings and pre-dispute alerts', () => {
  it('are listed by charge (alerts also by status) and read by id', async () => {
    const merchant = await newMerchant();
    const warned = await paidWith(merchant, TEST_CARDS.earlyFraudWarning.number);
    const alerted = await paidWith(merchant, TEST_CARDS.preDisputeAlert.number);
    let warnings: Page<{ id: string; object: string; chargeId: string }> = { data: [], nextCursor: null };
    let alerts: Page<{ id: string; object: string; status: string; amount: string }> = {
      data: [],
      nextCursor: null,
    };
    await eventually(
      async () => {
        warnings = (await call<typeof warnings>(merchant, `/v1/fraud-warnings?chargeId=${warned.id}`)).body;
        alerts = (await call<typeof alerts>(merchant, '/v1/dispute-alerts?status=open')).body;
        return warnings.data.length === 1 && alerts.data.length === 1;
      },
      15_000,
      'a warning and an alert',
    );
    expect(warnings.data[0]).toMatchObject({ object: 'fraud_warning', chargeId: warned.id });
    expect(warnings.data[0]!.id).toMatch(/^efw_/);
    expect(alerts.data[0]).toMatchObject({ object: 'dispute_alert', status: 'open', amount: '10000' });
    const warning = await call(merchant, `/v1/fraud-warnings/${warnings.data[0]!.id}`);
    expect(warning.status, warning.text).toBe(200);
    expect(warning.body).toEqual(warnings.data[0]);
    const alert = await call(merchant, `/v1/dispute-alerts/${alerts.data[0]!.id}`);
    expect(alert.body).toMatchObject({ id: alerts.data[0]!.id, chargeId: alerted.id });
    expect((await call<Page<unknown>>(merchant, '/v1/dispute-alerts?status=resolved')).body.data).toEqual([]);
    expect(
      (await call<Page<unknown>>(merchant, `/v1/fraud-warnings?chargeId=${alerted.id}`)).body.data,
    ).toEqual([]);
    expect((await call(merchant, '/v1/fraud-warnings/efw_none')).status).toBe(404);
    expect((await call(merchant, '/v1/dispute-alerts/dpa_none')).status).toBe(404);
  });
});

describe('authentication, flag and ownership', () => {
  let merchant: Merchant;
  let disputeId: string;
  let warningId: string;
  let alertId: string;
  beforeAll(async () => {
    merchant = await newMerchant();
    const disputed = await paidWith(merchant, TEST_CARDS.disputeTroy.number);
    const warned = await paidWith(merchant, TEST_CARDS.earlyFraudWarning.number);
    const alerted = await paidWith(merchant, TEST_CARDS.preDisputeAlert.number);
    disputeId = (await disputeOf(merchant, disputed.id)).id;
    await eventually(
      async () => {
        const warnings = await call<Page<{ id: string }>>(
          merchant,
          `/v1/fraud-warnings?chargeId=${warned.id}`,
        );
        const alerts = await call<Page<{ id: string }>>(
          merchant,
          `/v1/dispute-alerts?chargeId=${alerted.id}`,
        );
        warningId = warnings.body.data[0]?.id ?? '';
        alertId = alerts.body.data[0]?.id ?? '';
        return warningId !== '' && alertId !== '';
      },
      15_000,
      'a warning and an alert',
    );
  });
  const api = (path: string, init: ApiInit = {}) => call<Record<string, unknown>>(merchant, path, init);
  const reads = () =>
    [
      ['/v1/disputes', 'GET', undefined],
      [`/v1/disputes/${disputeId}`, 'GET', undefined],
      ['/v1/fraud-warnings', 'GET', undefined],
      [`/v1/fraud-warnings/${warningId}`, 'GET', undefined],
      ['/v1/dispute-alerts', 'GET', undefined],
      [`/v1/dispute-alerts/${alertId}`, 'GET', undefined],
    ] as const;
  const writes = () =>
    [
      [`/v1/disputes/${disputeId}/evidence`, 'POST', { productDescription: 'x' }],
      [`/v1/disputes/${disputeId}/accept`, 'POST', {}],
    ] as const;

  it('answers 403 forbidden without the disputes flag', async () => {
    const off = await createMerchant(t, { featureFlags: ['apiKeys'] });
    await expectEachRefused(api, off.keys.sandbox.secret, [...reads(), ...writes()], 403, 'forbidden');
  });

  it('refuses a missing or bad key, a read-only key for writes and a write-only key for reads', async () => {
    for (const [path, method, body] of [...reads(), ...writes()]) {
      const missing = await apiRequest<ErrorBody>(t.urls, path, { method, ...(body ? { body } : {}) });
      expect(missing.status, `${method} ${path}`).toBe(401);
      expect(missing.body.error.code).toBe('missing_api_key');
    }
    await expectKeyRequired(t.urls, api, `/v1/disputes/${disputeId}`);
    const readOnly = await issueKey(t.gateway.database.db, t.clock, merchant.organizationId, {
      scopes: ['read'],
    });
    for (const [path] of reads()) expect((await api(path, { key: readOnly.secret })).status, path).toBe(200);
    await expectEachRefused(api, readOnly.secret, writes(), 403, 'insufficient_scope');
    const writeOnly = await issueKey(t.gateway.database.db, t.clock, merchant.organizationId, {
      scopes: ['write'],
    });
    await expectEachRefused(api, writeOnly.secret, reads(), 403, 'insufficient_scope');
    // Nothing was staged by the refused writes.
    expect((await api(`/v1/disputes/${disputeId}`)).body.evidence).toEqual({});
  });

  it('keeps environments and organizations apart (404)', async () => {
    await expectLiveApart(api, merchant, '/v1/disputes', `/v1/disputes/${disputeId}`);
    const stranger = await newMerchant();
    const key = stranger.keys.sandbox.secret;
    for (const [path, method, body] of [...reads(), ...writes()]) {
      const res = await api(path, { key, method, ...(body ? { body } : {}) });
      if (path.split('/').length > 3) {
        expect(res.status, `${method} ${path}`).toBe(404);
        expect(res.body.error.code).toBe('not_found');
      } else expect((res.body as unknown as Page<unknown>).data, path).toEqual([]);
    }
    expect((await api(`/v1/disputes/${disputeId}`)).body).toMatchObject({
      status: 'needs_response',
      evidence: {},
    });
  });
});

describe('evidence files', () => {
  // The dispute service with the files port (services.ts wires it the same way).
  const withFiles = () => {
    const services = t.gateway.services;
    return createDisputeService({
      db: services.db,
      clock: services.clock,
      logger: services.logger,
      cursors: services.cursors,
      acquirerFor: (environment) => services.acquirers[environment]?.acquirer,
      charges: createChargeDisputes({ db: services.db }),
      ledger: services.ledger,
      events: services.events,
      alerts: services.alerts,
      files: services.files,
    });
  };
  const upload = async (merchant: Merchant) => {
    const owner = { organizationId: merchant.organizationId, environment: 'sandbox' as const };
    const made = await t.gateway.services.files.upload(owner, {
      purpose: 'dispute_evidence',
      filename: 'receipt.png',
      bytes: solidPng(4, 4, [10, 20, 30]),
    });
    if (!made.ok) throw new Error(made.error.code);
    return made.value.id;
  };

  it('takes only the owner’s files (400 naming files[i]) and attaches them when sent', async () => {
    const merchant = await newMerchant();
    const owner = { organizationId: merchant.organizationId, environment: 'sandbox' as const };
    const charge = await paidWith(merchant, TEST_CARDS.disputeFraudulent.number);
    const dispute = await disputeOf(merchant, charge.id);
    const mine = await upload(merchant);
    const theirs = await upload(await newMerchant());
    const service = withFiles();
    const refused = await service.evidence(owner, dispute.id, { files: [mine, theirs] });
    expect(refused).toMatchObject({
      ok: false,
      error: { code: 'invalid_input', issues: [{ path: 'files[1]', code: 'invalid_value' }] },
    });
    const sent = await service.evidence(owner, dispute.id, {
      files: [mine],
      uncategorizedText: 'winning_evidence: receipt attached',
      submit: true,
    });
    expect(sent).toMatchObject({ ok: true, value: { evidence: { files: [mine] } } });
    const file = await t.gateway.services.files.get(owner, mine);
    expect(file).toMatchObject({ ok: true, value: { disputeId: dispute.id } });
    // A file of this dispute cannot serve another one of the same merchant.
    const other = await disputeOf(
      merchant,
      (await paidWith(merchant, TEST_CARDS.disputeFraudulent.number)).id,
    );
    expect(await service.evidence(owner, other.id, { files: [mine] })).toMatchObject({
      ok: false,
      error: { issues: [{ path: 'files[0]' }] },
    });

    // Two disputes of the merchant (made at one instant of the test's clock): a page at a time; a cursor
    // is bound to its filters and its merchant.
    const first = await call<Page<DisputeBody>>(merchant, '/v1/disputes?limit=1');
    expect(first.body.data).toHaveLength(1);
    const cursor = encodeURIComponent(first.body.nextCursor!);
    const second = await call<Page<DisputeBody>>(merchant, `/v1/disputes?limit=1&cursor=${cursor}`);
    expect(second.body.nextCursor).toBeNull();
    expect([...first.body.data, ...second.body.data].map((row) => row.id).sort()).toEqual(
      [dispute.id, other.id].sort(),
    );
    const rebound = await call(merchant, `/v1/disputes?limit=1&status=lost&cursor=${cursor}`);
    expect(rebound.status).toBe(400);
    const stranger = await newMerchant();
    expect((await call(stranger, `/v1/disputes?limit=1&cursor=${cursor}`)).status).toBe(400);
  });
});

// Last: it moves the clock the acquirer shares past a deadline, which closes every open case.
describe('after the deadline', () => {
  it('refuses evidence (409 evidence_past_due) whether or not the acquirer closed the dispute yet', async () => {
    const merchant = await newMerchant();
    const charge = await paidWith(merchant, TEST_CARDS.disputeFraudulent.number);
    const dispute = await disputeOf(merchant, charge.id);
    expect((await evidence(merchant, dispute.id, { deliveryProof: 'tracking 123' })).status).toBe(200);
    t.clock.set(new Date(new Date(dispute.evidenceDueBy!).getTime() + 1_000));
    const late = await evidence(merchant, dispute.id, { submit: true });
    expect(late.status, late.text).toBe(409);
    expect(late.body.error.code).toBe('evidence_past_due');
    // A file is refused as late as any text, and is not staged.
    const made = await t.gateway.services.files.upload(
      { organizationId: merchant.organizationId, environment: 'sandbox' },
      { purpose: 'dispute_evidence', filename: 'late.png', bytes: solidPng(4, 4, [10, 20, 30]) },
    );
    if (!made.ok) throw new Error(made.error.code);
    const lateFile = await evidence(merchant, dispute.id, { files: [made.value.id] });
    expect(lateFile.status, lateFile.text).toBe(409);
    expect(lateFile.body.error.code).toBe('evidence_past_due');
    const lost = await settled(merchant, dispute.id, 'lost');
    expect(lost).toMatchObject({ closedBy: 'deadline', evidenceSubmittedAt: null, submissions: [] });
    expect(lost.evidence).not.toHaveProperty('files');
    const still = await evidence(merchant, dispute.id, { submit: true });
    expect(still.body.error.code).toBe('evidence_past_due');
    expect((await acquirer().getDispute(await providerIdOf(dispute.id))).evidence).toEqual([]);
  });
});
