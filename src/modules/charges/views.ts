import type { ChargeServiceDeps } from './deps.js';
import type { ChargeRow } from './model.js';
import type { ChargeView } from './schemas.js';

/** A created charge as the API shows it, its payment page under `{checkout_url}`. */
export function toView(deps: Pick<ChargeServiceDeps, 'urls'>, row: ChargeRow): ChargeView {
  return chargeView(row, deps.urls.checkout());
}

export function chargeView(row: ChargeRow, checkoutUrl: string): ChargeView {
  if (row.provider_payment_id === null || row.provider_status === null) {
    throw new Error(`charge ${row.id} is not created yet`);
  }
  return {
    id: row.id,
    amount: row.amount,
    amountRefunded: row.refunded_amount,
    currency: row.currency,
    paymentMethod: row.payment_method,
    merchantReference: row.merchant_reference,
    status: row.status,
    paymentPageUrl: `${checkoutUrl}/c/${row.provider_payment_id}`,
    providerPaymentId: row.provider_payment_id,
    providerStatus: row.provider_status,
    customer: {
      name: row.customer_name,
      email: row.customer_email,
      phone: row.customer_phone,
      reference: row.customer_reference,
    },
    card:
      row.card_brand !== null && row.card_last4 !== null
        ? { brand: row.card_brand, last4: row.card_last4 }
        : null,
    failure:
      row.failure_code !== null
        ? { code: row.failure_code, message: row.failure_message ?? row.failure_code }
        : null,
    metadata: row.metadata,
    returnUrl: row.return_url,
    livemode: row.environment === 'live',
    expiresAt: row.expires_at.toISOString(),
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}
