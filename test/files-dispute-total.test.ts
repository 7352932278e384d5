/**
 * Issue 37 item 4: a dispute's evidence carries at most 20 MiB of files (MAX_DISPUTE_FILES_BYTES, all its
 * stages together; docs/files.md). Four files at the 5 MiB per-file limit make exactly 20 MiB, which is
 * taken; one byte of file more on the same dispute is refused with 400 `validation_failed` and the issue
 * `too_large` at `files`, while another dispute of the merchant stages its files as before. Through the
 * real HTTP API and disputes the sandbox acquirer raises; each size is built once and uploaded once.
 */
import { describe, expect, it } from 'vitest';
import { MAX_DISPUTE_FILES_BYTES, MAX_FILE_BYTES } from '../src/modules/files/index.js';
import { cardPaidCharge } from './helpers/charges.js';
import { apiRequest, type ApiInit } from './helpers/client.js';
import { request, type ErrorBody } from './helpers/http.js';
import { createMerchant, type Merchant } from './helpers/merchants.js';
import { eventually } from './helpers/process.js';
import { t, useTestGateway } from './helpers/suite.js';

interface DisputeBody {
  id: string;
  status: string;
  stage: string;
  evidence: { files?: string[] };
}
interface FileBody {
  id: string;
  size: number;
  disputeId: string | null;
}

let merchant: Merchant;

useTestGateway({ env: { SANDBOX_ACQUIRER_DISPUTE_DECISION_MS: '100' } }, async () => {
  merchant = await createMerchant(t, { featureFlags: ['apiKeys', 'disputes'] });
});

const api = <T>(path: string, init: ApiInit = {}) =>
  apiRequest<T & ErrorBody>(t.urls, path, { key: merchant.keys.sandbox.secret, ...init });

const PDF = Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n');
/** A PDF of exactly `size` bytes: the signature, then spaces. */
const pdfOf = (size: number) => Buffer.concat([PDF, Buffer.alloc(size - PDF.length, 0x20)]);

/** `POST /v1/files` with `bytes` as the multipart form's file part. */
async function upload(bytes: Buffer, filename: string): Promise<FileBody> {
  const boundary = `----dispute-total-${Math.random().toString(36).slice(2)}`;
  const body = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="purpose"\r\n\r\ndispute_evidence\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\n` +
        'Content-Type: application/pdf\r\n\r\n',
    ),
    bytes,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  const res = await api<FileBody>('/v1/files', {
    method: 'POST',
    rawBody: body,
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
  });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

const control = (path: string, body: unknown) =>
  request<{ id: string }>(`${t.sandboxAcquirer.url}${path}`, {
    body,
    headers: { authorization: `Bearer ${t.sandboxAcquirer.apiKey}` },
  });

/** A chargeback the sandbox acquirer raises on a paid charge, once the gateway has applied it. */
async function raisedDispute(): Promise<{ id: string; providerId: string }> {
  const charge = await cardPaidCharge<{ id: string; providerPaymentId: string }>(
    t,
    merchant,
    10_000,
    'Total',
  );
  const raised = await control('/_control/disputes', {
    paymentId: charge.providerPaymentId,
    kind: 'dispute',
    reason: 'fraudulent',
  });
  expect(raised.status, raised.text).toBe(201);
  return { id: (await disputeOf(charge.id, () => true)).id, providerId: raised.body.id };
}

async function disputeOf(chargeId: string, ready: (dispute: DisputeBody) => boolean): Promise<DisputeBody> {
  let found: DisputeBody | undefined;
  await eventually(
    async () => {
      found = (await api<{ data: DisputeBody[] }>(`/v1/disputes?chargeId=${chargeId}`)).body.data[0];
      return found !== undefined && ready(found);
    },
    15_000,
    `the dispute of ${chargeId}`,
  );
  return found!;
}

const stage = (disputeId: string, body: unknown) =>
  api<DisputeBody>(`/v1/disputes/${disputeId}/evidence`, { body });

function expectTooLarge(res: { status: number; text: string; body: ErrorBody }, total: number) {
  expect(res.status, res.text).toBe(400);
  expect(res.body.error).toMatchObject({
    code: 'validation_failed',
    details: {
      issues: [
        {
          path: 'files',
          in: 'body',
          code: 'too_large',
          message: `the dispute's files come to ${total} bytes; at most ${MAX_DISPUTE_FILES_BYTES} (20 MiB)`,
        },
      ],
    },
  });
}

describe('the 20 MiB of files a dispute carries', () => {
  it('takes exactly 20 MiB, refuses a byte of file more on that dispute only, across its stages', async () => {
    expect(MAX_DISPUTE_FILES_BYTES).toBe(4 * MAX_FILE_BYTES);
    const [first, second] = [await raisedDispute(), await raisedDispute()];
    const atLimit = pdfOf(MAX_FILE_BYTES);
    const big: FileBody[] = [];
    for (const n of [1, 2, 3, 4]) big.push(await upload(atLimit, `access-log-${n}.pdf`));
    expect(big.map((file) => file.size)).toEqual(Array(4).fill(MAX_FILE_BYTES));
    const small = await upload(PDF, 'receipt.pdf');
    const bigIds = big.map((file) => file.id);

    // Over the total: refused as a whole, nothing staged.
    const over = await stage(first.id, { files: [...bigIds, small.id] });
    expectTooLarge(over, MAX_DISPUTE_FILES_BYTES + PDF.length);
    expect((await api<DisputeBody>(`/v1/disputes/${first.id}`)).body.evidence).toEqual({});

    // Another dispute of the merchant is not concerned by the first one's files.
    const other = await stage(second.id, { files: [small.id] });
    expect(other.status, other.text).toBe(200);
    expect(other.body.evidence.files).toEqual([small.id]);

    // Exactly 20 MiB: taken, then sent with the evidence; the files now belong to the dispute.
    const exact = await stage(first.id, { files: bigIds });
    expect(exact.status, exact.text).toBe(200);
    expect(exact.body.evidence.files).toEqual(bigIds);
    const sent = await stage(first.id, { uncategorizedText: 'losing_evidence: logs attached', submit: true });
    expect(sent.status, sent.text).toBe(200);
    for (const id of bigIds) expect((await api<FileBody>(`/v1/files/${id}`)).body.disputeId).toBe(first.id);

    // Pre-arbitration: the chargeback stage's 20 MiB still count, so no file more fits.
    await disputeOf(
      (await api<{ chargeId: string }>(`/v1/disputes/${first.id}`)).body.chargeId,
      (dispute) => dispute.status === 'lost',
    );
    const escalated = await control(`/_control/disputes/${first.providerId}/pre-arbitration`, {});
    expect(escalated.status, escalated.text).toBe(200);
    await eventually(
      async () => (await api<DisputeBody>(`/v1/disputes/${first.id}`)).body.stage === 'pre_arbitration',
      15_000,
      'pre-arbitration',
    );
    const later = await upload(PDF, 'statement.pdf');
    expectTooLarge(await stage(first.id, { files: [later.id] }), MAX_DISPUTE_FILES_BYTES + PDF.length);
    expect((await stage(second.id, { files: [small.id, later.id] })).status).toBe(200);
  });
});
