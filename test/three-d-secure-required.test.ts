/**
 * Issue 37 item 6: 3-D Secure required on every card payment of a merchant, an operator's audited
 * answer to its chargeback ratio. Through the running gateway: the operator API and console on the
 * operator listener, the hosted checkout on the web listener, and the sandbox acquirer over its socket.
 */
import { describe, expect, it } from 'vitest';
import { TEST_CARDS } from '../sandbox-acquirer/cards.js';
import type { AuditEntryView } from '../src/modules/audit/service.js';
import { acquirerControl } from './helpers/acquirer.js';
import { postCharge, readCharge, type CheckoutCharge } from './helpers/charges.js';
import { createMerchant, type Merchant } from './helpers/merchants.js';
import {
  createStaffUser,
  loginStaff,
  operatorCallers,
  type OperatorCallers,
  type OrganizationView,
  type StaffSession,
} from './helpers/operator.js';
import { t, useTestGateway, web } from './helpers/suite.js';

interface Answer {
  status: number;
  headers: Headers;
  text: string;
}

type ThreeDSecureView = OrganizationView & { threeDSecureRequired: boolean };

let merchant: Merchant;
let callers: OperatorCallers;
let underwriter: StaffSession;

useTestGateway({}, async () => {
  merchant = await createMerchant(t);
  callers = await operatorCallers(t);
  underwriter = await loginStaff(t, await createStaffUser(t, 'underwriter'));
});

const settingPath = () => `/operator/v1/organizations/${merchant.organizationId}/three-d-secure`;

async function fetchManual(url: string, init: RequestInit = {}): Promise<Answer> {
  const response = await fetch(url, { redirect: 'manual', ...init });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

const formPost = (url: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
  fetchManual(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(fields).toString(),
  });

const checkoutPage = (paymentId: string) => fetchManual(`${web}/c/${paymentId}?lang=en`);

/** The customer types `number` into the checkout's card form; the gateway answers with its page (303). */
async function typeCard(paymentId: string, number: string): Promise<void> {
  const posted = await formPost(`${web}/c/${paymentId}/card?lang=en`, {
    holderName: 'Ayşe Yılmaz',
    cardNumber: number,
    expiry: '12/30',
    cvc: '123',
  });
  expect(posted.status, posted.text).toBe(303);
  expect(posted.headers.get('location')).toBe(`/c/${paymentId}?lang=en`);
}

/** A new charge of `owner` (the merchant unless told), paid with `number` at the checkout. */
async function payAtCheckout(number: string, owner: Merchant = merchant): Promise<CheckoutCharge> {
  const charge = await postCharge<CheckoutCharge>(t, owner);
  await typeCard(charge.providerPaymentId, number);
  return charge;
}

/** The bank's page the checkout hands over to, or null when the page shows none. */
async function challengeUrlOf(paymentId: string): Promise<string | null> {
  const handover = await checkoutPage(paymentId);
  expect(handover.status, handover.text).toBe(200);
  return /id="continue-challenge" href="([^"]+)"/.exec(handover.text)?.[1] ?? null;
}

/** Answers the bank's page with `code` and follows the browser back to the checkout. */
async function answerChallenge(url: string, paymentId: string, code: string): Promise<void> {
  const answered = await formPost(url, { code });
  expect(answered.status, answered.text).toBe(303);
  const back = answered.headers.get('location') ?? '';
  expect(back).toBe(`${web}/c/${paymentId}/return?lang=en&payment=${paymentId}`);
  const returned = await fetchManual(back);
  expect(returned.status, returned.text).toBe(303);
}

type ChargeBody = CheckoutCharge & { failure: { code: string; message: string } | null };

async function chargeOf(id: string): Promise<ChargeBody> {
  const res = await readCharge<ChargeBody>(t, merchant, id);
  expect(res.status, res.text).toBe(200);
  return res.body;
}

async function storedSetting(): Promise<boolean> {
  const row = await t.gateway.database.db
    .selectFrom('organizations')
    .select('require_three_d_secure')
    .where('id', '=', merchant.organizationId)
    .executeTakeFirstOrThrow();
  return row.require_three_d_secure;
}

