/**
 * The acquirer's settlement report as reconciliation reads it, through the real stack: the live acquirer
 * is reached through a proxy that passes every call to the stand-in live acquirer and lets a test change
 * the report it answers. A line the report repeats is settled twice by the acquirer and is a difference;
 * a report in another currency, or with a line that is not an amount, cannot be compared and is refused
 * as unreadable (502), recording nothing.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createManualClock } from '../src/shared/clock.js';
import { ACCOUNT_TEST_ENV } from './helpers/accounts.js';
import { startTestGateway, type TestGateway } from './helpers/gateway.js';
import { createMerchant, type Merchant } from './helpers/merchants.js';
import { createStaffUser, loginStaff, type StaffSession } from './helpers/operator.js';
import { merchantApi, paidCharge } from './helpers/payouts.js';

interface Report {
  date: string;
  currency: string;
  payments: Array<Record<string, unknown>>;
  refunds: Array<Record<string, unknown>>;
}

let t: TestGateway;
let admin: StaffSession;
let merchant: Merchant;
let proxy: Server;
let target = '';
let rewrite: ((report: Report) => unknown) | undefined;

/** Passes each call to the stand-in live acquirer; the settlement report through `rewrite` when set. */
async function forward(request: IncomingMessage, response: ServerResponse) {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const headers = Object.fromEntries(
    Object.entries(request.headers).filter(
      (entry): entry is [string, string] => typeof entry[1] === 'string' && entry[0] !== 'host',
    ),
  );
  const answer = await fetch(`${target}${request.url ?? '/'}`, {
    method: request.method ?? 'GET',
    headers,
    ...(chunks.length > 0 ? { body: Buffer.concat(chunks) } : {}),
  });
  let text = await answer.text();
  if (rewrite && answer.status === 200 && request.url?.startsWith('/v1/settlement-reports/')) {
    text = JSON.stringify(rewrite(JSON.parse(text) as Report));
  }
  response.writeHead(answer.status, { 'content-type': 'application/json' });
  response.end(text);
}

beforeAll(async () => {
  proxy = createServer((request, response) => {
    forward(request, response).catch(() => {
      response.writeHead(502);
      response.end();
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  t = await startTestGateway({
    env: { ...ACCOUNT_TEST_ENV, ROLES: 'api,operator,sandbox-acquirer,sandbox-chain' },
    clock: createManualClock(new Date('2027-04-01T10:00:00.000Z')),
    configure: (config) => {
      if (config.acquirers.live) config.acquirers.live.url = proxyUrl;
      return config;
    },
  });
  target = t.liveAcquirer.url;
  merchant = await createMerchant(t);
  admin = await loginStaff(t, await createStaffUser(t, 'admin'));
});
afterAll(async () => {
  await t?.close();
  await new Promise((resolve) => proxy?.close(resolve));
});

interface Run {
  id: string;
  status: string;
  acquirer: { payments: number; refunds: number; net: string };
  ledger: { payments: number; refunds: number; net: string };
  differences: Array<Record<string, unknown>>;
}

const reconcile = (reportDate: string) =>
  admin.post<Run>('/operator/v1/reconciliations', { environment: 'live', reportDate });

const runsOf = async (reportDate: string) =>
  t.gateway.database.db
    .selectFrom('reconciliation_runs')
    .select('id')
    .where('report_date', '=', reportDate)
    .execute();

describe('a settlement report that repeats a line', () => {
  it('is a difference of the payment or refund settled twice, never matched', async () => {
    const charge = await paidCharge(t, merchant, 'live', 120_000);
    const other = await paidCharge(t, merchant, 'live', 30_000);
    const refund = await merchantApi<{ id: string }>(t, merchant, 'live', `/v1/charges/${other.id}/refunds`, {
      amount: 5_000,
    });
    expect(refund.status, refund.text).toBe(201);
    t.clock.set(new Date('2027-04-02T05:00:00.000Z'));
    admin = await loginStaff(t, admin.account);

    const plain = await reconcile('2027-04-01');
    expect(plain.status, plain.text).toBe(201);
    expect(plain.body.status).toBe('matched');

    rewrite = (report) => ({
      ...report,
      payments: [...report.payments, ...report.payments.filter((line) => line.amount === '120000')],
      refunds: [...report.refunds, ...report.refunds],
    });
    try {
      const run = await reconcile('2027-04-01');
      expect(run.status, run.text).toBe(201);
      expect(run.body).toMatchObject({
        status: 'differences',
        acquirer: { payments: 3, refunds: 2, net: '260000' },
        ledger: { payments: 2, refunds: 1, net: '145000' },
      });
      expect(run.body.differences).toEqual([
        expect.objectContaining({
          kind: 'missing_in_ledger',
          item: 'payment',
          gatewayId: charge.id,
          organizationId: merchant.organizationId,
          acquirerAmount: '120000',
          ledgerAmount: null,
        }),
        expect.objectContaining({
          kind: 'missing_in_ledger',
          item: 'refund',
          gatewayId: refund.body.id,
          acquirerAmount: '5000',
          ledgerAmount: null,
        }),
      ]);
    } finally {
      rewrite = undefined;
    }
  });
});

describe('a settlement report that cannot be compared', () => {
  it.each([
    ['in another currency', (report: Report) => ({ ...report, currency: 'USD' })],
    [
      'with an amount that is not whole minor units',
      (report: Report) => ({ ...report, payments: [{ ...report.payments[0], amount: '1200.00' }] }),
    ],
    ['without its payments', (report: Report) => ({ ...report, payments: undefined })],
    [
      'with a line without an id',
      (report: Report) => ({ ...report, payments: [{ ...report.payments[0], id: 7 }] }),
    ],
    [
      'with a line whose time is not a time',
      (report: Report) => ({ ...report, payments: [{ ...report.payments[0], succeededAt: 'soon' }] }),
    ],
  ])('%s is refused as unreadable (502 provider_unavailable), recording nothing', async (_name, change) => {
    const before = (await runsOf('2027-04-01')).length;
    rewrite = change;
    try {
      const refused = await reconcile('2027-04-01');
      expect([refused.status, refused.body.error?.code], refused.text).toEqual([502, 'provider_unavailable']);
    } finally {
      rewrite = undefined;
    }
    expect((await runsOf('2027-04-01')).length).toBe(before);
  });
});
