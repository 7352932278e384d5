/**
 * Issue 11 item 16: a refund the pending balance cannot cover is not refused; the balance goes below
 * zero as a visible debt (GET /v1/balance `debt`, the operator's negative balances) that the next
 * credits recover, and the operator is alerted (docs/decisions/0014-refund-debt.md).
 */
import { describe, expect, it } from 'vitest';
import { t, useTestGateway } from './helpers/suite.js';
import { cardPaidCharge, succeededRefund, tryBalanceOf } from './helpers/charges.js';
import { request } from './helpers/http.js';
import { createMerchant, type Merchant } from './helpers/merchants.js';
import { createStaffUser, loginStaff, type StaffSession } from './helpers/operator.js';
import type { AlertBody, BalanceRow } from './helpers/bodies.js';

interface ChargeBody {
  id: string;
  providerPaymentId: string;
}
let admin: StaffSession;

useTestGateway({}, async () => {
  admin = await loginStaff(t, await createStaffUser(t, 'admin'));
});

/** 100.00 TRY paid by card: the default Turkish card fee is 3.50 % + 1.00 TRY = 450, net 9550. */
const paidCharge = (merchant: Merchant) => cardPaidCharge<ChargeBody>(t, merchant, 10_000, 'Debt Test');

const refund = (merchant: Merchant, chargeId: string, amount?: number) =>
  succeededRefund(t, merchant, chargeId, amount);
const balanceOf = (merchant: Merchant) => tryBalanceOf<BalanceRow>(t, merchant);

async function alertsOf(merchant: Merchant): Promise<AlertBody[]> {
  const res = await admin.get<{ data: AlertBody[] }>('/operator/v1/alerts?limit=100');
  expect(res.status, res.text).toBe(200);
  return res.body.data.filter(
    (alert) => alert.kind === 'negative_pending_balance' && alert.organizationId === merchant.organizationId,
  );
}

async function negativeBalances() {
  const res = await admin.get<{ data: Array<Record<string, string>> }>('/operator/v1/balances/negative');
  expect(res.status, res.text).toBe(200);
  return res.body.data;
}

describe('a refund beyond the pending balance', () => {
  it('is made, and leaves a visible debt in the balance, for the operator, with an alert', async () => {
    const merchant = await createMerchant(t);
    const charge = await paidCharge(merchant);
    expect(await balanceOf(merchant)).toMatchObject({ pending: '9550', debt: '0' });

    // The fee is not returned: refunding all 10000 takes 450 more than the charge credited.
    const full = await refund(merchant, charge.id);
    // The debt is counted once: `pending` is what waits for a batch (nothing), `debt` what is owed.
    expect(await balanceOf(merchant)).toEqual({
      currency: 'TRY',
      pending: '0',
      available: '0',
      inTransit: '0',
      reserve: '0',
      debt: '450',
    });
    expect(await negativeBalances()).toContainEqual({
      organizationId: merchant.organizationId,
      environment: 'sandbox',
      currency: 'TRY',
      pending: '-450',
      debt: '450',
    });
    const [alert, ...more] = await alertsOf(merchant);
    expect(more).toHaveLength(0);
    expect(alert).toMatchObject({
      environment: 'sandbox',
      subjectId: full.id,
      chargeId: charge.id,
      details: { refundId: full.id, amount: '10000', pendingAfter: '-450', debt: '450' },
    });
    const audit = await admin.get<{ data: Array<{ action: string }> }>(
      `/operator/v1/audit-log?limit=100&organizationId=${merchant.organizationId}`,
    );
    expect(audit.body.data.map((entry) => entry.action)).toContain('alert.negative_pending_balance');
    const page = await request(`${t.urls.operator}/alerts`, { headers: { cookie: admin.cookie } });
    expect(page.status).toBe(200);
    expect(page.text).toContain(merchant.organizationId);
    expect(page.text).toContain('-450');

    // The next credit recovers the debt first.
    await paidCharge(merchant);
    expect(await balanceOf(merchant)).toMatchObject({ pending: '9100', debt: '0' });
    expect((await negativeBalances()).map((row) => row.organizationId)).not.toContain(
      merchant.organizationId,
    );
  });

  it('raises nothing while the pending balance covers it', async () => {
    const merchant = await createMerchant(t);
    const first = await paidCharge(merchant);
    await paidCharge(merchant);
    await refund(merchant, first.id, 4000);
    await refund(merchant, first.id);
    // 19100 credited, 10000 refunded.
    expect(await balanceOf(merchant)).toMatchObject({ pending: '9100', debt: '0' });
    expect(await alertsOf(merchant)).toHaveLength(0);
  });

  it('sees, under concurrency, the balance every other refund of the merchant left', async () => {
    const merchant = await createMerchant(t);
    const charges = [await paidCharge(merchant), await paidCharge(merchant), await paidCharge(merchant)];
    // 28650 credited; three full refunds of 10000 at once end at -1350, and only the last one crosses zero.
    await Promise.all(charges.map((charge) => refund(merchant, charge.id)));
    expect(await balanceOf(merchant)).toMatchObject({ pending: '0', debt: '1350' });
    const alerts = await alertsOf(merchant);
    expect(alerts).toHaveLength(1);
    expect(alerts[0]?.details).toMatchObject({ pendingAfter: '-1350', debt: '1350' });
  });
});