async function auditEntries(): Promise<AuditEntryView[]> {
  const res = await callers.support.get<{ data: AuditEntryView[] }>(
    `/operator/v1/audit-log?limit=100&targetId=${merchant.organizationId}`,
  );
  expect(res.status, res.text).toBe(200);
  return res.body.data.filter((entry) => entry.action.startsWith('organization.three_d_secure'));
}

async function authorizeCallsOf(paymentId: string): Promise<number> {
  return (await acquirerControl(t.sandboxAcquirer).calls('authorize', paymentId)).length;
}

describe('3-D Secure required on every card payment of an organization', () => {
  it('off (the default): the Visa card is paid without a challenge', async () => {
    expect(await storedSetting()).toBe(false);
    const charge = await payAtCheckout(TEST_CARDS.visa.number);
    expect(await chargeOf(charge.id)).toMatchObject({ status: 'succeeded', providerStatus: 'succeeded' });
    expect(await authorizeCallsOf(charge.providerPaymentId)).toBe(1);
  });

  it('is refused without operator credentials (401), without the CSRF token, and to support and underwriters (403)', async () => {
    const body = { required: true, reason: 'Visa ratio at 1.2%' };
    expect((await callers.anonymous.put(settingPath(), body)).status).toBe(401);
    expect((await callers.admin.send('PUT', settingPath(), { body, csrf: false })).status).toBe(403);
    for (const staff of [callers.support, underwriter]) {
      const refused = await staff.put(settingPath(), body);
      expect(refused.status, refused.text).toBe(403);
      expect(refused.body.error.code).toBe('forbidden');
    }
    // The console's form follows the same roles.
    const consoleForm = await formPost(
      `${t.urls.operator}/organizations/${merchant.organizationId}/three-d-secure`,
      { required: 'true', reason: 'Visa ratio at 1.2%', _csrf: callers.support.csrfToken },
      { cookie: callers.support.cookie },
    );
    expect(consoleForm.status).toBe(403);
    expect(await storedSetting()).toBe(false);
    expect(await auditEntries()).toEqual([]);
  });

  it('refuses a body without a reason, with a blank one, an unknown member, and an unknown organization', async () => {
    for (const body of [
      { required: true },
      { required: true, reason: '   ' },
      { required: 'yes', reason: 'Ratio' },
      { required: true, reason: 'Ratio', threeDSecure: 'required' },
      {},
    ]) {
      const refused = await callers.admin.put(settingPath(), body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
    }
    const unknown = await callers.admin.put('/operator/v1/organizations/org_unknown/three-d-secure', {
      required: true,
      reason: 'Ratio',
    });
    expect(unknown.status).toBe(404);
    expect(await storedSetting()).toBe(false);
  });

  it('an admin turns it on: audited with the reason, shown on the merchant view', async () => {
    const on = await callers.admin.put<ThreeDSecureView>(settingPath(), {
      required: true,
      reason: '  Visa ratio at 1.2%, early warning  ',
    });
    expect(on.status, on.text).toBe(200);
    expect(on.body).toMatchObject({ id: merchant.organizationId, threeDSecureRequired: true });
    expect(await storedSetting()).toBe(true);
    expect(await auditEntries()).toEqual([
      expect.objectContaining({
        actor: `staff:${callers.admin.account.id}`,
        action: 'organization.three_d_secure_required',
        targetType: 'organization',
        targetId: merchant.organizationId,
        organizationId: merchant.organizationId,
        before: { threeDSecureRequired: false },
        after: { threeDSecureRequired: true, reason: 'Visa ratio at 1.2%, early warning' },
      }),
    ]);

    const viewed = await fetchManual(`${t.urls.operator}/organizations/${merchant.organizationId}`, {
      headers: { cookie: callers.support.cookie },
    });
    expect(viewed.status).toBe(200);
    expect(viewed.text).toContain('<dd id="three-d-secure">required on every card payment</dd>');
    // Support reads it; the form is an admin's.
    expect(viewed.text).not.toContain('id="three-d-secure-reason"');
  });

  it('then the Visa card gets the 3-D Secure challenge; 123456 completes it and the charge succeeds', async () => {
    const charge = await payAtCheckout(TEST_CARDS.visa.number);
    expect(await chargeOf(charge.id)).toMatchObject({ status: 'pending', providerStatus: 'requires_action' });
    const url = await challengeUrlOf(charge.providerPaymentId);
    expect(url).toMatch(new RegExp(`^${t.sandboxAcquirer.url}/3ds/3ds_`));

    await answerChallenge(url ?? '', charge.providerPaymentId, '123456');
    const paid = await checkoutPage(charge.providerPaymentId);
    expect(paid.text).toContain('Visa •••• 4242');
    expect(await chargeOf(charge.id)).toMatchObject({ status: 'succeeded', providerStatus: 'succeeded' });
  });

  it('a wrong code is declined as the challenge card’s is, and the next card is challenged too', async () => {
    const charge = await payAtCheckout(TEST_CARDS.mastercard.number);
    await answerChallenge(
      (await challengeUrlOf(charge.providerPaymentId)) ?? '',
      charge.providerPaymentId,
      '000000',
    );
    const again = await checkoutPage(charge.providerPaymentId);
    expect(again.text).toContain(
      'Your card was declined: The bank could not confirm the payment (3-D Secure).',
    );
    expect(again.text).toContain('id="card-form"');
    expect(await chargeOf(charge.id)).toMatchObject({
      status: 'pending',
      failure: { code: 'authentication_failed' },
    });

    await typeCard(charge.providerPaymentId, TEST_CARDS.visa.number);
    const url = await challengeUrlOf(charge.providerPaymentId);
    expect(url).not.toBeNull();
    await answerChallenge(url ?? '', charge.providerPaymentId, '123456');
    expect(await chargeOf(charge.id)).toMatchObject({ status: 'succeeded' });
  });

  it('off again through the console form (CSRF-checked): the Visa card is paid without a challenge', async () => {
    const formPath = `${t.urls.operator}/organizations/${merchant.organizationId}/three-d-secure`;
    const { admin } = callers;
    const withoutToken = await formPost(
      formPath,
      { required: 'false', reason: 'Ratio back under 0.5%' },
      { cookie: admin.cookie },
    );
    expect(withoutToken.status).toBe(403);
    expect(await storedSetting()).toBe(true);

    const off = await formPost(
      formPath,
      { required: 'false', reason: 'Ratio back under 0.5%', _csrf: admin.csrfToken },
      { cookie: admin.cookie },
    );
    expect(off.status, off.text).toBe(303);
    expect(off.headers.get('location')).toBe(
      `/organizations/${merchant.organizationId}?notice=three_d_secure`,
    );
    expect(await storedSetting()).toBe(false);
    const viewed = await fetchManual(`${t.urls.operator}/organizations/${merchant.organizationId}`, {
      headers: { cookie: admin.cookie },
    });
    expect(viewed.text).toContain('<dd id="three-d-secure">as the card and its issuer decide</dd>');
    expect(viewed.text).toContain('Require 3-D Secure on every card payment');

    const [latest] = await auditEntries();
    expect(latest).toMatchObject({
      actor: `staff:${admin.account.id}`,
      action: 'organization.three_d_secure_not_required',
      before: { threeDSecureRequired: true },
      after: { threeDSecureRequired: false, reason: 'Ratio back under 0.5%' },
    });

    const charge = await payAtCheckout(TEST_CARDS.visa.number);
    expect(await chargeOf(charge.id)).toMatchObject({ status: 'succeeded', providerStatus: 'succeeded' });
    expect(await challengeUrlOf(charge.providerPaymentId)).toBeNull();
  });

  it('leaves other organizations alone', async () => {
    const on = await callers.admin.put<ThreeDSecureView>(settingPath(), { required: true, reason: 'Ratio' });
    expect(on.body.threeDSecureRequired).toBe(true);
    const other = await createMerchant(t);
    const charge = await payAtCheckout(TEST_CARDS.visa.number, other);
    const read = await readCharge<CheckoutCharge>(t, other, charge.id);
    expect(read.body).toMatchObject({ status: 'succeeded', providerStatus: 'succeeded' });
    await callers.admin.put(settingPath(), { required: false, reason: 'Ratio' });
  });
});
