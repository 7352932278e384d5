import { expect } from 'vitest';
import { createActiveUser, linkIn, mailsTo } from './accounts.js';
import { chainControl } from './chain.js';
import { apiRequest } from './client.js';
import type { TestGateway } from './gateway.js';
import { createMerchant, type Merchant } from './merchants.js';
import { payByCard, postCharge } from './charges.js';

export const TRON_ADDRESS = 'TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL';
export const ETH_ADDRESS = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const CONFIRM_PATH = '/dashboard/wallet-changes/confirm';

/** A request with the merchant's key of `environment` (the test gateway's API listener of that environment). */
export function merchantApi<T>(
  t: TestGateway,
  merchant: Merchant,
  environment: 'sandbox' | 'live',
  path: string,
  body?: unknown,
) {
  return apiRequest<T & { error: { code: string; details?: Record<string, unknown> } }>(t.urls, path, {
    key: merchant.keys[environment].secret,
    environment,
    ...(body === undefined ? {} : { body }),
  });
}

/** A charge of `amount` paid by card at the environment's acquirer and completed (a ledger credit to pending). */
export async function paidCharge(
  t: TestGateway,
  merchant: Merchant,
  environment: 'sandbox' | 'live',
  amount: number,
): Promise<{ id: string; providerPaymentId: string }> {
  const res = await postCharge<{ id: string; providerPaymentId: string }>(
    t,
    merchant,
    { amount },
    environment,
  );
  await payByCard(t.gateway.services, res, 'Payout Test', { environment });
  return res;
}

/**
 * A sandbox merchant with the `payouts` and `wallets` flags; with `wallet`, a default TRON wallet added
 * through the API (its batches then pay out), else none (they carry).
 */
export async function sandboxMerchant(t: TestGateway, options: { wallet: boolean }): Promise<Merchant> {
  const merchant = await createMerchant(t, { featureFlags: ['payouts', 'wallets'] });
  if (options.wallet) {
    const wallet = await merchantApi(t, merchant, 'sandbox', '/v1/wallets', {
      network: 'tron',
      address: TRON_ADDRESS,
    });
    expect(wallet.status, wallet.text).toBe(201);
  }
  return merchant;
}

/**
 * A live merchant (flags `payouts`, `wallets`) with an active default wallet, added through the API and
 * confirmed by its owner with the e-mailed link (the organization's cool-down set to zero by an
 * operator), and available funds: a paid live charge of 50 000 TRY, released.
 */
export async function liveFundedMerchant(
  t: TestGateway,
  network: 'tron' | 'ethereum' = 'tron',
): Promise<Merchant> {
  const merchant = await createMerchant(t, { featureFlags: ['payouts', 'wallets'] });
  const owner = await createActiveUser(t, { organizationId: merchant.organizationId, role: 'owner' });
  const wallets = t.gateway.services.wallets;
  expect((await wallets.setCooldown(merchant.organizationId, 0, { actor: 'staff:test' })).ok).toBe(true);
  const wallet = await merchantApi<{ id: string }>(t, merchant, 'live', '/v1/wallets', {
    network,
    address: network === 'tron' ? TRON_ADDRESS : ETH_ADDRESS,
  });
  expect(wallet.status, wallet.text).toBe(201);
  const mail = (await mailsTo(t, owner.email)).find((m) => m.template === 'wallet_change_requested');
  const { token } = linkIn(mail?.text ?? '', CONFIRM_PATH);
  const confirmed = await wallets.confirm(
    token,
    { id: owner.userId, organizationId: merchant.organizationId, role: 'owner', totp: 'off' },
    undefined,
    { actor: `user:${owner.userId}` },
  );
  expect(confirmed.ok).toBe(true);
  const view = await merchantApi(t, merchant, 'live', `/v1/wallets/${wallet.body.id}`);
  expect(view.body).toMatchObject({ status: 'active', isDefault: true });
  await paidCharge(t, merchant, 'live', 5_000_000);
  const released = await t.gateway.services.settlement.releaseNow({
    organizationId: merchant.organizationId,
    environment: 'live',
  });
  expect(released).toMatchObject({ released: true });
  return merchant;
}

/** A live (treasury) payout, after making the stand-in live ticker's rate fresh at the test clock's time. */
export async function livePayout<T extends { id: string; payoutAmount: string }>(
  t: TestGateway,
  merchant: Merchant,
  amount: number,
): Promise<T> {
  await chainControl(t.liveChain).setRate('0.0290', t.clock.now().toISOString());
  const res = await merchantApi<T>(t, merchant, 'live', '/v1/payouts', { amount });
  expect(res.status, res.text).toBe(201);
  expect(res.body).toMatchObject({ status: 'pending', rail: 'treasury', livemode: true });
  return res.body;
}
